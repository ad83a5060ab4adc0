// Conformance suite for the HBM allocator, run against every policy and both node index types:
// BFC's classic checks, coalescing, alignment, handle misuse, metadata exhaustion, largest sizes, Check().
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "alloc/allocator.h"

namespace strata::alloc {
namespace {

template <typename IndexT, Policy kPolicy>
struct Config {
  using A = BasicAllocator<IndexT>;
  static constexpr Policy policy = kPolicy;
};

template <typename C>
class AllocatorConformance : public ::testing::Test {
 protected:
  using A = typename C::A;

  // A fresh allocator over `capacity` bytes with room for `max_live` buffers.
  A& Make(uint64_t capacity, uint32_t max_live = 2048, uint32_t granule = 256) {
    nodes_.assign(A::NodesForLiveBuffers(max_live), typename A::Node{});
    Options o;
    o.capacity_bytes = capacity;
    o.granule_bytes = granule;
    o.policy = C::policy;
    EXPECT_EQ(alloc_.Init(nodes_.data(), static_cast<uint32_t>(nodes_.size()), o), STRATA_OK);
    return alloc_;
  }

  Handle MustAllocate(uint64_t bytes, uint64_t alignment = 0) {
    Handle h;
    EXPECT_EQ(alloc_.Allocate(bytes, alignment, &h), STRATA_OK) << bytes << " bytes, alignment " << alignment;
    return h;
  }
  uint64_t OffsetOf(Handle h) {
    uint64_t off = ~uint64_t{0};
    EXPECT_EQ(alloc_.GetOffset(h, &off), STRATA_OK);
    return off;
  }
  void ExpectHealthy() {
    const CheckResult c = alloc_.Check();
    EXPECT_TRUE(c.ok()) << "broken invariant: " << (c.invariant ? c.invariant : "?") << " at block " << c.block;
  }

  std::vector<typename A::Node> nodes_;
  A alloc_;
};

using Configs = ::testing::Types<Config<uint16_t, Policy::kTlsf>, Config<uint16_t, Policy::kBestFit>,
                                 Config<uint16_t, Policy::kFirstFit>, Config<uint32_t, Policy::kTlsf>,
                                 Config<uint32_t, Policy::kBestFit>, Config<uint32_t, Policy::kFirstFit>>;
class ConfigNames {
 public:
  template <typename C>
  static std::string GetName(int) {
    return std::string(sizeof(typename C::A::Index) == 2 ? "u16_" : "u32_") + PolicyName(C::policy);
  }
};
TYPED_TEST_SUITE(AllocatorConformance, Configs, ConfigNames);

TYPED_TEST(AllocatorConformance, InitRejectsBadOptions) {
  using A = typename TestFixture::A;
  std::vector<typename A::Node> nodes(16);
  A a;
  Options o;
  o.capacity_bytes = 1 << 20;
  o.granule_bytes = 3;
  EXPECT_EQ(a.Init(nodes.data(), 16, o), STRATA_INVALID_ARGUMENT);
  o.granule_bytes = 1 << 17;
  EXPECT_EQ(a.Init(nodes.data(), 16, o), STRATA_INVALID_ARGUMENT);
  o.granule_bytes = 256;
  o.capacity_bytes = 255;  // less than one granule
  EXPECT_EQ(a.Init(nodes.data(), 16, o), STRATA_INVALID_ARGUMENT);
  o.capacity_bytes = 1 << 20;
  EXPECT_EQ(a.Init(nodes.data(), 2, o), STRATA_INVALID_ARGUMENT);
  EXPECT_EQ(a.Init(nullptr, 16, o), STRATA_INVALID_ARGUMENT);
  o.granule_bytes = 1;
  o.capacity_bytes = uint64_t{1} << kOffsetBits;  // 2^40 granules: one too many
  EXPECT_EQ(a.Init(nodes.data(), 16, o), STRATA_INVALID_ARGUMENT);
  // Before a successful Init nothing works, and nothing crashes.
  Handle h;
  EXPECT_EQ(a.Allocate(256, 0, &h), STRATA_FAILED_PRECONDITION);
  EXPECT_EQ(a.Free(Handle{1}), STRATA_INVALID_ARGUMENT);
}

TYPED_TEST(AllocatorConformance, FreshHeapIsOneFreeBlock) {
  auto& a = this->Make(1 << 20);
  const Stats s = a.GetStats();
  EXPECT_EQ(s.bytes_limit, 1u << 20);
  EXPECT_EQ(s.bytes_in_use, 0u);
  EXPECT_EQ(s.bytes_free, 1u << 20);
  EXPECT_EQ(s.largest_free_block_bytes, 1u << 20);
  EXPECT_EQ(s.free_blocks, 1u);
  EXPECT_EQ(s.fragmentation, 0.0);
  EXPECT_EQ(s.max_live_buffers, 2048u);
  this->ExpectHealthy();
}

// BFC: allocate 1..1023 granules' worth of varied sizes; no duplicates, no overlaps.
TYPED_TEST(AllocatorConformance, BfcNoDuplicatesOrOverlapsOver1023Sizes) {
  auto& a = this->Make(uint64_t{1} << 30, 1100);
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  std::set<uint64_t> handles;
  for (uint64_t s = 1; s <= 1023; ++s) {
    const uint64_t bytes = s * 1000 + (s % 7);  // not granule multiples
    const Handle h = this->MustAllocate(bytes);
    EXPECT_TRUE(handles.insert(h.value).second) << "duplicate handle";
    BufferInfo info;
    ASSERT_EQ(a.GetInfo(h, &info), STRATA_OK);
    ranges.push_back({info.offset, info.offset + info.allocated_bytes});
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i) EXPECT_LE(ranges[i - 1].second, ranges[i].first) << "overlap";
  this->ExpectHealthy();
}

// BFC: after freeing everything one block remains and the next allocation lands at the base.
TYPED_TEST(AllocatorConformance, BfcFreeEverythingLeavesOneBlockAndNextAllocationAtBase) {
  auto& a = this->Make(uint64_t{1} << 30, 1100);
  std::vector<Handle> hs;
  for (uint64_t s = 1; s <= 1023; ++s) hs.push_back(this->MustAllocate(s * 777));
  // Free in an interleaved order so coalescing sees both neighbours free, one, and none.
  for (size_t i = 0; i < hs.size(); i += 2) ASSERT_EQ(a.Free(hs[i]), STRATA_OK);
  this->ExpectHealthy();
  for (size_t i = 1; i < hs.size(); i += 2) ASSERT_EQ(a.Free(hs[i]), STRATA_OK);
  const Stats s = a.GetStats();
  EXPECT_EQ(s.free_blocks, 1u);
  EXPECT_EQ(s.bytes_in_use, 0u);
  EXPECT_EQ(s.largest_free_block_bytes, uint64_t{1} << 30);
  EXPECT_EQ(this->OffsetOf(this->MustAllocate(4096)), 0u);
  this->ExpectHealthy();
}

// BFC: an impossible request fails and does not break later ones.
TYPED_TEST(AllocatorConformance, BfcImpossibleRequestFailsWithoutBreakingLaterOnes) {
  auto& a = this->Make(1 << 20);
  const Handle a1 = this->MustAllocate(1000);
  Handle h;
  EXPECT_EQ(a.Allocate((1 << 20) + 1, 0, &h), STRATA_RESOURCE_EXHAUSTED);
  EXPECT_TRUE(h.IsNull());
  EXPECT_EQ(a.Allocate(1 << 20, 0, &h), STRATA_RESOURCE_EXHAUSTED);  // 1000 bytes are taken
  EXPECT_EQ(a.GetStats().num_failed_allocs, 2u);
  this->ExpectHealthy();
  const Handle a2 = this->MustAllocate((1 << 20) - 1024);  // exactly the rest
  EXPECT_EQ(a.GetStats().bytes_free, 0u);
  EXPECT_EQ(a.GetStats().fragmentation, 0.0);
  EXPECT_EQ(a.Free(a1), STRATA_OK);
  EXPECT_EQ(a.Free(a2), STRATA_OK);
  EXPECT_EQ(a.GetStats().num_allocs, 2u);
  this->ExpectHealthy();
}

// BFC: requested vs allocated size.
TYPED_TEST(AllocatorConformance, BfcRequestedVersusAllocatedSize) {
  auto& a = this->Make(1 << 20);
  const uint64_t sizes[] = {1, 255, 256, 257, 1000, 4096, 4097};
  uint64_t requested = 0, allocated = 0;
  for (uint64_t s : sizes) {
    const Handle h = this->MustAllocate(s);
    BufferInfo info;
    ASSERT_EQ(a.GetInfo(h, &info), STRATA_OK);
    EXPECT_EQ(info.requested_bytes, s);
    EXPECT_EQ(info.allocated_bytes, (s + 255) / 256 * 256);
    requested += s;
    allocated += info.allocated_bytes;
  }
  const Stats st = a.GetStats();
  EXPECT_EQ(st.requested_bytes_in_use, requested);
  EXPECT_EQ(st.bytes_in_use, allocated);
  EXPECT_EQ(st.peak_bytes_in_use, allocated);
}

TYPED_TEST(AllocatorConformance, ImmediateCoalescingOfFreeNeighbours) {
  auto& a = this->Make(1 << 20);
  const Handle x = this->MustAllocate(4096), y = this->MustAllocate(4096), z = this->MustAllocate(4096);
  const Handle guard = this->MustAllocate(256);
  ASSERT_EQ(a.Free(x), STRATA_OK);
  ASSERT_EQ(a.Free(z), STRATA_OK);
  EXPECT_EQ(a.GetStats().free_blocks, 3u);  // x, z, and the tail after guard
  ASSERT_EQ(a.Free(y), STRATA_OK);          // joins x and z
  EXPECT_EQ(a.GetStats().free_blocks, 2u);
  EXPECT_EQ(a.GetStats().largest_free_block_bytes, (1u << 20) - 3 * 4096 - 256);
  EXPECT_EQ(this->OffsetOf(this->MustAllocate(3 * 4096)), 0u);
  (void)guard;
  this->ExpectHealthy();
}

TYPED_TEST(AllocatorConformance, PeakAndFragmentationStats) {
  auto& a = this->Make(64 * 1024);
  std::vector<Handle> hs;
  for (int i = 0; i < 16; ++i) hs.push_back(this->MustAllocate(4096));
  EXPECT_EQ(a.GetStats().peak_bytes_in_use, 64u * 1024);
  for (int i = 0; i < 16; i += 2) ASSERT_EQ(a.Free(hs[i]), STRATA_OK);
  const Stats s = a.GetStats();
  EXPECT_EQ(s.bytes_in_use, 32u * 1024);
  EXPECT_EQ(s.peak_bytes_in_use, 64u * 1024);
  EXPECT_EQ(s.largest_free_block_bytes, 4096u);
  EXPECT_DOUBLE_EQ(s.fragmentation, (32.0 * 1024 - 4096) / (32.0 * 1024));
  EXPECT_EQ(s.fragmentation_ppm, 875000u);
  EXPECT_TRUE(a.ShouldCompactWhenIdle(500000));
  EXPECT_FALSE(a.ShouldCompactWhenIdle(900000));
}

TYPED_TEST(AllocatorConformance, AlignmentUpTo64KiBAndBeyond) {
  auto& a = this->Make(uint64_t{64} << 20);
  for (uint64_t align = 1; align <= (uint64_t{4} << 20); align <<= 1) {
    this->MustAllocate(256 * 3);  // knock the next free offset off any alignment
    const Handle h = this->MustAllocate(1000, align);
    EXPECT_EQ(this->OffsetOf(h) % std::max<uint64_t>(align, 256), 0u) << "alignment " << align;
    BufferInfo info;
    ASSERT_EQ(a.GetInfo(h, &info), STRATA_OK);
    EXPECT_EQ(info.alignment, std::max<uint64_t>(align, 256));
  }
  this->ExpectHealthy();
  Handle h;
  EXPECT_EQ(a.Allocate(256, 3, &h), STRATA_INVALID_ARGUMENT);
  EXPECT_EQ(a.Allocate(256, (uint64_t{1} << 20) + 1, &h), STRATA_INVALID_ARGUMENT);
  // An alignment beyond the heap only admits offset 0, which is taken.
  EXPECT_EQ(a.Allocate(256, uint64_t{1} << 63, &h), STRATA_RESOURCE_EXHAUSTED);
  this->ExpectHealthy();
}

TYPED_TEST(AllocatorConformance, ZeroBytesIsInvalid) {
  auto& a = this->Make(1 << 20);
  Handle h;
  EXPECT_EQ(a.Allocate(0, 0, &h), STRATA_INVALID_ARGUMENT);
  EXPECT_EQ(a.Allocate(256, 0, nullptr), STRATA_INVALID_ARGUMENT);
}

TYPED_TEST(AllocatorConformance, HandleMisuseIsRejectedAndChangesNothing) {
  auto& a = this->Make(1 << 20, 8);
  const Handle h = this->MustAllocate(1000);
  const Handle keep = this->MustAllocate(2000);
  ASSERT_EQ(a.Free(h), STRATA_OK);
  const Stats before = a.GetStats();
  EXPECT_EQ(a.Free(h), STRATA_NOT_FOUND);  // double free
  EXPECT_EQ(a.Pin(h), STRATA_NOT_FOUND);
  uint64_t off;
  EXPECT_EQ(a.GetOffset(h, &off), STRATA_NOT_FOUND);
  EXPECT_EQ(a.Free(Handle{}), STRATA_INVALID_ARGUMENT);                                  // null
  EXPECT_EQ(a.Free(Handle{0xffffffffu}), STRATA_INVALID_ARGUMENT);                       // index out of range
  EXPECT_EQ(a.Free(Handle{keep.value ^ (uint64_t{1} << 60)}), STRATA_INVALID_ARGUMENT);  // generation too wide
  EXPECT_EQ(a.Free(Handle{keep.value + (uint64_t{1} << 32)}), STRATA_NOT_FOUND);         // wrong generation
  const Stats after = a.GetStats();
  EXPECT_EQ(before.bytes_in_use, after.bytes_in_use);
  EXPECT_EQ(before.num_frees, after.num_frees);
  EXPECT_TRUE(a.IsLive(keep));
  this->ExpectHealthy();
  // A stale handle stays stale after its node is reused by a new buffer.
  const Handle reused = this->MustAllocate(1000);
  EXPECT_NE(reused, h);
  EXPECT_EQ(a.Free(h), STRATA_NOT_FOUND);
  EXPECT_TRUE(a.IsLive(reused));
}

TYPED_TEST(AllocatorConformance, PinnedBuffersCannotBeFreed) {
  auto& a = this->Make(1 << 20);
  const Handle h = this->MustAllocate(1000);
  EXPECT_EQ(a.Unpin(h), STRATA_FAILED_PRECONDITION);
  ASSERT_EQ(a.Pin(h), STRATA_OK);
  ASSERT_EQ(a.Pin(h), STRATA_OK);
  EXPECT_EQ(a.Free(h), STRATA_FAILED_PRECONDITION);
  ASSERT_EQ(a.Unpin(h), STRATA_OK);
  EXPECT_EQ(a.Free(h), STRATA_FAILED_PRECONDITION);
  ASSERT_EQ(a.Unpin(h), STRATA_OK);
  EXPECT_EQ(a.Free(h), STRATA_OK);
  const Handle g = this->MustAllocate(1000);
  for (uint32_t i = 0; i < kMaxPinCount; ++i) ASSERT_EQ(a.Pin(g), STRATA_OK);
  EXPECT_EQ(a.Pin(g), STRATA_RESOURCE_EXHAUSTED);
  BufferInfo info;
  ASSERT_EQ(a.GetInfo(g, &info), STRATA_OK);
  EXPECT_EQ(info.pin_count, kMaxPinCount);
  this->ExpectHealthy();
}

// Running out of metadata is RESOURCE_EXHAUSTED, never corruption, even at the worst split pattern.
TYPED_TEST(AllocatorConformance, MetadataExhaustion) {
  auto& a = this->Make(1 << 20, 4);
  std::vector<Handle> hs;
  for (int i = 0; i < 4; ++i) hs.push_back(this->MustAllocate(256));
  Handle h;
  EXPECT_EQ(a.Allocate(256, 0, &h), STRATA_RESOURCE_EXHAUSTED);
  this->ExpectHealthy();
  // Free alternate buffers, then refill with aligned requests that split a free block in three.
  ASSERT_EQ(a.Free(hs[0]), STRATA_OK);
  ASSERT_EQ(a.Free(hs[2]), STRATA_OK);
  EXPECT_EQ(a.Allocate(256, 64 * 1024, &h), STRATA_OK);
  EXPECT_EQ(a.Allocate(256, 128 * 1024, &h), STRATA_OK);
  EXPECT_EQ(a.Allocate(256, 0, &h), STRATA_RESOURCE_EXHAUSTED);
  EXPECT_EQ(a.GetStats().live_buffers, 4u);
  this->ExpectHealthy();
}

// Slot(handle), where the runtime and the host backend keep each buffer's owner: below the node count, one per live
// buffer, over a random run of allocations, frees and compactions (held against a plain map of the live handles).
TYPED_TEST(AllocatorConformance, SlotsAreDistinctAndInRange) {
  auto& a = this->Make(4 << 20, 64);
  std::mt19937 rng(47);
  std::vector<Handle> live;
  for (int step = 0; step < 3000; ++step) {
    const uint32_t r = rng() % 10;
    if (r < 5 && live.size() < 64) {
      Handle h;
      if (a.Allocate(256 * (1 + rng() % 64), 0, &h) == STRATA_OK) live.push_back(h);
    } else if (r < 9 && !live.empty()) {
      const size_t i = rng() % live.size();
      ASSERT_EQ(a.Free(live[i]), STRATA_OK);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
    } else {  // a compaction (no data here to copy): buffers move, their slots must not
      std::vector<Move> moves(256);
      CompactionPlan plan;
      ASSERT_EQ(a.PlanCompaction(CompactionBudget{}, moves.data(), 256, &plan), STRATA_OK);
      ASSERT_EQ(a.CommitCompaction(plan), STRATA_OK);
    }
    std::set<uint32_t> slots;
    for (Handle h : live) {
      ASSERT_TRUE(a.IsLive(h));
      EXPECT_LT(Slot(h), this->nodes_.size());
      EXPECT_TRUE(slots.insert(Slot(h)).second) << "two live buffers in slot " << Slot(h);
    }
  }
}

TYPED_TEST(AllocatorConformance, LargestSizesHaveNoOverflow) {
  using A = typename TestFixture::A;
  // 64 GiB device: two buffers that fill it exactly; byte counts far beyond 32 bits.
  auto& a = this->Make(uint64_t{64} << 30);
  const Handle big = this->MustAllocate(uint64_t{48} << 30);
  const Handle rest = this->MustAllocate(uint64_t{16} << 30);
  EXPECT_EQ(this->OffsetOf(rest), uint64_t{48} << 30);
  EXPECT_EQ(a.GetStats().bytes_in_use, uint64_t{64} << 30);
  Handle h;
  EXPECT_EQ(a.Allocate(UINT64_MAX, 0, &h), STRATA_RESOURCE_EXHAUSTED);
  EXPECT_EQ(a.Allocate(UINT64_MAX - 254, 0, &h), STRATA_RESOURCE_EXHAUSTED);  // would wrap when rounded
  ASSERT_EQ(a.Free(big), STRATA_OK);
  ASSERT_EQ(a.Free(rest), STRATA_OK);
  this->ExpectHealthy();

  // The largest heap: 2^40 - 1 granules of 64 KiB (just under 64 PiB).
  std::vector<typename A::Node> nodes(A::NodesForLiveBuffers(4));
  A huge;
  Options o;
  o.granule_bytes = 65536;
  o.capacity_bytes = kMaxGranules * 65536;
  o.policy = TypeParam::policy;
  ASSERT_EQ(huge.Init(nodes.data(), static_cast<uint32_t>(nodes.size()), o), STRATA_OK);
  Handle x, y;
  ASSERT_EQ(huge.Allocate(uint64_t{1} << 55, 0, &x), STRATA_OK);
  ASSERT_EQ(huge.Allocate(o.capacity_bytes - (uint64_t{1} << 55), uint64_t{1} << 55, &y), STRATA_OK);
  uint64_t off;
  ASSERT_EQ(huge.GetOffset(y, &off), STRATA_OK);
  EXPECT_EQ(off, uint64_t{1} << 55);
  EXPECT_EQ(huge.GetStats().bytes_free, 0u);
  EXPECT_TRUE(huge.Check().ok());
  ASSERT_EQ(huge.Free(x), STRATA_OK);
  ASSERT_EQ(huge.Free(y), STRATA_OK);
  EXPECT_EQ(huge.GetStats().largest_free_block_bytes, o.capacity_bytes);
}

TYPED_TEST(AllocatorConformance, CheckNamesTheBrokenInvariant) {
  auto& a = this->Make(1 << 20);
  const Handle x = this->MustAllocate(4096);
  this->MustAllocate(4096);
  ASSERT_EQ(a.Free(x), STRATA_OK);
  this->ExpectHealthy();
  auto* nodes = a.MutableNodesForTest();
  // Find the free block at offset 0 (x's node or its replacement) and break things one at a time.
  uint32_t free_node = UINT32_MAX;
  for (uint32_t i = 0; i < this->nodes_.size(); ++i) {
    if ((nodes[i].meta & (1u << 9)) && (nodes[i].meta & (1u << 8)) && nodes[i].offset_lo == 0) free_node = i;
  }
  ASSERT_NE(free_node, UINT32_MAX);
  const auto saved = nodes[free_node];
  const auto live_node = nodes[free_node].next;  // the second buffer, still live
  nodes[live_node].meta |= 1u << 8;              // claims to be free next to a free block
  CheckResult c = a.Check();
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(c.status, STRATA_INTERNAL);
  EXPECT_STREQ(c.invariant, "free.neighbours_coalesced");
  EXPECT_EQ(c.block, live_node);
  nodes[live_node].meta &= ~(1u << 8);
  nodes[free_node].prev = 5;
  c = a.Check();
  EXPECT_STREQ(c.invariant, "chain.back_links_match");
  nodes[free_node] = saved;
  nodes[free_node].offset_lo = 1;
  c = a.Check();
  EXPECT_STREQ(c.invariant, "chain.starts_at_offset_0");
  nodes[free_node] = saved;
  const auto next = live_node;
  const auto saved_next = nodes[next];
  nodes[next].offset_lo = 0;
  c = a.Check();
  EXPECT_STREQ(c.invariant, "chain.offsets_increasing");
  nodes[next] = saved_next;
  this->ExpectHealthy();
}

// Policy-specific placement on the same hole pattern: holes of 8, 2 and 4 granules, in that order.
TYPED_TEST(AllocatorConformance, PolicyPlacement) {
  auto& a = this->Make(1 << 20);
  const Handle h8 = this->MustAllocate(8 * 256);
  this->MustAllocate(256);
  const Handle h2 = this->MustAllocate(2 * 256);
  this->MustAllocate(256);
  const Handle h4 = this->MustAllocate(4 * 256);
  this->MustAllocate(256);
  const uint64_t off8 = this->OffsetOf(h8), off2 = this->OffsetOf(h2), off4 = this->OffsetOf(h4);
  ASSERT_EQ(a.Free(h8), STRATA_OK);
  ASSERT_EQ(a.Free(h2), STRATA_OK);
  ASSERT_EQ(a.Free(h4), STRATA_OK);
  const uint64_t got = this->OffsetOf(this->MustAllocate(2 * 256));
  switch (TypeParam::policy) {
    case Policy::kBestFit:
      EXPECT_EQ(got, off2);
      break;
    case Policy::kFirstFit:
      EXPECT_EQ(got, off8);
      break;
    case Policy::kTlsf:  // good fit: any hole of a class that surely fits
      EXPECT_TRUE(got == off8 || got == off2 || got == off4 || got >= off4 + 5 * 256);
      break;
  }
  this->ExpectHealthy();
}

}  // namespace
}  // namespace strata::alloc
