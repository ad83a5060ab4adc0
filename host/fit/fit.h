// strata-fit's engine (docs/fit.md): will a workload fit on a device under a framework's allocator, by how much,
// and when it does not, which one setting of that framework would have saved it and at what cost.
//
// Every replay goes through one narrow call into strata-compare's library (RunSetting and MinTotalBytes in
// fit.cc call compare::RunContender and compare::SearchCapacity): no replay loop of its own.
#ifndef STRATA_HOST_FIT_FIT_H_
#define STRATA_HOST_FIT_FIT_H_

#include <stdint.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "devices.h"
#include "replay.h"

namespace strata::fit {

// One way to run the workload: a strata-compare contender with the framework settings applied to it.
struct Setting {
  std::string contender;                       // "jax", "torch", "strata", "jax+defrag", ...
  std::map<std::string, std::string> options;  // the policy's options (host/gpu PolicyOptions), e.g. mem_fraction
  std::string line;  // what the user sets: "XLA_PYTHON_CLIENT_MEM_FRACTION=0.80"; empty: the defaults
  // How far it departs from the failing setting: 0 tunes the same allocator (a fraction, a reserve, a split or
  // rounding rule), 1 switches the allocator's mode (growth, expandable segments, an async pool, no cache), 2 moves
  // live data (JAX's Defragment(), Strata's compaction).
  int tier = 0;
};

// A replay at one device.
struct Outcome {
  bool completed = false;
  uint64_t failed_allocs = 0;
  std::string kind = "none";  // the first OOM's kind: capacity, cap, fragmentation
  int64_t first_event = -1;   // its index in replay order
  int64_t first_buffer = 0;
  uint64_t request_bytes = 0, live_bytes = 0, reserved_at_oom_bytes = 0, largest_free_bytes = 0;
  std::string message;  // what the framework would print
  uint64_t peak_reserved_bytes = 0;
  uint64_t device_calls = 0;  // device allocations, frees, maps and unmaps
  uint64_t syncs = 0;         // device and stream synchronisations
  uint64_t bytes_moved = 0;   // Strata: HBM->HBM by compaction; JAX's Defragment(): through the host
};

// The setting that saves a failing (device, policy), or why none does.
struct Fix {
  bool needed = false;    // the cell failed
  bool found = false;     // a setting completes
  bool capacity = false;  // the workload's peak does not fit the device: no setting helps
  Setting setting;
  Outcome outcome;  // the fix's run
  uint32_t tried = 0;
  std::vector<std::pair<Setting, Outcome>> alternatives;  // every setting tried that completes, in the order tried
  std::string why;                                        // found: one line of advice; else why nothing helps
};

struct Cell {
  std::string device, contender;
  Outcome outcome;
  bool min_found = false;
  uint64_t min_total_bytes = 0;  // the least device total at which it completes (CUDA context included)
  double headroom = 0;           // device total / min_total_bytes (> 1: room to spare)
  Fix fix;
};

struct Options {
  std::vector<std::string> devices;                // names in devices.h; empty: the common ones
  std::vector<std::string> contenders;             // strata-compare contender names; empty: every one
  bool search = true;                              // the minimum capacity (headroom)
  bool fixes = true;                               // the knob search for each failing cell
  double resolution = 0.001;                       // of the max load, for the minimum capacity
  std::map<std::string, std::string> gpu_options;  // --option: page_bytes and policy options for every GPU run
  std::function<void(const std::string&)> progress;
};

struct Report {
  std::string workload, source;
  uint64_t buffers = 0, max_load_bytes = 0;
  std::vector<const devices::Device*> devices;
  std::vector<std::string> contenders;
  std::vector<Cell> cells;  // device-major: cells[d * contenders.size() + c]
  double wall_seconds = 0;
};

// The device x policy matrix. False with *error for bad names or a contender that cannot run at all.
bool Fit(const replay::Trace& trace, const std::string& source, const Options& options, Report* report,
         std::string* error);

// One setting at one device (the narrow call into compare). `record` fills the first OOM and peaks.
bool RunSetting(const replay::Trace& trace, const Setting& setting, const devices::Device& device,
                const std::map<std::string, std::string>& gpu_options, bool record, Outcome* out, std::string* error);

// The settings of the contender's framework worth trying when it fails (fraction searches are done by FindFix):
// each with the exact line to set. `least_split_mb`: the least max_split_size_mb the user's PyTorch accepts
// (gpu::LeastMaxSplitSizeMb).
std::vector<Setting> Candidates(const std::string& contender, uint64_t least_split_mb);
// Searches the framework's settings for the cheapest one that completes on `device`. Cheapest: the lowest tier, then
// the fewest bytes moved, the fewest synchronisations, the least peak reserved memory and the fewest device calls
// (docs/fit.md); the first tried among equals.
bool FindFix(const replay::Trace& trace, const std::string& contender, const devices::Device& device,
             const Options& options, Fix* fix, std::string* error);
// The searched settings (a fraction in hundredths, a reserve in MiB, a process's share): `at(v, &completes)` replays at
// v; `bad` is known to fail, `good` is tried first. *found: `good` completes, and *boundary is then the completing
// value nearest `bad` with a failing one next to it (completion need not be monotone; the answer itself always
// completes).
bool BisectSetting(int bad, int good, const std::function<bool(int, bool*)>& at, int* boundary, bool* found);
// True when a is cheaper than b under that rule.
bool Cheaper(const Setting& sa, const Outcome& a, const Setting& sb, const Outcome& b);

// Several processes on one GPU (strata-fit --process): each a framework process with its policy and settings and
// its own CUDA context, started in the order given, their allocations interleaved in time (compare's tenants).
struct Process {
  std::string policy, workload;                // a GPU policy; its file
  std::map<std::string, std::string> options;  // its settings (policy option names)
  replay::Trace trace;
};
struct ProcessOutcome {
  std::string name, policy;
  std::map<std::string, std::string> options;
  std::string line;  // the solve: the setting to give this process
  uint64_t allocs = 0, failed_allocs = 0, context_bytes = 0;
  std::string kind = "none";  // the first OOM's
  int64_t first_event = -1;   // in the merged run
  uint64_t request_bytes = 0;
  std::string message;
};
struct ProcessReport {
  std::string device;
  uint64_t total_bytes = 0, context_bytes = 0;  // the device; each process's CUDA context
  std::vector<ProcessOutcome> given;            // as given
  bool all_complete = false;
  bool solved = false;                   // fractions (limits) found with which all complete
  std::vector<ProcessOutcome> solution;  // with them
  std::string why;                       // why there is no solution
};
// The policy option that limits a process's share of the GPU ("mem_fraction", "memory_fraction"), empty for none.
std::string FractionOption(const std::string& policy);
bool FitProcesses(const std::vector<Process>& processes, const devices::Device& device, const Options& options,
                  ProcessReport* report, std::string* error);
std::string ProcessesText(const ProcessReport& report);
std::string ProcessesJson(const ProcessReport& report);

// Outputs.
std::string ToTable(const Report& report);
std::string ToJson(const Report& report);  // one object
std::string CsvHeader();
std::string ToCsv(const Report& report);
std::string ToSvg(const Report& report);  // the heat map: headroom per cell, failures marked

}  // namespace strata::fit

#endif  // STRATA_HOST_FIT_FIT_H_
