// Replays a trace (trace.h) through the firmware HBM allocator on the host: the options, the result, and the result
// as a JSON line and a table.
#ifndef STRATA_HOST_REPLAY_REPLAY_H_
#define STRATA_HOST_REPLAY_REPLAY_H_

#include <stdint.h>

#include <functional>
#include <string>
#include <vector>

#include "alloc/allocator.h"
#include "json_lines.h"
#include "trace.h"

namespace strata::replay {

// Results as JSON lines are built as the tools' Json (host/tool/json_lines.h).
using tool::Json;

struct ReplayOptions {
  alloc::Policy policy = alloc::Policy::kTlsf;
  bool compaction_on_oom = false;
  uint64_t capacity_bytes = 0;  // 0: unbounded (report the footprint)
  uint32_t granule_bytes = alloc::kDefaultGranuleBytes;
  bool check_every_op = false;  // run Check() after every operation (slow)
  bool verbose = false;         // one line on stderr per defragment-on-OOM event
  uint64_t max_events = 0;      // 0: the whole trace; else stop after this many events (allocations + frees)
  // Called every few thousand events with (events done, events total).
  std::function<void(size_t, size_t)> progress;
  // Called after every event with the allocator's state then (strata-compare's memory series and OOM figures).
  std::function<void(const struct ReplayStep&)> step;
  // >= 0: after this event (index in replay order) record every live buffer's place in ReplayResult::snapshot.
  int64_t snapshot_event = -1;
  bool record_places = false;  // every place each buffer held, and when, in ReplayResult::places (runner.h)
  // When set: the cycles one compaction move of this many bytes costs, summed into move_cycles_estimate.
  std::function<double(uint64_t bytes)> move_cycles;
  // The trace's events (BuildEvents) when the caller already has them: a search replays one trace many times and
  // sorts its events once. Null: built here.
  const std::vector<Event>* events = nullptr;
};

// What ReplayOptions::step sees after each event.
struct ReplayStep {
  uint64_t event = 0;         // index in replay order
  bool alloc = false;         // an allocation (else a free)
  uint32_t buffer = 0;        // index into Trace::buffers
  bool failed = false;        // the allocation failed (RESOURCE_EXHAUSTED)
  uint64_t live_bytes = 0;    // the trace's own live bytes (requested sizes, failed buffers included)
  uint64_t in_use_bytes = 0;  // granule-rounded sizes of the live buffers
  uint64_t free_bytes = 0;    // capacity - in use
  uint64_t largest_free_block_bytes = 0;
  uint64_t footprint_bytes = 0;  // highest address used so far
  uint64_t bytes_moved = 0;      // by compaction so far
};

struct ReplayResult {
  std::string trace;
  std::string policy;
  std::string compaction;  // "off" or "on-oom"
  uint64_t buffers = 0;
  uint64_t max_load_bytes = 0;
  uint64_t capacity_bytes = 0;   // 0 when unbounded
  uint64_t footprint_bytes = 0;  // highest address ever used
  double footprint_ratio = 0;    // footprint / max load
  uint64_t failed_allocs = 0;
  uint64_t compactions = 0;
  uint64_t moves = 0;
  uint64_t bytes_moved = 0;
  double move_cycles_estimate = 0;    // ReplayOptions::move_cycles over every move
  uint64_t slide_baseline_bytes = 0;  // what sliding every buffer down at each compaction would copy
  uint64_t bytes_allocated = 0;       // sum of the granule-rounded sizes of successful allocations
  double bytes_moved_fraction = 0;    // bytes_moved / bytes_allocated
  double ns_per_alloc = 0;            // mean, including any compaction planning it triggered
  double ns_per_free = 0;
  uint32_t granule_bytes = 0;
  uint64_t events = 0;                 // replayed (fewer than events_total with max_events)
  uint64_t events_total = 0;           // 2 x buffers
  bool events_bounded = false;         // max_events was given: ToJson/ToTable name the event counts
  std::vector<PlacedBuffer> snapshot;  // at ReplayOptions::snapshot_event, by offset
  std::vector<PlacedSpan> places;      // ReplayOptions::record_places
};

// Walks time upward; at each time frees the buffers that end, then allocates those that start (file
// order). A failed allocation is counted and its buffer skipped. Returns false with *error if the
// options are invalid or Check() fails.
bool Replay(const Trace& trace, const ReplayOptions& options, ReplayResult* result, std::string* error);

Json ToJsonObject(const ReplayResult& result);
std::string ToJson(const ReplayResult& result);   // one line, no trailing newline
std::string ToTable(const ReplayResult& result);  // human-readable, several lines

// The backends a trace replays on (strata-replay --backend, strata.replay(backend=...)): Strata's allocator library
// on the host, or a backend of the driver. The one list the tool, its help and messages, and Python name.
struct ReplayBackend {
  const char* name;  // "host", "sim", "gpu-emu", "cuda"
  const char* help;  // what a run on it does, for --help (may span lines)
  bool strata;       // Strata's own allocator runs there (the host library, the model): strata-compare --backend
};
const std::vector<ReplayBackend>& ReplayBackends();
// The names of the backends Strata's allocator runs on, from ReplayBackends(): strata-compare's --backend and
// strata.compare(backend=...) ("host", "sim").
std::vector<std::string> StrataBackendNames();
constexpr const char* kDefaultReplayBackend = "host";

// The host allocator's policies, "tlsf, best-fit, first-fit" (alloc::PolicyName's names, not typed again).
std::string HostPolicyNames();
// What to say of a policy the host allocator does not know. gpu_policies: the GPU framework policies the build
// has; a name among them is a GPU policy asked of the host, so the message names `gpu_backend` (how the caller
// picks the gpu-emu backend: "--backend gpu-emu" on the command line, backend="gpu-emu" in Python).
std::string UnknownHostPolicy(const std::string& policy, const std::vector<std::string>& gpu_policies,
                              const std::string& gpu_backend);

}  // namespace strata::replay

#endif  // STRATA_HOST_REPLAY_REPLAY_H_
