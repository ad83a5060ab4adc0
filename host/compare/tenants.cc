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
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

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

// The merged run as the runner takes it: every event in run order and whose it is.
struct Merged {
  std::vector<replay::Event> events;
  std::vector<uint32_t> tenant;  // per event
};

// Every tenant's events spread evenly over one run and merged (ties: the lower tenant first).
Merged Interleave(const std::vector<TenantSpec>& tenants) {
  struct Placed {
    double position;  // in [0, 1): the tenant's event index over its event count
    uint32_t tenant;
    replay::Event event;
  };
  std::vector<Placed> all;
  for (uint32_t t = 0; t < tenants.size(); ++t) {
    const std::vector<replay::Event> events = replay::BuildEvents(tenants[t].trace);
    for (size_t i = 0; i < events.size(); ++i) {
      all.push_back({(static_cast<double>(i) + 0.5) / static_cast<double>(events.size()), t, events[i]});
    }
  }
  std::stable_sort(all.begin(), all.end(), [](const Placed& a, const Placed& b) {
    if (a.position != b.position) return a.position < b.position;
    return a.tenant < b.tenant;
  });
  Merged m;
  m.events.reserve(all.size());
  m.tenant.reserve(all.size());
  for (const Placed& p : all) {
    m.events.push_back(p.event);
    m.tenant.push_back(p.tenant);
  }
  return m;
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

// A device opened for a tenant run, a context per tenant, and what its kind says after each event and of a failure.
struct TenantDevice {
  strata_device* d = nullptr;
  std::vector<strata_context> contexts;
  uint32_t alloc_flags = 0;
  bool skip_zero_bytes = false;
  // After each event: the device's bytes in use and reserved now (false on an error, with *error set).
  std::function<bool(const replay::RunStep&, uint64_t* in_use, uint64_t* reserved)> memory;
  // A failed allocation: its kind as the report names it, and its numbers.
  std::function<bool(const replay::RunStep&, std::string* kind, FirstOom* numbers)> failure;
  ~TenantDevice() {
    if (d != nullptr) strata_close(d);
  }
};

// The merged run through the runner (replay::RunEvents), with what every device counts alike: events, allocations,
// each tenant's failures, the trace's live bytes and the series; *stats: the device's figures after the last event.
// `places`: where every tenant's buffers were (Run::places, numbered tenant by tenant as CompareTenants lists them).
bool RunMerged(const std::vector<TenantSpec>& tenants, const Merged& merged, bool record, bool places,
               TenantDevice& device, Run* run, strata_memory_stats* stats, std::string* error) {
  Run& r = *run;
  std::vector<replay::RunStream> streams;
  for (size_t t = 0; t < tenants.size(); ++t) streams.push_back({&tenants[t].trace, device.contexts[t]});
  replay::RunOptions o;
  o.oom_info = true;
  o.alloc_flags = device.alloc_flags;
  o.skip_zero_bytes = device.skip_zero_bytes;
  o.record_places = places;
  o.places_every_stream = true;
  uint64_t trace_live = 0;  // every tenant's
  if (record) r.series.reserve(merged.events.size());
  o.after_event = [&](const replay::RunStep& step) {
    const uint64_t size = step.buffer->size;
    trace_live = step.alloc ? trace_live + size : trace_live - size;
    if (step.oom != nullptr) {
      std::string kind;
      FirstOom numbers;
      if (!device.failure(step, &kind, &numbers)) return false;
      RecordOom(&r, &r.tenants[step.stream], step.index, *step.buffer, kind, numbers);
    }
    if (!record) return true;  // a capacity search asks only whether the run completes
    uint64_t in_use = 0, reserved = 0;
    if (!device.memory(step, &in_use, &reserved)) return false;
    r.peak_live_bytes = std::max(r.peak_live_bytes, in_use);
    r.peak_reserved_bytes = std::max(r.peak_reserved_bytes, reserved);
    r.series.push_back({step.index, trace_live, in_use, reserved});
    return true;
  };
  replay::RunResult result;
  if (!replay::RunEvents(device.d, streams, merged.events, &merged.tenant, o, &result, error)) return false;
  r.events = result.events;
  r.allocs = result.allocs;
  for (size_t t = 0; t < tenants.size(); ++t) r.tenants[t].allocs = result.streams[t].allocs;
  *stats = result.stats;
  if (places) {  // drawn from the lowest address used (a GPU's are virtual addresses)
    r.places = std::move(result.places);
    r.has_places = true;
    uint64_t base = UINT64_MAX;
    for (const replay::PlacedSpan& p : r.places) base = std::min(base, p.offset);
    for (replay::PlacedSpan& p : r.places) p.offset -= base;
  }
  return true;
}

// Opens `backend` with `named` options.
bool OpenDevice(const char* backend, const NamedOptions& named, TenantDevice* device, std::string* error) {
  strata_open_options oo{};
  oo.struct_size = sizeof oo;
  oo.named_options = named.data();
  oo.num_named_options = named.size();
  if (strata_open(backend, &oo, &device->d) == STRATA_OK) return true;
  device->d = nullptr;
  *error = replay::ApiError(std::string("opening the ") + backend + " backend");
  return false;
}

bool StrataTenants(const std::vector<TenantSpec>& tenants, const Merged& merged, uint32_t peak_live, bool compaction,
                   uint64_t capacity, bool record, bool places, Run* run, std::string* error) {
  Run& r = *run;
  // A context's quota is what its workload needs at its peak unless given (at most the heap): the quotas may add up to
  // more than the heap, as the runtime allows, so the contexts share what the others are not using.
  for (size_t t = 0; t < tenants.size(); ++t) {
    const uint64_t quota = tenants[t].quota_bytes ? RoundUp(tenants[t].quota_bytes, kGranule)
                                                  : replay::MaxLoad(tenants[t].trace, kGranule);
    r.tenants[t].quota_bytes = std::min(quota, capacity / kGranule * kGranule);
  }
  // Strata's allocator on the host backend: the runtime's quota rule (strata/quota.h) and compaction on OOM.
  TenantDevice device;
  try {
    NamedOptions named("host");
    named.Add("capacity_bytes", capacity);
    named.Add("granule_bytes", kGranule);
    named.Add("max_live_buffers", peak_live);
    if (!OpenDevice("host", named, &device, error)) return false;
  } catch (const strata::Error& e) {
    *error = e.what();
    return false;
  }
  for (size_t t = 0; t < tenants.size(); ++t) {
    strata_context_options co{};
    co.struct_size = sizeof co;
    co.quota_bytes = r.tenants[t].quota_bytes;
    strata_context c = 0;
    if (strata_context_create(device.d, &co, &c) != STRATA_OK) {
      *error = replay::ApiError("strata_context_create");
      return false;
    }
    device.contexts.push_back(c);
  }
  device.alloc_flags = compaction ? 0u : STRATA_ALLOC_FLAG_NO_COMPACT;
  device.failure = [&](const replay::RunStep& step, std::string* kind, FirstOom* numbers) {
    const strata_oom_info& oom = step.oom->info;
    const TenantResult& t = r.tenants[step.stream];
    const uint64_t size = step.buffer->size;
    numbers->request_bytes = size;
    numbers->reserved_bytes = capacity;
    numbers->limit_bytes = t.quota_bytes;
    numbers->live_bytes = oom.live_bytes;
    numbers->largest_free_bytes = oom.largest_free_block_bytes;
    if (step.failed == STRATA_OOM_CAP) {  // the context's quota (the runtime's rule)
      *kind = "quota";
      numbers->message = "Strata: context '" + t.name +
                         "' at its quota: " + tool::HumanBytes(oom.context_bytes_in_use) + " in use of " +
                         tool::HumanBytes(t.quota_bytes) + ", " + tool::HumanBytes(size) + " requested";
    } else {
      *kind = strata_oom_kind_name(step.failed);
      numbers->message = "Strata: cannot allocate " + tool::HumanBytes(size) + " for context '" + t.name +
                         "': " + tool::HumanBytes(oom.live_bytes) + " in use of " + tool::HumanBytes(capacity) +
                         ", largest free block " + tool::HumanBytes(oom.largest_free_block_bytes);
    }
    return true;
  };
  device.memory = [&](const replay::RunStep& step, uint64_t* in_use, uint64_t* reserved) {
    strata_memory_stats s{};
    s.struct_size = sizeof s;
    if (strata_get_memory_stats(device.d, device.contexts[step.stream], &s) != STRATA_OK) {
      *error = replay::ApiError("strata_get_memory_stats");
      return false;
    }
    TenantResult& t = r.tenants[step.stream];
    t.peak_in_use_bytes = std::max(t.peak_in_use_bytes, s.context_bytes_in_use);
    *in_use = s.bytes_in_use;
    *reserved = s.pool_bytes;  // the highest heap address used so far
    return true;
  };
  strata_memory_stats s;  // device-wide, after the last event
  if (!RunMerged(tenants, merged, record, places, device, run, &s, error)) return false;
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

bool GpuTenants(const std::vector<TenantSpec>& tenants, const Merged& merged, uint64_t capacity, bool record,
                bool places, const Options& options, Run* run, std::string* error) {
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
  TenantDevice device;
  try {
    NamedOptions named("gpu-emu");
    named.Add("total_bytes", capacity);
    named.Add("context_bytes", context_bytes);
    named.Add("page_bytes", page_bytes);
    if (!OpenDevice("gpu-emu", named, &device, error)) return false;
  } catch (const strata::Error& e) {
    *error = e.what();
    return false;
  }
  strata_device* d = device.d;
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
    strata_context c = 0;
    if (const strata_status st = strata_context_create(d, &co, &c); st != STRATA_OK) {
      // The policy's own words ("option X: ..."), as the tools have always said them: without "call: STATUS: ".
      const std::string message = strata_last_error_message();
      const std::string call = std::string("strata_context_create: ") + strata_status_name(st) + ": ";
      *error = message.compare(0, call.size(), call) == 0 ? message.substr(call.size()) : message;
      return false;
    }
    device.contexts.push_back(c);
  }
  device.skip_zero_bytes = true;  // the frameworks return no memory for 0 bytes
  auto context_stats = [&](uint32_t tenant, strata_memory_stats* s) {
    *s = strata_memory_stats{};
    s->struct_size = sizeof *s;
    if (strata_get_memory_stats(d, device.contexts[tenant], s) == STRATA_OK) return true;
    *error = replay::ApiError("strata_get_memory_stats");
    return false;
  };
  device.failure = [&](const replay::RunStep& step, std::string* kind, FirstOom* numbers) {
    const strata_oom_info& oom = step.oom->info;
    strata_memory_stats now;
    if (!context_stats(step.stream, &now)) return false;  // a failed allocation leaves the policy as it failed
    *kind = strata_oom_kind_name(oom.kind);
    numbers->request_bytes = oom.request_bytes;
    numbers->live_bytes = now.context_allocated_bytes;  // the tenant's policy's bytes_in_use
    numbers->reserved_bytes = oom.reserved_bytes;
    numbers->largest_free_bytes = oom.largest_free_block_bytes;
    numbers->limit_bytes = oom.limit_bytes;
    numbers->message = PolicyWords(step.oom->message, tenants[step.stream].policy);
    return true;
  };
  // Each tenant's figures (its policy's bytes_in_use and pool_bytes), re-read only after its own events (the others'
  // cannot have changed), and only after one that called the device (or its first: a policy may hold a pool from its
  // start).
  std::vector<uint64_t> in_use(tenants.size(), 0), pool(tenants.size(), 0);
  std::vector<bool> read(tenants.size(), false);
  device.memory = [&](const replay::RunStep& step, uint64_t* now_in_use, uint64_t* reserved) {
    const uint32_t acted = step.stream;
    if (step.called || !read[acted]) {
      strata_memory_stats s;
      if (!context_stats(acted, &s)) return false;
      in_use[acted] = s.context_allocated_bytes;
      pool[acted] = s.context_pool_bytes;
      read[acted] = true;
    }
    r.tenants[acted].peak_in_use_bytes = std::max(r.tenants[acted].peak_in_use_bytes, in_use[acted]);
    for (size_t t = 0; t < tenants.size(); ++t) {
      *now_in_use += in_use[t];
      *reserved += pool[t];
    }
    return true;
  };
  strata_memory_stats total;  // device-wide, after the last event
  if (!RunMerged(tenants, merged, record, places, device, run, &total, error)) return false;
  gpu::CopyDriverCosts(total, &r.cost);  // the emulated driver's counters, device-wide
  r.cost.retries = total.num_alloc_retries;
  return true;
}

// One tenant run of `kind` ("strata", "strata-no-compact" or "gpu") at `capacity`.
bool TenantRun(const std::vector<TenantSpec>& tenants, const Merged& merged, const std::string& kind, uint64_t capacity,
               bool record, bool places, const Options& options, Run* run, std::string* error) {
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
    ok = GpuTenants(tenants, merged, capacity, record, places, options, run, error);
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
    for (const replay::Event& e : merged.events) {
      live = e.kind == 1 ? live + 1 : live - 1;
      peak = std::max(peak, live);
    }
    ok = StrataTenants(tenants, merged, peak, compaction, capacity, record, places, run, error);
  }
  run->wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return ok;
}

// The max load of the merged run: what any device needs at least.
uint64_t MergedMaxLoad(const std::vector<TenantSpec>& tenants, const Merged& merged) {
  uint64_t live = 0, peak = 0;
  for (size_t i = 0; i < merged.events.size(); ++i) {
    const replay::Event& e = merged.events[i];
    const uint64_t size = RoundUp(tenants[merged.tenant[i]].trace.buffers[e.buffer].size, kGranule);
    live = e.kind == 1 ? live + size : live - size;
    peak = std::max(peak, live);
  }
  return peak;
}

}  // namespace

bool RunGpuTenants(const std::vector<TenantSpec>& tenants, uint64_t capacity, const Options& options, Run* run,
                   std::string* error) {
  return TenantRun(tenants, Interleave(tenants), "gpu", capacity, true, false, options, run, error);
}

bool RunStrataTenants(const std::vector<TenantSpec>& tenants, uint64_t capacity, bool compaction, Run* run,
                      std::string* error) {
  const Options defaults;  // a Strata tenant run reads no option
  return TenantRun(tenants, Interleave(tenants), compaction ? "strata" : "strata-no-compact", capacity, true, false,
                   defaults, run, error);
}

bool CompareTenants(const std::vector<TenantSpec>& tenants, const Options& options, WorkloadReport* report,
                    std::string* error) {
  if (tenants.size() < 2) {
    *error = "--tenant needs at least two tenants";
    return false;
  }
  const std::vector<std::string> policies = strata::OptionChoices("gpu-emu", "policy");
  for (const TenantSpec& t : tenants) {
    if (std::find(policies.begin(), policies.end(), t.policy) == policies.end()) {
      std::string names;
      for (const std::string& p : policies) names += (names.empty() ? "" : ", ") + p;
      *error = "--tenant " + t.policy + ":" + t.workload + ": unknown policy '" + t.policy + "' (" + names + ")";
      return false;
    }
  }
  const Merged events = Interleave(tenants);
  WorkloadReport& w = *report;
  w = WorkloadReport{};
  for (const TenantSpec& t : tenants) {
    w.name += (w.name.empty() ? "" : " + ") + t.policy + ":" + t.trace.name;
    w.buffers += t.trace.buffers.size();
  }
  w.source = std::to_string(tenants.size()) + " tenants, interleaved";
  w.events = events.events.size();
  w.max_load_bytes = MergedMaxLoad(tenants, events);
  w.capacity_text = options.capacity.text;
  w.capacity_bytes = CapacityBytes(options.capacity, w.max_load_bytes);
  w.gpu_page_bytes = GpuPageBytes(options);
  // With --html: every tenant's buffers in one list (tenant by tenant, each labelled with its tenant), and where each
  // run put them, up to kPlacesForAllBuffers buffers (past that Strata's run alone, as for one workload).
  const bool places = options.detail_points > 0 && options.record_places;
  if (options.detail_points > 0) {
    auto text = std::make_shared<std::deque<std::string>>();
    for (const TenantSpec& t : tenants) {
      const bool labelled = t.trace.labels.size() == t.trace.buffers.size();
      text->push_back(t.policy + ":" + t.trace.name);
      const std::string_view plain = text->back();
      std::unordered_map<std::string_view, std::string_view> named;  // a label shared by many buffers: once
      for (size_t i = 0; i < t.trace.buffers.size(); ++i) {
        w.buffer_list.push_back(t.trace.buffers[i]);
        const std::string_view label = labelled ? t.trace.labels[i] : std::string_view();
        if (label.empty()) {
          w.buffer_labels.push_back(plain);
          continue;
        }
        auto [it, fresh] = named.try_emplace(label);
        if (fresh) {
          text->push_back(std::string(plain) + ": " + std::string(label));
          it->second = text->back();
        }
        w.buffer_labels.push_back(it->second);
      }
    }
    w.label_text = text;
  }
  for (const char* kind : {"strata", "strata-no-compact", "gpu"}) {
    Run run;
    const bool placed = places && (w.buffers <= kPlacesForAllBuffers || std::string(kind) == "strata");
    if (!TenantRun(tenants, events, kind, w.capacity_bytes, true, placed, options, &run, error)) return false;
    run.series = Downsample(run.series, options.series_points);
    if (options.search) {
      const bool searched = SearchCapacity(
          w.max_load_bytes, options,
          [&](uint64_t capacity, bool* ok, std::string* e) {
            Run probe;
            if (!TenantRun(tenants, events, kind, capacity, false, false, options, &probe, e)) return false;
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
