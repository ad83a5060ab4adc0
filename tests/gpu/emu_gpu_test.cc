// EmuGpu (docs/gpu-policies.md P7): physical pages apart from virtual addresses, sparse data, VMM mapping, counters.
#include "emu_gpu.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

namespace strata::gpu {
namespace {

constexpr uint64_t kMiB = 1ull << 20;

GpuSpec Device(uint64_t total, uint64_t context = 0) {
  GpuSpec s;
  s.total_bytes = total;
  s.context_bytes = context;
  return s;
}

// A Malloc succeeds whenever enough pages are free, whatever the history: no driver-level fragmentation.
TEST(EmuGpu, MallocNeedsPagesNotContiguity) {
  EmuGpu gpu(Device(20 * kMiB));  // 10 pages
  std::vector<uint64_t> one_page;
  for (int i = 0; i < 10; ++i) one_page.push_back(gpu.Malloc(2 * kMiB));
  for (uint64_t va : one_page) ASSERT_NE(va, 0u);
  EXPECT_EQ(gpu.free_bytes(), 0u);
  EXPECT_EQ(gpu.Malloc(1), 0u);
  EXPECT_EQ(gpu.counters().failed_device_allocs, 1u);
  for (int i = 0; i < 10; i += 2) ASSERT_TRUE(gpu.Free(one_page[i]));  // 5 scattered free pages
  const uint64_t big = gpu.Malloc(10 * kMiB);
  ASSERT_NE(big, 0u);
  EXPECT_EQ(big % (2 * kMiB), 0u);
  EXPECT_TRUE(gpu.Write(big + 10 * kMiB - 4, "abcd", 4));  // one contiguous VA range
  EXPECT_EQ(gpu.used_pages(), 10u);

  // Random churn: success is exactly "enough free pages".
  std::mt19937_64 rng(5);
  std::vector<std::pair<uint64_t, uint64_t>> live;  // va, pages
  ASSERT_TRUE(gpu.Free(big));
  for (int i = 1; i < 10; i += 2) ASSERT_TRUE(gpu.Free(one_page[i]));
  uint64_t used = 0;
  for (int op = 0; op < 2000; ++op) {
    if (live.empty() || rng() % 2 == 0) {
      const uint64_t bytes = 1 + rng() % (8 * kMiB);
      const uint64_t pages = (bytes + 2 * kMiB - 1) / (2 * kMiB);
      const uint64_t va = gpu.Malloc(bytes);
      ASSERT_EQ(va != 0, used + pages <= 10) << op;
      if (va != 0) {
        live.push_back({va, pages});
        used += pages;
      }
    } else {
      const size_t i = rng() % live.size();
      ASSERT_TRUE(gpu.Free(live[i].first));
      used -= live[i].second;
      live[i] = live.back();
      live.pop_back();
    }
    ASSERT_EQ(gpu.used_pages(), used);
    ASSERT_EQ(gpu.free_bytes(), (10 - used) * 2 * kMiB);
  }
}

TEST(EmuGpu, ContextIsNotAvailable) {
  EmuGpu gpu(Device(100 * kMiB, 20 * kMiB));
  EXPECT_EQ(gpu.total_bytes(), 100 * kMiB);
  EXPECT_EQ(gpu.free_bytes(), 80 * kMiB);
  EXPECT_EQ(gpu.Malloc(82 * kMiB), 0u);
  EXPECT_NE(gpu.Malloc(80 * kMiB), 0u);
}

TEST(EmuGpu, WriteReadRoundTrip) {
  EmuGpu gpu(Device(64 * kMiB));
  const uint64_t va = gpu.Malloc(5 * kMiB);  // three pages
  ASSERT_NE(va, 0u);
  std::vector<uint8_t> data(3 * kMiB);
  std::mt19937 rng(1);
  for (auto& b : data) b = static_cast<uint8_t>(rng());
  ASSERT_TRUE(gpu.Write(va + kMiB, data.data(), data.size()));  // crosses a page boundary
  std::vector<uint8_t> back(data.size());
  ASSERT_TRUE(gpu.Read(va + kMiB, back.data(), back.size()));
  EXPECT_EQ(back, data);
  uint8_t zeros[16];
  std::memset(zeros, 0xff, sizeof zeros);
  ASSERT_TRUE(gpu.Read(va, zeros, sizeof zeros));  // never written: zero
  for (uint8_t z : zeros) EXPECT_EQ(z, 0);
  // Past the allocation (the page rounding included) and after a free: refused.
  EXPECT_FALSE(gpu.Write(va + 6 * kMiB - 1, "ab", 2));
  EXPECT_FALSE(gpu.Read(va + 6 * kMiB, back.data(), 1));
  ASSERT_TRUE(gpu.Free(va));
  EXPECT_FALSE(gpu.Read(va, back.data(), 1));
  EXPECT_FALSE(gpu.Free(va));
  EXPECT_EQ(gpu.counters().device_frees, 1u);
  EXPECT_EQ(gpu.counters().device_syncs, 1u);
  // A new allocation never sees old data.
  const uint64_t again = gpu.Malloc(5 * kMiB);
  ASSERT_TRUE(gpu.Read(again + kMiB, back.data(), 16));
  for (int i = 0; i < 16; ++i) EXPECT_EQ(back[i], 0);
}

TEST(EmuGpu, MapUnmap) {
  EmuGpu gpu(Device(16 * kMiB));  // 8 pages
  const uint64_t page = gpu.page_bytes();
  const uint64_t va = gpu.ReserveVa(1ull << 40);  // reserving never fails and takes no pages
  EXPECT_EQ(gpu.used_pages(), 0u);
  EXPECT_FALSE(gpu.Write(va, "x", 1));  // reserved, not mapped
  ASSERT_TRUE(gpu.Map(va + 4 * page, 2 * page));
  EXPECT_EQ(gpu.used_pages(), 2u);
  EXPECT_FALSE(gpu.Map(va + 5 * page, 2 * page));    // overlaps a mapped page
  EXPECT_FALSE(gpu.Map(va + 1, page));               // unaligned
  EXPECT_FALSE(gpu.Map(va + 100 * page, 7 * page));  // 6 pages free: nothing mapped
  EXPECT_EQ(gpu.used_pages(), 2u);
  EXPECT_EQ(gpu.counters().failed_device_allocs, 1u);
  ASSERT_TRUE(gpu.Write(va + 5 * page - 2, "abcd", 4));  // across the two mapped pages
  char out[4];
  ASSERT_TRUE(gpu.Read(va + 5 * page - 2, out, 4));
  EXPECT_EQ(std::memcmp(out, "abcd", 4), 0);
  EXPECT_FALSE(gpu.Read(va + 6 * page - 1, out, 2));  // runs into an unmapped page
  ASSERT_TRUE(gpu.Unmap(va + 4 * page, page));
  EXPECT_FALSE(gpu.Read(va + 4 * page, out, 1));
  ASSERT_TRUE(gpu.Read(va + 5 * page, out, 2));  // the other page keeps its data
  EXPECT_EQ(std::memcmp(out, "cd", 2), 0);
  EXPECT_FALSE(gpu.Unmap(va + 4 * page, page));  // not mapped any more
  ASSERT_TRUE(gpu.Map(va + 4 * page, page));     // remapped: fresh, zero
  ASSERT_TRUE(gpu.Read(va + 5 * page - 2, out, 2));
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(gpu.counters().maps, 2u);
  EXPECT_EQ(gpu.counters().unmaps, 1u);
  EXPECT_EQ(gpu.counters().pages_mapped, 3u);
  // Pages are one pool for Malloc and Map.
  EXPECT_EQ(gpu.Malloc(14 * kMiB), 0u);
  EXPECT_NE(gpu.Malloc(12 * kMiB), 0u);
  EXPECT_FALSE(gpu.Map(va + 50 * page, page));
}

TEST(EmuGpu, Presets) {
  GpuSpec s;
  ASSERT_TRUE(GpuPresetByName("H100-80G", &s));
  EXPECT_EQ(s.total_bytes, 80ull << 30);
  EXPECT_EQ(s.cc_major, 9u);
  EXPECT_FALSE(GpuPresetByName("h999", &s));
  EXPECT_NE(GpuPresetNames().find("a100-40g"), std::string::npos);
}

}  // namespace
}  // namespace strata::gpu
