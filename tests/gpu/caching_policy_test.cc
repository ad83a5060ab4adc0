// The PyTorch caching-allocator policies (torch, torch-expandable) against the validation cases of
// docs/gpu-policies.md P7 and the rules of P5-P6, plus a property test over random traces.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>

#include "caching_allocator.h"
#include "emu_gpu.h"
#include "policy.h"

namespace strata::gpu {
namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kGiB = 1ull << 30;

GpuSpec Spec(uint64_t total, uint64_t context = 0) {
  GpuSpec s;
  s.total_bytes = total;
  s.context_bytes = context;
  return s;
}

EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

std::unique_ptr<Policy> Make(const std::string& name, GpuDriver& gpu, std::map<std::string, std::string> options = {},
                             std::map<std::string, std::string> env = {}) {
  PolicyConfig config;
  config.env = Env(std::move(env));
  config.options = std::move(options);
  std::unique_ptr<Policy> p;
  std::string error;
  EXPECT_TRUE(MakePolicy(name, gpu, config, &p, &error)) << error;
  return p;
}

std::string MakeError(const std::string& name, std::map<std::string, std::string> options,
                      std::map<std::string, std::string> env) {
  EmuGpu gpu(Spec(kGiB));
  PolicyConfig config;
  config.env = Env(std::move(env));
  config.options = std::move(options);
  std::unique_ptr<Policy> p;
  std::string error;
  EXPECT_FALSE(MakePolicy(name, gpu, config, &p, &error));
  return error;
}

const CachingAllocator& Cca(const std::unique_ptr<Policy>& p) { return dynamic_cast<const CachingAllocator&>(*p); }

// ------------------------------------------------------------------------------------------------
// round_size / get_allocation_size.

TEST(TorchCaching, RoundSizeAndAllocationSize) {
  CachingConfig c;
  EXPECT_EQ(CachingAllocator::RoundSize(4, c), 512u);
  EXPECT_EQ(CachingAllocator::RoundSize(512, c), 512u);
  EXPECT_EQ(CachingAllocator::RoundSize(513, c), 1024u);
  c.roundup_power2_divisions.fill(4);
  // PyTorch's docs illustrate 1200 -> 1280 with 4 divisions, but round_size() only uses the divisions
  // when size > 512 x divisions (2048 here): 1200 rounds to 1536 in the code.
  EXPECT_EQ(CachingAllocator::RoundSize(1200, c), 1536u);
  EXPECT_EQ(CachingAllocator::RoundSize(kMiB + 1, c), kMiB + kMiB / 4);
  EXPECT_EQ(CachingAllocator::RoundSize(5000, c), 5120u);  // 4096 + 1024
  EXPECT_EQ(CachingAllocator::RoundSize(8192, c), 8192u);  // a power of two stays
  EXPECT_EQ(CachingAllocator::AllocationSize(512), 2 * kMiB);
  EXPECT_EQ(CachingAllocator::AllocationSize(kMiB), 2 * kMiB);
  EXPECT_EQ(CachingAllocator::AllocationSize(kMiB + 512), 20 * kMiB);
  EXPECT_EQ(CachingAllocator::AllocationSize(10 * kMiB), 10 * kMiB);
  EXPECT_EQ(CachingAllocator::AllocationSize(10 * kMiB + 512), 12 * kMiB);
}

// ------------------------------------------------------------------------------------------------
// P7 validation cases.

TEST(TorchCaching, FourBytesTakeA2MiBSmallSegment) {
  EmuGpu gpu(Spec(80 * kGiB, 512 * kMiB));
  auto p = Make("torch", gpu);
  Oom oom;
  const uint64_t a = p->Allocate(4, 0, &oom);
  ASSERT_NE(a, 0u);
  EXPECT_EQ(a % 512, 0u);
  const PolicyStats s = p->Stats();
  EXPECT_EQ(s.pool_bytes, 2 * kMiB);
  EXPECT_EQ(s.bytes_in_use, 512u);
  EXPECT_EQ(s.requested_bytes, 4u);
  EXPECT_EQ(s.segments, 1u);
  EXPECT_EQ(gpu.used_pages(), 1u);
  // The rest of the segment is an inactive split block.
  EXPECT_EQ(s.inactive_split_bytes, 2 * kMiB - 512);
  EXPECT_EQ(s.largest_free_block_bytes, 2 * kMiB - 512);
}

TEST(TorchCaching, SegmentSizesOfTheRealSnapshot) {
  EmuGpu gpu(Spec(80 * kGiB, 512 * kMiB));
  auto p = Make("torch", gpu);
  ASSERT_NE(p->Allocate(2359296, 0, nullptr), 0u);  // 2.25 MiB -> one 20 MiB segment
  EXPECT_EQ(p->Stats().pool_bytes, 20 * kMiB);
  ASSERT_NE(p->Allocate(154389504, 0, nullptr), 0u);  // rounded up to 2 MiB
  EXPECT_EQ(p->Stats().pool_bytes, 20 * kMiB + 155189248);
  EXPECT_EQ(p->Stats().segments, 2u);
  EXPECT_EQ(gpu.counters().device_allocs, 2u);
}

TEST(TorchCaching, FreeThenSameSizeReusesTheBlock) {
  EmuGpu gpu(Spec(80 * kGiB, 512 * kMiB));
  auto p = Make("torch", gpu);
  const uint64_t a = p->Allocate(30 * kMiB, 0, nullptr);
  p->Deallocate(a);
  EXPECT_EQ(p->Stats().bytes_in_use, 0u);
  EXPECT_EQ(p->Stats().pool_bytes, 30 * kMiB);  // nothing goes back to the driver
  const uint64_t b = p->Allocate(30 * kMiB, 0, nullptr);
  EXPECT_EQ(a, b);
  EXPECT_EQ(gpu.counters().device_allocs, 1u);
  EXPECT_EQ(gpu.counters().device_frees, 0u);
}

TEST(TorchCaching, SplitRulesLargeAndSmallPools) {
  EmuGpu gpu(Spec(80 * kGiB, 512 * kMiB));
  auto p = Make("torch", gpu);
  // Large pool: 12 MiB segment; an 11.5 MiB request leaves 0.5 MiB: not > 1 MiB, so no split.
  const uint64_t a = p->Allocate(12 * kMiB, 0, nullptr);
  p->Deallocate(a);
  const uint64_t b = p->Allocate(11 * kMiB + kMiB / 2, 0, nullptr);
  EXPECT_EQ(a, b);
  EXPECT_EQ(p->Stats().bytes_in_use, 12 * kMiB);  // the whole unsplit block counts
  EXPECT_EQ(p->Stats().inactive_split_bytes, 0u);
  p->Deallocate(b);
  // 10 MiB from the cached 12 MiB block leaves 2 MiB > 1 MiB: split.
  const uint64_t c = p->Allocate(10 * kMiB, 0, nullptr);
  EXPECT_EQ(c, a);
  EXPECT_EQ(p->Stats().bytes_in_use, 10 * kMiB);
  EXPECT_EQ(p->Stats().inactive_split_bytes, 2 * kMiB);
  // Freeing merges the split back into one block.
  p->Deallocate(c);
  EXPECT_EQ(p->Stats().inactive_split_bytes, 0u);
  EXPECT_EQ(p->Stats().largest_free_block_bytes, 12 * kMiB);
  EXPECT_EQ(Cca(p).Blocks().size(), 1u);
}

TEST(TorchCaching, MaxSplitSizeOversizeRules) {
  EmuGpu gpu(Spec(80 * kGiB, 512 * kMiB));
  auto p = Make("torch", gpu, {{"alloc_conf", "max_split_size_mb:100"}});
  const uint64_t big = p->Allocate(200 * kMiB, 0, nullptr);
  p->Deallocate(big);
  // A request below max_split_size may not take a block >= max_split_size: a new segment.
  const uint64_t small = p->Allocate(50 * kMiB, 0, nullptr);
  EXPECT_NE(small, big);
  EXPECT_EQ(p->Stats().pool_bytes, 250 * kMiB);
  // A request >= max_split_size may take a block < request + 20 MiB, unsplit.
  const uint64_t c = p->Allocate(190 * kMiB, 0, nullptr);
  EXPECT_EQ(c, big);
  EXPECT_EQ(p->Stats().bytes_in_use, 250 * kMiB);
  EXPECT_EQ(Cca(p).torch_counters().oversize_allocations, 1u);
  EXPECT_EQ(Cca(p).torch_counters().oversize_segments, 1u);
  p->Deallocate(c);
  // ... but not a block >= request + 20 MiB.
  const uint64_t d = p->Allocate(150 * kMiB, 0, nullptr);
  EXPECT_NE(d, big);
  EXPECT_EQ(p->Stats().pool_bytes, 400 * kMiB);
}

TEST(TorchCaching, ReleaseAvailableCachedBlocksFreesOversizeBlocksFirst) {
  EmuGpu gpu(Spec(kGiB));
  auto p = Make("torch", gpu, {{"max_split_size_mb", "100"}});
  const uint64_t a = p->Allocate(300 * kMiB, 0, nullptr);
  const uint64_t b = p->Allocate(300 * kMiB, 0, nullptr);
  p->Deallocate(a);
  p->Deallocate(b);
  // 500 MiB: no cached block fits, cudaMalloc fails (424 MiB free), two oversize blocks are released
  // (largest first) and the second cudaMalloc succeeds: no sync-all, no retry counted.
  Oom oom;
  ASSERT_NE(p->Allocate(500 * kMiB, 0, &oom), 0u) << oom.message;
  const auto& t = Cca(p).torch_counters();
  EXPECT_EQ(t.num_sync_all_streams, 0u);
  EXPECT_EQ(t.num_alloc_retries, 0u);
  EXPECT_EQ(gpu.counters().failed_device_allocs, 1u);
  EXPECT_EQ(gpu.counters().device_frees, 2u);
  EXPECT_EQ(p->Stats().pool_bytes, 500 * kMiB);
}

TEST(TorchCaching, OomPathOrderAndCounters) {
  EmuGpu gpu(Spec(kGiB));
  auto p = Make("torch", gpu);
  const uint64_t a = p->Allocate(300 * kMiB, 0, nullptr);
  p->Deallocate(a);
  // 800 MiB: miss, cudaMalloc fails, no max_split (release_available does nothing), release_cached_blocks
  // (sync all + cudaFree of the cached 300 MiB), retried cudaMalloc succeeds.
  Oom oom;
  const uint64_t b = p->Allocate(800 * kMiB, 0, &oom);
  ASSERT_NE(b, 0u);
  const auto& t = Cca(p).torch_counters();
  EXPECT_EQ(t.num_sync_all_streams, 1u);
  EXPECT_EQ(t.num_alloc_retries, 1u);
  EXPECT_EQ(t.num_ooms, 0u);
  EXPECT_EQ(gpu.counters().device_frees, 1u);
  EXPECT_EQ(gpu.counters().failed_device_allocs, 1u);
  EXPECT_EQ(p->Stats().num_alloc_retries, 1u);
  // 300 MiB more cannot fit: the same chain ends in an OOM (capacity: live + request > device).
  EXPECT_EQ(p->Allocate(300 * kMiB, 0, &oom), 0u);
  EXPECT_EQ(t.num_ooms, 1u);
  EXPECT_EQ(t.num_alloc_retries, 2u);
  EXPECT_EQ(t.num_sync_all_streams, 2u);
  EXPECT_EQ(oom.kind, OomKind::kCapacity);
  EXPECT_EQ(p->Stats().oom_capacity, 1u);
  EXPECT_EQ(p->Stats().num_failed_allocs, 1u);
  EXPECT_EQ(oom.rounded_bytes, 300 * kMiB);
  EXPECT_EQ(oom.message,
            // format_size() prints 1 GiB as "1024.00 MiB" (GiB only above 1 GiB).
            "CUDA out of memory. Tried to allocate 300.00 MiB. GPU 0 has a total capacity of 1024.00 MiB of which "
            "224.00 MiB is free. Including non-PyTorch memory, this process has 800.00 MiB memory in use. Of the "
            "allocated memory 800.00 MiB is allocated by PyTorch, and 0 bytes is reserved by PyTorch but "
            "unallocated. If reserved but unallocated memory is large try setting "
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for "
            "Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)");
}

TEST(TorchCaching, FragmentationOomFromASplitSegment) {
  EmuGpu gpu(Spec(kGiB));
  auto p = Make("torch", gpu);
  const uint64_t a = p->Allocate(400 * kMiB, 0, nullptr);
  ASSERT_NE(p->Allocate(400 * kMiB, 0, nullptr), 0u);
  p->Deallocate(a);
  ASSERT_EQ(p->Allocate(100 * kMiB, 0, nullptr), a);  // splits the cached 400 MiB block: 300 MiB stay free
  Oom oom;
  // 500 MiB: live 500 + 500 fits in the 1 GiB device, but the 300 MiB free block is part of a split
  // segment that release_cached_blocks cannot free, and the device has only 224 MiB.
  EXPECT_EQ(p->Allocate(500 * kMiB, 0, &oom), 0u);
  EXPECT_EQ(oom.kind, OomKind::kFragmentation);
  EXPECT_EQ(oom.largest_free_block_bytes, 300 * kMiB);
  EXPECT_NE(oom.message.find("and 300.00 MiB is reserved by PyTorch but unallocated."), std::string::npos);
  EXPECT_EQ(p->Stats().oom_fragmentation, 1u);
}

TEST(TorchCaching, MemoryFractionCapIsCheckedBeforeCudaMalloc) {
  EmuGpu gpu(Spec(80 * kGiB, 512 * kMiB));
  auto p = Make("torch", gpu, {{"memory_fraction", "0.5"}});
  EXPECT_EQ(p->Stats().bytes_limit, 40 * kGiB);
  ASSERT_NE(p->Allocate(30 * kGiB, 0, nullptr), 0u);
  Oom oom;
  EXPECT_EQ(p->Allocate(20 * kGiB, 0, &oom), 0u);
  EXPECT_EQ(oom.kind, OomKind::kCap);
  EXPECT_STREQ(OomKindName(oom.kind), "cap");
  EXPECT_EQ(oom.limit_bytes, 40 * kGiB);
  EXPECT_EQ(gpu.counters().failed_device_allocs, 0u);  // the cap refused before any cudaMalloc
  EXPECT_NE(oom.message.find("40.00 GiB allowed; Of the allocated memory 30.00 GiB"), std::string::npos);
  EXPECT_EQ(Cca(p).torch_counters().num_alloc_retries, 1u);
}

TEST(TorchCaching, GarbageCollectionFreesAgedBlocksWithoutSync) {
  EmuGpu gpu(Spec(kGiB));
  // allowed = 512 MiB, GC above 0.5 x 512 = 256 MiB reserved.
  auto p = Make("torch", gpu, {{"memory_fraction", "0.5"}, {"garbage_collection_threshold", "0.5"}});
  const uint64_t x = p->Allocate(100 * kMiB, 0, nullptr);
  const uint64_t y = p->Allocate(100 * kMiB, 0, nullptr);
  const uint64_t z = p->Allocate(100 * kMiB, 0, nullptr);
  p->Deallocate(x);
  p->Deallocate(y);
  p->Deallocate(z);
  EXPECT_EQ(p->Stats().pool_bytes, 300 * kMiB);
  // A miss: 300 MiB > 256 MiB -> every non-split block of at least the average age goes, no sync.
  ASSERT_NE(p->Allocate(150 * kMiB, 0, nullptr), 0u);
  EXPECT_EQ(p->Stats().pool_bytes, 150 * kMiB);
  EXPECT_EQ(gpu.counters().device_frees, 3u);
  EXPECT_EQ(Cca(p).torch_counters().num_sync_all_streams, 0u);
  // Without a fraction the threshold is inert (set_fraction is false).
  EmuGpu gpu2(Spec(kGiB));
  auto q = Make("torch", gpu2, {{"garbage_collection_threshold", "0.5"}});
  for (int i = 0; i < 3; ++i) q->Deallocate(q->Allocate(100 * kMiB + i * 2 * kMiB, 0, nullptr));
  ASSERT_NE(q->Allocate(150 * kMiB, 0, nullptr), 0u);
  EXPECT_EQ(gpu2.counters().device_frees, 0u);
}

TEST(TorchCaching, EmptyCacheFreesOnlyWholeSegments) {
  EmuGpu gpu(Spec(kGiB));
  auto p = Make("torch", gpu);
  const uint64_t a = p->Allocate(4, 0, nullptr);          // small segment, kept live
  const uint64_t b = p->Allocate(40 * kMiB, 0, nullptr);  // large segment, freed
  p->Deallocate(b);
  p->ReleaseCache();
  EXPECT_EQ(p->Stats().pool_bytes, 2 * kMiB);
  EXPECT_EQ(gpu.used_pages(), 1u);
  EXPECT_EQ(Cca(p).torch_counters().num_sync_all_streams, 1u);
  p->Deallocate(a);
  p->ReleaseCache();
  EXPECT_EQ(p->Stats().pool_bytes, 0u);
  EXPECT_EQ(gpu.used_pages(), 0u);
  EXPECT_EQ(p->Stats().segments, 0u);
}

TEST(TorchCaching, AlignmentAbove512IsHonoured) {
  EmuGpu gpu(Spec(kGiB));
  auto p = Make("torch", gpu);
  p->Allocate(1000, 0, nullptr);
  const uint64_t a = p->Allocate(1000, 4096, nullptr);
  EXPECT_EQ(a % 4096, 0u);
  EXPECT_TRUE(gpu.Write(a + 999, "x", 1));
  EXPECT_EQ(p->Stats().requested_bytes, 2000u);
  p->Deallocate(a);
  EXPECT_EQ(p->Stats().requested_bytes, 1000u);
}

// ------------------------------------------------------------------------------------------------
// Expandable segments (P6).

TEST(TorchExpandable, LargeGrowsIn20MiBStepsSmallIn2MiB) {
  EmuGpu gpu(Spec(80 * kGiB, 512 * kMiB));
  auto p = Make("torch-expandable", gpu);
  EXPECT_STREQ(p->name(), "torch-expandable");
  std::vector<uint64_t> large;
  for (int i = 1; i <= 5; ++i) {
    large.push_back(p->Allocate(10 * kMiB, 0, nullptr));
    ASSERT_NE(large.back(), 0u);
    // Two 10 MiB blocks per 20 MiB page: reserved 20, 20, 40, 40, 60 MiB.
    EXPECT_EQ(p->Stats().pool_bytes, ((i + 1) / 2) * 20 * kMiB) << i;
  }
  // Contiguous in one segment, lowest address first.
  for (size_t i = 1; i < large.size(); ++i) EXPECT_EQ(large[i], large[i - 1] + 10 * kMiB);
  const uint64_t before = p->Stats().pool_bytes;
  const uint64_t s1 = p->Allocate(4, 0, nullptr);
  EXPECT_EQ(p->Stats().pool_bytes, before + 2 * kMiB);
  p->Allocate(kMiB, 0, nullptr);
  EXPECT_EQ(p->Stats().pool_bytes, before + 2 * kMiB);
  p->Allocate(kMiB, 0, nullptr);  // 512 + 2 MiB > one page
  EXPECT_EQ(p->Stats().pool_bytes, before + 4 * kMiB);
  EXPECT_NE(s1, 0u);
  EXPECT_EQ(p->Stats().segments, 2u);              // one per pool kind
  EXPECT_EQ(p->Stats().inactive_split_bytes, 0u);  // excludes expandable blocks
  // A 25 MiB request maps two more 20 MiB pages (the tail of the third page is used first).
  const uint64_t r0 = p->Stats().pool_bytes;
  p->Allocate(25 * kMiB, 0, nullptr);
  EXPECT_EQ(p->Stats().pool_bytes, r0 + 20 * kMiB);  // 10 MiB left on page 3 + one new page
}

TEST(TorchExpandable, EnvSelectsExpandableForTorch) {
  EmuGpu gpu(Spec(80 * kGiB, 512 * kMiB));
  auto p = Make("torch", gpu, {}, {{"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"}});
  EXPECT_STREQ(p->name(), "torch-expandable");
  p->Allocate(4, 0, nullptr);
  p->Allocate(3 * kMiB, 0, nullptr);
  EXPECT_EQ(p->Stats().pool_bytes, 2 * kMiB + 20 * kMiB);
}

TEST(TorchExpandable, RetryPathUnmapsFreePages) {
  EmuGpu gpu(Spec(kGiB));
  auto p = Make("torch-expandable", gpu);
  std::vector<uint64_t> small;
  for (int i = 0; i < 200; ++i) small.push_back(p->Allocate(kMiB, 0, nullptr));
  EXPECT_EQ(p->Stats().pool_bytes, 200 * kMiB);
  for (uint64_t a : small) p->Deallocate(a);
  EXPECT_EQ(p->Stats().pool_bytes, 200 * kMiB);  // freed pages stay mapped
  // 900 MiB: 824 MiB are free on the device; the map fails, release_cached_blocks unmaps the small
  // pool's free pages (and releases that segment), the retry maps 45 pages of 20 MiB.
  Oom oom;
  const uint64_t big = p->Allocate(900 * kMiB, 0, &oom);
  ASSERT_NE(big, 0u) << oom.message;
  EXPECT_EQ(p->Stats().pool_bytes, 900 * kMiB);
  EXPECT_EQ(Cca(p).torch_counters().num_alloc_retries, 1u);
  EXPECT_EQ(Cca(p).torch_counters().num_sync_all_streams, 1u);
  EXPECT_EQ(p->Stats().segments, 1u);
  EXPECT_GE(gpu.counters().stream_syncs, 1u);  // unmapHandles synchronises the stream
  EXPECT_EQ(gpu.used_pages() * gpu.page_bytes(), 900 * kMiB);
  // Free + empty_cache: only whole pages go back; none stays mapped.
  p->Deallocate(big);
  p->ReleaseCache();
  EXPECT_EQ(p->Stats().pool_bytes, 0u);
  EXPECT_EQ(gpu.used_pages(), 0u);
  EXPECT_EQ(p->Stats().segments, 0u);
}

TEST(TorchExpandable, PartialPagesStayMapped) {
  EmuGpu gpu(Spec(kGiB));
  auto p = Make("torch-expandable", gpu);
  const uint64_t a = p->Allocate(30 * kMiB, 0, nullptr);  // pages 0-1 (40 MiB)
  const uint64_t b = p->Allocate(20 * kMiB, 0, nullptr);  // 30..50 MiB: page 2 mapped too
  EXPECT_EQ(p->Stats().pool_bytes, 60 * kMiB);
  p->Deallocate(a);
  p->ReleaseCache();
  // Free block [0, 30 MiB): page 0 unmapped, page 1 (20-40 MiB) still holds b's first 10 MiB.
  EXPECT_EQ(p->Stats().pool_bytes, 40 * kMiB);
  p->Deallocate(b);
  p->ReleaseCache();
  EXPECT_EQ(p->Stats().pool_bytes, 0u);
}

// ------------------------------------------------------------------------------------------------
// Settings: PYTORCH_CUDA_ALLOC_CONF grammar, options, errors naming the variable.

TEST(TorchConf, ParsesEveryKey) {
  EmuGpu gpu(Spec(kGiB));
  auto p = Make("torch", gpu, {},
                {{"PYTORCH_CUDA_ALLOC_CONF",
                  "max_split_size_mb:128, garbage_collection_threshold:0.6,roundup_power2_divisions:[256:1,512:2,"
                  ">:8],backend:native,release_lock_on_cudamalloc:True,max_non_split_rounding_mb:64"}});
  const CachingConfig& c = Cca(p).config();
  EXPECT_EQ(c.max_split_size, 128 * kMiB);
  EXPECT_DOUBLE_EQ(c.garbage_collection_threshold, 0.6);
  EXPECT_EQ(c.max_non_split_rounding, 64 * kMiB);
  for (size_t i = 0; i <= 8; ++i) EXPECT_EQ(c.roundup_power2_divisions[i], 1u) << i;
  EXPECT_EQ(c.roundup_power2_divisions[9], 2u);
  for (size_t i = 10; i < kTorchRoundUpIntervals; ++i) EXPECT_EQ(c.roundup_power2_divisions[i], 8u) << i;
  EXPECT_FALSE(c.expandable_segments);
  EXPECT_STREQ(p->name(), "torch");

  auto q = Make("torch", gpu, {}, {{"PYTORCH_CUDA_ALLOC_CONF", "roundup_power2_divisions:4"}});
  for (uint64_t d : Cca(q).config().roundup_power2_divisions) EXPECT_EQ(d, 4u);
  auto r = Make("torch", gpu, {}, {{"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:False"}});
  EXPECT_STREQ(r->name(), "torch");
}

TEST(TorchConf, OptionsOverrideTheEnvironment) {
  EmuGpu gpu(Spec(kGiB));
  const std::map<std::string, std::string> env = {{"PYTORCH_CUDA_ALLOC_CONF", "max_split_size_mb:100"}};
  auto p = Make("torch", gpu, {{"max_split_size_mb", "200"}}, env);
  EXPECT_EQ(Cca(p).config().max_split_size, 200 * kMiB);
  auto q = Make("torch", gpu, {{"alloc_conf", "expandable_segments:True"}}, env);
  EXPECT_STREQ(q->name(), "torch-expandable");
  EXPECT_EQ(Cca(q).config().max_split_size, 100 * kMiB);  // layered on top, as _set_allocator_settings
  auto r = Make("torch", gpu, {{"expandable_segments", "True"}});
  EXPECT_STREQ(r->name(), "torch-expandable");
  auto s = Make("torch-expandable", gpu, {}, {{"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:False"}});
  EXPECT_STREQ(s->name(), "torch-expandable");  // the policy name decides
}

// torch_version: the three rules that changed when PyTorch 2.9 moved the shared keys to
// c10/core/AllocatorConfig.cpp (docs/gpu-policies.md), each outcome under both versions.
TEST(TorchConf, TorchVersionRules) {
  const std::string var = "PYTORCH_CUDA_ALLOC_CONF";
  // max_split_size_mb / max_non_split_rounding_mb of exactly 20: accepted from 2.9, refused up to 2.8.
  for (const char* key : {"max_split_size_mb", "max_non_split_rounding_mb"}) {
    EmuGpu gpu(Spec(kGiB));
    auto p = Make("torch", gpu, {}, {{var, std::string(key) + ":20"}});
    ASSERT_NE(p, nullptr) << key;
    EXPECT_EQ(std::string(key) == "max_split_size_mb" ? Cca(p).config().max_split_size
                                                      : Cca(p).config().max_non_split_rounding,
              20 * kMiB);
    EXPECT_NE(MakeError("torch", {{"torch_version", "2.8"}}, {{var, std::string(key) + ":20"}})
                  .find(std::string(key) + " too small, must be > 20"),
              std::string::npos)
        << key;
    EXPECT_NE(MakeError("torch", {}, {{var, std::string(key) + ":19"}}).find("must be >= 20"), std::string::npos);
  }
  // garbage_collection_threshold out of (0, 1): one message from 2.9, two before.
  EXPECT_NE(MakeError("torch", {{"torch_version", "2.8"}}, {{var, "garbage_collection_threshold:0"}})
                .find("garbage_collect_threshold too small, set it 0.0~1.0"),
            std::string::npos);
  EXPECT_NE(MakeError("torch", {{"torch_version", "2.8"}}, {{var, "garbage_collection_threshold:1"}})
                .find("garbage_collect_threshold too big, set it 0.0~1.0"),
            std::string::npos);
  // ">" after [256:1,512:2]: from 2.9 the 512 MiB interval keeps its 2; up to 2.8 it becomes 8 as well.
  const std::string conf = "roundup_power2_divisions:[256:1,512:2,>:8]";
  for (const char* version : {"2.9", "2.8", "2.0", "1.13", "3.0"}) {
    EmuGpu gpu(Spec(4 * kGiB));
    auto p = Make("torch", gpu, {{"torch_version", version}}, {{var, conf}});
    ASSERT_NE(p, nullptr) << version;
    const bool newer = std::string(version) == "2.9" || std::string(version) == "3.0";
    EXPECT_EQ(Cca(p).config().roundup_power2_divisions[9], newer ? 2u : 8u) << version;
    EXPECT_EQ(Cca(p).config().roundup_power2_divisions[8], 1u) << version;
    EXPECT_EQ(Cca(p).config().roundup_power2_divisions[10], 8u) << version;
    // The outcome: a 600 MiB request in [512 MiB, 1 GiB) rounds to a half (768 MiB) from 2.9, to an eighth
    // (640 MiB) up to 2.8, and the segment reserved follows.
    Oom oom;
    ASSERT_NE(p->Allocate(600 * kMiB, 0, &oom), 0u) << version;
    EXPECT_EQ(p->Stats().bytes_in_use, (newer ? 768 : 640) * kMiB) << version;
    EXPECT_EQ(p->Stats().pool_bytes, (newer ? 768 : 640) * kMiB) << version;
  }
  // Not a release.
  for (const char* bad : {"", "2", "two.nine", "2.x", "1.9", "0.4", "2.9.1", "-2.9"}) {
    EXPECT_NE(MakeError("torch", {{"torch_version", bad}}, {}).find("option torch_version: '"), std::string::npos)
        << bad;
  }
}

TEST(TorchConf, BadValuesNameTheVariable) {
  const std::string var = "PYTORCH_CUDA_ALLOC_CONF";
  struct Case {
    std::string value, expect;
  };
  const Case cases[] = {
      {"foo:1", "PYTORCH_CUDA_ALLOC_CONF: Unrecognized CachingAllocator option: foo"},
      {"max_split_size_mb:19", "max_split_size_mb too small, must be >= 20"},  // torch_version 2.9
      {"max_split_size_mb:abc", "'abc' is not a non-negative integer"},
      {"max_split_size_mb", "Error parsing CachingAllocator settings, expected :"},
      {"max_split_size_mb:", "Error, expecting max_split_size_mb value"},
      {"garbage_collection_threshold:0", "garbage_collect_threshold is invalid, set it in (0.0, 1.0)"},
      {"garbage_collection_threshold:1.5", "garbage_collect_threshold is invalid, set it in (0.0, 1.0)"},
      {"garbage_collection_threshold:x", "'x' is not a number"},
      {"roundup_power2_divisions:3", "the divisions has to be power of 2"},
      {"roundup_power2_divisions:[256:3]", "power of 2 or 0 to disable roundup"},
      {"roundup_power2_divisions:[300:2]", "the intervals have to be power of 2"},
      {"roundup_power2_divisions:[256:2", "expected ]"},
      {"expandable_segments:true", "Expected a single True/False argument for expandable_segments"},
      {"expandable_segments:True;x", "Expected a single True/False argument for expandable_segments"},
      {"expandable_segments:True max_split_size_mb:100", "Expected a single True/False"},
      {"expandable_segments:True,,", "Unrecognized CachingAllocator option: ,"},
      {"backend:cudaMallocAsync", "backend:cudaMallocAsync"},
      {"backend:foo", "Unknown allocator backend"},
  };
  for (const Case& c : cases) {
    const std::string error = MakeError("torch", {}, {{var, c.value}});
    EXPECT_EQ(error.rfind(var, 0), 0u) << c.value << " -> " << error;
    EXPECT_NE(error.find(c.expect), std::string::npos) << c.value << " -> " << error;
  }
  std::string e = MakeError("torch", {{"max_split_size_mb", "5"}}, {});
  EXPECT_NE(e.find("option max_split_size_mb: CachingAllocator option max_split_size_mb too small"), std::string::npos)
      << e;
  e = MakeError("torch", {{"alloc_conf", "bogus:1"}}, {});
  EXPECT_NE(e.find("option alloc_conf: Unrecognized CachingAllocator option: bogus"), std::string::npos) << e;
  e = MakeError("torch", {{"memory_fraction", "1.5"}}, {});
  EXPECT_NE(e.find("option memory_fraction: invalid fraction:1.5"), std::string::npos) << e;
  e = MakeError("torch", {{"memory_fraction", "half"}}, {});
  EXPECT_NE(e.find("memory_fraction"), std::string::npos) << e;
  e = MakeError("torch-expandable", {{"fraction", "0.5"}}, {});
  EXPECT_NE(e.find("unknown option 'fraction'"), std::string::npos) << e;
  EXPECT_NE(e.find("alloc_conf, memory_fraction, expandable_segments"), std::string::npos) << e;
}

TEST(TorchConf, OptionsAreListed) {
  std::vector<std::string> names;
  for (const PolicyOption& o : PolicyOptions("torch")) names.push_back(o.name);
  EXPECT_NE(std::find(names.begin(), names.end(), "memory_fraction"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "alloc_conf"), names.end());
  EXPECT_EQ(PolicyOptions("torch-expandable").size(), names.size());
}

// ------------------------------------------------------------------------------------------------
// Property test: random traces over >= 20 seeds, invariants after every operation.

struct Live {
  uint64_t bytes;
  uint64_t tag;
};

void CheckInvariants(const CachingAllocator& a, const EmuGpu& gpu, const std::map<uint64_t, Live>& live,
                     const std::string& where) {
  SCOPED_TRACE(where);
  const auto blocks = a.Blocks();
  const auto ranges = a.MappedRanges();
  const PolicyStats s = a.Stats();
  uint64_t in_use = 0, requested = 0, mapped_block_bytes = 0, inactive_split = 0, largest_free = 0;
  uint64_t allocated_count = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const auto& b = blocks[i];
    ASSERT_GT(b.size, 0u);
    ASSERT_EQ(b.ptr % 512, 0u);
    if (i > 0) {
      ASSERT_LE(blocks[i - 1].ptr + blocks[i - 1].size, b.ptr) << "blocks overlap";
    }
    // Mapped blocks lie inside mapped memory; unmapped ones outside it.
    auto r = std::upper_bound(ranges.begin(), ranges.end(), b.ptr,
                              [](uint64_t va, const CachingAllocator::MappedRange& m) { return va < m.va; });
    if (b.mapped) {
      uint64_t cursor = b.ptr;
      ASSERT_NE(r, ranges.begin());
      --r;
      while (cursor < b.ptr + b.size) {
        ASSERT_TRUE(r != ranges.end() && r->va <= cursor && cursor < r->va + r->bytes) << "block not mapped";
        cursor = r->va + r->bytes;
        ++r;
      }
      mapped_block_bytes += b.size;
      for (uint64_t va = b.ptr; va < b.ptr + b.size; va += gpu.page_bytes()) {
        char byte;
        ASSERT_TRUE(gpu.Read(va, &byte, 1));
      }
    } else {
      if (r != ranges.begin()) {
        ASSERT_LE(std::prev(r)->va + std::prev(r)->bytes, b.ptr);
      }
      if (r != ranges.end()) {
        ASSERT_LE(b.ptr + b.size, r->va);
      }
    }
    if (b.allocated) {
      in_use += b.size;
      requested += b.requested;
      ++allocated_count;
    } else if (b.mapped) {
      largest_free = std::max(largest_free, b.size);
      if (b.split && !b.expandable) inactive_split += b.size;
    }
  }
  uint64_t range_bytes = 0;
  for (const auto& m : ranges) range_bytes += m.bytes;
  uint64_t live_requested = 0;
  for (const auto& [ptr, l] : live) live_requested += l.bytes;
  ASSERT_EQ(allocated_count, live.size());
  ASSERT_EQ(s.bytes_in_use, in_use);
  ASSERT_EQ(s.requested_bytes, requested);
  ASSERT_EQ(s.requested_bytes, live_requested);
  ASSERT_EQ(s.pool_bytes, range_bytes);
  ASSERT_EQ(s.pool_bytes, mapped_block_bytes);
  ASSERT_EQ(s.pool_bytes, gpu.used_pages() * gpu.page_bytes());  // the only policy on this device
  ASSERT_EQ(s.inactive_split_bytes, inactive_split);
  ASSERT_EQ(s.largest_free_block_bytes, largest_free);
  ASSERT_LE(s.bytes_in_use, s.pool_bytes);
  ASSERT_GE(s.peak_pool_bytes, s.pool_bytes);
  ASSERT_GE(s.peak_bytes_in_use, s.bytes_in_use);
  ASSERT_GE(s.fragmentation, 0.0);
  ASSERT_LE(s.fragmentation, 1.0);
}

// Returns how many allocations failed (the traces are meant to reach the OOM path).
void RunRandomTrace(const std::string& name, std::map<std::string, std::string> options, uint32_t seed, int* ooms) {
  SCOPED_TRACE(name + " seed " + std::to_string(seed));
  EmuGpu gpu(Spec(160 * kMiB));
  auto p = Make(name, gpu, std::move(options));
  const auto& a = Cca(p);
  std::mt19937_64 rng(seed);
  std::map<uint64_t, Live> live;
  auto random_size = [&]() -> uint64_t {
    switch (rng() % 4) {
      case 0:
        return 1 + rng() % 4096;  // tiny
      case 1:
        return 1 + rng() % (kMiB + 4096);  // around the small/large boundary
      case 2:
        return kMiB + rng() % (12 * kMiB);  // 20 MiB segments
      default:
        return 10 * kMiB + rng() % (40 * kMiB);
    }
  };
  uint64_t tag = seed * 1000003ull;
  for (int op = 0; op < 400; ++op) {
    const uint64_t r = rng() % 100;
    if (r < 55 || live.empty()) {
      const uint64_t bytes = random_size();
      const uint64_t align = rng() % 8 == 0 ? 4096 : 0;
      Oom oom;
      const PolicyStats before = p->Stats();
      const uint64_t ptr = p->Allocate(bytes, align, &oom);
      if (ptr == 0) {
        ++*ooms;
        EXPECT_NE(oom.kind, OomKind::kNone);
        ASSERT_FALSE(oom.message.empty());
        ASSERT_EQ(oom.message.rfind("CUDA out of memory. Tried to allocate ", 0), 0u);
        ASSERT_EQ(p->Stats().num_failed_allocs, before.num_failed_allocs + 1);
        const bool capacity = oom.live_bytes + oom.rounded_bytes > oom.device_free_bytes + oom.reserved_bytes;
        ASSERT_EQ(oom.kind == OomKind::kCapacity, capacity);
      } else {
        ASSERT_EQ(live.count(ptr), 0u);
        if (align != 0) {
          ASSERT_EQ(ptr % align, 0u);
        }
        ++tag;
        // Tags at both ends: an overlap with another live allocation would overwrite one.
        ASSERT_TRUE(gpu.Write(ptr, &tag, std::min<uint64_t>(8, bytes)));
        if (bytes >= 16) {
          ASSERT_TRUE(gpu.Write(ptr + bytes - 8, &tag, 8));
        }
        live[ptr] = {bytes, tag};
      }
    } else if (r < 97) {
      auto it = live.begin();
      std::advance(it, static_cast<long>(rng() % live.size()));
      const uint64_t n = std::min<uint64_t>(8, it->second.bytes);
      uint64_t head = 0, tail = it->second.tag;
      ASSERT_TRUE(gpu.Read(it->first, &head, n));
      if (it->second.bytes >= 16) {
        ASSERT_TRUE(gpu.Read(it->first + it->second.bytes - 8, &tail, 8));
      }
      ASSERT_EQ(std::memcmp(&head, &it->second.tag, n), 0)
          << "head tag overwritten: ptr " << it->first << " bytes " << it->second.bytes << " tag " << it->second.tag
          << " head " << head << " op " << op;
      ASSERT_EQ(tail, it->second.tag) << "tail tag overwritten";
      p->Deallocate(it->first);
      live.erase(it);
    } else {
      p->ReleaseCache();
    }
    CheckInvariants(a, gpu, live, "op " + std::to_string(op));
    if (::testing::Test::HasFatalFailure()) return;
  }
  for (const auto& [ptr, l] : live) p->Deallocate(ptr);
  live.clear();
  p->ReleaseCache();
  CheckInvariants(a, gpu, live, "end");
  EXPECT_EQ(p->Stats().pool_bytes, 0u);
  EXPECT_EQ(gpu.used_pages(), 0u);
}

TEST(TorchCachingProperty, RandomTracesKeepInvariants) {
  int ooms = 0;
  for (uint32_t seed = 1; seed <= 24; ++seed) {
    RunRandomTrace("torch", {}, seed, &ooms);
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(ooms, 0);
}

TEST(TorchCachingProperty, RandomTracesWithMaxSplitAndGc) {
  int ooms = 0;
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    RunRandomTrace("torch",
                   {{"max_split_size_mb", "24"},
                    {"memory_fraction", "0.9"},
                    {"garbage_collection_threshold", "0.5"},
                    {"roundup_power2_divisions", "[1:4,>:2]"}},
                   seed, &ooms);
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(ooms, 0);
}

TEST(TorchExpandableProperty, RandomTracesKeepInvariants) {
  int ooms = 0;
  for (uint32_t seed = 1; seed <= 24; ++seed) {
    RunRandomTrace("torch-expandable", {}, seed, &ooms);
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(ooms, 0);
}

}  // namespace
}  // namespace strata::gpu
