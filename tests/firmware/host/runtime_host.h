// The device runtime (firmware/runtime) running on the host over HostDevice, for unit tests: the firmware runs on
// its own thread and the test on its own, taking turns (never both at once). The firmware's turn lasts until it
// sleeps in wfi with nothing that could wake it but the host (an idle command loop: no command, no DMA left);
// then the test's turn: it reads completions, writes commands, rings the doorbell, looks at the device.
//
// With auto_progress (the default) time passes whenever the firmware sleeps: DMA descriptors and matrix-unit
// commands complete until an enabled interrupt wakes it. Without it, the device advances in the firmware's own
// waits (a driver waiting for a ticket) and when the test calls device().Step(): transfers stay in flight while the
// command loop is idle, so a test can act while they are.
#ifndef STRATA_TESTS_FIRMWARE_HOST_RUNTIME_HOST_H_
#define STRATA_TESTS_FIRMWARE_HOST_RUNTIME_HOST_H_

#include <stdint.h>

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "host_device.h"
#include "runtime/runtime.h"
#include "strata/protocol.h"

namespace strata::host_model {

class HostRuntime {
 public:
  // Resets the control core's state and the runtime's, installs a fresh device and boots the runtime; returns at
  // its first idle sleep (header state READY, or FAILED).
  explicit HostRuntime(const HostDevice::Options& options = HostDevice::Options{}, bool auto_progress = true);
  ~HostRuntime();
  HostRuntime(const HostRuntime&) = delete;
  HostRuntime& operator=(const HostRuntime&) = delete;

  HostDevice& device() { return device_; }
  strata_rt_header header() const;  // a copy
  strata_rt_stats stats() const;
  uint64_t staging_address(uint32_t slot) const;

  // Queues a command (seq assigned here, returned) in the submission ring; Ring() makes the runtime see it.
  uint32_t Push(strata_cmd cmd);
  void Ring();  // doorbell = the ring's tail
  // The firmware's turn (see above).
  void Resume();
  // Completions posted since the last call, in ring order.
  std::vector<strata_cpl> TakeCompletions();
  // Push + Ring + Resume, then the completion of that command (FAILED_PRECONDITION in status when none came).
  strata_cpl Call(strata_cmd cmd);

  // Whether the firmware's last sleep was the command loop's (the doorbell enabled), not a driver's or a halt.
  bool idle() const;

  static strata_cmd Command(uint8_t opcode, uint32_t context = 0);

 private:
  void FirmwareMain();
  void OnWfi();
  void TestTurn();  // on the firmware thread: hands over and waits

  HostDevice device_;
  runtime::HostView view_;
  bool auto_progress_;
  uint32_t sq_tail_ = 0, cq_head_ = 0, seq_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  bool firmware_turn_ = true;
  bool stopping_ = false;
  bool finished_ = false;
  std::thread thread_;
};

}  // namespace strata::host_model

#endif  // STRATA_TESTS_FIRMWARE_HOST_RUNTIME_HOST_H_
