// strata-compare --timeline (see compare_timeline.h).
#include "compare_timeline.h"

#include <nlohmann/json.hpp>

namespace strata::compare {

void WriteRunTimeline(timeline::TraceFile& file, const std::string& workload, const Run& run) {
  const int pid = file.AddProcess(workload + ": " + run.contender + " (" + run.backend + ")");
  file.Label(pid, run.allocator);
  file.Label(pid, "clock: the trace's event index (1 us = one allocation or free), the same for every contender");
  file.Label(pid, run.completed() ? "completes at " + std::to_string(run.capacity_bytes) + " B"
                                  : std::to_string(run.failed_allocs) + " allocations fail at " +
                                        std::to_string(run.capacity_bytes) + " B");
  const bool strata = run.family == "strata";
  const int moves = file.Thread(pid, strata ? "compaction" : "defragmentation");
  const int ooms = file.Thread(pid, "OOM");
  uint64_t moved = 0;
  for (const SeriesPoint& p : run.series) {
    const double t = static_cast<double>(p.event);
    file.Counter(pid, "memory", t,
                 {{"requested (live)", p.live},
                  {"in use", p.in_use},
                  {strata ? "footprint (highest address)" : "reserved (pool)", p.reserved}});
    file.Counter(pid, "largest free block", t, {{"bytes", p.largest_free}});
    if (p.moved > moved) {  // the allocation at this event compacted (Strata) or defragmented (jax+defrag) first
      file.Complete(pid, moves, strata ? "compaction" : "Defragment()", t, 1.0, {{"bytes", p.moved - moved}});
      moved = p.moved;
    }
  }
  for (const auto& [event, kind] : run.oom_events) {
    file.Instant(pid, ooms, "OOM (" + kind + ")", static_cast<double>(event), nlohmann::json::object());
  }
}

}  // namespace strata::compare
