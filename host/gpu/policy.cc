// Routes policy names to their families. Each family applies its framework's selector variable
// (XLA_PYTHON_CLIENT_ALLOCATOR, TF_GPU_ALLOCATOR, PYTORCH_CUDA_ALLOC_CONF's expandable_segments), so
// that "jax" with XLA_PYTHON_CLIENT_ALLOCATOR=platform behaves as "jax-platform".
#include "policy.h"

#include <algorithm>
#include <cstdlib>

#include "families.h"

namespace strata::gpu {
namespace {

struct Family {
  const char* name;
  PolicyFactory make;
  PolicyOptionsFn options;
};

constexpr Family kPolicies[] = {
    {"jax", MakeBfcPolicy, BfcPolicyOptions},
    {"jax-growth", MakeBfcPolicy, BfcPolicyOptions},
    {"jax-platform", MakePlatformPolicy, PlatformPolicyOptions},
    {"jax-async", MakeAsyncPolicy, AsyncPolicyOptions},
    {"tf", MakeBfcPolicy, BfcPolicyOptions},
    {"tf-growth", MakeBfcPolicy, BfcPolicyOptions},
    {"tf-async", MakeAsyncPolicy, AsyncPolicyOptions},
    {"torch", MakeCachingPolicy, CachingPolicyOptions},
    {"torch-expandable", MakeCachingPolicy, CachingPolicyOptions},
};

const Family* Find(const std::string& name) {
  for (const Family& f : kPolicies) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

}  // namespace

const char* OomKindName(OomKind kind) {
  switch (kind) {
    case OomKind::kNone:
      return "none";
    case OomKind::kCapacity:
      return "capacity";
    case OomKind::kCap:
      return "cap";
    case OomKind::kFragmentation:
      return "fragmentation";
  }
  return "unknown";
}

OomKind ClassifyOom(uint64_t request, uint64_t live, uint64_t limit, uint64_t device_usable) {
  // By difference: live + request wraps for a request near 2^64, and would then read as fragmentation.
  if (request > device_usable - std::min(live, device_usable)) return OomKind::kCapacity;
  if (limit != 0 && request > limit - std::min(live, limit)) return OomKind::kCap;
  return OomKind::kFragmentation;
}

EnvLookup ProcessEnvironment() {
  return [](const char* name) -> const char* { return std::getenv(name); };
}

std::vector<std::string> PolicyNames() {
  std::vector<std::string> names;
  for (const Family& f : kPolicies) names.emplace_back(f.name);
  return names;
}

std::vector<PolicyOption> PolicyOptions(const std::string& name) {
  const Family* f = Find(name);
  return f != nullptr ? f->options(name) : std::vector<PolicyOption>{};
}

std::string PolicyOptionVariable(const std::string& policy, const std::string& option) {
  for (const PolicyOption& o : PolicyOptions(policy)) {
    if (o.name == option) return o.env;
  }
  return "";
}

bool MakePolicy(const std::string& name, GpuDriver& driver, const PolicyConfig& config, std::unique_ptr<Policy>* out,
                std::string* error) {
  const Family* f = Find(name);
  if (f == nullptr) {
    std::string list;
    for (const Family& g : kPolicies) list += std::string(list.empty() ? "" : ", ") + g.name;
    *error = "unknown GPU policy '" + name + "' (available: " + list + ")";
    return false;
  }
  return f->make(name, driver, config, out, error);
}

}  // namespace strata::gpu
