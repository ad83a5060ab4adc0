/* GEMM options shared by everything that asks for a matrix product: the host API (strata.h), the
 * command protocol (strata/protocol.h) and the GEMM firmware's mailbox. C and C++.
 *
 *   C[m x n] = A[m x k] . B[k x n]   (+ C when ACCUMULATE)     A, B: int8 or bf16 (the dtype), row-major
 *   int8: C is int32, or with INT8: sat8(round?((x * quant_mult) >> quant_shift)), after ReLU when RELU.
 *   bf16: A and B 2 bytes each; C (and C_in) fp32 bit patterns, or with OUT_BF16 bf16 (RNE), after ReLU
 *   (docs/matrix-unit.md, "bf16 mode").
 */
#ifndef STRATA_GEMM_H_
#define STRATA_GEMM_H_

#define STRATA_GEMM_FLAG_ACCUMULATE 0x1u /* C = A.B + C (int32 C only) */
#define STRATA_GEMM_FLAG_RELU 0x2u       /* max(0, x) before any requantization */
#define STRATA_GEMM_FLAG_INT8 0x4u       /* requantize to int8 with quant_mult and quant_shift */
#define STRATA_GEMM_FLAG_ROUND 0x8u      /* INT8: round to nearest (half up) instead of truncating */
#define STRATA_GEMM_FLAG_OUT_BF16 0x10u  /* BF16 only: C written as bf16 (RNE, 2 bytes) instead of fp32 */
#define STRATA_GEMM_FLAGS_INT8 0xfu      /* what an int8 GEMM accepts */
#define STRATA_GEMM_FLAGS_BF16 (STRATA_GEMM_FLAG_ACCUMULATE | STRATA_GEMM_FLAG_RELU | STRATA_GEMM_FLAG_OUT_BF16)
#define STRATA_GEMM_FLAGS_ALL 0x1fu

/* Operand types (strata_gemm_args.dtype, strata_cmd_gemm.dtype). INT8 is 0 so that a caller or command that
 * predates the field asks for what it always got. BF16 needs the runtime image runtime_fp.elf (protocol 1.2). */
#define STRATA_DTYPE_INT8 0u
#define STRATA_DTYPE_BF16 1u
#define STRATA_DTYPE_COUNT 2u

#define STRATA_GEMM_MAX_DIM (1u << 24) /* m, n and k are 1 .. this */
#define STRATA_GEMM_MAX_QUANT_SHIFT 63u

#endif /* STRATA_GEMM_H_ */
