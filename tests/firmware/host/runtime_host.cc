// The device runtime on the host, taking turns with the test (runtime_host.h).
#include "runtime_host.h"

#include <string.h>

#include "arch/host/arch_host.h"
#include "hal/mmio.h"

namespace strata::host_model {
namespace {
struct Stop {};  // thrown out of the firmware's wfi to end its thread
}  // namespace

HostRuntime::HostRuntime(const HostDevice::Options& options, bool auto_progress)
    : device_(options), auto_progress_(auto_progress) {
  arch::host::Reset();
  view_ = runtime::ResetForHost();
  hal::SetMockDevice(&device_);
  arch::host::SetWfiHook([this] { OnWfi(); });
  thread_ = std::thread([this] { FirmwareMain(); });
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return !firmware_turn_; });
}

HostRuntime::~HostRuntime() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    firmware_turn_ = true;
  }
  cv_.notify_all();
  thread_.join();
  arch::host::Reset();
  hal::SetMockDevice(nullptr);
}

void HostRuntime::FirmwareMain() {
  try {
    runtime::Run();
  } catch (const Stop&) {
  }
  std::lock_guard<std::mutex> lock(mu_);
  finished_ = true;
  firmware_turn_ = false;
  cv_.notify_all();
}

void HostRuntime::TestTurn() {
  std::unique_lock<std::mutex> lock(mu_);
  firmware_turn_ = false;
  cv_.notify_all();
  cv_.wait(lock, [this] { return firmware_turn_; });
  if (stopping_) throw Stop{};
}

void HostRuntime::OnWfi() {
  for (;;) {
    if (device_.WakePending()) return;
    // A driver's wait always lets time pass; the idle command loop does when auto_progress says so.
    if ((!idle() || auto_progress_) && device_.RunUntilWake()) return;
    TestTurn();
  }
}

bool HostRuntime::idle() const { return (device_.irq_enable() & STRATA_IRQ_DOORBELL) != 0; }

void HostRuntime::Resume() {
  std::unique_lock<std::mutex> lock(mu_);
  if (finished_) return;
  firmware_turn_ = true;
  cv_.notify_all();
  cv_.wait(lock, [this] { return !firmware_turn_; });
}

strata_rt_header HostRuntime::header() const {
  strata_rt_header h;
  memcpy(&h, const_cast<const strata_rt_header*>(view_.header), sizeof h);
  return h;
}

strata_rt_stats HostRuntime::stats() const {
  strata_rt_stats s;
  memcpy(&s, const_cast<const strata_rt_stats*>(view_.stats), sizeof s);
  return s;
}

uint64_t HostRuntime::staging_address(uint32_t slot) const {
  return strata_rt_staging_slot_address(header().staging_address, slot);
}

strata_cmd HostRuntime::Command(uint8_t opcode, uint32_t context) {
  strata_cmd c{};
  c.opcode = opcode;
  c.context = context;
  return c;
}

uint32_t HostRuntime::Push(strata_cmd cmd) {
  cmd.seq = ++seq_;
  memcpy(const_cast<strata_cmd*>(&view_.sq[strata_rt_sq_slot(sq_tail_)]), &cmd, sizeof cmd);
  ++sq_tail_;
  return cmd.seq;
}

void HostRuntime::Ring() { device_.RingDoorbell(sq_tail_); }

std::vector<strata_cpl> HostRuntime::TakeCompletions() {
  std::vector<strata_cpl> out;
  for (;;) {
    const volatile strata_cpl& e = view_.cq[strata_rt_cq_slot(cq_head_)];
    if (e.phase != strata_rt_cq_phase(cq_head_)) break;
    strata_cpl cpl;
    memcpy(&cpl, const_cast<const strata_cpl*>(&e), sizeof cpl);
    out.push_back(cpl);
    ++cq_head_;
    view_.header->cq_head = cq_head_;
  }
  return out;
}

strata_cpl HostRuntime::Call(strata_cmd cmd) {
  const uint32_t seq = Push(cmd);
  Ring();
  Resume();
  strata_cpl found{};
  found.status = STRATA_FAILED_PRECONDITION;
  for (const strata_cpl& c : TakeCompletions()) {
    if (c.seq == seq) found = c;
  }
  return found;
}

}  // namespace strata::host_model
