// The sim backend through the backends' conformance suite (gpu_backend_suite.cc): the same calls, statuses and
// checks as on the GPU backends, with the device's own answers where they differ by design (compaction moves
// only what lies above a hole, HBM to HBM, and nothing crosses the host link).
#include "gpu_backend_suite.h"

namespace strata::gpu_suite {
// One case: the model has its firmware allocator, not a GPU policy.
INSTANTIATE_TEST_SUITE_P(Sim, GpuBackendTest, ::testing::Values(GpuCase{"sim", "firmware"}), GpuCaseName);
}  // namespace strata::gpu_suite
