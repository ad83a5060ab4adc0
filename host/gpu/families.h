// The policy families behind MakePolicy (policy.cc). Each family is one source file; policy.cc only
// routes names. Not installed.
#ifndef STRATA_HOST_GPU_FAMILIES_H_
#define STRATA_HOST_GPU_FAMILIES_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "policy.h"

namespace strata::gpu {

// Each factory gets the resolved policy name (after the framework's selector variable, e.g. "jax" with
// XLA_PYTHON_CLIENT_ALLOCATOR=platform arrives as "jax-platform") and returns false with a message
// naming the bad variable or option.
using PolicyFactory = bool (*)(const std::string& name, GpuDriver& driver, const PolicyConfig& config,
                               std::unique_ptr<Policy>* out, std::string* error);
using PolicyOptionsFn = std::vector<PolicyOption> (*)(const std::string& name);

// bfc_policies.cc: jax, jax-growth, tf, tf-growth (XLA/TSL BFC, docs/gpu-policies.md "The BFC's rules, by source")
bool MakeBfcPolicy(const std::string& name, GpuDriver& driver, const PolicyConfig& config, std::unique_ptr<Policy>* out,
                   std::string* error);
std::vector<PolicyOption> BfcPolicyOptions(const std::string& name);
// The JAX release whose memory-fraction rules the jax policies follow (option jax_version, default 0.10.2, the
// newest this project pins; docs/gpu-policies.md "JAX releases"). Releases 0.6 to 0.10 hand the fraction to XLA as a
// plain number, a fixed cap; "next" is XLA's unreleased START / START-CAP grammar, where a bare F below 1 grows.
constexpr const char* kDefaultJaxVersion = "0.10.2";
struct JaxRelease {
  std::string text = kDefaultJaxVersion;
  bool start_cap_grammar = false;  // next
};
// The option jax_version, if given, into *out (left at the default otherwise); false with the message.
bool ReadJaxVersion(const std::map<std::string, std::string>& options, JaxRelease* out, std::string* error);
// The one parser of every jax policy that reads XLA_CLIENT_MEM_FRACTION. False with "ORIGIN='VALUE' is not a valid
// memory fraction (WHY; expected ...)".
struct XlaMemFraction {
  double start = 0.75, cap = 0.75;
  bool flex = false;  // preallocate start, grow to cap
};
XlaMemFraction DefaultXlaMemFraction(const JaxRelease& release);
bool ParseXlaMemFraction(const std::string& origin, const std::string& value, const JaxRelease& release,
                         XlaMemFraction* out, std::string* error);
// platform_policy.cc: jax-platform (one device allocation per buffer, docs/gpu-policies.md P1)
bool MakePlatformPolicy(const std::string& name, GpuDriver& driver, const PolicyConfig& config,
                        std::unique_ptr<Policy>* out, std::string* error);
std::vector<PolicyOption> PlatformPolicyOptions(const std::string& name);
// caching_policy.cc: torch, torch-expandable (PyTorch CUDACachingAllocator, docs/gpu-policies.md P5-P6)
bool MakeCachingPolicy(const std::string& name, GpuDriver& driver, const PolicyConfig& config,
                       std::unique_ptr<Policy>* out, std::string* error);
std::vector<PolicyOption> CachingPolicyOptions(const std::string& name);
// The least max_split_size_mb the PyTorch release named by the option torch_version (default 2.9) accepts: 20 from
// 2.9, 21 up to 2.8 (docs/gpu-policies.md). False, with the message, for a torch_version that is not a release.
bool LeastMaxSplitSizeMb(const std::map<std::string, std::string>& options, uint64_t* mb, std::string* error);
// async_policy.cc: jax-async, tf-async (cudaMallocAsync default pool, page-level model, docs/gpu-policies.md P2-P4)
bool MakeAsyncPolicy(const std::string& name, GpuDriver& driver, const PolicyConfig& config,
                     std::unique_ptr<Policy>* out, std::string* error);
std::vector<PolicyOption> AsyncPolicyOptions(const std::string& name);
// What the settings of jax-async / tf-async resolve to (the pool's parameters); MakeAsyncPolicy builds the pool
// from them, and tests/gpu/async_policy_reference.cc builds the pre-index pool model from the same.
struct AsyncSettings {
  std::string name;
  uint64_t release_threshold = 0;  // CU_MEMPOOL_ATTR_RELEASE_THRESHOLD
  uint64_t bytes_limit = 0;        // stats.bytes_limit
  uint64_t prealloc_bytes = 0;     // AllocateRaw + DeallocateRaw + ClearStats at construction
  const char* framework = "";      // "jax" or "tf", for the OOM message
};
bool ResolveAsyncSettings(const std::string& name, GpuDriver& driver, const PolicyConfig& config, AsyncSettings* out,
                          std::string* error);

}  // namespace strata::gpu

#endif  // STRATA_HOST_GPU_FAMILIES_H_
