// Tests of HBM presets, the ns -> cycle conversion and the address map.
#include "hbm/hbm_config.h"

#include <gtest/gtest.h>

#include <set>

#include "hbm/hbm_address_map.h"

namespace strata::hbm {
namespace {

TEST(HbmConfig, NsToCyclesRoundsUp) {
  EXPECT_EQ(NsToCycles(14.0, 1.0), 14u);
  EXPECT_EQ(NsToCycles(14.375, 1.0), 15u);
  EXPECT_EQ(NsToCycles(0.625, 1.0), 1u);
  EXPECT_EQ(NsToCycles(3900, 1.0), 3900u);
  EXPECT_EQ(NsToCycles(14.0, 1.5), 21u);
  EXPECT_EQ(NsToMilliCycles(1.25, 1.0), 1250u);
}

TEST(HbmConfig, PresetsHaveStandardPeakBandwidth) {
  // JESD235A: 1024 pins x 2 Gb/s; JESD235C (HBM2e): 3.2 Gb/s; JESD238 (HBM3): 6.4 Gb/s.
  EXPECT_DOUBLE_EQ(HbmConfig::Hbm2().PeakBytesPerSecond(), 256e9);
  EXPECT_DOUBLE_EQ(HbmConfig::Hbm2e().PeakBytesPerSecond(), 409.6e9);
  EXPECT_DOUBLE_EQ(HbmConfig::Hbm3().PeakBytesPerSecond(), 819.2e9);
  for (const HbmConfig& c : {HbmConfig::Hbm2(), HbmConfig::Hbm2e(), HbmConfig::Hbm3()}) {
    EXPECT_EQ(c.BurstBytes(), 32u) << c.name;
    EXPECT_EQ(c.Validate(), "") << c.name;
  }
  EXPECT_EQ(HbmConfig::Hbm3().PseudoChannelCount(), 32u);
}

TEST(HbmConfig, BurstStaysFractional) {
  HbmCycles c = HbmConfig::Hbm2e().Cycles();
  EXPECT_EQ(c.burst_mc, 1250u);  // 4 beats at 3.2 Gb/s
  EXPECT_EQ(c.ccd_l_mc, 2500u);
  EXPECT_EQ(c.BurstCycles(), 2u);
  EXPECT_EQ(HbmConfig::Hbm2().Cycles().burst_mc, 2000u);
}

TEST(HbmConfig, ValidateNamesTheField) {
  HbmConfig c = HbmConfig::Hbm2();
  c.channels = 6;
  EXPECT_NE(c.Validate().find("channels"), std::string::npos);
  c = HbmConfig::Hbm2(12345);
  EXPECT_NE(c.Validate().find("capacity_bytes"), std::string::npos);
  HbmConfig named;
  EXPECT_TRUE(HbmConfig::FromName("hbm2E", &named, 4ull << 30));
  EXPECT_EQ(named.name, "HBM2e");
  EXPECT_EQ(named.capacity_bytes, 4ull << 30);
  EXPECT_FALSE(HbmConfig::FromName("DDR4", &named));
}

TEST(HbmAddressMap, ConsecutiveBurstsSpreadOverPseudoChannelsThenBankGroups) {
  HbmConfig c = HbmConfig::Hbm2();
  HbmAddressMap map(c);
  std::set<uint32_t> pcs;
  for (uint64_t a = 0; a < 16 * 32; a += 32) pcs.insert(map.Decode(a).pc_index);
  EXPECT_EQ(pcs.size(), 16u);  // 512 B touch every pseudo-channel once
  HbmLocation l = map.Decode(512);
  EXPECT_EQ(l.pc_index, 0u);
  EXPECT_EQ(l.bank_group, 1u);
  l = map.Decode(2048);
  EXPECT_EQ(l.bank_group, 0u);
  EXPECT_EQ(l.column, 1u);
  EXPECT_EQ(l.row, 0u);
  l = map.Decode(64 * 1024);
  EXPECT_EQ(l.bank, 1u);
  EXPECT_EQ(l.column, 0u);
  l = map.Decode(256 * 1024);
  EXPECT_EQ(l.row, 1u);
  EXPECT_EQ(l.bank, 0u);
  for (uint64_t a : {0ull, 32ull, 4096ull, 123456ull * 32, (8ull << 30) - 32}) {
    EXPECT_EQ(map.Encode(map.Decode(a)), a);
  }
  EXPECT_EQ(map.rows_per_bank(), (8ull << 30) / (16 * 16 * 1024));
  EXPECT_NE(map.Describe().find("channel [8:6]"), std::string::npos) << map.Describe();
}

}  // namespace
}  // namespace strata::hbm
