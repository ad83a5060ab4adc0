// Data-path tests of the HBM model: random streams against a golden memory, fill pattern, debug access.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <random>
#include <unordered_map>
#include <vector>

#include "hbm/hbm_model.h"
#include "hbm/sparse_memory.h"
#include "hbm_test_util.h"

namespace strata::hbm {
namespace {

using testing::Read;
using testing::RunOne;
using testing::Write;

struct RandomStreamCase {
  const char* preset;
  RefreshMode refresh;
  uint32_t queue_depth;
};

class HbmRandomStream : public ::testing::TestWithParam<RandomStreamCase> {};

// Random reads and writes (sizes 1..64, random byte enables, many to a small hot region so that
// same-address reordering hazards are frequent) must read exactly what a std::map golden model says.
TEST_P(HbmRandomStream, MatchesGoldenModel) {
  const RandomStreamCase& p = GetParam();
  HbmConfig cfg;
  ASSERT_TRUE(HbmConfig::FromName(p.preset, &cfg, 64ull << 20));
  cfg.refresh = p.refresh;
  cfg.queue_depth = p.queue_depth;
  cfg.fill_byte = 0xC3;
  HbmModel m(cfg);

  std::mt19937_64 rng(1234);
  std::map<uint64_t, uint8_t> golden;
  std::unordered_map<uint64_t, std::vector<uint8_t>> expected;  // tag -> bytes a read must return
  auto golden_byte = [&](uint64_t a) {
    auto it = golden.find(a);
    return it == golden.end() ? cfg.fill_byte : it->second;
  };
  const int kOps = 20000;
  int submitted = 0, reads_checked = 0, responses = 0;
  HbmRequest pending;
  bool have_pending = false;
  while (responses < kOps) {
    for (int k = 0; k < 3 && submitted < kOps; ++k) {
      if (!have_pending) {
        HbmRequest r;
        r.tag = static_cast<uint64_t>(submitted);
        bool hot = rng() % 2;
        uint64_t block = hot ? (rng() % 64) * 64 : (rng() % (cfg.capacity_bytes / 64)) * 64;
        uint32_t off = rng() % 64;
        r.len = 1 + rng() % (64 - off);
        r.addr = block + off;
        r.is_write = rng() % 2;
        if (r.is_write) {
          r.byte_enable = (rng() % 4 == 0) ? rng() : ~0ull;
          for (uint32_t i = 0; i < r.len; ++i) r.data[i] = static_cast<uint8_t>(rng());
        }
        pending = r;
        have_pending = true;
      }
      if (!m.Submit(pending)) break;  // back-pressure: try again next cycle
      have_pending = false;
      ++submitted;
      if (pending.is_write) {
        for (uint32_t i = 0; i < pending.len; ++i) {
          if (pending.byte_enable & (1ull << i)) golden[pending.addr + i] = pending.data[i];
        }
      } else {
        std::vector<uint8_t> want(pending.len);
        for (uint32_t i = 0; i < pending.len; ++i) want[i] = golden_byte(pending.addr + i);
        expected[pending.tag] = std::move(want);
      }
    }
    m.Tick();
    HbmResponse r;
    while (m.PopResponse(&r)) {
      ++responses;
      EXPECT_GE(r.completion_cycle, r.submit_cycle);
      if (r.is_write) continue;
      auto it = expected.find(r.tag);
      ASSERT_NE(it, expected.end()) << "unexpected tag " << r.tag;
      for (uint32_t i = 0; i < r.len; ++i) {
        ASSERT_EQ(r.data[i], it->second[i]) << "tag " << r.tag << " addr " << r.addr << " byte " << i;
      }
      expected.erase(it);
      ++reads_checked;
    }
    ASSERT_LT(m.Now(), 10000000u) << "stream did not finish";
  }
  EXPECT_TRUE(expected.empty());
  EXPECT_TRUE(m.Idle());
  EXPECT_EQ(m.Outstanding(), 0u);
  EXPECT_GT(reads_checked, kOps / 3);
  // The backing store agrees with the golden model byte for byte.
  for (const auto& [addr, value] : golden) {
    uint8_t b;
    ASSERT_TRUE(m.ReadDebug(addr, &b, 1));
    ASSERT_EQ(b, value) << addr;
  }
  HbmChannelStats total = m.Stats().Total();
  EXPECT_GT(total.row_hits, 0u);
  EXPECT_GT(total.row_conflicts + total.row_misses, 0u);
}

INSTANTIATE_TEST_SUITE_P(Presets, HbmRandomStream,
                         ::testing::Values(RandomStreamCase{"HBM2", RefreshMode::kPerBank, 32},
                                           RandomStreamCase{"HBM2", RefreshMode::kAllBank, 4},
                                           RandomStreamCase{"HBM2e", RefreshMode::kPerBank, 8},
                                           RandomStreamCase{"HBM3", RefreshMode::kOff, 16}));

TEST(HbmData, NeverWrittenBytesReadTheFillPattern) {
  HbmConfig cfg = HbmConfig::Hbm2(64ull << 20);
  cfg.fill_byte = 0x5A;
  HbmModel m(cfg);
  HbmResponse r = RunOne(m, Read(4096, 64));
  for (uint32_t i = 0; i < 64; ++i) EXPECT_EQ(r.data[i], 0x5A);
  // A masked partial write leaves the disabled bytes at the fill pattern.
  HbmRequest w = Write(4096 + 8, 16, 1);
  w.byte_enable = 0x00FF;
  RunOne(m, w);
  r = RunOne(m, Read(4096, 64));
  for (uint32_t i = 0; i < 64; ++i) {
    uint8_t want = (i >= 8 && i < 16) ? static_cast<uint8_t>(1 + (i - 8) * 7) : 0x5A;
    EXPECT_EQ(r.data[i], want) << i;
  }
  uint8_t buf[16];
  ASSERT_TRUE(m.ReadDebug(cfg.capacity_bytes - 16, buf, 16));
  for (uint8_t b : buf) EXPECT_EQ(b, 0x5A);
  EXPECT_EQ(m.memory().pages_allocated(), 1u);  // reads never materialize pages
}

// Writing the fill byte into a page that does not exist creates no page (a compaction of never-written
// buffers copies gigabytes of fill); into a page that exists, or mixed with other bytes, it is stored.
TEST(HbmData, FillValuedWritesToAbsentPagesCreateNone) {
  SparseMemory m(64ull << 30, 4096, 0x5A);
  std::vector<uint8_t> fill(3 * 4096 + 100, 0x5A);
  ASSERT_TRUE(m.Write(10ull << 30, fill.data(), fill.size()));
  EXPECT_EQ(m.pages_allocated(), 0u);
  const uint8_t one = 0x01, f = 0x5A;
  ASSERT_TRUE(m.WriteMasked(8192, &f, 1, 1));  // a masked fill byte: no page either
  EXPECT_EQ(m.pages_allocated(), 0u);
  ASSERT_TRUE(m.Write(4096 + 7, &one, 1));
  EXPECT_EQ(m.pages_allocated(), 1u);
  ASSERT_TRUE(m.Write(4096 + 7, &f, 1));  // the page exists: the fill byte overwrites the 0x01
  uint8_t b = 0;
  ASSERT_TRUE(m.Read(4096 + 7, &b, 1));
  EXPECT_EQ(b, 0x5A);
  fill[5000] = 0x00;  // one byte differs: its page is created, the all-fill pages around it are not
  ASSERT_TRUE(m.Write(1ull << 30, fill.data(), fill.size()));
  EXPECT_EQ(m.pages_allocated(), 2u);
  std::vector<uint8_t> back(fill.size());
  ASSERT_TRUE(m.Read(1ull << 30, back.data(), back.size()));
  EXPECT_EQ(back, fill);
}

TEST(HbmData, DebugAccessIsZeroTimeAndLeavesTimingAlone) {
  HbmConfig cfg = HbmConfig::Hbm2(64ull << 20);
  cfg.refresh = RefreshMode::kOff;
  HbmModel plain(cfg), probed(cfg);
  std::vector<HbmRequest> reqs;
  for (uint64_t i = 0; i < 200; ++i) reqs.push_back(i % 3 ? Read(i * 4096 + 64, 64, i) : Write(i * 1024, 32, 3, i));
  std::vector<HbmResponse> a, b;
  for (const HbmRequest& r : reqs) a.push_back(RunOne(plain, r));
  uint8_t scratch[256];
  for (size_t i = 0; i < reqs.size(); ++i) {
    // Debug traffic to the same rows the timed requests use: must not open rows or cost cycles.
    ASSERT_TRUE(probed.ReadDebug(reqs[i].addr + 4096, scratch, sizeof scratch));
    ASSERT_TRUE(probed.WriteDebug((40ull << 20) + i * 256, scratch, sizeof scratch));
    b.push_back(RunOne(probed, reqs[i]));
  }
  for (size_t i = 0; i < reqs.size(); ++i) {
    EXPECT_EQ(a[i].Latency(), b[i].Latency()) << i;
    EXPECT_EQ(a[i].completion_cycle, b[i].completion_cycle) << i;
  }
  EXPECT_EQ(plain.Stats().ToJson(), probed.Stats().ToJson());
  // And debug writes are visible to timed reads, debug reads see timed writes.
  const uint8_t pattern[4] = {1, 2, 3, 4};
  ASSERT_TRUE(probed.WriteDebug(1000, pattern, 4));
  HbmResponse r = RunOne(probed, Read(1000, 4));
  EXPECT_EQ(0, std::memcmp(r.data.data(), pattern, 4));
  EXPECT_FALSE(probed.ReadDebug(cfg.capacity_bytes - 2, scratch, 4));
  EXPECT_FALSE(probed.WriteDebug(cfg.capacity_bytes, scratch, 1));
}

TEST(HbmData, ResponseCallbackDeliversInsteadOfQueue) {
  HbmModel m(HbmConfig::Hbm2(64ull << 20));
  std::vector<uint64_t> tags;
  m.SetResponseCallback([&](const HbmResponse& r) { tags.push_back(r.tag); });
  ASSERT_TRUE(m.Submit(Write(0, 64, 9, 7)));
  ASSERT_TRUE(m.Submit(Read(0, 64, 8)));
  m.RunUntilIdle();
  EXPECT_EQ(tags.size(), 2u);
  EXPECT_EQ(m.ResponsesReady(), 0u);
  EXPECT_EQ(m.Outstanding(), 0u);
}

TEST(HbmData, SplitTransferCoversTheRangeInLegalChunks) {
  uint64_t covered = 0;
  SplitTransfer(100, 1000, [&](uint64_t a, uint32_t len, uint64_t off) {
    EXPECT_EQ(a, 100 + off);
    EXPECT_LE((a % 64) + len, 64u);
    covered += len;
  });
  EXPECT_EQ(covered, 1000u);
}

}  // namespace
}  // namespace strata::hbm
