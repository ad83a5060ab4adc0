// The platform policy (docs/gpu-policies.md P1): JAX's XLA_PYTHON_CLIENT_ALLOCATOR=platform|address, a
// StreamExecutorMemoryAllocator with "no BFC caching or pooled growth" (xla_gpu_allocator_config.h:31-34;
// se_gpu_pjrt_client.cc:1377-1425). Every buffer is one device allocation, page-granular as the 2026 VMM
// path pads each request to the allocation granularity (cuda_device_allocator.cc:216-223); every free is
// one device free, which synchronises the device (the driver counts it). An OOM is the device allocation
// failing: no retry, no cache to release.
//
// The same model serves TF's TF_GPU_ALLOCATOR=cuda_malloc (GPUcudaMallocAllocator: plain cudaMalloc per
// buffer), named "tf-cuda-malloc"; its per-allocation packing below the page is not modelled (P1).
#include <algorithm>
#include <map>

#include "bfc_allocator.h"  // HumanReadableNumBytes
#include "families.h"

namespace strata::gpu {
namespace {

class PlatformPolicy final : public Policy {
 public:
  PlatformPolicy(std::string name, GpuDriver& driver) : name_(std::move(name)), driver_(driver) {}
  ~PlatformPolicy() override {
    for (const auto& [ptr, b] : live_) driver_.Free(b.base);
  }

  const char* name() const override { return name_.c_str(); }

  uint64_t Allocate(uint64_t bytes, uint64_t alignment, Oom* oom) override {
    const uint64_t page = driver_.page_bytes();
    // Device VAs are page-aligned; a larger alignment is met by over-allocating and aligning inside.
    const uint64_t extra = alignment > page ? alignment - page : 0;
    const uint64_t padded = (bytes + extra + page - 1) / page * page;
    const uint64_t base = driver_.Malloc(bytes + extra);
    if (base == 0) {
      ++failed_;
      Oom o;
      o.request_bytes = bytes;
      o.rounded_bytes = padded;
      o.live_bytes = in_use_;
      o.reserved_bytes = in_use_;
      o.largest_free_block_bytes = 0;
      o.limit_bytes = 0;
      o.device_free_bytes = driver_.free_bytes();
      o.kind = ClassifyOom(padded, in_use_, 0, o.device_free_bytes + in_use_);
      ooms_.Count(o.kind);
      // StreamExecutorMemoryAllocator's RESOURCE_EXHAUSTED text (stream_executor_memory_allocator.cc).
      o.message = "RESOURCE_EXHAUSTED: Failed to allocate request for " + HumanReadableNumBytes(bytes) + " (" +
                  std::to_string(bytes) + "B) on device ordinal 0";
      if (oom != nullptr) *oom = o;
      return 0;
    }
    const uint64_t ptr = alignment > page ? (base + alignment - 1) / alignment * alignment : base;
    live_[ptr] = {base, padded, bytes};
    in_use_ += padded;
    requested_ += bytes;
    peak_ = std::max(peak_, in_use_);
    largest_alloc_ = std::max(largest_alloc_, padded);
    ++allocs_;
    return ptr;
  }

  void Deallocate(uint64_t ptr) override {
    auto it = live_.find(ptr);
    if (it == live_.end()) return;
    driver_.Free(it->second.base);  // cudaFree: a device free and a device sync (EmuGpu::Free)
    in_use_ -= it->second.padded;
    requested_ -= it->second.requested;
    live_.erase(it);
    ++frees_;
  }

  PolicyStats Stats() const override {
    PolicyStats s;
    s.bytes_in_use = in_use_;  // device bytes held, page-padded
    s.peak_bytes_in_use = peak_;
    s.requested_bytes = requested_;
    s.pool_bytes = in_use_;  // nothing is cached: everything obtained is in use
    s.peak_pool_bytes = peak_;
    s.largest_alloc_size = largest_alloc_;
    s.num_allocs = allocs_;
    s.num_frees = frees_;
    s.num_failed_allocs = failed_;
    ooms_.CopyTo(&s);
    s.segments = live_.size();
    return s;
  }

  void ResetPeak() override {
    peak_ = in_use_;
    largest_alloc_ = 0;
    allocs_ = frees_ = failed_ = 0;
    ooms_ = {};
  }

 private:
  struct Buffer {
    uint64_t base, padded, requested;
  };
  std::string name_;
  GpuDriver& driver_;
  std::map<uint64_t, Buffer> live_;  // returned ptr -> buffer
  uint64_t in_use_ = 0, requested_ = 0, peak_ = 0, largest_alloc_ = 0;
  uint64_t allocs_ = 0, frees_ = 0, failed_ = 0;
  OomCounts ooms_;
};

}  // namespace

bool MakePlatformPolicy(const std::string& name, GpuDriver& driver, const PolicyConfig& config,
                        std::unique_ptr<Policy>* out, std::string* error) {
  if (name != "jax-platform" && name != "tf-cuda-malloc") {
    *error = "'" + name + "' is not a platform policy (jax-platform)";
    return false;
  }
  if (!config.options.empty()) {
    *error = "unknown option '" + config.options.begin()->first + "' for GPU policy '" + name +
             "' (it takes no options: every buffer is one device allocation)";
    return false;
  }
  *out = std::make_unique<PlatformPolicy>(name, driver);
  return true;
}

std::vector<PolicyOption> PlatformPolicyOptions(const std::string&) { return {}; }

}  // namespace strata::gpu
