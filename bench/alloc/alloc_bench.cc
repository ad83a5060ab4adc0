// Allocator benchmark (host): ns per alloc+free pair per policy, harness throughput, and every shared trace
// replayed per policy with compaction off and on. Prints one JSON object per line; progress goes to stderr.
#include <dirent.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "alloc/allocator.h"
#include "alloc_harness.h"
#include "common/pair_stream.h"
#include "replay.h"

namespace {

using strata::alloc::Allocator;
using strata::alloc::Handle;
using strata::alloc::Policy;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// Steady state with `live` buffers (bench/common/pair_stream.h), then Check().
void BenchPairs(Policy policy, uint32_t live, uint64_t pairs) {
  std::vector<Allocator::Node> nodes(Allocator::NodesForLiveBuffers(std::max<uint32_t>(live + 1, 2)));
  Allocator a;
  strata::alloc::Options o;
  o.capacity_bytes = uint64_t{64} << 30;
  o.policy = policy;
  a.Init(nodes.data(), static_cast<uint32_t>(nodes.size()), o);
  uint64_t failures = 0;
  const double ns = strata::bench::TimePairs(
      live, pairs,
      [&](uint64_t size) {
        Handle h;
        return a.Allocate(size, 0, &h) == STRATA_OK ? h.value : uint64_t{0};
      },
      [&](uint64_t h) { a.Free(Handle{h}); }, &failures);
  const bool ok = a.Check().ok();
  std::printf(
      "{\"bench\":\"alloc_free_pair\",\"policy\":\"%s\",\"live_buffers\":%u,\"pairs\":%llu,\"ns_per_pair\":%.1f,"
      "\"failed_allocs\":%llu,\"check_ok\":%s}\n",
      strata::alloc::PolicyName(policy), live, static_cast<unsigned long long>(pairs), ns,
      static_cast<unsigned long long>(failures), ok ? "true" : "false");
  std::fflush(stdout);
}

// The shared random-operation harness without per-op verification: mixed ops per second.
void BenchHarness(Policy policy) {
  strata::alloc::testing::HarnessConfig config;
  config.policy = policy;
  config.max_live = 4096;
  config.capacity_bytes = uint64_t{64} << 20;
  config.granule_bytes = 256;
  config.verify_contents = false;
  config.check_every_op = false;
  config.max_moves = 256;
  strata::alloc::testing::Harness<Allocator> h(config);
  strata::alloc::testing::RandomSource src(1);
  const uint64_t ops = 200000;
  const auto t0 = Clock::now();
  bool ok = true;
  for (uint64_t i = 0; i < ops && ok; ++i) ok = h.Step(src);
  const double s = Seconds(Clock::now() - t0);
  ok = ok && h.Verify();
  const auto st = h.allocator().GetStats();
  std::printf(
      "{\"bench\":\"alloc_random_ops\",\"policy\":\"%s\",\"ops\":%llu,\"ns_per_op\":%.1f,\"compactions\":%llu,"
      "\"bytes_moved\":%llu,\"ok\":%s}\n",
      strata::alloc::PolicyName(policy), static_cast<unsigned long long>(ops), s * 1e9 / ops,
      static_cast<unsigned long long>(st.compactions), static_cast<unsigned long long>(st.compaction_bytes_moved),
      ok ? "true" : "false");
  std::fflush(stdout);
}

void BenchTrace(const std::string& dir, const std::string& file) {
  strata::replay::Trace trace;
  std::string error;
  if (!strata::replay::LoadTrace(dir + "/" + file, &trace, &error)) {
    std::fprintf(stderr, "alloc_bench: %s\n", error.c_str());
    return;
  }
  for (uint32_t p = 0; p < strata::alloc::kNumPolicies; ++p) {
    for (bool compaction : {false, true}) {
      std::fprintf(stderr, "alloc_bench: %s %s compaction %s\n", file.c_str(),
                   strata::alloc::PolicyName(static_cast<Policy>(p)), compaction ? "on-oom" : "off");
      strata::replay::ReplayOptions options;
      options.policy = static_cast<Policy>(p);
      options.compaction_on_oom = compaction;
      strata::replay::ReplayResult unbounded;
      if (!strata::replay::Replay(trace, options, &unbounded, &error)) {
        std::fprintf(stderr, "alloc_bench: %s\n", error.c_str());
        return;
      }
      std::string line = "{\"bench\":\"alloc_trace\",\"trace\":\"" + trace.name + "\",\"policy\":\"" +
                         strata::alloc::PolicyName(options.policy) + "\",\"compaction\":\"" +
                         (compaction ? "on-oom" : "off") + "\",\"buffers\":" + std::to_string(trace.buffers.size()) +
                         ",\"max_load_bytes\":" + std::to_string(unbounded.max_load_bytes);
      char buf[256];
      std::snprintf(buf, sizeof buf, ",\"footprint_ratio\":%.6f,\"ns_per_alloc\":%.1f,\"ns_per_free\":%.1f",
                    unbounded.footprint_ratio, unbounded.ns_per_alloc, unbounded.ns_per_free);
      line += buf;
      for (const char* factor : {"1.0", "1.05", "1.1"}) {
        uint64_t capacity;
        strata::replay::ParseCapacity(std::string(factor) + "x", unbounded.max_load_bytes, options.granule_bytes,
                                      &capacity, &error);
        options.capacity_bytes = capacity;
        strata::replay::ReplayResult r;
        if (!strata::replay::Replay(trace, options, &r, &error)) {
          std::fprintf(stderr, "alloc_bench: %s\n", error.c_str());
          return;
        }
        std::string key = std::string(factor) + "x";
        std::snprintf(buf, sizeof buf,
                      ",\"failed_allocs_%s\":%llu,\"bytes_moved_%s\":%llu,\"bytes_moved_fraction_%s\":%.6f,"
                      "\"slide_baseline_bytes_%s\":%llu",
                      key.c_str(), static_cast<unsigned long long>(r.failed_allocs), key.c_str(),
                      static_cast<unsigned long long>(r.bytes_moved), key.c_str(), r.bytes_moved_fraction, key.c_str(),
                      static_cast<unsigned long long>(r.slide_baseline_bytes));
        line += buf;
      }
      std::printf("%s}\n", line.c_str());
      std::fflush(stdout);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string traces = STRATA_BENCH_TRACES_DIR;
  if (const char* env = std::getenv("STRATA_TRACES_DIR")) traces = env;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--traces") == 0 && i + 1 < argc) {
      traces = argv[++i];
    } else if (std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
    } else {
      std::fprintf(stderr, "usage: alloc_bench [--traces DIR] [--quick]\n");
      return 2;
    }
  }
  const uint64_t pairs = quick ? 200000 : 2000000;
  for (uint32_t p = 0; p < strata::alloc::kNumPolicies; ++p) {
    for (uint32_t live : {0u, 1024u, 16384u}) {
      std::fprintf(stderr, "alloc_bench: pairs %s live %u\n", strata::alloc::PolicyName(static_cast<Policy>(p)), live);
      BenchPairs(static_cast<Policy>(p), live, pairs);
    }
  }
  for (uint32_t p = 0; p < strata::alloc::kNumPolicies; ++p) BenchHarness(static_cast<Policy>(p));
  std::vector<std::string> files;
  if (DIR* d = opendir(traces.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string n = e->d_name;
      if (n.size() > 4 && n.substr(n.size() - 4) == ".csv") files.push_back(n);
    }
    closedir(d);
  } else {
    std::fprintf(stderr, "alloc_bench: no trace directory %s; skipping trace benchmarks\n", traces.c_str());
  }
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) BenchTrace(traces, f);
  return 0;
}
