// strata-compare's engine: one workload through Strata's firmware allocator (with and without on-device
// compaction) and through every GPU framework policy, at one capacity and at the least capacity each needs.
// Every contender sees the same buffer-lifetime trace in the same event order (replay::BuildEvents), so
// event indices, buffer ids and byte counts line up across the rows of one report. docs/comparison.md
// explains every figure.
#ifndef STRATA_HOST_COMPARE_COMPARE_H_
#define STRATA_HOST_COMPARE_COMPARE_H_

#include <stdint.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "replay.h"
#include "trace_file.h"

namespace strata::replay {
struct GpuReplayOptions;  // gpu_replay.h
}

namespace strata::compare {

// One way of managing device memory.
struct Contender {
  std::string name;         // "strata", "strata-no-compact", "jax", "jax+defrag", "tf-growth", ...
  bool strata = false;      // Strata's firmware allocator (TLSF, 256-byte granule), else a GPU policy
  bool compaction = false;  // strata: compact HBM->HBM on an allocation that does not fit
  std::string policy;       // gpu: the policy's name (host/gpu/policy.h)
  bool defragment = false;  // gpu: JAX's Defragment() (every live buffer through the host) on a fragmentation OOM
  const char* family() const { return strata ? "strata" : "gpu"; }
};
// strata, strata-no-compact, then every GPU policy and jax+defrag, in a fixed order.
std::vector<Contender> AllContenders();
// A comma-separated list of names, or "all". False with a message listing the valid names.
bool ParseContenders(const std::string& text, std::vector<Contender>* out, std::string* error);

// The device's memory: a factor of the workload's max load, bytes, or a GPU preset's total memory.
struct CapacitySpec {
  enum class Kind { kRatio, kBytes, kPreset } kind = Kind::kRatio;
  double ratio = 1.0;
  uint64_t bytes = 0;          // kBytes; kPreset: the preset's total
  uint64_t context_bytes = 0;  // kPreset: what the CUDA context holds (GPU contenders only)
  std::string text;            // as given
};
bool ParseCapacitySpec(const std::string& text, CapacitySpec* out, std::string* error);
// The bytes every contender gets for a workload of max load `max_load` (kRatio: rounded down to 256 B).
uint64_t CapacityBytes(const CapacitySpec& spec, uint64_t max_load);

// How advice begins when the workload cannot fit whatever the settings (the verdict then names other levers).
inline constexpr const char* kNoSettingHelps = "no setting helps: ";

struct FirstOom {
  int64_t event = -1;  // index in replay order; -1: none
  int64_t buffer_id = 0;
  std::string kind = "none";  // capacity, cap, fragmentation, quota
  uint64_t request_bytes = 0, live_bytes = 0, reserved_bytes = 0, largest_free_bytes = 0, limit_bytes = 0;
  std::string message;
  std::string tenant;  // tenant runs: whose allocation it was
};

// What avoiding (or suffering) the OOMs cost.
struct Cost {
  uint64_t compactions = 0, moves = 0, bytes_moved = 0;  // strata: HBM->HBM
  uint64_t compaction_cycles = 0;
  std::string cycles_source = "none";  // "device" (measured on the model), "estimate" (compaction_cost.h), "none"
  double cycles_error_bound = 0;       // "estimate": the model's bound on its relative error (0.03: +-3%)
  uint64_t defragmentations = 0, host_bytes_copied = 0;  // jax+defrag: over PCIe, both ways
  uint64_t device_allocs = 0, device_frees = 0, device_syncs = 0, stream_syncs = 0, maps = 0, unmaps = 0;
  uint64_t retries = 0;
};

struct MinCapacity {
  bool searched = false;
  bool found = false;           // false: it failed even at `bytes`, the largest capacity tried
  uint64_t bytes = 0;           // completes here
  double ratio = 0;             // bytes / max load
  uint64_t fails_at_bytes = 0;  // the largest capacity tried below `bytes`, where it failed (0: none tried)
  uint64_t resolution_bytes = 0;
  uint32_t probes = 0;  // replays the search ran
};

struct SeriesPoint {
  uint64_t event = 0;
  uint64_t live = 0;      // the trace's live bytes as requested (failed buffers included)
  uint64_t in_use = 0;    // what the allocator charges for its live buffers
  uint64_t reserved = 0;  // what it holds from the device (strata: the highest address used so far)
  // For the timeline only (not in the report): the largest free block, bytes moved so far (Strata: HBM->HBM
  // by compaction; jax+defrag: through the host by Defragment()).
  uint64_t largest_free = 0;
  uint64_t moved = 0;
};

// A bucket of a run's full-resolution series (events first..last): the least and the most of each figure in it, so
// that a drawing at any zoom shows every peak and every dip (Options::detail_points; strata-compare --html).
struct SeriesBand {
  uint64_t first = 0, last = 0;
  uint64_t in_use_min = 0, in_use_max = 0, reserved_min = 0, reserved_max = 0, live_max = 0;
};
// A failed allocation with the request that failed (Options::detail_points).
struct OomMark {
  uint64_t event = 0;
  int64_t buffer_id = 0;
  uint64_t request_bytes = 0;
  std::string kind;
};

// One tenant's share of a tenant run.
struct TenantResult {
  std::string name, policy, workload;
  uint64_t quota_bytes = 0;  // strata: its context's quota
  uint64_t allocs = 0, failed_allocs = 0, peak_in_use_bytes = 0;
  FirstOom first_oom;
};

struct Run {
  std::string contender, family, backend;  // backend: "host", "sim", "gpu-emu", "cuda"
  std::string allocator;                   // one line: what ran
  uint64_t capacity_bytes = 0;
  uint64_t events = 0, allocs = 0, failed_allocs = 0;
  bool completed() const { return failed_allocs == 0; }  // every allocation of the workload succeeded
  uint64_t oom_capacity = 0, oom_cap = 0, oom_fragmentation = 0, oom_quota = 0;
  FirstOom first_oom;
  uint64_t peak_live_bytes = 0, peak_reserved_bytes = 0;
  Cost cost;
  double wall_seconds = 0;
  MinCapacity min_capacity;
  std::vector<SeriesPoint> series;                           // downsampled
  std::vector<std::pair<uint64_t, std::string>> oom_events;  // (event, kind), the first kMaxOomEvents
  std::vector<TenantResult> tenants;
  std::string note;  // e.g. "sim agrees with the host allocator: ..."
  // A failed run: the one framework setting that would have saved it, with its cost, or why none does (advice.h:
  // then it starts with kNoSettingHelps).
  std::string advice;
  // With Options::detail_points only (strata-compare --html; not in the JSON report): the full series in bands, the
  // OOMs with their requests (the first kMaxOomEvents), the events at which a compaction or Defragment() moved bytes
  // (event, bytes moved then; the first kMaxOomEvents), and with Options::record_places where every buffer was
  // (offsets from the lowest address the run used).
  std::vector<SeriesBand> bands;
  std::vector<OomMark> oom_marks;
  std::vector<std::pair<uint64_t, uint64_t>> compactions;
  std::vector<replay::PlacedSpan> places;
  bool has_places = false;
};

struct Block {
  uint64_t offset = 0, bytes = 0;
  int64_t buffer_id = 0;
};
// The address space at the event where a contender's in-use memory peaks.
struct Occupancy {
  std::string contender;
  uint64_t event = 0, extent_bytes = 0;
  std::vector<Block> blocks;  // by offset
};

struct WorkloadReport {
  std::string name, source;
  uint64_t buffers = 0, events = 0, max_load_bytes = 0;
  std::string capacity_text;
  uint64_t capacity_bytes = 0;
  uint64_t gpu_page_bytes = 0;  // the emulated GPU's page, which every GPU policy allocates in (0: no GPU contender)
  std::vector<Run> runs;
  std::vector<Occupancy> occupancy;
  std::vector<replay::TraceBuffer> buffer_list;  // Options::detail_points: the trace's buffers (for Run::places)
  // With buffer_list, where the trace has them: each buffer's label (Trace::labels: a PyTorch snapshot's frame)
  // or else its shape (Trace::shapes, XLA), viewing `label_text` (the trace's string table, shared, not copied).
  std::vector<std::string_view> buffer_labels;
  std::shared_ptr<const void> label_text;
};

// A GPU policy takes device memory in whole pages (2 MiB on every GPU preset): on a device or a workload of a few
// pages, the page size rather than the policy decides the GPU rows. Then one line that says so and names
// --option page_bytes=; else empty. The table, the why: lines and the figures (the report's "page_note") use it.
constexpr uint64_t kPagesThatDecide = 16;
std::string PageNote(const WorkloadReport& w);

constexpr size_t kMaxOomEvents = 1000;
constexpr size_t kPlacesForAllBuffers = 20000;

struct Options {
  CapacitySpec capacity;
  std::vector<Contender> contenders = AllContenders();
  std::string strata_backend = "host";  // or "sim": Strata's run at the capacity on the model (search on the host)
  std::string hbm_preset = "HBM2";      // sim
  std::string firmware_path;            // sim
  bool cuda = false;                    // GPU policies once more on the real GPU (its own memory)
  bool search = true;                   // the minimum-capacity search
  bool advice = true;                   // for each failed run, the setting that would have saved it (advice.h)
  double resolution = 0.001;            // of the max load (at least 256 B)
  double search_limit = 64.0;           // give up above this factor of the max load
  size_t series_points = 1000;
  // > 0: each recorded run also keeps its full series in at most this many bands, its OOMs with their requests and
  // its compactions (Run::bands, oom_marks, compactions; strata-compare --html draws them).
  size_t detail_points = 0;
  // With detail_points: where every buffer was (Run::places) for `strata` and the first GPU contender, and for every
  // contender when the trace has at most kPlacesForAllBuffers buffers (the page stays small on large traces).
  bool record_places = false;
  bool occupancy = true;
  // gpu-emu open options for every GPU contender (--option NAME=VALUE): page_bytes, or a policy's own
  // setting (mem_fraction, ...). A policy that does not know a name refuses it.
  std::map<std::string, std::string> gpu_options;
  std::function<void(const std::string&)> progress;  // one line per finished run or probe batch
  // Contenders replayed side by side on this many threads (0: one per hardware thread). The report, the progress
  // lines and the timeline are the same whatever the number: progress comes in contender order, from the calling
  // thread. With the sim backend or cuda the contenders run one after another.
  unsigned jobs = 0;
  // The trace's events (replay::BuildEvents), when the caller has them: every replay of a comparison walks the
  // same events, sorted once. Null: each replay builds its own. CompareWorkload sets it for its contenders.
  const std::vector<replay::Event>* events = nullptr;
  // --timeline: each recorded run becomes a process of this file (compare_timeline.h). Null: none.
  timeline::TraceFile* timeline = nullptr;
};

// The page every GPU contender runs with: --option page_bytes=, else the emulated GPU's default.
uint64_t GpuPageBytes(const Options& options);

// The whole comparison of one workload. False with *error when a contender could not run at all (a bad
// option, the sim backend missing); an allocation that fails is a result, not an error.
bool CompareWorkload(const replay::Trace& trace, const std::string& source, const Options& options,
                     WorkloadReport* report, std::string* error);

// One contender at one capacity. With `record` the run has everything; without (the search) only completion,
// failed allocations and costs: no series, peaks, OOM kinds or first OOM, and no per-event work to get them.
bool RunContender(const replay::Trace& trace, const Contender& contender, uint64_t capacity_bytes,
                  uint64_t context_bytes, bool record, const Options& options, Run* run, std::string* error);

// A GPU contender's replay through the C API: its policy on `backend` ("gpu-emu", "cuda"), of `capacity` with a CUDA
// context of `context_bytes` (gpu-emu; a real GPU has its own), the --option settings of `options`: what RunContender
// and strata-compare --memory-viz run.
replay::GpuReplayOptions GpuRunOptions(const Contender& c, const std::string& backend, uint64_t capacity,
                                       uint64_t context_bytes, const Options& options);

// The least capacity at which `contender` completes the trace, to options.resolution of the max load.
// Completion need not be monotone in capacity (a larger pool can fragment differently), so the answer
// is a capacity that completes with a failing one at most one resolution step below it.
bool SearchMinCapacity(const replay::Trace& trace, const Contender& contender, const Options& options, MinCapacity* out,
                       std::string* error);

// The same search for any run: `completes` replays at a capacity and says whether nothing failed.
using CompletesAt = std::function<bool(uint64_t capacity, bool* completed, std::string* error)>;
bool SearchCapacity(uint64_t max_load, const Options& options, const CompletesAt& completes, MinCapacity* out,
                    std::string* error);

// Several workloads side by side on one device, interleaved in time (each tenant's events spread evenly
// over the run, merged in that order): every GPU tenant a process with its own policy on one emulated GPU,
// and on Strata one context per tenant whose quota is its workload's max load.
struct TenantSpec {
  std::string policy;    // a GPU policy name (host/gpu)
  std::string workload;  // its file, as given
  replay::Trace trace;
  std::map<std::string, std::string> options;  // this process's own policy settings, over Options::gpu_options
  uint64_t context_bytes = 0;                  // its CUDA context, held on the GPU from the start (strata-fit)
  uint64_t quota_bytes = 0;                    // Strata: its context's quota; 0: its workload's max load
};
bool CompareTenants(const std::vector<TenantSpec>& tenants, const Options& options, WorkloadReport* report,
                    std::string* error);
// The GPU half of a tenant run alone, at one capacity (every tenant's context_bytes held from the start), recorded:
// who failed, when and why, in run->tenants (strata-fit --process).
bool RunGpuTenants(const std::vector<TenantSpec>& tenants, uint64_t capacity, const Options& options, Run* run,
                   std::string* error);
// The Strata half alone: one device of `capacity`, a context per tenant with its quota_bytes (the runtime's quota
// rule), compaction on OOM or not; recorded, as RunGpuTenants (strata-fit --process strata:...).
bool RunStrataTenants(const std::vector<TenantSpec>& tenants, uint64_t capacity, bool compaction, Run* run,
                      std::string* error);

// The emulated GPU and a policy's settings from Options::gpu_options, for the runs that drive a policy
// directly (occupancy, tenants): page_bytes goes to the GPU, the policy's own options to it. False with a
// message for anything else.
bool ApplyGpuOptions(const Options& options, const std::string& policy, uint64_t* page_bytes,
                     std::map<std::string, std::string>* policy_options, std::string* error);

// Options::detail_points: a run's full-resolution series `full` in at most `points` bands, its OOMs with their
// requests (from `events`), its compactions (Run::bands, oom_marks, compactions).
void AddDetail(const replay::Trace& trace, const std::vector<replay::Event>& events,
               const std::vector<SeriesPoint>& full, size_t points, Run* run);

// Downsamples to at most `points` points, keeping each bucket's largest values (peaks are never lost).
std::vector<SeriesPoint> Downsample(const std::vector<SeriesPoint>& full, size_t points);

}  // namespace strata::compare

#endif  // STRATA_HOST_COMPARE_COMPARE_H_
