// The one loop that runs workloads on a device through the C API (strata.h): every allocation and free of a
// trace replay, whatever the backend (Strata's allocator on the host, the model, an emulated or a real GPU), and of
// several workloads at once, each on a context of its own (tenants). The callers open the device and create the
// contexts, because those differ (the model's HBM and pad, a GPU's policy and memory); what happens per event, and
// what a run counts, is here once.
#ifndef STRATA_HOST_REPLAY_RUNNER_H_
#define STRATA_HOST_REPLAY_RUNNER_H_

#include <stdint.h>

#include <functional>
#include <string>
#include <vector>

#include "strata/strata.h"
#include "trace.h"

namespace strata::replay {

// One workload on one context of the device.
struct RunStream {
  const Trace* trace = nullptr;
  strata_context context = 0;
};

// A failed allocation: where, which buffer, and what the device said of it.
struct RunOom {
  int64_t event = -1;  // index in run order; -1: none
  int64_t buffer_id = 0;
  uint32_t stream = 0;
  strata_oom_kind kind = STRATA_OOM_NONE;  // STRATA_OOM_NONE too when RunOptions::oom_info is off
  std::string message;                     // the driver's message
  strata_oom_info info{};                  // with RunOptions::oom_info
};

// What a stream of a run (one workload) did.
struct RunStreamResult {
  uint64_t allocs = 0, frees = 0, failed_allocs = 0;
  RunOom first_oom;
};

// What happened at one event, for RunOptions::after_event.
struct RunStep {
  uint64_t index = 0;  // in run order
  uint32_t stream = 0;
  const Event* event = nullptr;
  const TraceBuffer* buffer = nullptr;
  bool alloc = false;
  bool called = false;                       // the device was called (else: a free of a failed buffer, ...)
  strata_status status = STRATA_OK;          // of the allocation or free
  strata_oom_kind failed = STRATA_OOM_NONE;  // the failed allocation's kind (kind NONE without oom_info)
  const RunOom* oom = nullptr;               // a failed allocation: what the device said of it (else null)
  uint64_t live_bytes = 0;                   // the stream's trace: every buffer between its allocation and its free
};

struct RunOptions {
  uint32_t alloc_flags = 0;        // every strata_alloc's flags (STRATA_ALLOC_FLAG_NO_COMPACT)
  bool oom_info = false;           // strata_get_last_oom after each failed allocation (RunOom::kind, info)
  bool defragment_on_oom = false;  // a FRAGMENTATION OOM: strata_compact (JAX's Defragment() on a GPU), then one retry
  bool skip_zero_bytes = false;    // a 0-byte buffer allocates nothing (the GPU frameworks return no memory for it)
  // A buffer larger than this fails without a call (the model's decoder would refuse the size itself); 0: none.
  uint64_t fail_above_bytes = 0;
  std::string fail_above_message;  // then the OOM's message is "requested N B, " and this
  uint64_t max_events = 0;         // 0: every event
  // >= 0: after this event, every live buffer of stream 0 with its device address (the backend's "heap" events,
  // API 1.4) in RunResult::snapshot: bytes the trace's size, or with snapshot_allocated_bytes what the backend's
  // "alloc" event said it took (its rounding).
  int64_t snapshot_event = -1;
  bool snapshot_allocated_bytes = false;
  // Every place stream 0's buffers held, with the events between which they held it (RunResult::places), from the
  // same "heap" events: an allocation opens a span, a move closes it and opens another, a free closes it.
  bool record_places = false;
  // With record_places: every stream's buffers, not stream 0's alone; PlacedSpan::buffer then counts stream 0's
  // buffers first, then stream 1's, and so on (strata-compare --tenant --html).
  bool places_every_stream = false;
  // Called before each call to the device and after each event; false stops the run with *error set by the hook.
  std::function<bool(const RunStep&)> before_call;
  std::function<bool(const RunStep&)> after_event;
  // Every event the backend sends while the run goes (besides what the snapshot uses), e.g. compaction moves.
  std::function<void(const strata_event&)> on_event;
};

// The one result of a run, whatever the device.
struct RunResult {
  uint64_t events = 0, events_total = 0;
  uint64_t allocs = 0, frees = 0, failed_allocs = 0;
  RunOom first_oom;
  std::vector<RunStreamResult> streams;             // one per RunStream
  uint64_t defragmentations = 0, defrag_bytes = 0;  // defragment_on_oom: strata_compact calls and what they moved
  // A strata_compact lost buffers (DATA_LOSS): the run stopped at first_oom.event, so events < events_total.
  bool stopped = false;
  strata_memory_stats stats{};         // device-wide, after the last event (driver costs, peaks, compactions, ...)
  std::vector<PlacedBuffer> snapshot;  // snapshot_event: by buffer index
  uint64_t snapshot_pool_bytes = 0;    // snapshot_event: the device's pool_bytes then (strata_memory_stats)
  std::vector<PlacedSpan> places;      // record_places: in the order they opened
};

// Replays `events` (replay order; stream_of[i]: the stream of event i, or null: all on stream 0) on `device`.
// A RESOURCE_EXHAUSTED allocation is counted, its buffer skipped, and the run goes on; any other failure returns
// false with *error ("line N: ..." for a call the device refused).
bool RunEvents(strata_device* device, const std::vector<RunStream>& streams, const std::vector<Event>& events,
               const std::vector<uint32_t>* stream_of, const RunOptions& options, RunResult* result,
               std::string* error);

// "what: the driver's last message".
std::string ApiError(const std::string& what);

}  // namespace strata::replay

#endif  // STRATA_HOST_REPLAY_RUNNER_H_
