// Seeded random-operation stress tests: alloc/free/pin/compact with Check(), the model, exact stats and a
// shadow copy of device memory verified after every operation, for every policy and many seeds.
#include <gtest/gtest.h>

#include <string>

#include "alloc_harness.h"

namespace strata::alloc::testing {
namespace {

struct RandomCase {
  Policy policy;
  uint64_t seed;
  uint32_t max_live;
  uint32_t granule;
};

void PrintTo(const RandomCase& c, std::ostream* os) {
  *os << PolicyName(c.policy) << " seed " << c.seed << " max_live " << c.max_live << " granule " << c.granule;
}

class RandomOps : public ::testing::TestWithParam<RandomCase> {};

TEST_P(RandomOps, InvariantsModelStatsAndContentsHoldAfterEveryOperation) {
  const RandomCase& c = GetParam();
  HarnessConfig config;
  config.policy = c.policy;
  config.max_live = c.max_live;
  config.granule_bytes = c.granule;
  config.capacity_bytes = uint64_t{c.granule} * 1024;
  config.max_moves = 16;
  RandomSource src(c.seed);
  Harness<Allocator> h(config);
  for (int i = 0; i < 2500; ++i) {
    ASSERT_TRUE(h.Step(src)) << "seed " << c.seed << ": " << h.error();
  }
  // The harness must have exercised compaction, not only allocation.
  EXPECT_GT(h.allocator().GetStats().compactions, 0u) << "seed " << c.seed;
}

std::vector<RandomCase> Cases() {
  std::vector<RandomCase> cases;
  for (uint32_t p = 0; p < kNumPolicies; ++p) {
    for (uint64_t seed = 1; seed <= 6; ++seed) {
      // Small metadata pools hit exhaustion; small granules exercise rounding slack.
      cases.push_back({static_cast<Policy>(p), seed, seed % 2 ? 24u : 200u, seed % 3 ? 64u : 16u});
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomOps, ::testing::ValuesIn(Cases()), [](const auto& info) {
  std::string n = PolicyName(info.param.policy);
  for (char& ch : n) ch = ch == '-' ? '_' : ch;
  return n + "_seed" + std::to_string(info.param.seed);
});

// The harness can fail: an allocator whose Check() is corrupted behind its back is caught.
TEST(RandomOpsHarness, DetectsCorruption) {
  HarnessConfig config;
  RandomSource src(7);
  Harness<Allocator> h(config);
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(h.Step(src)) << h.error();
  ASSERT_GT(h.live_count(), 0u);
  // Move a live block's offset by one granule without telling anyone.
  auto* nodes = h.allocator().MutableNodesForTest();
  for (uint32_t i = 0; i < Allocator::NodesForLiveBuffers(config.max_live); ++i) {
    if ((nodes[i].meta & (1u << 9)) && !(nodes[i].meta & (1u << 8)) && nodes[i].offset_lo > 0) {
      nodes[i].offset_lo -= 1;
      break;
    }
  }
  EXPECT_FALSE(h.Verify());
  EXPECT_FALSE(h.error().empty());
}

// The same for the wide (uint32_t) node index.
TEST(RandomOpsHarness, WideIndex) {
  HarnessConfig config;
  config.max_live = 100;
  RandomSource src(99);
  Harness<WideAllocator> h(config);
  for (int i = 0; i < 1500; ++i) ASSERT_TRUE(h.Step(src)) << h.error();
}

}  // namespace
}  // namespace strata::alloc::testing
