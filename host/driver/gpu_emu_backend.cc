// The `gpu-emu` backend: an emulated GPU in host memory (host/gpu/emu_gpu.h) under a framework's allocation
// policy (host/gpu/policy.h). Each context is one framework process (a tenant) with its own policy instance;
// all of them draw pages from the one device, so one tenant's pool can starve another's.
// strata_compact does what JAX's Defragment() does: every live buffer goes to the host and back.
#include <memory>
#include <string>
#include <vector>

#include "devices.h"
#include "emu_gpu.h"
#include "gpu_policy_backend.h"

namespace strata::driver {
namespace {

class GpuEmuBackend : public GpuPolicyBackend {
 public:
  GpuEmuBackend(const gpu::GpuSpec& spec, std::string policy, gpu::PolicyConfig config)
      : GpuPolicyBackend(std::make_unique<gpu::EmuGpu>(spec), spec.total_bytes - spec.context_bytes, std::move(policy),
                         std::move(config)) {}
  const char* name() const override { return "gpu-emu"; }
};

const std::vector<std::string> kEmuOptions = {"gpu", "capacity_bytes", "total_bytes", "context_bytes", "page_bytes"};

Error OpenGpuEmu(const OpenOptions& o, std::unique_ptr<Backend>* out) {
  gpu::GpuSpec spec;
  const std::string preset = o.GetString("gpu", gpu::kDefaultGpuPreset);
  if (!gpu::GpuPresetByName(preset, &spec)) {
    return {STRATA_INVALID_ARGUMENT, "unknown GPU preset '" + preset + "' (" + gpu::GpuPresetNames() + ")"};
  }
  const int64_t total = o.GetInt("total_bytes", 0), context = o.GetInt("context_bytes", -1),
                page = o.GetInt("page_bytes", 0);
  if (total < 0 || page < 0 || (context < 0 && o.Has("context_bytes"))) {
    return {STRATA_INVALID_ARGUMENT, "total_bytes, context_bytes and page_bytes must not be negative"};
  }
  // capacity_bytes, the standard option: what the workload gets (free at start); the context comes on top.
  const int64_t capacity = o.GetInt("capacity_bytes", 0);
  if (capacity < 0) return {STRATA_INVALID_ARGUMENT, "capacity_bytes must not be negative (0 = total_bytes decides)"};
  if (capacity > 0 && o.Has("total_bytes")) {
    return {STRATA_INVALID_ARGUMENT,
            "capacity_bytes is free at start and total_bytes the GPU's total: give one of them, not both"};
  }
  if (total > 0) spec.total_bytes = static_cast<uint64_t>(total);
  if (context >= 0) spec.context_bytes = static_cast<uint64_t>(context);
  if (capacity > 0) {
    if (static_cast<uint64_t>(capacity) > (uint64_t{1} << 62) - spec.context_bytes) {
      return {STRATA_INVALID_ARGUMENT, "capacity_bytes " + std::to_string(capacity) + " is more than any device"};
    }
    spec.total_bytes = static_cast<uint64_t>(capacity) + spec.context_bytes;
  }
  if (page > 0) {
    if ((page & (page - 1)) != 0 || page < 4096)
      return {STRATA_INVALID_ARGUMENT, "page_bytes must be a power of two >= 4096"};
    spec.page_bytes = static_cast<uint64_t>(page);
  }
  if (spec.context_bytes >= spec.total_bytes) {
    return {STRATA_INVALID_ARGUMENT, "context_bytes (" + GpuBytes(spec.context_bytes) +
                                         ") leaves nothing of total_bytes (" + GpuBytes(spec.total_bytes) + ")"};
  }
  std::string policy;
  gpu::PolicyConfig config;
  Error e = GpuPolicyFromOptions(o, kEmuOptions, &policy, &config);
  if (e.ok()) e = CheckGpuPolicy(policy, config, spec);
  if (!e.ok()) return e;
  *out = std::make_unique<GpuEmuBackend>(spec, policy, config);
  return {};
}

// The gpu option's choices: the GPUs of the device table (devices.h).
std::vector<std::string> GpuPresets() {
  std::vector<std::string> names;
  for (const devices::Device& d : devices::All()) {
    if (d.kind == devices::Kind::kGpu) names.push_back(d.name);
  }
  return names;
}

std::vector<OptionSpec> GpuEmuOptions() {
  std::vector<OptionSpec> specs = {
      {"gpu", STRATA_VALUE_STRING, gpu::kDefaultGpuPreset, "GPU preset: " + gpu::GpuPresetNames(), GpuPresets()},
      {"capacity_bytes", STRATA_VALUE_INT64, "0",
       "free at start (the standard option): total_bytes becomes this plus context_bytes; 0 = total_bytes decides"},
      {"total_bytes", STRATA_VALUE_INT64, "0", "total device memory (cudaMemGetInfo's total); 0 = the preset's"},
      {"context_bytes", STRATA_VALUE_INT64, "536870912", "CUDA context and libraries: free at start = total - this"},
      {"page_bytes", STRATA_VALUE_INT64, "2097152", "physical page granule (cuMemGetAllocationGranularity)"},
  };
  for (OptionSpec& s : GpuPolicyOptionSpecs()) specs.push_back(std::move(s));
  return specs;
}

}  // namespace

void strata_register_backend_gpu_emu() {
  RegisterBackend({"gpu-emu", "an emulated GPU in host memory under a JAX / TensorFlow / PyTorch allocation policy",
                   GpuEmuOptions(), OpenGpuEmu, nullptr, GpuPolicyOptionSpecs()});
}

}  // namespace strata::driver
