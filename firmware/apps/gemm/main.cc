// GEMM firmware: runs one C = A.B (+C) described by strata_gemm_mailbox on the matrix unit and
// reports cycles and counters back through the mailbox. Built twice: gemm.elf (int8 operands) and, with
// STRATA_GEMM_APP_BF16=1, gemm_bf16.elf (bf16 operands; firmware/apps/gemm_bf16): the int8 image compiles to
// the code it had before bf16, so its cycle counts are unchanged (strata/gemm_mailbox.h).
#include <stdint.h>

#include "drivers/console.h"
#include "drivers/dma.h"
#include "drivers/mxu.h"
#include "kernels/gemm.h"
#include "strata/gemm_mailbox.h"

#ifndef STRATA_GEMM_APP_BF16
#define STRATA_GEMM_APP_BF16 0
#endif

namespace {
constexpr bool kBf16 = STRATA_GEMM_APP_BF16 != 0;
constexpr uint32_t kMagic = kBf16 ? STRATA_GEMM_MAILBOX_MAGIC_BF16 : STRATA_GEMM_MAILBOX_MAGIC;
constexpr uint32_t kFlagsAll = kBf16 ? STRATA_GEMM_MAILBOX_FLAGS_BF16 : STRATA_GEMM_FLAGS_INT8;
}  // namespace

extern "C" {
// In .data so the image carries it and strata-sim can patch it before loading.
__attribute__((used, section(".data"))) volatile StrataGemmMailbox strata_gemm_mailbox = {
    0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0xffffffffu, 0, 0, 0, 0, 0, 0, 0, 0};
}

int main() {
  using strata::console::Printf;
  volatile StrataGemmMailbox& mb = strata_gemm_mailbox;
  strata::dma::Init();
  strata::mxu::Init();
  mb.array_n = strata::mxu::ArraySize();
  if (mb.magic != kMagic || mb.version != STRATA_GEMM_MAILBOX_VERSION) {
    Printf("gemm: no request in the mailbox (magic 0x%08x)\n", static_cast<unsigned>(mb.magic));
    mb.status = STRATA_FAILED_PRECONDITION;
    return 1;
  }
  if ((mb.flags & ~kFlagsAll) != 0) {
    Printf("gemm: unknown flags 0x%08x in the mailbox\n", static_cast<unsigned>(mb.flags));
    mb.status = STRATA_INVALID_ARGUMENT;
    return 1;
  }
  strata::kernels::GemmParams p;
  p.a = mb.a;
  p.b = mb.b;
  p.c_in = mb.c_in;
  p.c_out = mb.c_out;
  p.m = mb.m;
  p.k = mb.k;
  p.n = mb.n;
  p.accumulate = (mb.flags & STRATA_GEMM_FLAG_ACCUMULATE) != 0;
  p.relu = (mb.flags & STRATA_GEMM_FLAG_RELU) != 0;
  p.int8 = (mb.flags & STRATA_GEMM_FLAG_INT8) != 0;
  p.round = (mb.flags & STRATA_GEMM_FLAG_ROUND) != 0;
  p.quant_mult = mb.quant_mult;
  p.quant_shift = mb.quant_shift;
  strata::kernels::GemmStats stats;
  const uint32_t rows0 = strata::mxu::RowsStreamed();
  const uint32_t starved0 = strata::mxu::StarvedCycles();
  strata_status s;
  if constexpr (kBf16) {
    s = strata::kernels::GemmBf16(p, (mb.flags & STRATA_GEMM_MAILBOX_FLAG_OUT_BF16) != 0, &stats);
  } else {
    s = strata::kernels::Gemm(p, &stats);
  }
  mb.cycles = stats.cycles;
  mb.mxu_commands = stats.mxu_commands;
  mb.dma_descriptors = stats.dma_descriptors;
  mb.rows_streamed = strata::mxu::RowsStreamed() - rows0;
  mb.starved_cycles = strata::mxu::StarvedCycles() - starved0;
  mb.steps = stats.steps;
  mb.dma_waits = stats.dma_waits;
  mb.status = s;
  if (s != STRATA_OK) {
    Printf("gemm: %s\n", strata_status_name(s));
    return 1;
  }
  return 0;
}
