// Matrix-unit driver. As the DMA driver: interrupts are wake-up events only (drivers/irq.h; the MXU
// source is enabled while sleeping); every command asks for a completion interrupt, so a sleeper
// waiting for queue space or a ticket always gets woken.
// The staged command registers keep their values across PUSH, so Submit writes only the ones
// that differ from the previous command (a cache of what it last wrote): a GEMM's commands
// mostly differ in SRC and DST, and every MMIO store costs the control core cycles.
#include "drivers/mxu.h"

#include "arch/arch.h"
#include "drivers/irq.h"
#include "hal/mmio.h"
#include "strata/gemm.h"  // STRATA_GEMM_MAX_QUANT_SHIFT

namespace strata::mxu {
namespace {

constexpr hal::MmioRegion kMxu(STRATA_MXU_BASE);

uint32_t g_n = 0;
uint32_t g_submitted = 0;
uint32_t g_errors_seen = 0;

// What the staged registers hold (valid after Init, which writes them all once).
enum Staged { kSrc, kDst, kRows, kStride, kMult, kShift, kWSrc, kWStride, kKRows, kCmd, kStagedCount };
constexpr uint32_t kStagedOffset[kStagedCount] = {
    STRATA_MXU_SRC,         STRATA_MXU_DST,   STRATA_MXU_ROWS,     STRATA_MXU_SRC_STRIDE, STRATA_MXU_QUANT_MULT,
    STRATA_MXU_QUANT_SHIFT, STRATA_MXU_W_SRC, STRATA_MXU_W_STRIDE, STRATA_MXU_K_ROWS,     STRATA_MXU_CMD};
uint32_t g_staged[kStagedCount];

// Whether x is a multiple of `align`, a power of two: N is one (tpu_mxu's MxuNLegal), and so are the
// row alignment min(N, line) and an ACC row's 4N bytes. A mask, not %: the core divides in 33 cycles,
// and Submit checks up to five alignments on the path that keeps the unit fed.
bool Aligned(uint32_t x, uint32_t align) { return (x & (align - 1)) == 0; }

void Stage(Staged r, uint32_t value) {
  if (g_staged[r] == value) return;
  g_staged[r] = value;
  kMxu.Write32(kStagedOffset[r], value);
}

bool Reached(uint32_t target) { return static_cast<int32_t>(kMxu.Read32(STRATA_MXU_DONE) - target) >= 0; }
uint32_t Pending() {
  return (kMxu.Read32(STRATA_MXU_STATUS) & STRATA_MXU_STATUS_PENDING_MASK) >> STRATA_MXU_STATUS_PENDING_LSB;
}

// Sleeps until `ready()` holds; the MXU interrupt (one per completed command) wakes the core.
template <typename Ready>
void SleepUntil(Ready ready) {
  irq::SleepUntil(STRATA_IRQ_MXU, ready);
}

strata_status StatusOf(uint32_t unit_error) {
  switch (unit_error) {
    case STRATA_MXU_ERR_SRC_RANGE:
    case STRATA_MXU_ERR_DST_RANGE:
      return STRATA_OUT_OF_RANGE;
    case STRATA_MXU_ERR_QUEUE_FULL:
      return STRATA_RESOURCE_EXHAUSTED;
    case STRATA_MXU_ERR_NONE:
      return STRATA_INTERNAL;
    default:
      return STRATA_INVALID_ARGUMENT;
  }
}

}  // namespace

void Init() {
  STRATA_CSR_SET(mie, 1u << arch::kIrqMachineExternal);
  g_n = (kMxu.Read32(STRATA_MXU_CONFIG) & STRATA_MXU_CONFIG_N_MASK) >> STRATA_MXU_CONFIG_N_LSB;
  g_submitted = kMxu.Read32(STRATA_MXU_DONE) + Pending();
  g_errors_seen = kMxu.Read32(STRATA_MXU_ERRORS);
  for (uint32_t r = 0; r < kStagedCount; ++r) {
    g_staged[r] = 0;
    kMxu.Write32(kStagedOffset[r], 0);
  }
}

uint32_t ArraySize() { return g_n; }

namespace {
// Submit's body; kMode = false is the int8 path with no trace of the mode (Submit), true adds `mode`'s CMD bits.
// Submit's instance compiles to the instructions Submit had before bf16 (int8 cycle counts are a contract,
// docs/matrix-unit.md "int8 unchanged"); forcing the template inline (always_inline) did not: GCC then laid out
// Submit's blocks differently, an extra jump on the path that keeps the unit fed.
template <bool kMode>
strata_status SubmitImpl(const Command& c, uint32_t mode, uint32_t* ticket) {
  const bool bf16 = kMode && (mode & kModeBf16) != 0;
  // An operand row is N int8, or N bf16 (2N bytes) in bf16 mode.
  const uint32_t align = bf16 ? STRATA_MXU_ROW_ALIGN(2 * g_n) : STRATA_MXU_ROW_ALIGN(g_n);
  if (ticket == nullptr || g_n == 0 || c.rows == 0 || c.quant_shift > STRATA_GEMM_MAX_QUANT_SHIFT)
    return STRATA_INVALID_ARGUMENT;
  if constexpr (kMode) {
    // fp32 ACC is read out as fp32 or bf16, never requantized; bf16 output needs the fp32 ACC.
    if ((mode & ~(kModeBf16 | kModeOutBf16)) != 0 || (bf16 && (c.int8 || c.round)) ||
        ((mode & kModeOutBf16) != 0 && !bf16) || ((mode & kModeOutBf16) != 0 && c.op != Op::kReadout)) {
      return STRATA_INVALID_ARGUMENT;
    }
  }
  switch (c.op) {
    case Op::kLoadWeights:
      if (c.rows > g_n || !Aligned(c.src, align)) return STRATA_INVALID_ARGUMENT;
      break;
    case Op::kMatmul:
      if (!Aligned(c.src, align) || !Aligned(c.src_stride, align) || !Aligned(c.dst, 4 * g_n)) {
        return STRATA_INVALID_ARGUMENT;
      }
      if (c.k_rows != 0 && (!Aligned(c.w_src, align) || !Aligned(c.w_stride, align))) return STRATA_INVALID_ARGUMENT;
      break;
    case Op::kReadout:
      if (!Aligned(c.src, 4 * g_n)) return STRATA_INVALID_ARGUMENT;
      break;
    default:
      return STRATA_INVALID_ARGUMENT;
  }
  SleepUntil([] { return Pending() < STRATA_MXU_QUEUE_DEPTH; });
  // Fields the op ignores keep whatever is staged (no write), except K_ROWS, which MATMUL reads.
  Stage(kSrc, c.src);
  Stage(kDst, c.dst);
  Stage(kRows, c.rows);
  if (c.op == Op::kMatmul) {
    Stage(kStride, c.src_stride);
    Stage(kKRows, c.k_rows);
    if (c.k_rows != 0) {
      Stage(kWSrc, c.w_src);
      Stage(kWStride, c.w_stride);
    }
  }
  if (c.op == Op::kReadout) {
    Stage(kMult, static_cast<uint32_t>(c.quant_mult));
    Stage(kShift, c.quant_shift);
  }
  Stage(kCmd, (static_cast<uint32_t>(c.op) << STRATA_MXU_CMD_OP_LSB) |
                  (c.accumulate ? STRATA_MXU_CMD_ACCUMULATE_MASK : 0) | (c.relu ? STRATA_MXU_CMD_RELU_MASK : 0) |
                  (c.int8 ? STRATA_MXU_CMD_INT8_MASK : 0) | (c.round ? STRATA_MXU_CMD_ROUND_MASK : 0) |
                  (kMode ? mode : 0) | STRATA_MXU_CMD_IRQ_MASK);
  kMxu.Write32(STRATA_MXU_PUSH, 1);
  *ticket = ++g_submitted;
  return STRATA_OK;
}
}  // namespace

strata_status Submit(const Command& c, uint32_t* ticket) { return SubmitImpl<false>(c, 0, ticket); }

strata_status SubmitMode(const Command& c, uint32_t mode, uint32_t* ticket) {
  return SubmitImpl<true>(c, mode, ticket);
}

strata_status LoadWeights(uint32_t vmem_src, uint32_t valid_rows, uint32_t* ticket) {
  Command c{Op::kLoadWeights};
  c.src = vmem_src;
  c.rows = valid_rows;
  return Submit(c, ticket);
}

namespace {
Command MatmulCommand(uint32_t vmem_src, uint32_t src_stride, uint32_t rows, uint32_t acc_dst, bool accumulate) {
  Command c{Op::kMatmul};
  c.src = vmem_src;
  c.src_stride = src_stride;
  c.rows = rows;
  c.dst = acc_dst;
  c.accumulate = accumulate;
  return c;
}
}  // namespace

strata_status Matmul(uint32_t vmem_src, uint32_t src_stride, uint32_t rows, uint32_t acc_dst, bool accumulate,
                     uint32_t* ticket) {
  return Submit(MatmulCommand(vmem_src, src_stride, rows, acc_dst, accumulate), ticket);
}

strata_status MatmulK(uint32_t vmem_src, uint32_t src_stride, uint32_t rows, uint32_t w_src, uint32_t w_stride,
                      uint32_t k_rows, uint32_t acc_dst, bool accumulate, uint32_t* ticket) {
  if (k_rows == 0) return STRATA_INVALID_ARGUMENT;
  Command c = MatmulCommand(vmem_src, src_stride, rows, acc_dst, accumulate);
  c.w_src = w_src;
  c.w_stride = w_stride;
  c.k_rows = k_rows;
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
uint32_t StarvedCycles() { return kMxu.Read32(STRATA_MXU_STARVED_CYCLES); }

}  // namespace strata::mxu
