// A register-level model of the chip's CTRL block, DMA engine, matrix unit and vector unit for host tests of the
// firmware (the drivers, the GEMM kernel, the runtime) and for runtime_fuzz: installed as the hal mock device, it
// answers the register map (strata/regmap.h) the way the RTL does, moves HBM bytes, and advances only when told to
// (Step), which a test's wfi hook does. One model, shared by every host test of code above the drivers.
//
// Not modelled: timing (a Step completes the head of every DMA queue and one matrix-unit command), on-chip
// memories (VMEM, ACC and SMEM sides of a DMA move no data and are not range-checked: on the host an SMEM offset
// comes from a host pointer), the matrix unit's and the vector unit's arithmetic (commands complete, RowsStreamed
// and ROWS_DONE count, nothing is computed; the vector unit's head checks are the RTL's), the machine timer and the
// console's framing (its bytes are collected).
#ifndef STRATA_TESTS_FIRMWARE_HOST_HOST_DEVICE_H_
#define STRATA_TESTS_FIRMWARE_HOST_HOST_DEVICE_H_

#include <stdint.h>

#include <deque>
#include <string>
#include <vector>

#include "hal/mmio.h"
#include "strata/regmap.h"

namespace strata::host_model {

class HostDevice : public hal::MockDevice {
 public:
  struct Options {
    uint64_t hbm_bytes = uint64_t{4} << 20;
    uint32_t mxu_n = 16;
  };
  HostDevice();  // default Options
  explicit HostDevice(const Options& options);
  // A device reset: HBM zeroed (its storage kept: a fuzzer resets once per input), every register as after reset.
  void Reset(const Options& options);

  // A copy of the staged registers at PUSH.
  struct DmaDescriptor {
    uint64_t src = 0, dst = 0;
    uint32_t len = 0, rows = 1, src_stride = 0, dst_stride = 0, ctrl = 0;
  };
  // The staged command registers at PUSH, read by their offsets (STRATA_MXU_SRC, ...).
  struct MxuCommand {
    uint32_t regs[STRATA_MXU_K_ROWS / 4 + 1] = {};
    uint32_t at(uint32_t offset) const { return regs[offset / 4]; }
  };
  // The vector unit's staged command registers at PUSH (STRATA_VPU_CMD .. STRATA_VPU_DST_STRIDE).
  struct VpuCommand {
    uint32_t regs[STRATA_VPU_DST_STRIDE / 4 + 1] = {};
    uint32_t at(uint32_t offset) const { return regs[offset / 4]; }
  };

  // Time passes: the head descriptor of every DMA queue and the matrix unit's oldest command complete (raising
  // their interrupts when asked to). Returns whether anything completed.
  bool Step();
  // What a wfi waits for: steps until an enabled interrupt is pending. False when none can ever come (nothing
  // queued and nothing pending): the core would sleep forever.
  bool RunUntilWake();
  // Completes everything queued.
  void RunUntilIdle();
  bool WakePending() const { return (irq_pending_ & irq_enable_) != 0; }

  // The host side of the CTRL block: a doorbell write stores the value and raises IRQ DOORBELL.
  void RingDoorbell(uint32_t value);

  std::vector<uint8_t>& hbm() { return hbm_; }
  uint64_t hbm_bytes() const { return hbm_.size(); }
  const std::string& console() const { return console_; }
  uint32_t irq_pending() const { return irq_pending_; }
  uint32_t irq_enable() const { return irq_enable_; }
  uint32_t doorbell() const { return doorbell_; }
  // Descriptors accepted by PUSH on `queue`, oldest first (completed ones too).
  const std::vector<DmaDescriptor>& dma_pushed(uint32_t queue) const { return dma_[queue].pushed; }
  size_t dma_queued(uint32_t queue) const { return dma_[queue].queue.size(); }
  const std::vector<MxuCommand>& mxu_pushed() const { return mxu_.pushed; }
  size_t mxu_queued() const { return mxu_.queue.size(); }
  const std::vector<VpuCommand>& vpu_pushed() const { return vpu_.pushed; }
  size_t vpu_queued() const { return vpu_.queue.size(); }
  // The vector unit's error code for `c`, the checks in the RTL's order (rtl/tpu_vpu_engine.sv).
  static uint32_t VpuCheck(const VpuCommand& c);
  // The matrix unit's streamed-rows counter (a stand-in kernel that bypasses the unit can add to it).
  void AddRowsStreamed(uint32_t rows) { mxu_.rows_streamed += rows; }

  uint32_t Read32(uintptr_t address) override;
  void Write32(uintptr_t address, uint32_t value) override;

 private:
  // DONE, ERRORS and STATUS.LAST_ERR, as both blocks keep them (error code 0 is none in both).
  struct Counters {
    uint32_t done = 0, errors = 0, last_err = 0;
    void Error(uint32_t code) {
      ++errors;
      last_err = code;
    }
    void Complete(uint32_t code) {
      ++done;
      if (code != 0) Error(code);
    }
    // The block's STATUS, DONE and ERRORS registers; false for another offset.
    struct Offsets {
      uint32_t status, done, errors;
    };
    bool Read(uint32_t offset, const Offsets& at, size_t queued, uint32_t* value) const;
  };
  struct DmaQueue : Counters {
    uint32_t staged[STRATA_DMA_STRIDE / 4] = {};
    std::deque<DmaDescriptor> queue;  // the running one first
    std::vector<DmaDescriptor> pushed;
  };
  struct Mxu : Counters {
    uint32_t staged[STRATA_MXU_SIZE / 4] = {};
    std::deque<MxuCommand> queue;
    std::vector<MxuCommand> pushed;
    uint32_t rows_streamed = 0;
  };
  struct Vpu : Counters {
    uint32_t staged[STRATA_VPU_SIZE / 4] = {};
    std::deque<VpuCommand> queue;
    std::vector<VpuCommand> pushed;
    uint32_t rows_done = 0;
  };
  static_assert(STRATA_DMA_ERR_NONE == 0 && STRATA_MXU_ERR_NONE == 0 && STRATA_VPU_ERR_NONE == 0, "Counters::Complete");

  void DmaPush(uint32_t q);
  void DmaComplete(uint32_t q);
  uint32_t DmaCheck(const DmaDescriptor& d) const;
  void MxuPush();
  void MxuComplete();
  void VpuPush();
  void VpuComplete();

  std::vector<uint8_t> hbm_;
  uint32_t mxu_n_ = 0;
  std::string console_;
  uint32_t irq_pending_ = 0, irq_enable_ = 0, doorbell_ = 0;
  DmaQueue dma_[STRATA_DMA_COUNT];
  Mxu mxu_;
  Vpu vpu_;
};

}  // namespace strata::host_model

#endif  // STRATA_TESTS_FIRMWARE_HOST_HOST_DEVICE_H_
