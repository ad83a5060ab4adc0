// The reference GEMM (host/reference/strata/reference_gemm.h) against a second, per-element
// implementation: every C[i][j] a dot product of row i of A and column j of B, summed in 64 bits
// and wrapped to int32 once at the end, then the epilogue written out again here. Shapes, operands
// and epilogue options are drawn from a spread of seeds, with extreme values to make the int32 sums wrap.
#include "strata/reference_gemm.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace {

int32_t Wrap(int64_t x) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(x))); }

int32_t Epilogue(int32_t x, const strata::reference::GemmSpec& s) {
  if (s.relu && x < 0) x = 0;
  if (!s.int8) return x;
  // floor((x * mult + half) / 2^shift) in 128 bits, saturated: the shift's arithmetic spelled as a division.
  __int128 p = static_cast<__int128>(x) * s.quant_mult;
  if (s.round && s.quant_shift > 0) p += static_cast<__int128>(1) << (s.quant_shift - 1);
  const __int128 d = static_cast<__int128>(1) << s.quant_shift;
  __int128 q = p / d;
  if (p % d != 0 && p < 0) --q;  // C++ division truncates; the shift floors
  return static_cast<int32_t>(q > 127 ? 127 : q < -128 ? -128 : q);
}

TEST(ReferenceGemm, EqualsPerElementDotProducts) {
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    std::mt19937_64 rng(seed);
    strata::reference::GemmSpec s;
    s.m = 1 + rng() % 40;
    s.n = 1 + rng() % 70;
    s.k = 1 + rng() % (seed % 10 == 0 ? 300000 / (s.m * s.n) + 1 : 90);
    s.relu = rng() % 2;
    s.int8 = rng() % 2;
    s.round = rng() % 2;
    s.quant_mult = static_cast<int64_t>(rng() % (uint64_t{1} << 40)) - (int64_t{1} << 39);
    s.quant_shift = static_cast<uint32_t>(rng() % 48);
    const bool extreme = seed % 3 == 0;  // all -128 / 127: long sums wrap int32
    std::vector<int8_t> a(s.m * s.k), b(s.k * s.n);
    for (int8_t& v : a) v = static_cast<int8_t>(extreme ? (rng() % 2 ? 127 : -128) : rng());
    for (int8_t& v : b) v = static_cast<int8_t>(extreme ? (rng() % 2 ? 127 : -128) : rng());
    std::vector<int32_t> c_in;
    if (rng() % 2) {
      c_in.resize(s.m * s.n);
      for (int32_t& v : c_in) v = static_cast<int32_t>(rng());
    }
    const std::vector<int32_t> got =
        strata::reference::Gemm(a.data(), b.data(), c_in.empty() ? nullptr : c_in.data(), s);
    ASSERT_EQ(got.size(), s.m * s.n);
    for (uint64_t i = 0; i < s.m; ++i) {
      for (uint64_t j = 0; j < s.n; ++j) {
        int64_t sum = c_in.empty() ? 0 : c_in[i * s.n + j];
        for (uint64_t t = 0; t < s.k; ++t) sum += int64_t{a[i * s.k + t]} * b[t * s.n + j];
        ASSERT_EQ(got[i * s.n + j], Epilogue(Wrap(sum), s))
            << "seed " << seed << " m " << s.m << " n " << s.n << " k " << s.k << " at " << i << "," << j;
      }
    }
  }
}

}  // namespace
