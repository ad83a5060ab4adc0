// DMA driver. Completion interrupts are wake-up events only (drivers/irq.h): the driver sleeps until the
// queue's DONE counter reaches a ticket, with the DMA source enabled only while it sleeps.
#include "drivers/dma.h"

#include "arch/arch.h"
#include "drivers/irq.h"
#include "hal/mmio.h"

namespace strata::dma {
namespace {

constexpr hal::MmioRegion kDma(STRATA_DMA_BASE);

uint32_t g_submitted[kNumQueues];
uint32_t g_errors_seen[kNumQueues];

uint32_t Reg(uint32_t queue, uint32_t offset) { return kDma.Read32(queue * STRATA_DMA_STRIDE + offset); }
void SetReg(uint32_t queue, uint32_t offset, uint32_t v) { kDma.Write32(queue * STRATA_DMA_STRIDE + offset, v); }

// Sleeps until `done(queue) >= target` (wrap-safe).
void SleepUntil(uint32_t queue, uint32_t target) {
  irq::SleepUntil(STRATA_IRQ_DMA, [=] { return IsDone(queue, target); });
}

strata_status StatusOf(uint32_t engine_error) {
  switch (engine_error) {
    case STRATA_DMA_ERR_SRC_RANGE:
    case STRATA_DMA_ERR_DST_RANGE:
      return STRATA_OUT_OF_RANGE;
    case STRATA_DMA_ERR_QUEUE_FULL:
      return STRATA_RESOURCE_EXHAUSTED;
    case STRATA_DMA_ERR_NONE:
      return STRATA_INTERNAL;  // an error was counted without a code
    default:
      return STRATA_INVALID_ARGUMENT;
  }
}

}  // namespace

void Init() {
  STRATA_CSR_SET(mie, 1u << arch::kIrqMachineExternal);
  for (uint32_t q = 0; q < kNumQueues; ++q) {
    g_submitted[q] = Reg(q, STRATA_DMA_DONE) +
                     ((Reg(q, STRATA_DMA_STATUS) & STRATA_DMA_STATUS_PENDING_MASK) >> STRATA_DMA_STATUS_PENDING_LSB);
    g_errors_seen[q] = Reg(q, STRATA_DMA_ERRORS);
  }
}

strata_status Submit(uint32_t queue, const Descriptor& d, uint32_t* ticket) {
  if (queue >= kNumQueues || ticket == nullptr || d.len == 0 || d.rows == 0 ||
      (d.src_tier != Tier::kHbm && d.dst_tier != Tier::kHbm)) {
    return STRATA_INVALID_ARGUMENT;
  }
  // At most DEPTH waiting plus one running.
  SleepUntil(queue, g_submitted[queue] - STRATA_DMA_QUEUE_DEPTH);
  SetReg(queue, STRATA_DMA_SRC_LO, static_cast<uint32_t>(d.src));
  SetReg(queue, STRATA_DMA_SRC_HI, static_cast<uint32_t>(d.src >> 32));
  SetReg(queue, STRATA_DMA_DST_LO, static_cast<uint32_t>(d.dst));
  SetReg(queue, STRATA_DMA_DST_HI, static_cast<uint32_t>(d.dst >> 32));
  SetReg(queue, STRATA_DMA_LEN, d.len);
  SetReg(queue, STRATA_DMA_ROWS, d.rows);
  SetReg(queue, STRATA_DMA_SRC_STRIDE, d.src_stride);
  SetReg(queue, STRATA_DMA_DST_STRIDE, d.dst_stride);
  SetReg(queue, STRATA_DMA_CTRL,
         (static_cast<uint32_t>(d.src_tier) << STRATA_DMA_CTRL_SRC_TIER_LSB) |
             (static_cast<uint32_t>(d.dst_tier) << STRATA_DMA_CTRL_DST_TIER_LSB) | STRATA_DMA_CTRL_IRQ_MASK);
  SetReg(queue, STRATA_DMA_PUSH, 1);
  *ticket = ++g_submitted[queue];
  return STRATA_OK;
}

strata_status Wait(uint32_t queue, uint32_t ticket) {
  if (queue >= kNumQueues || static_cast<int32_t>(g_submitted[queue] - ticket) < 0) return STRATA_INVALID_ARGUMENT;
  SleepUntil(queue, ticket);
  const uint32_t errors = Reg(queue, STRATA_DMA_ERRORS);
  if (errors == g_errors_seen[queue]) return STRATA_OK;
  g_errors_seen[queue] = errors;
  return StatusOf((Reg(queue, STRATA_DMA_STATUS) & STRATA_DMA_STATUS_LAST_ERR_MASK) >> STRATA_DMA_STATUS_LAST_ERR_LSB);
}

strata_status Copy(uint32_t queue, const Descriptor& d) {
  uint32_t ticket = 0;
  const strata_status s = Submit(queue, d, &ticket);
  return s != STRATA_OK ? s : Wait(queue, ticket);
}

}  // namespace strata::dma
