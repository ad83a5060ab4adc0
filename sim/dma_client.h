// Programs the DMA engine through the device's host port, as a host driver would (tests, benchmarks).
#ifndef STRATA_SIM_DMA_CLIENT_H_
#define STRATA_SIM_DMA_CLIENT_H_

#include <cstdint>

#include "device.h"
#include "strata/regmap.h"

namespace strata::sim {

struct DmaDescriptor {
  uint32_t src_tier, dst_tier;  // STRATA_DMA_TIER_*
  uint64_t src, dst;            // on-chip sides: byte offsets into their tier
  uint32_t len, rows = 1, src_stride = 0, dst_stride = 0;
};

class DmaClient {
 public:
  explicit DmaClient(Device& device) : device_(device) {}

  uint32_t Reg(uint32_t q, uint32_t offset) {
    return device_.HostRead32(STRATA_DMA_BASE + q * STRATA_DMA_STRIDE + offset);
  }
  void SetReg(uint32_t q, uint32_t offset, uint32_t v) {
    device_.HostWrite32(STRATA_DMA_BASE + q * STRATA_DMA_STRIDE + offset, v);
  }

  void Push(uint32_t q, const DmaDescriptor& d) {
    SetReg(q, STRATA_DMA_SRC_LO, static_cast<uint32_t>(d.src));
    SetReg(q, STRATA_DMA_SRC_HI, static_cast<uint32_t>(d.src >> 32));
    SetReg(q, STRATA_DMA_DST_LO, static_cast<uint32_t>(d.dst));
    SetReg(q, STRATA_DMA_DST_HI, static_cast<uint32_t>(d.dst >> 32));
    SetReg(q, STRATA_DMA_LEN, d.len);
    SetReg(q, STRATA_DMA_ROWS, d.rows);
    SetReg(q, STRATA_DMA_SRC_STRIDE, d.src_stride);
    SetReg(q, STRATA_DMA_DST_STRIDE, d.dst_stride);
    SetReg(q, STRATA_DMA_CTRL,
           (d.src_tier << STRATA_DMA_CTRL_SRC_TIER_LSB) | (d.dst_tier << STRATA_DMA_CTRL_DST_TIER_LSB));
    SetReg(q, STRATA_DMA_PUSH, 1);
  }

  uint32_t LastError(uint32_t q) {
    return (Reg(q, STRATA_DMA_STATUS) & STRATA_DMA_STATUS_LAST_ERR_MASK) >> STRATA_DMA_STATUS_LAST_ERR_LSB;
  }

  // Ticks until queue q has completed `done` descriptors in total; false after max_cycles.
  bool WaitDone(uint32_t q, uint32_t done, uint64_t max_cycles = 2'000'000) {
    const uint64_t start = device_.edges();
    while (Reg(q, STRATA_DMA_DONE) < done) {
      for (int i = 0; i < 16; ++i) device_.Tick();
      if (device_.edges() - start >= max_cycles) return false;
    }
    return true;
  }

 private:
  Device& device_;
};

}  // namespace strata::sim

#endif  // STRATA_SIM_DMA_CLIENT_H_
