// GPU allocation policies on the host: ns per alloc+free pair for each of the nine framework policies over
// the emulated GPU, beside the Strata firmware allocator (TLSF) on the same request stream, in one run.
// Steady state with `live` buffers: free a random one, allocate a random size (log-uniform 256 B .. 1 MiB).
// One JSON object per line on stdout; progress on stderr. usage: strata-bench-gpu-policy [--quick]
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "alloc/allocator.h"
#include "common/pair_stream.h"
#include "emu_gpu.h"
#include "json_lines.h"
#include "policy.h"

namespace {

void Print(const char* allocator, uint32_t live, uint64_t pairs, double ns, uint64_t failures) {
  strata::tool::Json line;
  line["bench"] = "gpu_policy_alloc_free_pair";
  line["allocator"] = allocator;
  line["live_buffers"] = live;
  line["pairs"] = pairs;
  line["ns_per_pair"] = strata::tool::JsonRound(ns, 1);
  line["failed_allocs"] = failures;
  strata::tool::PrintJsonLine(line);
}

bool BenchPolicy(const std::string& name, uint32_t live, uint64_t pairs) {
  strata::gpu::GpuSpec spec;
  strata::gpu::GpuPresetByName("h100-80g", &spec);
  strata::gpu::EmuGpu gpu(spec);
  strata::gpu::PolicyConfig config;
  config.env = [](const char*) -> const char* { return nullptr; };  // the defaults, whatever the shell sets
  std::unique_ptr<strata::gpu::Policy> policy;
  std::string error;
  if (!strata::gpu::MakePolicy(name, gpu, config, &policy, &error)) {
    std::fprintf(stderr, "strata-bench-gpu-policy: %s: %s\n", name.c_str(), error.c_str());
    return false;
  }
  uint64_t failures = 0;
  const double ns = strata::bench::TimePairs(
      live, pairs,
      [&](uint64_t size) {
        strata::gpu::Oom oom;
        return policy->Allocate(size, 0, &oom);
      },
      [&](uint64_t ptr) { policy->Deallocate(ptr); }, &failures);
  Print(name.c_str(), live, pairs, ns, failures);
  return true;
}

void BenchFirmwareTlsf(uint32_t live, uint64_t pairs) {
  using strata::alloc::Allocator;
  std::vector<Allocator::Node> nodes(Allocator::NodesForLiveBuffers(std::max<uint32_t>(live + 1, 2)));
  Allocator a;
  strata::alloc::Options o;
  o.capacity_bytes = uint64_t{64} << 30;
  a.Init(nodes.data(), static_cast<uint32_t>(nodes.size()), o);
  uint64_t failures = 0;
  const double ns = strata::bench::TimePairs(
      live, pairs,
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
  bool ok = true;
  for (const uint32_t live : {0u, 64u, 1024u}) {
    std::fprintf(stderr, "strata-bench-gpu-policy: live %u\n", live);
    BenchFirmwareTlsf(live, pairs);
    for (const std::string& name : strata::gpu::PolicyNames()) ok = BenchPolicy(name, live, pairs) && ok;
  }
  return ok ? 0 : 1;  // a policy that could not be made is a failed run
}
