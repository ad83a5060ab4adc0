// Seeded random-operation stress tests: alloc/free/pin/compact with Check(), the model, exact stats and a
// shadow copy of device memory verified after every operation, for every policy and many seeds, with the
// 32-bit fast paths and without them (the generic code alone). And the two against each other: the same
// operations must leave the same blocks, node by node.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "alloc_harness.h"

namespace strata::alloc::testing {
namespace {

struct RandomCase {
  Policy policy;
  uint64_t seed;
  uint32_t max_live;
  uint32_t granule;
  bool fast_paths;
};

void PrintTo(const RandomCase& c, std::ostream* os) {
  *os << PolicyName(c.policy) << " seed " << c.seed << " max_live " << c.max_live << " granule " << c.granule
      << (c.fast_paths ? "" : " generic");
}

HarnessConfig ConfigFor(const RandomCase& c) {
  HarnessConfig config;
  config.policy = c.policy;
  config.max_live = c.max_live;
  config.granule_bytes = c.granule;
  config.capacity_bytes = uint64_t{c.granule} * 1024;
  config.max_moves = 16;
  config.fast_paths = c.fast_paths;
  return config;
}

class RandomOps : public ::testing::TestWithParam<RandomCase> {};

TEST_P(RandomOps, InvariantsModelStatsAndContentsHoldAfterEveryOperation) {
  const RandomCase& c = GetParam();
  RandomSource src(c.seed);
  Harness<Allocator> h(ConfigFor(c));
  for (int i = 0; i < 2500; ++i) {
    ASSERT_TRUE(h.Step(src)) << "seed " << c.seed << ": " << h.error();
  }
  // The harness must have exercised compaction, not only allocation.
  EXPECT_GT(h.allocator().GetStats().compactions, 0u) << "seed " << c.seed;
}

std::vector<RandomCase> Cases() {
  std::vector<RandomCase> cases;
  for (const bool fast : {true, false}) {
    for (uint32_t p = 0; p < kNumPolicies; ++p) {
      for (uint64_t seed = 1; seed <= 6; ++seed) {
        // Small metadata pools hit exhaustion; small granules exercise rounding slack.
        cases.push_back({static_cast<Policy>(p), seed, seed % 2 ? 24u : 200u, seed % 3 ? 64u : 16u, fast});
      }
    }
  }
  return cases;
}

std::string CaseName(const ::testing::TestParamInfo<RandomCase>& info) {
  std::string n = PolicyName(info.param.policy);
  for (char& ch : n) ch = ch == '-' ? '_' : ch;
  return n + "_seed" + std::to_string(info.param.seed) + (info.param.fast_paths ? "" : "_generic");
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomOps, ::testing::ValuesIn(Cases()), CaseName);

// The fast paths against the generic code: two allocators, one with and one without, fed the same operations
// (the harness decides from its model, which stays the same while the allocators agree). After every
// operation the two block lists must match node by node: offset, size, live or free, and the handle (node
// index and generation), and so must the statistics.
class FastVersusGeneric : public ::testing::TestWithParam<RandomCase> {};

TEST_P(FastVersusGeneric, SameBlocksAfterEveryOperation) {
  RandomCase c = GetParam();
  c.fast_paths = true;
  Harness<Allocator> fast(ConfigFor(c));
  c.fast_paths = false;
  Harness<Allocator> generic(ConfigFor(c));
  RandomSource src_fast(c.seed), src_generic(c.seed);
  struct Block {
    uint64_t offset, size;
    bool live;
    uint64_t handle;
    bool operator==(const Block&) const = default;
  };
  auto blocks = [](const Allocator& a) {
    std::vector<Block> out;
    a.ForEachBlock([&](uint64_t off, uint64_t size, bool live, Handle h) {
      out.push_back({off, size, live, h.value});
    });
    return out;
  };
  for (int i = 0; i < 2500; ++i) {
    ASSERT_TRUE(fast.Step(src_fast)) << "seed " << c.seed << ": " << fast.error();
    ASSERT_TRUE(generic.Step(src_generic)) << "seed " << c.seed << ": " << generic.error();
    const std::vector<Block> a = blocks(fast.allocator()), b = blocks(generic.allocator());
    ASSERT_EQ(a.size(), b.size()) << "seed " << c.seed << " operation " << i;
    for (size_t k = 0; k < a.size(); ++k) {
      ASSERT_TRUE(a[k] == b[k]) << "seed " << c.seed << " operation " << i << " block " << k << ": offset "
                                << a[k].offset << "/" << b[k].offset << " size " << a[k].size << "/" << b[k].size
                                << " live " << a[k].live << "/" << b[k].live << " handle " << a[k].handle << "/"
                                << b[k].handle;
    }
    const Stats sa = fast.allocator().GetStats(), sb = generic.allocator().GetStats();
    ASSERT_EQ(sa.bytes_in_use, sb.bytes_in_use) << "operation " << i;
    ASSERT_EQ(sa.num_failed_allocs, sb.num_failed_allocs) << "operation " << i;
    ASSERT_EQ(sa.compaction_bytes_moved, sb.compaction_bytes_moved) << "operation " << i;
    ASSERT_EQ(sa.free_blocks, sb.free_blocks) << "operation " << i;
  }
  EXPECT_GT(fast.allocator().GetStats().compactions, 0u) << "seed " << c.seed;
}

std::vector<RandomCase> DifferentialCases() {
  std::vector<RandomCase> cases;
  for (uint32_t p = 0; p < kNumPolicies; ++p) {
    for (uint64_t seed = 11; seed <= 18; ++seed) {
      cases.push_back({static_cast<Policy>(p), seed, seed % 2 ? 24u : 200u, seed % 3 ? 64u : 16u, true});
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Seeds, FastVersusGeneric, ::testing::ValuesIn(DifferentialCases()), CaseName);

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
