// Matrix-unit driver. As the DMA driver: interrupts are wake-up events only (mstatus.MIE stays
// as it was, the MXU source is enabled while sleeping); every command asks for a completion
// interrupt, so a sleeper waiting for queue space or a ticket always gets woken.
#include "drivers/mxu.h"

#include "arch/arch.h"
#include "hal/mmio.h"

namespace strata::mxu {
namespace {

constexpr hal::MmioRegion kCtrl(STRATA_CTRL_BASE);
constexpr hal::MmioRegion kMxu(STRATA_MXU_BASE);

uint32_t g_n = 0;
uint32_t g_submitted = 0;
uint32_t g_errors_seen = 0;

bool Reached(uint32_t target) { return static_cast<int32_t>(kMxu.Read32(STRATA_MXU_DONE) - target) >= 0; }
uint32_t Pending() {
  return (kMxu.Read32(STRATA_MXU_STATUS) & STRATA_MXU_STATUS_PENDING_MASK) >> STRATA_MXU_STATUS_PENDING_LSB;
}

// Sleeps until `ready()` holds; the MXU interrupt (one per completed command) wakes the core.
template <typename Ready>
void SleepUntil(Ready ready) {
  if (ready()) return;
  const bool interrupts_on = (STRATA_CSR_READ(mstatus) & arch::kMstatusMie) != 0;
  arch::DisableInterrupts();
  kCtrl.Write32(STRATA_CTRL_IRQ_ENABLE, kCtrl.Read32(STRATA_CTRL_IRQ_ENABLE) | STRATA_IRQ_MXU);
  for (;;) {
    kCtrl.Write32(STRATA_CTRL_IRQ_PENDING, STRATA_IRQ_MXU);
    if (ready()) break;
    arch::WaitForInterrupt();
  }
  kCtrl.Write32(STRATA_CTRL_IRQ_ENABLE, kCtrl.Read32(STRATA_CTRL_IRQ_ENABLE) & ~STRATA_IRQ_MXU);
  if (interrupts_on) arch::EnableInterrupts();
}

strata_status StatusOf(uint32_t unit_error) {
  switch (unit_error) {
    case STRATA_MXU_ERR_SRC_RANGE:
    case STRATA_MXU_ERR_DST_RANGE: return STRATA_OUT_OF_RANGE;
    case STRATA_MXU_ERR_QUEUE_FULL: return STRATA_RESOURCE_EXHAUSTED;
    case STRATA_MXU_ERR_NONE: return STRATA_INTERNAL;
    default: return STRATA_INVALID_ARGUMENT;
  }
}

}  // namespace

void Init() {
  STRATA_CSR_SET(mie, 1u << arch::kIrqMachineExternal);
  g_n = (kMxu.Read32(STRATA_MXU_CONFIG) & STRATA_MXU_CONFIG_N_MASK) >> STRATA_MXU_CONFIG_N_LSB;
  g_submitted = kMxu.Read32(STRATA_MXU_DONE) + Pending();
  g_errors_seen = kMxu.Read32(STRATA_MXU_ERRORS);
}

uint32_t ArraySize() { return g_n; }

strata_status Submit(const Command& c, uint32_t* ticket) {
  const uint32_t align = g_n < 64 ? g_n : 64;
  if (ticket == nullptr || g_n == 0 || c.rows == 0 || c.quant_shift > 63) return STRATA_INVALID_ARGUMENT;
  switch (c.op) {
    case Op::kLoadWeights:
      if (c.rows > g_n || c.src % align != 0) return STRATA_INVALID_ARGUMENT;
      break;
    case Op::kMatmul:
      if (c.src % align != 0 || c.src_stride % align != 0 || c.dst % (4 * g_n) != 0) return STRATA_INVALID_ARGUMENT;
      break;
    case Op::kReadout:
      if (c.src % (4 * g_n) != 0) return STRATA_INVALID_ARGUMENT;
      break;
    default: return STRATA_INVALID_ARGUMENT;
  }
  SleepUntil([] { return Pending() < STRATA_MXU_QUEUE_DEPTH; });
  kMxu.Write32(STRATA_MXU_SRC, c.src);
  kMxu.Write32(STRATA_MXU_DST, c.dst);
  kMxu.Write32(STRATA_MXU_ROWS, c.rows);
  if (c.op == Op::kMatmul) kMxu.Write32(STRATA_MXU_SRC_STRIDE, c.src_stride);
  if (c.op == Op::kReadout) {
    kMxu.Write32(STRATA_MXU_QUANT_MULT, static_cast<uint32_t>(c.quant_mult));
    kMxu.Write32(STRATA_MXU_QUANT_SHIFT, c.quant_shift);
  }
  kMxu.Write32(STRATA_MXU_CMD, (static_cast<uint32_t>(c.op) << STRATA_MXU_CMD_OP_LSB) |
                                   (c.accumulate ? STRATA_MXU_CMD_ACCUMULATE_MASK : 0) |
                                   (c.relu ? STRATA_MXU_CMD_RELU_MASK : 0) | (c.int8 ? STRATA_MXU_CMD_INT8_MASK : 0) |
                                   (c.round ? STRATA_MXU_CMD_ROUND_MASK : 0) | STRATA_MXU_CMD_IRQ_MASK);
  kMxu.Write32(STRATA_MXU_PUSH, 1);
  *ticket = ++g_submitted;
  return STRATA_OK;
}

strata_status LoadWeights(uint32_t vmem_src, uint32_t valid_rows, uint32_t* ticket) {
  Command c{Op::kLoadWeights};
  c.src = vmem_src;
  c.rows = valid_rows;
  return Submit(c, ticket);
}

strata_status Matmul(uint32_t vmem_src, uint32_t src_stride, uint32_t rows, uint32_t acc_dst, bool accumulate,
                     uint32_t* ticket) {
  Command c{Op::kMatmul};
  c.src = vmem_src;
  c.src_stride = src_stride;
  c.rows = rows;
  c.dst = acc_dst;
  c.accumulate = accumulate;
  return Submit(c, ticket);
}

bool IsDone(uint32_t ticket) { return Reached(ticket); }

strata_status Wait(uint32_t ticket) {
  if (static_cast<int32_t>(g_submitted - ticket) < 0) return STRATA_INVALID_ARGUMENT;
  SleepUntil([ticket] { return Reached(ticket); });
  const uint32_t errors = kMxu.Read32(STRATA_MXU_ERRORS);
  if (errors == g_errors_seen) return STRATA_OK;
  g_errors_seen = errors;
  return StatusOf((kMxu.Read32(STRATA_MXU_STATUS) & STRATA_MXU_STATUS_LAST_ERR_MASK) >> STRATA_MXU_STATUS_LAST_ERR_LSB);
}

uint32_t LastTicket() { return g_submitted; }
uint32_t RowsStreamed() { return kMxu.Read32(STRATA_MXU_ROWS_STREAMED); }

}  // namespace strata::mxu
