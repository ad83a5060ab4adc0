// strata-explain's engine: an out-of-memory message as JAX/XLA, TensorFlow, PyTorch or the TPU runtime prints it,
// read back into its numbers, classified by the rule every Strata tool uses (gpu::ClassifyOom: capacity, cap or
// fragmentation) and answered with the settings of docs/fit.md that those numbers support.
#ifndef STRATA_HOST_FIT_EXPLAIN_H_
#define STRATA_HOST_FIT_EXPLAIN_H_

#include <stddef.h>
#include <stdint.h>

#include <string>
#include <vector>

namespace strata::fit {

struct Explanation {
  // "pytorch", "pytorch-mps", "pytorch-async", "xla-bfc", "xla-async", "xla", "xla-platform", "tensorflow",
  // "tensorflow-eager", "tpu", "tpu-reserve", "tpu-compile", "vllm-kv", "vllm-startup", "vllm-no-cache",
  // "oom-text" (no numbers)
  std::string format;
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
  // capacity, cap, fragmentation; unknown when the numbers do not say; inconsistent when they cannot all be true
  // (allocated above reserved, sums past 2^63 bytes, a cap beyond the GPU's total).
  std::string kind = "unknown";  // also other-process, compile-time (issue 49; tests/fit/corpus/README.md)
  std::string why;               // the classification in words, with its numbers
  std::vector<std::string> advice;
  std::string capture;  // when the numbers do not decide: what to capture next
};

// The longest message Explain reads (64 KiB): an OOM error with the allocator's statistics is a few KB; a longer text
// is a log, refused with an error that says so. Reading is linear in the message (explain.cc says why no regex).
constexpr size_t kMaxMessageBytes = 64 * 1024;

// False with *error when the text is none of the known formats, longer than kMaxMessageBytes, or a number in it
// cannot be read (a size or a tensor's bytes at or past 2^63). Touches nothing but its arguments: the Python module
// calls it without the GIL.
// `device_total` / `device_context`: the device's memory (0: unknown), for formats that do not state it.
bool Explain(const std::string& message, uint64_t device_total, uint64_t device_context, Explanation* out,
             std::string* error);
// The same, with the settings the user already has on (names such as "expandable_segments" or
// "XLA_PYTHON_CLIENT_PREALLOCATE"): no advice line names one of them.
bool Explain(const std::string& message, uint64_t device_total, uint64_t device_context,
             const std::vector<std::string>& settings_on, Explanation* out, std::string* error);
std::string ExplainText(const Explanation& e);
std::string ExplainJson(const Explanation& e);  // one line

}  // namespace strata::fit

#endif  // STRATA_HOST_FIT_EXPLAIN_H_
