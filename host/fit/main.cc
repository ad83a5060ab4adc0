// strata-fit: will a workload fit? A device x policy matrix on one screen, the headroom of each cell, and for each
// failure the one framework setting that would have saved it, at what cost (docs/fit.md).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "compare.h"
#include "devices.h"
#include "families.h"
#include "fit.h"
#include "html_report.h"
#include "policy.h"
#include "regular_file.h"
#include "strata/strata.hpp"
#include "tf_memory.h"
#include "tool_cli.h"
#include "workload.h"
#include "xla_cli.h"

namespace {

constexpr const char* kSynopsis =
    "strata-fit WORKLOAD [--devices LIST] [--policies LIST] [--no-search] [--no-fixes] [--option "
    "page_bytes=N|torch_version=M.N]\n"
    "                  [--format F] [--json FILE] [--csv FILE] [--svg FILE] [--html FILE] [--quiet] [--no-table]\n"
    "       strata-fit --process POLICY:WORKLOAD[:NAME=VALUE,...] --process ... --devices GPU [--json FILE]\n"
    "       strata-fit --list-devices [--json -]";
constexpr const char* kDescription =
    "Replays the workload on each device under each allocation policy (Strata's allocator with and\n"
    "without compaction, and every JAX, TensorFlow and PyTorch policy of strata-compare) and prints a\n"
    "device x policy matrix: fits, with its headroom (the device's memory over the least memory it needs\n"
    "under that policy), or the first OOM's kind and event. For each failure it searches the settings of\n"
    "that framework (XLA_CLIENT_MEM_FRACTION, XLA_PYTHON_CLIENT_PREALLOCATE / ALLOCATOR and Defragment(); "
    "allow_growth,\n"
    "TF_GPU_ALLOCATOR, TF_DEVICE_MIN_SYS_MEMORY_IN_MB; PYTORCH_CUDA_ALLOC_CONF; Strata's compaction) and\n"
    "prints the cheapest that completes as the line to set, or why none can. docs/fit.md explains it.";
constexpr const char* kFooter = "Exit status: 0 when the matrix ran (failures are results), 2 on bad usage or input.";

int Usage(const std::string& message) { return strata::cli::Usage("strata-fit", message); }

int Fail(int status, const std::string& message) {
  std::fprintf(stderr, "strata-fit: %s\n", message.c_str());
  return status;
}

// Writes `text` to `path` ("-": standard output). False with a message when it could not all be written.
bool WriteOut(const std::string& path, const std::string& text, std::string* error) {
  *error = strata::tool::WriteOutput(path, text);
  return error->empty();
}

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    out.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

// --html: each device's column of the matrix run once more, recorded as strata-compare --html records a run (no
// search, no advice: the matrix has them), so that each cell of the page's heat map links to its memory over the
// run. The buffers' places only for a trace of at most compare::kPlacesForAllBuffers buffers: the page holds a
// device's worth of contenders for every device.
bool DeviceRuns(const strata::replay::Trace& trace, const std::string& source, const strata::fit::Report& report,
                const strata::fit::Options& fit_options, std::vector<strata::compare::WorkloadReport>* runs,
                std::string* error) {
  using namespace strata;
  compare::Options o;
  o.gpu_options = fit_options.gpu_options;
  o.search = false;
  o.advice = false;
  o.occupancy = false;
  o.detail_points = compare::kHtmlSeriesBands;
  o.record_places = trace.buffers.size() <= compare::kPlacesForAllBuffers;
  std::string names;
  for (const std::string& c : report.contenders) names += (names.empty() ? "" : ",") + c;
  if (!compare::ParseContenders(names, &o.contenders, error)) return false;
  for (const devices::Device* d : report.devices) {
    if (!compare::ParseCapacitySpec(d->name, &o.capacity, error)) return false;
    compare::WorkloadReport w;
    if (!compare::CompareWorkload(trace, source, o, &w, error)) return false;
    w.name = trace.name + " on " + d->name;
    runs->push_back(std::move(w));
  }
  return true;
}

int Main(int argc, char** argv) {
  using namespace strata;
  fit::Options options;
  std::string input, devices_text, policies_text, json_path, csv_path, svg_path, html_path;
  bool list_devices = false, quiet = false, no_table = false, no_search = false, no_fixes = false;
  workload::Format format = workload::Format::kAuto;
  workload::ImportOptions import;
  // An XLA dump: fit answers for what the device holds (arguments + outputs + temp over the steps), not the temp
  // allocation alone (issue 49); --xla-view executable asks the narrower question.
  import.xla.view = workload::XlaView::kSteps;
  CLI::App app{kDescription, "strata-fit"};
  cli::Setup(app, kSynopsis, kFooter);
  app.add_option("WORKLOAD", input,
                 "a trace CSV, a PyTorch memory snapshot (pickle or JSON), an RMM log or an XLA\n"
                 "dump (strata-import reads the same)");
  app.add_option("--devices", devices_text,
                 "a comma-separated list of devices (--list-devices); default: the common ones")
      ->type_name("LIST");
  app.add_option("--policies", policies_text,
                 "a comma-separated list of strata-compare's contenders (strata, strata-no-compact,\n"
                 "jax, jax+defrag, jax-growth, jax-platform, jax-async, tf, tf-growth, tf-async,\n"
                 "torch, torch-expandable); default: every one")
      ->type_name("LIST");
  app.add_flag("--list-devices", list_devices, "print the table of devices (with --json -: one JSON object a line)");
  cli::AddRepeated(
      app, "--option", "N=V",
      [&](const std::string& v) -> std::string {
        const size_t eq = v.find('=');
        const std::string key = eq == std::string::npos ? v : v.substr(0, eq);
        if (eq == std::string::npos ||
            (key != "page_bytes" && key != "torch_version" && key != "jax_version" && key != "tf_version")) {
          return "--option '" + v +
                 "': only page_bytes=N (the GPU's granule), torch_version=M.N, jax_version=M.N[.P] and "
                 "tf_version=2.N; settings are what strata-fit searches";
        }
        if (gpu::TfRelease release; key == "tf_version" && !gpu::ParseTfVersion(v.substr(eq + 1), &release)) {
          return "--option: tf_version '" + v.substr(eq + 1) + "' is not a TensorFlow release (2.MINOR, e.g. " +
                 gpu::kDefaultTfVersion + " or 2.4)";
        }
        if (key == "torch_version") {
          uint64_t least = 0;
          std::string error;
          if (!gpu::LeastMaxSplitSizeMb({{key, v.substr(eq + 1)}}, &least, &error)) return "--option: " + error;
        }
        if (key == "jax_version") {
          gpu::JaxRelease release;
          std::string error;
          if (!gpu::ReadJaxVersion({{key, v.substr(eq + 1)}}, &release, &error)) return "--option: " + error;
        }
        options.gpu_options[key] = v.substr(eq + 1);
        return "";
      },
      "page_bytes=N: the emulated GPU's allocation granule (default 2 MiB);\n"
      "torch_version=M.N: the PyTorch release whose settings rules the torch policies follow (default 2.9);\n"
      "jax_version=M.N[.P]: the JAX release whose memory-fraction rules the jax policies follow (default 0.10.2;\n"
      "next: XLA's unreleased START-CAP grammar, where a bare fraction grows to all memory);\n"
      "tf_version=2.N: the TensorFlow release whose reserve rule the tf policies follow (default 2.21; 2.4 and\n"
      "earlier: the larger of 300 MiB and 6 % of free memory, no TF_DEVICE_MIN_SYS_MEMORY_IN_MB)");
  cli::AddTaken(
      app, "--format", "F",
      [&](const std::string& v) -> std::string {
        if (!workload::ParseFormat(v, &format)) return "unknown format '" + v + "' (auto, csv, torch, rmm, xla)";
        return "";
      },
      "auto (default), csv, torch, rmm or xla");
  workload::AddXlaOptions(app, &import);
  std::vector<std::string> process_args;
  cli::AddRepeated(
      app, "--process", "P:W[:S]",
      [&](const std::string& v) -> std::string {
        const size_t colon = v.find(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == v.size()) {
          return "--process '" + v + "': expected POLICY:WORKLOAD[:NAME=VALUE,...], e.g. jax:a.csv:mem_fraction=0.1";
        }
        process_args.push_back(v);
        return "";
      },
      "several framework processes on one GPU (repeatable, in start order): POLICY:WORKLOAD\n"
      "with the policy's settings after a third colon (mem_fraction=0.1,preallocate=false);\n"
      "says who fails, when and why, and solves for fractions with which all complete;\n"
      "strata:WORKLOAD[:quota=BYTES] (or strata-no-compact): contexts with quotas on a\n"
      "Strata device with the memory a process gets on the GPU, and the quotas solved");
  app.add_flag("--no-search", no_search, "no minimum-capacity search (no headroom)");
  app.add_flag("--no-fixes", no_fixes, "no search of the frameworks' settings for the failures");
  app.add_option("--json", json_path, "the matrix as one JSON object (- for standard output)")->type_name("FILE");
  app.add_option("--csv", csv_path, "one CSV row per cell (- for standard output)")->type_name("FILE");
  app.add_option("--svg", svg_path, "the heat map (SVG)")->type_name("FILE");
  app.add_option("--html", html_path,
                 "one self-contained web page: the heat map, each cell linked to its run drawn as\n"
                 "strata-compare --html draws it (memory over the run, OOMs, buffers; docs/fit.md)")
      ->type_name("FILE");
  app.add_flag("--quiet", quiet, "no progress on standard error");
  app.add_flag("--no-table", no_table, "no matrix on standard output");
  if (int rc = cli::Parse(app, argc, argv); rc != cli::kContinue) return rc;

  if (list_devices) {
    if (!input.empty()) return Usage("--list-devices takes no workload");
    if (!json_path.empty() && json_path != "-") return Usage("--list-devices prints on standard output (--json -)");
    std::cout << (json_path == "-" ? devices::ListJsonLines() : devices::ListText());
    return std::cout.flush() ? 0 : Fail(1, "standard output: write failed");
  }
  if (!process_args.empty()) {
    if (!input.empty()) return Usage("give a workload or --process, not both");
    if (process_args.size() < 2) return Usage("--process needs at least two processes");
    const devices::Device* device = devices::Find(devices_text);
    if (device == nullptr)
      return Usage("--process needs --devices with one GPU (" + devices::Names(devices::Kind::kGpu) + ")");
    if (!csv_path.empty() || !svg_path.empty() || !html_path.empty())
      return Usage("--process writes the table or --json");
    std::vector<fit::Process> processes;
    std::string error;
    for (const std::string& v : process_args) {
      fit::Process p;
      const size_t colon = v.find(':');
      p.policy = v.substr(0, colon);
      std::string rest = v.substr(colon + 1);
      // Settings after the last colon when they read NAME=VALUE (a path may hold colons, not '=' after one).
      const size_t last = rest.rfind(':');
      if (last != std::string::npos && rest.find('=', last) != std::string::npos) {
        for (const std::string& kv : SplitList(rest.substr(last + 1))) {
          const size_t eq = kv.find('=');
          if (eq == std::string::npos || eq == 0)
            return Usage("--process '" + v + "': setting '" + kv + "' is not NAME=VALUE");
          p.options[kv.substr(0, eq)] = kv.substr(eq + 1);
        }
        rest = rest.substr(0, last);
      }
      p.workload = rest;
      std::vector<std::string> names;  // Strata's contenders (contexts with quotas), then the GPU policies
      for (const compare::Contender& c : compare::AllContenders()) {
        if (c.strata) names.push_back(c.name);
      }
      for (const std::string& n : strata::OptionChoices("gpu-emu", "policy")) names.push_back(n);
      if (std::find(names.begin(), names.end(), p.policy) == names.end()) {
        std::string list;
        for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
        return Usage("--process '" + v + "': unknown policy '" + p.policy + "' (" + list + ")");
      }
      processes.push_back(std::move(p));
    }
    // --json is checked before any workload is read, and may be none of them (nor a file an XLA dump reads).
    if (!json_path.empty() && json_path != "-") {
      const std::string bad = tool::CheckWritableFile(json_path);
      if (!bad.empty()) return Fail(2, json_path + ": " + bad);
    }
    std::vector<tool::NamedFile> inputs;
    for (const fit::Process& p : processes) workload::AddImportInputs("the workload", p.workload, &inputs);
    if (const std::string clash = tool::CheckOutputsApart(inputs, {{"--json", json_path}}); !clash.empty()) {
      return Fail(2, clash);
    }
    for (fit::Process& p : processes) {
      workload::ImportStats stats;
      if (!workload::ImportFile(p.workload, format, import, &p.trace, &stats, &error)) return Fail(2, error);
      if (p.trace.buffers.empty()) return Fail(2, p.workload + ": the workload has no allocations");
    }
    fit::ProcessReport report;
    if (!fit::FitProcesses(processes, *device, options, &report, &error)) return Fail(2, error);
    if (!json_path.empty() && !WriteOut(json_path, fit::ProcessesJson(report), &error)) return Fail(1, error);
    if (!no_table && json_path != "-") std::cout << fit::ProcessesText(report);
    return std::cout.flush() ? 0 : Fail(1, "standard output: write failed");
  }
  if (input.empty()) return Usage("no workload");
  if (json_path == "-" && csv_path == "-") return Usage("--json - and --csv - both want standard output");
  if (svg_path == "-") return Usage("--svg writes a file, not standard output");
  if (html_path == "-") return Usage("--html writes a file, not standard output");
  if (no_table && json_path.empty() && csv_path.empty() && svg_path.empty() && html_path.empty()) {
    return Usage("--no-table leaves no output: add --json FILE, --csv FILE, --svg FILE or --html FILE");
  }
  if (!devices_text.empty()) {
    options.devices = SplitList(devices_text);
    for (const std::string& d : options.devices) {
      if (devices::Find(d) == nullptr) return Usage("unknown device '" + d + "' (" + devices::Names() + ")");
    }
  }
  if (!policies_text.empty()) options.contenders = SplitList(policies_text);
  options.search = !no_search;
  options.fixes = !no_fixes;
  for (const std::string* path : {&json_path, &csv_path, &svg_path, &html_path}) {
    if (!path->empty() && *path != "-") {
      const std::string bad = tool::CheckWritableFile(*path);
      if (!bad.empty()) return Fail(2, *path + ": " + bad);
    }
  }
  std::vector<tool::NamedFile> inputs;  // the workload and, for an XLA dump, the module files it may read
  workload::AddImportInputs("the workload", input, &inputs);
  if (const std::string clash = tool::CheckOutputsApart(
          inputs, {{"--json", json_path}, {"--csv", csv_path}, {"--svg", svg_path}, {"--html", html_path}});
      !clash.empty()) {
    return Fail(2, clash);
  }
  std::string error;
  replay::Trace trace;
  workload::ImportStats stats;
  if (!workload::ImportFile(input, format, import, &trace, &stats, &error)) return Fail(2, error);
  if (trace.buffers.empty()) return Fail(2, input + ": the workload has no allocations");
  // An XLA import carries shapes: the TPU columns get the buffers padded to the TPU's tiles (what a TPU compile
  // holds), the GPU columns keep XLA's sizes. --tpu-pad pads every column.
  replay::Trace padded;
  if (!import.xla.tpu_pad && !trace.shapes.empty()) {
    bool any_tpu = options.devices.empty();  // the default set has TPUs
    for (const std::string& d : options.devices) any_tpu = any_tpu || devices::Find(d)->kind == devices::Kind::kTpu;
    workload::ImportOptions pad = import;
    pad.xla.tpu_pad = true;
    workload::ImportStats ignored;
    if (any_tpu) {
      if (!workload::ImportFile(input, format, pad, &padded, &ignored, &error)) return Fail(2, error);
      options.tpu_trace = &padded;
    }
  }
  const auto start = std::chrono::steady_clock::now();
  if (!quiet) {
    options.progress = [start](const std::string& line) {
      if (std::chrono::steady_clock::now() - start >= std::chrono::seconds(2)) {
        std::fprintf(stderr, "strata-fit: %s\n", line.c_str());
      }
    };
  }
  fit::Report report;
  if (!fit::Fit(trace, stats.source, options, &report, &error)) {
    return error.rfind("unknown", 0) == 0 ? Usage(error) : Fail(2, error);
  }
  if (!json_path.empty() && !WriteOut(json_path, fit::ToJson(report), &error)) return Fail(1, error);
  if (!csv_path.empty() && !WriteOut(csv_path, fit::CsvHeader() + fit::ToCsv(report), &error)) return Fail(1, error);
  if (!svg_path.empty() && !WriteOut(svg_path, fit::ToSvg(report), &error)) return Fail(1, error);
  if (!html_path.empty()) {
    std::vector<compare::WorkloadReport> runs;
    if (!DeviceRuns(trace, stats.source, report, options, &runs, &error)) return Fail(3, error);
    if (!WriteOut(html_path, compare::ToHtml(runs, fit::ToJson(report)), &error)) return Fail(1, error);
  }
  if (!no_table && json_path != "-" && csv_path != "-") {
    std::cout << fit::ToTable(report);
    std::cout.flush();
    if (!std::cout) return Fail(1, "standard output: write failed");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return strata::cli::RunMain("strata-fit", Main, argc, argv); }
