// Large-capacity test of the HBM model: a 64 GiB device costs host memory only for what is touched.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "hbm/hbm_model.h"
#include "hbm_test_util.h"

namespace strata::hbm {
namespace {

using testing::Read;
using testing::RunOne;
using testing::Write;

uint64_t ResidentKiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6));
  }
  return 0;
}

TEST(HbmCapacity, SixtyFourGiBWrittenNearTheTopReadsBackAndStaysSmall) {
  const uint64_t kCap = 64ull << 30;
  for (HbmConfig cfg : {HbmConfig::Hbm2(kCap), HbmConfig::Hbm3(kCap)}) {
    HbmModel m(cfg);
    const uint64_t top = kCap - 64;
    RunOne(m, Write(top, 64, 0x40));
    RunOne(m, Write(kCap / 2 + 12345 * 64, 64, 0x11));
    HbmResponse r = RunOne(m, Read(top, 64));
    for (uint32_t i = 0; i < 64; ++i) ASSERT_EQ(r.data[i], static_cast<uint8_t>(0x40 + i * 7)) << i;
    EXPECT_EQ(m.address_map().Decode(top).row, m.address_map().rows_per_bank() - 1);
    // Debug access at the very top, and one byte past it is refused.
    uint8_t b = 0x99;
    EXPECT_TRUE(m.WriteDebug(kCap - 1, &b, 1));
    EXPECT_FALSE(m.WriteDebug(kCap, &b, 1));
    EXPECT_LE(m.memory().pages_allocated(), 3u);
    // Touch 1000 scattered pages across the whole device: 4 MiB of pages, not gigabytes.
    for (uint64_t i = 0; i < 1000; ++i) {
      uint64_t a = (kCap / 1000) * i & ~63ull;
      ASSERT_TRUE(m.WriteDebug(a, &b, 1));
    }
  }
  const uint64_t rss_kib = ResidentKiB();
  ASSERT_GT(rss_kib, 0u);
  EXPECT_LT(rss_kib, 100u * 1024) << "VmRSS " << rss_kib << " KiB";
}

}  // namespace
}  // namespace strata::hbm
