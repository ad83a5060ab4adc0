// TensorFlow's reserve for the CUDA context and libraries, shared by the tf (BFC) and tf-async policies.
#ifndef STRATA_HOST_GPU_TF_MEMORY_H_
#define STRATA_HOST_GPU_TF_MEMORY_H_

#include <cstdint>

namespace strata::gpu {

// MinSystemMemory(available, cc_major) of tensorflow/core/common_runtime/gpu/gpu_device.cc (newest version
// read; docs/gpu-policies.md, BFC rule 7), optimised build (non-optimised builds double it).
inline uint64_t TfMinSystemMemory(uint64_t available, uint32_t cc_major) {
  constexpr uint64_t kMiB = 1ull << 20;
  if (available < (2ull << 30)) return 225 * kMiB;
  if (cc_major <= 6) return 500 * kMiB;
  if (cc_major <= 7) return 1050 * kMiB;
  if (cc_major <= 8) return 1536 * kMiB;
  return 1800 * kMiB;
}

}  // namespace strata::gpu

#endif  // STRATA_HOST_GPU_TF_MEMORY_H_
