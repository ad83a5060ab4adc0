// Pairs allocation and free events per address into buffer lifetimes (internal to the importers).
#ifndef STRATA_HOST_WORKLOAD_LIFETIMES_H_
#define STRATA_HOST_WORKLOAD_LIFETIMES_H_

#include <stdint.h>

#include <deque>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trace.h"
#include "workload.h"

namespace strata::workload {

// Addresses are reused, so the allocations open at one address form a queue (FIFO): a free closes the oldest.
// Every call costs O(1) (amortized) whatever the events, and memory is one 32-byte record per buffer plus one
// map entry per address with an open buffer: no per-address container (a std::deque costs over 500 bytes).
//
// The buffers' sizes are summed as they are added, under the trace CSV's rule (replay::ParseTrace): the
// calls that add a buffer return false, adding nothing, once the sum would pass replay::kMaxTraceTotalBytes,
// so an importer refuses such an input where a CSV of it could not be read back (and MaxLoad cannot wrap).
class Lifetimes {
 public:
  // What a false return means, for the importer's message (after its "byte N: " or "LINE: ").
  static const char* TotalError();

  // `label`: an index into the caller's label table (Finish's `labels`), or kNoLabel.
  static constexpr uint32_t kNoLabel = UINT32_MAX;
  bool Alloc(uint64_t addr, uint64_t size, uint64_t time, uint32_t label = kNoLabel);
  // torch free_requested: marks the oldest open allocation at addr not yet requested; with none, the block
  // was allocated before recording started and is opened as initially live.
  bool FreeRequested(uint64_t addr, uint64_t size, uint64_t time);
  // Closes the oldest open allocation at addr; with none, the block was live from time 0.
  bool Free(uint64_t addr, uint64_t size, uint64_t time);
  bool IsOpen(uint64_t addr) const;
  // A block live at the end with no allocation in the trace: live from time 0 on.
  bool Initial(uint64_t addr, uint64_t size, uint32_t label = kNoLabel);
  // Closes what is still open (at its free request if it had one, else at end_time), drops 0-byte buffers
  // and fills the trace in (lower, first seen) order with ids 0, 1, ... and the CSV line each will have. With
  // `labels` (the table the label indices point into) and any buffer labelled, trace->labels gets one per buffer.
  void Finish(uint64_t end_time, replay::Trace* trace, ImportStats* stats,
              const std::vector<std::string_view>* labels = nullptr);

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Record {
    uint64_t lower = 0;
    uint64_t upper = 0;  // while open and requested: the time of the free request
    uint64_t size = 0;
    uint32_t next = kNone;  // the next younger open allocation at the same address
    bool open = true;
    bool requested = false;
  };
  // The open allocations at one address, oldest first, linked through Record::next. Requests mark them
  // oldest first and frees close the oldest, so the requested ones are always a prefix of the queue:
  // `unrequested` is the first after it, and FreeRequested needs no search.
  struct Queue {
    uint32_t head = kNone, tail = kNone, unrequested = kNone;
  };
  bool Add(const Record& r);
  bool Open(uint64_t addr, uint64_t size, uint64_t time, bool requested, uint64_t request_time,
            uint32_t label = kNoLabel);
  std::deque<Record> records_;  // grows by blocks: no doubled copy beside the old one at the peak
  // One per record from the first labelled one on (kNoLabel before it): a workload without labels pays nothing.
  std::deque<uint32_t> labels_;
  std::unordered_map<uint64_t, Queue> open_;
  uint64_t total_bytes_ = 0;
};

}  // namespace strata::workload

#endif  // STRATA_HOST_WORKLOAD_LIFETIMES_H_
