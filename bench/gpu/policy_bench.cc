// GPU allocation policies on the host: ns per alloc+free pair for each of the nine framework policies over
// the emulated GPU, beside the Strata firmware allocator (TLSF) on the same request stream, in one run.
// Steady state with `live` buffers: free a random one, allocate a random size (log-uniform 256 B .. 1 MiB).
// One JSON object per line on stdout; progress on stderr. usage: strata-bench-gpu-policy [--quick]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "alloc/allocator.h"
#include "emu_gpu.h"
#include "policy.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Stream {  // the same sizes and victims for every allocator
  std::vector<uint64_t> sizes;
  std::vector<uint32_t> victims;
  Stream(uint32_t live) : sizes(1 << 16), victims(1 << 16) {
    std::mt19937_64 rng(42);
    for (uint64_t& s : sizes) s = static_cast<uint64_t>(std::exp2(8.0 + 12.0 * (rng() % 10000) / 10000.0));
    for (uint32_t& v : victims) v = live ? static_cast<uint32_t>(rng() % live) : 0;
  }
};

void Print(const char* allocator, uint32_t live, uint64_t pairs, double ns, uint64_t failures) {
  std::printf(
      "{\"bench\":\"gpu_policy_alloc_free_pair\",\"allocator\":\"%s\",\"live_buffers\":%u,\"pairs\":%llu,"
      "\"ns_per_pair\":%.1f,\"failed_allocs\":%llu}\n",
      allocator, live, static_cast<unsigned long long>(pairs), ns, static_cast<unsigned long long>(failures));
  std::fflush(stdout);
}

// `alloc(size)` returns a handle (0 = failed), `release(handle)` frees it.
template <typename Alloc, typename Release>
double TimePairs(const Stream& st, uint32_t live, uint64_t pairs, Alloc alloc, Release release, uint64_t* failures) {
  std::vector<uint64_t> hs(std::max<uint32_t>(live, 1), 0);
  for (uint32_t i = 0; i < live; ++i) hs[i] = alloc(st.sizes[i & 0xffff]);
  const auto t0 = Clock::now();
  for (uint64_t i = 0; i < pairs; ++i) {
    const uint64_t size = st.sizes[i & 0xffff];
    if (live == 0) {
      const uint64_t h = alloc(size);
      *failures += h == 0;
      if (h != 0) release(h);
    } else {
      uint64_t& slot = hs[st.victims[i & 0xffff]];
      if (slot != 0) release(slot);
      slot = alloc(size);
      *failures += slot == 0;
    }
  }
  const double ns = std::chrono::duration<double>(Clock::now() - t0).count() * 1e9 / static_cast<double>(pairs);
  for (uint64_t h : hs) {
    if (h != 0) release(h);
  }
  return ns;
}

void BenchPolicy(const std::string& name, uint32_t live, uint64_t pairs) {
  strata::gpu::GpuSpec spec;
  strata::gpu::GpuPresetByName("h100-80g", &spec);
  strata::gpu::EmuGpu gpu(spec);
  strata::gpu::PolicyConfig config;
  config.env = [](const char*) -> const char* { return nullptr; };  // the defaults, whatever the shell sets
  std::unique_ptr<strata::gpu::Policy> policy;
  std::string error;
  if (!strata::gpu::MakePolicy(name, gpu, config, &policy, &error)) {
    std::fprintf(stderr, "strata-bench-gpu-policy: %s: %s\n", name.c_str(), error.c_str());
    return;
  }
  const Stream st(live);
  uint64_t failures = 0;
  const double ns = TimePairs(
      st, live, pairs,
      [&](uint64_t size) {
        strata::gpu::Oom oom;
        return policy->Allocate(size, 0, &oom);
      },
      [&](uint64_t ptr) { policy->Deallocate(ptr); }, &failures);
  Print(name.c_str(), live, pairs, ns, failures);
}

void BenchFirmwareTlsf(uint32_t live, uint64_t pairs) {
  using strata::alloc::Allocator;
  std::vector<Allocator::Node> nodes(Allocator::NodesForLiveBuffers(std::max<uint32_t>(live + 1, 2)));
  Allocator a;
  strata::alloc::Options o;
  o.capacity_bytes = uint64_t{64} << 30;
  a.Init(nodes.data(), static_cast<uint32_t>(nodes.size()), o);
  const Stream st(live);
  uint64_t failures = 0;
  const double ns = TimePairs(
      st, live, pairs,
      [&](uint64_t size) {
        strata::alloc::Handle h;
        return a.Allocate(size, 0, &h) == STRATA_OK ? h.value : uint64_t{0};
      },
      [&](uint64_t h) { a.Free(strata::alloc::Handle{h}); }, &failures);
  Print("strata-firmware-tlsf", live, pairs, ns, failures);
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else {
      std::fprintf(stderr, "usage: strata-bench-gpu-policy [--quick]\n");
      return std::strcmp(argv[i], "--help") == 0 ? 0 : 2;
    }
  }
  const uint64_t pairs = quick ? 20000 : 200000;
  for (const uint32_t live : {0u, 64u, 1024u}) {
    std::fprintf(stderr, "strata-bench-gpu-policy: live %u\n", live);
    BenchFirmwareTlsf(live, pairs);
    for (const std::string& name : strata::gpu::PolicyNames()) BenchPolicy(name, live, pairs);
  }
  return 0;
}
