// A GPU framework's allocation policy (JAX, TensorFlow, PyTorch), rule for rule from
// the gpu-policies digest (docs/gpu-policies.md), over a GpuDriver (emulated or real). Pure host logic: no
// simulator, no CUDA headers.
#ifndef STRATA_HOST_GPU_POLICY_H_
#define STRATA_HOST_GPU_POLICY_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "emu_gpu.h"

namespace strata::gpu {

// Why an allocation failed (DESIGN.md: every failed allocation is classified).
enum class OomKind : uint8_t {
  kNone = 0,
  kCapacity,       // live bytes + request exceed the device's usable memory
  kCap,            // the device has room, the policy's limit or fraction does not
  kFragmentation,  // the policy holds (or may obtain) enough free memory, but no block fits
};
const char* OomKindName(OomKind kind);  // "none", "capacity", "cap", "fragmentation"

// The classification rule shared by every policy. `request` is the policy's rounded request; `limit`
// is 0 when the policy has none; `device_usable` is total minus the context (what a process can get).
OomKind ClassifyOom(uint64_t request, uint64_t live, uint64_t limit, uint64_t device_usable);

// The state at a failed allocation, and the message the framework itself would print.
struct Oom {
  OomKind kind = OomKind::kNone;
  uint64_t request_bytes = 0;   // as asked
  uint64_t rounded_bytes = 0;   // after the policy's rounding
  uint64_t live_bytes = 0;      // bytes_in_use at that moment
  uint64_t reserved_bytes = 0;  // pool_bytes / reserved at that moment
  uint64_t largest_free_block_bytes = 0;
  uint64_t limit_bytes = 0;
  uint64_t device_free_bytes = 0;  // cudaMemGetInfo's free at that moment
  std::string message;             // e.g. PyTorch's "CUDA out of memory. Tried to allocate ..."
};

// The union of the frameworks' statistics under their names (docs/gpu-policies.md P8).
struct PolicyStats {
  uint64_t bytes_in_use = 0;  // tsl: chunk sizes in use; PyTorch: allocated_bytes
  uint64_t peak_bytes_in_use = 0;
  uint64_t requested_bytes = 0;  // sum of the live requests as asked
  uint64_t bytes_limit = 0;      // 0 = none
  uint64_t pool_bytes = 0;       // tsl pool_bytes = PyTorch reserved_bytes: obtained from the driver
  uint64_t peak_pool_bytes = 0;
  uint64_t largest_free_block_bytes = 0;
  uint64_t largest_alloc_size = 0;
  uint64_t inactive_split_bytes = 0;  // PyTorch
  uint64_t num_allocs = 0;
  uint64_t num_frees = 0;
  uint64_t num_failed_allocs = 0;
  uint64_t oom_capacity = 0, oom_cap = 0, oom_fragmentation = 0;
  uint64_t num_alloc_retries = 0;  // PyTorch num_alloc_retries / BFC retries
  // PyTorch's num_device_alloc / num_device_free as it counts them: one per cudaMalloc / cudaFree, and with
  // expandable segments one per map_block / unmap_block call however many pages it maps (the driver's
  // device_allocs counts every cuMemCreate, one per page). 0 for the policies of other frameworks.
  uint64_t num_device_alloc = 0;
  uint64_t num_device_free = 0;
  uint64_t segments = 0;     // regions / segments currently held
  double fragmentation = 0;  // (pool - in_use - largest_free) / (pool - in_use), 0 when nothing is free
};

// Failed allocations by kind: what every policy counts for PolicyStats::oom_*.
struct OomCounts {
  uint64_t capacity = 0, cap = 0, fragmentation = 0;
  void Count(OomKind kind) {
    if (kind == OomKind::kCapacity) ++capacity;
    if (kind == OomKind::kCap) ++cap;
    if (kind == OomKind::kFragmentation) ++fragmentation;
  }
  void CopyTo(PolicyStats* s) const {
    s->oom_capacity = capacity;
    s->oom_cap = cap;
    s->oom_fragmentation = fragmentation;
  }
};

// Where a policy reads its framework's environment variables (tests inject their own).
using EnvLookup = std::function<const char*(const char*)>;
EnvLookup ProcessEnvironment();  // std::getenv

struct PolicyConfig {
  EnvLookup env = ProcessEnvironment();
  // Explicit settings; they override the environment. Keys are the policy's option names (see
  // PolicyOptions()); unknown keys are an error.
  std::map<std::string, std::string> options;
};

// An option a policy accepts: name, the environment variable it overrides, default, one line of help.
struct PolicyOption {
  std::string name, env, default_value, help;
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual const char* name() const = 0;
  // bytes > 0; alignment 0 = the policy's default (>= 256), else a power of two. Returns the device
  // address (a VA the driver has mapped, so data can be written there), or 0 with *oom filled and the
  // failure counted in the stats.
  virtual uint64_t Allocate(uint64_t bytes, uint64_t alignment, Oom* oom) = 0;
  // A live address from Allocate (the caller guarantees it).
  virtual void Deallocate(uint64_t ptr) = 0;
  virtual PolicyStats Stats() const = 0;
  // empty_cache() / pool trim: give cached memory back to the driver where the framework can.
  virtual void ReleaseCache() {}
  // Starts counting anew like tsl ClearStats() / torch.cuda.reset_peak_memory_stats().
  virtual void ResetPeak() = 0;
};

// The nine policies by name: jax, jax-growth, jax-platform, jax-async, tf, tf-growth, tf-async, torch,
// torch-expandable. False with a message naming the bad variable or option (and listing valid ones).
bool MakePolicy(const std::string& name, GpuDriver& driver, const PolicyConfig& config, std::unique_ptr<Policy>* out,
                std::string* error);
std::vector<std::string> PolicyNames();
// The options `name` accepts; empty for an unknown policy.
std::vector<PolicyOption> PolicyOptions(const std::string& name);
// The environment variable the option table of `policy` names for `option` (e.g. jax, mem_fraction ->
// XLA_CLIENT_MEM_FRACTION): what advice prints, so that it never names a variable the table does not. Empty if the
// option reads none.
std::string PolicyOptionVariable(const std::string& policy, const std::string& option);

}  // namespace strata::gpu

#endif  // STRATA_HOST_GPU_POLICY_H_
