// Compiled against the tensorflow-cpu wheel's headers (include/ of the installed package) and linked with its
// libtensorflow_framework.so.2: the allocator running here is the framework's compiled code, not ours.
// Line citations "wheel:PATH:N" are lines of the headers in tensorflow_cpu-2.21.0 (scripts/setup.sh pins it).
#include "tsl_bfc_shim.h"

#include <memory>
#include <optional>
#include <utility>

#include "tensorflow/core/common_runtime/gpu/gpu_bfc_allocator.h"
#include "xla/tsl/framework/allocator.h"
#include "xla/tsl/framework/bfc_allocator.h"

namespace strata::fidelity {
namespace {

// XLA's se::DeviceMemAllocator in the one respect the BFC sees (wheel:
// tensorflow/compiler/xla/stream_executor/integrations/device_mem_allocator.h:46-73): it reports exactly the
// bytes asked for as bytes_received (:51), whatever the driver rounds them to; Free returns the region; it does
// not support coalescing (:69), so regions are never merged. The driver is the project's emulated GPU, which
// hands out fresh page-aligned address ranges with gaps between them, as cudaMalloc does.
class DriverSubAllocator final : public tsl::SubAllocator {
 public:
  explicit DriverSubAllocator(Device device) : tsl::SubAllocator({}, {}), device_(std::move(device)) {}
  void* Alloc(size_t /*alignment*/, size_t num_bytes, size_t* bytes_received) override {
    *bytes_received = num_bytes;
    if (num_bytes == 0) return nullptr;
    const uint64_t va = device_.alloc(num_bytes);
    if (va != 0) {
      last_failed_ = 0;
      return reinterpret_cast<void*>(static_cast<uintptr_t>(va));
    }
    // The same size refused twice in a row where x0.9 rounded up to 256 B gives it back: Extend is spinning
    // (see RealBfc::spun_at_bytes). Above 2560 B the back-pedal always shrinks, so a repeat there is a new
    // Extend (the next pass of the retry helper), not a spin.
    const size_t backpedal = (static_cast<size_t>(num_bytes * 0.9f) + 255) / 256 * 256;
    if (num_bytes != last_failed_ || backpedal < num_bytes) {
      last_failed_ = num_bytes;
      return nullptr;
    }
    // An address no device range uses, 256-aligned as Extend checks; Free ignores it.
    if (spun_at_ == 0) spun_at_ = num_bytes;
    return reinterpret_cast<void*>(static_cast<uintptr_t>(kNotOnDevice));
  }
  uint64_t spun_at() const { return spun_at_; }
  void Free(void* ptr, size_t /*num_bytes*/) override {
    if (ptr != nullptr && reinterpret_cast<uintptr_t>(ptr) != kNotOnDevice)
      device_.free(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(ptr)));
  }
  bool SupportsCoalescing() const override { return false; }
  tsl::AllocatorMemoryType GetMemoryType() const override { return tsl::AllocatorMemoryType::kDevice; }

 private:
  static constexpr uintptr_t kNotOnDevice = uintptr_t{0xf} << 60;
  Device device_;
  uint64_t last_failed_ = 0, spun_at_ = 0;
};

// Every device allocator in JAX and TF asks for at least the BFC's own 256 B alignment; the emulated policies
// are called with alignment 0, which they raise to 256 as tsl does (bfc_allocator.cc AllocateRawInternal).
constexpr size_t kAlignment = 256;

class Real final : public RealBfc {
 public:
  Real(std::unique_ptr<tsl::BFCAllocator> a, const DriverSubAllocator* sub) : a_(std::move(a)), sub_(sub) {}
  uint64_t spun_at_bytes() const override { return sub_->spun_at(); }
  uint64_t AllocateOnce(uint64_t bytes) override {
    // retry_on_failure = false takes AllocateRaw's one-pass branch (wheel bfc_allocator.h AllocateRaw; .cc:
    // "if (!opts_.allow_retry_on_failure || !allocation_attr.retry_on_failure)"): one AllocateRawInternal.
    tsl::AllocationAttributes attr;
    attr.retry_on_failure = false;
    return Ptr(a_->AllocateRaw(kAlignment, bytes, attr));
  }
  uint64_t AllocateWithRetryHelper(uint64_t bytes) override {
    return Ptr(a_->AllocateRaw(kAlignment, bytes, tsl::AllocationAttributes()));
  }
  void Deallocate(uint64_t ptr) override { a_->DeallocateRaw(reinterpret_cast<void*>(static_cast<uintptr_t>(ptr))); }
  RealStats Stats() override {
    RealStats r;
    const std::optional<tsl::AllocatorStats> s = a_->GetStats();
    if (!s) return r;
    r.bytes_in_use = static_cast<uint64_t>(s->bytes_in_use);
    r.peak_bytes_in_use = static_cast<uint64_t>(s->peak_bytes_in_use);
    r.pool_bytes = static_cast<uint64_t>(s->pool_bytes.value_or(0));
    r.peak_pool_bytes = static_cast<uint64_t>(s->peak_pool_bytes.value_or(0));
    r.bytes_limit = static_cast<uint64_t>(s->bytes_limit.value_or(0));
    r.largest_free_block_bytes = static_cast<uint64_t>(s->largest_free_block_bytes);
    return r;
  }

 private:
  static uint64_t Ptr(void* p) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)); }
  std::unique_ptr<tsl::BFCAllocator> a_;
  const DriverSubAllocator* sub_;  // owned by a_
};

}  // namespace

std::unique_ptr<RealBfc> MakeXlaBfc(Device device, uint64_t limit, bool preallocate) {
  // xla/pjrt/gpu/gpu_helpers.cc CreateBFCAllocator: "tsl::BFCAllocator::Options opts; opts.allow_growth =
  // !preallocate;" and nothing else, so allow_retry_on_failure = true, garbage_collection = false,
  // fragmentation_fraction = 0 (the defaults, wheel: tensorflow/compiler/xla/tsl/framework/bfc_allocator.h:59-77);
  // name "GPU_<ordinal>_bfc".
  tsl::BFCAllocator::Options opts;
  opts.allow_growth = !preallocate;
  auto sub = std::make_unique<DriverSubAllocator>(std::move(device));
  const DriverSubAllocator* s = sub.get();
  return std::make_unique<Real>(std::make_unique<tsl::BFCAllocator>(std::move(sub), limit, "GPU_0_bfc", opts), s);
}

std::unique_ptr<RealBfc> MakeTfGpuBfc(Device device, uint64_t limit, bool allow_growth) {
  // tensorflow/core/common_runtime/gpu/gpu_process_state.cc GetGPUAllocator: GPUBFCAllocator::Options with
  // allow_growth = options.allow_growth(), allow_retry_on_failure = !disallow_retry_on_allocation_failure()
  // (default false, so true), fragmentation_fraction = internal_fragmentation_fraction() (default 0), and
  // garbage_collection left unset, so that GPUBFCAllocator's constructor reads TF_ENABLE_GPU_GARBAGE_COLLECTION
  // (default true) and TF_FORCE_GPU_ALLOW_GROWTH itself (wheel: tensorflow/core/common_runtime/gpu/
  // gpu_bfc_allocator.h:33-48). The caller clears both variables first.
  tensorflow::GPUBFCAllocator::Options opts;
  opts.allow_growth = allow_growth;
  opts.allow_retry_on_failure = true;
  opts.fragmentation_fraction = 0;
  auto sub = std::make_unique<DriverSubAllocator>(std::move(device));
  const DriverSubAllocator* s = sub.get();
  return std::make_unique<Real>(std::make_unique<tensorflow::GPUBFCAllocator>(std::move(sub), limit, "GPU_0_bfc", opts),
                                s);
}

}  // namespace strata::fidelity
