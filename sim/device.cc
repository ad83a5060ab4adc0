// Clocking, reset, loading and tracing of the Verilated Strata device.
#include "device.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <verilated.h>
#include <verilated_fst_c.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <system_error>

#include "hbm/hbm_model.h"
#include "hbm_bridge.h"
#include "strata/regmap.h"

namespace strata::sim {
namespace {

bool RunFst2Vcd(const std::string& fst, const std::string& vcd) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::string a0 = "fst2vcd", a1 = "-f", a2 = fst, a3 = "-o", a4 = vcd;
  char* argv[] = {a0.data(), a1.data(), a2.data(), a3.data(), a4.data(), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, "fst2vcd", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return false;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return false;
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

Device::Device(const TraceOptions& trace, const hbm::HbmConfig& hbm, int mxu_n)
    : trace_opts_(trace), context_(std::make_unique<VerilatedContext>()) {
  if (const char* env = std::getenv("STRATA_SIM_FAST_FORWARD"); env != nullptr && std::string(env) == "0") {
    fast_forward_ = false;
  }
  hbm_ = std::make_unique<hbm::HbmModel>(hbm);
  bridge_ = std::make_unique<HbmBridge>(*hbm_);
  if (!trace_opts_.path.empty()) context_->traceEverOn(true);
  // A Verilated model registers (and on destruction unregisters) its scopes through the calling thread's
  // current context; with several devices in a process (or threads that did not create this one) that
  // would be another model's, and ~Vtpu_top_nN then blocks in VerilatedMutex::lock. Name ours explicitly.
  Verilated::threadContextp(context_.get());
  chip_ = MakeChipModel(mxu_n, context_.get(), "strata");  // waveform root: strata.tpu_top...
  if (!chip_) {
    Verilated::threadContextp(nullptr);
    throw std::invalid_argument("no chip with a " + std::to_string(mxu_n) + "x" + std::to_string(mxu_n) +
                                " matrix unit in this build (built: " + BuiltMxuSizesText() + ")");
  }
  chip_->SetReset(false, false);
  chip_->SetHbmCapacity(hbm_->capacity());
  chip_->SetGateBypass(!fast_forward_);
  chip_->FallingEdge(false);
  if (!trace_opts_.path.empty()) {
    const std::string& p = trace_opts_.path;
    const bool vcd = p.size() >= 4 && p.compare(p.size() - 4, 4, ".vcd") == 0;
    // The model is built with FST tracing (one format per Verilation); VCD is converted.
    trace_fst_path_ = vcd ? p + ".tmp.fst" : p;
    trace_ = std::make_unique<VerilatedFstC>();
    chip_->AttachTrace(trace_.get(), trace_opts_.depth > 0 ? trace_opts_.depth : 99);
    trace_->open(trace_fst_path_.c_str());
  }
}

Device::~Device() {
  VerilatedContext* const previous = Verilated::threadContextp();
  Verilated::threadContextp(context_.get());  // see the constructor
  CloseTrace();
  chip_->Final();
  chip_.reset();
  // The context dies with this device: leave the thread no dangling pointer to it.
  Verilated::threadContextp(previous == context_.get() ? nullptr : previous);
}

bool Device::CloseTrace() {
  if (!trace_) return true;
  if (trace_finisher_.joinable()) {
    trace_finisher_.join();
  } else if (!trace_finished_) {
    trace_->close();
  }
  trace_.reset();
  if (trace_fst_path_ == trace_opts_.path) return true;
  // GTKWave's converter, run with an argument vector (never through a shell: a path may hold any character).
  if (!RunFst2Vcd(trace_fst_path_, trace_opts_.path)) {
    std::fprintf(stderr, "strata-sim: fst2vcd failed; the waveform is in %s\n", trace_fst_path_.c_str());
    return false;
  }
  std::remove(trace_fst_path_.c_str());
  return true;
}

void Device::set_fast_forward(bool on) {
  CatchUp();
  inputs_changed_ = true;
  fast_forward_ = on;
  chip_->SetGateBypass(!on);
}

bool Device::Recording() const {
  return trace_ && !trace_finished_ && cycle_ >= trace_opts_.start && cycle_ < trace_opts_.end;
}

void Device::FinishTraceInBackground() {
  trace_finished_ = true;
  try {
    trace_finisher_ = std::thread([trace = trace_.get()] { trace->close(); });
  } catch (const std::system_error&) {
    trace_->close();  // no thread to be had: finish it here (CloseTrace then finds it closed)
  }
}

void Device::set_trace_window(uint64_t start, uint64_t end) {
  // A window cut short below the current cycle has ended, like one that ran to its end.
  const bool recording = Recording();
  trace_opts_.start = start;
  trace_opts_.end = end;
  if (recording && end <= cycle_) FinishTraceInBackground();
}

bool Device::CanSkipCycle() const {
  // The timer term: mtime after this edge (counting skipped cycles) must stay below mtimecmp, or
  // irq_timer would change without the chip being evaluated.
  return fast_forward_ && !Recording() && quiet_run_ >= kQuietCyclesBeforeSkip && !inputs_changed_ &&
         !bridge_->HasBeatOrCompletion() && chip_->CyclesUntilTimer() > skipped_pending_ + 1;
}

void Device::CatchUp() {
  if (skipped_pending_ == 0) return;
  chip_->AdvanceFreeRunningCounters(skipped_pending_);
  skipped_pending_ = 0;
}

void Device::Tick() {
  if (CanSkipCycle()) {
    // The same order as an evaluated cycle: hooks between the edges, then the bridge and the HBM.
    for (auto& hook : hooks_) {
      if (hook) hook();
    }
    bridge_->AdvanceWithoutChip();
    ++skipped_pending_;
    ++skipped_total_;
    ++cycle_;
    return;
  }
  CatchUp();
  const bool dump = Recording();
  if (chip_->FallingEdge(fast_forward_ && !dump)) ++elided_total_;  // evaluated when recording, or fast paths off
  if (dump) trace_->dump(cycle_ * 1000);                            // 1 GHz: timestamps in ps
  for (auto& hook : hooks_) {
    if (hook) hook();
  }
  chip_->RisingEdge(*bridge_);  // the bridge's ports, then the rising edge
  dma_gated_total_ += !chip_->dma_clocked();
  mxu_gated_total_ += !chip_->mxu_clocked();
  if (dump) trace_->dump(cycle_ * 1000 + 500);
  ++cycle_;
  if (dump && cycle_ == trace_opts_.end) FinishTraceInBackground();
  quiet_run_ = chip_->quiescent() && !inputs_changed_ && !bridge_->ports_active() ? quiet_run_ + 1 : 0;
  inputs_changed_ = false;
}

int Device::AddCycleHook(std::function<void()> hook) {
  hooks_.push_back(std::move(hook));
  return static_cast<int>(hooks_.size() - 1);
}

void Device::RemoveCycleHook(int id) {
  if (id >= 0 && static_cast<size_t>(id) < hooks_.size()) hooks_[id] = nullptr;
}

void Device::HoldInReset() {
  CatchUp();
  inputs_changed_ = true;
  chip_->SetReset(false, false);
  chip_->SetIrq(0);
  chip_->SetHostRequest(HostPortRequest{});
  for (int i = 0; i < 4; ++i) Tick();
  chip_->SetReset(true, false);  // the rest of the chip runs; the core stays held
  Tick();
}

void Device::ResetAndLoad(const ElfImage& image) {
  HoldInReset();
  chip_->SetTohostAddress(image.tohost.value_or(0));
  for (const ElfSegment& seg : image.segments) {
    const uint32_t begin = seg.address;
    const uint32_t end = begin + static_cast<uint32_t>(seg.bytes.size());
    for (uint32_t word = begin & ~3u; word < end; word += 4) {
      uint32_t data = 0;
      uint8_t be = 0;
      for (uint32_t b = 0; b < 4; ++b) {
        const uint32_t a = word + b;
        if (a >= begin && a < end) {
          data |= uint32_t{seg.bytes[a - begin]} << (8 * b);
          be |= 1u << b;
        }
      }
      HostWrite32(word, data, be);
    }
  }
  inputs_changed_ = true;
  chip_->SetReset(true, true);
}

uint32_t Device::HostAccess(bool write, uint32_t address, uint32_t value, uint8_t byte_enable) {
  HostPortRequest request{true, write, address & ~3u, static_cast<uint8_t>(byte_enable & 0xf), value};
  CatchUp();
  inputs_changed_ = true;
  chip_->SetHostRequest(request);
  // host_gnt_o is combinational from this cycle's requests: sample it before the rising edge.
  for (;;) {
    chip_->FallingEdge(false);
    const bool granted = chip_->host_granted();
    Tick();
    if (granted) break;
  }
  request.valid = false;
  request.write = false;
  inputs_changed_ = true;
  chip_->SetHostRequest(request);
  return chip_->host_read_data();  // read data is registered at the granted edge
}

void Device::HostWrite32(uint32_t address, uint32_t value, uint8_t byte_enable) {
  HostAccess(true, address, value, byte_enable);
}

uint32_t Device::HostRead32(uint32_t address) { return HostAccess(false, address, 0, 0xf); }

void Device::set_irq(uint32_t lines) {
  CatchUp();
  inputs_changed_ = true;
  chip_->SetIrq(lines & ((1u << STRATA_NUM_IRQS) - 1));
}

}  // namespace strata::sim
