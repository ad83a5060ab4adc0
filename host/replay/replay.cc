// The replay engine behind strata-replay, the tests and the allocator benchmark (see replay.h).
#include "replay.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>

#include "runner.h"
#include "strata/strata.hpp"
#include "text.h"

namespace strata::replay {

using tool::HumanBytes;
using tool::JsonLine;
using tool::JsonRound;
using tool::Printable;
namespace {

uint64_t RoundUp(uint64_t bytes, uint32_t granule) { return (bytes + granule - 1) / granule * granule; }

uint32_t PeakLiveCount(const std::vector<Event>& events) {
  uint32_t live = 0, peak = 0;
  for (const Event& e : events) {
    live = e.kind == 1 ? live + 1 : live - 1;
    peak = std::max(peak, live);
  }
  return peak;
}

// The host backend for one replay: Strata's allocator with the replay's heap, granule and policy, its node array sized
// for the trace's most live buffers.
strata_device* OpenHost(const ReplayOptions& options, uint64_t capacity, uint32_t peak_live, std::string* error) {
  strata_device* d = nullptr;
  try {
    NamedOptions named("host");
    named.Add("capacity_bytes", capacity);
    named.Add("granule_bytes", options.granule_bytes);
    named.Add("policy", alloc::PolicyName(options.policy));
    named.Add("max_live_buffers", std::max<uint32_t>(peak_live, 1));
    if (options.check_every_op) named.Add("check_every_op", true);
    strata_open_options o{};
    o.struct_size = sizeof o;
    o.named_options = named.data();
    o.num_named_options = named.size();
    if (strata_open("host", &o, &d) != STRATA_OK) *error = ApiError("opening the host backend");
  } catch (const strata::Error& e) {
    *error = e.what();
  }
  return d;
}

}  // namespace

bool Replay(const Trace& trace, const ReplayOptions& options, ReplayResult* result, std::string* error) {
  ReplayResult& r = *result;
  r = ReplayResult{};
  if (options.granule_bytes == 0 || (options.granule_bytes & (options.granule_bytes - 1)) != 0 ||
      options.granule_bytes > alloc::kMaxGranuleBytes) {
    *error = "granule must be a power of two between 1 and " + std::to_string(alloc::kMaxGranuleBytes);
    return false;
  }
  r.trace = trace.name;
  r.policy = alloc::PolicyName(options.policy);
  r.compaction = options.compaction_on_oom ? "on-oom" : "off";
  r.buffers = trace.buffers.size();
  r.granule_bytes = options.granule_bytes;
  r.capacity_bytes = options.capacity_bytes;
  r.events_total = 2 * static_cast<uint64_t>(trace.buffers.size());
  r.events_bounded = options.max_events != 0;
  uint64_t capacity = options.capacity_bytes;
  if (capacity == 0) {
    // Unbounded: an allocator that carves from the low end of a block never reaches past the sum of
    // every size in the trace, so that much (plus one granule) never runs out.
    uint64_t sum = options.granule_bytes;
    for (const TraceBuffer& b : trace.buffers) sum += RoundUp(b.size, options.granule_bytes);
    capacity = sum;
  }
  std::vector<Event> built;
  if (options.events == nullptr) built = BuildEvents(trace);
  const std::vector<Event>& events = options.events != nullptr ? *options.events : built;
  r.max_load_bytes = MaxLoad(trace, events, options.granule_bytes);
  strata_device* d = OpenHost(options, capacity, PeakLiveCount(events), error);
  if (d == nullptr) return false;
  const std::unique_ptr<strata_device, strata_status (*)(strata_device*)> closer(d, strata_close);
  strata_context ctx = 0;
  if (strata_context_create(d, nullptr, &ctx) != STRATA_OK) {
    *error = ApiError("strata_context_create");
    return false;
  }
  auto stats_now = [&](strata_memory_stats* s) {
    s->struct_size = sizeof *s;
    if (strata_get_memory_stats(d, 0, s) == STRATA_OK) return true;
    *error = ApiError("strata_get_memory_stats");
    return false;
  };

  RunOptions ro;
  ro.alloc_flags = options.compaction_on_oom ? 0u : STRATA_ALLOC_FLAG_NO_COMPACT;
  ro.max_events = options.max_events;
  ro.snapshot_event = options.snapshot_event;
  ro.snapshot_allocated_bytes = true;
  ro.record_places = options.record_places;
  // The backend's compaction events: the slide-everything baseline before each attempt, each move (priced by
  // move_cycles), and what an allocation that compacted moved (for --verbose).
  uint64_t attempt_baseline = 0, attempt_moved = 0;
  bool attempted = false;
  if (options.compaction_on_oom) {
    ro.on_event = [&](const strata_event& e) {
      const uint64_t value = static_cast<uint64_t>(e.value);
      if (std::strcmp(e.track, "compaction") == 0) {
        if (std::strcmp(e.name, "slide_baseline") == 0) {
          r.slide_baseline_bytes += value;
          attempted = true;
          attempt_baseline = value;
        } else if (std::strcmp(e.name, "on_oom") == 0) {
          attempt_moved = value;
        }
      } else if (options.move_cycles && std::strcmp(e.name, "move") == 0) {  // a "heap" event
        r.move_cycles_estimate += options.move_cycles(value);
      }
    };
  }
  using Clock = std::chrono::steady_clock;
  Clock::duration alloc_time{}, free_time{};
  Clock::time_point t0;
  uint64_t allocs = 0, frees = 0, free_before = 0;
  ro.before_call = [&](const RunStep& step) {
    if (options.verbose && step.alloc && options.compaction_on_oom) {
      strata_memory_stats s{};
      if (!stats_now(&s)) return false;
      free_before = s.bytes_free;
      attempted = false;
      attempt_moved = 0;
    }
    t0 = Clock::now();
    return true;
  };
  ro.after_event = [&](const RunStep& step) {
    const TraceBuffer& b = *step.buffer;
    if (step.called) {
      (step.alloc ? alloc_time : free_time) += Clock::now() - t0;
      ++(step.alloc ? allocs : frees);
    }
    if (step.alloc && step.status == STRATA_OK) r.bytes_allocated += RoundUp(b.size, options.granule_bytes);
    if (options.verbose && attempted && step.alloc) {
      std::fprintf(stderr,
                   "compaction at line %u (t=%llu): request %llu B, free %llu B, moved %llu B, "
                   "slide-everything %llu B: %s\n",
                   b.line, static_cast<unsigned long long>(b.lower), static_cast<unsigned long long>(b.size),
                   static_cast<unsigned long long>(free_before), static_cast<unsigned long long>(attempt_moved),
                   static_cast<unsigned long long>(attempt_baseline), strata_status_name(step.status));
      attempted = false;
    }
    if (options.step) {
      strata_memory_stats now{};
      if (!stats_now(&now)) return false;
      ReplayStep s;
      s.event = step.index;
      s.alloc = step.alloc;
      s.buffer = step.event->buffer;
      s.failed = step.alloc && step.status == STRATA_RESOURCE_EXHAUSTED;
      s.live_bytes = step.live_bytes;
      s.in_use_bytes = now.bytes_in_use;
      s.free_bytes = now.bytes_free;
      s.largest_free_block_bytes = now.largest_free_block_bytes;
      s.footprint_bytes = now.pool_bytes;
      s.bytes_moved = now.compaction_bytes_moved;
      options.step(s);
    }
    if (options.progress && (step.index + 1) % 4096 == 0) options.progress(step.index + 1, events.size());
    return true;
  };
  RunResult run;
  if (!RunEvents(d, {{&trace, ctx}}, events, nullptr, ro, &run, error)) return false;
  const strata_memory_stats& s = run.stats;
  r.events = run.events;
  r.failed_allocs = run.failed_allocs;
  r.footprint_bytes = s.pool_bytes;
  r.compactions = s.compactions;
  r.moves = s.compaction_moves;
  r.bytes_moved = s.compaction_bytes_moved;
  r.ns_per_alloc = allocs ? std::chrono::duration<double, std::nano>(alloc_time).count() / allocs : 0;
  r.ns_per_free = frees ? std::chrono::duration<double, std::nano>(free_time).count() / frees : 0;
  r.snapshot = std::move(run.snapshot);
  r.places = std::move(run.places);
  std::sort(r.snapshot.begin(), r.snapshot.end(),
            [](const PlacedBuffer& a, const PlacedBuffer& b) { return a.offset < b.offset; });
  r.footprint_ratio = r.max_load_bytes ? double(r.footprint_bytes) / double(r.max_load_bytes) : 0;
  r.bytes_moved_fraction = r.bytes_allocated ? double(r.bytes_moved) / double(r.bytes_allocated) : 0;
  return true;
}

namespace {

std::string Num(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

const std::vector<ReplayBackend>& ReplayBackends() {
  static const std::vector<ReplayBackend> backends{
      {"host", "the allocator library on the host, nothing else.", true},
      {"sim",
       "the same host replay, then the trace once more through the driver's\n"
       "C API on the Strata model (runtime firmware, cycle-level HBM): device cycles\n"
       "per allocate/free, compaction bytes and cycles, beside the host figures.\n"
       "The model runs ~1,000 API calls per wall second and copies ~1 GB of\n"
       "compaction traffic per 20-40 s; progress goes to stderr (docs/runtime.md)",
       true},
      {"gpu-emu",
       "the trace through the driver's C API on an emulated GPU under a\n"
       "framework's allocation policy (--policy; docs/gpu-policies.md) instead",
       false},
      {"cuda",
       "the same on the real GPU through CUDA (exit status 3 with the CUDA\n"
       "error where there is no GPU or driver)",
       false},
  };
  return backends;
}

std::vector<std::string> StrataBackendNames() {
  std::vector<std::string> names;
  for (const ReplayBackend& b : ReplayBackends()) {
    if (b.strata) names.emplace_back(b.name);
  }
  return names;
}

std::string HostPolicyNames() {
  std::string names;
  for (uint32_t p = 0; p < alloc::kNumPolicies; ++p) {
    names.append(names.empty() ? "" : ", ").append(alloc::PolicyName(static_cast<alloc::Policy>(p)));
  }
  return names;
}

std::string UnknownHostPolicy(const std::string& policy, const std::vector<std::string>& gpu_policies,
                              const std::string& gpu_backend) {
  std::string gpu;
  for (const std::string& p : gpu_policies) gpu.append(gpu.empty() ? "" : ", ").append(p);
  std::string message = "unknown policy '" + policy + "' for the host allocator (" + HostPolicyNames() + ")";
  if (std::find(gpu_policies.begin(), gpu_policies.end(), policy) != gpu_policies.end()) {
    return message + ": " + policy + " is a GPU framework's policy, replayed on an emulated GPU with " + gpu_backend;
  }
  if (!gpu.empty()) message += "; with " + gpu_backend + ": " + gpu;
  return message;
}

Json ToJsonObject(const ReplayResult& r) {
  Json j;
  j["trace"] = r.trace;
  j["policy"] = r.policy;
  j["compaction"] = r.compaction;
  j["buffers"] = r.buffers;
  j["granule_bytes"] = r.granule_bytes;
  j["max_load_bytes"] = r.max_load_bytes;
  j["capacity_bytes"] = r.capacity_bytes ? Json(r.capacity_bytes) : Json(nullptr);
  j["footprint_bytes"] = r.footprint_bytes;
  j["footprint_ratio"] = JsonRound(r.footprint_ratio, 6);
  j["failed_allocs"] = r.failed_allocs;
  j["compactions"] = r.compactions;
  j["moves"] = r.moves;
  j["bytes_moved"] = r.bytes_moved;
  j["slide_baseline_bytes"] = r.slide_baseline_bytes;
  j["bytes_allocated"] = r.bytes_allocated;
  j["bytes_moved_fraction"] = JsonRound(r.bytes_moved_fraction, 6);
  j["ns_per_alloc"] = JsonRound(r.ns_per_alloc, 1);
  j["ns_per_free"] = JsonRound(r.ns_per_free, 1);
  if (r.events_bounded) {
    j["events"] = r.events;
    j["events_total"] = r.events_total;
  }
  return j;
}

std::string ToJson(const ReplayResult& r) { return JsonLine(ToJsonObject(r)); }

std::string ToTable(const ReplayResult& r) {
  std::ostringstream os;
  auto row = [&os](const char* key, const std::string& value) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "  %-16s ", key);
    os << buf << value << "\n";
  };
  auto bytes = [](uint64_t b) { return std::to_string(b) + " (" + HumanBytes(b) + ")"; };
  os << "strata-replay: " << Printable(r.trace) << "\n";  // a file name may hold anything
  row("policy", r.policy);
  row("compaction", r.compaction);
  row("granule", std::to_string(r.granule_bytes) + " B");
  row("buffers", std::to_string(r.buffers));
  if (r.events_bounded) row("events", std::to_string(r.events) + " of " + std::to_string(r.events_total));
  row("max load", bytes(r.max_load_bytes));
  row("capacity", r.capacity_bytes
                      ? bytes(r.capacity_bytes) + ", " +
                            Num(double(r.capacity_bytes) / double(std::max<uint64_t>(r.max_load_bytes, 1)), 3) +
                            "x max load"
                      : std::string("unbounded"));
  row("footprint", bytes(r.footprint_bytes) + ", " + Num(r.footprint_ratio, 4) + "x max load");
  row("failed allocs", std::to_string(r.failed_allocs));
  row("compactions", std::to_string(r.compactions));
  row("moves", std::to_string(r.moves));
  row("bytes moved", bytes(r.bytes_moved) + ", " + Num(100.0 * r.bytes_moved_fraction, 3) + "% of allocated");
  if (r.compaction != "off")
    row("slide-all would", bytes(r.slide_baseline_bytes) + " (sliding every buffer down at each compaction)");
  row("ns per alloc", Num(r.ns_per_alloc, 1));
  row("ns per free", Num(r.ns_per_free, 1));
  return os.str();
}

}  // namespace strata::replay
