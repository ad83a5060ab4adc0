// BfcAllocator against the BFC's rules (docs/gpu-policies.md, "The BFC's rules, by source") and cases TF's own
// bfc_allocator_test.cc checks.
#include "bfc_allocator.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "emu_gpu.h"

namespace strata::gpu {
namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kGiB = 1ull << 30;

GpuSpec Device(uint64_t total) {
  GpuSpec s;
  s.total_bytes = total;
  s.context_bytes = 0;
  return s;
}

void ExpectSane(const BfcAllocator& a) {
  std::string why;
  EXPECT_TRUE(a.CheckInvariants(&why)) << why;
}

TEST(BfcAllocator, BinsAndRounding) {
  EXPECT_EQ(BfcAllocator::RoundedBytes(1), 256u);
  EXPECT_EQ(BfcAllocator::RoundedBytes(256), 256u);
  EXPECT_EQ(BfcAllocator::RoundedBytes(257), 512u);
  EXPECT_EQ(BfcAllocator::BinNumForSize(1), 0);
  EXPECT_EQ(BfcAllocator::BinNumForSize(511), 0);
  EXPECT_EQ(BfcAllocator::BinNumForSize(512), 1);
  EXPECT_EQ(BfcAllocator::BinNumForSize(1023), 1);
  EXPECT_EQ(BfcAllocator::BinNumForSize(1024), 2);
  EXPECT_EQ(BfcAllocator::BinNumForSize(256 * kMiB - 1), 19);
  EXPECT_EQ(BfcAllocator::BinNumForSize(256 * kMiB), 20);
  EXPECT_EQ(BfcAllocator::BinNumForSize(64 * kGiB), 20);  // the last bin takes everything above
  for (int b = 0; b < BfcAllocator::kNumBins; ++b) {
    EXPECT_EQ(BfcAllocator::BinNumForSize(BfcAllocator::BinNumToSize(b)), b);
    EXPECT_EQ(BfcAllocator::BinNumForSize(BfcAllocator::BinNumToSize(b) * 2 - 1), b);
  }
  EXPECT_EQ(HumanReadableNumBytes(1023), "1023B");
  EXPECT_EQ(HumanReadableNumBytes(1536), "1.5KiB");
  EXPECT_EQ(HumanReadableNumBytes(800 * kMiB), "800.00MiB");
  EXPECT_EQ(HumanReadableNumBytes(kGiB), "1.00GiB");
}

// Growth (rule 3): "BFC growth: 1 KiB request -> pool_bytes = 2 MiB; then a 3 MiB request -> second region 4 MiB".
TEST(BfcAllocator, GrowthRegionsDouble) {
  EmuGpu gpu(Device(kGiB));
  BfcAllocator a(gpu, 512 * kMiB, "GPU_0_bfc", BfcOptions{});
  EXPECT_EQ(a.GetStats().pool_bytes, 0u);  // nothing until the first allocation
  ASSERT_NE(a.AllocateRaw(0, 1024), 0u);
  EXPECT_EQ(a.GetStats().pool_bytes, 2 * kMiB);
  EXPECT_EQ(a.GetStats().bytes_in_use, 1024u);
  ASSERT_NE(a.AllocateRaw(0, 3 * kMiB), 0u);
  ASSERT_EQ(a.Regions().size(), 2u);
  EXPECT_EQ(a.Regions()[1].size, 4 * kMiB);
  EXPECT_EQ(a.GetStats().pool_bytes, 6 * kMiB);
  EXPECT_EQ(a.curr_region_allocation_bytes(), 8 * kMiB);  // doubled after an extend that did not need it
  // A request above the region size doubles until it fits, and then does not double again.
  ASSERT_NE(a.AllocateRaw(0, 20 * kMiB), 0u);
  EXPECT_EQ(a.Regions().back().size, 32 * kMiB);
  EXPECT_EQ(a.curr_region_allocation_bytes(), 32 * kMiB);
  EXPECT_EQ(gpu.counters().device_allocs, 3u);
  ExpectSane(a);
}

TEST(BfcAllocator, FixedModeTakesTheWholeLimitOnTheFirstAllocation) {
  EmuGpu gpu(Device(kGiB));
  BfcOptions o;
  o.allow_growth = false;
  BfcAllocator a(gpu, 750 * kMiB, "GPU_0_bfc", o);
  EXPECT_EQ(gpu.counters().device_allocs, 0u);
  ASSERT_NE(a.AllocateRaw(0, 1), 0u);
  EXPECT_EQ(a.GetStats().pool_bytes, 750 * kMiB);
  EXPECT_EQ(a.GetStats().bytes_in_use, 256u);  // the chunk, not the request
  EXPECT_EQ(a.GetStats().requested_bytes, 1u);
  EXPECT_EQ(a.Regions().size(), 1u);
  // Beyond limit - in_use: fails at once (Extend's available check), although the device has room.
  EXPECT_EQ(a.AllocateRaw(0, 750 * kMiB), 0u);
  EXPECT_EQ(gpu.counters().device_allocs, 1u);
  EXPECT_EQ(a.retries(), 1u);  // one extra attempt, counted
  EXPECT_EQ(gpu.counters().retries, 1u);
  ExpectSane(a);
}

TEST(BfcAllocator, SplitRuleTwiceOrThreshold) {
  EmuGpu gpu(Device(2 * kGiB));
  BfcOptions o;
  o.allow_growth = false;
  BfcAllocator a(gpu, 256 * kMiB, "GPU_0_bfc", o);
  uint64_t p = a.AllocateRaw(0, 100 * kMiB);  // 256 >= 2 x 100: split
  ASSERT_NE(p, 0u);
  EXPECT_EQ(a.GetStats().bytes_in_use, 100 * kMiB);
  ASSERT_TRUE(a.DeallocateRaw(p));
  p = a.AllocateRaw(0, 150 * kMiB);  // 256 < 300 and 106 MiB waste < 128 MiB: the whole chunk
  ASSERT_NE(p, 0u);
  EXPECT_EQ(a.GetStats().bytes_in_use, 256 * kMiB);
  EXPECT_EQ(a.AllocatedSize(p), 256 * kMiB);
  EXPECT_EQ(a.RequestedSize(p), 150 * kMiB);
  EXPECT_EQ(a.GetStats().largest_alloc_size, 256 * kMiB);

  BfcAllocator b(gpu, 512 * kMiB, "GPU_1_bfc", o);
  ASSERT_NE(b.AllocateRaw(0, 300 * kMiB), 0u);  // 512 < 600 but 212 MiB waste >= 128 MiB: split
  EXPECT_EQ(b.GetStats().bytes_in_use, 300 * kMiB);
  EXPECT_EQ(b.GetStats().largest_free_block_bytes, 212 * kMiB);

  BfcOptions f = o;
  f.fragmentation_fraction = 0.5;  // threshold = 0.5 x limit = 256 MiB
  BfcAllocator c(gpu, 512 * kMiB, "GPU_2_bfc", f);
  ASSERT_NE(c.AllocateRaw(0, 300 * kMiB), 0u);
  EXPECT_EQ(c.GetStats().bytes_in_use, 512 * kMiB);
  ExpectSane(a);
  ExpectSane(b);
  ExpectSane(c);
}

TEST(BfcAllocator, BestFitBySizeThenAddressAndCoalescing) {
  EmuGpu gpu(Device(kGiB));
  BfcOptions o;
  o.allow_growth = false;
  BfcAllocator a(gpu, 64 * kMiB, "GPU_0_bfc", o);
  std::vector<uint64_t> p;
  for (uint64_t s : {4, 1, 4, 1, 2, 1}) p.push_back(a.AllocateRaw(0, s * kMiB));
  for (uint64_t x : p) ASSERT_NE(x, 0u);
  const uint64_t base = a.Regions()[0].ptr;
  EXPECT_EQ(p[0], base);
  EXPECT_EQ(p[1], base + 4 * kMiB);
  // Free the 4 MiB at p[2] and the 2 MiB at p[4]: a 2 MiB request takes the smaller fitting chunk.
  ASSERT_TRUE(a.DeallocateRaw(p[2]));
  ASSERT_TRUE(a.DeallocateRaw(p[4]));
  EXPECT_EQ(a.AllocateRaw(0, 2 * kMiB), p[4]);
  // Two equal free chunks: the lower address wins.
  ASSERT_TRUE(a.DeallocateRaw(p[0]));
  EXPECT_EQ(a.AllocateRaw(0, 4 * kMiB), p[0]);
  // Freeing neighbours merges them: p[1] (1 MiB) between free p[2] and an in-use p[0].
  ASSERT_TRUE(a.DeallocateRaw(p[1]));
  ASSERT_TRUE(a.DeallocateRaw(p[3]));  // p[1] + p[2] + p[3] = 6 MiB in one chunk
  bool found = false;
  for (const BfcChunkInfo& c : a.Chunks()) found = found || (c.ptr == p[1] && c.size == 6 * kMiB && !c.in_use);
  EXPECT_TRUE(found);
  EXPECT_FALSE(a.DeallocateRaw(p[1]));        // not live any more
  EXPECT_FALSE(a.DeallocateRaw(p[1] + 256));  // never an allocation
  ExpectSane(a);
}

// Regions are never merged, even when the driver returns adjacent virtual ranges.
TEST(BfcAllocator, RegionsNeverMerge) {
  EmuGpu gpu(Device(kGiB));
  BfcAllocator a(gpu, 6 * kMiB, "GPU_0_bfc", BfcOptions{});
  const uint64_t x = a.AllocateRaw(0, 2 * kMiB);
  const uint64_t y = a.AllocateRaw(0, 4 * kMiB);
  ASSERT_NE(x, 0u);
  ASSERT_NE(y, 0u);
  ASSERT_EQ(a.Regions().size(), 2u);
  EXPECT_EQ(a.Regions()[0].ptr + a.Regions()[0].size, a.Regions()[1].ptr);  // adjacent VAs
  a.DeallocateRaw(x);
  a.DeallocateRaw(y);
  EXPECT_EQ(a.Chunks().size(), 2u);
  EXPECT_EQ(a.GetStats().largest_free_block_bytes, 4 * kMiB);
  EXPECT_DOUBLE_EQ(a.GetFragmentation(), 2.0 / 6.0);
  EXPECT_EQ(a.AllocateRaw(0, 5 * kMiB), 0u);  // 6 MiB free, no 5 MiB chunk, no room to extend, no GC
  ExpectSane(a);
}

TEST(BfcAllocator, LowEndAlignmentPaddingStaysFree) {
  EmuGpu gpu(Device(kGiB));
  BfcAllocator a(gpu, 64 * kMiB, "GPU_0_bfc", BfcOptions{});
  const uint64_t p = a.AllocateRaw(0, 256);
  const uint64_t base = a.Regions()[0].ptr;
  ASSERT_EQ(p, base);
  const uint64_t q = a.AllocateRaw(4096, 1000);
  EXPECT_EQ(q, base + 4096);
  const std::vector<BfcChunkInfo> c = a.Chunks();
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[1].ptr, base + 256);
  EXPECT_EQ(c[1].size, 4096u - 256);
  EXPECT_FALSE(c[1].in_use);
  EXPECT_EQ(c[2].size, 1024u);
  // The padding serves a later small request.
  EXPECT_EQ(a.AllocateRaw(0, 3000), base + 256);
  EXPECT_EQ(BfcAllocator::LowEndAlignmentPadding(base + 256, 256), 0u);
  ExpectSane(a);
}

// Extend's back-pedal: x0.9 (in float, as the source) until the driver can supply it or it drops below the
// request.
TEST(BfcAllocator, BackPedalsWhenTheDeviceIsShort) {
  EmuGpu gpu(Device(100 * kMiB));  // 50 pages of 2 MiB
  BfcOptions o;
  o.allow_growth = false;
  BfcAllocator a(gpu, 200 * kMiB, "GPU_0_bfc", o);
  ASSERT_NE(a.AllocateRaw(0, kMiB), 0u);
  uint64_t bytes = 200 * kMiB;
  uint64_t failures = 0;
  while ((bytes + 2 * kMiB - 1) / (2 * kMiB) > 50) {
    ++failures;
    bytes = BfcAllocator::RoundedBytes(static_cast<uint64_t>(static_cast<float>(bytes) * 0.9f));
  }
  EXPECT_EQ(gpu.counters().failed_device_allocs, failures);
  EXPECT_EQ(failures, 7u);  // 200 -> 180 -> 162 -> 145.8 -> 131.2 -> 118.1 -> 106.3 -> 95.7 MiB
  // pool_bytes counts what the sub-allocator asked for (XLA's DeviceMemAllocator reports num_bytes); the device
  // spends whole pages on it.
  EXPECT_EQ(a.GetStats().pool_bytes, bytes);
  EXPECT_EQ(bytes, 100306688u);  // 95.66 MiB
  EXPECT_EQ(gpu.used_pages() * 2 * kMiB, 96 * kMiB);
  EXPECT_EQ(a.GetStats().bytes_limit, 200 * kMiB);  // the limit stays; only the region shrank

  // Back-pedalling stops once below the request: 120 MiB cannot come from a 100 MiB device.
  EmuGpu small(Device(100 * kMiB));
  BfcAllocator b(small, 200 * kMiB, "GPU_1_bfc", o);
  EXPECT_EQ(b.AllocateRaw(0, 120 * kMiB), 0u);
  EXPECT_EQ(b.GetStats().pool_bytes, 0u);
  ExpectSane(a);
}

// TF's TestRegionDeallocation analogue (rule 4): growth + GC, 128 x 4 MiB, free all but the last, then a request
// only GC can serve.
TEST(BfcAllocator, GarbageCollectionFreesWhollyFreeRegions) {
  for (const bool gc : {true, false}) {
    EmuGpu gpu(Device(4 * kGiB));
    BfcOptions o;
    o.allow_growth = true;
    o.garbage_collection = gc;
    BfcAllocator a(gpu, 2 * kGiB, "GPU_0_bfc", o);
    std::vector<uint64_t> p;
    for (int i = 0; i < 128; ++i) p.push_back(a.AllocateRaw(1, 4 * kMiB));
    for (uint64_t x : p) ASSERT_NE(x, 0u);
    // Regions 4, 4, 8, 16, ..., 256 MiB: 8 regions, 512 MiB.
    ASSERT_EQ(a.Regions().size(), 8u);
    EXPECT_EQ(a.GetStats().pool_bytes, 512 * kMiB);
    for (int i = 0; i < 127; ++i) ASSERT_TRUE(a.DeallocateRaw(p[i]));
    const uint64_t last_region = a.Regions().back().ptr;
    // 1.75 GiB: 1.5 GiB left under the limit, 256 MiB in wholly free regions.
    const uint64_t big = a.AllocateRaw(0, 1792 * kMiB);
    if (gc) {
      ASSERT_NE(big, 0u);
      EXPECT_EQ(a.regions_deallocated(), 7u);
      ASSERT_EQ(a.Regions().size(), 2u);  // of the old regions, only the one holding the live chunk is left
      EXPECT_TRUE(a.Regions()[0].ptr == last_region || a.Regions()[1].ptr == last_region);
      EXPECT_EQ(a.GetStats().pool_bytes, 256 * kMiB + 1792 * kMiB);
      EXPECT_EQ(gpu.counters().device_frees, 7u);
    } else {
      EXPECT_EQ(big, 0u);
      EXPECT_EQ(a.Regions().size(), 8u);
      EXPECT_EQ(gpu.counters().device_frees, 0u);
    }
    ExpectSane(a);
  }
}

TEST(BfcAllocator, StatsAndClearStats) {
  EmuGpu gpu(Device(kGiB));
  BfcOptions o;
  o.allow_growth = false;
  BfcAllocator a(gpu, 64 * kMiB, "GPU_0_bfc", o);
  const uint64_t x = a.AllocateRaw(0, 10 * kMiB);
  const uint64_t y = a.AllocateRaw(0, 10 * kMiB);
  const uint64_t z = a.AllocateRaw(0, 10 * kMiB);
  a.DeallocateRaw(y);
  BfcStats s = a.GetStats();
  EXPECT_EQ(s.num_allocs, 3u);
  EXPECT_EQ(s.bytes_in_use, 20 * kMiB);
  EXPECT_EQ(s.peak_bytes_in_use, 30 * kMiB);
  EXPECT_EQ(s.largest_free_block_bytes, 34 * kMiB);
  // (pool - in_use - largest_free) / (pool - in_use) = (64 - 20 - 34) / 44
  EXPECT_DOUBLE_EQ(a.GetFragmentation(), 10.0 / 44.0);
  a.ClearStats();
  s = a.GetStats();
  EXPECT_EQ(s.num_allocs, 0u);
  EXPECT_EQ(s.peak_bytes_in_use, 20 * kMiB);
  EXPECT_EQ(s.largest_alloc_size, 0u);
  EXPECT_EQ(s.pool_bytes, 64 * kMiB);
  a.DeallocateRaw(x);
  a.DeallocateRaw(z);
  EXPECT_EQ(a.GetFragmentation(), 0.0);
  EXPECT_EQ(a.AllocateRaw(0, 0), 0u);  // zero bytes: nullptr, not a failure
  EXPECT_EQ(a.retries(), 0u);
  ExpectSane(a);
}

TEST(BfcAllocator, NoRetryWhenDisallowed) {
  EmuGpu gpu(Device(kGiB));
  BfcOptions o;
  o.allow_retry_on_failure = false;
  BfcAllocator a(gpu, 8 * kMiB, "GPU_0_bfc", o);
  EXPECT_EQ(a.AllocateRaw(0, 16 * kMiB), 0u);
  EXPECT_EQ(a.retries(), 0u);
}

TEST(BfcAllocator, DestructorReturnsEveryRegion) {
  EmuGpu gpu(Device(kGiB));
  {
    BfcAllocator a(gpu, 512 * kMiB, "GPU_0_bfc", BfcOptions{});
    for (int i = 0; i < 10; ++i) a.AllocateRaw(0, 3 * kMiB);
    EXPECT_GT(gpu.used_pages(), 0u);
  }
  EXPECT_EQ(gpu.used_pages(), 0u);
}

// A full device and a 256-byte request: 0.9 x 256 rounds back up to 256, so a back-pedal that is not
// strictly decreasing would ask the driver forever (found replaying a 1 MiB trace on a 1 MiB device).
TEST(BfcAllocator, BackPedalStopsWhenItNoLongerShrinks) {
  GpuSpec spec = Device(kMiB);
  spec.page_bytes = 64 * 1024;
  EmuGpu gpu(spec);
  BfcOptions o;
  o.allow_growth = true;
  BfcAllocator a(gpu, 2 * kMiB, "GPU_0_bfc", o);
  ASSERT_NE(a.AllocateRaw(0, 900 * 1024), 0u);  // back-pedals to a region the device can give
  int filled = 0;
  while (a.AllocateRaw(0, 256) != 0 && filled < 10000) ++filled;  // fill what is left, 256 B at a time
  EXPECT_LT(filled, 10000);
  EXPECT_EQ(a.AllocateRaw(0, 100), 0u);  // back-pedals down to 256 B, then fails (no hang)
  ExpectSane(a);
}

}  // namespace
}  // namespace strata::gpu
