// Vector-unit driver: queues VPU commands (one op over rows of 16 fp32 lanes in VMEM, rtl/tpu_vpu_engine.sv) and
// waits for them by ticket (the unit completes commands in queue order), sleeping in wfi on the VPU interrupt.
#ifndef STRATA_FW_DRIVERS_VPU_H_
#define STRATA_FW_DRIVERS_VPU_H_

#include <stdint.h>

#include "strata/regmap.h"
#include "strata/status.h"

namespace strata::vpu {

// A VPU row: 16 fp32 lanes, one VMEM line.
constexpr uint32_t kRowBytes = STRATA_DMA_LINE_BYTES;
constexpr uint32_t kLanes = kRowBytes / 4;

// One command: `rows` rows of a at src_a (and b at src_b for a binary op, the mask at src_m for SELECT),
// src_stride bytes apart, results at dst, dst_stride apart. Op and bcast are VPU_OP and VPU_BCAST codes.
struct Command {
  uint32_t op = STRATA_VPU_OP_ADD;
  uint32_t bcast = STRATA_VPU_BCAST_NONE;
  uint32_t src_a = 0;
  uint32_t src_b = 0;
  uint32_t src_m = 0;
  uint32_t dst = 0;
  uint32_t rows = 1;
  uint32_t src_stride = kRowBytes;
  uint32_t dst_stride = kRowBytes;
};

// Whether `op` is a VPU_OP code, and whether it reads b (the binary ops, which take a broadcast mode).
bool IsOp(uint32_t op);
bool IsBinary(uint32_t op);

// Enables the wake-up interrupt, checks the unit's lanes and syncs with its counters. FAILED_PRECONDITION when
// the unit's CONFIG.LANES is not kLanes (no VPU in this chip).
strata_status Init();

// Queues `c` (sleeping while the queue is full) and returns its ticket. INVALID_ARGUMENT for what the unit would
// refuse (unknown op or broadcast mode, a broadcast on an op without b, zero rows, an address or stride off a
// line), OUT_OF_RANGE for rows outside VMEM: checked here first, so a bad call changes nothing.
strata_status Submit(const Command& c, uint32_t* ticket);
// Whether every command up to `ticket` has completed (never sleeps).
bool IsDone(uint32_t ticket);
// Sleeps until every command up to `ticket` has completed; OK, or the status of a unit error seen since the
// previous Wait (INVALID_ARGUMENT, OUT_OF_RANGE, RESOURCE_EXHAUSTED).
strata_status Wait(uint32_t ticket);
uint32_t LastTicket();
// The unit's counters: result rows written, cycles with a command in flight, cycles it waited for VMEM port B.
uint32_t RowsDone();
uint32_t BusyCycles();
uint32_t StallCycles();

}  // namespace strata::vpu

#endif  // STRATA_FW_DRIVERS_VPU_H_
