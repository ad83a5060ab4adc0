// strata-compare: one workload on the Strata device and under every GPU framework policy, side by side: who
// completes at a capacity, the least capacity each needs, why each OOM happened and what avoiding it cost.
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "compaction_cost.h"
#include "compare.h"
#include "devices.h"
#include "html_report.h"
#include "memory_viz.h"
#include "names.h"
#include "regular_file.h"
#include "report.h"
#include "strata/strata.h"
#include "strata/strata.hpp"
#include "tool_cli.h"
#include "trace_file.h"
#include "workload.h"
#include "xla_cli.h"

namespace {

constexpr const char* kSynopsis =
    "strata-compare WORKLOAD... [--capacity C] [--contenders LIST] [--backend STRATA_BACKENDS]\n"
    "                      [--hbm PRESET] [--cuda auto|on|off] [--option N=V]... [--resolution F] [--no-search]\n"
    "                      [--no-advice] [--jobs N] [--format F] [--device N] [--json FILE] [--csv FILE]\n"
    "                      [--timeline FILE] [--html FILE] [--memory-viz FILE [--memory-viz-contender NAME]]\n"
    "                      [--quiet] [--no-table] [--list-devices]\n"
    "       strata-compare --tenant POLICY:WORKLOAD --tenant POLICY:WORKLOAD... [options]\n"
    "       strata-compare WORKLOAD... --emit-jobs DIR [options]      (one command line per run)\n"
    "       strata-compare --merge REPORT.json... [--json FILE] [--csv FILE] [--html FILE]";
constexpr const char* kDescription =
    "Runs each workload through Strata's firmware allocator (with and without on-device compaction) and\n"
    "through every GPU framework policy (JAX, TensorFlow, PyTorch; docs/gpu-policies.md) on an emulated GPU\n"
    "of the same memory, and prints one table per workload: completes at the capacity or not, the first\n"
    "OOM (event, buffer, kind) with the numbers at that moment, OOMs by kind, peak in use and reserved, the\n"
    "minimum capacity at which each completes (a search over capacity), and what avoiding OOMs cost\n"
    "(Strata: bytes moved HBM->HBM and device cycles; JAX's Defragment: bytes over PCIe; the others:\n"
    "device allocations, frees, syncs, maps). docs/comparison.md explains every column.";
constexpr const char* kFooter =
    "Exit status: 0 when the comparison ran (failed allocations are results), 2 on bad usage or input,\n"
    "3 when a backend failed (the sim backend's firmware missing, --cuda on without a GPU).";

int Usage(const std::string& message) { return strata::cli::Usage("strata-compare", message); }

int Fail(int status, const std::string& message) {
  std::fprintf(stderr, "strata-compare: %s\n", message.c_str());
  return status;
}

std::string AbsolutePath(const std::string& path) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf) != nullptr) return buf;
  return path;
}

// Writes `text` to `path` ("-": standard output). False with a message when it could not all be written.
bool WriteOut(const std::string& path, const std::string& text, std::string* error) {
  *error = strata::tool::WriteOutput(path, text);
  return error->empty();
}

// The whole run; main wraps it.
int Main(int argc, char** argv) {
  using namespace strata;
  compare::Options options;
  std::vector<std::string> inputs;
  std::vector<std::pair<std::string, std::string>> tenant_args;
  std::string capacity_text = "1.0x", contenders_text = "all", json_path, csv_path, emit_dir, cuda_mode = "auto";
  std::string timeline_path, html_path, memory_viz_path, memory_viz_contender;
  bool merge = false, quiet = false, table = true;
  workload::Format format = workload::Format::kAuto;
  workload::ImportOptions import;
  std::vector<std::string> passthrough;  // for --emit-jobs: the options every job repeats
  // Each option that every --emit-jobs job repeats adds itself to passthrough as it is taken.
  auto pass = [&passthrough](const std::string& option, const std::string& v) {
    passthrough.insert(passthrough.end(), {option, v});
  };
  CLI::App app{kDescription, "strata-compare"};
  // The synopsis names Strata's backends from their table.
  std::string synopsis = kSynopsis;
  const std::string backends_slot = "STRATA_BACKENDS";
  synopsis.replace(synopsis.find(backends_slot), backends_slot.size(),
                   tool::JoinNames(replay::StrataBackendNames(), "|", "|"));
  strata::cli::Setup(app, synopsis, kFooter);
  app.add_option("WORKLOAD", inputs,
                 "a trace CSV (id,lower,upper,size), a PyTorch memory snapshot (pickle or JSON)\n"
                 "or an RMM log; strata-import converts any of them to CSV (with --merge: reports)");
  app.add_option("--capacity", capacity_text,
                 "the device's memory: <F>x (F times the workload's max load, default 1.0x),\n"
                 "BYTES (suffixes K M G T, KiB ... TiB) or a GPU preset (h100-80g, a100-40g, ...:\n"
                 "the GPU policies get its total with its CUDA context, Strata the same minus the\n"
                 "context)")
      ->type_name("C");
  app.add_option("--contenders", contenders_text,
                 "all (default) or a comma-separated list of: strata, strata-no-compact, jax,\n"
                 "jax+defrag, jax-growth, jax-platform, jax-async, tf, tf-growth, tf-async, torch,\n"
                 "torch-expandable")
      ->type_name("L");
  strata::cli::AddTaken(
      app, "--backend", "B",
      [&](const std::string& v) -> std::string {
        const std::vector<std::string> names = replay::StrataBackendNames();
        if (std::find(names.begin(), names.end(), v) == names.end()) {
          return "--backend '" + v + "': " + tool::JoinNames(names, ", ", " or ") +
                 " (the GPU policies run on gpu-emu, and on cuda with --cuda)";
        }
        options.strata_backend = v;
        pass("--backend", v);
        return "";
      },
      "where Strata runs at the capacity: host (default; the firmware's allocator\n"
      "library on the host, the same decisions, compaction cycles estimated by a cost\n"
      "model fitted on the model, with its error bound) or sim (the Strata model through the driver: real\n"
      "device cycles; slow for GB of compaction). The capacity search runs on the host");
  strata::cli::AddTaken(
      app, "--cuda", "M",
      [&](const std::string& v) -> std::string {
        if (v != "auto" && v != "on" && v != "off") return "--cuda '" + v + "': auto, on or off";
        cuda_mode = v;
        pass("--cuda", v);
        return "";
      },
      "auto (default): the GPU policies once more on the real GPU when one is present;\n"
      "on: fail without one; off: never");
  strata::cli::AddRepeated(
      app, "--option", "N=V",
      [&](const std::string& v) -> std::string {
        const size_t eq = v.find('=');
        if (eq == std::string::npos || eq == 0) return "--option '" + v + "': expected NAME=VALUE";
        options.gpu_options[v.substr(0, eq)] = v.substr(eq + 1);
        pass("--option", v);
        return "";
      },
      "an option of the emulated GPU or of the policies (repeatable): page_bytes=4096\n"
      "(the GPU's allocation granule, default 2 MiB), mem_fraction=0.9, ...; a policy\n"
      "that does not know N refuses it (pick --contenders); overrides the environment");
  strata::cli::AddTaken(
      app, "--resolution", "F",
      [&](const std::string& v) -> std::string {
        char* end = nullptr;
        const double f = std::strtod(v.c_str(), &end);
        if (v.empty() || end != v.c_str() + v.size() || !(f > 0) || f > 1) {
          return "--resolution '" + v + "': a fraction of the max load in (0, 1], e.g. 0.001";
        }
        options.resolution = f;
        pass("--resolution", v);
        return "";
      },
      "of the search, as a fraction of the max load (default 0.001; at least 256 B)");
  app.add_flag_callback(
      "--no-search",
      [&] {
        options.search = false;
        passthrough.push_back("--no-search");
      },
      "skip the minimum-capacity search");
  strata::cli::AddTaken(
      app, "--hbm", "PRESET",
      [&](const std::string& v) -> std::string {
        // The sim backend's presets as the driver lists them; a build without it checks the cost model's alone.
        const std::vector<std::string> presets = strata::OptionChoices("sim", "hbm_preset");
        const std::string unknown = presets.empty() ? "" : strata::tool::UnknownName("HBM preset", v, presets);
        if (!unknown.empty()) return unknown;
        if (compare::CompactionCostFor(v) == nullptr) {
          return "HBM preset '" + v + "' has no compaction cost model yet (bench/compaction/cost_model.py fits one)";
        }
        options.hbm_preset = v;
        pass("--hbm", v);
        return "";
      },
      std::string("the HBM preset of Strata's device: its compaction cycles, estimated on the host\n"
                  "(docs/comparison.md) or measured with --backend sim (default ") +
          options.hbm_preset + ")");
  app.add_flag_callback(
      "--no-advice",
      [&] {
        options.advice = false;
        passthrough.push_back("--no-advice");
      },
      "no search of the frameworks' settings for what would have saved each failure\n"
      "(the verdict's advice lines; docs/fit.md)");
  strata::cli::AddTaken(
      app, "--jobs", "N",
      [&](const std::string& v) -> std::string {
        uint64_t n;
        if (!workload::ParseCount(v, &n) || n < 1 || n > 256)
          return "--jobs '" + v + "': a number of threads, 1 to 256";
        options.jobs = static_cast<unsigned>(n);
        return "";
      },
      "contenders replayed side by side on N threads (default: one per hardware thread;\n"
      "the report is the same for any N; 1 with --backend sim or a real GPU)");
  strata::cli::AddTaken(
      app, "--format", "F",
      [&](const std::string& v) -> std::string {
        if (!workload::ParseFormat(v, &format)) return workload::UnknownFormat(v);
        pass("--format", v);
        return "";
      },
      tool::ChoicesWithDefault(tool::NamesOf(workload::Formats()), "auto") + " (strata-import --help)");
  strata::cli::AddTaken(
      app, "--device", "N",
      [&](const std::string& v) -> std::string {
        uint64_t n;
        if (!workload::ParseCount(v, &n) || n > 1'000'000) return "--device '" + v + "' is not a device index";
        import.device = static_cast<int64_t>(n);
        pass("--device", v);
        return "";
      },
      "torch snapshots: which device's trace (default 0)");
  workload::AddXlaOptions(app, &import, &passthrough);  // XLA dumps: view, steps, module, padding (docs/jax.md)
  strata::cli::AddRepeated(
      app, "--tenant", "P:W",
      [&](const std::string& v) -> std::string {
        const size_t colon = v.find(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == v.size()) {
          return "--tenant '" + v + "': expected POLICY:WORKLOAD, e.g. jax:resnet50.csv";
        }
        tenant_args.emplace_back(v.substr(0, colon), v.substr(colon + 1));
        return "";
      },
      "several workloads on one device at once, interleaved in time (repeatable, at\n"
      "least two): on the GPU each a process with policy P; on Strata each a context\n"
      "with its workload's max load as quota. The capacity is of the merged max load");
  app.add_option("--json", json_path,
                 "the whole report as JSON (- for standard output instead of the table);\n"
                 "scripts/plot_compare.py draws its figures")
      ->type_name("FILE");
  app.add_option("--csv", csv_path, "one CSV row per run (- for standard output instead of the table)")
      ->type_name("FILE");
  app.add_option("--timeline", timeline_path,
                 "every contender's run as a Perfetto timeline (trace-event JSON), a process per\n"
                 "contender on the trace's event clock: memory counters, compactions and\n"
                 "Defragment() calls, OOMs (docs/timelines.md; not with --tenant)")
      ->type_name("FILE");
  app.add_option("--html", html_path,
                 "the comparison as one self-contained web page that opens offline: memory over the\n"
                 "run per contender, OOMs and compactions marked, the verdict, and where every buffer\n"
                 "was (address x time), with zoom and hover (docs/comparison.md; not with --emit-jobs)")
      ->type_name("FILE");
  app.add_option("--memory-viz", memory_viz_path,
                 "one contender's run as a PyTorch memory snapshot (pickle) that PyTorch's memory_viz\n"
                 "and torch/cuda/_memory_viz.py open: its segments, blocks and every allocation, free,\n"
                 "segment and OOM in order (docs/comparison.md; one workload, not with --tenant)")
      ->type_name("FILE");
  app.add_option("--memory-viz-contender", memory_viz_contender,
                 "the contender --memory-viz exports (default: torch when it runs, else the first)")
      ->type_name("NAME");
  app.add_option("--emit-jobs", emit_dir,
                 "print one strata-compare command line per workload and contender, each writing\n"
                 "DIR/NNNN.json, instead of running them (for GNU parallel or a Slurm array)")
      ->type_name("DIR");
  app.add_flag("--merge", merge, "the arguments are reports to combine into one (equal to a single run's)");
  app.add_flag("--quiet", quiet, "no progress on standard error");
  bool no_table = false, list_devices = false;
  app.add_flag("--no-table", no_table, "no table on standard output (with --json FILE or --csv FILE)");
  app.add_flag("--list-devices", list_devices,
               "print the table of devices --capacity NAME takes (with --json -: one JSON object a line)");
  if (int rc = strata::cli::Parse(app, argc, argv); rc != strata::cli::kContinue) return rc;
  if (list_devices) {
    if (!inputs.empty() || !tenant_args.empty()) return Usage("--list-devices takes no workload");
    if (!json_path.empty() && json_path != "-") return Usage("--list-devices prints on standard output (--json -)");
    std::cout << (json_path == "-" ? strata::devices::ListJsonLines() : strata::devices::ListText());
    return std::cout.flush() ? 0 : 1;
  }
  table = !no_table;
  if (memory_viz_path == "-") return Usage("--memory-viz writes a file, not standard output");
  if (!memory_viz_contender.empty() && memory_viz_path.empty()) {
    return Usage("--memory-viz-contender names what --memory-viz exports: add --memory-viz FILE");
  }
  // --no-table with nothing else to show would run the whole comparison for no output at all.
  if (no_table && json_path.empty() && csv_path.empty() && timeline_path.empty() && html_path.empty() &&
      memory_viz_path.empty() && emit_dir.empty()) {
    return Usage(
        "--no-table leaves no output: add --json FILE, --csv FILE, --timeline FILE, --html FILE or --memory-viz FILE");
  }
  if (json_path == "-" && csv_path == "-") return Usage("--json - and --csv - both want standard output");
  // Output paths are checked before anything runs: a long comparison must not be lost at the end.
  if (timeline_path == "-") return Usage("--timeline writes a file, not standard output");
  if (!timeline_path.empty() && (merge || !emit_dir.empty() || !tenant_args.empty())) {
    return Usage("--timeline draws a comparison of workloads as it runs (not --merge, --emit-jobs or --tenant)");
  }
  if (html_path == "-") return Usage("--html writes a file, not standard output");
  if (!html_path.empty() && !emit_dir.empty()) {
    return Usage("--html draws a comparison: not with --emit-jobs (--merge the jobs' reports with --html)");
  }
  if (!memory_viz_path.empty() && (merge || !emit_dir.empty() || !tenant_args.empty() || inputs.size() != 1)) {
    return Usage("--memory-viz exports one contender's run of one workload (not --merge, --emit-jobs or --tenant)");
  }
  for (const std::string* path : {&json_path, &csv_path, &timeline_path, &html_path, &memory_viz_path}) {
    if (!path->empty() && *path != "-") {
      const std::string bad = tool::CheckWritableFile(*path);
      if (!bad.empty()) return Fail(2, *path + ": " + bad);
    }
  }
  // No output may be what the run reads (a.csv --csv a.csv) or another output (--json r --csv r).
  std::vector<tool::NamedFile> read;
  // A workload that is an XLA dump brings the module files it may read (workload::AddImportInputs).
  for (const std::string& path : inputs) {
    if (merge) {
      read.push_back({"the report", path});
    } else {
      workload::AddImportInputs("the workload", path, &read);
    }
  }
  for (const auto& tenant : tenant_args) workload::AddImportInputs("the workload", tenant.second, &read);
  if (const std::string clash = tool::CheckOutputsApart(read, {{"--json", json_path},
                                                               {"--csv", csv_path},
                                                               {"--timeline", timeline_path},
                                                               {"--html", html_path},
                                                               {"--memory-viz", memory_viz_path}});
      !clash.empty()) {
    return Fail(2, clash);
  }
  std::string error;
  std::vector<compare::WorkloadReport> reports;
  std::string memory_viz;  // the pickle, written with the other outputs

  if (merge) {
    if (inputs.empty()) return Usage("--merge needs at least one report");
    if (!tenant_args.empty() || !emit_dir.empty()) return Usage("--merge takes reports only");
    std::vector<std::vector<compare::WorkloadReport>> parts;
    for (const std::string& path : inputs) {
      std::string text;
      std::vector<compare::WorkloadReport> part;
      if (!tool::ReadRegularFile(path, uint64_t{1} << 30, &text, &error)) return Fail(2, error);
      if (!compare::FromJson(text, &part, &error)) return Fail(2, path + ": " + error);
      parts.push_back(std::move(part));
    }
    if (!compare::Merge(parts, &reports, &error)) return Fail(2, error);
  } else {
    if (!compare::ParseCapacitySpec(capacity_text, &options.capacity, &error)) return Usage(error);
    if (!compare::ParseContenders(contenders_text, &options.contenders, &error)) return Usage(error);
    if (!memory_viz_path.empty()) {
      if (memory_viz_contender.empty()) memory_viz_contender = compare::DefaultMemoryVizContender(options.contenders);
      if (std::none_of(options.contenders.begin(), options.contenders.end(),
                       [&](const compare::Contender& c) { return c.name == memory_viz_contender; })) {
        std::vector<std::string> names;
        for (const compare::Contender& c : options.contenders) names.push_back(c.name);
        return Usage("--memory-viz-contender '" + memory_viz_contender + "' is not among the contenders (" +
                     tool::JoinNames(names, ", ", ", ") + ")");
      }
    }
    if (!html_path.empty()) {  // the page draws each run finer than the report's series, and every buffer's place
      options.detail_points = compare::kHtmlSeriesBands;
      options.record_places = true;
    }
    if (inputs.empty() && tenant_args.empty()) return Usage("no workload");
    // Every --option must mean something to every GPU policy that runs (a bad one is bad usage, before any run).
    std::vector<std::string> policies;
    for (const compare::Contender& c : options.contenders) {
      if (!c.strata && tenant_args.empty()) policies.push_back(c.policy);
    }
    for (const auto& tenant : tenant_args) policies.push_back(tenant.first);
    for (const std::string& policy : policies) {
      uint64_t page = 0;
      std::map<std::string, std::string> settings;
      if (!compare::ApplyGpuOptions(options, policy, &page, &settings, &error)) return Usage("--option: " + error);
    }
    if (!inputs.empty() && !tenant_args.empty()) {
      return Usage("give workloads or --tenant POLICY:WORKLOAD, not both");
    }
    if (!emit_dir.empty() && !tenant_args.empty()) return Usage("--emit-jobs splits workloads, not tenant runs");
    // Progress: a line per finished contender once the run has lasted 2 s (short runs stay quiet).
    const auto start = std::chrono::steady_clock::now();
    if (!quiet) {
      options.progress = [start](const std::string& line) {
        if (std::chrono::steady_clock::now() - start >= std::chrono::seconds(2)) {
          std::fprintf(stderr, "strata-compare: %s\n", line.c_str());
        }
      };
    }
    auto load = [&](const std::string& path, replay::Trace* trace, std::string* source) {
      workload::ImportStats stats;
      if (!workload::ImportFile(path, format, import, trace, &stats, &error)) return false;
      *source = stats.source;
      return true;
    };

    if (!emit_dir.empty()) {
      // The jobs write there. A path that is missing is created (with its parents, as `mkdir -p`), but only once
      // every workload has loaded: a bad workload or a path that is something else changes nothing.
      struct stat st {};
      const bool exists = ::stat(emit_dir.c_str(), &st) == 0;
      if (exists && !S_ISDIR(st.st_mode)) {
        return Fail(2, "--emit-jobs " + emit_dir + ": exists and is not a directory");
      }
      if (!exists && ::lstat(emit_dir.c_str(), &st) == 0) {  // a link to nowhere: creating it would go elsewhere
        return Fail(2, "--emit-jobs " + emit_dir + ": a symbolic link to nothing, not a directory");
      }
      const std::string self = AbsolutePath("/proc/self/exe");
      std::vector<std::pair<std::string, std::string>> jobs;  // a command line without its report, the report's name
      int job = 0;
      for (const std::string& path : inputs) {
        replay::Trace trace;
        std::string source;
        if (!load(path, &trace, &source)) return Fail(2, error);  // a bad workload fails now, not in a job
        for (const compare::Contender& c : options.contenders) {
          char name[32];
          std::snprintf(name, sizeof name, "/%04d.json", ++job);
          std::string line = strata::cli::ShellWord(self) + " " + strata::cli::ShellWord(AbsolutePath(path)) +
                             " --contenders " + strata::cli::ShellWord(c.name) + " --capacity " +
                             strata::cli::ShellWord(capacity_text);
          for (const std::string& p : passthrough) line += " " + strata::cli::ShellWord(p);
          jobs.emplace_back(line + " --quiet --no-table --json ", name);  // the directory's path once it exists
        }
      }
      if (!exists) {
        std::error_code ec;
        std::filesystem::create_directories(emit_dir, ec);
        if (ec) return Fail(2, "--emit-jobs " + emit_dir + ": cannot create the directory: " + ec.message());
      }
      if (::stat(emit_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || ::access(emit_dir.c_str(), W_OK) != 0) {
        return Fail(2, "--emit-jobs " + emit_dir + ": not a directory this user can write");
      }
      const std::string dir = AbsolutePath(emit_dir);
      for (const auto& [line, name] : jobs) std::cout << line << strata::cli::ShellWord(dir + name) << "\n";
      std::cout.flush();
      return std::cout ? 0 : Fail(1, "standard output: write failed");
    }

    if (cuda_mode != "off") {
      strata_device* d = nullptr;
      if (strata_open("cuda", nullptr, &d) == STRATA_OK) {
        strata_close(d);
        options.cuda = true;
      } else if (cuda_mode == "on") {
        return Fail(3, std::string("--cuda on: ") + strata_last_error_message());
      }
    }

    if (!tenant_args.empty()) {
      std::vector<compare::TenantSpec> tenants;
      for (const auto& [policy, path] : tenant_args) {
        compare::TenantSpec t;
        t.policy = policy;
        t.workload = path;
        std::string source;
        if (!load(path, &t.trace, &source)) return Fail(2, error);
        tenants.push_back(std::move(t));
      }
      compare::WorkloadReport w;
      if (!compare::CompareTenants(tenants, options, &w, &error)) return Fail(2, error);
      reports.push_back(std::move(w));
    } else {
      std::unique_ptr<timeline::TraceFile> timeline;
      if (!timeline_path.empty()) {
        timeline = timeline::TraceFile::Open(timeline_path, uint64_t{1} << 30, &error);
        if (!timeline) return Fail(2, timeline_path + ": " + error);
        options.timeline = timeline.get();
      }
      for (const std::string& path : inputs) {
        replay::Trace trace;
        std::string source;
        if (!load(path, &trace, &source)) return Fail(2, error);
        compare::WorkloadReport w;
        if (!compare::CompareWorkload(trace, source, options, &w, &error)) return Fail(3, error);
        compare::MemoryVizSummary summary;
        if (!memory_viz_path.empty() &&
            !compare::MemoryVizSnapshot(trace, memory_viz_contender, w, options, &memory_viz, &summary, &error)) {
          return Fail(3, error);
        }
        reports.push_back(std::move(w));
      }
      options.timeline = nullptr;
      if (timeline && !timeline->Close())
        return Fail(1, timeline_path + ": the timeline could not be written completely");
    }
  }

  if (!json_path.empty() && !WriteOut(json_path, compare::ToJson(reports), &error)) return Fail(1, error);
  if (!html_path.empty()) {
    if (!WriteOut(html_path, compare::ToHtml(reports), &error)) return Fail(1, error);
  }
  if (!memory_viz_path.empty() && !WriteOut(memory_viz_path, memory_viz, &error)) return Fail(1, error);
  if (!csv_path.empty()) {
    std::string csv = compare::CsvHeader();
    for (const compare::WorkloadReport& w : reports) csv += compare::ToCsv(w);
    if (!WriteOut(csv_path, csv, &error)) return Fail(1, error);
  }
  if (table && json_path != "-" && csv_path != "-") {
    for (size_t i = 0; i < reports.size(); ++i) std::cout << (i ? "\n" : "") << compare::ToTable(reports[i]);
    std::cout.flush();
    if (!std::cout) return Fail(1, "standard output: write failed");
  }
  return 0;
}

}  // namespace

// Host out of memory anywhere in the run: a message and exit status 1 (tool_cli.h), not an abort.
int main(int argc, char** argv) { return strata::cli::RunMain("strata-compare", Main, argc, argv); }
