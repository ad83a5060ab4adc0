// The XLA importer's workload builder: a parsed module (xla_module.h, from either parser) as a workload, the
// logical buffers inside one executable at XLA's own offsets, or what the runtime allocator sees over N steps of a
// loop that calls it. docs/jax.md has the rules and the modelled PJRT order.
#ifndef STRATA_HOST_WORKLOAD_XLA_WORKLOAD_H_
#define STRATA_HOST_WORKLOAD_XLA_WORKLOAD_H_

#include <stdint.h>

#include <string>

#include "trace.h"
#include "xla_module.h"

namespace strata::workload {

enum class XlaView { kExecutable, kSteps };
const char* XlaViewName(XlaView view);  // "executable", "steps"

struct XlaWorkloadOptions {
  XlaView view = XlaView::kExecutable;
  uint64_t steps = 3;    // kSteps: calls of the executable
  bool tpu_pad = false;  // apply the TPU tile-padding rule to every value from its shape (drops XLA's offsets)
};

struct XlaWorkloadStats {
  uint64_t values = 0, buffers = 0;               // logical buffers read, workload buffers made (aliases merged)
  uint64_t unpadded_bytes = 0, padded_bytes = 0;  // sum over the workload's buffers (equal without tpu_pad)
  uint64_t unparsed_shapes = 0;                   // tpu_pad: values whose shape could not be read (left unpadded)
  uint64_t skipped_thread_local = 0, skipped_no_live_range = 0;
};

// The most buffers the steps view makes of a module read from `input_bytes` bytes: 2^17 plus one per 4 input bytes,
// so that the trace (about 112 bytes a buffer at strata-import's peak, the CSV being written) stays within the
// importers' memory bound of 64x the input plus 32 MiB (docs/workloads.md) however large --xla-steps is.
uint64_t XlaStepsBufferLimit(uint64_t input_bytes);

// The workload of one module. kExecutable: the temp allocation's values, aliases (values at one offset whose
// live ranges touch or overlap) merged into one buffer, each with XLA's offset (Trace::planned_offsets, made
// absolute over the temp allocations laid end to end) and shape. kSteps: the PJRT order of docs/jax.md, refused
// before anything is allocated when it would make more than XlaStepsBufferLimit buffers. Either view is refused,
// naming the buffer, when a buffer would pass 2^62 bytes (padded) or the sizes would add up to more than 2^63 (what
// a trace holds, replay/trace.h): no sum over the workload wraps.
bool BuildXlaWorkload(const XlaModule& module, const XlaWorkloadOptions& options, replay::Trace* trace,
                      XlaWorkloadStats* stats, std::string* error);

}  // namespace strata::workload

#endif  // STRATA_HOST_WORKLOAD_XLA_WORKLOAD_H_
