// The `gpu-emu` backend: an emulated GPU in host memory (host/gpu/emu_gpu.h) under a framework's allocation
// policy (host/gpu/policy.h). Each context is one framework process (a tenant) with its own policy instance;
// all of them draw pages from the one device, so one tenant's pool can starve another's.
// strata_compact does what JAX's Defragment() does: every live buffer goes to the host and back.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "devices.h"
#include "emu_gpu.h"
#include "gpu_policy_backend.h"

namespace strata::driver {
namespace {

// The emulated GPU as the policies see it, telling the backend of every device allocation, free, map and unmap that
// succeeded: the "device" events (strata.h), which strata-compare --memory-viz draws as PyTorch's segments. Kept out
// of EmuGpu so the emulator stays the driver alone. It keeps what is held now, so that a sink set after the policies
// took memory (JAX preallocates when its context is made) still hears of it. Every call goes to the emulator; the
// cost counters the emulator keeps are carried over after each call (Sync), those a policy or the backend counts on
// this driver (retries, syncs, host bytes) stay here.
class ObservedEmuGpu final : public gpu::GpuDriver {
 public:
  explicit ObservedEmuGpu(const gpu::GpuSpec& spec) : gpu_(spec) {}
  // Set by the backend; empty: nothing is told.
  std::function<void(const char* name, uint64_t va, uint64_t bytes)> tell;

  uint64_t page_bytes() const override { return gpu_.page_bytes(); }
  uint64_t total_bytes() const override { return gpu_.total_bytes(); }
  uint64_t free_bytes() const override { return gpu_.free_bytes(); }
  uint32_t cc_major() const override { return gpu_.cc_major(); }

  uint64_t Malloc(uint64_t bytes) override {
    const uint64_t va = gpu_.Malloc(bytes);
    Sync();
    if (va != 0) {  // the bytes asked for, as cudaMalloc's caller sees its segment (the pages behind it round up)
      mallocs_[va] = bytes;
      Tell("malloc", va, bytes);
    }
    return va;
  }
  bool Free(uint64_t va) override {
    const bool ok = gpu_.Free(va);
    Sync();
    const auto it = mallocs_.find(va);
    if (ok && it != mallocs_.end()) {
      Tell("free", va, it->second);
      mallocs_.erase(it);
    }
    return ok;
  }
  uint64_t ReserveVa(uint64_t bytes) override {
    const uint64_t va = gpu_.ReserveVa(bytes);
    Sync();
    return va;
  }
  bool Map(uint64_t va, uint64_t bytes) override {
    const bool ok = gpu_.Map(va, bytes);
    Sync();
    if (ok) {
      mapped_.Insert(va, va + bytes);
      Tell("map", va, bytes);
    }
    return ok;
  }
  bool Unmap(uint64_t va, uint64_t bytes) override {
    const bool ok = gpu_.Unmap(va, bytes);
    Sync();
    if (ok) Unmapped(va, bytes);
    return ok;
  }
  bool UnmapPages(uint64_t va, uint64_t bytes) override {
    const bool ok = gpu_.UnmapPages(va, bytes);
    Sync();
    if (ok) Unmapped(va, bytes);
    return ok;
  }
  bool Write(uint64_t va, const void* src, uint64_t bytes) override {
    const bool ok = gpu_.Write(va, src, bytes);
    Sync();
    return ok;
  }
  bool Read(uint64_t va, void* dst, uint64_t bytes) const override { return gpu_.Read(va, dst, bytes); }
  bool MayHoldData(uint64_t va, uint64_t bytes) const override { return gpu_.MayHoldData(va, bytes); }

  // What is held now, as if it had just been taken: each cudaMalloc'd range, each run of mapped pages.
  void TellHeld() {
    for (const auto& [va, bytes] : mallocs_) Tell("malloc", va, bytes);
    for (const auto& [lo, hi] : mapped_.runs()) Tell("map", lo, hi - lo);
  }

 private:
  void Tell(const char* name, uint64_t va, uint64_t bytes) {
    if (tell) tell(name, va, bytes);
  }
  // UnmapPages of a range inside one mapped run only (the pages a policy unmaps are ones it mapped).
  void Unmapped(uint64_t va, uint64_t bytes) {
    if (bytes == 0 || !mapped_.AllIn(va, bytes, page_bytes())) return;
    mapped_.Erase(va, va + bytes);
    Tell("unmap", va, bytes);
  }
  // Adds what the emulator counted since the last call to this driver's counters.
  void Sync() {
    const gpu::DriverCounters& now = gpu_.counters();
    gpu::DriverCounters& mine = counters();
    mine.device_allocs += now.device_allocs - seen_.device_allocs;
    mine.device_frees += now.device_frees - seen_.device_frees;
    mine.failed_device_allocs += now.failed_device_allocs - seen_.failed_device_allocs;
    mine.maps += now.maps - seen_.maps;
    mine.unmaps += now.unmaps - seen_.unmaps;
    mine.pages_mapped += now.pages_mapped - seen_.pages_mapped;
    mine.device_syncs += now.device_syncs - seen_.device_syncs;
    mine.stream_syncs += now.stream_syncs - seen_.stream_syncs;
    mine.retries += now.retries - seen_.retries;
    mine.host_bytes_copied += now.host_bytes_copied - seen_.host_bytes_copied;
    seen_ = now;
  }

  gpu::EmuGpu gpu_;
  gpu::DriverCounters seen_;
  std::map<uint64_t, uint64_t> mallocs_;  // va -> bytes asked for
  gpu::PageRanges mapped_;
};

class GpuEmuBackend : public GpuPolicyBackend {
 public:
  GpuEmuBackend(const gpu::GpuSpec& spec, std::string policy, gpu::PolicyConfig config)
      : GpuEmuBackend(std::make_unique<ObservedEmuGpu>(spec), spec, std::move(policy), std::move(config)) {}
  // The policies give memory back as they are destroyed, after this: nothing may reach the base's sink then.
  ~GpuEmuBackend() override { gpu_->tell = nullptr; }
  const char* name() const override { return "gpu-emu"; }
  Error SetEventSink(strata_event_fn fn, void* user) override {
    Error e = GpuPolicyBackend::SetEventSink(fn, user);
    if (e.ok() && fn != nullptr) gpu_->TellHeld();
    return e;
  }

 private:
  GpuEmuBackend(std::unique_ptr<ObservedEmuGpu> gpu, const gpu::GpuSpec& spec, std::string policy,
                gpu::PolicyConfig config)
      : GpuPolicyBackend(std::move(gpu), spec.total_bytes - spec.context_bytes, std::move(policy), std::move(config)) {
    gpu_ = static_cast<ObservedEmuGpu*>(&driver());
    gpu_->tell = [this](const char* name, uint64_t va, uint64_t bytes) { DeviceEvent(name, va, bytes); };
  }
  ObservedEmuGpu* gpu_ = nullptr;  // the driver the base owns
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
