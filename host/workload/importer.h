// What every importer shares below the formats: the figures an import reports (ImportStats) and the work budget
// a decoder keeps to, so that no input costs more than a bounded amount of work per byte.
#ifndef STRATA_HOST_WORKLOAD_IMPORTER_H_
#define STRATA_HOST_WORKLOAD_IMPORTER_H_

#include <stdint.h>

#include <string>
#include <utility>
#include <vector>

namespace strata::workload {

struct ImportStats {
  std::string source;              // "torch pickle (protocol 4)", "torch JSON", "RMM log", "trace CSV"
  int64_t device = -1;             // torch: the device imported
  uint64_t devices = 0;            // torch: devices the snapshot has (trace lists or segments)
  uint64_t events = 0;             // source events read (torch: entries of the device's trace; RMM: data rows)
  uint64_t allocs = 0;             // alloc / allocate events
  uint64_t frees = 0;              // free_completed (or free) / free events
  uint64_t free_requests = 0;      // torch: free_requested events
  uint64_t initially_live = 0;     // buffers live from time 0 (allocated before recording started)
  uint64_t never_freed = 0;        // buffers live until the end
  uint64_t closed_by_request = 0;  // torch: freed at free_requested, no free_completed followed
  uint64_t segment_blocks = 0;     // torch: active_allocated blocks with no alloc in the trace
  uint64_t labels = 0;             // torch: distinct labels from the frames (Trace::labels)
  uint64_t labels_dropped = 0;     // torch: frames left unlabelled once the labels' text budget was spent
  uint64_t zero_size_dropped = 0;  // buffers of 0 bytes (a trace CSV cannot hold them)
  uint64_t failed_allocs = 0;      // RMM: "allocate failure" rows
  std::vector<std::pair<std::string, uint64_t>> skipped;  // by action, in first-seen order
  uint64_t peak_live_bytes = 0;                           // peak of the summed live sizes (bytes, no rounding)
  uint64_t visits = 0;  // torch: the walk's work (list items read, dict items compared or indexed)
};

// The work budget of the torch importer's walk over a decoded snapshot: at most this many visits per byte of
// input plus kWalkVisitsBase, else the input is refused. An unshared snapshot needs a few per byte at most
// (each item is read about once, and a dict lookup compares at most Document::kScannedDictPairs keys).
constexpr uint64_t kWalkVisitsPerByte = 16;
constexpr uint64_t kWalkVisitsBase = uint64_t{1} << 16;
inline uint64_t WalkBudget(uint64_t input_bytes) {
  return input_bytes > (UINT64_MAX - kWalkVisitsBase) / kWalkVisitsPerByte
             ? UINT64_MAX
             : input_bytes * kWalkVisitsPerByte + kWalkVisitsBase;
}

}  // namespace strata::workload

#endif  // STRATA_HOST_WORKLOAD_IMPORTER_H_
