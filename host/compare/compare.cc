#include "compare.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "advice.h"
#include "compaction_cost.h"
#include "compare_timeline.h"
#include "emu_gpu.h"
#include "gpu_replay.h"
#include "numbers.h"
#include "policy.h"
#include "static_plans.h"
#include "strata/strata.hpp"
#include "text.h"
#include "tpu.h"
#ifdef STRATA_COMPARE_HAVE_SIM
#include "sim_replay.h"
#endif

namespace strata::compare {
namespace {

constexpr uint32_t kGranule = alloc::kDefaultGranuleBytes;  // the firmware's granule (docs/allocator.md)

uint64_t RoundDown(uint64_t x, uint64_t m) { return x / m * m; }

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A run's figures as the report gives them: what any device's run through the C API counted (runner.h), the first
// OOM with the backend's numbers, and what the allocator asked of the device (its memory stats at the end).
void FillRun(const replay::RunResult& run, Run* out) {
  Run& r = *out;
  const strata_memory_stats& s = run.stats;
  r.events = run.events;
  r.allocs = run.allocs;
  r.failed_allocs = run.failed_allocs;
  r.oom_capacity = s.oom_capacity;
  r.oom_cap = s.oom_cap;
  r.oom_fragmentation = s.oom_fragmentation;
  if (run.first_oom.event >= 0) {
    const replay::RunOom& from = run.first_oom;
    FirstOom& f = r.first_oom;
    f.event = from.event;
    f.buffer_id = from.buffer_id;
    f.kind = strata_oom_kind_name(from.kind);
    f.request_bytes = from.info.request_bytes;
    f.live_bytes = from.info.live_bytes;
    f.reserved_bytes = from.info.reserved_bytes;
    f.largest_free_bytes = from.info.largest_free_block_bytes;
    f.limit_bytes = from.info.limit_bytes;
    f.message = from.message;
  }
  r.peak_live_bytes = s.peak_bytes_in_use;
  r.peak_reserved_bytes = s.peak_pool_bytes;
  r.cost.defragmentations = run.defragmentations;
  r.cost.host_bytes_copied = s.host_bytes_copied;
  gpu::CopyDriverCosts(s, &r.cost);
  r.cost.retries = s.num_alloc_retries;
}

// Strata's firmware allocator on the host (the same library the firmware links; same decisions).
// `cost`: the compaction cost model of the HBM preset the copies' cycles are estimated for (nullptr: none).
// `events`: the trace's, when the caller has them (Options::events).
// `places`: where every buffer was (Run::places).
bool RunStrataHost(const replay::Trace& trace, const std::vector<replay::Event>* events, const Contender& c,
                   uint64_t capacity, bool record, bool places, Run* run, std::string* error,
                   const CompactionCostModel* cost = nullptr, int64_t snapshot_event = -1,
                   std::vector<replay::PlacedBuffer>* snapshot = nullptr) {
  replay::ReplayOptions o;
  o.compaction_on_oom = c.compaction;
  o.capacity_bytes = capacity;
  o.snapshot_event = snapshot_event;
  o.record_places = places;
  Run& r = *run;
  if (record) {  // the search only asks whether a run completes: no per-event work for it
    r.series.reserve(2 * trace.buffers.size());
    o.step = [&](const replay::ReplayStep& s) {
      r.peak_live_bytes = std::max(r.peak_live_bytes, s.in_use_bytes);
      r.series.push_back(
          {s.event, s.live_bytes, s.in_use_bytes, s.footprint_bytes, s.largest_free_block_bytes, s.bytes_moved});
      if (!s.failed) return;
      const replay::TraceBuffer& b = trace.buffers[s.buffer];
      const uint64_t request = (b.size + kGranule - 1) / kGranule * kGranule;
      const gpu::OomKind kind = gpu::ClassifyOom(request, s.in_use_bytes, 0, capacity);
      const std::string name = gpu::OomKindName(kind);
      if (kind == gpu::OomKind::kCapacity) ++r.oom_capacity;
      if (kind == gpu::OomKind::kFragmentation) ++r.oom_fragmentation;
      if (r.oom_events.size() < kMaxOomEvents) r.oom_events.emplace_back(s.event, name);
      if (r.first_oom.event >= 0) return;
      FirstOom& f = r.first_oom;
      f.event = static_cast<int64_t>(s.event);
      f.buffer_id = b.id;
      f.kind = name;
      f.request_bytes = b.size;
      f.live_bytes = s.in_use_bytes;
      f.reserved_bytes = capacity;
      f.largest_free_bytes = s.largest_free_block_bytes;
      f.message = "Strata: cannot allocate " + tool::HumanBytes(b.size) + ": " + tool::HumanBytes(s.in_use_bytes) +
                  " in use of " + tool::HumanBytes(capacity) + ", " + tool::HumanBytes(s.free_bytes) +
                  " free, largest free block " + tool::HumanBytes(s.largest_free_block_bytes) +
                  (c.compaction ? "" : " (compaction off)");
    };
  }
  if (cost != nullptr) o.move_cycles = [cost](uint64_t bytes) { return MoveCycles(*cost, bytes); };
  o.events = events;
  replay::ReplayResult rr;
  if (!replay::Replay(trace, o, &rr, error)) return false;
  r.events = rr.events;
  r.allocs = rr.buffers;
  r.failed_allocs = rr.failed_allocs;
  r.peak_reserved_bytes = rr.footprint_bytes;
  r.cost.compactions = rr.compactions;
  r.cost.moves = rr.moves;
  r.cost.bytes_moved = rr.bytes_moved;
  r.cost.compaction_cycles = static_cast<uint64_t>(std::llround(rr.move_cycles_estimate));
  r.cost.cycles_source = rr.bytes_moved && cost != nullptr ? "estimate" : "none";
  if (r.cost.cycles_source == "estimate") r.cost.cycles_error_bound = cost->error_bound;
  if (snapshot) *snapshot = std::move(rr.snapshot);
  if (places) {
    r.places = std::move(rr.places);
    r.has_places = true;
  }
  return true;
}

#ifdef STRATA_COMPARE_HAVE_SIM
// The same allocations on the Strata model through the driver (runtime firmware, cycle-level HBM).
bool RunStrataSim(const replay::Trace& trace, const Contender& c, uint64_t capacity, const Options& options, Run* run,
                  std::string* error) {
  replay::SimReplayOptions so;
  so.compaction_on_oom = c.compaction;
  so.capacity_bytes = capacity;
  so.hbm_preset = options.hbm_preset;
  so.firmware_path = options.firmware_path;
  if (options.progress) {
    so.long_call = [&](uint32_t line, uint64_t bytes, double seconds) {
      options.progress(run->contender + ": the allocation at line " + std::to_string(line) + " (" +
                       std::to_string(bytes) + " B) has run for " + std::to_string(static_cast<int>(seconds)) + " s");
    };
  }
  replay::SimReplayResult sr;
  if (!replay::SimReplay(trace, so, &sr, error)) return false;
  // The model and the host library must have made the same decisions (the runtime links the same allocator).
  if (sr.run.failed_allocs != run->failed_allocs || sr.moves != run->cost.moves ||
      sr.bytes_moved != run->cost.bytes_moved) {
    run->note = "the model disagrees with the host allocator: failed " + std::to_string(sr.run.failed_allocs) + " vs " +
                std::to_string(run->failed_allocs) + ", moves " + std::to_string(sr.moves) + " vs " +
                std::to_string(run->cost.moves) + ", bytes moved " + std::to_string(sr.bytes_moved) + " vs " +
                std::to_string(run->cost.bytes_moved);
  } else {
    run->note = "the model made the host allocator's decisions: " + std::to_string(sr.run.failed_allocs) + " failed, " +
                std::to_string(sr.moves) + " moves, " + std::to_string(sr.bytes_moved) + " B moved";
  }
  run->backend = "sim";
  run->cost.compactions = sr.compactions;
  run->cost.compaction_cycles = sr.compaction_cycles;
  run->cost.cycles_source = "device";
  if (sr.run.first_oom.event >= 0) run->first_oom.message = sr.run.first_oom.message;
  run->wall_seconds = sr.wall_seconds;
  return true;
}
#endif

}  // namespace

replay::GpuReplayOptions GpuRunOptions(const Contender& c, const std::string& backend, uint64_t capacity,
                                       uint64_t context_bytes, const Options& options) {
  replay::GpuReplayOptions o;
  o.options = options.gpu_options;
  o.backend = backend;
  o.policy = c.policy;
  o.defragment_on_oom = c.defragment;
  o.events = options.events;
  if (backend != "cuda") {
    o.total_bytes = capacity;
    o.options["context_bytes"] = std::to_string(context_bytes);
  }
  return o;
}

namespace {

bool RunGpu(const replay::Trace& trace, const Contender& c, const std::string& backend, uint64_t capacity,
            uint64_t context_bytes, bool record, bool places, const Options& options, Run* run, std::string* error) {
  replay::GpuReplayOptions o = GpuRunOptions(c, backend, capacity, context_bytes, options);
  o.record_places = places;
  Run& r = *run;
  if (record) {  // one strata_get_memory_stats per event: not for the search, which asks only for completion
    o.series = [&](const replay::GpuSeriesRow& row) {
      if (std::string(row.oom) != "none" && r.oom_events.size() < kMaxOomEvents) {
        r.oom_events.emplace_back(row.event, row.oom);
      }
      r.series.push_back(
          {row.event, row.live_bytes, row.in_use_bytes, row.reserved_bytes, row.largest_free_bytes, row.moved_bytes});
    };
  }
  replay::GpuReplayResult g;
  if (!replay::GpuReplay(trace, o, &g, error)) return false;
  FillRun(g.run, &r);
  r.capacity_bytes = g.total_bytes;
  if (places) {  // device addresses, drawn from the lowest one the policy used
    r.places = std::move(g.run.places);
    r.has_places = true;
    uint64_t base = UINT64_MAX;
    for (const replay::PlacedSpan& p : r.places) base = std::min(base, p.offset);
    for (replay::PlacedSpan& p : r.places) p.offset -= base;
  }
  return true;
}

// A GPU policy's pool at one event: the same replay through the C API up to that event, with every live buffer's
// device address from the backend's events. Offsets are from the lowest address the policy obtained from the device.
bool GpuOccupancy(const replay::Trace& trace, const Contender& c, uint64_t capacity, uint64_t context_bytes,
                  uint64_t at_event, const Options& options, Occupancy* out, std::string* error) {
  replay::GpuReplayOptions o = GpuRunOptions(c, "gpu-emu", capacity, context_bytes, options);
  o.snapshot_event = static_cast<int64_t>(at_event);
  o.max_events = at_event + 1;
  replay::GpuReplayResult g;
  if (!replay::GpuReplay(trace, o, &g, error)) return false;
  out->contender = c.name;
  out->event = at_event;
  out->extent_bytes = g.run.snapshot_pool_bytes;
  uint64_t base = UINT64_MAX;
  for (const replay::PlacedBuffer& p : g.run.snapshot) {
    base = std::min(base, p.offset);
    out->blocks.push_back({p.offset, p.bytes, trace.buffers[p.buffer].id});
  }
  for (Block& b : out->blocks) b.offset -= base;
  std::sort(out->blocks.begin(), out->blocks.end(), [](const Block& a, const Block& b) { return a.offset < b.offset; });
  if (!out->blocks.empty()) {
    out->extent_bytes = std::max(out->extent_bytes, out->blocks.back().offset + out->blocks.back().bytes);
  }
  return true;
}

// The event at which a run's in-use bytes first reach their peak (from its full-resolution series).
uint64_t PeakEvent(const std::vector<SeriesPoint>& series) {
  uint64_t best = 0, at = 0;
  for (const SeriesPoint& p : series) {
    if (p.in_use > best) best = p.in_use, at = p.event;
  }
  return at;
}

}  // namespace

void AddDetail(const replay::Trace& trace, const std::vector<replay::Event>& events,
               const std::vector<SeriesPoint>& full, size_t points, Run* run) {
  const size_t per = std::max<size_t>(1, (full.size() + points - 1) / points);
  run->bands.clear();
  for (size_t i = 0; i < full.size(); i += per) {
    SeriesBand b;
    b.first = full[i].event;
    b.in_use_min = b.in_use_max = full[i].in_use;
    b.reserved_min = b.reserved_max = full[i].reserved;
    for (size_t k = i; k < std::min(full.size(), i + per); ++k) {
      const SeriesPoint& p = full[k];
      b.last = p.event;
      b.in_use_min = std::min(b.in_use_min, p.in_use);
      b.in_use_max = std::max(b.in_use_max, p.in_use);
      b.reserved_min = std::min(b.reserved_min, p.reserved);
      b.reserved_max = std::max(b.reserved_max, p.reserved);
      b.live_max = std::max(b.live_max, p.live);
    }
    run->bands.push_back(b);
  }
  run->oom_marks.clear();
  for (const auto& [event, kind] : run->oom_events) {
    OomMark m{event, 0, 0, kind};
    if (event < events.size()) {
      const replay::TraceBuffer& b = trace.buffers[events[event].buffer];
      m.buffer_id = b.id;
      m.request_bytes = b.size;
    }
    run->oom_marks.push_back(std::move(m));
  }
  run->compactions.clear();
  uint64_t moved = 0;
  for (const SeriesPoint& p : full) {
    if (p.moved > moved && run->compactions.size() < kMaxOomEvents)
      run->compactions.emplace_back(p.event, p.moved - moved);
    moved = std::max(moved, p.moved);
  }
}

uint64_t GpuPageBytes(const Options& options) {
  uint64_t page = gpu::GpuSpec{}.page_bytes;
  const auto it = options.gpu_options.find("page_bytes");
  if (it != options.gpu_options.end()) cli::ParseDecimal(it->second, 4096, UINT64_MAX, &page);  // checked by the runs
  return page;
}

std::string PageNote(const WorkloadReport& w) {
  const uint64_t page = w.gpu_page_bytes;
  if (page == 0) return "";
  const std::string p = tool::HumanBytes(page);
  std::string what;
  if (w.capacity_bytes < page) {
    what = "the device (" + tool::HumanBytes(w.capacity_bytes) + ") is smaller than one " + p +
           " GPU page: no GPU policy can allocate anything";
  } else if (w.max_load_bytes < page) {
    what = "the workload (max load " + tool::HumanBytes(w.max_load_bytes) + ") is smaller than one " + p + " GPU page";
  } else if (std::min(w.capacity_bytes, w.max_load_bytes) < kPagesThatDecide * page) {
    what = "the " + std::string(w.capacity_bytes < w.max_load_bytes ? "device" : "workload") + " is only " +
           std::to_string(std::min(w.capacity_bytes, w.max_load_bytes) / page) + " GPU pages of " + p;
  } else {
    return "";
  }
  return what + ". The GPU rows measure the page size, not the policies: --option page_bytes=4096 scales the page down";
}

bool ApplyGpuOptions(const Options& options, const std::string& policy, uint64_t* page_bytes,
                     std::map<std::string, std::string>* policy_options, std::string* error) {
  const std::vector<gpu::PolicyOption> known = gpu::PolicyOptions(policy);
  for (const auto& [name, value] : options.gpu_options) {
    if (name == "page_bytes") {
      uint64_t v = 0;
      if (!cli::ParseDecimal(value, 4096, UINT64_MAX, &v) || (v & (v - 1)) != 0) {
        *error = "page_bytes must be a power of two >= 4096";
        return false;
      }
      *page_bytes = v;
    } else if (std::any_of(known.begin(), known.end(), [&](const gpu::PolicyOption& o) { return o.name == name; })) {
      (*policy_options)[name] = value;
    } else {
      *error = "option '" + name + "' is neither page_bytes nor an option of policy " + policy;
      return false;
    }
  }
  return true;
}

std::vector<Contender> AllContenders() {
  std::vector<Contender> all;
  all.push_back({"strata", true, true, "", false});
  all.push_back({"strata-no-compact", true, false, "", false});
  for (const std::string& p : strata::OptionChoices("gpu-emu", "policy")) {
    all.push_back({p, false, false, p, false});
    if (p == "jax") all.push_back({"jax+defrag", false, false, "jax", true});
  }
  return all;
}

bool ParseContenders(const std::string& text, std::vector<Contender>* out, std::string* error) {
  const std::vector<Contender> all = AllContenders();
  out->clear();
  if (text == "all") {
    *out = all;
    return true;
  }
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string name = text.substr(start, comma - start);
    auto it = std::find_if(all.begin(), all.end(), [&](const Contender& c) { return c.name == name; });
    if (it == all.end()) {
      std::string names;
      for (const Contender& c : all) names += (names.empty() ? "" : ", ") + c.name;
      *error = "unknown contender '" + name + "' (all, or a comma-separated list of: " + names + ")";
      return false;
    }
    if (std::none_of(out->begin(), out->end(), [&](const Contender& c) { return c.name == name; })) out->push_back(*it);
    start = comma + 1;
  }
  return true;
}

bool ParseCapacitySpec(const std::string& text, CapacitySpec* out, std::string* error) {
  CapacitySpec s;
  s.text = text;
  gpu::GpuSpec preset;
  workload::TpuPreset tpu;
  if (gpu::GpuPresetByName(text, &preset)) {
    s.kind = CapacitySpec::Kind::kPreset;
    s.bytes = preset.total_bytes;
    s.context_bytes = preset.context_bytes;
  } else if (workload::TpuPresetByName(text, &tpu)) {  // HBM per device; no CUDA context
    s.kind = CapacitySpec::Kind::kPreset;
    s.bytes = tpu.hbm_bytes;
  } else if (!text.empty() && (text.back() == 'x' || text.back() == 'X')) {
    const std::string num = text.substr(0, text.size() - 1);
    double f = 0;
    if (!cli::ParseReal(num, 0, 1e6, &f) || !(f > 0)) {
      *error = "capacity '" + text + "': expected a factor of the max load like 1.0x (0 < F <= 1e6)";
      return false;
    }
    s.kind = CapacitySpec::Kind::kRatio;
    s.ratio = f;
  } else {
    s.kind = CapacitySpec::Kind::kBytes;
    std::string e;
    // replay::ParseCapacity reads byte counts with suffixes; the max load is irrelevant for them.
    if (!replay::ParseCapacity(text, 0, kGranule, &s.bytes, &e) || s.bytes == 0) {
      // A byte count below the granule keeps replay::ParseCapacity's message: it says what is wrong.
      *error = e.find("granule") != std::string::npos
                   ? e
                   : "capacity '" + text + "': expected BYTES (suffixes K M G T, KiB ... TiB), <F>x or a GPU preset (" +
                         gpu::GpuPresetNames() + ")";
      return false;
    }
  }
  *out = s;
  return true;
}

uint64_t CapacityBytes(const CapacitySpec& spec, uint64_t max_load) {
  if (spec.kind != CapacitySpec::Kind::kRatio) return spec.bytes;
  const long double want = static_cast<long double>(spec.ratio) * static_cast<long double>(max_load);
  const long double cap = static_cast<long double>(replay::kMaxTraceTotalBytes);
  return RoundDown(static_cast<uint64_t>(std::min(want, cap)), kGranule);
}

std::vector<SeriesPoint> Downsample(const std::vector<SeriesPoint>& full, size_t points) {
  if (points == 0 || full.size() <= points) return full;
  std::vector<SeriesPoint> out;
  out.reserve(points);
  const size_t per = (full.size() + points - 1) / points;
  for (size_t i = 0; i < full.size(); i += per) {
    SeriesPoint p = full[i];
    for (size_t k = i; k < std::min(full.size(), i + per); ++k) {
      p.live = std::max(p.live, full[k].live);
      p.in_use = std::max(p.in_use, full[k].in_use);
      p.reserved = std::max(p.reserved, full[k].reserved);
    }
    out.push_back(p);
  }
  return out;
}

bool RunContender(const replay::Trace& trace, const Contender& c, uint64_t capacity, uint64_t context_bytes,
                  bool record, const Options& options, Run* run, std::string* error) {
  *run = Run{};
  run->contender = c.name;
  run->family = c.family();
  run->capacity_bytes = capacity;
  const auto t0 = std::chrono::steady_clock::now();
  // Places for --html: Strata's and the first GPU contender's always, everyone's on a trace of few buffers.
  bool places = record && options.detail_points > 0 && options.record_places;
  if (places && trace.buffers.size() > kPlacesForAllBuffers && c.name != "strata") {
    const auto first_gpu = std::find_if(options.contenders.begin(), options.contenders.end(),
                                        [](const Contender& k) { return !k.strata; });
    places = first_gpu != options.contenders.end() && first_gpu->name == c.name;
  }
  bool ok;
  if (c.strata) {
    run->backend = "host";
    run->allocator = std::string("Strata firmware allocator (TLSF, 256 B granule), compaction ") +
                     (c.compaction ? "HBM->HBM on OOM" : "off");
    // Cycles are estimated for recorded runs only: the search asks nothing but completion.
    ok = RunStrataHost(trace, options.events, c, capacity, record, places, run, error,
                       record ? CompactionCostFor(options.hbm_preset) : nullptr);
  } else {
    run->backend = "gpu-emu";
    run->allocator = c.policy + " policy on an emulated GPU" +
                     (c.defragment ? ", Defragment() (host bounce) on a fragmentation OOM" : "");
    ok = RunGpu(trace, c, "gpu-emu", capacity, context_bytes, record, places, options, run, error);
  }
  run->wall_seconds = Seconds(t0);
  return ok;
}

bool SearchCapacity(uint64_t max_load, const Options& options, const CompletesAt& completes, MinCapacity* out,
                    std::string* error) {
  MinCapacity m;
  m.searched = true;
  if (max_load == 0) {
    m.found = true;
    *out = m;
    return true;
  }
  m.resolution_bytes = std::max<uint64_t>(
      kGranule, RoundDown(static_cast<uint64_t>(static_cast<long double>(max_load) * options.resolution), kGranule));
  CapacitySpec limit_spec;
  limit_spec.ratio = options.search_limit;
  const uint64_t limit = CapacityBytes(limit_spec, max_load);
  auto probe = [&](uint64_t capacity, bool* ok) {
    ++m.probes;
    return completes(capacity, ok, error);
  };
  // Bracket: hi completes, lo fails (0: nothing below hi tried yet).
  uint64_t lo = 0, hi = max_load;
  bool ok = false;
  if (!probe(hi, &ok)) return false;
  while (!ok) {
    lo = hi;
    if (hi >= limit) {
      m.bytes = hi;
      m.ratio = static_cast<double>(hi) / static_cast<double>(max_load);
      *out = m;
      return true;  // not found
    }
    hi = std::min(limit, RoundDown(hi * 2, kGranule));
    if (!probe(hi, &ok)) return false;
  }
  // Completes at the max load: step down one resolution at a time while it still completes (no allocator
  // completes below the peak of its own rounded sizes, so this ends within a few steps).
  while (lo == 0 && hi > m.resolution_bytes) {
    const uint64_t below = hi - m.resolution_bytes;
    if (!probe(below, &ok)) return false;
    (ok ? hi : lo) = below;
  }
  while (lo != 0 && hi - lo > m.resolution_bytes) {
    const uint64_t mid = std::max(lo + kGranule, RoundDown(lo + (hi - lo) / 2, kGranule));
    if (mid >= hi) break;
    if (!probe(mid, &ok)) return false;
    (ok ? hi : lo) = mid;
  }
  m.found = true;
  m.bytes = hi;
  m.fails_at_bytes = lo;
  m.ratio = static_cast<double>(hi) / static_cast<double>(max_load);
  *out = m;
  return true;
}

bool SearchMinCapacity(const replay::Trace& trace, const Contender& c, const Options& options, MinCapacity* out,
                       std::string* error) {
  return SearchCapacity(
      options.events != nullptr ? replay::MaxLoad(trace, *options.events, kGranule) : replay::MaxLoad(trace, kGranule),
      options,
      [&](uint64_t capacity, bool* ok, std::string* e) {
        Run r;
        if (!RunContender(trace, c, capacity, 0, false, options, &r, e)) return false;
        *ok = r.completed();
        return true;
      },
      out, error);
}

namespace {

// The device the run had, for advice.h: the table's entry for a preset capacity, else a GPU of that memory with no
// CUDA context (what every contender was given).
bool AdviseRun(const replay::Trace& trace, const Contender& c, uint64_t capacity_bytes, const Options& options,
               Run* run, std::string* error) {
  const devices::Device* preset =
      options.capacity.kind == CapacitySpec::Kind::kPreset ? devices::Find(options.capacity.text) : nullptr;
  const devices::Device custom{"custom", "custom", devices::Kind::kGpu, capacity_bytes, 0, 0, 0, false, ""};
  // The search starts from the framework's defaults: with a policy setting of the user's own (--option mem_fraction=,
  // ...) it would answer another question, so there is no advice then. The page and the PyTorch, JAX and TensorFlow
  // releases carry over.
  std::map<std::string, std::string> carried;
  for (const auto& [key, value] : options.gpu_options) {
    if (key != "page_bytes" && key != "torch_version" && key != "jax_version" && key != "tf_version") return true;
    carried[key] = value;
  }
  Fix fix;
  if (!FindFix(trace, c.name, preset ? *preset : custom, carried, &fix, error)) return false;
  run->advice = fix.why;
  return true;
}

// What one contender's share of a comparison produced: its run at the capacity (advice and search included), the
// occupancy pictures it draws, its progress lines, or the error that stopped it.
struct ContenderResult {
  Run run;
  std::vector<Occupancy> occupancy;
  std::vector<std::string> progress;
  bool ok = false;
  std::string error;
};

// One contender of CompareWorkload, up to its capacity search: what may run beside the other contenders.
bool CompareContender(const replay::Trace& trace, const WorkloadReport& w, const Contender& c, uint64_t context,
                      const Options& options, ContenderResult* out) {
  std::string* error = &out->error;
  Run& run = out->run;
  // Strata has no CUDA context: with a GPU preset it gets what a process on that GPU could use.
  const uint64_t capacity = c.strata ? w.capacity_bytes - context : w.capacity_bytes;
  if (!RunContender(trace, c, capacity, c.strata ? 0 : context, true, options, &run, error)) {
    *error = c.name + ": " + *error;
    return false;
  }
  const uint64_t peak_event = PeakEvent(run.series);
  if (options.occupancy && c.name == "strata") {
    Run again;
    std::vector<replay::PlacedBuffer> placed;
    if (!RunStrataHost(trace, options.events, c, capacity, false, false, &again, error, nullptr,
                       static_cast<int64_t>(peak_event), &placed)) {
      return false;
    }
    Occupancy occ{c.name, peak_event, capacity, {}};
    for (const replay::PlacedBuffer& p : placed) occ.blocks.push_back({p.offset, p.bytes, trace.buffers[p.buffer].id});
    out->occupancy.push_back(std::move(occ));
  }
  if (options.occupancy && c.name == "jax") {
    Occupancy occ;
    if (!GpuOccupancy(trace, c, capacity, context, peak_event, options, &occ, error)) return false;
    out->occupancy.push_back(std::move(occ));
  }
#ifdef STRATA_COMPARE_HAVE_SIM
  if (c.strata && options.strata_backend == "sim") {
    if (options.progress) options.progress(c.name + ": on the model (sim backend)...");
    if (!RunStrataSim(trace, c, capacity, options, &run, error)) {
      *error = c.name + " on the sim backend: " + *error;
      return false;
    }
  }
#else
  if (c.strata && options.strata_backend == "sim") {
    *error = "this build has no sim backend";
    return false;
  }
#endif
  if (options.advice && !run.completed()) {
    if (options.progress) options.progress(w.name + ": " + c.name + " fails; searching its framework's settings...");
    if (!AdviseRun(trace, c, w.capacity_bytes, options, &run, error)) {
      *error = c.name + " (settings): " + *error;
      return false;
    }
  }
  if (options.search) {
    if (!SearchMinCapacity(trace, c, options, &run.min_capacity, error)) {
      *error = c.name + " (capacity search): " + *error;
      return false;
    }
  }
  if (options.progress) {
    options.progress(w.name + ": " + c.name + (run.completed() ? " completes" : " fails") +
                     (options.search ? ", min capacity " + std::to_string(run.min_capacity.ratio).substr(0, 5) + "x (" +
                                           std::to_string(run.min_capacity.probes) + " replays)"
                                     : std::string()));
  }
  return true;
}

// Runs `work(k)` for k in [0, n) on up to `jobs` threads (the calling thread one of them) and hands each finished k
// to `done(k)` on the calling thread, in order. `done` returning false stops handing out more work.
void InOrder(size_t n, unsigned jobs, const std::function<void(size_t)>& work,
             const std::function<bool(size_t)>& done) {
  std::mutex mutex;
  std::condition_variable finished_cv;
  std::vector<char> finished(n, 0);
  size_t next = 0;
  bool stop = false;
  auto take = [&](size_t* k) {
    std::lock_guard<std::mutex> lock(mutex);
    if (stop || next == n) return false;
    *k = next++;
    return true;
  };
  auto worker = [&] {
    size_t k;
    while (take(&k)) {
      work(k);
      std::lock_guard<std::mutex> lock(mutex);
      finished[k] = 1;
      finished_cv.notify_all();
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < jobs && t < n; ++t) threads.emplace_back(worker);
  for (size_t k = 0; k < n; ++k) {
    std::unique_lock<std::mutex> lock(mutex);
    // The calling thread works too while the next result in order is not ready.
    while (!finished[k]) {
      if (!stop && next < n) {
        const size_t mine = next++;
        lock.unlock();
        work(mine);
        lock.lock();
        finished[mine] = 1;
        finished_cv.notify_all();
      } else {
        finished_cv.wait(lock);
      }
    }
    lock.unlock();
    if (!done(k)) {
      std::lock_guard<std::mutex> stop_lock(mutex);
      stop = true;
      break;
    }
  }
  for (std::thread& t : threads) t.join();
}

}  // namespace

bool CompareWorkload(const replay::Trace& trace, const std::string& source, const Options& options,
                     WorkloadReport* report, std::string* error) {
  WorkloadReport& w = *report;
  w = WorkloadReport{};
  w.name = trace.name;
  w.source = source;
  w.buffers = trace.buffers.size();
  w.events = 2 * trace.buffers.size();
  const std::vector<replay::Event> events = replay::BuildEvents(trace);
  w.max_load_bytes = replay::MaxLoad(trace, events, kGranule);
  w.capacity_text = options.capacity.text;
  w.capacity_bytes = CapacityBytes(options.capacity, w.max_load_bytes);
  const uint64_t context = options.capacity.kind == CapacitySpec::Kind::kPreset ? options.capacity.context_bytes : 0;
  const std::vector<Contender>& contenders = options.contenders;
  if (std::any_of(contenders.begin(), contenders.end(), [](const Contender& c) { return !c.strata; })) {
    w.gpu_page_bytes = GpuPageBytes(options);
  }
  // The sim backend's model and a real GPU are one each: their runs stay one after another, as do the progress lines
  // of a model run (it reports while it runs).
  unsigned jobs = options.jobs != 0 ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  if (options.strata_backend == "sim" || options.cuda) jobs = 1;
  std::vector<ContenderResult> results(contenders.size());
  auto work = [&](size_t k) {
    Options o = options;
    o.events = &events;
    if (jobs > 1 && options.progress) {  // said in order by the calling thread, when the contender's turn comes
      o.progress = [&r = results[k]](const std::string& line) { r.progress.push_back(line); };
    }
    results[k].ok = CompareContender(trace, w, contenders[k], context, o, &results[k]);
  };
  bool ok = true;
  InOrder(contenders.size(), jobs, work, [&](size_t k) {
    ContenderResult& r = results[k];
    for (const std::string& line : r.progress) options.progress(line);
    if (!r.ok) {
      *error = r.error;
      ok = false;
      return false;
    }
    const Contender& c = contenders[k];
    Run& run = r.run;
    for (Occupancy& occ : r.occupancy) w.occupancy.push_back(std::move(occ));
    if (options.timeline != nullptr) WriteRunTimeline(*options.timeline, w.name, run);
    if (options.detail_points > 0) AddDetail(trace, events, run.series, options.detail_points, &run);
    run.series = Downsample(run.series, options.series_points);
    w.runs.push_back(std::move(run));
    if (options.cuda && !c.strata) {
      Run real;
      real.contender = c.name;
      real.family = "gpu";
      real.backend = "cuda";
      real.allocator = c.policy + " policy on the real GPU through CUDA (its own memory)";
      const auto t0 = std::chrono::steady_clock::now();
      Options o = options;
      o.events = &events;
      if (!RunGpu(trace, c, "cuda", 0, 0, true, false, o, &real, error)) {
        *error = c.name + " on cuda: " + *error;
        ok = false;
        return false;
      }
      real.wall_seconds = Seconds(t0);
      if (options.timeline != nullptr) WriteRunTimeline(*options.timeline, w.name, real);
      real.series = Downsample(real.series, options.series_points);
      w.runs.push_back(std::move(real));
    }
    return true;
  });
  if (!ok) return false;
  if (options.detail_points > 0) {
    w.buffer_list = trace.buffers;
    const auto& labels = trace.labels.size() == trace.buffers.size() ? trace.labels : trace.shapes;
    if (labels.size() == trace.buffers.size()) {
      w.buffer_labels = labels;
      w.label_text = trace.shape_text;
    }
  }
  // A workload with a static planner's offsets (an XLA import) also gets the ahead-of-time rows.
  if (!trace.planned_offsets.empty()) AppendStaticPlanRuns(trace, &w, options.detail_points, &events);
  return true;
}

}  // namespace strata::compare
