// strata._tools: strata-replay's and strata-compare's libraries in-process (host/replay, host/compare). Each call
// returns the JSON (and CSV) text the tools print, which python/strata/tools.py parses: the figures are
// computed and named once, in those libraries. Runs release the GIL; they use no Python objects.
//
// A module of its own: a build without strata-compare (no nlohmann-json) still has `import strata`. Both modules
// call libstrata.so where the build has it (python/CMakeLists.txt), so a process has one driver.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "compare.h"
#include "devices.h"
#include "explain.h"
#include "gpu_replay.h"
#include "html_report.h"
#include "memory_viz.h"
#include "names.h"
#include "regular_file.h"
#include "replay.h"
#include "report.h"
#include "strata/strata.hpp"
#include "tpu.h"
#include "workload.h"
#include "xla_options.h"
#ifdef STRATA_PY_HAVE_SIM
#include "sim_replay.h"
#endif

namespace py = pybind11;

namespace {

// Input the caller got wrong (a trace that does not parse, a bad capacity or contender): ValueError.
[[noreturn]] void BadInput(const std::string& message) { throw py::value_error(message); }
// A run that could not happen (a backend that did not start, a device that failed): RuntimeError. A policy, GPU
// preset or option value the backend refuses (INVALID_ARGUMENT) is input, so BadInput.
[[noreturn]] void RunFailed(const std::string& message) { throw std::runtime_error(message); }

// A trace: a CSV file's path, or CSV text (id,lower,upper,size) named `name`.
strata::replay::Trace LoadTrace(const std::string& source, bool is_path, const std::string& name) {
  strata::replay::Trace trace;
  std::string error;
  if (is_path) {
    if (!strata::replay::LoadTrace(source, &trace, &error)) BadInput(error);
  } else {
    std::istringstream in(source);
    if (!strata::replay::ParseTrace(in, name, &trace, &error)) BadInput(name + ":" + error);
  }
  return trace;
}

bool Numeric(const std::string& capacity) {
  return !capacity.empty() && (std::isdigit(static_cast<unsigned char>(capacity[0])) || capacity[0] == '.');
}

// strata-replay --backend host [--json]; with sim also the model's fields (as --backend sim).
std::string ReplayStrata(const std::string& source, bool is_path, const std::string& name, bool sim,
                         const std::string& policy, bool compaction, const std::string& capacity, uint32_t granule,
                         uint64_t max_events, const std::string& hbm_preset, const std::string& firmware_path,
                         const std::map<std::string, std::string>& options) {
  const strata::replay::Trace trace = LoadTrace(source, is_path, name);
  strata::replay::ReplayOptions o;
  if (!policy.empty() && !strata::alloc::ParsePolicy(policy.c_str(), &o.policy)) {
    BadInput(
        strata::replay::UnknownHostPolicy(policy, strata::OptionChoices("gpu-emu", "policy"), "backend=\"gpu-emu\""));
  }
  if (granule != 0) {
    if ((granule & (granule - 1)) != 0 || granule > strata::alloc::kMaxGranuleBytes) {
      BadInput("granule must be a power of two between 1 and " + std::to_string(strata::alloc::kMaxGranuleBytes));
    }
    o.granule_bytes = granule;
  }
  if (sim && o.policy != strata::alloc::Policy::kTlsf) {
    BadInput(std::string("backend sim: the runtime firmware places with tlsf only (got policy ") +
             strata::alloc::PolicyName(o.policy) + ")");
  }
  if (sim && o.granule_bytes != strata::alloc::kDefaultGranuleBytes) {
    BadInput("backend sim: the runtime firmware's granule is " + std::to_string(strata::alloc::kDefaultGranuleBytes) +
             " bytes (got " + std::to_string(o.granule_bytes) + ")");
  }
  o.compaction_on_oom = compaction;
  o.max_events = max_events;
  std::string error;
  const std::string capacity_text = capacity.empty() && sim ? "1.0x" : capacity;
  if (!capacity_text.empty()) {
    const uint64_t max_load = strata::replay::MaxLoad(trace, o.granule_bytes);
    if (!strata::replay::ParseCapacity(capacity_text, max_load, o.granule_bytes, &o.capacity_bytes, &error)) {
      BadInput(error);
    }
  }
  std::string json;
  {
    py::gil_scoped_release nogil;
    strata::replay::ReplayResult r;
    if (!strata::replay::Replay(trace, o, &r, &error)) RunFailed(error);
    json = strata::replay::ToJson(r);
#ifdef STRATA_PY_HAVE_SIM
    if (sim) {
      strata::replay::SimReplayOptions so = strata::replay::SimReplayOptionsFrom(o);
      if (!hbm_preset.empty()) so.hbm_preset = hbm_preset;
      so.firmware_path = firmware_path;
      so.named_options.assign(options.begin(), options.end());
      strata::replay::SimReplayResult sr;
      if (!strata::replay::SimReplay(trace, so, &sr, &error)) RunFailed("sim backend: " + error);
      json.pop_back();  // the closing brace
      json += strata::replay::SimJsonFields(sr) + "}";
    }
#else
    (void)hbm_preset, (void)firmware_path, (void)options;
    if (sim) RunFailed("this build has no sim backend (STRATA_BUILD_SIM and STRATA_BUILD_FIRMWARE_IMAGES)");
#endif
  }
  return json;
}

// strata-replay --backend gpu-emu|cuda --json.
std::string ReplayGpu(const std::string& source, bool is_path, const std::string& name, const std::string& backend,
                      const std::string& policy, bool defragment, const std::string& capacity, uint64_t max_events,
                      const std::map<std::string, std::string>& options) {
  const strata::replay::Trace trace = LoadTrace(source, is_path, name);
  strata::replay::GpuReplayOptions go;
  go.backend = backend;
  go.policy = policy.empty() ? go.policy : policy;
  go.options = options;
  go.max_events = max_events;
  go.defragment_on_oom = defragment;
  if (!capacity.empty()) {
    if (backend == "cuda") BadInput("capacity is the emulated GPU's size; cuda replays on the real GPU's memory");
    std::string error;
    if (Numeric(capacity)) {
      const uint64_t max_load = strata::replay::MaxLoad(trace, strata::alloc::kDefaultGranuleBytes);
      if (!strata::replay::ParseCapacity(capacity, max_load, strata::alloc::kDefaultGranuleBytes, &go.total_bytes,
                                         &error)) {
        BadInput(error);
      }
      if (go.options.count("context_bytes") == 0) go.options["context_bytes"] = "0";
    } else {
      go.gpu = capacity;
    }
  }
  std::string error;
  strata::replay::GpuReplayResult r;
  {
    py::gil_scoped_release nogil;
    if (!strata::replay::GpuReplay(trace, go, &r, &error)) {
      if (r.options_refused) BadInput(backend + " backend: " + error);  // a policy, preset or value it does not know
      RunFailed(backend + " backend: " + error);
    }
  }
  return "{\"trace\":\"" + strata::tool::JsonEscape(trace.name) + "\"," + strata::replay::GpuJson(r).substr(1);
}

// strata-compare WORKLOAD --json - (and --csv -): one workload, a file in any format or CSV text.
std::pair<std::string, std::string> Compare(const std::string& source, bool is_path, const std::string& name,
                                            const std::string& format_text, int64_t device, const std::string& capacity,
                                            const std::string& contenders, const std::string& backend,
                                            const std::string& firmware_path, bool search, double resolution,
                                            const std::map<std::string, std::string>& gpu_options,
                                            const std::map<std::string, std::string>& xla_options,
                                            const std::string& html_path, const std::string& memory_viz_path,
                                            std::string memory_viz_contender) {
  strata::compare::Options options;
  std::string error;
  // html=: the page strata-compare --html writes, checked before anything runs (a long comparison must not be lost at
  // the end) and never over the workload it reads.
  if (!html_path.empty()) {
    const std::string bad = strata::tool::CheckWritableFile(html_path);
    if (!bad.empty()) BadInput("html: " + html_path + ": " + bad);
    std::vector<strata::tool::NamedFile> read;
    if (is_path) strata::workload::AddImportInputs("the workload", source, &read);
    const std::string clash = strata::tool::CheckOutputsApart(read, {{"html", html_path}});
    if (!clash.empty()) BadInput(clash);
    options.detail_points = strata::compare::kHtmlSeriesBands;
    options.record_places = true;
  }
  if (!strata::compare::ParseCapacitySpec(capacity, &options.capacity, &error)) BadInput(error);
  if (!strata::compare::ParseContenders(contenders, &options.contenders, &error)) BadInput(error);
  // memory_viz=: strata-compare --memory-viz's snapshot of one contender's run, checked as html= is.
  if (!memory_viz_contender.empty() && memory_viz_path.empty()) {
    BadInput("memory_viz_contender names what memory_viz= exports: give memory_viz too");
  }
  if (!memory_viz_path.empty()) {
    const std::string bad = strata::tool::CheckWritableFile(memory_viz_path);
    if (!bad.empty()) BadInput("memory_viz: " + memory_viz_path + ": " + bad);
    std::vector<strata::tool::NamedFile> read;
    if (is_path) strata::workload::AddImportInputs("the workload", source, &read);
    const std::string clash =
        strata::tool::CheckOutputsApart(read, {{"html", html_path}, {"memory_viz", memory_viz_path}});
    if (!clash.empty()) BadInput(clash);
    if (memory_viz_contender.empty()) {
      memory_viz_contender = strata::compare::DefaultMemoryVizContender(options.contenders);
    }
    const std::vector<std::string> names = strata::tool::NamesOf(options.contenders);
    if (std::find(names.begin(), names.end(), memory_viz_contender) == names.end()) {
      BadInput("memory_viz_contender '" + memory_viz_contender + "' is not among the contenders (" +
               strata::tool::JoinNames(names, ", ", ", ") + ")");
    }
  }
  const std::vector<std::string> strata_backends = strata::replay::StrataBackendNames();
  if (std::find(strata_backends.begin(), strata_backends.end(), backend) == strata_backends.end()) {
    BadInput("backend '" + backend + "': " + strata::tool::JoinNames(strata_backends, ", ", " or "));
  }
  if (!(resolution > 0) || resolution > 1) BadInput("resolution: a fraction of the max load in (0, 1]");
  options.strata_backend = backend;
  options.firmware_path = firmware_path;
  options.search = search;
  options.resolution = resolution;
  options.gpu_options = gpu_options;
  for (const strata::compare::Contender& c : options.contenders) {
    uint64_t page = 0;
    std::map<std::string, std::string> settings;
    if (!c.strata && !strata::compare::ApplyGpuOptions(options, c.policy, &page, &settings, &error)) {
      BadInput("options: " + error);
    }
  }
  strata::workload::Format format;
  if (!strata::workload::ParseFormat(format_text, &format)) {
    BadInput(strata::workload::UnknownFormat(format_text));
  }
  strata::workload::ImportOptions import;
  import.device = device;
  for (const auto& [option, value] : xla_options) {  // --xla-view, --xla-steps, --xla-module, --tpu-pad
    const std::string why = strata::workload::ApplyXlaOption(option, value, &import);
    if (!why.empty()) BadInput(why);
  }
  strata::replay::Trace trace;
  strata::workload::ImportStats stats;
  std::vector<strata::compare::WorkloadReport> reports(1);
  std::string json, csv, failed_output;
  {
    py::gil_scoped_release nogil;
    const bool imported = is_path ? strata::workload::ImportFile(source, format, import, &trace, &stats, &error)
                                  : strata::workload::Import(source, format, name, import, &trace, &stats, &error);
    if (!imported) BadInput(error);
    if (!strata::compare::CompareWorkload(trace, stats.source, options, &reports[0], &error)) RunFailed(error);
    json = strata::compare::ToJson(reports);
    csv = strata::compare::CsvHeader() + strata::compare::ToCsv(reports[0]);
    if (!memory_viz_path.empty()) {
      std::string snapshot;
      strata::compare::MemoryVizSummary summary;
      if (!strata::compare::MemoryVizSnapshot(trace, memory_viz_contender, reports[0], options, &snapshot, &summary,
                                              &error)) {
        RunFailed(error);
      }
      error = strata::tool::WriteTextFile(memory_viz_path, snapshot);
      if (!error.empty()) failed_output = "memory_viz: " + error;
    }
    if (failed_output.empty() && !html_path.empty()) {
      error = strata::tool::WriteTextFile(html_path, strata::compare::ToHtml(reports));
      if (!error.empty()) failed_output = "html: " + error;
    }
  }
  if (!failed_output.empty()) throw std::runtime_error(failed_output);  // OSError's kin: a file could not be written
  return {json, csv};
}

std::vector<std::string> Contenders() { return strata::tool::NamesOf(strata::compare::AllContenders()); }

// The TPU device presets (tpu.h: TpuPresets) as (name, HBM bytes per device) pairs, in table order.
std::vector<std::pair<std::string, uint64_t>> TpuPresets() {
  std::vector<std::pair<std::string, uint64_t>> presets;
  for (const strata::workload::TpuPreset& p : strata::workload::TpuPresets()) presets.emplace_back(p.name, p.hbm_bytes);
  return presets;
}

}  // namespace

namespace {

// strata-explain's reading of an OOM message (host/fit/explain.h), as its JSON line; `settings`: those already on
// (strata-explain --set), which no advice names. A message over 64 KiB
// (strata::fit::kMaxMessageBytes) is a ValueError, as any message it cannot read.
std::string Explain(const std::string& message, const std::string& device, const std::vector<std::string>& settings) {
  uint64_t total = 0, context = 0;
  if (!device.empty()) {
    const strata::devices::Device* d = strata::devices::Find(device);
    if (d == nullptr) BadInput("unknown device '" + device + "' (" + strata::devices::Names() + ")");
    total = d->total_bytes;
    context = d->context_bytes;
  }
  strata::fit::Explanation e;
  std::string error, json;
  bool read = false;
  {
    // Reading uses no Python object (the message is already a std::string): other threads run meanwhile.
    py::gil_scoped_release nogil;
    read = strata::fit::Explain(message, total, context, settings, &e, &error);
    if (read) json = strata::fit::ExplainJson(e);
  }
  if (!read) BadInput(error);
  return json;
}

}  // namespace

PYBIND11_MODULE(_tools, m) {
  m.doc() = "strata-replay and strata-compare in-process; use strata.replay and strata.compare.";
#ifdef STRATA_PY_HAVE_SIM
  m.attr("HAVE_SIM") = true;
#else
  m.attr("HAVE_SIM") = false;
#endif
  // The tables of names (host/tool/names.h): each list is defined once in C++, and Python reads it from there (the
  // GPU policies and HBM presets from the driver: strata.backend_options).
  m.def("contenders", &Contenders);
  m.def("explain", &Explain, py::arg("message"), py::arg("device"), py::arg("settings"));
  m.def("devices", &strata::devices::ListJsonLines);
  m.def("replay_backends", [] { return strata::tool::NamesOf(strata::replay::ReplayBackends()); });
  m.def("formats", [] { return strata::tool::NamesOf(strata::workload::Formats()); });
  m.def("tpu_presets", &TpuPresets);
  m.def("replay_strata", &ReplayStrata, py::arg("source"), py::arg("is_path"), py::arg("name"), py::arg("sim"),
        py::arg("policy"), py::arg("compaction"), py::arg("capacity"), py::arg("granule"), py::arg("max_events"),
        py::arg("hbm_preset"), py::arg("firmware_path"), py::arg("options"));
  m.def("replay_gpu", &ReplayGpu, py::arg("source"), py::arg("is_path"), py::arg("name"), py::arg("backend"),
        py::arg("policy"), py::arg("defragment"), py::arg("capacity"), py::arg("max_events"), py::arg("options"));
  m.def("compare", &Compare, py::arg("source"), py::arg("is_path"), py::arg("name"), py::arg("format"),
        py::arg("device"), py::arg("capacity"), py::arg("contenders"), py::arg("backend"), py::arg("firmware_path"),
        py::arg("search"), py::arg("resolution"), py::arg("gpu_options"), py::arg("xla_options"),
        py::arg("html_path") = "", py::arg("memory_viz_path") = "", py::arg("memory_viz_contender") = "");
}
