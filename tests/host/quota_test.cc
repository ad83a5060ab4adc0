// strata/quota.h, the one quota rule, against plain arithmetic: the 128-bit product for the quota of a fraction, and
// the runtime firmware's own form (heap * ppm / 1e6, exact while the product fits 64 bits), over spreads of sizes.
#include "strata/quota.h"

#include <gtest/gtest.h>

#include <random>

namespace {

TEST(Quota, BytesIsTheFlooredFractionForAnySize) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    const int bits = 1 + static_cast<int>(rng() % 64);
    const uint64_t memory = bits == 64 ? rng() : rng() % (uint64_t{1} << bits);
    const uint32_t ppm = i % 7 == 0 ? 1000000u : static_cast<uint32_t>(rng() % 1000001u);
    const unsigned __int128 exact = static_cast<unsigned __int128>(memory) * ppm / 1000000u;
    ASSERT_EQ(strata_quota_bytes(0, ppm, memory), static_cast<uint64_t>(exact)) << memory << " " << ppm;
    if (memory < (uint64_t{1} << 44)) {  // the runtime's heap: its direct form gives the same quota
      ASSERT_EQ(strata_quota_bytes(0, ppm, memory), memory * ppm / 1000000u);
    }
  }
  EXPECT_EQ(strata_quota_bytes(4096, 500000, 1 << 20), 4096u);  // bytes asked for win over a fraction
  EXPECT_EQ(strata_quota_bytes(0, 0, 1 << 20), 0u);             // neither: no quota
  EXPECT_EQ(strata_quota_bytes(0, 1000000, UINT64_MAX), UINT64_MAX);
}

TEST(Quota, AdmitsWhatFitsAndNeverWraps) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 200000; ++i) {
    const uint64_t quota = rng() >> (rng() % 64);
    const uint64_t in_use = quota == 0 ? 0 : rng() % (quota + 1 == 0 ? quota : quota + 1);
    const uint64_t bytes = rng() >> (rng() % 64);
    const unsigned __int128 sum = static_cast<unsigned __int128>(in_use) + bytes;
    ASSERT_EQ(strata_quota_admits(quota, in_use, bytes) != 0, sum <= quota) << quota << " " << in_use << " " << bytes;
  }
  EXPECT_TRUE(strata_quota_admits(100, 40, 60));
  EXPECT_FALSE(strata_quota_admits(100, 40, 61));
  EXPECT_FALSE(strata_quota_admits(100, 100, 1));
  EXPECT_FALSE(strata_quota_admits(UINT64_MAX - 1, 1, UINT64_MAX));  // in_use + bytes would wrap to 0
}

}  // namespace
