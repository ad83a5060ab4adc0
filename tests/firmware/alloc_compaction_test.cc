// Compaction protocol tests: plan/copy/commit, overlapping moves, pinned buffers, budgets, refused commits,
// and defragment-on-OOM moving fewer bytes than sliding everything down. Run against every policy.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <vector>

#include "alloc/allocator.h"

namespace strata::alloc {

// Readable parameter names in test output.
void PrintTo(Policy p, std::ostream* os) { *os << PolicyName(p); }

namespace {

constexpr uint64_t kG = 256;

class Compaction : public ::testing::TestWithParam<Policy> {
 protected:
  void Make(uint64_t capacity, uint32_t max_live = 256) {
    nodes_.assign(Allocator::NodesForLiveBuffers(max_live), Allocator::Node{});
    Options o;
    o.capacity_bytes = capacity;
    o.policy = GetParam();
    ASSERT_EQ(a_.Init(nodes_.data(), static_cast<uint32_t>(nodes_.size()), o), STRATA_OK);
    memory_.assign(capacity, 0);
    moves_.resize(256);
  }

  // Allocates and fills with a recognisable pattern.
  Handle Alloc(uint64_t granules) {
    Handle h;
    EXPECT_EQ(a_.Allocate(granules * kG, 0, &h), STRATA_OK);
    uint64_t off;
    a_.GetOffset(h, &off);
    for (uint64_t j = 0; j < granules * kG; ++j) memory_[off + j] = static_cast<uint8_t>(h.value * 31 + j);
    sizes_[h.value] = granules * kG;
    return h;
  }
  void FreeBuf(Handle h) {
    ASSERT_EQ(a_.Free(h), STRATA_OK);
    sizes_.erase(h.value);
  }
  uint64_t Off(Handle h) {
    uint64_t off = 0;
    EXPECT_EQ(a_.GetOffset(h, &off), STRATA_OK);
    return off;
  }
  void Copy(const CompactionPlan& plan) {
    for (uint32_t k = 0; k < plan.num_moves; ++k) {
      const Move& m = plan.moves[k];
      memmove(&memory_[m.dst_offset], &memory_[m.src_offset], m.bytes);
    }
  }
  static strata_status CopyThunk(void* self, const Move* moves, uint32_t n) {
    auto* t = static_cast<Compaction*>(self);
    for (uint32_t k = 0; k < n; ++k)
      memmove(&t->memory_[moves[k].dst_offset], &t->memory_[moves[k].src_offset], moves[k].bytes);
    return STRATA_OK;
  }
  void ExpectContentsIntact() {
    for (auto [hv, bytes] : sizes_) {
      const uint64_t off = Off(Handle{hv});
      for (uint64_t j = 0; j < bytes; ++j) {
        ASSERT_EQ(memory_[off + j], static_cast<uint8_t>(hv * 31 + j)) << "buffer " << hv << " byte " << j;
      }
    }
    const CheckResult c = a_.Check();
    EXPECT_TRUE(c.ok()) << c.invariant;
  }
  // Bytes "slide everything down" would copy: every live buffer above the first hole.
  uint64_t SlideEverythingBytes() {
    uint64_t bytes = 0;
    bool hole = false;
    a_.ForEachBlock([&](uint64_t, uint64_t size, bool live, Handle) {
      if (!live)
        hole = true;
      else if (hole)
        bytes += size;
    });
    return bytes;
  }

  std::vector<Allocator::Node> nodes_;
  Allocator a_;
  std::vector<uint8_t> memory_;
  std::vector<Move> moves_;
  std::map<uint64_t, uint64_t> sizes_;
};

INSTANTIATE_TEST_SUITE_P(AllPolicies, Compaction, ::testing::Values(Policy::kTlsf, Policy::kBestFit, Policy::kFirstFit),
                         [](const auto& info) {
                           std::string n = PolicyName(info.param);
                           for (char& c : n) c = c == '-' ? '_' : c;
                           return n;
                         });

TEST_P(Compaction, SlideDownPacksWithOverlappingMovesAndKeepsContents) {
  Make(64 * kG);
  std::vector<Handle> hs;
  const uint64_t sizes[] = {2, 6, 6, 2, 6, 6, 2, 6};  // 2-granule holes under 6-granule buffers
  for (uint64_t g : sizes) hs.push_back(Alloc(g));
  FreeBuf(hs[0]);
  FreeBuf(hs[3]);
  FreeBuf(hs[6]);
  CompactionPlan plan;
  ASSERT_EQ(a_.PlanCompaction(CompactionBudget{}, moves_.data(), 256, &plan), STRATA_OK);
  EXPECT_EQ(plan.kind, CompactionKind::kSlide);
  EXPECT_EQ(plan.num_moves, 5u);  // hs 1,2,4,5,7 all shift down
  bool overlapping = false;
  for (uint32_t k = 0; k < plan.num_moves; ++k) {
    const Move& m = plan.moves[k];
    EXPECT_LT(m.dst_offset, m.src_offset);
    if (m.src_offset - m.dst_offset < m.bytes) overlapping = true;
  }
  EXPECT_TRUE(overlapping) << "this layout should exercise overlapping moves";
  Copy(plan);
  ASSERT_EQ(a_.CommitCompaction(plan, 1234), STRATA_OK);
  ExpectContentsIntact();
  const Stats s = a_.GetStats();
  EXPECT_EQ(s.free_blocks, 1u);
  EXPECT_EQ(s.largest_free_block_bytes, (64 - 30) * kG);
  EXPECT_EQ(s.compactions, 1u);
  EXPECT_EQ(s.compaction_moves, 5u);
  EXPECT_EQ(s.compaction_bytes_moved, plan.bytes);
  EXPECT_EQ(s.compaction_cycles, 1234u);
  EXPECT_EQ(Off(hs[1]), 0u);
}

TEST_P(Compaction, PinnedBuffersNeverMove) {
  Make(64 * kG);
  std::vector<Handle> hs;
  for (int i = 0; i < 8; ++i) hs.push_back(Alloc(4));
  FreeBuf(hs[0]);
  FreeBuf(hs[3]);
  ASSERT_EQ(a_.Pin(hs[2]), STRATA_OK);
  const uint64_t pinned_at = Off(hs[2]);
  CompactionPlan plan;
  ASSERT_EQ(a_.PlanCompaction(CompactionBudget{}, moves_.data(), 256, &plan), STRATA_OK);
  for (uint32_t k = 0; k < plan.num_moves; ++k) {
    EXPECT_NE(plan.moves[k].handle, hs[2]);
    // Nothing lands on the pinned buffer either.
    EXPECT_TRUE(plan.moves[k].dst_offset + plan.moves[k].bytes <= pinned_at ||
                plan.moves[k].dst_offset >= pinned_at + 4 * kG);
  }
  Copy(plan);
  ASSERT_EQ(a_.CommitCompaction(plan), STRATA_OK);
  EXPECT_EQ(Off(hs[2]), pinned_at);
  EXPECT_EQ(Off(hs[1]), 0u);
  EXPECT_EQ(Off(hs[4]), pinned_at + 4 * kG);
  ExpectContentsIntact();
}

TEST_P(Compaction, BudgetLimitsMovesAndBytes) {
  Make(64 * kG);
  std::vector<Handle> hs;
  for (int i = 0; i < 8; ++i) hs.push_back(Alloc(4));
  FreeBuf(hs[0]);
  CompactionPlan plan;
  ASSERT_EQ(a_.PlanCompaction(CompactionBudget{UINT64_MAX, 2}, moves_.data(), 256, &plan), STRATA_OK);
  EXPECT_EQ(plan.num_moves, 2u);
  Copy(plan);
  ASSERT_EQ(a_.CommitCompaction(plan), STRATA_OK);
  ExpectContentsIntact();
  ASSERT_EQ(a_.PlanCompaction(CompactionBudget{9 * kG, UINT32_MAX}, moves_.data(), 256, &plan), STRATA_OK);
  EXPECT_EQ(plan.num_moves, 2u);  // 4 + 4 granules fit in 9, a third would not
  EXPECT_LE(plan.bytes, 9 * kG);
  Copy(plan);
  ASSERT_EQ(a_.CommitCompaction(plan), STRATA_OK);
  // The scratch array bounds a plan too.
  ASSERT_EQ(a_.PlanCompaction(CompactionBudget{}, moves_.data(), 1, &plan), STRATA_OK);
  EXPECT_EQ(plan.num_moves, 1u);
  Copy(plan);
  ASSERT_EQ(a_.CommitCompaction(plan), STRATA_OK);
  ExpectContentsIntact();
}

TEST_P(Compaction, PendingPlanLocksTheAllocatorAndAbortReleasesIt) {
  Make(64 * kG);
  const Handle x = Alloc(4), y = Alloc(4);
  FreeBuf(x);
  CompactionPlan plan;
  ASSERT_EQ(a_.PlanCompaction(CompactionBudget{}, moves_.data(), 256, &plan), STRATA_OK);
  Handle h;
  EXPECT_EQ(a_.Allocate(kG, 0, &h), STRATA_FAILED_PRECONDITION);
  EXPECT_EQ(a_.Free(y), STRATA_FAILED_PRECONDITION);
  EXPECT_EQ(a_.Pin(y), STRATA_FAILED_PRECONDITION);
  CompactionPlan other;
  EXPECT_EQ(a_.PlanCompaction(CompactionBudget{}, moves_.data(), 256, &other), STRATA_FAILED_PRECONDITION);
  ASSERT_EQ(a_.AbortCompaction(), STRATA_OK);
  EXPECT_EQ(a_.AbortCompaction(), STRATA_FAILED_PRECONDITION);
  EXPECT_EQ(a_.CommitCompaction(plan), STRATA_FAILED_PRECONDITION);  // aborted plans cannot commit
  EXPECT_EQ(Off(y), 4 * kG);
  EXPECT_EQ(a_.Allocate(kG, 0, &h), STRATA_OK);
  ExpectContentsIntact();
}

TEST_P(Compaction, EditedOrForeignPlansAreRefusedAndChangeNothing) {
  Make(64 * kG);
  const Handle x = Alloc(4), y = Alloc(4);
  Alloc(4);
  FreeBuf(x);
  CompactionPlan plan;
  ASSERT_EQ(a_.PlanCompaction(CompactionBudget{}, moves_.data(), 256, &plan), STRATA_OK);
  ASSERT_GE(plan.num_moves, 1u);
  moves_[0].dst_offset += kG;  // edited after issue
  EXPECT_EQ(a_.CommitCompaction(plan), STRATA_INVALID_ARGUMENT);
  moves_[0].dst_offset -= kG;
  CompactionPlan forged = plan;
  forged.id += 1;
  EXPECT_EQ(a_.CommitCompaction(forged), STRATA_INVALID_ARGUMENT);
  forged = plan;
  forged.num_moves = 0;
  EXPECT_EQ(a_.CommitCompaction(forged), STRATA_INVALID_ARGUMENT);
  EXPECT_EQ(Off(y), 4 * kG);  // nothing moved
  EXPECT_TRUE(a_.Check().ok());
  Copy(plan);
  ASSERT_EQ(a_.CommitCompaction(plan), STRATA_OK);
  EXPECT_EQ(Off(y), 0u);
  ExpectContentsIntact();
}

// Ten one-granule holes at the bottom, then [A:20][hole:20][B:20][hole:20][C:28]. A 40-granule request
// fails; sliding B into the hole below it is enough, while sliding everything down copies 77 granules.
TEST_P(Compaction, DefragmentOnOomMovesFarFewerBytesThanSlidingEverything) {
  Make(128 * kG);
  std::vector<Handle> singles;
  for (int i = 0; i < 20; ++i) singles.push_back(Alloc(1));
  Alloc(20);
  const Handle h1 = Alloc(20), b = Alloc(20), h2 = Alloc(20);
  Alloc(28);
  for (int i = 1; i < 20; i += 2) FreeBuf(singles[i]);
  FreeBuf(h1);
  FreeBuf(h2);
  Handle h;
  ASSERT_EQ(a_.Allocate(40 * kG, 0, &h), STRATA_RESOURCE_EXHAUSTED);
  const uint64_t slide_all = SlideEverythingBytes();
  EXPECT_EQ(slide_all, 77 * kG);
  CompactionPlan plan;
  ASSERT_EQ(a_.PlanCompactionFor(40 * kG, 0, CompactionBudget{}, moves_.data(), 256, &plan), STRATA_OK);
  EXPECT_TRUE(plan.serves_request);
  EXPECT_EQ(plan.bytes, 20 * kG);
  ASSERT_EQ(plan.num_moves, 1u);
  EXPECT_EQ(plan.moves[0].handle, b);
  Copy(plan);
  ASSERT_EQ(a_.CommitCompaction(plan), STRATA_OK);
  ASSERT_EQ(a_.Allocate(40 * kG, 0, &h), STRATA_OK);
  sizes_[h.value] = 0;
  ExpectContentsIntact();
}

TEST_P(Compaction, EvacuationIntoHolesElsewhere) {
  Make(64 * kG);
  // [a:4][hole:4][b:4][c:1][d:4][hole:2][e:49 fill]: a request of 6 granules fails; evacuating c (1 granule)
  // into the 4-granule hole frees [hole 2 + c 1 + ...]: compare with moving d.
  const Handle a = Alloc(4), gap1 = Alloc(4), b = Alloc(4), c = Alloc(1), gap2 = Alloc(5), d = Alloc(4);
  const Handle fill = Alloc(64 - 22);
  FreeBuf(gap1);
  FreeBuf(gap2);
  Handle h;
  ASSERT_EQ(a_.Allocate(6 * kG, 0, &h), STRATA_RESOURCE_EXHAUSTED);
  CompactionPlan plan;
  ASSERT_EQ(a_.PlanCompactionFor(6 * kG, 0, CompactionBudget{}, moves_.data(), 256, &plan), STRATA_OK);
  EXPECT_EQ(plan.bytes, 1 * kG);  // only c moves
  ASSERT_EQ(plan.num_moves, 1u);
  EXPECT_EQ(plan.moves[0].handle, c);
  Copy(plan);
  ASSERT_EQ(a_.CommitCompaction(plan), STRATA_OK);
  ASSERT_EQ(a_.Allocate(6 * kG, 0, &h), STRATA_OK);
  sizes_[h.value] = 0;
  ExpectContentsIntact();
  (void)a, (void)b, (void)d, (void)fill;
}

TEST_P(Compaction, AllocateWithCompactionInSmallRoundsAndBudget) {
  Make(128 * kG);
  std::vector<Handle> hs;
  for (int i = 0; i < 64; ++i) hs.push_back(Alloc(2));
  for (int i = 0; i < 64; i += 2) FreeBuf(hs[i]);  // 32 one-buffer holes of 2 granules, 64 granules free
  Handle h;
  // A budget too small to make room fails and changes nothing.
  EXPECT_EQ(a_.AllocateWithCompaction(64 * kG, 0, CompactionBudget{4 * kG, UINT32_MAX}, moves_.data(), 256,
                                      &Compaction::CopyThunk, this, &h),
            STRATA_RESOURCE_EXHAUSTED);
  EXPECT_EQ(a_.GetStats().compaction_moves, 0u);
  EXPECT_FALSE(a_.HasPendingPlan());
  // Three moves per round: many plan/copy/commit rounds, then the allocation fits.
  ASSERT_EQ(
      a_.AllocateWithCompaction(64 * kG, 0, CompactionBudget{}, moves_.data(), 3, &Compaction::CopyThunk, this, &h),
      STRATA_OK);
  sizes_[h.value] = 0;
  EXPECT_GT(a_.GetStats().compactions, 5u);
  EXPECT_EQ(a_.GetStats().num_failed_allocs, 1u);  // the budget-limited one
  ExpectContentsIntact();
}

TEST_P(Compaction, PinnedBuffersBlockingEveryWindowMeanNoPlan) {
  Make(16 * kG);
  std::vector<Handle> hs;
  for (int i = 0; i < 16; ++i) hs.push_back(Alloc(1));
  for (int i = 0; i < 16; i += 2) FreeBuf(hs[i]);
  for (int i = 1; i < 16; i += 2) ASSERT_EQ(a_.Pin(hs[i]), STRATA_OK);
  CompactionPlan plan;
  EXPECT_EQ(a_.PlanCompactionFor(2 * kG, 0, CompactionBudget{}, moves_.data(), 256, &plan), STRATA_RESOURCE_EXHAUSTED);
  EXPECT_FALSE(a_.HasPendingPlan());
  ASSERT_EQ(a_.Unpin(hs[7]), STRATA_OK);  // one movable buffer between two holes is enough
  ASSERT_EQ(a_.PlanCompactionFor(2 * kG, 0, CompactionBudget{}, moves_.data(), 256, &plan), STRATA_OK);
  EXPECT_EQ(plan.num_moves, 1u);
  EXPECT_EQ(plan.moves[0].handle, hs[7]);
  Copy(plan);
  ASSERT_EQ(a_.CommitCompaction(plan), STRATA_OK);
  ExpectContentsIntact();
  Handle h;
  EXPECT_EQ(a_.Allocate(2 * kG, 0, &h), STRATA_OK);
}

TEST_P(Compaction, AlignedBuffersKeepTheirAlignmentWhenMoved) {
  Make(1024 * kG);
  std::vector<Handle> hs;
  for (int i = 0; i < 12; ++i) {
    Handle h;
    ASSERT_EQ(a_.Allocate(3 * kG, (i % 3 == 0) ? 16 * kG : 0, &h), STRATA_OK);
    sizes_[h.value] = 0;
    hs.push_back(h);
  }
  for (int i = 0; i < 12; i += 4) {
    ASSERT_EQ(a_.Free(hs[i]), STRATA_OK);
    sizes_.erase(hs[i].value);
  }
  CompactionPlan plan;
  ASSERT_EQ(a_.PlanCompaction(CompactionBudget{}, moves_.data(), 256, &plan), STRATA_OK);
  Copy(plan);
  ASSERT_EQ(a_.CommitCompaction(plan), STRATA_OK);
  for (int i = 0; i < 12; ++i) {
    if (i % 4 == 0) continue;
    BufferInfo info;
    ASSERT_EQ(a_.GetInfo(hs[i], &info), STRATA_OK);
    EXPECT_EQ(info.offset % info.alignment, 0u);
  }
  ExpectContentsIntact();
}

}  // namespace
}  // namespace strata::alloc
