// strata-explain's engine: an out-of-memory message as JAX/XLA, TensorFlow, PyTorch or the TPU runtime prints it,
// read back into its numbers, classified by the rule every Strata tool uses (gpu::ClassifyOom: capacity, cap or
// fragmentation) and answered with the settings of docs/fit.md that those numbers support.
#ifndef STRATA_HOST_FIT_EXPLAIN_H_
#define STRATA_HOST_FIT_EXPLAIN_H_

#include <stdint.h>

#include <string>
#include <vector>

namespace strata::fit {

struct Explanation {
  std::string format;     // "pytorch", "xla-bfc", "xla", "tensorflow", "tpu"
  std::string framework;  // "PyTorch", "JAX/XLA or TensorFlow", "JAX/XLA", "TensorFlow", "TPU runtime"
  // What the message says; a flag says whether it said it.
  uint64_t request_bytes = 0;
  bool has_live = false, has_reserved = false, has_limit = false, has_total = false, has_free = false,
       has_largest_free = false;
  uint64_t live_bytes = 0;      // PyTorch: allocated; BFC: bytes_in_use / InUse
  uint64_t reserved_bytes = 0;  // PyTorch: allocated + reserved but unallocated; BFC: pool_bytes / Reserved
  uint64_t limit_bytes = 0;     // BFC: bytes_limit / Limit; PyTorch: "allowed" (a memory fraction)
  uint64_t total_bytes = 0;     // PyTorch: the GPU's total capacity; else --device's
  uint64_t free_bytes = 0;      // PyTorch: free on the GPU; TPU: free HBM
  uint64_t largest_free_bytes = 0;
  std::string kind = "unknown";  // capacity, cap, fragmentation, or unknown when the numbers do not say
  std::string why;               // the classification in words, with its numbers
  std::vector<std::string> advice;
};

// False with *error when the text is none of the known formats or a number in it cannot be read.
// `device_total` / `device_context`: the device's memory (0: unknown), for formats that do not state it.
bool Explain(const std::string& message, uint64_t device_total, uint64_t device_context, Explanation* out,
             std::string* error);
std::string ExplainText(const Explanation& e);
std::string ExplainJson(const Explanation& e);  // one line

}  // namespace strata::fit

#endif  // STRATA_HOST_FIT_EXPLAIN_H_
