/* GEMM options shared by everything that asks for a matrix product: the host API (strata.h), the
 * command protocol (strata/protocol.h) and the GEMM firmware's mailbox. C and C++.
 *
 *   C[m x n] = A[m x k] . B[k x n]   (+ C when ACCUMULATE)     A, B: int8, row-major
 *   C is int32, or with INT8: sat8(round?((x * quant_mult) >> quant_shift)), after ReLU when RELU.
 */
#ifndef STRATA_GEMM_H_
#define STRATA_GEMM_H_

#define STRATA_GEMM_FLAG_ACCUMULATE 0x1u /* C = A.B + C (int32 C only) */
#define STRATA_GEMM_FLAG_RELU 0x2u       /* max(0, x) before any requantization */
#define STRATA_GEMM_FLAG_INT8 0x4u       /* requantize to int8 with quant_mult and quant_shift */
#define STRATA_GEMM_FLAG_ROUND 0x8u      /* INT8: round to nearest (half up) instead of truncating */
#define STRATA_GEMM_FLAGS_ALL 0xfu

#define STRATA_GEMM_MAX_DIM (1u << 24) /* m, n and k are 1 .. this */
#define STRATA_GEMM_MAX_QUANT_SHIFT 63u

#endif /* STRATA_GEMM_H_ */
