// The host backend (host/driver/host_backend.cc): Strata's allocator through the C API.
//  * Differential: random traces (a spread of seeds, sizes, lifetimes, capacities tight enough to fail and to
//    compact, granules 256 and 4096, every policy, compaction on and off) and the shared traces, replayed through
//    strata.h on `host` by a small loop here, by replay::Replay (which runs through the runner on this backend) and
//    by the allocator library called directly (direct_replay.h), the independent reference: the same failures,
//    compactions, moves, bytes moved and allocated, footprint, slide baseline, and every live buffer's address at a
//    random event (from the heap events against ReplayOptions::snapshot_event).
//  * Quotas: two contexts, refused at exactly the runtime's rule (strata/quota.h) and no sooner.
//  * Bad open options and bad calls: a clear error, nothing changed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "alloc/allocator.h"
#include "direct_replay.h"
#include "replay.h"
#include "strata/quota.h"
#include "strata/strata.h"
#include "strata/strata.hpp"

namespace strata {
namespace {

using replay::Trace;
using replay::TraceBuffer;

constexpr uint64_t kBackendBufferMask = (uint64_t{1} << 54) - 1;  // the core's tag lies above (backend.h)

struct Opened {
  strata_device* d = nullptr;
  strata_status status = STRATA_OK;
  std::string message;
};

// Opens `host` with the given options as text (typed by the backend's own specs).
Opened OpenHost(const std::vector<std::pair<std::string, std::string>>& options) {
  NamedOptions named("host");
  for (const auto& [k, v] : options) named.Add(k, v);
  strata_open_options o{};
  o.struct_size = sizeof o;
  o.named_options = named.data();
  o.num_named_options = named.size();
  Opened r;
  r.status = strata_open("host", &o, &r.d);
  if (r.status != STRATA_OK) r.message = strata_last_error_message();
  return r;
}

strata_memory_stats Stats(strata_device* d, strata_context c = 0) {
  strata_memory_stats s{};
  s.struct_size = sizeof s;
  EXPECT_EQ(strata_get_memory_stats(d, c, &s), STRATA_OK) << strata_last_error_message();
  return s;
}

strata_context Context(strata_device* d, uint64_t quota_bytes = 0, double fraction = 0) {
  strata_context_options co{};
  co.struct_size = sizeof co;
  co.quota_bytes = quota_bytes;
  co.quota_fraction = fraction;
  strata_context c = 0;
  EXPECT_EQ(strata_context_create(d, &co, &c), STRATA_OK) << strata_last_error_message();
  return c;
}

// What the events of a run add up to, and every live buffer's place at one event of the replay.
struct Recorder {
  uint64_t extent = 0, bytes_allocated = 0, slide_baseline = 0, moves = 0, move_bytes = 0, on_oom = 0, on_oom_bytes = 0;
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> live;  // event id (backend handle) -> address, bytes
  bool ok = true;
  std::string problem;
  static void Fn(void* user, const strata_event* e) {
    Recorder& r = *static_cast<Recorder*>(user);
    const std::string track = e->track, name = e->name;
    if (track == "heap") {
      if ((e->flags & STRATA_EVENT_FLAG_ADDRESS) == 0 || e->kind != STRATA_EVENT_INSTANT) r.Fail("heap event form");
      const uint64_t bytes = static_cast<uint64_t>(e->value);
      if (name == "extent") {
        r.extent = bytes;
      } else if (name == "alloc") {
        if (!r.live.emplace(e->id, std::make_pair(e->address, bytes)).second) r.Fail("alloc of a live id");
        r.bytes_allocated += bytes;
      } else if (name == "free") {
        auto it = r.live.find(e->id);
        if (it == r.live.end() || it->second.first != e->address) {
          r.Fail("free of an id not live there");
        } else {
          r.live.erase(it);
        }
      } else if (name == "move") {
        auto it = r.live.find(e->id);
        if (it == r.live.end() || it->second.first != e->address || it->second.second != bytes) {
          r.Fail("move of an id not live there");
        } else {
          it->second.first = e->to_address;
        }
        ++r.moves;
        r.move_bytes += bytes;
      } else {
        r.Fail("heap event " + name);
      }
    } else if (track == "compaction") {
      if (name == "slide_baseline") {
        r.slide_baseline += static_cast<uint64_t>(e->value);
      } else if (name == "on_oom") {
        ++r.on_oom;
        r.on_oom_bytes += static_cast<uint64_t>(e->value);
      } else if (name != "compact") {
        r.Fail("compaction event " + name);
      }
    } else {
      r.Fail("track " + track);
    }
  }
  void Fail(const std::string& what) {
    if (ok) problem = what;
    ok = false;
  }
};

struct ApiResult {
  replay::ReplayResult r;
  std::vector<replay::PlacedBuffer> snapshot;
  uint64_t on_oom = 0, on_oom_bytes = 0, event_moves = 0, event_move_bytes = 0;
};

// The loop a runner makes: each event of the trace through strata_alloc / strata_free on one context.
// max_live: the metadata's size, 0 for the trace's peak (as replay::Replay sizes it).
ApiResult ApiReplay(const Trace& trace, const replay::ReplayOptions& o, bool check_every_op, uint32_t max_live) {
  const std::vector<replay::Event> events = replay::BuildEvents(trace);
  uint32_t live = 0, peak = 1;
  for (const replay::Event& e : events) {
    live = e.kind == 1 ? live + 1 : live - 1;
    peak = std::max(peak, live);
  }
  ApiResult out;
  Opened dev = OpenHost({{"capacity_bytes", std::to_string(o.capacity_bytes)},
                         {"granule_bytes", std::to_string(o.granule_bytes)},
                         {"policy", alloc::PolicyName(o.policy)},
                         {"max_live_buffers", std::to_string(max_live != 0 ? max_live : peak)},
                         {"check_every_op", check_every_op ? "1" : "0"}});
  EXPECT_EQ(dev.status, STRATA_OK) << dev.message;
  if (dev.d == nullptr) return out;
  Recorder rec;
  EXPECT_EQ(strata_set_event_sink(dev.d, &Recorder::Fn, &rec), STRATA_OK);
  const strata_context ctx = Context(dev.d);
  const uint32_t flags = o.compaction_on_oom ? 0 : STRATA_ALLOC_FLAG_NO_COMPACT;
  std::vector<strata_buffer> handles(trace.buffers.size(), 0);
  std::map<uint64_t, uint32_t> buffer_of;  // backend handle -> trace buffer
  for (size_t i = 0; i < events.size(); ++i) {
    const replay::Event& e = events[i];
    const TraceBuffer& b = trace.buffers[e.buffer];
    if (e.kind == 1) {
      strata_buffer h = 0;
      const strata_status st = strata_alloc(dev.d, ctx, b.size, 0, flags, &h);
      if (st == STRATA_OK) {
        handles[e.buffer] = h;
        buffer_of[h & kBackendBufferMask] = e.buffer;
      } else if (st == STRATA_RESOURCE_EXHAUSTED) {
        ++out.r.failed_allocs;
        strata_oom_info oom{};
        oom.struct_size = sizeof oom;
        EXPECT_EQ(strata_get_last_oom(dev.d, &oom), STRATA_OK);
        EXPECT_EQ(oom.request_bytes, b.size);
        const uint64_t rounded = (b.size + o.granule_bytes - 1) / o.granule_bytes * o.granule_bytes;
        EXPECT_EQ(oom.kind,
                  rounded > o.capacity_bytes - oom.live_bytes ? STRATA_OOM_CAPACITY : STRATA_OOM_FRAGMENTATION);
      } else {
        ADD_FAILURE() << "line " << b.line << ": " << strata_status_name(st) << " " << strata_last_error_message();
        break;
      }
    } else if (handles[e.buffer] != 0) {
      EXPECT_EQ(strata_free(dev.d, ctx, handles[e.buffer]), STRATA_OK) << strata_last_error_message();
      handles[e.buffer] = 0;
    }
    if (o.snapshot_event >= 0 && i == static_cast<size_t>(o.snapshot_event)) {
      for (const auto& [id, place] : rec.live) out.snapshot.push_back({place.first, place.second, buffer_of.at(id)});
      std::sort(out.snapshot.begin(), out.snapshot.end(),
                [](const auto& x, const auto& y) { return x.offset < y.offset; });
    }
  }
  EXPECT_TRUE(rec.ok) << rec.problem;
  EXPECT_EQ(rec.extent, o.capacity_bytes);  // reported when the sink was set
  const strata_memory_stats s = Stats(dev.d);
  out.r.compactions = s.compactions;
  out.r.moves = s.compaction_moves;
  out.r.bytes_moved = s.compaction_bytes_moved;
  out.r.footprint_bytes = s.pool_bytes;
  out.r.bytes_allocated = rec.bytes_allocated;
  out.r.slide_baseline_bytes = rec.slide_baseline;
  out.on_oom = rec.on_oom;
  out.on_oom_bytes = rec.on_oom_bytes;
  out.event_moves = rec.moves;
  out.event_move_bytes = rec.move_bytes;
  EXPECT_EQ(s.num_failed_allocs, out.r.failed_allocs);
  EXPECT_EQ(s.oom_capacity + s.oom_fragmentation, out.r.failed_allocs);
  EXPECT_EQ(s.peak_pool_bytes, s.pool_bytes);
  strata_close(dev.d);
  return out;
}

// A result without its wall-clock figures.
replay::ReplayResult Masked(replay::ReplayResult r) {
  r.ns_per_alloc = r.ns_per_free = 0;
  return r;
}

// Runs the backend through a loop of its own, replay::Replay (the runner on this backend) and the direct reference, and
// compares. Returns the reference's result for the spread checks.
replay::ReplayResult Differential(const Trace& trace, replay::ReplayOptions o, uint32_t seed,
                                  bool check_every_op = false, uint32_t max_live = 0) {
  const size_t n_events = 2 * trace.buffers.size();
  o.snapshot_event = static_cast<int64_t>(std::mt19937(seed)() % n_events);
  o.move_cycles = [](uint64_t bytes) { return 7.0 + static_cast<double>(bytes) / 32.0; };
  replay::ReplayResult want;
  std::string error;
  EXPECT_TRUE(replay::DirectReplay(trace, o, &want, &error)) << error;
  const ApiResult got = ApiReplay(trace, o, check_every_op, max_live);
  const std::string what = trace.name + " " + alloc::PolicyName(o.policy) + " granule " +
                           std::to_string(o.granule_bytes) + " capacity " + std::to_string(o.capacity_bytes) +
                           (o.compaction_on_oom ? " compaction on" : " compaction off");
  // strata-replay's host replay, which runs through the runner on this backend, reports what the direct loop does.
  replay::ReplayResult tool;
  o.check_every_op = check_every_op;
  EXPECT_TRUE(replay::Replay(trace, o, &tool, &error)) << error;
  EXPECT_EQ(replay::ToJsonObject(Masked(tool)), replay::ToJsonObject(Masked(want))) << what;
  EXPECT_EQ(tool.move_cycles_estimate, want.move_cycles_estimate) << what;
  EXPECT_EQ(tool.snapshot.size(), want.snapshot.size()) << what;
  for (size_t k = 0; k < std::min(tool.snapshot.size(), want.snapshot.size()); ++k) {
    EXPECT_TRUE(tool.snapshot[k].offset == want.snapshot[k].offset &&
                tool.snapshot[k].bytes == want.snapshot[k].bytes && tool.snapshot[k].buffer == want.snapshot[k].buffer)
        << what << " buffer " << k;
  }
  EXPECT_EQ(got.r.failed_allocs, want.failed_allocs) << what;
  EXPECT_EQ(got.r.compactions, want.compactions) << what;
  EXPECT_EQ(got.r.moves, want.moves) << what;
  EXPECT_EQ(got.r.bytes_moved, want.bytes_moved) << what;
  EXPECT_EQ(got.r.bytes_allocated, want.bytes_allocated) << what;
  EXPECT_EQ(got.r.footprint_bytes, want.footprint_bytes) << what;
  EXPECT_EQ(got.r.slide_baseline_bytes, want.slide_baseline_bytes) << what;
  EXPECT_EQ(got.event_moves, want.moves) << what;  // one move event per move
  EXPECT_EQ(got.event_move_bytes, want.bytes_moved) << what;
  EXPECT_EQ(got.on_oom_bytes, want.bytes_moved) << what;  // every move here came from a defragment on OOM
  EXPECT_LE(got.on_oom, want.compactions) << what;        // one event per allocation, one or more plans each
  EXPECT_EQ(got.on_oom == 0, want.compactions == 0) << what;
  EXPECT_EQ(got.snapshot.size(), want.snapshot.size()) << what << " at event " << o.snapshot_event;
  for (size_t k = 0; k < std::min(got.snapshot.size(), want.snapshot.size()); ++k) {
    EXPECT_EQ(got.snapshot[k].offset, want.snapshot[k].offset) << what << " buffer " << k;
    EXPECT_EQ(got.snapshot[k].bytes, want.snapshot[k].bytes) << what << " buffer " << k;
    EXPECT_EQ(got.snapshot[k].buffer, want.snapshot[k].buffer) << what << " buffer " << k;
    if (got.snapshot[k].offset != want.snapshot[k].offset || got.snapshot[k].buffer != want.snapshot[k].buffer) break;
  }
  return want;
}

// Sizes from a few bytes to a few MiB (many not granule multiples), short and long lifetimes.
Trace RandomTrace(uint32_t seed, uint32_t buffers) {
  std::mt19937_64 rng(seed);
  Trace t;
  t.name = "random" + std::to_string(seed);
  const uint64_t span = 3 * buffers;
  for (uint32_t i = 0; i < buffers; ++i) {
    TraceBuffer b;
    b.id = i;
    b.lower = rng() % span;
    const uint32_t life = rng() % 4;
    b.upper = b.lower + 1 + (life == 0 ? rng() % 4 : life == 1 ? rng() % 40 : life == 2 ? rng() % 400 : span / 2);
    const uint32_t kind = rng() % 5;
    b.size = kind == 0   ? 1 + rng() % 512
             : kind == 1 ? 1 + rng() % (64 << 10)
             : kind == 2 ? (1 + rng() % 64) << 12
             : kind == 3 ? 1 + rng() % (1 << 20)
                         : (1 + rng() % 16) << 20;
    b.line = i + 2;
    t.buffers.push_back(b);
  }
  return t;
}

class HostDifferential : public testing::TestWithParam<std::tuple<alloc::Policy, uint32_t, bool>> {};

TEST_P(HostDifferential, RandomTracesMatchReplay) {
  const auto [policy, granule, compaction] = GetParam();
  uint64_t failed = 0, compactions = 0;
  for (uint32_t seed = 1; seed <= 10; ++seed) {
    const Trace trace = RandomTrace(seed * 7919 + granule, 150 + 90 * seed);
    const uint64_t load = replay::MaxLoad(trace, granule);
    for (const double factor : {0.8, 1.0, 1.08, 1.25, 2.0}) {
      replay::ReplayOptions o;
      o.policy = policy;
      o.granule_bytes = granule;
      o.compaction_on_oom = compaction;
      o.capacity_bytes = static_cast<uint64_t>(load * factor) / granule * granule;
      const replay::ReplayResult want = Differential(trace, o, seed * 31 + static_cast<uint32_t>(factor * 100));
      failed += want.failed_allocs;
      compactions += want.compactions;
      if (HasFailure()) return;
    }
  }
  // The spread reached what it is for: failures, and with compaction on, compactions.
  EXPECT_GT(failed, 0u);
  if (compaction) {
    EXPECT_GT(compactions, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Spread, HostDifferential,
                         testing::Combine(testing::Values(alloc::Policy::kTlsf, alloc::Policy::kBestFit,
                                                          alloc::Policy::kFirstFit),
                                          testing::Values(256u, 4096u), testing::Bool()),
                         [](const auto& info) {
                           std::string name = alloc::PolicyName(std::get<0>(info.param));
                           name.erase(std::remove(name.begin(), name.end(), '-'), name.end());
                           return name + "_g" + std::to_string(std::get<1>(info.param)) +
                                  (std::get<2>(info.param) ? "_compaction" : "_no_compaction");
                         });

// check_every_op changes nothing but the time a run takes.
TEST(HostBackend, CheckEveryOpSameRun) {
  const Trace trace = RandomTrace(99, 300);
  replay::ReplayOptions o;
  o.compaction_on_oom = true;
  o.capacity_bytes = replay::MaxLoad(trace, o.granule_bytes) * 21 / 20 / 256 * 256;
  Differential(trace, o, 5, /*check_every_op=*/true);
}

// Metadata for more than 32,767 live buffers: the backend takes the WideAllocator (24-byte nodes) where replay::Replay,
// sized by the trace's peak, takes the Allocator; the same placements either way.
TEST(HostBackend, WideAllocatorSameRun) {
  const Trace trace = RandomTrace(7, 400);
  for (uint32_t p = 0; p < alloc::kNumPolicies; ++p) {
    replay::ReplayOptions o;
    o.policy = static_cast<alloc::Policy>(p);
    o.compaction_on_oom = true;
    o.capacity_bytes = replay::MaxLoad(trace, o.granule_bytes) / 256 * 256;
    const replay::ReplayResult want = Differential(trace, o, 11 + p, false, 40000);
    EXPECT_GT(want.compactions, 0u);
  }
}

// The shared traces (tests/data/traces), every policy, at the max load and a little above, compaction on and off.
TEST(HostBackend, SharedTracesMatchReplay) {
  const std::vector<std::string> names = {"bert_base.csv",       "tiny_bert.csv",    "resnet50.csv",
                                          "iree_mobilebert.csv", "minimalloc_A.csv", "minimalloc_B.csv",
                                          "minimalloc_C.csv"};
  uint32_t found = 0;
  uint64_t failed = 0, compactions = 0, slide = 0;
  for (const std::string& name : names) {
    Trace trace;
    std::string error;
    if (!replay::LoadTrace(std::string(STRATA_TRACES_DIR) + "/" + name, &trace, &error)) {
      std::printf("skipping %s: %s\n", name.c_str(), error.c_str());
      continue;
    }
    ++found;
    const uint64_t load = replay::MaxLoad(trace, alloc::kDefaultGranuleBytes);
    for (uint32_t p = 0; p < alloc::kNumPolicies; ++p) {
      for (const bool compaction : {false, true}) {
        for (const uint64_t capacity : {load, load + load / 20}) {
          replay::ReplayOptions o;
          o.policy = static_cast<alloc::Policy>(p);
          o.compaction_on_oom = compaction;
          o.capacity_bytes = capacity / 256 * 256;
          const replay::ReplayResult want = Differential(trace, o, p + 7 * found + (compaction ? 100 : 0));
          failed += want.failed_allocs;
          compactions += want.compactions;
          slide += want.slide_baseline_bytes;
          if (HasFailure()) return;
        }
      }
    }
  }
  if (found == 0) GTEST_SKIP() << "no shared traces in " << STRATA_TRACES_DIR;
  std::printf("%u shared traces: %llu failed allocations, %llu compactions, slide baseline %llu B\n", found,
              static_cast<unsigned long long>(failed), static_cast<unsigned long long>(compactions),
              static_cast<unsigned long long>(slide));
  EXPECT_GT(failed, 0u);
  EXPECT_GT(compactions, 0u);
  EXPECT_GT(slide, 0u);
}

// Two contexts with quotas (one in bytes, one a fraction of the heap): each refused exactly where
// strata_quota_admits says, on granule-rounded sizes, without touching the other; CAP with its numbers.
TEST(HostBackend, QuotasAtTheRulesBoundary) {
  constexpr uint64_t kHeap = 64 << 20;
  for (const uint32_t granule : {256u, 4096u}) {
    Opened dev = OpenHost({{"capacity_bytes", std::to_string(kHeap)}, {"granule_bytes", std::to_string(granule)}});
    ASSERT_EQ(dev.status, STRATA_OK) << dev.message;
    const uint64_t q1 = 10 * granule + 3 * granule;  // in bytes
    const strata_context c1 = Context(dev.d, q1);
    const strata_context c2 = Context(dev.d, 0, 0.3);  // 30% of the heap
    const uint64_t q2 = strata_quota_bytes(0, 300000, kHeap);
    EXPECT_EQ(Stats(dev.d, c1).context_quota_bytes, q1);
    EXPECT_EQ(Stats(dev.d, c2).context_quota_bytes, q2);
    std::mt19937_64 rng(granule);
    for (const auto& [c, quota] : {std::make_pair(c1, q1), std::make_pair(c2, q2)}) {
      uint64_t in_use = 0, exact_fits = 0, near_misses = 0;
      std::vector<strata_buffer> mine;
      for (int k = 0; k < 400; ++k) {
        // Mostly sizes that are no granule multiple; near the boundary, exactly what is left and one byte more.
        uint64_t bytes = 1 + rng() % (quota / 4);
        if (k % 3 == 1 && quota > in_use) bytes = quota - in_use;
        if (k % 3 == 2 && quota > in_use) bytes = quota - in_use + 1;
        const uint64_t rounded = (bytes + granule - 1) / granule * granule;
        const bool admit = strata_quota_admits(quota, in_use, rounded);
        const strata_memory_stats before = Stats(dev.d);
        strata_buffer h = 0;
        const strata_status st = strata_alloc(dev.d, c, bytes, 0, 0, &h);
        if (admit) {
          ASSERT_EQ(st, STRATA_OK) << bytes << " with " << in_use << " of " << quota << ": "
                                   << strata_last_error_message();
          in_use += rounded;
          exact_fits += in_use == quota;
          mine.push_back(h);
        } else {
          ASSERT_EQ(st, STRATA_RESOURCE_EXHAUSTED) << bytes << " with " << in_use << " of " << quota;
          near_misses += rounded - (quota - in_use) <= granule;
          EXPECT_NE(std::string(strata_last_error_message()).find("quota"), std::string::npos);
          strata_oom_info oom{};
          oom.struct_size = sizeof oom;
          ASSERT_EQ(strata_get_last_oom(dev.d, &oom), STRATA_OK);
          EXPECT_EQ(oom.kind, STRATA_OOM_CAP);
          EXPECT_EQ(oom.request_bytes, bytes);
          EXPECT_EQ(oom.limit_bytes, quota);
          EXPECT_EQ(oom.context_quota_bytes, quota);
          EXPECT_EQ(oom.context_bytes_in_use, in_use);
          EXPECT_EQ(Stats(dev.d).bytes_in_use, before.bytes_in_use);  // nothing changed
          EXPECT_EQ(Stats(dev.d).oom_cap, before.oom_cap + 1);
          if (!mine.empty() && k % 2 == 0) {  // make room: free one, at a random place
            const size_t at = rng() % mine.size();
            const uint64_t before_free = Stats(dev.d, c).context_bytes_in_use;
            ASSERT_EQ(strata_free(dev.d, c, mine[at]), STRATA_OK);
            in_use -= before_free - Stats(dev.d, c).context_bytes_in_use;
            mine.erase(mine.begin() + at);
          }
        }
        ASSERT_EQ(Stats(dev.d, c).context_bytes_in_use, in_use);
      }
      // The boundary itself was tried: refusals within a granule of the room left, and where the quota is a
      // granule multiple, allocations that filled it exactly.
      EXPECT_GT(near_misses, 10u) << quota;
      if (quota % granule == 0) {
        EXPECT_GT(exact_fits, 10u) << quota;
      }
    }
    // A context without a quota fills the heap and is then out of device memory (CAPACITY), not over a quota.
    const strata_context c3 = Context(dev.d);
    const uint64_t left = kHeap - Stats(dev.d).bytes_in_use;
    strata_buffer h = 0;
    ASSERT_EQ(strata_alloc(dev.d, c3, left, 0, 0, &h), STRATA_OK) << strata_last_error_message();
    EXPECT_EQ(strata_alloc(dev.d, c3, 1, 0, 0, &h), STRATA_RESOURCE_EXHAUSTED);
    strata_oom_info oom{};
    oom.struct_size = sizeof oom;
    ASSERT_EQ(strata_get_last_oom(dev.d, &oom), STRATA_OK);
    EXPECT_EQ(oom.kind, STRATA_OOM_CAPACITY);
    EXPECT_EQ(oom.limit_bytes, kHeap);
    EXPECT_EQ(oom.context_quota_bytes, 0u);
    // Destroying a context frees its buffers and only its own.
    const uint64_t c1_bytes = Stats(dev.d, c1).context_bytes_in_use, all = Stats(dev.d).bytes_in_use;
    ASSERT_EQ(strata_context_destroy(dev.d, c1), STRATA_OK);
    EXPECT_EQ(Stats(dev.d).bytes_in_use, all - c1_bytes);
    EXPECT_EQ(Stats(dev.d).contexts, 2u);
    strata_memory_stats s{};
    s.struct_size = sizeof s;
    EXPECT_EQ(strata_get_memory_stats(dev.d, c1, &s), STRATA_NOT_FOUND);
    // The next context takes c1's place, under another id: c1 names nothing still.
    const strata_context c4 = Context(dev.d);
    EXPECT_NE(c4, c1);
    EXPECT_EQ(strata_alloc(dev.d, c1, 256, 0, 0, &h), STRATA_NOT_FOUND);
    EXPECT_EQ(Stats(dev.d).contexts, 3u);
    strata_close(dev.d);
  }
}

// Each bad option: INVALID_ARGUMENT with a message naming what is wrong, and no device.
TEST(HostBackend, BadOptionsRefused) {
  struct Case {
    std::vector<std::pair<std::string, std::string>> options;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{}, "capacity_bytes is required"},
      {{{"capacity_bytes", "0"}}, "capacity_bytes is required"},
      {{{"capacity_bytes", "-4096"}}, "capacity_bytes is required"},
      {{{"capacity_bytes", "100"}}, "not a heap the allocator manages"},  // less than one granule
      {{{"capacity_bytes", std::to_string(uint64_t{1} << 41)}, {"granule_bytes", "1"}}, "2^40 granules"},
      {{{"capacity_bytes", "1048576"}, {"granule_bytes", "0"}}, "granule_bytes must be a power of two"},
      {{{"capacity_bytes", "1048576"}, {"granule_bytes", "384"}}, "granule_bytes must be a power of two"},
      {{{"capacity_bytes", "1048576"}, {"granule_bytes", "131072"}}, "between 1 and 65536"},
      {{{"capacity_bytes", "1048576"}, {"policy", "jax"}}, "unknown policy 'jax' (tlsf, best-fit or first-fit)"},
      {{{"capacity_bytes", "1048576"}, {"max_live_buffers", "0"}}, "max_live_buffers must be between 1 and"},
      {{{"capacity_bytes", "1048576"}, {"max_live_buffers", "999999999"}}, "max_live_buffers must be between 1 and"},
  };
  for (const Case& c : cases) {
    const Opened dev = OpenHost(c.options);
    EXPECT_EQ(dev.status, STRATA_INVALID_ARGUMENT) << c.says;
    EXPECT_EQ(dev.d, nullptr);
    EXPECT_NE(dev.message.find(c.says), std::string::npos) << dev.message;
  }
  // A value of another type is refused by the driver's option check, naming the option.
  strata_named_value v{sizeof v, "capacity_bytes", STRATA_VALUE_STRING, "lots", 0, 0, 0};
  strata_open_options o{};
  o.struct_size = sizeof o;
  o.named_options = &v;
  o.num_named_options = 1;
  strata_device* d = nullptr;
  EXPECT_EQ(strata_open("host", &o, &d), STRATA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(strata_last_error_message()).find("capacity_bytes"), std::string::npos);
  EXPECT_EQ(d, nullptr);
}

// Bad calls: the status the C API promises, a message, and the heap unchanged.
TEST(HostBackend, BadCallsChangeNothing) {
  Opened dev = OpenHost({{"capacity_bytes", std::to_string(1 << 20)}, {"max_live_buffers", "4"}});
  ASSERT_EQ(dev.status, STRATA_OK) << dev.message;
  strata_device* d = dev.d;
  const strata_context a = Context(d), b = Context(d);
  strata_buffer ha = 0, hb = 0, stale = 0;
  ASSERT_EQ(strata_alloc(d, a, 1000, 0, 0, &ha), STRATA_OK);
  ASSERT_EQ(strata_alloc(d, b, 5000, 0, 0, &hb), STRATA_OK);
  ASSERT_EQ(strata_alloc(d, a, 10, 0, 0, &stale), STRATA_OK);
  ASSERT_EQ(strata_free(d, a, stale), STRATA_OK);
  const strata_memory_stats before = Stats(d);
  auto unchanged = [&](const char* what) {
    const strata_memory_stats now = Stats(d);
    EXPECT_EQ(now.bytes_in_use, before.bytes_in_use) << what;
    EXPECT_EQ(now.live_buffers, before.live_buffers) << what;
    EXPECT_EQ(now.num_allocs, before.num_allocs) << what;
    EXPECT_EQ(now.num_frees, before.num_frees) << what;
  };
  auto message = [] { return std::string(strata_last_error_message()); };
  strata_buffer h = 0;
  EXPECT_EQ(strata_alloc(d, a, 0, 0, 0, &h), STRATA_INVALID_ARGUMENT);
  EXPECT_NE(message().find("bytes must be positive"), std::string::npos) << message();
  EXPECT_EQ(strata_alloc(d, a, 4096, 3, 0, &h), STRATA_INVALID_ARGUMENT);
  EXPECT_NE(message().find("alignment"), std::string::npos) << message();
  EXPECT_EQ(strata_alloc(d, a, 4096, uint64_t{2} << 30, 0, &h), STRATA_INVALID_ARGUMENT);
  EXPECT_EQ(strata_alloc(d, a, 4096, 0, 0x80, &h), STRATA_INVALID_ARGUMENT);  // unknown flag
  unchanged("alloc");
  const strata_context bogus = a + 100;  // the same device's tag, no such context
  EXPECT_EQ(strata_alloc(d, bogus, 4096, 0, 0, &h), STRATA_NOT_FOUND);
  EXPECT_NE(message().find("no such context"), std::string::npos) << message();
  EXPECT_EQ(strata_free(d, bogus, ha), STRATA_NOT_FOUND);
  EXPECT_EQ(strata_context_destroy(d, bogus), STRATA_NOT_FOUND);
  strata_memory_stats s{};
  s.struct_size = sizeof s;
  EXPECT_EQ(strata_get_memory_stats(d, bogus, &s), STRATA_NOT_FOUND);
  EXPECT_NE(strata_alloc(d, 0, 4096, 0, 0, &h), STRATA_OK);
  EXPECT_EQ(strata_free(d, b, ha), STRATA_PERMISSION_DENIED);  // a's buffer
  EXPECT_NE(message().find("another context"), std::string::npos) << message();
  EXPECT_EQ(strata_free(d, a, stale), STRATA_NOT_FOUND);
  EXPECT_NE(message().find("stale"), std::string::npos) << message();
  unchanged("free");
  // No data: write, read and GEMM say why.
  char bytes[16] = {};
  EXPECT_EQ(strata_write(d, a, ha, 0, bytes, sizeof bytes), STRATA_UNIMPLEMENTED);
  EXPECT_NE(message().find("placement only"), std::string::npos) << message();
  EXPECT_EQ(strata_read(d, a, ha, 0, bytes, sizeof bytes), STRATA_UNIMPLEMENTED);
  strata_gemm_args g{};
  g.struct_size = sizeof g;
  g.a = g.b = ha;
  g.c = hb;
  g.m = g.n = g.k = 4;
  EXPECT_EQ(strata_gemm(d, a, &g), STRATA_UNIMPLEMENTED);
  unchanged("data calls");
  // Alignment the allocator honours; more live buffers than max_live_buffers: RESOURCE_EXHAUSTED, named.
  ASSERT_EQ(strata_alloc(d, a, 100, 64 << 10, 0, &h), STRATA_OK);
  strata_buffer more[2] = {};
  ASSERT_EQ(strata_alloc(d, a, 100, 0, 0, &more[0]), STRATA_OK);
  EXPECT_EQ(strata_alloc(d, a, 100, 0, 0, &more[1]), STRATA_RESOURCE_EXHAUSTED);
  EXPECT_NE(message().find("too many live buffers"), std::string::npos) << message();
  // The device's identity.
  strata_device_info info{};
  info.struct_size = sizeof info;
  ASSERT_EQ(strata_get_device_info(d, &info), STRATA_OK);
  EXPECT_STREQ(info.backend, "host");
  EXPECT_EQ(info.hbm_capacity_bytes, 1u << 20);
  EXPECT_EQ(info.heap_bytes, 1u << 20);
  EXPECT_EQ(info.granule_bytes, alloc::kDefaultGranuleBytes);
  EXPECT_EQ(info.max_live_buffers, 4u);
  strata_close(d);
}

// An aligned allocation's address, and strata_compact: moves reported as events, the footprint past them.
TEST(HostBackend, AlignmentAndCompact) {
  Opened dev = OpenHost({{"capacity_bytes", std::to_string(16 << 20)}, {"max_live_buffers", "64"}});
  ASSERT_EQ(dev.status, STRATA_OK) << dev.message;
  Recorder rec;
  ASSERT_EQ(strata_set_event_sink(dev.d, &Recorder::Fn, &rec), STRATA_OK);
  const strata_context c = Context(dev.d);
  std::vector<strata_buffer> hs(20);
  for (size_t i = 0; i < hs.size(); ++i) {
    ASSERT_EQ(strata_alloc(dev.d, c, 3000 + 1000 * i, i % 4 == 0 ? 65536 : 0, 0, &hs[i]), STRATA_OK);
    const auto& place = rec.live.at(hs[i] & kBackendBufferMask);
    if (i % 4 == 0) {
      EXPECT_EQ(place.first % 65536, 0u) << i;
    }
  }
  for (size_t i = 0; i < hs.size(); i += 2) ASSERT_EQ(strata_free(dev.d, c, hs[i]), STRATA_OK);
  strata_compact_result r{};
  r.struct_size = sizeof r;
  ASSERT_EQ(strata_compact(dev.d, 0, nullptr, &r), STRATA_OK) << strata_last_error_message();
  EXPECT_GT(r.moves, 0u);
  EXPECT_EQ(rec.moves, r.moves);
  EXPECT_EQ(rec.move_bytes, r.bytes_moved);
  EXPECT_TRUE(rec.ok) << rec.problem;
  EXPECT_EQ(rec.extent, uint64_t{16} << 20);  // reported when the sink was set
  const strata_memory_stats s = Stats(dev.d);
  EXPECT_EQ(s.compaction_moves, r.moves);
  EXPECT_EQ(s.live_buffers, 10u);
  uint64_t top = 0;
  for (const auto& [id, place] : rec.live) top = std::max(top, place.first + place.second);
  EXPECT_GE(s.pool_bytes, top);
  strata_close(dev.d);
}

}  // namespace
}  // namespace strata
