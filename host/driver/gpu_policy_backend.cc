// The GPU backends' common part (gpu_policy_backend.h): tenants with policies, handles, OOM records, stats,
// JAX's Defragment() and the GEMM argument rules, over whichever GpuDriver the backend gives.
#include "gpu_policy_backend.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "strata/quota.h"

namespace strata::driver {
namespace {

constexpr uint32_t kMaxContexts = 64;
// Context ids carry a generation, as the runtime's (and the host backend's) do: slot + 1 in the low 8 bits, a 12-bit
// generation above, so that ids stay below 2^20 (kBackendContextBits) and a destroyed context's id is refused
// (NOT_FOUND) instead of naming the next context in its slot.
constexpr uint32_t kContextSlotBits = 8, kContextGenerationBits = 12;
static_assert(kMaxContexts < (1u << kContextSlotBits), "slot + 1 fits the id's low bits");
static_assert(kContextSlotBits + kContextGenerationBits <= kBackendContextBits, "ids leave the device tag free");

// The id of the next context in a slot whose last context had `previous` (0: never used).
strata_context NextContextId(strata_context previous, uint32_t slot) {
  const uint32_t last = previous >> kContextSlotBits;
  const uint32_t generation = last + 1 == (1u << kContextGenerationBits) ? 1 : last + 1;
  return generation << kContextSlotBits | (slot + 1);
}
constexpr uint32_t kMaxLiveBuffers = 1u << 20;
constexpr uint32_t kGenerationBits = 21;           // index + 1 in the low 32 bits: handles stay below 2^53
constexpr uint64_t kMaxRequestBytes = 1ull << 62;  // 4 EiB: no device; far from where round-ups wrap

strata_oom_kind ToC(gpu::OomKind k) {
  switch (k) {
    case gpu::OomKind::kNone:
      return STRATA_OOM_NONE;
    case gpu::OomKind::kCapacity:
      return STRATA_OOM_CAPACITY;
    case gpu::OomKind::kCap:
      return STRATA_OOM_CAP;
    case gpu::OomKind::kFragmentation:
      return STRATA_OOM_FRAGMENTATION;
  }
  return STRATA_OOM_NONE;
}

}  // namespace

std::string GpuBytes(uint64_t b) {
  char buf[64];
  if (b >= (1ull << 30)) {
    std::snprintf(buf, sizeof buf, "%.2f GiB", b / double(1ull << 30));
  } else if (b >= (1ull << 20)) {
    std::snprintf(buf, sizeof buf, "%.2f MiB", b / double(1ull << 20));
  } else {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(b));
  }
  return buf;
}

std::vector<OptionSpec> GpuPolicyOptionSpecs() {
  std::vector<OptionSpec> specs = {
      {"policy", STRATA_VALUE_STRING, "jax",
       "allocation policy: jax, jax-growth, jax-platform, jax-async, tf, tf-growth, "
       "tf-async, torch, torch-expandable",
       gpu::PolicyNames()},
  };
  for (const std::string& p : gpu::PolicyNames()) {
    for (const gpu::PolicyOption& o : gpu::PolicyOptions(p)) {
      const bool seen = std::any_of(specs.begin(), specs.end(), [&](const auto& s) { return s.name == o.name; });
      if (!seen) specs.push_back({o.name, STRATA_VALUE_STRING, o.default_value, o.help + " (overrides " + o.env + ")"});
    }
  }
  return specs;
}

Error GpuPolicyFromOptions(const OpenOptions& o, const std::vector<std::string>& backend_options, std::string* policy,
                           gpu::PolicyConfig* config) {
  *policy = o.GetString("policy", "jax");
  const std::vector<gpu::PolicyOption> accepted = gpu::PolicyOptions(*policy);
  for (const auto& [name, value] : o.AsText()) {
    if (name == "policy" || std::find(backend_options.begin(), backend_options.end(), name) != backend_options.end()) {
      continue;
    }
    const bool ok = std::any_of(accepted.begin(), accepted.end(), [&](const auto& a) { return a.name == name; });
    if (!ok) {
      std::string list;
      for (const auto& a : accepted) list += (list.empty() ? "" : ", ") + a.name;
      return {STRATA_INVALID_ARGUMENT,
              "option '" + name + "' is not one of policy " + *policy + "'s (" + (list.empty() ? "none" : list) + ")"};
    }
    config->options[name] = value;
  }
  return {};
}

Error CheckGpuPolicy(const std::string& policy, const gpu::PolicyConfig& config, const gpu::GpuSpec& spec) {
  gpu::EmuGpu scratch(spec);  // outlives the policy: its destructor returns pages to it
  std::unique_ptr<gpu::Policy> p;
  std::string error;
  if (!gpu::MakePolicy(policy, scratch, config, &p, &error)) return {STRATA_INVALID_ARGUMENT, error};
  return {};
}

GpuPolicyBackend::GpuPolicyBackend(std::unique_ptr<gpu::GpuDriver> driver, uint64_t heap_bytes, std::string policy,
                                   gpu::PolicyConfig config)
    : driver_(std::move(driver)), heap_bytes_(heap_bytes), policy_(std::move(policy)), config_(std::move(config)) {}

GpuPolicyBackend::~GpuPolicyBackend() {
  // Policies first (they give their pools back to the driver), then the driver.
  tenants_.clear();
}

Error GpuPolicyBackend::GetInfo(strata_device_info* out) {
  out->backend = name();
  out->hbm_capacity_bytes = driver_->total_bytes();
  out->heap_bytes = heap_bytes_;
  out->device_cycles = events_;  // no device clock: the event index (allocations, frees, copies, GEMMs)
  out->max_contexts = kMaxContexts;
  out->max_live_buffers = kMaxLiveBuffers;
  out->granule_bytes = 256;  // the CUDA allocation alignment
  out->last_command_cycles = 0;
  out->mxu_array_n = 0;
  out->hbm_bytes_read = bytes_read_;
  out->hbm_bytes_written = bytes_written_;
  out->hbm_peak_bytes_per_cycle = 0;
  return {};
}

Error GpuPolicyBackend::CreateContext(uint64_t quota_bytes, uint32_t quota_ppm, strata_context* out) {
  return CreateContextWithOptions(quota_bytes, quota_ppm, OpenOptions{}, out);
}

Error GpuPolicyBackend::CreateContextWithOptions(uint64_t quota_bytes, uint32_t quota_ppm, const OpenOptions& options,
                                                 strata_context* out) {
  uint32_t slot = 0;
  while (slot < tenants_.size() && tenants_[slot].policy) ++slot;
  if (slot >= kMaxContexts) return {STRATA_RESOURCE_EXHAUSTED, "too many contexts"};
  // The context's policy and settings: what it names, else the device's.
  std::string policy = policy_;
  gpu::PolicyConfig config = config_;
  if (!options.AsText().empty()) {
    OpenOptions named = options;
    if (!named.Has("policy")) named.Set("policy", OpenOptions::Value{STRATA_VALUE_STRING, policy_});
    gpu::PolicyConfig own;
    Error e = GpuPolicyFromOptions(named, {}, &policy, &own);
    if (!e.ok()) return e;
    config.options.clear();
    for (const gpu::PolicyOption& o : gpu::PolicyOptions(policy)) {  // the device's settings this policy has
      const auto it = config_.options.find(o.name);
      if (it != config_.options.end()) config.options[o.name] = it->second;
    }
    for (const auto& [name, value] : own.options) config.options[name] = value;
  }
  // Made before anything else changes: a refused policy leaves no context behind.
  std::unique_ptr<gpu::Policy> made;
  std::string error;
  if (!gpu::MakePolicy(policy, *driver_, config, &made, &error)) return {STRATA_INVALID_ARGUMENT, error};
  if (slot == tenants_.size()) tenants_.emplace_back();
  Tenant& t = tenants_[slot];
  const strata_context id = NextContextId(t.id, slot);
  t = Tenant{};
  t.id = id;
  t.policy = std::move(made);
  t.policy_name = policy;
  t.quota = strata_quota_bytes(quota_bytes, quota_ppm, driver_->total_bytes());
  *out = id;
  return {};
}

Error GpuPolicyBackend::DestroyContext(strata_context context) {
  Tenant* t = FindTenant(context);
  if (t == nullptr) return NoSuchContext(context);
  for (uint32_t i = 0; i < slots_.size(); ++i) {
    Slot& s = slots_[i];
    if (s.live && s.context == context) {
      HeapEvent("free", i, s.ptr, s.ptr);
      Release(i);
    }
  }
  t->policy->ReleaseCache();
  t->policy.reset();  // a policy's destructor gives its pools back to the device
  return {};
}

Error GpuPolicyBackend::Alloc(strata_context context, uint64_t bytes, uint64_t alignment, uint32_t,
                              strata_buffer* out) {
  Tenant* t = FindTenant(context);
  if (t == nullptr) return NoSuchContext(context);
  const Error bad = CheckAllocRequest(bytes, alignment);
  if (!bad.ok()) return bad;
  ++events_;
  // A request beyond any device is refused before the policy sees it: the policies' round-ups (PyTorch's, BFC's)
  // are written for real sizes and wrap to a small one near 2^64. Below this bound the policy answers, in its
  // framework's words, as before.
  if (bytes > kMaxRequestBytes) {
    RecordOom(*t, bytes, gpu::OomKind::kCapacity, 0);
    return {STRATA_RESOURCE_EXHAUSTED, "out of memory (capacity): requested " + GpuBytes(bytes) +
                                           ", more than any device (the device has " +
                                           GpuBytes(driver_->total_bytes()) + ")"};
  }
  if (t->quota != 0 && !strata_quota_admits(t->quota, t->bytes, bytes)) {
    RecordOom(*t, bytes, gpu::OomKind::kCap, t->quota);
    ++t->quota_ooms;
    return {STRATA_RESOURCE_EXHAUSTED, "the context's memory quota has no room for this: requested " + GpuBytes(bytes) +
                                           ", context in use " + GpuBytes(t->bytes) + ", quota " + GpuBytes(t->quota)};
  }
  uint32_t index = 0;
  if (!free_slots_.empty()) {
    index = *free_slots_.begin();
  } else if (slots_.size() < kMaxLiveBuffers) {
    index = static_cast<uint32_t>(slots_.size());
  } else {
    return {STRATA_RESOURCE_EXHAUSTED, "too many live buffers"};
  }
  gpu::Oom oom;
  t->stale = true;
  const uint64_t ptr = t->policy->Allocate(bytes, alignment, &oom);
  if (ptr == 0) {
    RecordOom(*t, bytes, oom.kind, oom.limit_bytes);
    return {STRATA_RESOURCE_EXHAUSTED,
            std::string("out of memory (") + gpu::OomKindName(oom.kind) + "): requested " + GpuBytes(bytes) +
                ", in use " + GpuBytes(oom.live_bytes) + ", reserved " + GpuBytes(oom.reserved_bytes) +
                ", largest free block " + GpuBytes(oom.largest_free_block_bytes) + ", limit " +
                (oom.limit_bytes ? GpuBytes(oom.limit_bytes) : std::string("none")) + ", device free " +
                GpuBytes(driver_->free_bytes()) + (t->quota ? ", context quota " + GpuBytes(t->quota) : std::string()) +
                ". " + t->policy_name + " says: " + oom.message};
  }
  if (index == slots_.size()) {
    slots_.emplace_back();
  } else {
    free_slots_.erase(free_slots_.begin());
  }
  Slot& s = slots_[index];
  s.live = true;
  s.context = context;
  s.ptr = ptr;
  s.bytes = bytes;
  t->bytes += bytes;
  ++t->buffers;
  *out = Handle(index);
  HeapEvent("alloc", index, ptr, ptr);
  return {};
}

Error GpuPolicyBackend::Free(strata_context context, strata_buffer buffer) {
  uint32_t index;
  Error e = Resolve(context, buffer, "", &index);
  if (!e.ok()) return e;
  ++events_;
  HeapEvent("free", index, slots_[index].ptr, slots_[index].ptr);
  Release(index);
  return {};
}

Error GpuPolicyBackend::Write(strata_context context, strata_buffer buffer, uint64_t offset, const void* src,
                              uint64_t bytes) {
  uint32_t index;
  Error e = ResolveRange(context, buffer, offset, bytes, &index);
  if (!e.ok()) return e;
  if (!driver_->Write(slots_[index].ptr + offset, src, bytes)) {
    return {STRATA_INTERNAL, "the copy to the device failed (the policy's address is not mapped?)"};
  }
  bytes_written_ += bytes;
  ++events_;
  return {};
}

Error GpuPolicyBackend::Read(strata_context context, strata_buffer buffer, uint64_t offset, void* dst, uint64_t bytes) {
  uint32_t index;
  Error e = ResolveRange(context, buffer, offset, bytes, &index);
  if (!e.ok()) return e;
  if (!driver_->Read(slots_[index].ptr + offset, dst, bytes)) {
    return {STRATA_INTERNAL, "the copy from the device failed (the policy's address is not mapped?)"};
  }
  bytes_read_ += bytes;
  ++events_;
  return {};
}

// The model's argument rules (docs/runtime.md, GEMM), then RunGemm on the buffers' device addresses.
Error GpuPolicyBackend::Gemm(strata_context context, const strata_gemm_args& g) {
  if (FindTenant(context) == nullptr) return NoSuchContext(context);
  // The GPU backends' reference GEMM is the integer one; a bf16 product here would be a second arithmetic to
  // keep bit-exact with the matrix unit's order for no comparison the tools make.
  if (g.dtype != STRATA_DTYPE_INT8) {
    return {STRATA_UNIMPLEMENTED, "a bf16 GEMM runs on the sim backend only (with runtime_fp=1)"};
  }
  const uint32_t f = g.flags;
  const bool int8 = f & STRATA_GEMM_FLAG_INT8;
  if (g.m == 0 || g.n == 0 || g.k == 0 || g.m > STRATA_GEMM_MAX_DIM || g.n > STRATA_GEMM_MAX_DIM ||
      g.k > STRATA_GEMM_MAX_DIM) {
    return {STRATA_INVALID_ARGUMENT, "m, n and k must each be 1 .. 2^24"};
  }
  if ((f & STRATA_GEMM_FLAG_ACCUMULATE) && int8) return {STRATA_INVALID_ARGUMENT, "ACCUMULATE needs an int32 C"};
  if ((f & STRATA_GEMM_FLAG_ROUND) && !int8) return {STRATA_INVALID_ARGUMENT, "ROUND needs INT8"};
  if (!int8 && (g.quant_mult != 0 || g.quant_shift != 0)) {
    return {STRATA_INVALID_ARGUMENT, "quant_mult and quant_shift are for INT8 results only"};
  }
  if (g.quant_shift > STRATA_GEMM_MAX_QUANT_SHIFT)
    return {STRATA_INVALID_ARGUMENT, "quant_shift is 0 .. " + std::to_string(STRATA_GEMM_MAX_QUANT_SHIFT)};
  uint32_t ia, ib, ic;
  Error e = Resolve(context, g.a, "buffer A", &ia);
  if (e.ok()) e = Resolve(context, g.b, "buffer B", &ib);
  if (e.ok()) e = Resolve(context, g.c, "buffer C", &ic);
  if (!e.ok()) return e;
  if (ic == ia || ic == ib) return {STRATA_INVALID_ARGUMENT, "buffer C: the same buffer as A or B"};
  const uint64_t a_bytes = uint64_t{g.m} * g.k, b_bytes = uint64_t{g.k} * g.n;
  const uint64_t c_bytes = uint64_t{g.m} * g.n * (int8 ? 1 : 4);
  if (slots_[ia].bytes < a_bytes) return {STRATA_OUT_OF_RANGE, "buffer A is smaller than its m x k int8 matrix"};
  if (slots_[ib].bytes < b_bytes) return {STRATA_OUT_OF_RANGE, "buffer B is smaller than its k x n int8 matrix"};
  if (slots_[ic].bytes < c_bytes) return {STRATA_OUT_OF_RANGE, "buffer C is smaller than the m x n result"};
  reference::GemmSpec spec;
  spec.m = g.m;
  spec.n = g.n;
  spec.k = g.k;
  spec.relu = f & STRATA_GEMM_FLAG_RELU;
  spec.int8 = int8;
  spec.round = f & STRATA_GEMM_FLAG_ROUND;
  spec.quant_mult = g.quant_mult;
  spec.quant_shift = g.quant_shift;
  e = RunGemm(slots_[ia].ptr, slots_[ib].ptr, slots_[ic].ptr, spec, f & STRATA_GEMM_FLAG_ACCUMULATE);
  if (!e.ok()) return e;
  ++events_;
  return {};
}

Error GpuPolicyBackend::RunGemm(uint64_t pa, uint64_t pb, uint64_t pc, const reference::GemmSpec& spec,
                                bool accumulate) {
  const uint64_t a_bytes = spec.m * spec.k, b_bytes = spec.k * spec.n, c_values = spec.m * spec.n;
  std::vector<int8_t> a(a_bytes), b(b_bytes);
  std::vector<int32_t> c_in;
  if (!driver_->Read(pa, a.data(), a_bytes) || !driver_->Read(pb, b.data(), b_bytes)) {
    return {STRATA_INTERNAL, "reading the GEMM operands failed (the policy's address is not mapped?)"};
  }
  if (accumulate) {
    c_in.resize(c_values);
    if (!driver_->Read(pc, c_in.data(), c_values * 4)) return {STRATA_INTERNAL, "reading C failed"};
  }
  const std::vector<int32_t> c = reference::Gemm(a.data(), b.data(), c_in.empty() ? nullptr : c_in.data(), spec);
  bool ok;
  if (spec.int8) {
    const std::vector<int8_t> c8(c.begin(), c.end());
    ok = driver_->Write(pc, c8.data(), c8.size());
  } else {
    ok = driver_->Write(pc, c.data(), c_values * 4);
  }
  return ok ? Error{} : Error{STRATA_INTERNAL, "writing C failed"};
}

// JAX's Defragment(): copy every live buffer of every tenant to the host, free them all, allocate them again
// in the same order, copy them back. Nothing moves on the device itself; the cost is host-link bytes and syncs.
Error GpuPolicyBackend::Compact(strata_context context, uint64_t, uint32_t, strata_compact_result* out) {
  if (context != 0 && FindTenant(context) == nullptr) return NoSuchContext(context);  // 0: every context
  std::vector<uint32_t> live;
  for (uint32_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i].live) live.push_back(i);
  }
  std::sort(live.begin(), live.end(), [&](uint32_t x, uint32_t y) { return slots_[x].ptr < slots_[y].ptr; });
  std::vector<std::vector<uint8_t>> copies(live.size());
  uint64_t bytes = 0;
  driver_->DeviceSynchronize();
  for (size_t i = 0; i < live.size(); ++i) {
    const Slot& s = slots_[live[i]];
    bytes += s.bytes;  // the framework copies every byte; the emulation skips what was never written
    if (!driver_->MayHoldData(s.ptr, s.bytes)) continue;
    copies[i].resize(s.bytes);
    if (!driver_->Read(s.ptr, copies[i].data(), s.bytes)) {
      return {STRATA_INTERNAL, "defragmentation could not copy a buffer to the host (nothing was freed)"};
    }
  }
  for (Tenant& t : tenants_) t.stale = true;
  for (uint32_t i : live) Tenants(slots_[i].context).policy->Deallocate(slots_[i].ptr);
  for (size_t i = 0; i < live.size(); ++i) {
    Slot& s = slots_[live[i]];
    gpu::Oom oom;
    const uint64_t from = s.ptr;
    s.ptr = Tenants(s.context).policy->Allocate(s.bytes, 0, &oom);
    if (s.ptr != 0) HeapEvent("move", live[i], from, s.ptr);
    if (s.ptr == 0) {
      // The same requests into emptied pools can still fail: a pool of several regions sized exactly to what was
      // asked packs differently in address order, and the device may have no room to extend it. Those buffers are
      // lost (their contents were on the host only), as they would be in the framework: each is released so that
      // nothing refers to memory the policy no longer holds, and the caller hears DATA_LOSS.
      const size_t lost = live.size() - i;  // this one and those after it, not placed again yet
      for (size_t j = i; j < live.size(); ++j) {
        slots_[live[j]].live = false;
        slots_[live[j]].ptr = 0;
      }
      return {STRATA_DATA_LOSS, "defragmentation could not place " + std::to_string(lost) +
                                    " buffer(s) again, which are lost: " + oom.message};
    }
    if (!copies[i].empty() && !driver_->Write(s.ptr, copies[i].data(), s.bytes)) {
      return {STRATA_DATA_LOSS, "defragmentation could not copy a buffer back to the device"};
    }
  }
  driver_->DeviceSynchronize();
  driver_->counters().host_bytes_copied += 2 * bytes;
  ++compactions_;
  compaction_moves_ += live.size();
  compaction_bytes_ += bytes;
  out->moves = static_cast<uint32_t>(live.size());
  out->bytes_moved = bytes;
  if (sink_.on()) sink_.OnEvent(sim::Event{"compaction", "defragment", events_, events_, static_cast<int64_t>(bytes)});
  out->device_cycles = 0;  // no device clock; the cost is out->bytes_moved twice over the host link
  return {};
}

Error GpuPolicyBackend::MemoryStats(strata_context context, strata_memory_stats* out) {
  Tenant* only = nullptr;
  if (context != 0) {
    only = FindTenant(context);
    if (only == nullptr) return {STRATA_NOT_FOUND, kNoSuchContext};
  }
  uint64_t free_in_pools = 0;
  uint32_t contexts = 0;
  for (Tenant& t : tenants_) {
    if (!t.policy) continue;
    ++contexts;
    const gpu::PolicyStats& s = StatsOf(t);
    out->live_buffers += t.buffers;
    out->bytes_in_use += s.bytes_in_use;
    out->peak_bytes_in_use += s.peak_bytes_in_use;
    out->bytes_limit += s.bytes_limit;
    out->pool_bytes += s.pool_bytes;
    out->peak_pool_bytes += s.peak_pool_bytes;
    out->requested_bytes += s.requested_bytes;
    out->inactive_split_bytes += s.inactive_split_bytes;
    out->largest_alloc_size = std::max(out->largest_alloc_size, s.largest_alloc_size);
    out->largest_free_block_bytes = std::max(out->largest_free_block_bytes, s.largest_free_block_bytes);
    out->num_allocs += s.num_allocs;
    out->num_frees += s.num_frees;
    out->num_failed_allocs += s.num_failed_allocs + t.quota_ooms;
    out->num_alloc_retries += s.num_alloc_retries;
    out->num_device_alloc += s.num_device_alloc;
    out->num_device_free += s.num_device_free;
    out->oom_capacity += s.oom_capacity;
    out->oom_cap += s.oom_cap + t.quota_ooms;
    out->oom_fragmentation += s.oom_fragmentation;
    free_in_pools += s.pool_bytes > s.bytes_in_use ? s.pool_bytes - s.bytes_in_use : 0;
  }
  if (out->bytes_limit == 0) out->bytes_limit = driver_->total_bytes();
  out->bytes_free = free_in_pools;
  out->fragmentation =
      free_in_pools == 0
          ? 0.0
          : static_cast<double>(free_in_pools - std::min(free_in_pools, out->largest_free_block_bytes)) / free_in_pools;
  out->compactions = compactions_;
  out->compaction_moves = compaction_moves_;
  out->compaction_bytes_moved = compaction_bytes_;
  out->contexts = contexts;
  if (only != nullptr) {
    out->context_bytes_in_use = only->bytes;
    out->context_quota_bytes = only->quota;
    out->context_buffers = only->buffers;
    const gpu::PolicyStats& s = StatsOf(*only);
    out->context_allocated_bytes = s.bytes_in_use;
    out->context_pool_bytes = s.pool_bytes;
  }
  gpu::CopyDriverCosts(driver_->counters(), out);
  out->host_bytes_copied = driver_->counters().host_bytes_copied;
  return {};
}

Error GpuPolicyBackend::Synchronize() {
  driver_->DeviceSynchronize();
  return {};
}

Error GpuPolicyBackend::LastOom(strata_oom_info* out) {
  *out = last_oom_;
  return {};
}

GpuPolicyBackend::Tenant* GpuPolicyBackend::FindTenant(strata_context c) {
  const uint32_t slot = (c & ((1u << kContextSlotBits) - 1)) - 1;
  if (c == 0 || slot >= tenants_.size() || !tenants_[slot].policy || tenants_[slot].id != c) return nullptr;
  return &tenants_[slot];
}

GpuPolicyBackend::Tenant& GpuPolicyBackend::Tenants(strata_context c) {
  return tenants_[(c & ((1u << kContextSlotBits) - 1)) - 1];
}

uint64_t GpuPolicyBackend::LiveBytes() const {
  uint64_t sum = 0;
  for (const Tenant& t : tenants_) sum += t.bytes;
  return sum;
}

const gpu::PolicyStats& GpuPolicyBackend::StatsOf(Tenant& t) {
  if (t.stale) {
    t.stats = t.policy->Stats();
    t.stale = false;
  }
  return t.stats;
}

void GpuPolicyBackend::RecordOom(Tenant& t, uint64_t bytes, gpu::OomKind kind, uint64_t limit) {
  last_oom_ = strata_oom_info{};
  last_oom_.kind = ToC(kind);
  last_oom_.request_bytes = bytes;
  last_oom_.live_bytes = LiveBytes();
  last_oom_.limit_bytes = limit;
  last_oom_.device_free_bytes = driver_->free_bytes();
  last_oom_.context_bytes_in_use = t.bytes;
  last_oom_.context_quota_bytes = t.quota;
  const gpu::PolicyStats& s = StatsOf(t);  // the state at the failure
  last_oom_.reserved_bytes = s.pool_bytes;
  last_oom_.largest_free_block_bytes = s.largest_free_block_bytes;
}

Error GpuPolicyBackend::Resolve(strata_context context, strata_buffer h, const std::string& what, uint32_t* index) {
  const std::string prefix = what.empty() ? "" : what + ": ";
  if (FindTenant(context) == nullptr) return NoSuchContext(context);
  const uint64_t low = h & 0xffffffffull;
  const uint64_t gen = h >> 32;
  if (low == 0 || low > slots_.size() || gen == 0 || gen >= (1ull << kGenerationBits)) {
    return {STRATA_INVALID_ARGUMENT, prefix + "not a buffer handle"};
  }
  const Slot& s = slots_[low - 1];
  if (!s.live || s.generation != gen) return {STRATA_NOT_FOUND, prefix + "the handle is stale (its buffer was freed)"};
  if (s.context != context) return {STRATA_PERMISSION_DENIED, prefix + "the buffer belongs to another context"};
  *index = static_cast<uint32_t>(low - 1);
  return {};
}

Error GpuPolicyBackend::ResolveRange(strata_context context, strata_buffer h, uint64_t offset, uint64_t bytes,
                                     uint32_t* index) {
  Error e = Resolve(context, h, "", index);
  if (!e.ok()) return e;
  const Slot& s = slots_[*index];
  if (offset > s.bytes || bytes > s.bytes - offset)
    return {STRATA_OUT_OF_RANGE, "the range reaches outside the buffer"};
  return {};
}

Error GpuPolicyBackend::SetEventSink(strata_event_fn fn, void* user) {
  sink_.fn = fn;
  sink_.user = user;
  return {};
}

void GpuPolicyBackend::HeapEvent(const char* name, uint32_t index, uint64_t address, uint64_t to_address) {
  if (!sink_.on()) return;
  sim::Event e{"heap", name, events_, events_, static_cast<int64_t>(slots_[index].bytes), Handle(index)};
  e.kind = sim::EventKind::kInstant;
  e.has_address = true;
  e.address = address;
  e.to_address = to_address;
  sink_.OnEvent(e);
}

void GpuPolicyBackend::DeviceEvent(const char* name, uint64_t address, uint64_t bytes) {
  if (!sink_.on()) return;
  sim::Event e{"device", name, events_, events_, static_cast<int64_t>(bytes)};
  e.kind = sim::EventKind::kInstant;
  e.has_address = true;
  e.address = address;
  e.to_address = address;
  sink_.OnEvent(e);
}

void GpuPolicyBackend::Release(uint32_t index) {
  Slot& s = slots_[index];
  Tenant& t = Tenants(s.context);
  t.stale = true;
  t.policy->Deallocate(s.ptr);
  t.bytes -= s.bytes;
  --t.buffers;
  s.live = false;
  s.generation = s.generation + 1 == (1u << kGenerationBits) ? 1 : s.generation + 1;
  free_slots_.insert(index);
}

}  // namespace strata::driver
