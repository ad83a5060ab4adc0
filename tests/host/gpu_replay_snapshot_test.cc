// GpuReplay's snapshot (every live buffer's device address at one event, from the backend's "heap" events through
// the C API) against the policy itself: the same allocations made directly on an EmuGpu of the same size, whose
// returned pointers are the addresses. Random traces, several policies, a random event each.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>

#include "emu_gpu.h"
#include "gpu_replay.h"
#include "policy.h"
#include "replay.h"

namespace strata::replay {
namespace {

Trace RandomTrace(uint32_t seed, uint32_t buffers) {
  std::mt19937 rng(seed);
  Trace t;
  t.name = "random";
  for (uint32_t i = 0; i < buffers; ++i) {
    TraceBuffer b;
    b.id = i;
    b.lower = rng() % (4 * buffers);
    b.upper = b.lower + 1 + rng() % 400;
    const uint32_t kind = rng() % 3;
    b.size = kind == 0 ? 1 + rng() % 4096 : kind == 1 ? 1 + rng() % (1u << 20) : (1u << 20) + rng() % (16u << 20);
    b.line = i + 2;
    t.buffers.push_back(b);
  }
  return t;
}

// The policy's own pointers after `at` events, as strata-compare drew them before the snapshot went through the API.
std::map<uint32_t, uint64_t> Direct(const Trace& trace, const std::string& policy_name, uint64_t capacity, size_t at,
                                    uint64_t* pool_bytes) {
  gpu::GpuSpec spec;
  spec.total_bytes = capacity;
  spec.context_bytes = 0;
  gpu::EmuGpu device(spec);
  std::unique_ptr<gpu::Policy> policy;
  std::string error;
  EXPECT_TRUE(gpu::MakePolicy(policy_name, device, gpu::PolicyConfig{}, &policy, &error)) << error;
  const std::vector<Event> events = BuildEvents(trace);
  std::vector<uint64_t> ptr(trace.buffers.size(), 0);
  for (size_t i = 0; i <= at; ++i) {
    const Event& e = events[i];
    if (e.kind == 1) {
      gpu::Oom oom;
      ptr[e.buffer] = policy->Allocate(trace.buffers[e.buffer].size, 0, &oom);
    } else if (ptr[e.buffer] != 0) {
      policy->Deallocate(ptr[e.buffer]);
      ptr[e.buffer] = 0;
    }
  }
  *pool_bytes = policy->Stats().pool_bytes;
  std::map<uint32_t, uint64_t> live;
  for (uint32_t k = 0; k < ptr.size(); ++k) {
    if (ptr[k] != 0) live[k] = ptr[k];
  }
  return live;
}

TEST(GpuReplaySnapshot, AddressesAreThePolicysOwn) {
  size_t compared = 0;
  for (uint32_t seed = 1; seed <= 12; ++seed) {
    const Trace trace = RandomTrace(seed, 300);
    const uint64_t load = MaxLoad(trace, 256);
    for (const char* policy : {"jax", "jax-growth", "jax-async", "tf", "tf-async", "torch", "torch-expandable"}) {
      // Tight enough that some runs fail and fragment, loose enough that most complete.
      const uint64_t capacity = (load + load / (2 + seed % 4)) / (2 << 20) * (2 << 20) + (4 << 20);
      std::mt19937 rng(seed * 31 + policy[1]);
      const size_t at = rng() % (2 * trace.buffers.size());
      GpuReplayOptions o;
      o.policy = policy;
      o.total_bytes = capacity;
      o.options["context_bytes"] = "0";
      o.snapshot_event = static_cast<int64_t>(at);
      o.max_events = at + 1;
      GpuReplayResult r;
      std::string error;
      ASSERT_TRUE(GpuReplay(trace, o, &r, &error)) << error;
      uint64_t pool = 0;
      const std::map<uint32_t, uint64_t> want = Direct(trace, policy, capacity, at, &pool);
      std::map<uint32_t, uint64_t> got;
      for (const PlacedBuffer& p : r.run.snapshot) {
        EXPECT_EQ(p.bytes, trace.buffers[p.buffer].size);
        got[p.buffer] = p.offset;
      }
      ASSERT_EQ(got, want) << policy << " seed " << seed << " event " << at;
      EXPECT_EQ(r.run.snapshot_pool_bytes, pool) << policy << " seed " << seed;
      compared += got.size();
    }
  }
  EXPECT_GT(compared, 2000u) << compared;  // the snapshots hold real pictures, not empty pools
}

TEST(GpuReplaySnapshot, NoneWithoutTheOption) {
  const Trace trace = RandomTrace(3, 50);
  GpuReplayOptions o;
  o.policy = "jax";
  o.total_bytes = 1ull << 30;
  GpuReplayResult r;
  std::string error;
  ASSERT_TRUE(GpuReplay(trace, o, &r, &error)) << error;
  EXPECT_TRUE(r.run.snapshot.empty());
}

// What the spans of a run with record_places hold at event `at`: buffer -> offset of the span that covers it.
std::map<uint32_t, uint64_t> PlacesAt(const std::vector<PlacedSpan>& places, uint64_t at) {
  std::map<uint32_t, uint64_t> live;
  for (const PlacedSpan& p : places) {
    if (p.from <= at && at < p.to) {
      EXPECT_TRUE(live.emplace(p.buffer, p.offset).second) << "two spans at " << at;
    }
  }
  return live;
}
std::map<uint32_t, uint64_t> SnapshotOf(const std::vector<PlacedBuffer>& snapshot) {
  std::map<uint32_t, uint64_t> live;
  for (const PlacedBuffer& p : snapshot) live[p.buffer] = p.offset;
  return live;
}

// strata-compare --html's buffer view: the spans of one recorded run hold, at every event, the places the snapshot of
// a run stopped there holds; with compaction (Strata) and Defragment() (jax) moving buffers, and with OOMs.
TEST(GpuReplaySnapshot, PlacesAgreeWithSnapshots) {
  size_t compared = 0, moved = 0;
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    const Trace trace = RandomTrace(seed, 200);
    const uint64_t load = MaxLoad(trace, 256);
    const uint64_t events = 2 * trace.buffers.size();
    std::mt19937 rng(seed);
    std::vector<size_t> at;
    for (int k = 0; k < 6; ++k) at.push_back(rng() % events);
    // Strata's allocator on the host, compaction on OOM, at the max load: it compacts, moving buffers.
    ReplayOptions so;
    so.compaction_on_oom = true;
    so.capacity_bytes = load;
    so.record_places = true;
    ReplayResult full;
    std::string error;
    ASSERT_TRUE(Replay(trace, so, &full, &error)) << error;
    moved += full.places.size() > full.buffers - full.failed_allocs ? 1 : 0;
    for (const size_t a : at) {
      ReplayOptions o = so;
      o.record_places = false;
      o.snapshot_event = static_cast<int64_t>(a);
      o.max_events = a + 1;
      ReplayResult r;
      ASSERT_TRUE(Replay(trace, o, &r, &error)) << error;
      ASSERT_EQ(PlacesAt(full.places, a), SnapshotOf(r.snapshot)) << "strata seed " << seed << " event " << a;
      compared += r.snapshot.size();
    }
    for (const char* policy : {"jax", "tf", "torch"}) {
      GpuReplayOptions go;
      go.policy = policy;
      go.total_bytes = (load + load / 4) / (2 << 20) * (2 << 20) + (2 << 20);
      go.options["context_bytes"] = "0";
      go.defragment_on_oom = std::string(policy) == "jax";
      go.record_places = true;
      GpuReplayResult gfull;
      ASSERT_TRUE(GpuReplay(trace, go, &gfull, &error)) << error;
      for (const PlacedSpan& p : gfull.run.places) EXPECT_LT(p.from, p.to) << policy;
      for (const size_t a : at) {
        if (gfull.run.stopped && a >= gfull.run.events) continue;
        GpuReplayOptions o = go;
        o.record_places = false;
        o.snapshot_event = static_cast<int64_t>(a);
        o.max_events = a + 1;
        GpuReplayResult r;
        ASSERT_TRUE(GpuReplay(trace, o, &r, &error)) << error;
        ASSERT_EQ(PlacesAt(gfull.run.places, a), SnapshotOf(r.run.snapshot))
            << policy << " seed " << seed << " event " << a;
        compared += r.run.snapshot.size();
      }
    }
  }
  EXPECT_GT(compared, 500u) << compared;
  EXPECT_GT(moved, 0u) << "no compaction moved a buffer: the test does not reach the move spans";
}

}  // namespace
}  // namespace strata::replay
