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

#include "Vtpu_top.h"
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

Device::Device(const TraceOptions& trace, const hbm::HbmConfig& hbm)
    : trace_opts_(trace), context_(std::make_unique<VerilatedContext>()) {
  hbm_ = std::make_unique<hbm::HbmModel>(hbm);
  bridge_ = std::make_unique<HbmBridge>(*hbm_);
  if (!trace_opts_.path.empty()) context_->traceEverOn(true);
  // A Verilated model registers (and on destruction unregisters) its scopes through the calling thread's
  // current context; with several devices in a process (or threads that did not create this one) that
  // would be another model's, and ~Vtpu_top then blocks in VerilatedMutex::lock. Name ours explicitly.
  Verilated::threadContextp(context_.get());
  top_ = std::make_unique<Vtpu_top>(context_.get(), "strata");  // waveform root: strata.tpu_top...
  top_->clk_i = 0;
  top_->rst_ni = 0;
  top_->core_rst_ni = 0;
  top_->hbm_capacity_i = hbm_->capacity();
  top_->eval();
  if (!trace_opts_.path.empty()) {
    const std::string& p = trace_opts_.path;
    const bool vcd = p.size() >= 4 && p.compare(p.size() - 4, 4, ".vcd") == 0;
    // The model is built with FST tracing (one format per Verilation); VCD is converted.
    trace_fst_path_ = vcd ? p + ".tmp.fst" : p;
    trace_ = std::make_unique<VerilatedFstC>();
    top_->trace(trace_.get(), trace_opts_.depth > 0 ? trace_opts_.depth : 99);
    trace_->open(trace_fst_path_.c_str());
  }
}

Device::~Device() {
  VerilatedContext* const previous = Verilated::threadContextp();
  Verilated::threadContextp(context_.get());  // see the constructor
  CloseTrace();
  top_->final();
  top_.reset();
  // The context dies with this device: leave the thread no dangling pointer to it.
  Verilated::threadContextp(previous == context_.get() ? nullptr : previous);
}

bool Device::CloseTrace() {
  if (!trace_) return true;
  trace_->close();
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

void Device::Tick() {
  const bool dump = trace_ && cycle_ >= trace_opts_.start && cycle_ < trace_opts_.end;
  top_->clk_i = 0;
  top_->eval();
  if (dump) trace_->dump(cycle_ * 1000);  // 1 GHz: timestamps in ps
  for (auto& hook : hooks_) {
    if (hook) hook();
  }
  bridge_->BeforeRisingEdge(*top_);
  top_->clk_i = 1;
  top_->eval();
  if (dump) trace_->dump(cycle_ * 1000 + 500);
  ++cycle_;
}

int Device::AddCycleHook(std::function<void()> hook) {
  hooks_.push_back(std::move(hook));
  return static_cast<int>(hooks_.size() - 1);
}

void Device::RemoveCycleHook(int id) {
  if (id >= 0 && static_cast<size_t>(id) < hooks_.size()) hooks_[id] = nullptr;
}

void Device::HoldInReset() {
  top_->rst_ni = 0;
  top_->core_rst_ni = 0;
  top_->irq_i = 0;
  top_->host_req_i = 0;
  for (int i = 0; i < 4; ++i) Tick();
  top_->rst_ni = 1;  // the rest of the chip runs; the core stays held
  Tick();
}

void Device::ResetAndLoad(const ElfImage& image) {
  HoldInReset();
  top_->tohost_addr_i = image.tohost.value_or(0);
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
  top_->core_rst_ni = 1;
}

uint32_t Device::HostAccess(bool write, uint32_t address, uint32_t value, uint8_t byte_enable) {
  top_->host_req_i = 1;
  top_->host_we_i = write;
  top_->host_addr_i = address & ~3u;
  top_->host_be_i = byte_enable & 0xf;
  top_->host_wdata_i = value;
  // host_gnt_o is combinational from this cycle's requests: sample it before the rising edge.
  for (;;) {
    top_->clk_i = 0;
    top_->eval();
    const bool granted = top_->host_gnt_o;
    Tick();
    if (granted) break;
  }
  top_->host_req_i = 0;
  top_->host_we_i = 0;
  return top_->host_rdata_o;  // read data is registered at the granted edge
}

void Device::HostWrite32(uint32_t address, uint32_t value, uint8_t byte_enable) {
  HostAccess(true, address, value, byte_enable);
}

uint32_t Device::HostRead32(uint32_t address) { return HostAccess(false, address, 0, 0xf); }

bool Device::console_valid() const { return top_->console_valid_o; }
char Device::console_char() const { return static_cast<char>(top_->console_data_o); }
bool Device::tohost_valid() const { return top_->tohost_valid_o; }
uint32_t Device::tohost_value() const { return top_->tohost_data_o; }
uint64_t Device::instret() const { return top_->instret_o; }
bool Device::sleeping() const { return top_->sleeping_o; }
void Device::set_irq(uint32_t lines) { top_->irq_i = lines & ((1u << STRATA_NUM_IRQS) - 1); }

}  // namespace strata::sim
