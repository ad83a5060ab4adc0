// TensorFlow's own compiled BFC allocator (tsl::BFCAllocator and tensorflow::GPUBFCAllocator from the
// tensorflow-cpu wheel's libtensorflow_framework.so.2) behind an interface with no TensorFlow types, so that
// only tsl_bfc_shim.cc is compiled against the wheel's headers (C++17, as the wheel was built) and the rest
// of the test against the project's.
#ifndef STRATA_TESTS_GPU_FIDELITY_TSL_BFC_SHIM_H_
#define STRATA_TESTS_GPU_FIDELITY_TSL_BFC_SHIM_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace strata::fidelity {

// The device under the allocator: what the sub-allocator asks of the GPU driver. `alloc` returns a fresh
// address (never adjacent to another region) or 0 when the device is out of pages.
struct Device {
  std::function<uint64_t(uint64_t bytes)> alloc;
  std::function<void(uint64_t va)> free;
};

struct RealStats {
  uint64_t bytes_in_use = 0, peak_bytes_in_use = 0, pool_bytes = 0, peak_pool_bytes = 0, bytes_limit = 0;
  uint64_t largest_free_block_bytes = 0;
};

class RealBfc {
 public:
  virtual ~RealBfc() = default;
  // One pass of the allocator's search-extend-collect path (AllocateRawInternal), as each attempt of the
  // retry helper makes it. 0 when it fails.
  virtual uint64_t AllocateOnce(uint64_t bytes) = 0;
  // The allocator's own AllocateRaw with retry on failure as the frameworks leave it: on a failure it
  // waits up to 10 s for a free from another thread before its last attempt.
  virtual uint64_t AllocateWithRetryHelper(uint64_t bytes) = 0;
  virtual void Deallocate(uint64_t ptr) = 0;
  virtual RealStats Stats() = 0;
  // TF 2.21's Extend back-pedals by x0.9 rounded up to 256 B; below 2560 B that gives the same size back, and
  // while the device keeps refusing it asks for that size forever (newer tsl steps down by 256 B instead).
  // The sub-allocator notices the second identical failed request in a row and ends the loop by handing out a
  // region that is not on the device: from then on the allocator is no longer the framework's and the replay
  // must stop. 0 while that has not happened, else the size it spun at.
  virtual uint64_t spun_at_bytes() const = 0;
};

// JAX's device allocator: tsl::BFCAllocator with the options xla/pjrt/gpu/gpu_helpers.cc passes.
std::unique_ptr<RealBfc> MakeXlaBfc(Device device, uint64_t limit, bool preallocate);
// TensorFlow's: tensorflow::GPUBFCAllocator with the options gpu_process_state.cc passes.
std::unique_ptr<RealBfc> MakeTfGpuBfc(Device device, uint64_t limit, bool allow_growth);

}  // namespace strata::fidelity

#endif  // STRATA_TESTS_GPU_FIDELITY_TSL_BFC_SHIM_H_
