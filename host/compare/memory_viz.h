// strata-compare --memory-viz: one contender's run as a PyTorch memory snapshot, the dict that
// torch.cuda.memory._snapshot() returns, pickled as torch.cuda.memory._dump_snapshot() writes it: what PyTorch's
// memory_viz (pytorch.org/memory_viz) and torch/cuda/_memory_viz.py open. docs/comparison.md says what it holds and
// how it differs from a snapshot PyTorch took.
#ifndef STRATA_HOST_COMPARE_MEMORY_VIZ_H_
#define STRATA_HOST_COMPARE_MEMORY_VIZ_H_

#include <stdint.h>

#include <string>
#include <vector>

#include "compare.h"

namespace strata::compare {

// The contender exported when none is named: torch (PyTorch's own allocator, what memory_viz users know) when it is
// among the contenders, else the first of them.
std::string DefaultMemoryVizContender(const std::vector<Contender>& contenders);

// What an export holds: its trace entries by action, and the segments and blocks live at the end.
struct MemoryVizSummary {
  uint64_t entries = 0, allocs = 0, frees = 0, ooms = 0;
  uint64_t segment_allocs = 0, segment_frees = 0, segment_maps = 0, segment_unmaps = 0;
  uint64_t segments = 0, blocks = 0;  // at the end (blocks: active ones)
};

// Runs contender `name` once more on `trace` as the comparison `report` ran it (its capacity; with a GPU preset, the
// GPU contenders with the CUDA context and Strata without it) and writes the run as a snapshot pickle into *out:
// - segments: what the allocator held at the end. Strata: its HBM, one segment of the capacity. A GPU policy (gpu-emu):
//   each cudaMalloc it holds, and each run of pages it has mapped (cuMemMap: jax-async, tf-async, torch-expandable),
//   with the buffers live in it as active_allocated blocks and the gaps between them as inactive ones;
// - device_traces[0]: every step in the order it happened: segment_alloc / segment_free / segment_map /
//   segment_unmap, alloc, free_requested + free_completed (a buffer a compaction or Defragment() moves is freed at its
//   old address and allocated at its new one: PyTorch has no move), oom (the failed request, device_free). time_us is
//   the trace's event index, not microseconds. A buffer's frame is its label's (Trace::labels, a PyTorch
//   snapshot's innermost user frame) where it has one, else names the workload's file, the buffer's line there and
//   its id.
// False with *error when the name is not one of options.contenders or the run could not be made.
bool MemoryVizSnapshot(const replay::Trace& trace, const std::string& name, const WorkloadReport& report,
                       const Options& options, std::string* out, MemoryVizSummary* summary, std::string* error);

}  // namespace strata::compare

#endif  // STRATA_HOST_COMPARE_MEMORY_VIZ_H_
