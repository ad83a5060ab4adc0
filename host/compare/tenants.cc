// Several workloads on one device at once (strata-compare --tenant POLICY:WORKLOAD).
//
// GPU: every tenant is a process with its framework's policy over one emulated GPU, through the C API (the gpu-emu
// backend opened once, a context per tenant with its own policy and settings, API 1.9): a JAX process preallocates
// its fraction of the *total* memory whatever the others hold, TensorFlow takes what is free when it starts, and each
// one's OOMs are its own.
// Strata: every tenant is a context on one device; a context's quota is what its workload needs at its
// peak, checked before the allocator by the runtime's own rule (strata/quota.h), and
// compaction serves every context at once (it moves any context's buffers).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>

#include "compare.h"
#include "emu_gpu.h"
#include "policy.h"
#include "runner.h"
#include "strata/quota.h"
#include "strata/strata.h"
#include "strata/strata.hpp"
#include "text.h"

namespace strata::compare {
namespace {

constexpr uint32_t kGranule = alloc::kDefaultGranuleBytes;

uint64_t RoundUp(uint64_t x, uint64_t m) { return (x + m - 1) / m * m; }

// One event of the merged run.
struct TenantEvent {
  double position;  // in [0, 1): the tenant's event index over its event count
  uint32_t tenant;
  replay::Event event;
};

// Every tenant's events spread evenly over one run and merged (ties: the lower tenant first).
std::vector<TenantEvent> Interleave(const std::vector<TenantSpec>& tenants) {
  std::vector<TenantEvent> all;
  for (uint32_t t = 0; t < tenants.size(); ++t) {
    const std::vector<replay::Event> events = replay::BuildEvents(tenants[t].trace);
    for (size_t i = 0; i < events.size(); ++i) {
      all.push_back({(static_cast<double>(i) + 0.5) / static_cast<double>(events.size()), t, events[i]});
    }
  }
  std::stable_sort(all.begin(), all.end(), [](const TenantEvent& a, const TenantEvent& b) {
    if (a.position != b.position) return a.position < b.position;
    return a.tenant < b.tenant;
  });
  return all;
}

void RecordOom(Run* r, TenantResult* t, uint64_t event, const replay::TraceBuffer& b, const std::string& kind,
               const FirstOom& numbers) {
  ++t->failed_allocs;
  ++r->failed_allocs;
  if (kind == "capacity") ++r->oom_capacity;
  if (kind == "cap") ++r->oom_cap;
  if (kind == "fragmentation") ++r->oom_fragmentation;
  if (kind == "quota") ++r->oom_quota;
  if (r->oom_events.size() < kMaxOomEvents) r->oom_events.emplace_back(event, kind);
  FirstOom f = numbers;
  f.event = static_cast<int64_t>(event);
  f.buffer_id = b.id;
  f.kind = kind;
  f.tenant = t->name;
  if (t->first_oom.event < 0) t->first_oom = f;
  if (r->first_oom.event < 0) r->first_oom = f;
}

// The merged run, one event at a time, with what every device counts alike (events, allocations, the trace's
// live bytes, the series). `allocate(i, tenant, buffer)` and `release(tenant, buffer)` do the device's part and
// return false on an error; `memory(&in_use, &reserved)` reads the device after each event.
template <typename Allocate, typename Release, typename Memory>
bool RunMerged(const std::vector<TenantSpec>& tenants, const std::vector<TenantEvent>& events, bool record, Run* run,
               Allocate allocate, Release release, Memory memory) {
  Run& r = *run;
  uint64_t trace_live = 0;
  if (record) r.series.reserve(events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    const TenantEvent& te = events[i];
    const uint64_t size = tenants[te.tenant].trace.buffers[te.event.buffer].size;
    ++r.events;
    if (te.event.kind == 1) {
      ++r.allocs;
      ++r.tenants[te.tenant].allocs;
      trace_live += size;
      if (!allocate(i, te.tenant, te.event.buffer)) return false;
    } else {
      trace_live -= size;
      if (!release(te.tenant, te.event.buffer)) return false;
    }
    uint64_t in_use = 0, reserved = 0;
    memory(&in_use, &reserved);
    r.peak_live_bytes = std::max(r.peak_live_bytes, in_use);
    r.peak_reserved_bytes = std::max(r.peak_reserved_bytes, reserved);
    if (record) r.series.push_back({i, trace_live, in_use, reserved});
  }
  return true;
}

template <typename A>
bool StrataTenants(const std::vector<TenantSpec>& tenants, const std::vector<TenantEvent>& events, uint32_t peak_live,
                   bool compaction, uint64_t capacity, bool record, Run* run, std::string* error) {
  Run& r = *run;
  // A context's quota is what its workload needs at its peak unless given (at most the heap): the quotas may add up to
  // more than the heap, as the runtime allows, so the contexts share what the others are not using.
  std::vector<uint64_t> in_use(tenants.size(), 0);
  for (size_t t = 0; t < tenants.size(); ++t) {
    const uint64_t quota = tenants[t].quota_bytes ? RoundUp(tenants[t].quota_bytes, kGranule)
                                                  : replay::MaxLoad(tenants[t].trace, kGranule);
    r.tenants[t].quota_bytes = std::min(quota, capacity / kGranule * kGranule);
  }
  std::vector<typename A::Node> nodes(A::NodesForLiveBuffers(peak_live));
  A allocator;
  alloc::Options ao;
  ao.capacity_bytes = capacity;
  ao.granule_bytes = kGranule;
  if (allocator.Init(nodes.data(), static_cast<uint32_t>(nodes.size()), ao) != STRATA_OK) {
    *error = "the allocator refused a heap of " + std::to_string(capacity) + " bytes";
    return false;
  }
  std::vector<alloc::Move> moves(peak_live);
  std::vector<std::vector<alloc::Handle>> handles(tenants.size());
  for (size_t t = 0; t < tenants.size(); ++t) handles[t].resize(tenants[t].trace.buffers.size());
  auto no_copy = [](void*, const alloc::Move*, uint32_t) { return STRATA_OK; };
  uint64_t total_in_use = 0, footprint = 0;

  auto allocate = [&](size_t i, uint32_t tenant, uint32_t buffer) {
    const replay::TraceBuffer& b = tenants[tenant].trace.buffers[buffer];
    TenantResult& t = r.tenants[tenant];
    const uint64_t rounded = RoundUp(b.size, kGranule);
    FirstOom numbers;
    numbers.request_bytes = b.size;
    numbers.reserved_bytes = capacity;
    numbers.limit_bytes = t.quota_bytes;
    if (!strata_quota_admits(t.quota_bytes, in_use[tenant], rounded)) {  // the runtime's rule
      const alloc::Stats now = allocator.GetStats();
      numbers.live_bytes = now.bytes_in_use;
      numbers.largest_free_bytes = now.largest_free_block_bytes;
      numbers.message = "Strata: context '" + t.name + "' at its quota: " + tool::HumanBytes(in_use[tenant]) +
                        " in use of " + tool::HumanBytes(t.quota_bytes) + ", " + tool::HumanBytes(b.size) +
                        " requested";
      RecordOom(&r, &t, i, b, "quota", numbers);
      return true;
    }
    alloc::Handle& h = handles[tenant][buffer];
    strata_status st = allocator.Allocate(b.size, 0, &h);
    if (st == STRATA_RESOURCE_EXHAUSTED && compaction) {
      st = allocator.AllocateWithCompaction(b.size, 0, alloc::CompactionBudget{}, moves.data(),
                                            static_cast<uint32_t>(moves.size()), +no_copy, nullptr, &h);
    }
    if (st == STRATA_RESOURCE_EXHAUSTED) {
      h = alloc::Handle{};
      const alloc::Stats now = allocator.GetStats();  // a failed allocation changes no byte in use
      numbers.live_bytes = now.bytes_in_use;
      numbers.largest_free_bytes = now.largest_free_block_bytes;
      numbers.message = "Strata: cannot allocate " + tool::HumanBytes(b.size) + " for context '" + t.name +
                        "': " + tool::HumanBytes(now.bytes_in_use) + " in use of " + tool::HumanBytes(capacity) +
                        ", largest free block " + tool::HumanBytes(now.largest_free_block_bytes);
      RecordOom(&r, &t, i, b, gpu::OomKindName(gpu::ClassifyOom(rounded, now.bytes_in_use, 0, capacity)), numbers);
      return true;
    }
    if (st != STRATA_OK) {
      *error = "Allocate returned " + std::string(strata_status_name(st));
      return false;
    }
    alloc::BufferInfo info;
    allocator.GetInfo(h, &info);
    in_use[tenant] += info.allocated_bytes;
    total_in_use += info.allocated_bytes;
    footprint = std::max(footprint, info.offset + info.allocated_bytes);
    t.peak_in_use_bytes = std::max(t.peak_in_use_bytes, in_use[tenant]);
    return true;
  };
  auto release = [&](uint32_t tenant, uint32_t buffer) {
    alloc::Handle& h = handles[tenant][buffer];
    if (h.IsNull()) return true;  // its allocation failed
    alloc::BufferInfo info;
    allocator.GetInfo(h, &info);
    if (allocator.Free(h) != STRATA_OK) {
      *error = "Free failed";
      return false;
    }
    h = alloc::Handle{};
    in_use[tenant] -= info.allocated_bytes;
    total_in_use -= info.allocated_bytes;
    return true;
  };
  auto memory = [&](uint64_t* now_in_use, uint64_t* reserved) {
    *now_in_use = total_in_use;
    *reserved = footprint;  // the highest heap address used so far
  };
  if (!RunMerged(tenants, events, record, run, allocate, release, memory)) return false;
  const alloc::Stats s = allocator.GetStats();
  r.cost.compactions = s.compactions;
  r.cost.moves = s.compaction_moves;
  r.cost.bytes_moved = s.compaction_bytes_moved;
  return true;
}

// The framework's own words in an out-of-memory strata_alloc's message on a GPU backend, which ends with
// ". <policy> says: " and them; the whole message if it does not.
std::string PolicyWords(const std::string& message, const std::string& policy) {
  const std::string says = ". " + policy + " says: ";
  const size_t at = message.find(says);
  return at == std::string::npos ? message : message.substr(at + says.size());
}

bool GpuTenants(const std::vector<TenantSpec>& tenants, const std::vector<TenantEvent>& events, uint64_t capacity,
                bool record, const Options& options, Run* run, std::string* error) {
  Run& r = *run;
  uint64_t page_bytes = gpu::GpuSpec{}.page_bytes, context_bytes = 0;
  std::vector<std::map<std::string, std::string>> settings(tenants.size());
  for (size_t t = 0; t < tenants.size(); ++t) {
    if (!ApplyGpuOptions(options, tenants[t].policy, &page_bytes, &settings[t], error)) return false;
    for (const auto& [k, v] : tenants[t].options) settings[t][k] = v;
    context_bytes += tenants[t].context_bytes;  // every process's own CUDA context
  }
  if (context_bytes >= capacity) {
    *error = "the tenants' CUDA contexts (" + tool::HumanBytes(context_bytes) + ") leave nothing of " +
             tool::HumanBytes(capacity);
    return false;
  }
  // One emulated GPU; every tenant a context with its own policy and settings (API 1.9).
  std::unique_ptr<NamedOptions> named;
  try {
    named = std::make_unique<NamedOptions>("gpu-emu");
    named->Add("total_bytes", capacity);
    named->Add("context_bytes", context_bytes);
    named->Add("page_bytes", page_bytes);
  } catch (const strata::Error& e) {
    *error = e.what();
    return false;
  }
  strata_open_options oo{};
  oo.struct_size = sizeof oo;
  oo.named_options = named->data();
  oo.num_named_options = named->size();
  strata_device* d = nullptr;
  if (strata_open("gpu-emu", &oo, &d) != STRATA_OK) {
    *error = replay::ApiError("opening the gpu-emu backend");
    return false;
  }
  const std::unique_ptr<strata_device, strata_status (*)(strata_device*)> closer(d, strata_close);
  std::vector<strata_context> contexts(tenants.size(), 0);
  for (size_t t = 0; t < tenants.size(); ++t) {
    std::vector<strata_named_value> values;
    values.reserve(settings[t].size() + 1);
    auto add = [&](const char* name, const char* value) {  // both outlive the call below
      strata_named_value v{};
      v.struct_size = sizeof v;
      v.name = name;
      v.type = STRATA_VALUE_STRING;  // the policy and its settings are strings (GPU context options)
      v.string_value = value;
      values.push_back(v);
    };
    add("policy", tenants[t].policy.c_str());
    for (const auto& [k, v] : settings[t]) add(k.c_str(), v.c_str());
    strata_context_options co{};
    co.struct_size = sizeof co;
    co.named_options = values.data();
    co.num_named_options = static_cast<uint32_t>(values.size());
    if (const strata_status st = strata_context_create(d, &co, &contexts[t]); st != STRATA_OK) {
      // The policy's own words ("option X: ..."), as the tools have always said them: without "call: STATUS: ".
      const std::string message = strata_last_error_message();
      const std::string call = std::string("strata_context_create: ") + strata_status_name(st) + ": ";
      *error = message.compare(0, call.size(), call) == 0 ? message.substr(call.size()) : message;
      return false;
    }
  }
  std::vector<std::vector<strata_buffer>> handles(tenants.size());
  for (size_t t = 0; t < tenants.size(); ++t) handles[t].assign(tenants[t].trace.buffers.size(), 0);
  // Each tenant's figures (its policy's bytes_in_use and pool_bytes), re-read only after its own events (the others'
  // cannot have changed), and only after one that called the device (or its first: a policy may hold a pool from its
  // start).
  std::vector<uint64_t> in_use(tenants.size(), 0), pool(tenants.size(), 0);
  std::vector<bool> read(tenants.size(), false);
  uint32_t acted = 0;
  bool called = false;
  auto context_stats = [&](uint32_t tenant, strata_memory_stats* s) {
    *s = strata_memory_stats{};
    s->struct_size = sizeof *s;
    if (strata_get_memory_stats(d, contexts[tenant], s) == STRATA_OK) return true;
    *error = replay::ApiError("strata_get_memory_stats");
    return false;
  };

  auto allocate = [&](size_t i, uint32_t tenant, uint32_t buffer) {
    const replay::TraceBuffer& b = tenants[tenant].trace.buffers[buffer];
    acted = tenant;
    if (b.size == 0) return true;  // the frameworks return no memory for 0 bytes
    called = true;
    const strata_status st = strata_alloc(d, contexts[tenant], b.size, 0, 0, &handles[tenant][buffer]);
    if (st == STRATA_OK) return true;
    handles[tenant][buffer] = 0;
    if (st != STRATA_RESOURCE_EXHAUSTED) {
      *error = "line " + std::to_string(b.line) + ": " + strata_last_error_message();
      return false;
    }
    const std::string message = strata_last_error_message();
    strata_oom_info oom{};
    oom.struct_size = sizeof oom;
    strata_memory_stats now;
    if (strata_get_last_oom(d, &oom) != STRATA_OK) {
      *error = replay::ApiError("strata_get_last_oom");
      return false;
    }
    if (!context_stats(tenant, &now)) return false;  // a failed allocation leaves the policy as it failed
    FirstOom numbers;
    numbers.request_bytes = oom.request_bytes;
    numbers.live_bytes = now.context_allocated_bytes;  // the tenant's policy's bytes_in_use
    numbers.reserved_bytes = oom.reserved_bytes;
    numbers.largest_free_bytes = oom.largest_free_block_bytes;
    numbers.limit_bytes = oom.limit_bytes;
    numbers.message = PolicyWords(message, tenants[tenant].policy);
    RecordOom(&r, &r.tenants[tenant], i, b, strata_oom_kind_name(oom.kind), numbers);
    return true;
  };
  auto release = [&](uint32_t tenant, uint32_t buffer) {
    acted = tenant;
    strata_buffer& h = handles[tenant][buffer];
    called = h != 0;
    if (h != 0 && strata_free(d, contexts[tenant], h) != STRATA_OK) {
      *error =
          "line " + std::to_string(tenants[tenant].trace.buffers[buffer].line) + ": " + strata_last_error_message();
      return false;
    }
    h = 0;
    return true;
  };
  bool stats_ok = true;
  auto memory = [&](uint64_t* now_in_use, uint64_t* reserved) {
    if (called || !read[acted]) {
      strata_memory_stats s;
      if (!context_stats(acted, &s)) {
        stats_ok = false;
        return;
      }
      in_use[acted] = s.context_allocated_bytes;
      pool[acted] = s.context_pool_bytes;
      read[acted] = true;
    }
    called = false;
    r.tenants[acted].peak_in_use_bytes = std::max(r.tenants[acted].peak_in_use_bytes, in_use[acted]);
    for (size_t t = 0; t < tenants.size(); ++t) {
      *now_in_use += in_use[t];
      *reserved += pool[t];
    }
  };
  if (!RunMerged(tenants, events, record, run, allocate, release, memory) || !stats_ok) return false;
  strata_memory_stats device{};
  device.struct_size = sizeof device;
  if (strata_get_memory_stats(d, 0, &device) != STRATA_OK) {
    *error = replay::ApiError("strata_get_memory_stats");
    return false;
  }
  gpu::CopyDriverCosts(device, &r.cost);  // the emulated driver's counters, device-wide
  r.cost.retries = device.num_alloc_retries;
  return true;
}

// One tenant run of `kind` ("strata", "strata-no-compact" or "gpu") at `capacity`.
bool TenantRun(const std::vector<TenantSpec>& tenants, const std::vector<TenantEvent>& events, const std::string& kind,
               uint64_t capacity, bool record, const Options& options, Run* run, std::string* error) {
  *run = Run{};
  run->capacity_bytes = capacity;
  std::string names;
  for (const TenantSpec& t : tenants) {
    TenantResult tr;
    tr.name = t.policy + ":" + t.trace.name;
    tr.policy = kind == "gpu" ? t.policy : "context";
    tr.workload = t.workload;
    run->tenants.push_back(tr);
    names += (names.empty() ? "" : " + ") + t.policy;
  }
  const auto t0 = std::chrono::steady_clock::now();
  bool ok;
  if (kind == "gpu") {
    run->contender = "gpu: " + names;
    run->family = "gpu";
    run->backend = "gpu-emu";
    run->allocator = "one emulated GPU, one process per tenant, each with its framework's policy";
    ok = GpuTenants(tenants, events, capacity, record, options, run, error);
  } else {
    const bool compaction = kind == "strata";
    run->contender = kind + ": " + std::to_string(tenants.size()) + " contexts";
    run->family = "strata";
    run->backend = "host";
    run->allocator = std::string(
                         "one Strata device, a context per tenant with its quota (its max load "
                         "unless given), compaction ") +
                     (compaction ? "HBM->HBM on OOM" : "off");
    uint32_t live = 0, peak = 1;
    for (const TenantEvent& e : events) {
      live = e.event.kind == 1 ? live + 1 : live - 1;
      peak = std::max(peak, live);
    }
    ok = alloc::Allocator::NodesForLiveBuffers(peak) <= alloc::Allocator::kMaxNodes
             ? StrataTenants<alloc::Allocator>(tenants, events, peak, compaction, capacity, record, run, error)
             : StrataTenants<alloc::WideAllocator>(tenants, events, peak, compaction, capacity, record, run, error);
  }
  run->wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return ok;
}

// The max load of the merged run: what any device needs at least.
uint64_t MergedMaxLoad(const std::vector<TenantSpec>& tenants, const std::vector<TenantEvent>& events) {
  uint64_t live = 0, peak = 0;
  for (const TenantEvent& e : events) {
    const uint64_t size = RoundUp(tenants[e.tenant].trace.buffers[e.event.buffer].size, kGranule);
    live = e.event.kind == 1 ? live + size : live - size;
    peak = std::max(peak, live);
  }
  return peak;
}

}  // namespace

bool RunGpuTenants(const std::vector<TenantSpec>& tenants, uint64_t capacity, const Options& options, Run* run,
                   std::string* error) {
  return TenantRun(tenants, Interleave(tenants), "gpu", capacity, true, options, run, error);
}

bool RunStrataTenants(const std::vector<TenantSpec>& tenants, uint64_t capacity, bool compaction, Run* run,
                      std::string* error) {
  const Options defaults;  // a Strata tenant run reads no option
  return TenantRun(tenants, Interleave(tenants), compaction ? "strata" : "strata-no-compact", capacity, true, defaults,
                   run, error);
}

bool CompareTenants(const std::vector<TenantSpec>& tenants, const Options& options, WorkloadReport* report,
                    std::string* error) {
  if (tenants.size() < 2) {
    *error = "--tenant needs at least two tenants";
    return false;
  }
  const std::vector<std::string> policies = gpu::PolicyNames();
  for (const TenantSpec& t : tenants) {
    if (std::find(policies.begin(), policies.end(), t.policy) == policies.end()) {
      std::string names;
      for (const std::string& p : policies) names += (names.empty() ? "" : ", ") + p;
      *error = "--tenant " + t.policy + ":" + t.workload + ": unknown policy '" + t.policy + "' (" + names + ")";
      return false;
    }
  }
  const std::vector<TenantEvent> events = Interleave(tenants);
  WorkloadReport& w = *report;
  w = WorkloadReport{};
  for (const TenantSpec& t : tenants) {
    w.name += (w.name.empty() ? "" : " + ") + t.policy + ":" + t.trace.name;
    w.buffers += t.trace.buffers.size();
  }
  w.source = std::to_string(tenants.size()) + " tenants, interleaved";
  w.events = events.size();
  w.max_load_bytes = MergedMaxLoad(tenants, events);
  w.capacity_text = options.capacity.text;
  w.capacity_bytes = CapacityBytes(options.capacity, w.max_load_bytes);
  w.gpu_page_bytes = GpuPageBytes(options);
  for (const char* kind : {"strata", "strata-no-compact", "gpu"}) {
    Run run;
    if (!TenantRun(tenants, events, kind, w.capacity_bytes, true, options, &run, error)) return false;
    run.series = Downsample(run.series, options.series_points);
    if (options.search) {
      const bool searched = SearchCapacity(
          w.max_load_bytes, options,
          [&](uint64_t capacity, bool* ok, std::string* e) {
            Run probe;
            if (!TenantRun(tenants, events, kind, capacity, false, options, &probe, e)) return false;
            *ok = probe.completed();
            return true;
          },
          &run.min_capacity, error);
      if (!searched) return false;
    }
    if (options.progress) options.progress(w.name + ": " + run.contender + (run.completed() ? " completes" : " fails"));
    w.runs.push_back(std::move(run));
  }
  return true;
}

}  // namespace strata::compare
