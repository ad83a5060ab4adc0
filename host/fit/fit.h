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

#include "advice.h"
#include "devices.h"
#include "replay.h"

namespace strata::fit {

// The knob search lives beside the comparison (host/compare/advice.h), which strata-compare's verdict asks too.
using compare::BisectSetting;
using compare::Candidates;
using compare::Cheaper;
using compare::FindFix;
using compare::Fix;
using compare::Outcome;
using compare::RunSetting;
using compare::Setting;

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
  // The workload padded to the TPU's tiles (an XLA import with shapes): what the TPU columns replay, the GPU
  // columns keeping the unpadded one. Null: every column replays the same trace.
  const replay::Trace* tpu_trace = nullptr;
};

struct Report {
  std::string workload, source;
  uint64_t buffers = 0, max_load_bytes = 0;
  uint64_t tpu_max_load_bytes = 0;  // Options::tpu_trace's (0: none)
  std::vector<const devices::Device*> devices;
  std::vector<std::string> contenders;
  std::vector<Cell> cells;  // device-major: cells[d * contenders.size() + c]
  double wall_seconds = 0;
};

// The device x policy matrix. False with *error for bad names or a contender that cannot run at all.
bool Fit(const replay::Trace& trace, const std::string& source, const Options& options, Report* report,
         std::string* error);

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
  bool strata = false;                          // contexts with quotas on a Strata device (policy strata)
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
