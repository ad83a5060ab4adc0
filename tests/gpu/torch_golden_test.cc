// PyTorch's own published byte counts for its CUDA caching allocator, replayed on the torch and
// torch-expandable policies over the emulated GPU (gpu.torch_golden.*).
//
// Source of every number: Edward Yang, "When does fragmentation occur in the CUDA caching allocator?",
// PyTorch devlog, 2026-06-01: https://github.com/pytorch/devlogs (content/eager/2026-06-01-cuda-caching-allocator.md).
// Its scripts allocate uint8 tensors of exactly n MiB into a fresh torch.cuda.MemPool and read "reserved" as
// the sum of memory_snapshot(pool)'s segment total_size, which is the pool's reserved_bytes (mapped bytes with
// expandable segments). The emulation has one pool and starts empty, so a fresh policy is that MemPool.
// Counter names: c10/cuda/CUDACachingAllocator.cpp increments stats.num_device_alloc once in alloc_block
// (per cudaMalloc) and once in map_block (per call, however many pages it maps).
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "caching_allocator.h"
#include "emu_gpu.h"
#include "policy.h"

namespace strata::gpu {
namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kGiB = 1ull << 30;

// An 80 GiB device: large enough that no request below fails, so the allocator never takes its retry path
// (release_cached_blocks), which the published numbers assume.
GpuSpec Device() {
  GpuSpec s;
  s.total_bytes = 80 * kGiB;
  s.context_bytes = 512 * kMiB;
  return s;
}

std::unique_ptr<Policy> Make(const std::string& name, GpuDriver& gpu) {
  PolicyConfig config;
  config.env = [](const char*) -> const char* { return nullptr; };  // no PYTORCH_CUDA_ALLOC_CONF
  std::unique_ptr<Policy> p;
  std::string error;
  EXPECT_TRUE(MakePolicy(name, gpu, config, &p, &error)) << error;
  return p;
}

const CachingAllocator& Cca(const std::unique_ptr<Policy>& p) { return dynamic_cast<const CachingAllocator&>(*p); }

// alloc(n, mib): n tensors of mib MiB each, kept alive.
std::vector<uint64_t> AllocN(Policy& p, int n, uint64_t bytes) {
  std::vector<uint64_t> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(p.Allocate(bytes, 0, nullptr));
    EXPECT_NE(out.back(), 0u) << "allocation " << i << " of " << bytes << " bytes";
  }
  return out;
}

// free(ts): every tensor dropped, in allocation order.
void FreeAll(Policy& p, std::vector<uint64_t>* ptrs) {
  for (uint64_t a : *ptrs) p.Deallocate(a);
  ptrs->clear();
}

uint64_t Reserved(const std::unique_ptr<Policy>& p) { return p->Stats().pool_bytes; }

// ------------------------------------------------------------------------------------------------
// Without expandable segments ("Small then large (bad order)" / "Large then small (good order)").

// 8 x 16 MiB (each >= kMinLargeAlloc, so its own cudaMalloc rounded to 2 MiB: 16 MiB), free all, 4 x 32 MiB:
// no cached 16 MiB block can hold 32 MiB and segments never merge, so four more cudaMallocs: 256 MiB.
TEST(torch_golden, SixteenThenThirtyTwoReserves256MiB) {
  EmuGpu gpu(Device());
  auto p = Make("torch", gpu);
  auto small = AllocN(*p, 8, 16 * kMiB);
  EXPECT_EQ(Reserved(p), 128 * kMiB);
  FreeAll(*p, &small);
  EXPECT_EQ(Reserved(p), 128 * kMiB);  // cached, not returned
  auto large = AllocN(*p, 4, 32 * kMiB);
  EXPECT_EQ(Reserved(p), 256 * kMiB);
  EXPECT_EQ(p->Stats().segments, 12u);
  EXPECT_EQ(Cca(p).torch_counters().num_device_alloc, 12u);
  EXPECT_EQ(Cca(p).torch_counters().num_alloc_retries, 0u);
  FreeAll(*p, &large);
}

// The reverse: 4 x 32 MiB, free all, 8 x 16 MiB. Each 16 MiB request best-fits a cached 32 MiB block and
// splits it (large pool: remainder 16 MiB > kSmallSize); the next takes the remainder: still 128 MiB.
TEST(torch_golden, ThirtyTwoThenSixteenReserves128MiB) {
  EmuGpu gpu(Device());
  auto p = Make("torch", gpu);
  auto large = AllocN(*p, 4, 32 * kMiB);
  EXPECT_EQ(Reserved(p), 128 * kMiB);
  FreeAll(*p, &large);
  auto small = AllocN(*p, 8, 16 * kMiB);
  EXPECT_EQ(Reserved(p), 128 * kMiB);
  EXPECT_EQ(p->Stats().segments, 4u);
  EXPECT_EQ(Cca(p).torch_counters().num_device_alloc, 4u);
  // Each segment now holds two 16 MiB blocks.
  for (const auto& b : Cca(p).Blocks()) {
    EXPECT_EQ(b.size, 16 * kMiB);
    EXPECT_TRUE(b.allocated && b.split);
  }
  FreeAll(*p, &small);
}

// ------------------------------------------------------------------------------------------------
// With expandable segments (large pool: 20 MiB pages).

// 8 x 16 MiB into one large-pool segment: allocations 1-4 each map one page (remainders 4, 8, 12, 16 MiB),
// the 5th takes the 16 MiB remainder, 6-8 map one page each (remainders 4, 8, 12): 7 pages, 140 MiB.
TEST(torch_golden, ExpandableSixteenMiBBlocksMap140MiB) {
  EmuGpu gpu(Device());
  auto p = Make("torch-expandable", gpu);
  const uint64_t after_each[8] = {20, 40, 60, 80, 80, 100, 120, 140};
  std::vector<uint64_t> ts;
  for (int i = 0; i < 8; ++i) {
    ts.push_back(p->Allocate(16 * kMiB, 0, nullptr));
    ASSERT_NE(ts.back(), 0u);
    EXPECT_EQ(Reserved(p), after_each[i] * kMiB) << "after allocation " << i + 1;
  }
  EXPECT_EQ(gpu.used_pages() * gpu.page_bytes(), 140 * kMiB);
  EXPECT_EQ(p->Stats().segments, 1u);
  EXPECT_EQ(p->Stats().largest_free_block_bytes, 12 * kMiB);  // the published 12 MiB of overhead
  FreeAll(*p, &ts);
}

// Same order that cost 256 MiB above: after freeing all eight, the blocks merge into one 140 MiB free block
// and 4 x 32 MiB (128 MiB) are carved from it without mapping a page.
TEST(torch_golden, ExpandableThirtyTwoAfterFreeingAllMapsNoPage) {
  EmuGpu gpu(Device());
  auto p = Make("torch-expandable", gpu);
  auto small = AllocN(*p, 8, 16 * kMiB);
  FreeAll(*p, &small);
  EXPECT_EQ(Reserved(p), 140 * kMiB);
  EXPECT_EQ(p->Stats().largest_free_block_bytes, 140 * kMiB);  // one merged free block
  const uint64_t maps = Cca(p).torch_counters().num_device_alloc;
  const uint64_t creates = gpu.counters().device_allocs;
  auto large = AllocN(*p, 4, 32 * kMiB);
  EXPECT_EQ(Reserved(p), 140 * kMiB);
  EXPECT_EQ(Cca(p).torch_counters().num_device_alloc, maps);
  EXPECT_EQ(gpu.counters().device_allocs, creates);
  FreeAll(*p, &large);
}

// ------------------------------------------------------------------------------------------------
// "The 1 MiB loophole": requests <= kSmallSize go to small_blocks, larger ones to large_blocks, and a block
// of one pool never serves the other. The devlog runs these with expandable segments (20 MiB / 2 MiB pages);
// without them the segment sizes are the same (get_allocation_size: a 2 MiB request takes a kLargeBuffer
// 20 MiB segment, a 0.5 MiB one a kSmallBuffer 2 MiB segment), so both policies must give the figures.

constexpr const char* kBothPolicies[] = {"torch", "torch-expandable"};

// 2 MiB, free, 0.5 MiB: the freed 20 MiB large block cannot serve a small request: 20 + 2 = 22 MiB.
TEST(torch_golden, TwoMiBThenHalfMiBReserves22MiB) {
  for (const char* name : kBothPolicies) {
    SCOPED_TRACE(name);
    EmuGpu gpu(Device());
    auto p = Make(name, gpu);
    const uint64_t a = p->Allocate(2 * kMiB, 0, nullptr);
    ASSERT_NE(a, 0u);
    p->Deallocate(a);
    const uint64_t b = p->Allocate(kMiB / 2, 0, nullptr);
    ASSERT_NE(b, 0u);
    EXPECT_EQ(Reserved(p), 22 * kMiB);
    EXPECT_EQ(p->Stats().segments, 2u);
    p->Deallocate(b);
  }
}

// 2 MiB, free, 2 MiB: the second reuses the cached large block: 20 MiB.
TEST(torch_golden, TwoMiBThenTwoMiBReserves20MiB) {
  for (const char* name : kBothPolicies) {
    SCOPED_TRACE(name);
    EmuGpu gpu(Device());
    auto p = Make(name, gpu);
    const uint64_t a = p->Allocate(2 * kMiB, 0, nullptr);
    ASSERT_NE(a, 0u);
    p->Deallocate(a);
    const uint64_t b = p->Allocate(2 * kMiB, 0, nullptr);
    EXPECT_EQ(b, a);
    EXPECT_EQ(Reserved(p), 20 * kMiB);
    EXPECT_EQ(p->Stats().segments, 1u);
    p->Deallocate(b);
  }
}

// ------------------------------------------------------------------------------------------------
// Counters under the framework's names. PyTorch's num_device_alloc counts map_block calls with expandable
// segments; the driver counts one cuMemCreate per page. A 50 MiB request maps three 20 MiB pages in one
// map_block call: num_device_alloc 1, cuMemCreate 3.
TEST(torch_golden, NumDeviceAllocCountsMapBlockCallsNotPages) {
  EmuGpu gpu(Device());
  auto p = Make("torch-expandable", gpu);
  const uint64_t a = p->Allocate(50 * kMiB, 0, nullptr);
  ASSERT_NE(a, 0u);
  EXPECT_EQ(Reserved(p), 60 * kMiB);
  EXPECT_EQ(Cca(p).torch_counters().num_device_alloc, 1u);
  EXPECT_EQ(gpu.counters().device_allocs, 3u);
  EXPECT_EQ(gpu.counters().pages_mapped * gpu.page_bytes(), 60 * kMiB);
  EXPECT_EQ(p->Stats().num_device_alloc, 1u);  // what the C API and Python report under PyTorch's name
  p->Deallocate(a);
  // Without expandable segments both are one per cudaMalloc.
  EmuGpu gpu2(Device());
  auto q = Make("torch", gpu2);
  ASSERT_NE(q->Allocate(50 * kMiB, 0, nullptr), 0u);
  EXPECT_EQ(Cca(q).torch_counters().num_device_alloc, 1u);
  EXPECT_EQ(gpu2.counters().device_allocs, 1u);
  EXPECT_EQ(q->Stats().num_device_alloc, 1u);
}

}  // namespace
}  // namespace strata::gpu
