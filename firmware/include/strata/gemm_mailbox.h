// The GEMM firmware's mailbox (symbol strata_gemm_mailbox in SMEM), a host <-> firmware contract: strata-sim
// gemm fills the request into the image before reset; the firmware (firmware/apps/gemm, gemm_bf16) writes the
// result fields before it exits.
#ifndef STRATA_GEMM_MAILBOX_H_
#define STRATA_GEMM_MAILBOX_H_

#include <stdint.h>

#include "strata/gemm.h"  // STRATA_GEMM_FLAG_ACCUMULATE, _RELU, _INT8, _ROUND

// The magic names the operand type, and each image accepts only its own: gemm.elf int8 requests, gemm_bf16.elf
// bf16 ones (A and B bf16, 2 bytes each; C_in and C fp32). A separate image rather than a dtype field the int8
// image would have to test: the int8 GEMM's code and cycle counts stay exactly as they were before bf16.
#define STRATA_GEMM_MAILBOX_MAGIC 0x4d4d4547u       // "GEMM": int8 A and B (gemm.elf)
#define STRATA_GEMM_MAILBOX_MAGIC_BF16 0x36314642u  // "BF16": bf16 A and B (gemm_bf16.elf)
#define STRATA_GEMM_MAILBOX_VERSION 1u

// A bf16 request's flags: ACCUMULATE, RELU and this one (C written as bf16, RNE, 2 bytes each, instead of fp32);
// INT8 and ROUND (int32 requantization) are INVALID_ARGUMENT there.
#define STRATA_GEMM_MAILBOX_FLAG_OUT_BF16 STRATA_GEMM_FLAG_OUT_BF16
#define STRATA_GEMM_MAILBOX_FLAGS_BF16 STRATA_GEMM_FLAGS_BF16

struct StrataGemmMailbox {
  uint32_t magic;
  uint32_t version;
  uint32_t m, k, n;
  uint32_t flags;  // STRATA_GEMM_FLAG_* (bf16: STRATA_GEMM_MAILBOX_FLAGS_BF16); any other bit is INVALID_ARGUMENT
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
};

#endif  // STRATA_GEMM_MAILBOX_H_
