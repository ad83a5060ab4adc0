// xla-static, the lower bound and best-fit-decreasing as strata-compare rows.
#include "static_plans.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <numeric>

#include "text.h"

namespace strata::compare {
namespace {

std::string Interval(uint64_t a, uint64_t b) {
  char text[64];  // by snprintf: GCC 12 warns (-Wrestrict, a false positive) on the same built by operator+
  std::snprintf(text, sizeof text, "[%llu, %llu)", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return text;
}

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A plan that needs more than the capacity fails where it first reaches past it: with offsets, the first buffer
// placed (replay order) whose end lies beyond the capacity; the lower bound, the first allocation that takes the
// live bytes past it. The kind is compile-time for a plan (an ahead-of-time compiler refuses the program, as XLA's
// TPU compiler does) and capacity for the bound (no allocator can hold it).
void FirstOverflow(const replay::Trace& trace, const std::vector<replay::Event>& events,
                   const std::vector<uint64_t>* offsets, const std::string& name, uint64_t peak, uint64_t capacity,
                   FirstOom* oom) {
  uint64_t live = 0, footprint = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const replay::Event& e = events[i];
    const replay::TraceBuffer& b = trace.buffers[e.buffer];
    if (e.kind == 0) {
      live -= std::min(live, b.size);
      continue;
    }
    live += b.size;
    const uint64_t end = offsets != nullptr ? (*offsets)[e.buffer] + b.size : live;
    footprint = std::max(footprint, end);
    if (end <= capacity) continue;
    oom->event = static_cast<int64_t>(i);
    oom->buffer_id = static_cast<int64_t>(b.id);
    oom->kind = offsets != nullptr ? "compile-time" : "capacity";
    oom->request_bytes = b.size;
    oom->live_bytes = live - b.size;
    oom->reserved_bytes = footprint;
    char more[48];
    std::snprintf(more, sizeof more, "%.2f %%",
                  100.0 * static_cast<double>(peak - capacity) / static_cast<double>(std::max<uint64_t>(capacity, 1)));
    const std::string whose = name == kStaticPlanRows[0]   ? "XLA's plan"
                              : name == kStaticPlanRows[1] ? "the live buffers at their peak (any allocator)"
                                                           : "the offline packing";
    oom->message = whose + " need" + (name == kStaticPlanRows[1] ? "" : "s") + " " + tool::HumanBytes(peak) + ", " +
                   more + " more than this capacity (" + tool::HumanBytes(capacity) + ")";
    return;
  }
}

}  // namespace

bool CheckPlacement(const replay::Trace& trace, const std::vector<uint64_t>& offsets, uint64_t* peak,
                    std::string* why) {
  *peak = 0;
  std::map<uint64_t, uint32_t> live;  // offset -> buffer index
  for (const replay::Event& e : replay::BuildEvents(trace)) {
    const replay::TraceBuffer& b = trace.buffers[e.buffer];
    const uint64_t at = offsets[e.buffer];
    if (e.kind == 0) {
      auto it = live.find(at);
      if (it != live.end() && it->second == e.buffer) live.erase(it);
      continue;
    }
    auto next = live.lower_bound(at);
    auto clash = [&](uint32_t other) {
      const uint64_t o = offsets[other];
      *why = "buffer " + std::to_string(b.id) + " at " + Interval(at, at + b.size) + " overlaps buffer " +
             std::to_string(trace.buffers[other].id) + " at " + Interval(o, o + trace.buffers[other].size) +
             " at time " + std::to_string(e.time);
      return false;
    };
    if (next != live.end() && next->first < at + b.size) return clash(next->second);
    if (next != live.begin()) {
      auto prev = std::prev(next);
      if (prev->first + trace.buffers[prev->second].size > at) return clash(prev->second);
    }
    live.emplace(at, e.buffer);
    *peak = std::max(*peak, at + b.size);
  }
  return true;
}

namespace {

// The placed buffers, found by time: those live at a point (a segment tree over the trace's distinct times, each
// buffer in the O(log T) nodes that cover its [lower, upper)), and those that start inside an interval (by lower).
// A query costs O(log T + the buffers it returns), where scanning every placed buffer cost O(placed).
class PlacedByTime {
 public:
  explicit PlacedByTime(const replay::Trace& trace) : trace_(trace) {
    for (const replay::TraceBuffer& b : trace.buffers) times_.insert(times_.end(), {b.lower, b.upper});
    std::sort(times_.begin(), times_.end());
    times_.erase(std::unique(times_.begin(), times_.end()), times_.end());
    leaves_ = 1;
    while (leaves_ < times_.size()) leaves_ *= 2;
    nodes_.resize(2 * leaves_);
  }

  void Insert(uint32_t k) {
    const replay::TraceBuffer& b = trace_.buffers[k];
    by_lower_.emplace(b.lower, k);
    // Leaves [Index(lower), Index(upper)): the distinct times t with lower <= t < upper.
    for (size_t lo = Index(b.lower) + leaves_, hi = Index(b.upper) + leaves_; lo < hi; lo /= 2, hi /= 2) {
      if (lo & 1) nodes_[lo++].push_back(k);
      if (hi & 1) nodes_[--hi].push_back(k);
    }
  }

  // Every placed buffer whose [lower, upper) meets b's (q.lower < b.upper and b.lower < q.upper), in no order.
  template <typename F>
  void ForEachOverlapping(const replay::TraceBuffer& b, F&& f) const {
    auto overlaps = [&](uint32_t k) {
      const replay::TraceBuffer& q = trace_.buffers[k];
      return q.lower < b.upper && b.lower < q.upper;
    };
    // Those that start at or before b.lower: live at b.lower.
    for (size_t i = Index(b.lower) + leaves_; i >= 1; i /= 2) {
      for (uint32_t k : nodes_[i]) {
        if (overlaps(k)) f(k);
      }
    }
    // Those that start after b.lower and before b.upper.
    for (auto it = by_lower_.upper_bound(b.lower); it != by_lower_.end() && it->first < b.upper; ++it) {
      if (overlaps(it->second)) f(it->second);
    }
  }

 private:
  size_t Index(uint64_t t) const { return std::lower_bound(times_.begin(), times_.end(), t) - times_.begin(); }

  const replay::Trace& trace_;
  std::vector<uint64_t> times_;
  size_t leaves_ = 1;
  std::vector<std::vector<uint32_t>> nodes_;
  std::multimap<uint64_t, uint32_t> by_lower_;
};

}  // namespace

std::vector<uint64_t> BestFitDecreasing(const replay::Trace& trace) {
  const size_t n = trace.buffers.size();
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
    const replay::TraceBuffer& a = trace.buffers[x];
    const replay::TraceBuffer& b = trace.buffers[y];
    if (a.size != b.size) return a.size > b.size;
    return a.upper - a.lower > b.upper - b.lower;
  });
  std::vector<uint64_t> offsets(n, 0);
  PlacedByTime placed(trace);
  std::vector<std::pair<uint64_t, uint64_t>> busy;  // [offset, end) of the placed buffers live with this one
  for (uint32_t k : order) {
    const replay::TraceBuffer& b = trace.buffers[k];
    busy.clear();
    placed.ForEachOverlapping(b,
                              [&](uint32_t p) { busy.emplace_back(offsets[p], offsets[p] + trace.buffers[p].size); });
    std::sort(busy.begin(), busy.end());
    uint64_t best = UINT64_MAX, best_gap = UINT64_MAX, cursor = 0;
    for (const auto& [start, end] : busy) {
      if (start > cursor && start - cursor >= b.size && start - cursor < best_gap) {
        best = cursor;
        best_gap = start - cursor;
      }
      cursor = std::max(cursor, end);
    }
    offsets[k] = best != UINT64_MAX ? best : cursor;
    placed.Insert(k);
  }
  return offsets;
}

void AppendStaticPlanRuns(const replay::Trace& trace, WorkloadReport* report, size_t detail_points,
                          const std::vector<replay::Event>* events) {
  WorkloadReport& w = *report;
  const uint64_t bound = replay::MaxLoad(trace, 1);
  std::vector<replay::Event> built;
  if (events == nullptr) built = replay::BuildEvents(trace);
  const std::vector<replay::Event>& all_events = events != nullptr ? *events : built;
  // --html: the plan walked in replay order (a free before its buffer's allocation, at equal times, frees nothing;
  // a buffer never freed stays to the end, as in a replay).
  auto detail = [&](const std::vector<uint64_t>* offsets, Run* r) {
    if (detail_points == 0 || events == nullptr) return;
    std::vector<SeriesPoint> full;
    full.reserve(events->size());
    std::vector<int64_t> from(trace.buffers.size(), -1);
    uint64_t live = 0, footprint = 0;
    for (uint64_t i = 0; i < events->size(); ++i) {
      const replay::Event& e = (*events)[i];
      const replay::TraceBuffer& b = trace.buffers[e.buffer];
      if (e.kind == 1) {
        live += b.size;
        from[e.buffer] = static_cast<int64_t>(i);
        if (offsets != nullptr) footprint = std::max(footprint, (*offsets)[e.buffer] + b.size);
      } else if (from[e.buffer] >= 0) {
        live -= b.size;
        if (offsets != nullptr) {
          r->places.push_back({(*offsets)[e.buffer], b.size, static_cast<uint64_t>(from[e.buffer]), i, e.buffer});
        }
        from[e.buffer] = -2;  // freed
      }
      full.push_back({i, live, live, offsets != nullptr ? footprint : bound, 0, 0});
    }
    if (offsets != nullptr) {
      for (uint32_t k = 0; k < from.size(); ++k) {
        if (from[k] >= 0)
          r->places.push_back(
              {(*offsets)[k], trace.buffers[k].size, static_cast<uint64_t>(from[k]), events->size(), k});
      }
      r->has_places = true;
    }
    AddDetail(trace, *events, full, detail_points, r);
  };
  auto row = [&](const std::string& name, const std::string& what, uint64_t peak, double seconds,
                 const std::vector<uint64_t>* offsets, const std::string& note) {
    Run r;
    r.contender = name;
    r.family = "static";
    r.backend = "host";
    r.allocator = what;
    r.capacity_bytes = w.capacity_bytes;
    r.events = 2 * trace.buffers.size();
    r.allocs = trace.buffers.size();
    if (offsets != nullptr) {
      for (size_t k = 0; k < trace.buffers.size(); ++k) {
        if ((*offsets)[k] + trace.buffers[k].size > w.capacity_bytes) ++r.failed_allocs;
      }
    } else if (peak > w.capacity_bytes) {
      r.failed_allocs = 1;
    }
    if (peak > w.capacity_bytes) FirstOverflow(trace, all_events, offsets, name, peak, w.capacity_bytes, &r.first_oom);
    r.peak_live_bytes = bound;
    r.peak_reserved_bytes = peak;
    r.wall_seconds = seconds;
    r.min_capacity.searched = true;
    r.min_capacity.found = true;
    r.min_capacity.bytes = peak;
    r.min_capacity.ratio = w.max_load_bytes ? static_cast<double>(peak) / static_cast<double>(w.max_load_bytes) : 0;
    char gap[64];
    std::snprintf(gap, sizeof gap, "%.4f", bound ? static_cast<double>(peak) / static_cast<double>(bound) : 0.0);
    r.note = "peak " + std::to_string(peak) + " B = " + gap + "x the lower bound (" + std::to_string(bound) +
             " B, bytes exact)" + (note.empty() ? "" : "; " + note);
    detail(offsets, &r);
    w.runs.push_back(std::move(r));
  };
  if (trace.planned_offsets.size() == trace.buffers.size() && !trace.buffers.empty()) {
    const auto t0 = std::chrono::steady_clock::now();
    uint64_t peak = 0;
    std::string why;
    const bool ok = CheckPlacement(trace, trace.planned_offsets, &peak, &why);
    if (!ok) {
      for (size_t k = 0; k < trace.buffers.size(); ++k) {
        peak = std::max(peak, trace.planned_offsets[k] + trace.buffers[k].size);
      }
    }
    row(kStaticPlanRows[0], "XLA's buffer assignment replayed at its own offsets", peak, Seconds(t0),
        &trace.planned_offsets, ok ? "no two live buffers overlap (checked)" : "OVERLAP: " + why);
  }
  row(kStaticPlanRows[1], "the max load: what any allocator needs at least", bound, 0, nullptr, "");
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<uint64_t> bfd = BestFitDecreasing(trace);
  uint64_t peak = 0;
  std::string why;
  const bool ok = CheckPlacement(trace, bfd, &peak, &why);
  row(kStaticPlanRows[2], "offline best-fit by decreasing size (knows every lifetime ahead)", peak, Seconds(t0), &bfd,
      ok ? "no two live buffers overlap (checked)" : "OVERLAP: " + why);
}

}  // namespace strata::compare
