// DMA engine tests on the Verilated device: random descriptor streams on both queues checked byte
// for byte against a golden memory model, overlapping HBM moves, malformed descriptors, 64 GiB.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "device.h"
#include "dma_client.h"
#include "hbm/hbm_model.h"
#include "hbm_bridge.h"
#include "strata/regmap.h"

namespace strata::sim {
namespace {

constexpr uint32_t kTierHbm = STRATA_DMA_TIER_HBM;
constexpr uint32_t kTierVmem = STRATA_DMA_TIER_VMEM;
constexpr uint32_t kTierAcc = STRATA_DMA_TIER_ACC;
constexpr uint32_t kTierSmem = STRATA_DMA_TIER_SMEM;

using Desc = DmaDescriptor;

// The device with its core held in reset, driven through the host port like a host driver would.
class DmaHarness {
 public:
  // STRATA_TEST_TRACE=FILE.fst records a waveform of the test (for debugging).
  static TraceOptions Trace() {
    TraceOptions t;
    if (const char* p = std::getenv("STRATA_TEST_TRACE")) t.path = p;
    return t;
  }

  explicit DmaHarness(uint64_t hbm_capacity = 64ull << 20)
      : device_(Trace(), hbm::HbmConfig::Hbm2(hbm_capacity)), dma_(device_) {
    device_.HoldInReset();
  }

  uint32_t Reg(uint32_t q, uint32_t offset) { return dma_.Reg(q, offset); }
  void Push(uint32_t q, const Desc& d) { dma_.Push(q, d); }
  void WaitDone(uint32_t q, uint32_t done) {
    ASSERT_TRUE(dma_.WaitDone(q, done)) << "DMA queue " << q << " did not finish";
  }
  Device& device() { return device_; }

 private:
  Device device_;
  DmaClient dma_;
};

// Golden model of every tier, applied descriptor by descriptor (memmove within a row; rows of
// a COPY in the order the engine promises).
struct Golden {
  std::vector<uint8_t> hbm, vmem, acc, smem;
  Golden(uint64_t hbm_window) : hbm(hbm_window), vmem(STRATA_VMEM_SIZE), acc(STRATA_ACC_SIZE), smem(STRATA_SMEM_SIZE) {}
  std::vector<uint8_t>& Tier(uint32_t t) {
    return t == kTierHbm ? hbm : t == kTierVmem ? vmem : t == kTierAcc ? acc : smem;
  }
  void Apply(const Desc& d) {
    auto& s = Tier(d.src_tier);
    auto& t = Tier(d.dst_tier);
    const bool reverse = d.src_tier == kTierHbm && d.dst_tier == kTierHbm && d.dst > d.src;
    for (uint32_t i = 0; i < d.rows; ++i) {
      const uint32_t r = reverse ? d.rows - 1 - i : i;
      std::memmove(&t[d.dst + uint64_t{r} * d.dst_stride], &s[d.src + uint64_t{r} * d.src_stride], d.len);
    }
  }
};

// Reads back an on-chip tier window by DMA into a scratch HBM area and compares with the golden.
void ExpectTierEquals(DmaHarness& h, Golden& g, uint32_t tier, uint64_t begin, uint64_t len, uint64_t scratch) {
  const uint32_t before = h.Reg(0, STRATA_DMA_DONE);
  h.Push(0, Desc{tier, kTierHbm, begin, scratch, static_cast<uint32_t>(len)});
  h.WaitDone(0, before + 1);
  std::vector<uint8_t> got(len);
  ASSERT_TRUE(h.device().hbm().ReadDebug(scratch, got.data(), len));
  const auto& want = g.Tier(tier);
  for (uint64_t i = 0; i < len; ++i) {
    ASSERT_EQ(got[i], want[begin + i]) << "tier " << tier << " byte " << begin + i;
  }
}

TEST(Dma, RandomDescriptorStreamsMatchGoldenModel) {
  constexpr uint64_t kWindow = 1 << 20;  // HBM bytes under test; scratch above it
  DmaHarness h;
  Golden g(kWindow);
  std::mt19937_64 rng(20261122);
  for (auto& b : g.hbm) b = static_cast<uint8_t>(rng());
  ASSERT_TRUE(h.device().hbm().WriteDebug(0, g.hbm.data(), kWindow));

  // Known on-chip contents first: fill VMEM, ACC and a SMEM window from HBM.
  constexpr uint64_t kSmemWin = 256 << 10, kSmemWinLen = 128 << 10;
  std::vector<Desc> init = {{kTierHbm, kTierVmem, 0, 0, STRATA_VMEM_SIZE},
                            {kTierHbm, kTierAcc, 300000, 0, STRATA_ACC_SIZE},
                            {kTierHbm, kTierSmem, 700000, kSmemWin, static_cast<uint32_t>(kSmemWinLen)}};
  uint32_t pushed[2] = {0, 0};
  for (const Desc& d : init) {
    h.Push(0, d);
    g.Apply(d);
    h.WaitDone(0, ++pushed[0]);
  }
  EXPECT_EQ(h.Reg(0, STRATA_DMA_ERRORS), 0u);

  // Queue q works in half q of every tier, so the queues never race each other.
  auto pick = [&](uint32_t q, uint32_t tier, uint32_t extent) -> uint64_t {
    uint64_t base = 0, size = 0;
    if (tier == kTierHbm) {
      base = 0;
      size = kWindow;
    }
    if (tier == kTierVmem) {
      base = 0;
      size = STRATA_VMEM_SIZE;
    }
    if (tier == kTierAcc) {
      base = 0;
      size = STRATA_ACC_SIZE;
    }
    if (tier == kTierSmem) {
      base = kSmemWin;
      size = kSmemWinLen;
    }
    const uint64_t half = size / 2;
    return base + q * half + rng() % (half - extent);
  };
  for (int round = 0; round < 200; ++round) {
    for (uint32_t q = 0; q < 2; ++q) {
      Desc d{};
      const uint32_t kind = rng() % 4;
      const uint32_t chip = 1 + rng() % 3;
      d.src_tier = kind == 0 ? chip : kTierHbm;
      d.dst_tier = kind == 1 ? chip : kTierHbm;
      if (kind == 2) d.dst_tier = kTierHbm;
      d.len = 1 + rng() % (rng() % 4 == 0 ? 3000 : 200);
      d.rows = rng() % 3 == 0 ? 1 + rng() % 6 : 1;
      d.src_stride = d.rows > 1 ? d.len + rng() % 100 : 0;
      d.dst_stride = d.rows > 1 ? d.len + rng() % 100 : 0;
      const uint32_t src_extent = (d.rows - 1) * d.src_stride + d.len;
      const uint32_t dst_extent = (d.rows - 1) * d.dst_stride + d.len;
      d.src = pick(q, d.src_tier, src_extent);
      d.dst = pick(q, d.dst_tier, dst_extent);
      if (kind == 3) {  // HBM -> HBM, often overlapping in either direction (1-D)
        d.rows = 1;
        d.len = 1 + rng() % 2000;
        d.src = pick(q, kTierHbm, d.len + 600) + 300;
        d.dst = d.src + 150 - (rng() % 300);
      }
      h.Push(q, d);
      g.Apply(d);
      ++pushed[q];
    }
    // Let at most a few descriptors queue up; the FIFO holds four per queue.
    if (round % 3 == 2) {
      h.WaitDone(0, pushed[0]);
      h.WaitDone(1, pushed[1]);
    }
  }
  h.WaitDone(0, pushed[0]);
  h.WaitDone(1, pushed[1]);
  EXPECT_EQ(h.Reg(0, STRATA_DMA_ERRORS), 0u);
  EXPECT_EQ(h.Reg(1, STRATA_DMA_ERRORS), 0u);
  const BridgeStats& st = h.device().bridge().stats();
  std::printf("moved: %llu commands, %llu B to chip, %llu B from chip, %llu B copied in %llu cycles\n",
              static_cast<unsigned long long>(st.commands), static_cast<unsigned long long>(st.bytes_read_to_chip),
              static_cast<unsigned long long>(st.bytes_written_from_chip),
              static_cast<unsigned long long>(st.bytes_copied), static_cast<unsigned long long>(h.device().edges()));

  std::vector<uint8_t> hbm(kWindow);
  ASSERT_TRUE(h.device().hbm().ReadDebug(0, hbm.data(), kWindow));
  for (uint64_t i = 0; i < kWindow; ++i) ASSERT_EQ(hbm[i], g.hbm[i]) << "HBM byte " << i;
  ExpectTierEquals(h, g, kTierVmem, 0, STRATA_VMEM_SIZE, 8 << 20);
  ExpectTierEquals(h, g, kTierAcc, 0, STRATA_ACC_SIZE, 8 << 20);
  ExpectTierEquals(h, g, kTierSmem, kSmemWin, kSmemWinLen, 8 << 20);
  // SMEM through the host port as well (an independent read path).
  for (uint64_t a = kSmemWin; a < kSmemWin + 256; a += 4) {
    uint32_t want;
    std::memcpy(&want, &g.smem[a], 4);
    ASSERT_EQ(h.device().HostRead32(static_cast<uint32_t>(STRATA_SMEM_BASE + a)), want);
  }
}

TEST(Dma, OverlappingHbmMovesInBothDirections) {
  DmaHarness h;
  Golden g(1 << 16);
  std::mt19937_64 rng(7);
  for (auto& b : g.hbm) b = static_cast<uint8_t>(rng());
  ASSERT_TRUE(h.device().hbm().WriteDebug(0, g.hbm.data(), g.hbm.size()));
  const std::vector<Desc> moves = {
      {kTierHbm, kTierHbm, 1000, 1001, 5000},                // up by one byte
      {kTierHbm, kTierHbm, 9000, 8999, 5000},                // down by one byte
      {kTierHbm, kTierHbm, 20000, 20064, 4096},              // up by a line
      {kTierHbm, kTierHbm, 30000, 29000, 4096},              // down, partly overlapping
      {kTierHbm, kTierHbm, 40000, 40100, 300, 8, 320, 320},  // 2-D, equal strides, up
      {kTierHbm, kTierHbm, 50100, 50000, 300, 8, 320, 320},  // 2-D, down
  };
  uint32_t n = 0;
  for (const Desc& d : moves) {
    h.Push(0, d);
    g.Apply(d);
    h.WaitDone(0, ++n);
  }
  std::vector<uint8_t> got(g.hbm.size());
  ASSERT_TRUE(h.device().hbm().ReadDebug(0, got.data(), got.size()));
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], g.hbm[i]) << "byte " << i;
  EXPECT_EQ(h.Reg(0, STRATA_DMA_ERRORS), 0u);
}

TEST(Dma, MalformedDescriptorsFailAndWriteNothing) {
  constexpr uint64_t kCap = 64ull << 20;
  DmaHarness h(kCap);
  Golden g(1 << 16);
  std::mt19937_64 rng(3);
  for (auto& b : g.hbm) b = static_cast<uint8_t>(rng());
  ASSERT_TRUE(h.device().hbm().WriteDebug(0, g.hbm.data(), g.hbm.size()));
  h.Push(0, Desc{kTierHbm, kTierVmem, 0, 0, 4096});  // known VMEM contents
  g.Apply(Desc{kTierHbm, kTierVmem, 0, 0, 4096});
  h.WaitDone(0, 1);

  struct Bad {
    Desc d;
    uint32_t err;
  };
  const std::vector<Bad> bad = {
      {{kTierHbm, kTierHbm, 0, 100, 0}, STRATA_DMA_ERR_ZERO},
      {{kTierHbm, kTierHbm, 0, 100, 10, 0}, STRATA_DMA_ERR_ZERO},
      {{kTierHbm, kTierHbm, kCap - 10, 100, 11}, STRATA_DMA_ERR_SRC_RANGE},
      {{kTierHbm, kTierHbm, 0, kCap - 10, 11}, STRATA_DMA_ERR_DST_RANGE},
      {{kTierHbm, kTierHbm, ~0ull - 5, 0, 64}, STRATA_DMA_ERR_SRC_RANGE},  // wraps around 2^64
      {{kTierHbm, kTierVmem, 0, STRATA_VMEM_SIZE - 64, 65}, STRATA_DMA_ERR_DST_RANGE},
      {{kTierHbm, kTierVmem, 0, 0, 64, 5, 64, STRATA_VMEM_SIZE / 4}, STRATA_DMA_ERR_DST_RANGE},  // 2-D extent
      {{kTierAcc, kTierHbm, STRATA_ACC_SIZE, 0, 4}, STRATA_DMA_ERR_SRC_RANGE},
      {{kTierSmem, kTierHbm, STRATA_SMEM_SIZE - 2, 0, 4}, STRATA_DMA_ERR_SRC_RANGE},
      {{kTierVmem, kTierAcc, 0, 0, 64}, STRATA_DMA_ERR_TIERS},
      {{kTierSmem, kTierSmem, 0, 64, 64}, STRATA_DMA_ERR_TIERS},
  };
  uint32_t done = 1;
  for (const Bad& b : bad) {
    h.Push(0, b.d);
    h.WaitDone(0, ++done);
    EXPECT_EQ((h.Reg(0, STRATA_DMA_STATUS) & STRATA_DMA_STATUS_LAST_ERR_MASK) >> STRATA_DMA_STATUS_LAST_ERR_LSB, b.err)
        << "descriptor " << done - 1;
  }
  EXPECT_EQ(h.Reg(0, STRATA_DMA_ERRORS), bad.size());

  // Queue full: four descriptors wait in the FIFO while one long one runs; the sixth push fails.
  const Desc slow{kTierHbm, kTierHbm, 1 << 20, 2 << 20, 1 << 20};
  for (int i = 0; i < 6; ++i) h.Push(1, slow);
  EXPECT_EQ((h.Reg(1, STRATA_DMA_STATUS) & STRATA_DMA_STATUS_LAST_ERR_MASK) >> STRATA_DMA_STATUS_LAST_ERR_LSB,
            STRATA_DMA_ERR_QUEUE_FULL);
  h.WaitDone(1, 6);
  EXPECT_EQ(h.Reg(1, STRATA_DMA_ERRORS), 1u);

  // Nothing the bad descriptors named changed.
  std::vector<uint8_t> got(g.hbm.size());
  ASSERT_TRUE(h.device().hbm().ReadDebug(0, got.data(), got.size()));
  EXPECT_EQ(got, g.hbm);
  ExpectTierEquals(h, g, kTierVmem, 0, 4096, 8 << 20);
}

uint64_t RssBytes() {
  std::ifstream f("/proc/self/status");
  std::string key;
  while (f >> key) {
    if (key == "VmRSS:") {
      uint64_t kb;
      f >> kb;
      return kb << 10;
    }
  }
  return 0;
}

TEST(Dma, SixtyFourGibDeviceTopReadsBack) {
  constexpr uint64_t kCap = 64ull << 30;
  DmaHarness h(kCap);
  const uint64_t rss_before = RssBytes();
  // SMEM -> top of HBM -> another SMEM window, then compare through the host port.
  for (uint32_t i = 0; i < 64; i += 4) h.device().HostWrite32(STRATA_SMEM_BASE + 0x1000 + i, 0xa5000000u + i);
  h.Push(0, Desc{kTierSmem, kTierHbm, 0x1000, kCap - 64, 64});
  h.Push(0, Desc{kTierHbm, kTierSmem, kCap - 64, 0x2000, 64});
  h.WaitDone(0, 2);
  EXPECT_EQ(h.Reg(0, STRATA_DMA_ERRORS), 0u);
  for (uint32_t i = 0; i < 64; i += 4) EXPECT_EQ(h.device().HostRead32(STRATA_SMEM_BASE + 0x2000 + i), 0xa5000000u + i);
  uint8_t top[64];
  ASSERT_TRUE(h.device().hbm().ReadDebug(kCap - 64, top, 64));
  EXPECT_EQ(top[4], 0x04);
  EXPECT_EQ(top[7], 0xa5);
  // One byte past the end is out of range.
  h.Push(0, Desc{kTierHbm, kTierSmem, kCap - 63, 0x2000, 64});
  h.WaitDone(0, 3);
  EXPECT_EQ(h.Reg(0, STRATA_DMA_ERRORS), 1u);
  EXPECT_LT(RssBytes() - rss_before, 64ull << 20) << "the sparse store should not materialize the device";
}

}  // namespace
}  // namespace strata::sim
