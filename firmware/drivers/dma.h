// DMA driver: queues descriptors on the DMA engine and sleeps in wfi until they complete.
#ifndef STRATA_FW_DRIVERS_DMA_H_
#define STRATA_FW_DRIVERS_DMA_H_

#include <stdint.h>

#include "hal/mmio.h"
#include "strata/regmap.h"
#include "strata/status.h"

namespace strata::dma {

enum class Tier : uint32_t {
  kHbm = STRATA_DMA_TIER_HBM,
  kVmem = STRATA_DMA_TIER_VMEM,
  kAcc = STRATA_DMA_TIER_ACC,
  kSmem = STRATA_DMA_TIER_SMEM,
};

// One transfer: `rows` rows of `len` bytes, `src_stride`/`dst_stride` bytes apart. On-chip
// addresses are byte offsets into their tier (SMEM offsets, not CPU addresses: see SmemOffset).
struct Descriptor {
  Tier src_tier;
  uint64_t src;
  Tier dst_tier;
  uint64_t dst;
  uint32_t len;
  uint32_t rows = 1;
  uint32_t src_stride = 0;
  uint32_t dst_stride = 0;
};

constexpr uint32_t kNumQueues = STRATA_DMA_COUNT;

// Enables machine external interrupts (the DMA's wake-up path) and syncs with the engine's
// counters. Call once before Submit.
void Init();

// Queues `d` on `queue` (waiting, asleep, while the queue is full) and returns its ticket.
// INVALID_ARGUMENT for a bad queue, zero sizes or on-chip to on-chip; the engine itself checks
// ranges (the error then comes from Wait).
strata_status Submit(uint32_t queue, const Descriptor& d, uint32_t* ticket);

// Sleeps until every descriptor up to `ticket` on `queue` has completed. Returns OK, or the
// status of an engine error seen since the previous Wait on that queue: OUT_OF_RANGE (a side
// reaches outside its tier), INVALID_ARGUMENT, RESOURCE_EXHAUSTED (queue overflow).
strata_status Wait(uint32_t queue, uint32_t ticket);

// Whether every descriptor up to `ticket` on `queue` has completed (never sleeps); then Wait returns at once.
// Inline: a kernel polls it between commands it issues (kernels/gemm.cc), where a call's cost shows.
inline bool IsDone(uint32_t queue, uint32_t ticket) {
  constexpr hal::MmioRegion kDma(STRATA_DMA_BASE);
  return queue < kNumQueues &&
         static_cast<int32_t>(kDma.Read32(queue * STRATA_DMA_STRIDE + STRATA_DMA_DONE) - ticket) >= 0;
}

// Submit + Wait.
strata_status Copy(uint32_t queue, const Descriptor& d);

// SMEM byte offset of a CPU pointer into SMEM.
inline uint64_t SmemOffset(const void* p) { return reinterpret_cast<uintptr_t>(p) - STRATA_SMEM_BASE; }

}  // namespace strata::dma

#endif  // STRATA_FW_DRIVERS_DMA_H_
