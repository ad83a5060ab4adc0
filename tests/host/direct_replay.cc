// The direct host replay (direct_replay.h): the allocator library called once per event.
#include "direct_replay.h"

#include <algorithm>
#include <chrono>
#include <functional>

namespace strata::replay {
namespace {

uint64_t RoundUp(uint64_t bytes, uint32_t granule) { return (bytes + granule - 1) / granule * granule; }

uint32_t PeakLiveCount(const std::vector<Event>& events) {
  uint32_t live = 0, peak = 0;
  for (const Event& e : events) {
    live = e.kind == 1 ? live + 1 : live - 1;
    peak = std::max(peak, live);
  }
  return peak;
}

template <typename A>
bool RunReplay(const Trace& trace, const std::vector<Event>& events, uint32_t peak_live, const ReplayOptions& options,
               uint64_t capacity, ReplayResult* r, std::string* error) {
  std::vector<typename A::Node> nodes(A::NodesForLiveBuffers(std::max<uint32_t>(peak_live, 1)));
  A allocator;
  alloc::Options ao;
  ao.capacity_bytes = capacity;
  ao.granule_bytes = options.granule_bytes;
  ao.policy = options.policy;
  strata_status st = allocator.Init(nodes.data(), static_cast<uint32_t>(nodes.size()), ao);
  if (st != STRATA_OK) {
    *error = std::string("allocator Init failed (") + strata_status_name(st) + "): capacity " +
             std::to_string(capacity) + " bytes at granule " + std::to_string(options.granule_bytes) +
             " exceeds 2^40 granules or the granule is not a power of two <= 65536";
    return false;
  }
  std::vector<alloc::Move> moves(std::max<uint32_t>(peak_live, 1));
  std::vector<alloc::Handle> handles(trace.buffers.size());
  using Clock = std::chrono::steady_clock;
  Clock::duration alloc_time{}, free_time{};
  uint64_t allocs = 0, frees = 0, footprint = 0, trace_live = 0;
  for (const Event& e : events) {
    if (options.max_events != 0 && r->events >= options.max_events) break;
    ++r->events;
    const TraceBuffer& b = trace.buffers[e.buffer];
    if (e.kind == 1) {
      alloc::Handle h;
      const auto t0 = Clock::now();
      st = allocator.Allocate(b.size, 0, &h);
      if (st == STRATA_RESOURCE_EXHAUSTED && options.compaction_on_oom) {
        // Outside the timed region: what sliding every buffer down would have copied (the baseline).
        const auto t1 = Clock::now();
        uint64_t slide_all = 0;
        bool hole = false;
        allocator.ForEachBlock([&](uint64_t, uint64_t size, bool live, alloc::Handle) {
          if (!live) hole = true;
          if (live && hole) slide_all += size;
        });
        r->slide_baseline_bytes += slide_all;
        const auto t2 = Clock::now();
        // The trace holds no data: the copy callback tracks the highest address a move reaches and prices each move.
        struct Track {
          uint64_t* footprint;
          const std::function<double(uint64_t)>* cost;
          double* cycles;
        } track_ctx{&footprint, &options.move_cycles, &r->move_cycles_estimate};
        auto track = [](void* ctx, const alloc::Move* m, uint32_t n) {
          Track& t = *static_cast<Track*>(ctx);
          for (uint32_t k = 0; k < n; ++k) {
            *t.footprint = std::max(*t.footprint, m[k].dst_offset + m[k].bytes);
            if (*t.cost) *t.cycles += (*t.cost)(m[k].bytes);
          }
          return STRATA_OK;
        };
        st = allocator.AllocateWithCompaction(b.size, 0, alloc::CompactionBudget{}, moves.data(),
                                              static_cast<uint32_t>(moves.size()), +track, &track_ctx, &h);
        alloc_time -= t2 - t1;
      }
      alloc_time += Clock::now() - t0;
      ++allocs;
      if (st == STRATA_OK) {
        handles[e.buffer] = h;
        alloc::BufferInfo info;
        allocator.GetInfo(h, &info);
        footprint = std::max(footprint, info.offset + info.allocated_bytes);
        r->bytes_allocated += info.allocated_bytes;
      } else if (st == STRATA_RESOURCE_EXHAUSTED) {
        ++r->failed_allocs;
      } else {
        *error = "line " + std::to_string(b.line) + ": Allocate returned " + strata_status_name(st);
        return false;
      }
    } else if (!handles[e.buffer].IsNull()) {
      const auto t0 = Clock::now();
      st = allocator.Free(handles[e.buffer]);
      free_time += Clock::now() - t0;
      ++frees;
      if (st != STRATA_OK) {
        *error = "line " + std::to_string(b.line) + ": Free returned " + strata_status_name(st);
        return false;
      }
      handles[e.buffer] = alloc::Handle{};
    }
    if (options.check_every_op) {
      const alloc::CheckResult c = allocator.Check();
      if (!c.ok()) {
        *error = "line " + std::to_string(b.line) + ": Check() failed: " + c.invariant;
        return false;
      }
    }
    trace_live = e.kind == 1 ? trace_live + b.size : trace_live - b.size;
    if (options.step) {
      ReplayStep step;
      step.live_bytes = trace_live;
      step.event = r->events - 1;
      step.alloc = e.kind == 1;
      step.buffer = e.buffer;
      step.failed = e.kind == 1 && st == STRATA_RESOURCE_EXHAUSTED;
      const alloc::Stats now = allocator.GetStats();
      step.in_use_bytes = now.bytes_in_use;
      step.free_bytes = now.bytes_free;
      step.largest_free_block_bytes = now.largest_free_block_bytes;
      step.footprint_bytes = footprint;
      step.bytes_moved = now.compaction_bytes_moved;
      options.step(step);
    }
    if (options.snapshot_event >= 0 && r->events - 1 == static_cast<uint64_t>(options.snapshot_event)) {
      for (uint32_t k = 0; k < handles.size(); ++k) {
        alloc::BufferInfo info;
        if (!handles[k].IsNull() && allocator.GetInfo(handles[k], &info) == STRATA_OK) {
          r->snapshot.push_back({info.offset, info.allocated_bytes, k});
        }
      }
      std::sort(r->snapshot.begin(), r->snapshot.end(),
                [](const PlacedBuffer& a, const PlacedBuffer& b) { return a.offset < b.offset; });
    }
  }
  const alloc::Stats s = allocator.GetStats();
  const alloc::CheckResult c = allocator.Check();
  if (!c.ok()) {
    *error = std::string("Check() failed after the replay: ") + c.invariant;
    return false;
  }
  r->footprint_bytes = footprint;
  r->compactions = s.compactions;
  r->moves = s.compaction_moves;
  r->bytes_moved = s.compaction_bytes_moved;
  r->ns_per_alloc = allocs ? std::chrono::duration<double, std::nano>(alloc_time).count() / allocs : 0;
  r->ns_per_free = frees ? std::chrono::duration<double, std::nano>(free_time).count() / frees : 0;
  return true;
}

}  // namespace

bool DirectReplay(const Trace& trace, const ReplayOptions& options, ReplayResult* result, std::string* error) {
  ReplayResult& r = *result;
  r = ReplayResult{};
  if (options.granule_bytes == 0 || (options.granule_bytes & (options.granule_bytes - 1)) != 0 ||
      options.granule_bytes > alloc::kMaxGranuleBytes) {
    *error = "granule must be a power of two between 1 and " + std::to_string(alloc::kMaxGranuleBytes);
    return false;
  }
  r.trace = trace.name;
  r.policy = alloc::PolicyName(options.policy);
  r.compaction = options.compaction_on_oom ? "on-oom" : "off";
  r.buffers = trace.buffers.size();
  r.granule_bytes = options.granule_bytes;
  r.max_load_bytes = MaxLoad(trace, options.granule_bytes);
  r.capacity_bytes = options.capacity_bytes;
  r.events_total = 2 * static_cast<uint64_t>(trace.buffers.size());
  r.events_bounded = options.max_events != 0;
  uint64_t capacity = options.capacity_bytes;
  if (capacity == 0) {
    // Unbounded: an allocator that carves from the low end of a block never reaches past the sum of
    // every size in the trace, so that much (plus one granule) never runs out.
    uint64_t sum = options.granule_bytes;
    for (const TraceBuffer& b : trace.buffers) sum += RoundUp(b.size, options.granule_bytes);
    capacity = sum;
  }
  std::vector<Event> built;
  if (options.events == nullptr) built = BuildEvents(trace);
  const std::vector<Event>& events = options.events != nullptr ? *options.events : built;
  const uint32_t peak_live = PeakLiveCount(events);
  bool ok;
  if (alloc::Allocator::NodesForLiveBuffers(peak_live) <= alloc::Allocator::kMaxNodes) {
    ok = RunReplay<alloc::Allocator>(trace, events, peak_live, options, capacity, &r, error);
  } else {
    ok = RunReplay<alloc::WideAllocator>(trace, events, peak_live, options, capacity, &r, error);
  }
  if (!ok) return false;
  r.footprint_ratio = r.max_load_bytes ? double(r.footprint_bytes) / double(r.max_load_bytes) : 0;
  r.bytes_moved_fraction = r.bytes_allocated ? double(r.bytes_moved) / double(r.bytes_allocated) : 0;
  return true;
}

}  // namespace strata::replay
