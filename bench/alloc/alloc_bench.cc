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
#include "direct_replay.h"
#include "json_lines.h"
#include "replay.h"

namespace {

using strata::alloc::Allocator;
using strata::alloc::Handle;
using strata::alloc::Policy;
using Clock = std::chrono::steady_clock;

using strata::tool::Json;
using strata::tool::JsonRound;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

void Print(const Json& line) { strata::tool::PrintJsonLine(line); }

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
  Json line;
  line["bench"] = "alloc_free_pair";
  line["policy"] = strata::alloc::PolicyName(policy);
  line["live_buffers"] = live;
  line["pairs"] = pairs;
  line["ns_per_pair"] = JsonRound(ns, 1);
  line["failed_allocs"] = failures;
  line["check_ok"] = ok;
  Print(line);
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
  Json line;
  line["bench"] = "alloc_random_ops";
  line["policy"] = strata::alloc::PolicyName(policy);
  line["ops"] = ops;
  line["ns_per_op"] = JsonRound(s * 1e9 / ops, 1);
  line["compactions"] = st.compactions;
  line["bytes_moved"] = st.compaction_bytes_moved;
  line["ok"] = ok;
  Print(line);
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
      if (!strata::replay::DirectReplay(trace, options, &unbounded, &error)) {
        std::fprintf(stderr, "alloc_bench: %s\n", error.c_str());
        return;
      }
      Json line;
      line["bench"] = "alloc_trace";
      line["trace"] = trace.name;
      line["policy"] = strata::alloc::PolicyName(options.policy);
      line["compaction"] = compaction ? "on-oom" : "off";
      line["buffers"] = trace.buffers.size();
      line["max_load_bytes"] = unbounded.max_load_bytes;
      line["footprint_ratio"] = JsonRound(unbounded.footprint_ratio, 6);
      line["ns_per_alloc"] = JsonRound(unbounded.ns_per_alloc, 1);
      line["ns_per_free"] = JsonRound(unbounded.ns_per_free, 1);
      for (const char* factor : {"1.0", "1.05", "1.1"}) {
        uint64_t capacity;
        strata::replay::ParseCapacity(std::string(factor) + "x", unbounded.max_load_bytes, options.granule_bytes,
                                      &capacity, &error);
        options.capacity_bytes = capacity;
        strata::replay::ReplayResult r;
        if (!strata::replay::DirectReplay(trace, options, &r, &error)) {
          std::fprintf(stderr, "alloc_bench: %s\n", error.c_str());
          return;
        }
        const std::string key = std::string(factor) + "x";
        line["failed_allocs_" + key] = r.failed_allocs;
        line["bytes_moved_" + key] = r.bytes_moved;
        line["bytes_moved_fraction_" + key] = JsonRound(r.bytes_moved_fraction, 6);
        line["slide_baseline_bytes_" + key] = r.slide_baseline_bytes;
      }
      Print(line);
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
