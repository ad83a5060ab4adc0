// strata-replay: replays a buffer-lifetime trace through the firmware HBM allocator and reports footprint,
// failures and compaction traffic.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "names.h"
#include "regular_file.h"
#include "replay.h"
#include "strata/strata.hpp"
#include "text.h"
#include "tool_cli.h"
#ifdef STRATA_REPLAY_HAVE_WORKLOAD
#include "workload.h"
#endif
#ifdef STRATA_REPLAY_HAVE_SIM
#include "sim_replay.h"
#endif
#ifdef STRATA_REPLAY_HAVE_GPU
#include "devices.h"
#include "gpu_replay.h"
#include "policy.h"
#endif

namespace {

// The sim backend's HBM presets and the GPU backends' policies, as the driver lists them (strata_get_backend_options):
// empty where this build has no such backend.
std::vector<std::string> HbmPresets() { return strata::OptionChoices("sim", "hbm_preset"); }
std::vector<std::string> GpuPolicies() { return strata::OptionChoices("gpu-emu", "policy"); }

// --list-options BACKEND: every open option of a backend as the driver describes it (strata_get_backend_options), so a
// backend, preset or policy the driver gains is listed here with no edit. Text, or one JSON object a line.
int ListOptions(const std::string& backend, bool json) {
  std::vector<strata::OptionInfo> options;
  try {
    options = strata::BackendOptions(backend);
  } catch (const strata::Error& e) {
    return strata::cli::Usage("strata-replay", std::string("--list-options: ") + e.what());
  }
  static const char* const kTypes[] = {"string", "int64", "double", "bool"};
  for (const strata::OptionInfo& o : options) {
    const char* type = o.type >= 0 && o.type <= STRATA_VALUE_BOOL ? kTypes[o.type] : "unknown";
    if (json) {
      strata::tool::Json line = {{"backend", backend}, {"name", o.name}, {"type", type}};
      switch (o.type) {
        case STRATA_VALUE_INT64:
          line["default"] = o.default_int64;
          break;
        case STRATA_VALUE_DOUBLE:
          line["default"] = o.default_double;
          break;
        case STRATA_VALUE_BOOL:
          line["default"] = o.default_bool;
          break;
        default:
          line["default"] = o.default_value;
      }
      line["choices"] = o.choices;
      line["help"] = o.help;
      std::printf("%s\n", strata::tool::JsonLine(line).c_str());
    } else {
      const std::string shown = o.type == STRATA_VALUE_BOOL ? (o.default_bool ? "true" : "false")
                                : o.default_value.empty()   ? "none"
                                                            : o.default_value;
      std::string head = o.name + " (" + type + ", default " + shown;
      if (!o.choices.empty()) head += "; " + strata::tool::JoinNames(o.choices, ", ", " or ");
      std::printf("%s)\n    %s\n", head.c_str(), strata::tool::Printable(o.help).c_str());
    }
  }
  return std::fflush(stdout) == 0 ? 0 : 1;
}

// The usage line; the backends and HBM presets come from their tables (ReplayBackends, the driver's).
std::string Synopsis() {
  using strata::tool::JoinNames;
  using strata::tool::NamesOf;
  return "strata-replay TRACE.csv [--backend " + JoinNames(NamesOf(strata::replay::ReplayBackends()), "|", "|") +
         "] [--policy P]\n"
         "                     [--compaction off|on-oom] [--capacity BYTES|<F>x|GPU] [--granule BYTES]\n"
         "                     [--max-events N] [--hbm " +
         (HbmPresets().empty() ? std::string("PRESET") : JoinNames(HbmPresets(), "|", "|")) +
         "] [--firmware ELF]\n"
         "                     [--option NAME=VALUE]... [--series FILE.csv] [--timeline FILE.json] [--json]\n"
         "                     [--check] [--verbose]";
}

// --backend's help: each backend of the table with what a run on it does.
std::string BackendsHelp() {
  std::string help;
  for (const strata::replay::ReplayBackend& b : strata::replay::ReplayBackends()) {
    const bool is_default = std::string(b.name) == strata::replay::kDefaultReplayBackend;
    help += (help.empty() ? "" : "\n") + std::string(b.name) + (is_default ? " (default)" : "") + ": " + b.help;
  }
  return help;
}
constexpr const char* kDescription =
    "Replays a buffer-lifetime trace (CSV header id,lower,upper,size; see tests/data/traces/README.md)\n"
    "through the Strata firmware HBM allocator: at each time, buffers whose upper bound is reached\n"
    "are freed, then buffers whose lower bound is reached are allocated, in file order.";
constexpr const char* kFooter =
    "Exit status: 0 when every allocation succeeded, 1 when some failed, 2 on bad usage or input,\n"
    "3 when the sim, gpu-emu or cuda backend failed (firmware missing, no GPU, device error, bad policy\n"
    "setting).";

int Usage(const std::string& message) { return strata::cli::Usage("strata-replay", message); }

// --format (strata-import's formats, docs/workloads.md); "" reads a trace CSV, or an XLA dump directory.
std::string g_format;

// The trace CSV, or with the importers any workload format (an XLA dump directory: docs/jax.md).
bool LoadWorkload(const std::string& path, strata::replay::Trace* trace, std::string* error) {
#ifdef STRATA_REPLAY_HAVE_WORKLOAD
  namespace wl = strata::workload;
  wl::Format format = wl::Format::kAuto;
  struct stat st {};
  const bool dir = ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  if ((!g_format.empty() && wl::ParseFormat(g_format, &format) && format != wl::Format::kCsv) || dir ||
      wl::IsXlaProtoName(path)) {  // an XLA protobuf dump (*.pb) by its name
    wl::ImportStats stats;
    return wl::ImportFile(path, format, wl::ImportOptions{}, trace, &stats, error);
  }
#endif
  return strata::replay::LoadTrace(path, trace, error);
}

int LoadOrFail(const std::string& path, strata::replay::Trace* trace) {
  std::string error;
  if (!LoadWorkload(path, trace, &error)) {
    std::fprintf(stderr, "strata-replay: %s\n", error.c_str());
    return 2;
  }
  return 0;
}

// --backend gpu-emu|cuda: the trace through the C API on an emulated or a real GPU under a framework's policy.
int RunGpu(const std::string& trace_path, const std::string& backend, const std::string& policy,
           const std::string& capacity_text, const std::map<std::string, std::string>& named,
           const strata::replay::ReplayOptions& options, const std::string& series_path, bool json) {
#ifndef STRATA_REPLAY_HAVE_GPU
  (void)trace_path, (void)policy, (void)capacity_text, (void)named, (void)options, (void)series_path, (void)json;
  std::fprintf(stderr, "strata-replay: --backend %s: this build has no GPU backends\n", backend.c_str());
  return 2;
#else
#ifndef STRATA_REPLAY_HAVE_CUDA
  if (backend == "cuda") {
    std::fprintf(stderr,
                 "strata-replay: --backend cuda: this build has no cuda backend (CMake found no CUDA toolkit, or "
                 "STRATA_WITH_CUDA=OFF)\n");
    return 2;
  }
#endif
  if (options.check_every_op) return Usage("--check runs on the host allocator only");
  if (backend == "cuda" && !capacity_text.empty()) {
    return Usage(
        "--capacity is the emulated GPU's size; --backend cuda replays on the real GPU's memory "
        "(--option context_bytes=N holds memory back)");
  }
  if (!series_path.empty()) {
    const std::string why = strata::tool::CheckWritableFile(series_path);
    if (!why.empty()) {
      std::fprintf(stderr, "strata-replay: --series %s: cannot write it: %s\n", series_path.c_str(), why.c_str());
      return 2;
    }
  }
  strata::replay::Trace trace;
  if (int rc = LoadOrFail(trace_path, &trace)) return rc;
  strata::replay::GpuReplayOptions go;
  go.backend = backend;
  go.policy = policy;
  go.options = named;
  go.max_events = options.max_events;
  go.defragment_on_oom = options.compaction_on_oom;
  if (!capacity_text.empty()) {
    std::string error;
    const uint64_t max_load = strata::replay::MaxLoad(trace, 256);
    const bool numeric = !capacity_text.empty() &&
                         (std::isdigit(static_cast<unsigned char>(capacity_text[0])) || capacity_text[0] == '.');
    if (numeric) {
      if (!strata::replay::ParseCapacity(capacity_text, max_load, 256, &go.total_bytes, &error)) return Usage(error);
      if (go.options.count("context_bytes") == 0) go.options["context_bytes"] = "0";
    } else {
      go.gpu = capacity_text;
    }
  }
  // The series is written under a temporary name and put in place once complete: a failed run leaves the old file.
  strata::tool::ReplacingFile series;
  if (!series_path.empty()) {
    if (const std::string why = series.Open(series_path); !why.empty()) {
      std::fprintf(stderr, "strata-replay: --series %s: cannot write it: %s\n", series_path.c_str(), why.c_str());
      return 2;
    }
    std::FILE* file = series.get();
    std::fputs(strata::replay::GpuSeriesHeader().c_str(), file);
    go.series = [file](const strata::replay::GpuSeriesRow& row) {
      std::fputs(strata::replay::GpuSeriesCsv(row).c_str(), file);
    };
  }
  strata::replay::GpuReplayResult r;
  std::string error;
  const bool ok = strata::replay::GpuReplay(trace, go, &r, &error);
  if (!series_path.empty() && ok) {
    if (const std::string why = series.Commit(); !why.empty()) {
      std::fprintf(stderr, "strata-replay: --series %s: write failed: %s\n", series_path.c_str(), why.c_str());
      return 2;
    }
  }
  if (!ok) {
    std::fprintf(stderr, "strata-replay: %s: %s backend: %s\n", trace_path.c_str(), backend.c_str(), error.c_str());
    return 3;
  }
  if (json) {
    strata::tool::Json line = {{"trace", trace.name}};
    line.update(strata::replay::GpuJsonObject(r));
    std::printf("%s\n", strata::tool::JsonLine(line).c_str());
  } else {
    std::printf("trace %s (%zu buffers, max load %.2f MiB)\n%s", strata::tool::Printable(trace.name).c_str(),
                trace.buffers.size(), strata::replay::MaxLoad(trace, 256) / 1048576.0,
                strata::replay::GpuTable(r).c_str());
  }
  return r.run.failed_allocs != 0 ? 1 : 0;
#endif
}

// --policy's help: the host allocator's policies, then the GPU policies this build has (the driver's list, default
// marked), wrapped to the other options' width.
std::string PolicyHelp() {
  std::string help = "host: placement policy (default tlsf; the firmware uses tlsf)";
  const std::vector<std::string> names = GpuPolicies();
  if (names.empty()) return help;
  const std::string default_policy = strata::OptionDefault("gpu-emu", "policy");
  std::string line = "gpu-emu, cuda:";
  std::vector<std::string> words;
  for (size_t i = 0; i < names.size(); ++i) {
    words.push_back(names[i] + (names[i] == default_policy ? " (default)" : "") + (i + 1 < names.size() ? "," : ";"));
  }
  for (const char* w : {"each", "reads", "its", "framework's"}) words.emplace_back(w);
  for (const std::string& w : words) {
    if (line.size() + 1 + w.size() > 76) {
      help += "\n" + line;
      line = w;
    } else {
      line += " " + w;
    }
  }
  help += "\n" + line + "\nenvironment variables (XLA_PYTHON_CLIENT_*, TF_*, PYTORCH_CUDA_ALLOC_CONF)";
  return help;
}

// What the command line asks for.
struct Settings {
  std::string trace_path, capacity_text, backend = "host", hbm_preset, firmware_path, series_path;
  strata::replay::ReplayOptions options;
  std::string policy_text;
  CLI::Option* policy_opt = nullptr;  // counted: whether --policy was given
  std::map<std::string, std::string> named_options;
  bool json = false, granule_given = false, list_devices = false;
  std::string list_options;

  bool policy_given() const { return policy_opt->count() != 0; }
  bool sim() const { return backend == "sim"; }
  bool gpu() const { return backend == "gpu-emu" || backend == "cuda"; }
  std::string named(const char* name) const {
    const auto it = named_options.find(name);
    return it == named_options.end() ? std::string() : it->second;
  }
};

// The trace, its format, the backend and what the run does.
void AddRunOptions(CLI::App& app, Settings* s) {
  app.add_option("TRACE.csv", s->trace_path, "the trace: CSV with the header id,lower,upper,size");
#ifdef STRATA_REPLAY_HAVE_WORKLOAD
  strata::cli::AddTaken(
      app, "--format", "F",
      [](const std::string& v) -> std::string {
        strata::workload::Format f;
        if (!strata::workload::ParseFormat(v, &f)) return strata::workload::UnknownFormat(v);
        g_format = v;
        return "";
      },
      "the trace's format as strata-import reads it (default csv; a directory is\n"
      "an XLA dump): " +
          strata::tool::JoinNames(strata::tool::NamesOf(strata::workload::Formats())) + " (docs/jax.md)");
#endif
  strata::cli::AddTaken(
      app, "--backend", "B",
      [s](const std::string& v) -> std::string {
        s->backend = v;
        return strata::tool::UnknownName("backend", v, strata::tool::NamesOf(strata::replay::ReplayBackends()));
      },
      BackendsHelp());
  s->policy_opt = app.add_option("--policy", s->policy_text, PolicyHelp())->type_name("P");
  strata::cli::AddTaken(
      app, "--compaction", "M",
      [s](const std::string& v) -> std::string {
        if (v != "off" && v != "on-oom") return "unknown compaction mode '" + v + "' (off or on-oom)";
        s->options.compaction_on_oom = v == "on-oom";
        return "";
      },
      "off (default) or on-oom: when an allocation fails although enough memory\n"
      "is free in total, move as few bytes as possible to make room, then retry\n"
      "(gpu-emu: JAX's Defragment(), every live buffer through the host and back)");
  app.add_option("--capacity", s->capacity_text,
                 "heap size: BYTES (suffixes K M G T, KiB MiB GiB TiB) or <F>x, F times the\n"
                 "trace's max load (peak of live sizes rounded up to the granule).\n"
                 "Default: unbounded, and the footprint (highest address used) is reported;\n"
                 "with --backend sim: 1.0x (the model's HBM is sized to hold it).\n"
                 "gpu-emu: the GPU's total memory: BYTES, <F>x, or a GPU preset (h100-80g,\n"
                 "a100-40g, ...; default h100-80g). With BYTES or <F>x the CUDA context\n"
                 "takes nothing unless --option context_bytes=N says otherwise")
      ->type_name("C");
  strata::cli::AddRepeated(
      app, "--option", "N=V",
      [s](const std::string& v) -> std::string {
        const size_t eq = v.find('=');
        if (eq == std::string::npos || eq == 0) return "--option needs NAME=VALUE (got '" + v + "')";
        s->named_options[v.substr(0, eq)] = v.substr(eq + 1);
        return "";
      },
      "sim, gpu-emu, cuda: an open option (the backend's own or the policy's, e.g.\n"
      "mxu_n=8 (sim), mem_fraction=0.5, page_bytes=65536 (gpu-emu), device=1 (cuda));\n"
      "repeatable; overrides the environment");
  strata::cli::AddTaken(
      app, "--timeline", "FILE",
      [s](const std::string& v) -> std::string {
        if (v.empty()) return "--timeline needs a file name";
        s->named_options["timeline"] = v;
        return "";
      },
      "sim, gpu-emu, cuda: the device's run as a Perfetto timeline (trace-event JSON;\n"
      "docs/timelines.md); the same as --option timeline=FILE");
}

// The allocator's and the device's settings.
void AddDeviceOptions(CLI::App& app, Settings* s) {
  strata::cli::AddTaken(
      app, "--granule", "BYTES",
      [s](const std::string& v) -> std::string {
        uint64_t g = 0;
        if (!strata::cli::ParseDecimal(v, 1, strata::alloc::kMaxGranuleBytes, &g) || (g & (g - 1)) != 0) {
          return "--granule must be a power of two between 1 and 65536 (got '" + v + "')";
        }
        s->options.granule_bytes = static_cast<uint32_t>(g);
        s->granule_given = true;
        return "";
      },
      "allocation granule, a power of two <= 65536 (default 256; sim: 256 only)");
  strata::cli::AddTaken(
      app, "--max-events", "N",
      [s](const std::string& v) -> std::string {
        // Digits only (strata::cli::ParseDecimal): strtoull took " -5" as 2^64 - 5, "+3" and a wrapped 20 digits.
        uint64_t n = 0;
        if (!strata::cli::ParseDecimal(v, 1, UINT64_MAX, &n)) {
          return "--max-events must be a positive integer (got '" + v + "')";
        }
        s->options.max_events = n;
        return "";
      },
      "stop after N events (allocations + frees; a trace has 2 per buffer)");
  strata::cli::AddTaken(
      app, "--hbm", "PRESET",
      [s](const std::string& v) -> std::string {
        s->hbm_preset = v;
        // A build without the sim backend has no presets to check against: the combination check that follows
        // says --hbm needs --backend sim.
        const auto presets = HbmPresets();
        return presets.empty() ? "" : strata::tool::UnknownName("HBM preset", v, presets);
      },
      "sim: HBM preset (default " + strata::OptionDefault("sim", "hbm_preset") + ")");
  app.add_option("--firmware", s->firmware_path,
                 "sim: runtime firmware image (default $STRATA_RUNTIME_FIRMWARE, else the build's)")
      ->type_name("ELF");
}

// What the run writes, and the listings that run nothing.
void AddOutputOptions(CLI::App& app, Settings* s) {
  strata::cli::AddTaken(
      app, "--series", "FILE",
      [s](const std::string& v) -> std::string {
        if (v.empty()) return "--series needs a file name";
        s->series_path = v;
        return "";
      },
      "gpu-emu, cuda: after every event (allocation or free, in replay order) one CSV row:\n"
      "event,time,kind,buffer_id,size_bytes,live_bytes,in_use_bytes,reserved_bytes,oom\n"
      "live: the trace's live bytes as requested (failed buffers included); in_use and\n"
      "reserved: the policy's bytes_in_use and pool_bytes (what the framework holds\n"
      "from the device); oom: the failed allocation's kind or none. Every event, no\n"
      "sampling (bert_base.csv, 11,240 events: jax 0.02 s either way, jax-async\n"
      "0.04 s without, 0.06 s with: one strata_get_memory_stats per event);\n"
      "(strata-compare --json and scripts/plot_compare.py draw memory over time)");
  app.add_flag("--json", s->json, "print one JSON object instead of the table");
  app.add_flag("--check", s->options.check_every_op,
               "run the allocator's Check() after every operation (slow; host replay only)");
  app.add_flag("-v,--verbose", s->options.verbose,
               "one line on stderr per compaction: request, bytes moved, and what sliding\n"
               "every buffer down would have moved (sim: also the device cycles it took)");
  strata::cli::AddTaken(
      app, "--list-options", "BACKEND",
      [s](const std::string& v) -> std::string {
        s->list_options = v;
        return v.empty() ? "--list-options needs a backend" : "";
      },
      "print the open options BACKEND takes, as the driver describes them (type,\n"
      "default, the values it lists, help; with --json: one JSON object a line):\n"
      "what --option NAME=VALUE sets");
#ifdef STRATA_REPLAY_HAVE_GPU
  app.add_flag("--list-devices", s->list_devices,
               "print the table of devices --capacity NAME and the gpu-emu option gpu take\n"
               "(with --json: one JSON object a line)");
#endif
}

// Options that contradict the backend or each other: the usage error, or 0.
int CheckCombinations(Settings* s) {
  if (s->trace_path.empty()) return Usage("no trace given");
  if (!s->gpu() && !s->sim() && !s->named_options.empty()) {
    return Usage(s->named_options.count("timeline") ? "--timeline needs --backend sim, gpu-emu or cuda"
                                                    : "--option needs --backend sim, gpu-emu or cuda");
  }
  if (!s->gpu() && !s->series_path.empty()) return Usage("--series needs --backend gpu-emu or cuda");
  return 0;
}

// No output (--series, --timeline, the sim's waveform) may be what the run reads (the trace, an XLA dump's module
// files, the firmware) or another output: checked by file identity, before anything runs, on every backend.
int CheckOutputsApart(const Settings& s) {
  std::vector<strata::tool::NamedFile> inputs;
#ifdef STRATA_REPLAY_HAVE_WORKLOAD
  strata::workload::AddImportInputs("the trace", s.trace_path, &inputs);
#else
  inputs.push_back({"the trace", s.trace_path});
#endif
  inputs.push_back({"--firmware", s.firmware_path});
  inputs.push_back({"--option firmware_path", s.named("firmware_path")});
  if (const char* env = std::getenv("STRATA_RUNTIME_FIRMWARE"); env != nullptr && s.sim()) {
    inputs.push_back({"$STRATA_RUNTIME_FIRMWARE", env});
  }
  if (const std::string clash =
          strata::tool::CheckOutputsApart(inputs, {{"--series", s.series_path},
                                                   {"--timeline", s.named("timeline")},
                                                   {"--option trace_path", s.named("trace_path")}});
      !clash.empty()) {
    std::fprintf(stderr, "strata-replay: %s\n", clash.c_str());
    return 2;
  }
  return 0;
}

// The host and sim backends' settings checked (the policy, --hbm, --firmware; sim: tlsf, 256-byte granule, no
// --check, a capacity of 1.0x unless given): the usage error, or 0.
int CheckHostSettings(Settings* s) {
  strata::replay::ReplayOptions& options = s->options;
  if (s->policy_given() && !strata::alloc::ParsePolicy(s->policy_text.c_str(), &options.policy)) {
    return Usage(strata::replay::UnknownHostPolicy(s->policy_text, GpuPolicies(), "--backend gpu-emu"));
  }
  if (!s->sim() && !s->hbm_preset.empty()) return Usage("--hbm needs --backend sim");
  if (!s->sim() && !s->firmware_path.empty()) return Usage("--firmware needs --backend sim");
  if (s->sim()) {
#ifndef STRATA_REPLAY_HAVE_SIM
    std::fprintf(stderr,
                 "strata-replay: --backend sim: this build has no sim backend (it needs the Verilated model and "
                 "the firmware images: STRATA_BUILD_SIM and STRATA_BUILD_FIRMWARE_IMAGES)\n");
    return 2;
#endif
    if (s->policy_given() && options.policy != strata::alloc::Policy::kTlsf) {
      return Usage("--backend sim: the runtime firmware places with tlsf only (got --policy " +
                   std::string(strata::alloc::PolicyName(options.policy)) + ")");
    }
    if (s->granule_given && options.granule_bytes != strata::alloc::kDefaultGranuleBytes) {
      return Usage("--backend sim: the runtime firmware's granule is 256 bytes (got --granule " +
                   std::to_string(options.granule_bytes) + ")");
    }
    if (options.check_every_op) return Usage("--check runs on the host allocator only; drop it with --backend sim");
    if (s->capacity_text.empty()) s->capacity_text = "1.0x";
  }
  return 0;
}

#ifdef STRATA_REPLAY_HAVE_SIM
// --backend sim, after the host replay: the trace once more on the Strata model, its figures added to the host's
// (*json_line, *table, *failed). 0, or 3 when the model's run failed.
int RunSim(const Settings& s, const strata::replay::Trace& trace, bool tty, strata::tool::Json* json_line,
           std::string* table, bool* failed) {
  strata::replay::SimReplayOptions so = strata::replay::SimReplayOptionsFrom(s.options);
  if (!s.hbm_preset.empty()) so.hbm_preset = s.hbm_preset;
  so.firmware_path = s.firmware_path;
  so.named_options.assign(s.named_options.begin(), s.named_options.end());
  // Progress: every 2 s of wall time once a run has lasted 2 s (rewritten in place on a terminal).
  double next_report = 2.0;
  bool printed = false;
  so.progress = [&](const strata::replay::SimReplayOptions::Progress& p) {
    if (p.wall_seconds < next_report) return;
    next_report = p.wall_seconds + 2.0;
    printed = true;
    std::fprintf(stderr,
                 "%sstrata-replay: sim %s %llu/%llu events (%llu%%), %.1f M device cycles, %.3f GB moved, %.0f s%s",
                 tty ? "\r" : "", strata::tool::Printable(trace.name).c_str(),
                 static_cast<unsigned long long>(p.events_done), static_cast<unsigned long long>(p.events_total),
                 static_cast<unsigned long long>(p.events_done * 100 / std::max<uint64_t>(p.events_total, 1)),
                 p.device_cycles / 1e6, p.bytes_moved / 1e9, p.wall_seconds, tty ? "\033[K" : "\n");
  };
  so.long_call = [&](uint32_t line, uint64_t bytes, double seconds) {
    std::fprintf(stderr,
                 "%sstrata-replay: sim %s: the allocation at line %u (%llu B) has run for %.0f s "
                 "(compacting through the cycle-level HBM)%s",
                 tty ? "\r" : "", strata::tool::Printable(trace.name).c_str(), line,
                 static_cast<unsigned long long>(bytes), seconds, tty ? "\033[K" : "\n");
    printed = true;
  };
  strata::replay::SimReplayResult sr;
  std::string error;
  const bool sim_ok = strata::replay::SimReplay(trace, so, &sr, &error);
  if (printed && tty) std::fprintf(stderr, "\r\033[K");
  if (!sim_ok) {
    std::fprintf(stderr, "strata-replay: %s: sim backend: %s\n", s.trace_path.c_str(), error.c_str());
    return 3;
  }
  json_line->update(strata::replay::SimJsonObject(sr));
  *table = "host replay (allocator library, no device):\n" + *table + strata::replay::SimTable(sr);
  *failed = *failed || sr.run.failed_allocs != 0;
  return 0;
}
#endif

// The host replay (and with --backend sim, the model's after it): the table or the JSON line on stdout.
int RunHost(Settings* s) {
  strata::replay::ReplayOptions& options = s->options;
  strata::replay::Trace trace;
  std::string error;
  if (!LoadWorkload(s->trace_path, &trace, &error)) {
    std::fprintf(stderr, "strata-replay: %s\n", error.c_str());
    return 2;
  }
  if (!s->capacity_text.empty()) {
    const uint64_t max_load = strata::replay::MaxLoad(trace, options.granule_bytes);
    if (!strata::replay::ParseCapacity(s->capacity_text, max_load, options.granule_bytes, &options.capacity_bytes,
                                       &error)) {
      return Usage(error);
    }
  }
  // A progress line for long traces: rewritten in place on a terminal, a few plain lines otherwise.
  const bool tty = isatty(STDERR_FILENO);
  size_t last_quarter = 0;
  if (trace.buffers.size() >= 2000) {
    options.progress = [&](size_t done, size_t total) {
      if (tty) {
        std::fprintf(stderr, "\rstrata-replay: %s %zu/%zu events (%zu%%)", strata::tool::Printable(trace.name).c_str(),
                     done, total, done * 100 / total);
      } else if (done * 4 / total > last_quarter) {
        last_quarter = done * 4 / total;
        std::fprintf(stderr, "strata-replay: %s %zu/%zu events (%zu%%)\n", strata::tool::Printable(trace.name).c_str(),
                     done, total, done * 100 / total);
      }
    };
  }
  strata::replay::ReplayResult result;
  const bool ok = strata::replay::Replay(trace, options, &result, &error);
  if (options.progress && tty) std::fprintf(stderr, "\r\033[K");
  if (!ok) {
    std::fprintf(stderr, "strata-replay: %s: %s\n", s->trace_path.c_str(), error.c_str());
    return 2;
  }
  strata::tool::Json json_line = strata::replay::ToJsonObject(result);
  std::string table = strata::replay::ToTable(result);
  bool failed = result.failed_allocs != 0;
#ifdef STRATA_REPLAY_HAVE_SIM
  if (s->sim()) {
    if (int rc = RunSim(*s, trace, tty, &json_line, &table, &failed)) return rc;
  }
#endif
  if (s->json) {
    std::printf("%s\n", strata::tool::JsonLine(json_line).c_str());
  } else {
    std::fputs(table.c_str(), stdout);
  }
  return failed ? 1 : 0;
}

// The whole run; main wraps it.
int Main(int argc, char** argv) {
  Settings s;
  CLI::App app{kDescription, "strata-replay"};
  strata::cli::Setup(app, Synopsis(), kFooter);
  AddRunOptions(app, &s);
  AddDeviceOptions(app, &s);
  AddOutputOptions(app, &s);
  if (int rc = strata::cli::Parse(app, argc, argv); rc != strata::cli::kContinue) return rc;
  if (!s.list_options.empty()) {
    if (!s.trace_path.empty()) return Usage("--list-options takes no trace");
    return ListOptions(s.list_options, s.json);
  }
#ifdef STRATA_REPLAY_HAVE_GPU
  if (s.list_devices) {
    if (!s.trace_path.empty()) return Usage("--list-devices takes no trace");
    std::cout << (s.json ? strata::devices::ListJsonLines() : strata::devices::ListText());
    return std::cout.flush() ? 0 : 1;
  }
#endif
  if (int rc = CheckCombinations(&s)) return rc;
  if (int rc = CheckOutputsApart(s)) return rc;
  if (s.gpu()) {
    return RunGpu(s.trace_path, s.backend, s.policy_given() ? s.policy_text : "jax", s.capacity_text, s.named_options,
                  s.options, s.series_path, s.json);
  }
  if (int rc = CheckHostSettings(&s)) return rc;
  return RunHost(&s);
}

}  // namespace

// Host out of memory anywhere in the run: a message and exit status 1 (tool_cli.h), not an abort.
int main(int argc, char** argv) { return strata::cli::RunMain("strata-replay", Main, argc, argv); }
