// jax-platform (docs/gpu-policies.md P1): one device allocation per buffer, one device free (and sync) per free.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "emu_gpu.h"
#include "families.h"
#include "policy.h"

namespace strata::gpu {
namespace {

constexpr uint64_t kMiB = 1ull << 20;

GpuSpec Device(uint64_t total) {
  GpuSpec s;
  s.total_bytes = total;
  s.context_bytes = 0;
  return s;
}

TEST(PlatformPolicy, EveryBufferIsOneDeviceAllocation) {
  EmuGpu gpu(Device(64 * kMiB));
  std::unique_ptr<Policy> p;
  std::string error;
  ASSERT_TRUE(MakePolicy("jax-platform", gpu, PolicyConfig{}, &p, &error)) << error;
  EXPECT_EQ(std::string(p->name()), "jax-platform");
  Oom oom;
  const uint64_t a = p->Allocate(4, 0, &oom);  // a 4-byte buffer costs a whole 2 MiB page
  const uint64_t b = p->Allocate(3 * kMiB, 0, &oom);
  ASSERT_NE(a, 0u);
  ASSERT_NE(b, 0u);
  EXPECT_EQ(gpu.counters().device_allocs, 2u);
  PolicyStats s = p->Stats();
  EXPECT_EQ(s.bytes_in_use, 6 * kMiB);
  EXPECT_EQ(s.pool_bytes, 6 * kMiB);
  EXPECT_EQ(s.requested_bytes, 4 + 3 * kMiB);
  EXPECT_EQ(s.segments, 2u);
  EXPECT_EQ(s.bytes_limit, 0u);
  ASSERT_TRUE(gpu.Write(b, "xyz", 3));  // a mapped device address
  p->Deallocate(a);
  EXPECT_EQ(gpu.counters().device_frees, 1u);
  EXPECT_EQ(gpu.counters().device_syncs, 1u);  // cudaFree synchronises the device
  EXPECT_EQ(p->Stats().bytes_in_use, 4 * kMiB);
  EXPECT_EQ(p->Stats().peak_bytes_in_use, 6 * kMiB);
  EXPECT_EQ(p->Stats().num_frees, 1u);
  // Memory goes back at once: the whole device is available again except b.
  EXPECT_NE(p->Allocate(60 * kMiB, 0, &oom), 0u);
  EXPECT_EQ(p->Allocate(kMiB, 0, &oom), 0u);
  EXPECT_EQ(oom.kind, OomKind::kCapacity);
  EXPECT_EQ(oom.rounded_bytes, 2 * kMiB);
  EXPECT_EQ(oom.live_bytes, 64 * kMiB);
  EXPECT_EQ(oom.message, "RESOURCE_EXHAUSTED: Failed to allocate request for 1.00MiB (1048576B) on device ordinal 0");
  s = p->Stats();
  EXPECT_EQ(s.num_failed_allocs, 1u);
  EXPECT_EQ(s.oom_capacity, 1u);
  EXPECT_EQ(s.num_alloc_retries, 0u);  // no retry, no cache
  EXPECT_EQ(gpu.counters().retries, 0u);
  p->Deallocate(b);
  p.reset();
  EXPECT_EQ(gpu.used_pages(), 0u);  // the destructor returns what is still live
}

TEST(PlatformPolicy, LargeAlignmentIsHonoured) {
  EmuGpu gpu(Device(64 * kMiB));
  std::unique_ptr<Policy> p;
  std::string error;
  ASSERT_TRUE(MakePolicy("jax-platform", gpu, PolicyConfig{}, &p, &error));
  Oom oom;
  ASSERT_NE(p->Allocate(kMiB, 0, &oom), 0u);  // shifts the next VA off an 8 MiB boundary
  const uint64_t a = p->Allocate(kMiB, 8 * kMiB, &oom);
  ASSERT_NE(a, 0u);
  EXPECT_EQ(a % (8 * kMiB), 0u);
  EXPECT_TRUE(gpu.Write(a + kMiB - 1, "x", 1));
  p->Deallocate(a);
  EXPECT_EQ(gpu.counters().device_frees, 1u);
}

TEST(PlatformPolicy, TakesNoOptions) {
  EmuGpu gpu(Device(64 * kMiB));
  std::unique_ptr<Policy> p;
  std::string error;
  PolicyConfig c;
  c.options["mem_fraction"] = "0.5";
  EXPECT_FALSE(MakePolicy("jax-platform", gpu, c, &p, &error));
  EXPECT_NE(error.find("unknown option 'mem_fraction'"), std::string::npos) << error;
  EXPECT_TRUE(PolicyOptions("jax-platform").empty());
  EXPECT_FALSE(MakePlatformPolicy("jax", gpu, PolicyConfig{}, &p, &error));
}

}  // namespace
}  // namespace strata::gpu
