// Replays a buffer-lifetime trace through the host driver's C API (strata.h) on the `sim` backend: the
// runtime firmware on the Strata model serves every allocation and free, compacting HBM on OOM, and the
// replay reports device cycles per command beside the host-only figures of replay.h.
#ifndef STRATA_HOST_REPLAY_SIM_REPLAY_H_
#define STRATA_HOST_REPLAY_SIM_REPLAY_H_

#include <stdint.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "replay.h"
#include "runner.h"

namespace strata::replay {

struct SimReplayOptions {
  bool compaction_on_oom = false;  // off: every allocation carries STRATA_ALLOC_FLAG_NO_COMPACT
  uint64_t capacity_bytes = 0;     // the heap the trace gets (required, a multiple of 256 bytes)
  uint64_t max_events = 0;         // 0: the whole trace
  std::string hbm_preset = "HBM2";
  std::string firmware_path;  // empty: the driver's default (sim backend option firmware_path)
  // More open options of the sim backend (--option NAME=VALUE: mxu_n, pcie_preset, timeout_cycles, ...).
  std::vector<std::pair<std::string, std::string>> named_options;
  bool verbose = false;  // one line on stderr per allocation that compacted
  // Called after every event with the running figures (the caller decides when to print).
  struct Progress {
    uint64_t events_done, events_total;
    uint64_t device_cycles;  // device clock since the replay started
    uint64_t bytes_moved;    // by defragment-on-OOM so far
    double wall_seconds;
  };
  std::function<void(const Progress&)> progress;
  // Called from another thread every 10 s while one allocation or free blocks (a compaction moving GBs
  // through the cycle-level HBM can take minutes) with its trace line, size and seconds so far.
  std::function<void(uint32_t line, uint64_t bytes, double seconds)> long_call;
};

// The settings a sim replay shares with the host replay of the same trace (strata-replay, Python's replay()).
inline SimReplayOptions SimReplayOptionsFrom(const ReplayOptions& o) {
  SimReplayOptions so;
  so.compaction_on_oom = o.compaction_on_oom;
  so.capacity_bytes = o.capacity_bytes;
  so.max_events = o.max_events;
  so.verbose = o.verbose;
  return so;
}

// Nearest-rank percentiles of per-command cycle counts.
struct CycleSummary {
  uint64_t n = 0, p50 = 0, p99 = 0, max = 0;
  double mean = 0;
};

struct SimReplayResult {
  // The run (runner.h): events, allocations and frees, the first failed allocation (its buffer id, its event index
  // and the driver's message, which carries the numbers: requested, free, largest free block, the context's quota
  // and use).
  RunResult run;
  uint64_t hbm_capacity_bytes = 0;  // the model's HBM (capacity + staging slots, rounded up to 256 KiB)
  uint64_t heap_bytes = 0;          // what the firmware's allocator manages
  uint64_t pad_bytes = 0;           // heap_bytes - capacity: held by the backend's pad buffer (offset 0)
  // The firmware allocator's stats (a moved pad would count). `compactions` counts committed plans: the
  // runtime plans at most 64 moves at a time, so one allocation may commit several.
  uint64_t compactions = 0, moves = 0, bytes_moved = 0;
  uint64_t compaction_allocs = 0;          // allocations that compacted (the host replay's `compactions`)
  uint64_t compaction_cycles = 0;          // HBM->HBM copy cycles of those compactions (stats compaction_cycles)
  uint64_t compaction_alloc_cycles = 0;    // firmware cycles of the allocations that compacted (plan+copy+commit)
  uint64_t bytes_allocated = 0;            // granule-rounded sizes of successful allocations
  CycleSummary alloc_cycles, free_cycles;  // firmware: decode to completion posted (strata_cpl.cycles)
  CycleSummary alloc_round_trip, free_round_trip;  // host-seen: call to return, PCIe round trips included
  uint64_t device_cycles = 0;                      // device clock over the replay (boot excluded)
  double wall_seconds = 0;                         // open + replay + close
};

// Opens the sim backend with its open option capacity_bytes (the backend sizes its HBM and places a pad buffer at
// offset 0, in a context of its own, when the heap comes out larger than the capacity), creates a context whose quota
// is the capacity, and
// replays the trace's events through strata_alloc/strata_free. A RESOURCE_EXHAUSTED allocation is counted
// and its buffer skipped, as in Replay(); any other failure returns false with *error.
bool SimReplay(const Trace& trace, const SimReplayOptions& options, SimReplayResult* result, std::string* error);

// The device fields, for adding to ToJsonObject()'s object (Json::update keeps their order).
Json SimJsonObject(const SimReplayResult& result);
// The same fields as text, each prefixed with a comma, for appending to ToJson()'s text (python/src/tools_module.cc).
std::string SimJsonFields(const SimReplayResult& result);
// Human-readable rows for appending to ToTable().
std::string SimTable(const SimReplayResult& result);

}  // namespace strata::replay

#endif  // STRATA_HOST_REPLAY_SIM_REPLAY_H_
