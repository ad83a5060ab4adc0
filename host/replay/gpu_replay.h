// Replays a buffer-lifetime trace through the host driver's C API on a GPU backend: `gpu-emu` (an emulated GPU)
// or `cuda` (a real one), under one of the JAX / TensorFlow / PyTorch allocation policies (host/gpu). Reports what the
// framework would: which allocation fails first and why (capacity, cap or fragmentation), at what reserved size, and
// what the policy asked of the driver.
#ifndef STRATA_HOST_REPLAY_GPU_REPLAY_H_
#define STRATA_HOST_REPLAY_GPU_REPLAY_H_

#include <stdint.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "replay.h"
#include "runner.h"

namespace strata::replay {

// One replayed event and the memory after it: what strata-replay --series writes, one CSV row per event.
struct GpuSeriesRow {
  uint64_t event = 0;               // index in replay order
  uint64_t time = 0;                // the trace's time of the event
  bool alloc = false;               // an allocation (else a free)
  int64_t buffer_id = 0;            // the trace's id
  uint64_t size = 0;                // the buffer's bytes
  uint64_t live_bytes = 0;          // what the trace has live after the event (requested sizes, failed ones included)
  uint64_t in_use_bytes = 0;        // the policy's bytes_in_use (its own rounding; failed buffers not held)
  uint64_t reserved_bytes = 0;      // the policy's pool_bytes: what the framework holds from the device
  const char* oom = "none";         // the failed allocation's kind (capacity, cap, fragmentation), or "none"
  uint64_t largest_free_bytes = 0;  // the policy's largest_free_block_bytes
  uint64_t moved_bytes = 0;         // through the host by Defragment() so far
  uint64_t device_free_bytes = 0;   // a failed allocation: the device's free memory then (strata_oom_info)
};

struct GpuReplayOptions {
  std::string backend = "gpu-emu";  // or "cuda"
  std::string policy = "jax";
  std::string gpu;                 // a preset name; empty: total_bytes (or the backend's default preset)
  uint64_t total_bytes = 0;        // the GPU's total memory; 0: the preset's
  bool defragment_on_oom = false;  // on a fragmentation OOM, JAX's Defragment() (host bounce), then retry once
  uint64_t max_events = 0;
  std::map<std::string, std::string> options;  // more open options (policy settings, context_bytes, device, ...)
  // Called after every replayed event with the memory stats at that moment: one strata_get_memory_stats each,
  // measured on bert_base.csv (11,240 events, 1.5x): jax 0.02 s with and without it, jax-async 0.04 s -> 0.06 s
  // (its stats walk the pool's pages); strata-compare asks for it only for the run it draws, not in its search.
  std::function<void(const GpuSeriesRow&)> series;
  // The trace's events (BuildEvents) when the caller already has them (ReplayOptions::events). Null: built here.
  const std::vector<Event>* events = nullptr;
  // >= 0: after this event (index in replay order) record every live buffer's device address, from the backend's
  // "heap" events (API 1.4), in GpuReplayResult::snapshot, and the pool's bytes then.
  int64_t snapshot_event = -1;
  bool record_places = false;  // every place each buffer held, and when, in GpuReplayResult::run.places (runner.h)
  // Every event the backend sends while the run goes, in the order it sends them (RunOptions::on_event): "heap" and,
  // on gpu-emu, "device" (strata-compare --memory-viz's segments and blocks).
  std::function<void(const strata_event&)> on_event;
};

struct GpuReplayResult {
  std::string backend, policy, gpu;
  uint64_t total_bytes = 0;
  // The run (runner.h): events, allocations and frees, the first OOM with the backend's numbers, Defragment()
  // calls, what the policy asked of the driver (its memory stats at the end), the snapshot with snapshot_event. A
  // Defragment() that could not place every buffer again (a fragmentation OOM that lost buffers) stopped it at the
  // first OOM's event (run.stopped, run.events < run.events_total).
  RunResult run;
  double wall_seconds = 0;
  // GpuReplay failed because the backend refused the options (INVALID_ARGUMENT: an unknown policy or GPU
  // preset, a bad value): the caller's input, not a device that failed.
  bool options_refused = false;
};

// A RESOURCE_EXHAUSTED allocation is counted and its buffer skipped; anything else returns false with *error.
bool GpuReplay(const Trace& trace, const GpuReplayOptions& options, GpuReplayResult* result, std::string* error);

std::string GpuSeriesHeader();                      // the CSV header line, with its newline
std::string GpuSeriesCsv(const GpuSeriesRow& row);  // one CSV line, with its newline
Json GpuJsonObject(const GpuReplayResult& result);
std::string GpuJson(const GpuReplayResult& result);   // one line
std::string GpuTable(const GpuReplayResult& result);  // several lines

}  // namespace strata::replay

#endif  // STRATA_HOST_REPLAY_GPU_REPLAY_H_
