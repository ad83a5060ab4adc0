// Pairs allocation and free events per address into buffer lifetimes (internal to the importers).
#ifndef STRATA_HOST_WORKLOAD_LIFETIMES_H_
#define STRATA_HOST_WORKLOAD_LIFETIMES_H_

#include <stdint.h>

#include <deque>
#include <unordered_map>
#include <vector>

#include "replay.h"
#include "workload.h"

namespace strata::workload {

// Addresses are reused, so the allocations open at one address form a queue (FIFO): a free closes the oldest.
class Lifetimes {
 public:
  void Alloc(uint64_t addr, uint64_t size, uint64_t time);
  // torch free_requested: marks the oldest open allocation at addr not yet requested; with none, the block
  // was allocated before recording started and is opened as initially live.
  void FreeRequested(uint64_t addr, uint64_t size, uint64_t time);
  // Closes the oldest open allocation at addr; with none, the block was live from time 0.
  void Free(uint64_t addr, uint64_t size, uint64_t time);
  bool IsOpen(uint64_t addr) const;
  // A block live at the end with no allocation in the trace: live from time 0 on.
  void Initial(uint64_t addr, uint64_t size);
  // Closes what is still open (at its free request if it had one, else at end_time), drops 0-byte buffers
  // and fills the trace in (lower, first seen) order with ids 0, 1, ... and the CSV line each will have.
  void Finish(uint64_t end_time, replay::Trace* trace, ImportStats* stats);

 private:
  struct Record {
    uint64_t lower = 0;
    uint64_t upper = 0;
    uint64_t size = 0;
    uint64_t request_time = 0;
    bool open = true;
    bool requested = false;
  };
  uint32_t Open(uint64_t addr, uint64_t size, uint64_t time);
  std::vector<Record> records_;
  std::unordered_map<uint64_t, std::deque<uint32_t>> open_;
};

}  // namespace strata::workload

#endif  // STRATA_HOST_WORKLOAD_LIFETIMES_H_
