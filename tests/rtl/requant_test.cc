// The matrix unit's int8 requantization (rtl/tpu_requant_pkg.sv, the function its readout calls) against
// the plain reference (strata::reference::Requantize, 128-bit arithmetic): every pair of edge values
// (INT32_MIN .. INT32_MAX) at every shift with and without rounding, products next to each rounding
// boundary, and random inputs from several seeds.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "Vrequant_wrap.h"
#include "strata/reference_gemm.h"
#include "strata/regmap.h"

namespace {

constexpr uint32_t kShifts = 1u << STRATA_MXU_QUANT_SHIFT_SHIFT_WIDTH;  // 0 .. 63

class Requant : public ::testing::Test {
 protected:
  // Compares one input with the reference; reports the first few differences.
  void Check(int32_t x, int32_t mult, uint32_t shift, bool round) {
    dut_.x_i = static_cast<uint32_t>(x);
    dut_.mult_i = static_cast<uint32_t>(mult);
    dut_.shift_i = shift;
    dut_.round_i = round;
    dut_.eval();
    const int8_t want = strata::reference::Requantize(x, mult, shift, round);
    const int8_t got = static_cast<int8_t>(dut_.y_o);
    ++checked_;
    if (got != want && ++differ_ <= 10) {
      ADD_FAILURE() << "x " << x << " mult " << mult << " shift " << shift << " round " << round << ": got " << int{got}
                    << ", expected " << int{want};
    }
  }
  Vrequant_wrap dut_;
  uint64_t checked_ = 0, differ_ = 0;
};

TEST_F(Requant, EdgeValuesAtEveryShift) {
  const int32_t edges[] = {INT32_MIN, INT32_MIN + 1, -(1 << 24), -65536, -129,    -128,          -127,     -2, -1, 0, 1,
                           2,         127,           128,        65535,  1 << 24, INT32_MAX - 1, INT32_MAX};
  for (int32_t x : edges) {
    for (int32_t mult : edges) {
      for (uint32_t shift = 0; shift < kShifts; ++shift) {
        Check(x, mult, shift, false);
        Check(x, mult, shift, true);
      }
    }
  }
  EXPECT_EQ(differ_, 0u) << "of " << checked_;
}

// x * mult = q * 2^shift + r for r around 2^(shift-1), where rounding half up decides.
TEST_F(Requant, ProductsAtRoundingBoundaries) {
  for (uint32_t shift = 1; shift < 31; ++shift) {
    for (int32_t q = -130; q <= 130; ++q) {
      for (int64_t r : {int64_t{-1}, int64_t{0}, int64_t{1}}) {
        const int64_t p = int64_t{q} * (int64_t{1} << shift) + (int64_t{1} << (shift - 1)) + r;
        if (p < INT32_MIN || p > INT32_MAX) continue;
        Check(static_cast<int32_t>(p), 1, shift, true);
        Check(static_cast<int32_t>(p), 1, shift, false);
        Check(static_cast<int32_t>(-p), -1, shift, true);
      }
    }
  }
  EXPECT_EQ(differ_, 0u) << "of " << checked_;
}

TEST_F(Requant, RandomInputsOverSeeds) {
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    std::mt19937_64 rng(seed);
    for (int i = 0; i < 100000; ++i) {
      const uint64_t r = rng();
      // Small multipliers and shifts too, where results land inside -128 .. 127.
      const int32_t mult = (r & 1) ? static_cast<int32_t>(rng()) : static_cast<int32_t>(rng() % 2001) - 1000;
      const uint32_t shift = (r & 2) ? static_cast<uint32_t>(rng() % kShifts) : static_cast<uint32_t>(rng() % 24);
      Check(static_cast<int32_t>(rng()), mult, shift, (r & 4) != 0);
    }
  }
  EXPECT_EQ(differ_, 0u) << "of " << checked_;
}

}  // namespace
