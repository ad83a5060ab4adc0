// What the GPU backends (gpu-emu, cuda) share: a GpuDriver under a framework's allocation policy, one
// policy instance per context (a tenant: one framework process), buffer handles, quotas, OOM records,
// statistics, JAX's host-bounce Defragment() and the GEMM argument rules. A backend supplies the driver
// (emulated or real), its open options and, if it has one, a GEMM on the device.
#ifndef STRATA_HOST_DRIVER_GPU_POLICY_BACKEND_H_
#define STRATA_HOST_DRIVER_GPU_POLICY_BACKEND_H_

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "backend.h"
#include "emu_gpu.h"
#include "events.h"
#include "policy.h"
#include "strata/reference_gemm.h"

namespace strata::driver {

// "1.50 GiB", "3.00 MiB", "4096 B": the sizes in the GPU backends' messages.
std::string GpuBytes(uint64_t b);

// The open options every GPU backend has: `policy` and each policy's own settings (as text; the chosen
// policy checks their values). A backend puts its own options in front. They are its context options too.
std::vector<OptionSpec> GpuPolicyOptionSpecs();

// Splits the options given to a GPU backend: *policy gets `policy` (default jax), config->options every
// option that is not one of `backend_options` and that the policy accepts. INVALID_ARGUMENT naming an
// option the policy does not accept.
Error GpuPolicyFromOptions(const OpenOptions& options, const std::vector<std::string>& backend_options,
                           std::string* policy, gpu::PolicyConfig* config);

// Makes one policy instance over a scratch emulated GPU shaped like `spec` (nothing is allocated), so that a
// bad variable or option fails strata_open with INVALID_ARGUMENT, not the first context.
Error CheckGpuPolicy(const std::string& policy, const gpu::PolicyConfig& config, const gpu::GpuSpec& spec);

class GpuPolicyBackend : public Backend {
 public:
  // heap_bytes: what strata_device_info reports as usable (total minus the CUDA context).
  GpuPolicyBackend(std::unique_ptr<gpu::GpuDriver> driver, uint64_t heap_bytes, std::string policy,
                   gpu::PolicyConfig config);
  ~GpuPolicyBackend() override;

  Error GetInfo(strata_device_info* out) override;
  Error CreateContext(uint64_t quota_bytes, uint32_t quota_ppm, strata_context* out) override;
  // Named context options (GpuPolicyOptionSpecs): `policy` and its settings; what is not given is the device's
  // policy, and each of the device's settings that the context's policy has.
  Error CreateContextWithOptions(uint64_t quota_bytes, uint32_t quota_ppm, const OpenOptions& options,
                                 strata_context* out) override;
  Error DestroyContext(strata_context context) override;
  // A policy's out of memory: the message ends with ". <the context's policy> says: " and the framework's own words.
  Error Alloc(strata_context context, uint64_t bytes, uint64_t alignment, uint32_t flags, strata_buffer* out) override;
  Error Free(strata_context context, strata_buffer buffer) override;
  Error Write(strata_context context, strata_buffer buffer, uint64_t offset, const void* src, uint64_t bytes) override;
  Error Read(strata_context context, strata_buffer buffer, uint64_t offset, void* dst, uint64_t bytes) override;
  Error Gemm(strata_context context, const strata_gemm_args& args) override;
  Error Compact(strata_context context, uint64_t max_bytes, uint32_t max_moves, strata_compact_result* out) override;
  Error MemoryStats(strata_context context, strata_memory_stats* out) override;
  bool StatsAreFree() const override { return true; }  // the policies' own bookkeeping, on the host
  Error Synchronize() override;
  Error LastOom(strata_oom_info* out) override;
  // Events: the "heap" track (each buffer's address when allocated, freed, moved by Defragment()) and each
  // Defragment() on "compaction" (value = bytes through the host), timed by the event index the backend
  // reports as its device cycles.
  Error SetEventSink(strata_event_fn fn, void* user) override;

 protected:
  // C = A.B (+ C with accumulate) for validated operands: device addresses of buffers large enough for their
  // matrices. The default bounces through the host: A and B (and C) are read, the reference GEMM runs, C is
  // written.
  virtual Error RunGemm(uint64_t a, uint64_t b, uint64_t c, const reference::GemmSpec& spec, bool accumulate);
  gpu::GpuDriver& driver() { return *driver_; }
  // A "device" instant now (gpu-emu): `name` ("malloc", "free", "map", "unmap") of [address, address + bytes).
  void DeviceEvent(const char* name, uint64_t address, uint64_t bytes);

 private:
  struct Tenant {
    // Kept when destroyed: the next context in this slot takes the next generation (gpu_policy_backend.cc,
    // ContextId), so that a destroyed context's id does not name the next tenant's.
    strata_context id = 0;
    std::unique_ptr<gpu::Policy> policy;  // null: no such context
    std::string policy_name;              // "jax", "torch", ... (the OOM message names it)
    uint64_t quota = 0;
    uint64_t bytes = 0;  // requested bytes live
    uint32_t buffers = 0;
    uint64_t quota_ooms = 0;
    // Its policy's Stats() as last read; stale after any call into the policy. A policy changes only through its own
    // calls (none reads the driver's state for its statistics), so the others' stay valid: strata_get_memory_stats
    // after each event asks one policy, not every one.
    gpu::PolicyStats stats;
    bool stale = true;
  };
  struct Slot {
    uint32_t generation = 1;
    bool live = false;
    strata_context context = 0;
    uint64_t ptr = 0, bytes = 0;
  };

  Tenant* FindTenant(strata_context c);
  Tenant& Tenants(strata_context c);  // c: a live context's id (a live buffer's)
  uint64_t LiveBytes() const;
  void RecordOom(Tenant& t, uint64_t bytes, gpu::OomKind kind, uint64_t limit);
  const gpu::PolicyStats& StatsOf(Tenant& t);
  // what: "" for the transfer calls, "buffer A/B/C" for GEMM operands (named in the message).
  Error Resolve(strata_context context, strata_buffer h, const std::string& what, uint32_t* index);
  // Resolve for a transfer: [offset, offset + bytes) must lie inside the buffer's requested size.
  Error ResolveRange(strata_context context, strata_buffer h, uint64_t offset, uint64_t bytes, uint32_t* index);
  void Release(uint32_t index);
  strata_buffer Handle(uint32_t index) const {
    return (static_cast<uint64_t>(slots_[index].generation) << 32) | (index + 1);
  }
  // A "heap" instant now: `name` of buffer `index`, from `address` to `to_address` (the same but for a move).
  void HeapEvent(const char* name, uint32_t index, uint64_t address, uint64_t to_address);

  // Declared first so that it is destroyed last: the policies' destructors give their pools back to it.
  std::unique_ptr<gpu::GpuDriver> driver_;
  uint64_t heap_bytes_;
  std::string policy_;
  gpu::PolicyConfig config_;
  std::vector<Tenant> tenants_;
  std::vector<Slot> slots_;
  std::set<uint32_t> free_slots_;  // lowest index first: handles stay small and reuse is predictable
  strata_oom_info last_oom_{};
  uint64_t events_ = 0, bytes_read_ = 0, bytes_written_ = 0;
  uint64_t compactions_ = 0, compaction_moves_ = 0, compaction_bytes_ = 0;
  ApiEventSink sink_;
};

}  // namespace strata::driver

#endif  // STRATA_HOST_DRIVER_GPU_POLICY_BACKEND_H_
