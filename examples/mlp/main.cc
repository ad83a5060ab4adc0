// strata-mlp: a small MLP inference service on the Strata model, through the host API only.
//
// Two tenants share the device, as two processes share a GPU, each with a quota:
//   serving  runs a 3-layer int8 MLP. Weights are uploaded once and stay; every step a request of random
//            batch size arrives: its input is uploaded, each layer allocates its output activation,
//            multiplies on the matrix unit (ReLU + requantization to int8 on the way out of the array) and
//            frees its input. The logits are held until a client collects them, 1..6 steps later, in
//            random order. Its quota is its worst case (ServingReservation): the weights, the largest
//            request's two live activations and the most logits that can wait at once.
//   batch    a background job that keeps buffers of random sizes for random, longer times. Its quota is
//            the rest of device memory; when it is at its quota, or memory is short, it waits.
// The quotas add up to the heap, so no tenant can starve the other: with defragment-on-OOM every allocation
// inside a quota succeeds. The mix of lifetimes and sizes still fragments device memory until an allocation
// fails for want of a contiguous block; the firmware then defragments on the spot (compaction with
// HBM->HBM DMA) and the request succeeds. When fragmentation passes --compact-at, the service also
// compacts explicitly.
// Every result is checked bit-exactly against a CPU reference of the same int8 network.
//
// usage: strata-mlp [--steps N] [--seed S] [--hbm-capacity BYTES] [--hbm PRESET] [--mxu-n N] [--trace FILE]
//                   [--trace-cycles START:END] [--report FILE] [--alloc-trace FILE.csv] [--quiet] [--help]
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "alloc_trace.h"
#include "hbm/hbm_config.h"
#include "names.h"
#include "regular_file.h"
#include "strata/named_options.hpp"
#include "strata/protocol.h"
#include "strata/reference_gemm.h"
#include "strata/strata.hpp"
#include "tool_cli.h"

namespace {

constexpr uint64_t kKiB = 1024, kMiB = 1024 * 1024;

struct Options {
  int steps = 24;
  uint32_t seed = 1;
  uint64_t hbm_capacity = 4 * kMiB;
  std::string hbm = strata::hbm::kDefaultHbmPreset;
  int64_t mxu_n = 16;  // the sim backend's option mxu_n: the chip's matrix unit is N x N
  std::string trace = "out/mlp.fst";
  uint64_t trace_start = 0, trace_end = 0;  // 0, 0: the window follows the first GEMM (kFirstGemmTraceCycles)
  std::string report = "out/mlp-report.json";
  std::string alloc_trace;  // "": none
  double compact_at = 0.6;  // explicit compaction when fragmentation exceeds this
  bool quiet = false;
  std::string backend = "sim";
  std::vector<std::string> options;  // NAME=VALUE open options (--option, --policy)
  std::string sim_only;              // the first sim-only flag given, to refuse it on another backend
};

constexpr const char* kDescription =
    "Runs a 3-layer int8 MLP inference service (256-1024-256-64) on the Strata model through the host API,\n"
    "with a second tenant churning memory, until device memory fragments and is compacted; checks every\n"
    "result against a CPU reference and prints a report.";
constexpr const char* kFooter = "Exit status: 0 all results match, 1 a mismatch or device error, 2 bad arguments.";

// --hbm-capacity's range: what the service needs at least, and the most HBM the runtime firmware manages.
constexpr uint64_t kMinHbmCapacity = 3 * kMiB;
constexpr uint64_t kMaxHbmCapacity = STRATA_RT_MAX_HBM_BYTES;

// Decimal digits and an optional K/M/G/T suffix, as documented (strtoull's base 0 took hex and read "010" as 8).
// "" with *out set, else the message: a malformed size, or one out of range with the bound it passed ("1T" read
// "at least 3M" when T was no suffix; a too-large size now names the upper bound).
std::string ParseCapacity(const std::string& s, uint64_t* out) {
  std::string_view digits = s;
  uint64_t mult = 1;
  if (!digits.empty()) {
    const char unit = digits.back();
    mult = unit == 'K' || unit == 'k'   ? kKiB
           : unit == 'M' || unit == 'm' ? kMiB
           : unit == 'G' || unit == 'g' ? kMiB * 1024
           : unit == 'T' || unit == 't' ? kMiB * 1024 * 1024
                                        : 1;
    if (mult != 1) digits.remove_suffix(1);
  }
  const std::string range = "from 3M to 1T (1024G, the most the runtime firmware manages)";
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos) {
    return "--hbm-capacity wants a size like 6M (digits and a K, M, G or T suffix, " + range + "), not '" + s + "'";
  }
  uint64_t v = 0, bytes = 0;
  if (!strata::cli::ParseDecimal(digits, 0, UINT64_MAX, &v) || !strata::cli::MultiplyChecked(v, mult, &bytes) ||
      bytes > kMaxHbmCapacity) {
    return "--hbm-capacity wants a size of at most 1T (1024G, the most the runtime firmware manages), not '" + s + "'";
  }
  if (bytes < kMinHbmCapacity) return "--hbm-capacity wants a size of at least 3M (like 6M), not '" + s + "'";
  *out = bytes;
  return "";
}

// An output file option: FILE, or 'none' for no file (an empty path).
CLI::Option* AddOutputFile(CLI::App& app, const std::string& name, const std::string& value_name, std::string* out,
                           const std::string& help) {
  return strata::cli::AddTaken(
      app, name, value_name,
      [out](const std::string& v) -> std::string {
        *out = v == "none" ? "" : v;
        return "";
      },
      help);
}

// kContinue, 0 after --help, 2 on bad arguments (message printed).
int ParseArgs(int argc, char** argv, Options* o) {
  CLI::App app{kDescription, "strata-mlp"};
  strata::cli::Setup(app, "strata-mlp [options]", kFooter);
  using strata::cli::AddTaken;
  AddTaken(
      app, "--steps", "N",
      [o](const std::string& v) -> std::string {
        uint64_t n = 0;
        if (!strata::cli::ParseDecimal(v, 1, 100000, &n)) return "--steps wants 1 .. 100000, not '" + v + "'";
        o->steps = static_cast<int>(n);
        return "";
      },
      "inference requests to serve (default 24)");
  AddTaken(
      app, "--seed", "S",
      [o](const std::string& v) -> std::string {
        // Decimal 0 .. 2^32 - 1: strtoul ran "-1" as seed 4294967295 and took hex.
        uint64_t seed = 0;
        if (!strata::cli::ParseDecimal(v, 0, UINT32_MAX, &seed)) return "--seed wants 0 .. 4294967295, not '" + v + "'";
        o->seed = static_cast<uint32_t>(seed);
        return "";
      },
      "random seed for weights, inputs, batch sizes and lifetimes (default 1)");
  CLI::Option* capacity = AddTaken(
      app, "--hbm-capacity", "BYTES",
      [o](const std::string& v) -> std::string { return ParseCapacity(v, &o->hbm_capacity); },
      "device memory, K/M/G/T suffixes (default 4M; a multiple of 256K, 3M to 1T)");
  CLI::Option* hbm = app.add_option("--hbm", o->hbm,
                                    strata::tool::ChoicesWithDefault(strata::tool::NamesOf(strata::hbm::HbmPresets()),
                                                                     strata::hbm::kDefaultHbmPreset, ", "))
                         ->type_name("PRESET");
  CLI::Option* mxu_n = AddTaken(
      app, "--mxu-n", "N",
      [o](const std::string& v) -> std::string {  // the sizes this build has are the sim backend's to check
        uint64_t n = 0;
        if (!strata::cli::ParseDecimal(v, 1, INT64_MAX, &n))
          return "--mxu-n wants an array size (like 8, 16 or 32), not '" + v + "'";
        o->mxu_n = static_cast<int64_t>(n);
        return "";
      },
      "the chip with an N x N matrix unit (default 16; 8 and 32 are built too)");
  CLI::Option* trace = AddOutputFile(app, "--trace", "FILE", &o->trace,
                                     "waveform (.fst or .vcd; default out/mlp.fst; 'none' for no waveform)");
  CLI::Option* trace_cycles = AddTaken(
      app, "--trace-cycles", "START:END",
      [o](const std::string& v) -> std::string {
        uint64_t s = 0, e = 0;
        const size_t colon = v.find(':');
        if (colon == std::string::npos ||
            !strata::cli::ParseDecimal(std::string_view(v).substr(0, colon), 0, UINT64_MAX, &s) ||
            !strata::cli::ParseDecimal(std::string_view(v).substr(colon + 1), 0, UINT64_MAX, &e) || e <= s) {
          return "--trace-cycles wants START:END with END > START, not '" + v + "'";
        }
        o->trace_start = s;
        o->trace_end = e;
        return "";
      },
      "device cycles to record (default: the first GEMM's, from the cycle it is\n"
      "issued, 12000 cycles: its operands' DMA and the start of the matrix unit)");
  AddOutputFile(app, "--report", "FILE", &o->report, "JSON report (default out/mlp-report.json; 'none' for no file)");
  AddOutputFile(app, "--alloc-trace", "FILE.csv", &o->alloc_trace,
                "the service's device allocations as a buffer-lifetime trace (id,lower,upper,\n"
                "size) for strata-replay and strata-compare (default: none; docs/runtime.md)");
  AddTaken(
      app, "--compact-at", "F",
      [o](const std::string& v) -> std::string {
        if (!strata::cli::ParseReal(v, 0, 1, &o->compact_at)) {
          return "--compact-at wants a fraction 0 .. 1, not '" + v + "'";
        }
        return "";
      },
      "compact explicitly when fragmentation exceeds F (default 0.6; 1 = never)");
  app.add_option("--backend", o->backend, "sim (default), gpu-emu or cuda: the same service on an (emulated) GPU")
      ->type_name("NAME");
  // The open options, in the order given (a later one overrides): --policy P and --timeline F are policy=P and
  // timeline=F.
  std::vector<std::pair<CLI::Option*, std::string>> open_options;
  open_options.emplace_back(app.add_option("--policy",
                                           "GPU backends: the framework's allocation policy (jax, tf,\n"
                                           "torch, ...; docs/gpu-policies.md)")
                                ->type_name("P")
                                ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll),
                            "policy=");
  open_options.emplace_back(
      app.add_option("--timeline", "the run as a Perfetto timeline (docs/timelines.md; the open option timeline)")
          ->type_name("FILE.json")
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll),
      "timeline=");
  open_options.emplace_back(
      app.add_option("--option", "any open option of the backend (repeatable; strata_get_backend_options)")
          ->type_name("NAME=VALUE")
          ->allow_extra_args(false)
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll),
      "");
  app.add_flag("--quiet", o->quiet, "no progress lines on stderr");
  if (int rc = strata::cli::Parse(app, argc, argv); rc != strata::cli::kContinue) return rc;
  // Walk the command line in order: the open options as given, and the first sim-only option (refused on another
  // backend; "--trace none", no waveform, suits every backend).
  std::map<const CLI::Option*, size_t> taken;
  for (const CLI::Option* opt : app.parse_order()) {
    const size_t k = taken[opt]++;
    for (const auto& [open, prefix] : open_options) {
      if (opt == open) o->options.push_back(prefix + open->results().at(k));
    }
    const bool sim_only = opt == capacity || opt == hbm || opt == mxu_n || opt == trace_cycles ||
                          (opt == trace && opt->results().at(k) != "none");
    if (sim_only && o->sim_only.empty()) o->sim_only = opt->get_name();
  }
  return strata::cli::kContinue;
}

struct Layer {
  uint32_t in, out;
  bool relu_int8;  // hidden layers: ReLU + requantize to int8; the last layer keeps int32 logits
  int32_t quant_mult;
  uint32_t quant_shift;
};
// Requantization scales keep typical activations inside int8 (a few saturate, as in real int8 nets).
const Layer kLayers[] = {{256, 1024, true, 3, 12}, {1024, 256, true, 5, 14}, {256, 64, false, 0, 0}};
constexpr uint32_t kMinBatch = 16, kMaxBatch = 192;
constexpr int kMaxWaitSteps = 6;  // a client collects its logits 1..6 steps after the request
// The default waveform: this many cycles from the first GEMM's issue (its operands' DMA, then the matrix unit's
// first two column blocks and the first results written back; about 17 MB of FST).
constexpr uint64_t kFirstGemmTraceCycles = 12'000;

// The serving tenant's worst case in bytes (each buffer rounded up to the allocator's granule): the weights,
// the largest request's input and output of its largest layer, and the logits of the kMaxWaitSteps - 1
// earlier requests that may still be waiting for their clients.
uint64_t ServingReservation(uint64_t granule) {
  auto rounded = [granule](uint64_t bytes) { return (bytes + granule - 1) / granule * granule; };
  uint64_t weights = 0, peak = 0, in_bytes = 1;  // the first layer's input is int8
  for (const Layer& l : kLayers) {
    const uint64_t out_bytes = l.relu_int8 ? 1 : 4;
    weights += rounded(uint64_t{l.in} * l.out);
    peak = std::max(peak,
                    rounded(uint64_t{kMaxBatch} * l.in * in_bytes) + rounded(uint64_t{kMaxBatch} * l.out * out_bytes));
    in_bytes = out_bytes;
  }
  const Layer& last = kLayers[std::size(kLayers) - 1];
  const uint64_t logits = rounded(uint64_t{kMaxBatch} * last.out * 4);
  return weights + peak + (kMaxWaitSteps - 1) * logits;
}

std::string Mib(uint64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f MiB", bytes / double(kMiB));
  return b;
}

struct Snapshot {  // allocator state for the report
  strata_memory_stats s;
  nlohmann::ordered_json Json() const {
    return {{"bytes_in_use", s.bytes_in_use},
            {"bytes_free", s.bytes_free},
            {"largest_free_block_bytes", s.largest_free_block_bytes},
            {"fragmentation", s.fragmentation},
            {"live_buffers", s.live_buffers}};
  }
  std::string Text() const {
    char b[256];
    std::snprintf(b, sizeof b, "in use %s, free %s, largest free block %s, fragmentation %.2f, %u buffers",
                  Mib(s.bytes_in_use).c_str(), Mib(s.bytes_free).c_str(), Mib(s.largest_free_block_bytes).c_str(),
                  s.fragmentation, s.live_buffers);
    return b;
  }
};

struct Held {  // logits waiting for their client
  strata::Buffer logits;
  std::vector<int32_t> want;
  uint32_t batch;
  int due_step;
};
struct Background {  // the batch job's buffers
  strata::Buffer buffer;
  int due_step;
};

int Run(const Options& o) {
  const auto wall0 = std::chrono::steady_clock::now();
  const bool tty = isatty(2) != 0;
  std::mt19937_64 rng(o.seed);
  auto int8_values = [&](size_t n) {
    std::vector<int8_t> v(n);
    for (auto& x : v) x = static_cast<int8_t>(rng());
    return v;
  };

  const bool sim = o.backend == "sim";
  strata_open_options open{};
  open.struct_size = sizeof open;
  if (sim) {
    open.hbm_preset = o.hbm.c_str();
    open.hbm_capacity_bytes = o.hbm_capacity;
    open.trace_path = o.trace.empty() ? nullptr : o.trace.c_str();
    // The default window follows the first GEMM (the sim backend's trace_from_first_gemm: the window counts
    // from the cycle the GEMM is issued), wherever the boot, the weight uploads and the input upload put it
    // for this seed, HBM, capacity and array size. --trace-cycles gives absolute cycles instead.
    open.trace_start_cycle = o.trace_end != 0 ? o.trace_start : 0;
    open.trace_end_cycle = o.trace_end != 0 ? o.trace_end : kFirstGemmTraceCycles;
  }
  const bool trace_follows_gemm = sim && !o.trace.empty() && o.trace_end == 0;
  std::unique_ptr<strata::Device> opened;
  try {
    strata::NamedOptions named(o.backend);
    if (sim) named.Add("mxu_n", std::to_string(o.mxu_n));
    if (trace_follows_gemm) named.Add("trace_from_first_gemm", "1");
    for (const std::string& text : o.options) named.AddText(text);
    open.named_options = named.data();
    open.num_named_options = named.size();
    opened = std::make_unique<strata::Device>(o.backend.c_str(), &open);
  } catch (const strata::Error& e) {  // an unknown backend, a bad option (HBM preset, waveform path, policy)
    std::fprintf(stderr, "strata-mlp: %s\n", e.what());
    return e.status() == STRATA_INVALID_ARGUMENT || e.status() == STRATA_UNIMPLEMENTED ? 2 : 1;
  }
  strata::Device& device = *opened;
  const strata_device_info info0 = device.Info();
  std::printf("Strata MLP inference: layers 256-1024-256-64 (int8, ReLU, requantized), batch %u..%u, %d requests\n",
              kMinBatch, kMaxBatch, o.steps);
  if (sim) {
    std::printf("device: sim backend, %s %s (heap %s), %ux%u matrix unit\n", o.hbm.c_str(),
                Mib(info0.hbm_capacity_bytes).c_str(), Mib(info0.heap_bytes).c_str(), info0.mxu_array_n,
                info0.mxu_array_n);
  } else {
    std::printf("device: %s backend, %s of memory (%s for the service's tenants)\n", info0.backend,
                Mib(info0.hbm_capacity_bytes).c_str(), Mib(info0.heap_bytes).c_str());
  }

  const uint64_t reservation = ServingReservation(info0.granule_bytes);
  if (reservation >= info0.heap_bytes) {
    std::fprintf(stderr,
                 "strata-mlp: the service needs %s of device heap but %s has %s: give a larger --hbm-capacity\n",
                 Mib(reservation).c_str(), Mib(info0.hbm_capacity_bytes).c_str(), Mib(info0.heap_bytes).c_str());
    return 2;
  }
  // Every allocation and free of the service goes through `alloc_trace`, which records the buffer-lifetime
  // trace (--alloc-trace); a buffer is never freed by going out of scope, except those live at the end.
  strata::mlp::AllocTrace alloc_trace;
  strata::Context serving = device.CreateContext(reservation);
  strata::Context batch_job = device.CreateContext(info0.heap_bytes - reservation);
  std::printf("tenants: serving quota %s (its worst case), batch job quota %s (the rest)\n", Mib(reservation).c_str(),
              Mib(info0.heap_bytes - reservation).c_str());

  // Weights: long-lived.
  std::vector<std::vector<int8_t>> weights;
  std::vector<strata::Buffer> weight_buffers;
  for (const Layer& l : kLayers) {
    weights.push_back(int8_values(uint64_t{l.in} * l.out));
    weight_buffers.push_back(alloc_trace.Alloc(serving, weights.back().size()));
    weight_buffers.back().Write(weights.back().data(), weights.back().size());
  }

  std::deque<Held> held;
  std::vector<Background> background;
  uint64_t gemm_cycles = 0, macs = 0, gemms = 0, explicit_compactions = 0, explicit_moved = 0, explicit_cycles = 0;
  uint64_t mismatches = 0, collected = 0, allocs = 0, batch_waits = 0;
  bool have_compaction_snapshot = false;
  Snapshot before_compaction{}, after_compaction{};
  const uint64_t compactions0 = device.MemoryStats().compactions;
  uint64_t first_gemm_cycle = 0;

  auto collect = [&](Held& h) {
    std::vector<int32_t> got(h.want.size());
    h.logits.Read(got.data(), got.size() * 4);
    for (size_t i = 0; i < got.size(); ++i) mismatches += got[i] != h.want[i];
    alloc_trace.Free(h.logits);
    ++collected;
  };

  for (int step = 0; step < o.steps; ++step) {
    // Clients collect the logits that are due, in whatever order they finish.
    for (auto it = held.begin(); it != held.end();) {
      if (it->due_step <= step) {
        collect(*it);
        it = held.erase(it);
      } else {
        ++it;
      }
    }
    // The batch job comes and goes.
    for (auto it = background.begin(); it != background.end();) {
      if (it->due_step <= step) {
        alloc_trace.Free(it->buffer);
        it = background.erase(it);
      } else {
        ++it;
      }
    }
    for (int k = 0; k < 3; ++k) {
      const uint64_t bytes = (32 + rng() % 224) * kKiB;
      try {
        background.push_back({alloc_trace.Alloc(batch_job, bytes), step + 2 + static_cast<int>(rng() % 10)});
        ++allocs;
      } catch (const strata::Error& e) {
        if (e.status() != STRATA_RESOURCE_EXHAUSTED) throw;  // at its quota or short of memory: it waits
        ++batch_waits;
      }
    }

    // One inference request.
    const uint32_t batch = kMinBatch + static_cast<uint32_t>(rng() % (kMaxBatch - kMinBatch + 1));
    std::vector<int8_t> x = int8_values(uint64_t{batch} * kLayers[0].in);
    strata::Buffer act = alloc_trace.Alloc(serving, x.size());
    ++allocs;
    act.Write(x.data(), x.size());
    std::vector<int32_t> want;
    for (size_t li = 0; li < std::size(kLayers); ++li) {
      const Layer& l = kLayers[li];
      const uint64_t out_bytes = uint64_t{batch} * l.out * (l.relu_int8 ? 1 : 4);
      strata::Buffer out = alloc_trace.Alloc(serving, out_bytes);
      ++allocs;
      if (step == 0 && li == 0) first_gemm_cycle = device.Info().device_cycles;
      serving.Gemm(act, weight_buffers[li], out, batch, l.out, l.in,
                   l.relu_int8 ? STRATA_GEMM_FLAG_RELU | STRATA_GEMM_FLAG_INT8 | STRATA_GEMM_FLAG_ROUND : 0,
                   l.quant_mult, l.quant_shift);
      gemm_cycles += device.Info().last_command_cycles;
      macs += uint64_t{batch} * l.in * l.out;
      ++gemms;
      alloc_trace.Free(act);  // the layer's input is dead
      act = std::move(out);
      // The CPU reference of the same layer.
      strata::reference::GemmSpec spec;
      spec.m = batch;
      spec.n = l.out;
      spec.k = l.in;
      spec.relu = spec.int8 = spec.round = l.relu_int8;
      spec.quant_mult = l.quant_mult;
      spec.quant_shift = l.quant_shift;
      want = strata::reference::Gemm(x.data(), weights[li].data(), nullptr, spec);
      if (l.relu_int8) x.assign(want.begin(), want.end());  // int8 values in int32: narrow for the next layer
    }
    held.push_back({std::move(act), std::move(want), batch, step + 1 + static_cast<int>(rng() % kMaxWaitSteps)});

    const strata_memory_stats s = serving.MemoryStats();
    if (s.fragmentation > o.compact_at && s.bytes_free > 0) {
      const Snapshot before{s};
      const strata_compact_result r = serving.Compact();
      ++explicit_compactions;
      explicit_moved += r.bytes_moved;
      explicit_cycles += r.device_cycles;
      if (!have_compaction_snapshot) {
        have_compaction_snapshot = true;
        before_compaction = before;
        after_compaction = Snapshot{serving.MemoryStats()};
      }
    }
    // Progress: one updating line on a terminal, a line per request otherwise.
    if (!o.quiet) {
      std::fprintf(stderr, "%sstrata-mlp: request %d/%d  batch %3u  in use %s  fragmentation %.2f  cycles %.1f M%s",
                   tty ? "\r" : "", step + 1, o.steps, batch, Mib(s.bytes_in_use).c_str(), s.fragmentation,
                   device.Info().device_cycles / 1e6, tty ? " " : "\n");
    }
  }
  if (!o.quiet && tty) std::fputc('\n', stderr);
  for (Held& h : held) collect(h);
  held.clear();

  const strata_memory_stats end = serving.MemoryStats();
  const strata_device_info info = device.Info();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const uint64_t oom_compactions = end.compactions - compactions0 - explicit_compactions;
  const uint64_t cycles = info.device_cycles;
  const double n2 = double(info.mxu_array_n) * info.mxu_array_n;
  const bool clocked = cycles != 0 && n2 != 0;  // the model has a clock and an array; a GPU backend neither
  const double util_gemm = clocked && gemm_cycles ? macs / (n2 * gemm_cycles) : 0;
  const double util_run = clocked ? macs / (n2 * cycles) : 0;
  const uint64_t hbm_bytes = info.hbm_bytes_read + info.hbm_bytes_written;
  const double hbm_bpc = clocked ? double(hbm_bytes) / cycles : 0;
  const uint64_t outputs = collected;

  std::printf("results      %" PRIu64 "/%d requests checked against the CPU reference: %s\n", outputs, o.steps,
              mismatches == 0 ? "all bit-exact" : "MISMATCH");
  if (mismatches != 0) std::printf("             %" PRIu64 " logits differ\n", mismatches);
  if (clocked) {
    std::printf("device       %.2f M cycles; %" PRIu64 " GEMMs took %.2f M cycles (%.1f G MACs)\n", cycles / 1e6, gemms,
                gemm_cycles / 1e6, macs / 1e9);
    std::printf("matrix unit  utilization %.2f during GEMMs, %.2f over the whole run (MACs / (N^2 x cycles))\n",
                util_gemm, util_run);
    std::printf("HBM          read %s, written %s: %.1f B/cycle = %.1f%% of %s peak (%.0f B/cycle)\n",
                Mib(info.hbm_bytes_read).c_str(), Mib(info.hbm_bytes_written).c_str(), hbm_bpc,
                100 * hbm_bpc / info.hbm_peak_bytes_per_cycle, o.hbm.c_str(), info.hbm_peak_bytes_per_cycle);
  } else {
    const strata_memory_stats all = device.MemoryStats();
    std::printf("device       %" PRIu64 " GEMMs (%.1f G MACs) on the %s backend: no device clock\n", gemms, macs / 1e9,
                info.backend);
    std::printf("GPU memory   pool %s (peak %s), %" PRIu64 " driver allocations, %s copied through the host\n",
                Mib(all.pool_bytes).c_str(), Mib(all.peak_pool_bytes).c_str(), all.device_allocs,
                Mib(all.host_bytes_copied).c_str());
  }
  std::printf("allocator    %" PRIu64 " allocations (the batch job waited %" PRIu64
              " times); defragment-on-OOM compactions %" PRIu64 "; explicit compactions %" PRIu64
              " (moved %s in %.2f M cycles); all compaction moved %s\n",
              allocs, batch_waits, oom_compactions, explicit_compactions, Mib(explicit_moved).c_str(),
              explicit_cycles / 1e6, Mib(end.compaction_bytes_moved).c_str());
  if (have_compaction_snapshot) {
    std::printf("  before the first explicit compaction: %s\n", before_compaction.Text().c_str());
    std::printf("  after it:                             %s\n", after_compaction.Text().c_str());
  } else {
    std::printf("  fragmentation never passed %.2f: no explicit compaction\n", o.compact_at);
  }
  std::printf("wall time    %.1f s (%.2f M device cycles/s)\n", wall, cycles / 1e6 / wall);
  // The waveform's window in device cycles (= waveform time in ns).
  const uint64_t trace_begin = trace_follows_gemm ? first_gemm_cycle : open.trace_start_cycle;
  const uint64_t trace_end = trace_follows_gemm ? first_gemm_cycle + kFirstGemmTraceCycles : open.trace_end_cycle;
  if (!o.report.empty()) {
    nlohmann::ordered_json r;
    r["example"] = "mlp";
    r["requests"] = o.steps;
    r["seed"] = o.seed;
    r["hbm"] = o.hbm;
    r["hbm_capacity_bytes"] = o.hbm_capacity;
    r["mxu_array_n"] = info.mxu_array_n;
    r["results_checked"] = outputs;
    r["mismatches"] = mismatches;
    r["device_cycles"] = cycles;
    r["gemms"] = gemms;
    r["gemm_cycles"] = gemm_cycles;
    r["macs"] = macs;
    r["mxu_utilization_in_gemm"] = util_gemm;
    r["mxu_utilization_run"] = util_run;
    r["hbm_bytes_read"] = info.hbm_bytes_read;
    r["hbm_bytes_written"] = info.hbm_bytes_written;
    r["hbm_bytes_per_cycle"] = hbm_bpc;
    r["hbm_peak_bytes_per_cycle"] = info.hbm_peak_bytes_per_cycle;
    r["allocations"] = allocs;
    r["batch_waits"] = batch_waits;
    r["serving_quota_bytes"] = reservation;
    r["batch_quota_bytes"] = info0.heap_bytes - reservation;
    r["defragment_on_oom"] = oom_compactions;
    r["explicit_compactions"] = explicit_compactions;
    r["explicit_compaction_bytes"] = explicit_moved;
    r["explicit_compaction_cycles"] = explicit_cycles;
    r["compaction_bytes_moved"] = end.compaction_bytes_moved;
    r["before_compaction"] = have_compaction_snapshot ? before_compaction.Json() : nlohmann::ordered_json();
    r["after_compaction"] = have_compaction_snapshot ? after_compaction.Json() : nlohmann::ordered_json();
    r["end"] = Snapshot{end}.Json();
    r["wall_seconds"] = wall;
    r["waveform"] = o.trace;
    r["alloc_trace"] = o.alloc_trace;
    // The device's own count of successful allocations and frees (the firmware's or the policies' stats).
    r["device_num_allocs"] = end.num_allocs;
    r["device_num_frees"] = end.num_frees;
    r["trace_cycles"] = {trace_begin, trace_end};
    r["first_gemm_cycle"] = first_gemm_cycle;
    if (const std::string why = strata::tool::WriteTextFile(
            o.report, r.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
        !why.empty()) {
      std::fprintf(stderr, "strata-mlp: cannot write the report to %s: %s\n", o.report.c_str(), why.c_str());
      return 1;
    }
    std::printf("report       %s\n", o.report.c_str());
  }
  if (!o.alloc_trace.empty()) {
    if (const std::string why = alloc_trace.Write(o.alloc_trace); !why.empty()) {
      std::fprintf(stderr, "strata-mlp: cannot write the allocation trace to %s: %s\n", o.alloc_trace.c_str(),
                   why.c_str());
      return 1;
    }
    std::printf("alloc trace  %s (%zu buffers, %" PRIu64 " allocations and frees; the heap is %" PRIu64
                " bytes: strata-replay %s --capacity %" PRIu64 " --compaction on-oom)\n",
                o.alloc_trace.c_str(), alloc_trace.buffers(), alloc_trace.events(), info0.heap_bytes,
                strata::cli::ShellWord(o.alloc_trace).c_str(), info0.heap_bytes);
  }
  if (!o.trace.empty()) {
    std::printf("waveform     %s (device cycles %" PRIu64 "..%" PRIu64
                " = waveform ns%s); open it with: gtkwave %s rtl/tpu_mxu.gtkw\n",
                o.trace.c_str(), trace_begin, trace_end, trace_follows_gemm ? ": the first GEMM, from its issue" : "",
                strata::cli::ShellWord(o.trace).c_str());
  }
  // Closed here, not by the destructor: closing finishes the timeline, and one that could not be written is an error
  // (STRATA_DATA_LOSS), as in strata-sim and strata-replay.
  opened->Close();
  return mismatches == 0 ? 0 : 1;
}

// The whole run; main wraps it.
int Main(int argc, char** argv) {
  Options o;
  if (int rc = ParseArgs(argc, argv, &o); rc != strata::cli::kContinue) return rc;
  if (o.backend != "sim") {
    if (!o.sim_only.empty()) {
      std::fprintf(stderr, "strata-mlp: %s is an option of the sim backend, not of %s (see --option)\n",
                   o.sim_only.c_str(), o.backend.c_str());
      return 2;
    }
    o.trace.clear();  // waveforms are the model's
  }
  if (!o.report.empty()) {
    if (const std::string why = strata::tool::CheckWritableFile(o.report); !why.empty()) {
      std::fprintf(stderr, "strata-mlp: cannot write the report to %s: %s\n", o.report.c_str(), why.c_str());
      return 2;
    }
  }
  if (!o.alloc_trace.empty()) {
    if (const std::string why = strata::tool::CheckWritableFile(o.alloc_trace); !why.empty()) {
      std::fprintf(stderr, "strata-mlp: cannot write the allocation trace to %s: %s\n", o.alloc_trace.c_str(),
                   why.c_str());
      return 2;
    }
  }
  // Each output its own file (the waveform, the report and the allocation trace are written at different times),
  // and none the firmware the device boots. The open options count as given (a later one overrides).
  std::string timeline, firmware;
  for (const std::string& kv : o.options) {
    if (kv.rfind("timeline=", 0) == 0) timeline = kv.substr(9);
    if (kv.rfind("firmware_path=", 0) == 0) firmware = kv.substr(14);
  }
  if (const std::string clash = strata::tool::CheckOutputsApart(
          {{"--option firmware_path", firmware}},
          {{"--trace", o.trace}, {"--report", o.report}, {"--alloc-trace", o.alloc_trace}, {"--timeline", timeline}});
      !clash.empty()) {
    std::fprintf(stderr, "strata-mlp: %s\n", clash.c_str());
    return 2;
  }
  try {
    return Run(o);
  } catch (const strata::Error& e) {
    std::fprintf(stderr, "strata-mlp: %s\n", e.what());
    return 1;
  }
}

}  // namespace

// Host out of memory anywhere in the run: a message and exit status 1 (tool_cli.h), not an abort.
int main(int argc, char** argv) { return strata::cli::RunMain("strata-mlp", Main, argc, argv); }
