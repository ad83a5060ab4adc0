// Replays buffer-lifetime traces (MiniMalloc/idealloc CSV) through the firmware HBM allocator on the host.
#ifndef STRATA_HOST_REPLAY_REPLAY_H_
#define STRATA_HOST_REPLAY_REPLAY_H_

#include <stdint.h>

#include <functional>
#include <istream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "alloc/allocator.h"

namespace strata::replay {

struct TraceBuffer {
  int64_t id = 0;
  uint64_t lower = 0;  // live over [lower, upper)
  uint64_t upper = 0;
  uint64_t size = 0;
  uint32_t line = 0;  // 1-based line in the file
};

struct Trace {
  std::string name;  // file name without directories
  std::vector<TraceBuffer> buffers;
  // Optional, empty or one per buffer (XLA imports, host/workload/xla_dump.h): the offset a static planner gave
  // each buffer (strata-compare's xla-static row) and its shape ("f32[128,256]{1,0}", for tile padding).
  std::vector<uint64_t> planned_offsets;
  std::vector<std::string> shapes;
};

// The largest buffer a trace may hold, and the most all of its sizes may add up to: so that no load, sum or
// granule rounding computed from a trace can wrap 64 bits.
constexpr uint64_t kMaxTraceBytes = uint64_t{1} << 62;
constexpr uint64_t kMaxTraceTotalBytes = uint64_t{1} << 63;

// "1.41 GiB", "512 B": bytes in the largest binary unit below 1024 of it (two decimals above bytes).
std::string HumanBytes(uint64_t bytes);

// `text` safe to print on a terminal: each control character (C0, DEL) as \n, \t or \xHH and each backslash
// doubled, so a name or a field from a file cannot move the cursor, recolour or retitle the terminal; cut at
// `max_bytes` of the text with "..." after it. For everything a tool prints that came from an input.
std::string Printable(const std::string& text, size_t max_bytes = SIZE_MAX);

// JSON output is built as nlohmann::ordered_json (keys in the order written) and printed by JsonLine: one line,
// never malformed (bytes that are not UTF-8 become U+FFFD instead of an exception).
using Json = nlohmann::ordered_json;
std::string JsonLine(const Json& value);
// x to `digits` decimals, for JSON numbers (the shortest text for it is printed).
double JsonRound(double x, int digits);
// The body of a JSON string for `s` (quotes, backslashes and control characters escaped), by nlohmann-json; for
// callers that still splice JSON text (python/src/tools_module.cc).
std::string JsonEscape(const std::string& s);

// Parses the CSV: a header naming at least id, lower, upper, size (any order, extra columns ignored),
// then one buffer per line. On error returns false with "LINE: what is wrong" in *error.
bool ParseTrace(std::istream& in, const std::string& name, Trace* trace, std::string* error);
// Same, from a file; errors read "PATH:LINE: what is wrong".
bool LoadTrace(const std::string& path, Trace* trace, std::string* error);

// One step of a replay: at each time, the buffers that end are freed, then those that start are allocated.
struct Event {
  uint64_t time;
  uint32_t kind;    // 0 free, 1 allocate: frees first at equal times
  uint32_t buffer;  // index into Trace::buffers
};
// Every buffer's allocation and free, in replay order (time, frees first, then file order).
std::vector<Event> BuildEvents(const Trace& trace);

// Peak of the summed live sizes, each rounded up to the granule: the least memory any allocator needs.
uint64_t MaxLoad(const Trace& trace, uint32_t granule_bytes);

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

// A live buffer's place in the heap.
struct PlacedBuffer {
  uint64_t offset = 0, bytes = 0;  // bytes: granule-rounded
  uint32_t buffer = 0;             // index into Trace::buffers
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
};

// Walks time upward; at each time frees the buffers that end, then allocates those that start (file
// order). A failed allocation is counted and its buffer skipped. Returns false with *error if the
// options are invalid or Check() fails.
bool Replay(const Trace& trace, const ReplayOptions& options, ReplayResult* result, std::string* error);

Json ToJsonObject(const ReplayResult& result);
std::string ToJson(const ReplayResult& result);   // one line, no trailing newline
std::string ToTable(const ReplayResult& result);  // human-readable, several lines

// "1.0x" (times max load) or a byte count with an optional K/M/G/T (or KiB/MiB/GiB/TiB) suffix.
bool ParseCapacity(const std::string& text, uint64_t max_load, uint32_t granule, uint64_t* bytes, std::string* error);

// The host allocator's policies, "tlsf, best-fit, first-fit" (alloc::PolicyName's names, not typed again).
std::string HostPolicyNames();
// What to say of a policy the host allocator does not know. gpu_policies: the GPU framework policies the build
// has; a name among them is a GPU policy asked of the host, so the message names `gpu_backend` (how the caller
// picks the gpu-emu backend: "--backend gpu-emu" on the command line, backend="gpu-emu" in Python).
std::string UnknownHostPolicy(const std::string& policy, const std::vector<std::string>& gpu_policies,
                              const std::string& gpu_backend);

}  // namespace strata::replay

#endif  // STRATA_HOST_REPLAY_REPLAY_H_
