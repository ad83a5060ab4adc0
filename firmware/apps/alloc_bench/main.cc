// Device benchmark of the HBM allocator: core cycles per allocate and per free (p50/p99/max) with 1, 1,024
// and 16,384 live buffers, printed as JSON lines on the console.
#include <stdint.h>

#include "alloc/allocator.h"
#include "arch/arch.h"
#include "drivers/console.h"

namespace {

using strata::alloc::Allocator;
using strata::alloc::Handle;
using strata::console::Printf;

constexpr uint32_t kMaxLive = strata::alloc::kDefaultMaxLiveBuffers;
constexpr uint32_t kSamples = 2048;
constexpr uint64_t kHeapBytes = uint64_t{64} << 30;  // 64 GiB: random sizes never run out

// All in .bss: the default SMEM configuration of the allocator, as the runtime would hold it.
strata::alloc::NodeStorage<kMaxLive> g_nodes;
Allocator g_alloc;
Handle g_handles[kMaxLive];
uint32_t g_alloc_cycles[kSamples];
uint32_t g_free_cycles[kSamples];
uint32_t g_rng = 0x12345678u;

uint32_t Random() {  // xorshift32: deterministic and cheap
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 17;
  g_rng ^= g_rng << 5;
  return g_rng;
}

// Log-uniform between 256 B and 1 MiB, not granule-aligned.
uint64_t RandomSize() {
  const uint32_t r = Random();
  const uint32_t log2 = 8 + r % 13;
  return (uint64_t{1} << log2) + ((r >> 8) & ((1u << log2) - 1));
}

// Heapsort: no library, O(n log n) even on a slow simulated core.
void Sort(uint32_t* a, uint32_t n) {
  auto sift = [a](uint32_t root, uint32_t end) {
    for (;;) {
      uint32_t child = 2 * root + 1;
      if (child >= end) return;
      if (child + 1 < end && a[child] < a[child + 1]) ++child;
      if (a[root] >= a[child]) return;
      const uint32_t t = a[root];
      a[root] = a[child];
      a[child] = t;
      root = child;
    }
  };
  for (uint32_t i = n / 2; i-- > 0;) sift(i, n);
  for (uint32_t end = n; end-- > 1;) {
    const uint32_t t = a[0];
    a[0] = a[end];
    a[end] = t;
    sift(0, end);
  }
}

void Report(const char* policy, uint32_t live, const char* op, uint32_t* samples) {
  Sort(samples, kSamples);
  Printf(
      "{\"bench\":\"alloc_fw_cycles\",\"policy\":\"%s\",\"live_buffers\":%u,\"op\":\"%s\",\"samples\":%u,"
      "\"p50\":%u,\"p99\":%u,\"max\":%u}\n",
      policy, live, op, kSamples, samples[kSamples / 2], samples[kSamples * 99 / 100], samples[kSamples - 1]);
}

// Fills `live` buffers, then measures kSamples steady-state rounds of free(random) + allocate(random size).
bool Measure(strata::alloc::Policy policy, uint32_t live) {
  strata::alloc::Options options;
  options.capacity_bytes = kHeapBytes;
  options.policy = policy;
  if (g_alloc.Init(g_nodes.nodes, g_nodes.kNumNodes, options) != STRATA_OK) return false;
  for (uint32_t i = 0; i < live; ++i) {
    if (g_alloc.Allocate(RandomSize(), 0, &g_handles[i]) != STRATA_OK) return false;
  }
  for (uint32_t s = 0; s < kSamples; ++s) {
    const uint32_t victim = Random() % live;
    const uint64_t size = RandomSize();
    uint32_t t0 = strata::arch::ReadCycle32();
    const strata_status freed = g_alloc.Free(g_handles[victim]);
    uint32_t t1 = strata::arch::ReadCycle32();
    g_free_cycles[s] = t1 - t0;
    t0 = strata::arch::ReadCycle32();
    const strata_status got = g_alloc.Allocate(size, 0, &g_handles[victim]);
    t1 = strata::arch::ReadCycle32();
    g_alloc_cycles[s] = t1 - t0;
    if (freed != STRATA_OK || got != STRATA_OK) return false;
  }
  const strata::alloc::CheckResult check = g_alloc.Check();
  if (!check.ok()) {
    Printf("FAIL: Check(): %s\n", check.invariant);
    return false;
  }
  const char* name = strata::alloc::PolicyName(policy);
  Report(name, live, "alloc", g_alloc_cycles);
  Report(name, live, "free", g_free_cycles);
  return true;
}

}  // namespace

int main() {
  Printf("alloc_bench: %u-byte nodes, %u live buffers max, metadata %u KiB\n",
         static_cast<unsigned>(sizeof(Allocator::Node)), kMaxLive,
         static_cast<unsigned>((sizeof(g_nodes) + sizeof(g_alloc)) / 1024));
  const uint32_t lives[] = {1, 1024, kMaxLive};
  for (uint32_t live : lives) {
    if (!Measure(strata::alloc::Policy::kTlsf, live)) {
      Printf("FAIL: allocator error with %u live buffers\n", live);
      return 1;
    }
  }
  Printf("PASS\n");
  return 0;
}
