// Matrix-unit driver: queues LOAD_WEIGHTS / MATMUL / READOUT commands and waits for them by
// ticket (the unit completes commands in queue order), sleeping in wfi on the MXU interrupt.
#ifndef STRATA_FW_DRIVERS_MXU_H_
#define STRATA_FW_DRIVERS_MXU_H_

#include <stdint.h>

#include "strata/regmap.h"
#include "strata/status.h"

namespace strata::mxu {

enum class Op : uint32_t {
  kLoadWeights = STRATA_MXU_OP_LOAD_WEIGHTS,
  kMatmul = STRATA_MXU_OP_MATMUL,
  kReadout = STRATA_MXU_OP_READOUT,
};

// One command; see rtl/tpu_mxu.sv and docs/matrix-unit.md for the fields' meaning per op.
struct Command {
  Op op;
  uint32_t src = 0;
  uint32_t dst = 0;
  uint32_t rows = 1;
  uint32_t src_stride = 0;
  bool accumulate = false;
  bool relu = false;
  bool int8 = false;
  bool round = false;
  int32_t quant_mult = 1;
  uint32_t quant_shift = 0;
  // MATMUL only: k_rows > 0 makes the command walk ceil(k_rows / N) K tiles itself, loading tile
  // t's weights from w_src + t * w_stride (min(N, k_rows - t N) rows) and its activations from
  // src + t N; 0 multiplies by the weights an earlier LOAD_WEIGHTS loaded.
  uint32_t w_src = 0;
  uint32_t w_stride = 0;
  uint32_t k_rows = 0;
};

// Enables the wake-up interrupt, reads the array size and syncs with the unit's counters.
void Init();
// N of the N x N array (from the MXU CONFIG register; valid after Init).
uint32_t ArraySize();

// Queues `c` (sleeping while the queue is full) and returns its ticket. INVALID_ARGUMENT for
// arguments the unit would reject (checked here first so a bad call changes nothing).
strata_status Submit(const Command& c, uint32_t* ticket);
// Submit with extra CMD bits: kModeBf16 (LOAD_WEIGHTS / MATMUL operands are bf16 rows of 2N bytes, ACC holds
// fp32; READOUT reads ACC as fp32: with ReLU, never requantized) and kModeOutBf16 (READOUT: bf16 rows of 2N
// bytes, RNE, instead of fp32 rows of 4N). INVALID_ARGUMENT also for an unknown mode bit, INT8 or ROUND with
// kModeBf16, and kModeOutBf16 without kModeBf16 or on another op than READOUT. A separate entry so that the int8
// path's code stays as it was (int8 GEMM cycle counts are a contract). docs/matrix-unit.md, "bf16 mode".
constexpr uint32_t kModeBf16 = STRATA_MXU_CMD_BF16_MASK;
constexpr uint32_t kModeOutBf16 = STRATA_MXU_CMD_OUT_BF16_MASK;
strata_status SubmitMode(const Command& c, uint32_t mode, uint32_t* ticket);
strata_status LoadWeights(uint32_t vmem_src, uint32_t valid_rows, uint32_t* ticket);
strata_status Matmul(uint32_t vmem_src, uint32_t src_stride, uint32_t rows, uint32_t acc_dst, bool accumulate,
                     uint32_t* ticket);

// One MATMUL over a whole K chunk: weights from packed N x N tiles at w_src, w_stride apart;
// activations rows at src (K tile t at + t N), src_stride apart.
strata_status MatmulK(uint32_t vmem_src, uint32_t src_stride, uint32_t rows, uint32_t w_src, uint32_t w_stride,
                      uint32_t k_rows, uint32_t acc_dst, bool accumulate, uint32_t* ticket);

// Whether every command up to `ticket` has completed (never sleeps).
bool IsDone(uint32_t ticket);
// Sleeps until every command up to `ticket` has completed; OK, or the status of a unit error
// seen since the previous Wait (INVALID_ARGUMENT, OUT_OF_RANGE, RESOURCE_EXHAUSTED).
strata_status Wait(uint32_t ticket);
// Tickets handed out so far (the last one).
uint32_t LastTicket();
// Activation rows the array has streamed since reset.
uint32_t RowsStreamed();
// Cycles since reset in which the unit had no command queued and streamed nothing.
uint32_t StarvedCycles();

}  // namespace strata::mxu

#endif  // STRATA_FW_DRIVERS_MXU_H_
