// Vector-unit driver. As the matrix unit's: interrupts are wake-up events only (drivers/irq.h); every command asks
// for a completion interrupt, so a sleeper waiting for queue space or a ticket always gets woken. The staged
// registers keep their values across PUSH, so Submit writes only those that differ from the previous command.
#include "drivers/vpu.h"

#include "arch/arch.h"
#include "drivers/irq.h"
#include "hal/mmio.h"

namespace strata::vpu {
namespace {

constexpr hal::MmioRegion kVpu(STRATA_VPU_BASE);

uint32_t g_submitted = 0;
uint32_t g_errors_seen = 0;
bool g_ready = false;

enum Staged { kSrcA, kSrcB, kSrcM, kDst, kRows, kSrcStride, kDstStride, kCmd, kStagedCount };
constexpr uint32_t kStagedOffset[kStagedCount] = {STRATA_VPU_SRC_A,      STRATA_VPU_SRC_B, STRATA_VPU_SRC_M,
                                                  STRATA_VPU_DST,        STRATA_VPU_ROWS,  STRATA_VPU_SRC_STRIDE,
                                                  STRATA_VPU_DST_STRIDE, STRATA_VPU_CMD};
uint32_t g_staged[kStagedCount];

void Stage(Staged r, uint32_t value) {
  if (g_staged[r] == value) return;
  g_staged[r] = value;
  kVpu.Write32(kStagedOffset[r], value);
}

bool Reached(uint32_t target) { return static_cast<int32_t>(kVpu.Read32(STRATA_VPU_DONE) - target) >= 0; }
uint32_t Pending() {
  return (kVpu.Read32(STRATA_VPU_STATUS) & STRATA_VPU_STATUS_PENDING_MASK) >> STRATA_VPU_STATUS_PENDING_LSB;
}

strata_status StatusOf(uint32_t unit_error) {
  switch (unit_error) {
    case STRATA_VPU_ERR_SRC_RANGE:
    case STRATA_VPU_ERR_DST_RANGE:
      return STRATA_OUT_OF_RANGE;
    case STRATA_VPU_ERR_QUEUE_FULL:
      return STRATA_RESOURCE_EXHAUSTED;
    case STRATA_VPU_ERR_NONE:
      return STRATA_INTERNAL;
    default:
      return STRATA_INVALID_ARGUMENT;
  }
}

// The last byte a run of `rows` rows `stride` apart from `address` touches, plus one, fits in VMEM.
bool Fits(uint32_t address, uint32_t rows, uint32_t stride) {
  const uint64_t end = uint64_t{address} + uint64_t{rows - 1} * stride + kRowBytes;
  return end <= STRATA_VMEM_SIZE;
}

bool Aligned(uint32_t x) { return (x & (kRowBytes - 1)) == 0; }

}  // namespace

bool IsOp(uint32_t op) {
  switch (op) {
#define STRATA_VPU_CASE(name, value) case value:
    STRATA_VPU_OP_LIST(STRATA_VPU_CASE)
#undef STRATA_VPU_CASE
    return true;
    default:
      return false;
  }
}

bool IsBinary(uint32_t op) { return IsOp(op) && op < STRATA_VPU_OP_NEG; }

strata_status Init() {
  const uint32_t lanes = (kVpu.Read32(STRATA_VPU_CONFIG) & STRATA_VPU_CONFIG_LANES_MASK) >> STRATA_VPU_CONFIG_LANES_LSB;
  if (lanes != kLanes) return STRATA_FAILED_PRECONDITION;
  STRATA_CSR_SET(mie, 1u << arch::kIrqMachineExternal);
  g_submitted = kVpu.Read32(STRATA_VPU_DONE) + Pending();
  g_errors_seen = kVpu.Read32(STRATA_VPU_ERRORS);
  for (uint32_t r = 0; r < kStagedCount; ++r) {
    g_staged[r] = 0;
    kVpu.Write32(kStagedOffset[r], 0);
  }
  g_ready = true;
  return STRATA_OK;
}

strata_status Submit(const Command& c, uint32_t* ticket) {
  if (ticket == nullptr || !g_ready || !IsOp(c.op) || c.rows == 0) return STRATA_INVALID_ARGUMENT;
  const bool binary = IsBinary(c.op), select = c.op == STRATA_VPU_OP_SELECT;
  if (c.bcast > STRATA_VPU_BCAST_ROW || (c.bcast != STRATA_VPU_BCAST_NONE && !binary)) return STRATA_INVALID_ARGUMENT;
  if (!Aligned(c.src_a) || !Aligned(c.dst) || !Aligned(c.src_stride) || !Aligned(c.dst_stride) ||
      (binary && !Aligned(c.src_b)) || (select && !Aligned(c.src_m))) {
    return STRATA_INVALID_ARGUMENT;
  }
  if (!Fits(c.src_a, c.rows, c.src_stride) || !Fits(c.dst, c.rows, c.dst_stride) ||
      (binary && !Fits(c.src_b, c.bcast == STRATA_VPU_BCAST_NONE ? c.rows : 1, c.src_stride)) ||
      (select && !Fits(c.src_m, c.rows, c.src_stride))) {
    return STRATA_OUT_OF_RANGE;
  }
  irq::SleepUntil(STRATA_IRQ_VPU, [] { return Pending() < STRATA_VPU_QUEUE_DEPTH; });
  Stage(kSrcA, c.src_a);
  if (binary) Stage(kSrcB, c.src_b);
  if (select) Stage(kSrcM, c.src_m);
  Stage(kDst, c.dst);
  Stage(kRows, c.rows);
  Stage(kSrcStride, c.src_stride);
  Stage(kDstStride, c.dst_stride);
  Stage(kCmd, (c.op << STRATA_VPU_CMD_OP_LSB) | (c.bcast << STRATA_VPU_CMD_BCAST_LSB) | STRATA_VPU_CMD_IRQ_MASK);
  kVpu.Write32(STRATA_VPU_PUSH, 1);
  *ticket = ++g_submitted;
  return STRATA_OK;
}

bool IsDone(uint32_t ticket) { return Reached(ticket); }

strata_status Wait(uint32_t ticket) {
  if (static_cast<int32_t>(g_submitted - ticket) < 0) return STRATA_INVALID_ARGUMENT;
  irq::SleepUntil(STRATA_IRQ_VPU, [ticket] { return Reached(ticket); });
  const uint32_t errors = kVpu.Read32(STRATA_VPU_ERRORS);
  if (errors == g_errors_seen) return STRATA_OK;
  g_errors_seen = errors;
  return StatusOf((kVpu.Read32(STRATA_VPU_STATUS) & STRATA_VPU_STATUS_LAST_ERR_MASK) >> STRATA_VPU_STATUS_LAST_ERR_LSB);
}

uint32_t LastTicket() { return g_submitted; }
uint32_t RowsDone() { return kVpu.Read32(STRATA_VPU_ROWS_DONE); }
uint32_t BusyCycles() { return kVpu.Read32(STRATA_VPU_BUSY_CYCLES); }
uint32_t StallCycles() { return kVpu.Read32(STRATA_VPU_STALL_CYCLES); }

}  // namespace strata::vpu
