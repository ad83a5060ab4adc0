// A plain C++ reference GEMM with the matrix unit's epilogue (strata/gemm.h): what tests and examples
// compare the device's results with. Deliberately the textbook triple loop: nothing shared with the
// firmware's tiling or the RTL.
#ifndef STRATA_REFERENCE_GEMM_H_
#define STRATA_REFERENCE_GEMM_H_

#include <cstdint>
#include <vector>

// The CUDA GEMM kernel (host/gpu/cuda_gemm.cu) requantizes with this very function.
#ifdef __CUDACC__
#define STRATA_REFERENCE_HOST_DEVICE __host__ __device__
#else
#define STRATA_REFERENCE_HOST_DEVICE
#endif

namespace strata::reference {

struct GemmSpec {
  uint64_t m = 0, n = 0, k = 0;
  bool relu = false;
  bool int8 = false;  // requantize: sat8(round?((x * quant_mult) >> quant_shift))
  bool round = false;
  int64_t quant_mult = 1;
  uint32_t quant_shift = 0;
};

// sat8((x * mult [+ 2^(shift-1) when rounding]) >> shift), the shift arithmetic.
inline STRATA_REFERENCE_HOST_DEVICE int8_t Requantize(int32_t x, int64_t mult, uint32_t shift, bool round) {
  __int128 p = static_cast<__int128>(x) * mult;
  if (round && shift > 0) p += static_cast<__int128>(1) << (shift - 1);
  p >>= shift;
  if (p > 127) return 127;
  if (p < -128) return -128;
  return static_cast<int8_t>(p);
}

// C[i][j] = epilogue(c_in[i][j] + sum_t A[i][t] B[t][j]) with int32 wrap-around sums; c_in may be null.
// Returns m x n values: int32 results, or with int8 the requantized values (-128 .. 127).
// The loops run i, t, j (a row of B at a time, so the compiler vectorizes the inner loop); the sums
// are the same as the i, j, t order's: unsigned addition wraps and is associative.
inline std::vector<int32_t> Gemm(const int8_t* a, const int8_t* b, const int32_t* c_in, const GemmSpec& s) {
  std::vector<int32_t> c(s.m * s.n);
  std::vector<uint32_t> acc(s.n);
  for (uint64_t i = 0; i < s.m; ++i) {
    for (uint64_t j = 0; j < s.n; ++j) acc[j] = c_in != nullptr ? static_cast<uint32_t>(c_in[i * s.n + j]) : 0u;
    for (uint64_t t = 0; t < s.k; ++t) {
      const int32_t x = a[i * s.k + t];
      const int8_t* row = b + t * s.n;
      for (uint64_t j = 0; j < s.n; ++j) acc[j] += static_cast<uint32_t>(x * int32_t{row[j]});
    }
    for (uint64_t j = 0; j < s.n; ++j) {
      int32_t x = static_cast<int32_t>(acc[j]);
      if (s.relu && x < 0) x = 0;
      c[i * s.n + j] = s.int8 ? Requantize(x, s.quant_mult, s.quant_shift, s.round) : x;
    }
  }
  return c;
}

}  // namespace strata::reference

#endif  // STRATA_REFERENCE_GEMM_H_
