// The indexed cudaMallocAsync pool model (host/gpu/async_policy.cc) against the unindexed one it replaced
// (async_policy_reference.cc, frozen): over many random runs (spreads of sizes, lifetimes, alignments, page sizes,
// device sizes, settings and seeds, with OOMs of both kinds), every event must give the same outcome: the address,
// the OOM report (kind, numbers, message), every statistic, and every driver counter and free byte count.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "async_policy_reference.h"
#include "emu_gpu.h"
#include "policy.h"

namespace strata::gpu {
namespace {

constexpr uint64_t kKiB = 1ull << 10;
constexpr uint64_t kMiB = 1ull << 20;

std::string Text(const PolicyStats& s) {
  char frag[64];
  std::snprintf(frag, sizeof frag, "%a", s.fragmentation);  // exact
  std::ostringstream o;
  o << "in_use " << s.bytes_in_use << " peak " << s.peak_bytes_in_use << " requested " << s.requested_bytes << " limit "
    << s.bytes_limit << " pool " << s.pool_bytes << " peak_pool " << s.peak_pool_bytes << " largest_free "
    << s.largest_free_block_bytes << " largest_alloc " << s.largest_alloc_size << " inactive_split "
    << s.inactive_split_bytes << " allocs " << s.num_allocs << " frees " << s.num_frees << " failed "
    << s.num_failed_allocs << " oom " << s.oom_capacity << "/" << s.oom_cap << "/" << s.oom_fragmentation << " retries "
    << s.num_alloc_retries << " dev " << s.num_device_alloc << "/" << s.num_device_free << " segments " << s.segments
    << " fragmentation " << frag;
  return o.str();
}

std::string Text(const Oom& m) {
  std::ostringstream o;
  o << OomKindName(m.kind) << " request " << m.request_bytes << " rounded " << m.rounded_bytes << " live "
    << m.live_bytes << " reserved " << m.reserved_bytes << " largest_free " << m.largest_free_block_bytes << " limit "
    << m.limit_bytes << " device_free " << m.device_free_bytes << " message " << m.message;
  return o.str();
}

std::string Text(const EmuGpu& g) {
  const DriverCounters& c = g.counters();
  std::ostringstream o;
  o << "free " << g.free_bytes() << " used_pages " << g.used_pages() << " allocs " << c.device_allocs << " frees "
    << c.device_frees << " failed " << c.failed_device_allocs << " maps " << c.maps << " unmaps " << c.unmaps
    << " pages_mapped " << c.pages_mapped << " syncs " << c.device_syncs << "/" << c.stream_syncs << " retries "
    << c.retries << " host_copied " << c.host_bytes_copied;
  return o.str();
}

// One random run's shape.
struct Scenario {
  std::string policy;
  GpuSpec spec;
  std::map<std::string, std::string> options;
  int events = 0;
  int alloc_percent = 0;    // of the events that are not syncs: allocations, the rest frees
  int big_percent = 0;      // allocations of one to many pages
  int aligned_percent = 0;  // allocations with an explicit alignment
};

Scenario Draw(std::mt19937_64& rng) {
  auto pick = [&](auto... v) {
    const uint64_t values[] = {static_cast<uint64_t>(v)...};
    return values[rng() % sizeof...(v)];
  };
  Scenario s;
  s.policy = rng() % 2 ? "jax-async" : "tf-async";
  // Page sizes: the driver's 2 MiB, small ones (many pages, many holes), and ones that are not powers of two.
  s.spec.page_bytes = pick(2 * kMiB, 64 * kKiB, 4 * kKiB, 6 * kKiB, 2560, 1536);
  const uint64_t pages = 8 + rng() % 2000;
  s.spec.total_bytes = pages * s.spec.page_bytes + rng() % s.spec.page_bytes;
  s.spec.context_bytes = (rng() % 4 == 0) ? 0 : (rng() % (pages / 4 + 1)) * s.spec.page_bytes;
  s.spec.cc_major = static_cast<uint32_t>(pick(7, 8, 9));
  if (s.policy == "jax-async") {
    if (rng() % 2) s.options["preallocate"] = rng() % 2 ? "true" : "false";
    if (rng() % 2) s.options["memory_fraction"] = std::to_string(pick(5, 30, 75, 100) / 100.0);
  } else {
    if (rng() % 2) s.options["memory_fraction"] = std::to_string(pick(0, 20, 60, 95) / 100.0);
    if (rng() % 3 == 0) s.options["min_sys_memory_mb"] = std::to_string(rng() % 3);
  }
  if (rng() % 3 == 0) s.options["prealloc_bytes"] = rng() % 2 ? "-1" : std::to_string(rng() % (pages * 512));
  s.events = 300 + static_cast<int>(rng() % 1500);
  s.alloc_percent = static_cast<int>(pick(50, 55, 65, 80));
  s.big_percent = static_cast<int>(pick(2, 10, 30));
  s.aligned_percent = static_cast<int>(pick(0, 5, 20));
  return s;
}

// Counts over every run, so that the test shows it covered what it claims.
struct Coverage {
  uint64_t allocs = 0, capacity_ooms = 0, fragmentation_ooms = 0, frees = 0, syncs = 0, aligned = 0;
};

void RunOne(uint64_t seed, Coverage* cov) {
  std::mt19937_64 rng(seed);
  const Scenario sc = Draw(rng);
  SCOPED_TRACE("seed " + std::to_string(seed) + ": " + sc.policy + ", page " + std::to_string(sc.spec.page_bytes) +
               ", total " + std::to_string(sc.spec.total_bytes) + ", context " + std::to_string(sc.spec.context_bytes));
  EmuGpu gpu_new(sc.spec), gpu_ref(sc.spec);
  PolicyConfig config;
  config.env = [](const char*) -> const char* { return nullptr; };
  config.options = sc.options;
  std::unique_ptr<Policy> now, ref;
  std::string error_now, error_ref;
  const bool made_now = MakePolicy(sc.policy, gpu_new, config, &now, &error_now);
  AsyncSettings settings;
  const bool resolved = ResolveAsyncSettings(sc.policy, gpu_ref, config, &settings, &error_ref);
  ASSERT_EQ(made_now, resolved) << error_now << " / " << error_ref;
  ASSERT_EQ(error_now, error_ref);
  if (!made_now) return;
  ref = pre_q_reference::MakeReferenceAsyncPool(gpu_ref, settings);
  ASSERT_EQ(Text(now->Stats()), Text(ref->Stats()));
  ASSERT_EQ(Text(gpu_new), Text(gpu_ref));

  const uint64_t page = sc.spec.page_bytes;
  std::vector<uint64_t> live;  // addresses (the same in both, as checked)
  for (int e = 0; e < sc.events; ++e) {
    const uint64_t dice = rng() % 1000;
    std::string what;
    if (dice < 15) {
      what = "ReleaseCache";
      now->ReleaseCache();
      ref->ReleaseCache();
      ++cov->syncs;
    } else if (dice < 20) {
      what = "ResetPeak";
      now->ResetPeak();
      ref->ResetPeak();
    } else if (live.empty() || static_cast<int>(rng() % 100) < sc.alloc_percent) {
      uint64_t bytes = 0;
      const uint64_t kind = rng() % 100;
      if (static_cast<int>(kind) < sc.big_percent) {
        bytes = page + rng() % (page * (1 + rng() % 64));  // one page to tens of pages
      } else if (kind % 3 == 0) {
        bytes = 1 + rng() % 512;  // scalars: one 512 B granule
      } else {
        bytes = 1 + rng() % page;  // sub-page up to a page
      }
      uint64_t align = 0;
      if (static_cast<int>(rng() % 100) < sc.aligned_percent) {
        align = 256ull << (rng() % 14);  // 256 B .. 2 MiB, above the page size at times
        ++cov->aligned;
      }
      what = "Allocate(" + std::to_string(bytes) + ", " + std::to_string(align) + ")";
      Oom oom_now, oom_ref;
      const uint64_t a_now = now->Allocate(bytes, align, &oom_now);
      const uint64_t a_ref = ref->Allocate(bytes, align, &oom_ref);
      ASSERT_EQ(a_now, a_ref) << "event " << e << ": " << what;
      ASSERT_EQ(Text(oom_now), Text(oom_ref)) << "event " << e << ": " << what;
      ++cov->allocs;
      if (a_now != 0) {
        live.push_back(a_now);
      } else if (oom_now.kind == OomKind::kCapacity) {
        ++cov->capacity_ooms;
      } else if (oom_now.kind == OomKind::kFragmentation) {
        ++cov->fragmentation_ooms;
      }
    } else {
      // Lifetimes: mostly a recent buffer (short-lived activations), sometimes any (long-lived ones).
      const size_t k = rng() % 4 ? live.size() - 1 - rng() % std::min<size_t>(live.size(), 8) : rng() % live.size();
      what = "Deallocate(" + std::to_string(live[k]) + ")";
      now->Deallocate(live[k]);
      ref->Deallocate(live[k]);
      live[k] = live.back();
      live.pop_back();
      ++cov->frees;
    }
    ASSERT_EQ(Text(now->Stats()), Text(ref->Stats())) << "event " << e << ": " << what;
    ASSERT_EQ(Text(gpu_new), Text(gpu_ref)) << "event " << e << ": " << what;
  }
  // Everything back, then the pools' destructors: the driver must end the same.
  for (uint64_t a : live) {
    now->Deallocate(a);
    ref->Deallocate(a);
  }
  ASSERT_EQ(Text(now->Stats()), Text(ref->Stats()));
  now.reset();
  ref.reset();
  ASSERT_EQ(Text(gpu_new), Text(gpu_ref));
}

TEST(AsyncDifferential, SameDecisionsAsThePreIndexModelOnRandomRuns) {
  Coverage cov;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    RunOne(seed, &cov);
    if (HasFatalFailure()) return;
  }
  std::printf(
      "300 runs: %llu allocations (%llu with an alignment), %llu frees, %llu syncs; OOMs: %llu capacity, %llu "
      "fragmentation\n",
      static_cast<unsigned long long>(cov.allocs), static_cast<unsigned long long>(cov.aligned),
      static_cast<unsigned long long>(cov.frees), static_cast<unsigned long long>(cov.syncs),
      static_cast<unsigned long long>(cov.capacity_ooms), static_cast<unsigned long long>(cov.fragmentation_ooms));
  // The runs reached what they are meant to compare: both kinds of OOM, frees, syncs, explicit alignments.
  EXPECT_GT(cov.allocs, 100000u);
  EXPECT_GT(cov.frees, 50000u);
  EXPECT_GT(cov.capacity_ooms, 100u);
  EXPECT_GT(cov.fragmentation_ooms, 100u);
  EXPECT_GT(cov.syncs, 1000u);
  EXPECT_GT(cov.aligned, 1000u);
}

// A free pattern that leaves many partly used pages with many holes each (the shape that made the unindexed
// first fit and largest-free walk slow): the same decisions at a size where the index matters.
TEST(AsyncDifferential, SameDecisionsWithThousandsOfHoles) {
  for (const char* policy : {"jax-async", "tf-async"}) {
    GpuSpec spec;
    spec.total_bytes = 4096 * 64 * kKiB;
    spec.context_bytes = 0;
    spec.page_bytes = 64 * kKiB;
    EmuGpu gpu_new(spec), gpu_ref(spec);
    PolicyConfig config;
    config.env = [](const char*) -> const char* { return nullptr; };
    std::unique_ptr<Policy> now, ref;
    std::string error;
    ASSERT_TRUE(MakePolicy(policy, gpu_new, config, &now, &error)) << error;
    AsyncSettings settings;
    ASSERT_TRUE(ResolveAsyncSettings(policy, gpu_ref, config, &settings, &error)) << error;
    ref = pre_q_reference::MakeReferenceAsyncPool(gpu_ref, settings);
    std::mt19937_64 rng(7);
    std::vector<uint64_t> live;
    for (int i = 0; i < 30000; ++i) {
      const uint64_t bytes = 1 + rng() % (8 * 512);
      Oom a, b;
      const uint64_t x = now->Allocate(bytes, 0, &a), y = ref->Allocate(bytes, 0, &b);
      ASSERT_EQ(x, y) << "allocation " << i;
      ASSERT_EQ(Text(a), Text(b));
      if (x != 0) live.push_back(x);
      if (i % 3 == 2 && !live.empty()) {  // free one in three, anywhere: holes everywhere
        const size_t k = rng() % live.size();
        now->Deallocate(live[k]);
        ref->Deallocate(live[k]);
        live[k] = live.back();
        live.pop_back();
      }
      if (i % 97 == 0) {
        ASSERT_EQ(Text(now->Stats()), Text(ref->Stats())) << "allocation " << i;
      }
    }
    ASSERT_EQ(Text(now->Stats()), Text(ref->Stats()));
    ASSERT_EQ(Text(gpu_new), Text(gpu_ref));
    EXPECT_GT(now->Stats().pool_bytes / spec.page_bytes, 500u);  // hundreds of partly used pages
  }
}

}  // namespace
}  // namespace strata::gpu
