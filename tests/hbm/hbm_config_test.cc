// Tests of HBM presets, the ns -> cycle conversion and the address map.
#include "hbm/hbm_config.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

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
  c = HbmConfig::Hbm2();
  c.address_map = static_cast<AddressMap>(7);
  EXPECT_NE(c.Validate().find("address_map must be kXorHash or kLinear"), std::string::npos) << c.Validate();
  // The scheduler's same-atom counts are 16-bit: the deepest queue it takes is 65535.
  c = HbmConfig::Hbm2();
  c.queue_depth = 65535;
  EXPECT_EQ(c.Validate(), "");
  c.queue_depth = 65536;
  EXPECT_NE(c.Validate().find("queue_depth must be <= 65535"), std::string::npos) << c.Validate();
}

TEST(HbmConfig, ControllerDefaultsAndNames) {
  const HbmConfig c = HbmConfig::Hbm2();
  EXPECT_EQ(c.address_map, AddressMap::kXorHash);
  EXPECT_EQ(c.row_hit_cap, 4u);
  AddressMap m = AddressMap::kLinear;
  EXPECT_TRUE(AddressMapFromName("XOR-hash", &m));
  EXPECT_EQ(m, AddressMap::kXorHash);
  EXPECT_TRUE(AddressMapFromName(AddressMapName(AddressMap::kLinear), &m));
  EXPECT_EQ(m, AddressMap::kLinear);
  EXPECT_FALSE(AddressMapFromName("xor", &m));
  EXPECT_EQ(m, AddressMap::kLinear) << "a refused name leaves the output alone";
  RowHitCount n = RowHitCount::kBypasses;
  EXPECT_TRUE(RowHitCountFromName("Since-ACT", &n));
  EXPECT_EQ(n, RowHitCount::kSinceActivate);
  EXPECT_TRUE(RowHitCountFromName(RowHitCountName(RowHitCount::kBypasses), &n));
  EXPECT_EQ(n, RowHitCount::kBypasses);
  EXPECT_FALSE(RowHitCountFromName("since", &n));
  EXPECT_EQ(n, RowHitCount::kBypasses) << "a refused name leaves the output alone";
  EXPECT_EQ(RowHitCountChoices(), "since-act, bypasses");
}

// The linear layout itself (and the fields the hashed map starts from), bit by bit.
TEST(HbmAddressMap, ConsecutiveBurstsSpreadOverPseudoChannelsThenBankGroups) {
  HbmConfig c = HbmConfig::Hbm2();
  c.address_map = AddressMap::kLinear;
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
  EXPECT_EQ(map.Describe().find("xor-hash"), std::string::npos) << map.Describe();
}

// The hashed map keeps the linear map's short-range order: 512 B still touch every pseudo-channel
// once, consecutive bursts of one pseudo-channel still alternate bank groups, and both halves of
// a 64-byte block share a channel, bank and row.
TEST(HbmAddressMap, HashedMapKeepsSequentialOrder) {
  const HbmConfig c = HbmConfig::Hbm2();
  const HbmAddressMap map(c);
  EXPECT_NE(map.Describe().find("xor-hash: {pseudo-channel, channel} ^= fold4(bank group, bank, row)"),
            std::string::npos)
      << map.Describe();
  for (uint64_t base : {0ull, 512ull * 77, 3ull << 30}) {
    std::set<uint32_t> pcs;
    for (uint64_t a = base; a < base + 512; a += 32) pcs.insert(map.Decode(a).pc_index);
    EXPECT_EQ(pcs.size(), 16u) << base;
    for (uint64_t a = base; a < base + 512; a += 64) {
      const HbmLocation lo = map.Decode(a), hi = map.Decode(a + 32);
      EXPECT_EQ(lo.channel, hi.channel);
      EXPECT_NE(lo.pseudo_channel, hi.pseudo_channel);
      EXPECT_EQ(lo.bank_index, hi.bank_index);
      EXPECT_EQ(lo.row, hi.row);
    }
    std::vector<uint32_t> groups;  // bank groups pseudo-channel 0 sees, in address order
    for (uint64_t a = base; groups.size() < 4; a += 32) {
      if (map.Decode(a).pc_index == 0) groups.push_back(map.Decode(a).bank_group);
    }
    EXPECT_EQ(std::set<uint32_t>(groups.begin(), groups.end()).size(), 4u) << base;
  }
}

// Decode and Encode are inverse for the hashed map on every preset, over a spread of addresses:
// powers of two and their neighbours, random ones, and the top of the device.
TEST(HbmAddressMap, HashedMapRoundTrips) {
  std::mt19937_64 rng(7);
  for (HbmConfig c : {HbmConfig::Hbm2(), HbmConfig::Hbm2e(64ull << 30), HbmConfig::Hbm3(48ull << 30)}) {
    const HbmAddressMap map(c);
    std::vector<uint64_t> addrs = {0, 32, c.capacity_bytes - 32};
    for (uint64_t p = 32; p < c.capacity_bytes; p <<= 1) {
      addrs.insert(addrs.end(), {p, p - 32, p + 32, c.capacity_bytes - p});
    }
    for (int i = 0; i < 20000; ++i) addrs.push_back(rng() % c.capacity_bytes & ~31ull);
    for (uint64_t a : addrs) {
      const HbmLocation l = map.Decode(a);
      ASSERT_EQ(map.Encode(l), a) << c.name << " " << a;
      ASSERT_LT(l.row, map.rows_per_bank()) << c.name << " " << a;
      ASSERT_EQ(l.pc_index, l.channel * c.pseudo_channels + l.pseudo_channel);
      ASSERT_EQ(l.bank_index, l.bank_group * c.banks_per_group + l.bank);
    }
    // And the other way: every location in range encodes to an address that decodes back to it.
    for (int i = 0; i < 20000; ++i) {
      HbmLocation l;
      l.channel = rng() % c.channels;
      l.pseudo_channel = rng() % c.pseudo_channels;
      l.bank_group = rng() % c.bank_groups;
      l.bank = rng() % c.banks_per_group;
      l.row = rng() % map.rows_per_bank();
      l.column = rng() % (c.row_bytes / 32);
      const uint64_t a = map.Encode(l);
      ASSERT_LT(a, c.capacity_bytes);
      const HbmLocation d = map.Decode(a);
      ASSERT_TRUE(d.channel == l.channel && d.pseudo_channel == l.pseudo_channel && d.bank_group == l.bank_group &&
                  d.bank == l.bank && d.row == l.row && d.column == l.column)
          << c.name << " " << a;
    }
  }
}

// Decode remembers the hash of the last bank-and-row values it saw: a map that has decoded a long history gives
// what a fresh map gives for the same address. Interleaved sequential streams at power-of-two distances (the
// remembered entries collide and are replaced), and random addresses in between.
bool SameLocation(const HbmLocation& a, const HbmLocation& b) {
  return a.channel == b.channel && a.pseudo_channel == b.pseudo_channel && a.pc_index == b.pc_index &&
         a.bank_group == b.bank_group && a.bank == b.bank && a.bank_index == b.bank_index && a.row == b.row &&
         a.column == b.column;
}

TEST(HbmAddressMap, DecodeWithHistoryEqualsFreshDecode) {
  std::mt19937_64 rng(11);
  for (HbmConfig c : {HbmConfig::Hbm2(), HbmConfig::Hbm2e(64ull << 30), HbmConfig::Hbm3(48ull << 30)}) {
    for (AddressMap kind : {AddressMap::kXorHash, AddressMap::kLinear}) {
      c.address_map = kind;
      const HbmAddressMap map(c);
      for (uint64_t distance = 1ull << 14; distance < c.capacity_bytes; distance <<= 3) {
        const uint64_t base = rng() % (c.capacity_bytes - distance - (1ull << 20)) & ~31ull;
        for (uint64_t i = 0; i < (1ull << 20); i += 32 * 7) {
          const uint64_t random = rng() % c.capacity_bytes & ~31ull;
          for (uint64_t a : {base + i, base + distance + i, random}) {
            const HbmAddressMap fresh(c);
            ASSERT_TRUE(SameLocation(map.Decode(a), fresh.Decode(a))) << c.name << " " << a;
          }
        }
      }
    }
  }
}

// Place (the model's table-and-memo path) gives Decode's pc_index, bank_index, bank_group, row and column for
// every preset, both maps, an organisation too wide for Place's table (it falls back to Decode) and a narrow one;
// on streams at power-of-two distances and random addresses. Decode runs on a second map, so that the two do not
// share the memo (a Decode with a history equals a fresh one: DecodeWithHistoryEqualsFreshDecode).
TEST(HbmAddressMap, PlaceEqualsDecode) {
  std::mt19937_64 rng(13);
  HbmConfig wide = HbmConfig::Hbm3(64ull << 30);
  wide.row_bytes = 8192;  // 16 channels x 2 x 4 bank groups x 256 columns: 15 bits below the bank
  HbmConfig narrow = HbmConfig::Hbm2(1ull << 28);
  narrow.channels = 2;
  narrow.pseudo_channels = 1;
  narrow.bank_groups = 2;
  narrow.banks_per_group = 8;
  for (HbmConfig c : {HbmConfig::Hbm2(), HbmConfig::Hbm2e(64ull << 30), HbmConfig::Hbm3(48ull << 30), wide, narrow}) {
    for (AddressMap kind : {AddressMap::kXorHash, AddressMap::kLinear}) {
      c.address_map = kind;
      ASSERT_EQ(c.Validate(), "") << c.name;
      const HbmAddressMap map(c), decoder(c);
      for (uint64_t distance = 1ull << 12; distance < c.capacity_bytes / 2; distance <<= 5) {
        const uint64_t base = rng() % (c.capacity_bytes / 2) & ~31ull;
        for (uint64_t i = 0; i < (1ull << 18); i += 32 * 3) {
          for (uint64_t a : {base + i, base + distance + i, uint64_t{rng() % c.capacity_bytes & ~31ull}}) {
            const HbmPlace p = map.Place(a);
            const HbmLocation l = decoder.Decode(a);
            ASSERT_TRUE(p.pc_index == l.pc_index && p.bank_index == l.bank_index && p.bank_group == l.bank_group &&
                        p.row == l.row && p.column == l.column)
                << c.name << " " << AddressMapName(kind) << " " << a;
          }
        }
      }
    }
  }
}

// Capacity that is not a power of two (here 3 rows per bank) still maps one-to-one onto
// [0, capacity): checked exhaustively, burst by burst, for both maps.
TEST(HbmAddressMap, NonPowerOfTwoCapacityIsAPermutation) {
  for (AddressMap kind : {AddressMap::kXorHash, AddressMap::kLinear}) {
    for (HbmConfig c : {HbmConfig::Hbm2(3 * 256 * 1024), HbmConfig::Hbm3(3 * 512 * 1024)}) {
      c.address_map = kind;
      ASSERT_EQ(c.Validate(), "");
      const HbmAddressMap map(c);
      ASSERT_EQ(map.rows_per_bank(), 3u);
      std::set<std::vector<uint64_t>> seen;
      for (uint64_t a = 0; a < c.capacity_bytes; a += 32) {
        const HbmLocation l = map.Decode(a);
        ASSERT_LT(l.row, 3u) << a;
        ASSERT_EQ(map.Encode(l), a) << a;
        seen.insert({l.pc_index, l.bank_index, l.row, l.column});
      }
      EXPECT_EQ(seen.size(), c.capacity_bytes / 32) << c.name << " " << AddressMapName(kind);
    }
  }
}

// Power-of-two strides of 512 B and more: the linear map keeps them on one channel, the hash
// spreads them over every channel within 256 requests. (Not within 8: the column reaches only two
// channel bits, so a 512 B stride, which walks the bank groups and columns first, cycles through 4
// channels for 64 KiB before the bank bits bring in the rest. The queues hold that much.)
TEST(HbmAddressMap, PowerOfTwoStridesReachEveryChannelOnlyWithTheHash) {
  for (AddressMap kind : {AddressMap::kXorHash, AddressMap::kLinear}) {
    HbmConfig c = HbmConfig::Hbm2();
    c.address_map = kind;
    const HbmAddressMap map(c);
    for (uint64_t stride = 512; stride <= (1u << 20); stride <<= 1) {
      std::set<uint32_t> channels;
      for (uint64_t i = 0; i < 256; ++i) channels.insert(map.Decode(i * stride).channel);
      EXPECT_EQ(channels.size(), kind == AddressMap::kXorHash ? c.channels : 1u)
          << AddressMapName(kind) << " stride " << stride;
    }
  }
}

}  // namespace
}  // namespace strata::hbm
