// The GEMM firmware's mailbox (symbol strata_gemm_mailbox in SMEM), a host <-> firmware contract: strata-sim
// gemm fills the request into the image before reset; the firmware (firmware/apps/gemm) writes the result
// fields before it exits.
#ifndef STRATA_GEMM_MAILBOX_H_
#define STRATA_GEMM_MAILBOX_H_

#include <stdint.h>

#include "strata/gemm.h"  // STRATA_GEMM_FLAG_ACCUMULATE, _RELU, _INT8, _ROUND

#define STRATA_GEMM_MAILBOX_MAGIC 0x4d4d4547u  // "GEMM"
#define STRATA_GEMM_MAILBOX_VERSION 2u  // 2: dtype, out_dtype

struct StrataGemmMailbox {
  uint32_t magic;
  uint32_t version;
  uint32_t m, k, n;
  uint32_t flags;  // STRATA_GEMM_FLAG_*; any other bit is INVALID_ARGUMENT
  int32_t quant_mult;
  uint32_t quant_shift;
  uint64_t a, b, c_in, c_out;  // HBM addresses
  // Results.
  uint32_t status;  // strata_status; 0xffffffff until the firmware finishes
  uint32_t array_n;
  uint64_t cycles;
  uint32_t mxu_commands;
  uint32_t dma_descriptors;
  uint32_t rows_streamed;
  uint32_t steps;
  uint32_t dma_waits;
  uint32_t starved_cycles;  // MXU cycles with no command queued and no row streamed
  // Request fields added in version 2 (at the end, so the results above keep their offsets).
  uint32_t dtype;      // STRATA_GEMM_DTYPE_*
  uint32_t out_dtype;  // STRATA_GEMM_OUT_DTYPE_*
};

#endif  // STRATA_GEMM_MAILBOX_H_
