// Tiled, double-buffered GEMM on the matrix unit: C = A.B (+ C) for row-major A[M x K], B[K x N] in HBM; int8
// A and B with int32 C (or ReLU / requantized int8 C through READOUT), or bf16 A and B with fp32 (or bf16) C
// (GemmBf16). See docs/matrix-unit.md.
#ifndef STRATA_FW_KERNELS_GEMM_H_
#define STRATA_FW_KERNELS_GEMM_H_

#include <stdint.h>

#include "strata/status.h"

namespace strata::kernels {

struct GemmParams {
  uint64_t a = 0;      // HBM: int8 A[m][k]
  uint64_t b = 0;      // HBM: int8 B[k][n]
  uint64_t c_in = 0;   // HBM: int32 C[m][n] added to the product when accumulate is set
  uint64_t c_out = 0;  // HBM: int32 C[m][n], or int8 when int8 is set
  uint32_t m = 0, k = 0, n = 0;
  bool accumulate = false;
  bool relu = false;
  bool int8 = false;  // requantize: sat8(round?((x * quant_mult) >> quant_shift))
  bool round = false;
  int32_t quant_mult = 1;
  uint32_t quant_shift = 0;
};

struct GemmStats {
  uint64_t cycles = 0;  // from the first DMA to the last result in HBM
  uint32_t mxu_commands = 0;
  uint32_t dma_descriptors = 0;
  uint32_t steps = 0;      // (block, K chunk) tiles through VMEM
  uint32_t dma_waits = 0;  // times compute had to wait for a prefetch
};

// Needs dma::Init() and mxu::Init() first. INVALID_ARGUMENT for a zero dimension, a shift above
// STRATA_GEMM_MAX_QUANT_SHIFT; FAILED_PRECONDITION for no matrix unit or one larger than 256 x 256
// (the tiling's VMEM budget); errors from the DMA engine or the matrix unit are passed on.
strata_status Gemm(const GemmParams& p, GemmStats* stats);

// The same in bf16 mode: A and B bf16 (2 bytes per element, row-major), C_in and C fp32 bit patterns, the
// matrix unit's order (docs/matrix-unit.md, "bf16 mode"); ReLU maps a set sign bit to +0; out_bf16 writes C
// as bf16 (RNE, 2 bytes per element). INVALID_ARGUMENT as Gemm, and with p.int8 or p.round (no requantization of fp32);
// FAILED_PRECONDITION on an array above 128 x 128. A separate entry (and template instance) so that the int8
// kernel's code and cycles stay as they were.
strata_status GemmBf16(const GemmParams& p, bool out_bf16, GemmStats* stats);

}  // namespace strata::kernels

#endif  // STRATA_FW_KERNELS_GEMM_H_
