// strata-mlp --alloc-trace: the service's device allocations as a buffer-lifetime trace, the CSV that
// strata-replay and strata-compare read (id,lower,upper,size; docs/workloads.md).
//
// The service allocates and frees through AllocTrace instead of calling Context::Alloc and Buffer::Free itself,
// so the trace is taken at the API call sites and is the same on every backend. Times are event indices in
// the order of the calls, as strata-import numbers them: the k-th event (0-based; a strata_alloc that
// succeeded or a strata_free) happens at time k + 1, and a buffer is live over [its allocation, its free).
// A buffer still live when the trace is written ends at (events + 1). An allocation that failed is no buffer
// and no event (the service retries it or waits). `size` is the requested bytes; ids are 0, 1, 2, ... in
// allocation order.
#ifndef STRATA_EXAMPLES_MLP_ALLOC_TRACE_H_
#define STRATA_EXAMPLES_MLP_ALLOC_TRACE_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "strata/strata.hpp"
#include "trace.h"

namespace strata::mlp {

class AllocTrace {
 public:
  // context.Alloc(bytes), recorded when it succeeds (a failure throws, as Context::Alloc does, and records
  // nothing).
  Buffer Alloc(Context& context, uint64_t bytes);
  // buffer.Free() (throws on error), recorded. The service frees every buffer it allocated through here with
  // this, not by letting it go out of scope, so that the free is an event of the trace.
  void Free(Buffer& buffer);

  size_t buffers() const { return trace_.buffers.size(); }
  uint64_t events() const { return events_; }
  // Writes the trace as CSV (workload::WriteTraceCsv) to `path`; "" when written, else why not.
  std::string Write(const std::string& path) const;

 private:
  replay::Trace trace_;                             // upper 0: still live
  std::unordered_map<strata_buffer, size_t> live_;  // handle -> index into trace_.buffers (handles are device-wide)
  uint64_t events_ = 0;
};

}  // namespace strata::mlp

#endif  // STRATA_EXAMPLES_MLP_ALLOC_TRACE_H_
