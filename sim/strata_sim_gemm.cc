// strata-sim gemm: C = A.B (+ C_in) on the model's matrix unit with the GEMM firmware, from and to .npy files.
#include "strata_sim_gemm.h"

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <systemc>
#include <vector>

#include "chip_model.h"
#include "elf_loader.h"
#include "firmware_image.h"
#include "hbm/hbm_model.h"
#include "npy.h"
#include "platform.h"
#include "regular_file.h"
#include "run_timeline.h"
#include "strata/gemm_mailbox.h"
#include "strata/regmap.h"
#include "strata/status.h"
#include "strata_sim_cli.h"

namespace strata::sim {
namespace {

using namespace cli;  // NOLINT: the command line's vocabulary (exit statuses, parsers)

constexpr const char* kProgram = "strata-sim gemm";
constexpr const char* kDescription =
    "Computes C = A.B (+ C_in) on the model's matrix unit with the GEMM firmware and writes C.\n"
    "A is int8 [M, K], B int8 [K, N], C_in and the output int32 [M, N] (int8 with --int8);\n"
    "with --dtype bf16, A, B, C_in and the output are float32, A and B rounded to bf16 (RNE, denormals to\n"
    "zero) on upload, products exact, sums fp32 (RNE) in the order docs/matrix-unit.md states;\n"
    ".npy format 1.0/2.0, C order, 2-D. Prints cycles and utilization = M*K*N / (n^2 * cycles)\n"
    "for the n x n array, and the roofline limit of that utilization under the HBM preset:\n"
    "min(1, (M*K*N / n^2) / (bytes / peak bytes per cycle)), bytes = A + B + C (+ C_in) once each.";
constexpr const char* kFooter =
    "exit status: 0 done; 1 the firmware reported an error; 2 bad usage or bad .npy input; 3 timeout";

int GemmUsage(const std::string& why) { return Usage(why, kProgram); }

// float32 bits -> bf16 bits, round to nearest even (tests/rtl/bf16_reference.py's F32ToBf16, the chip's own
// READOUT rule): a denormal reads as a zero of its sign, a NaN becomes the canonical 0x7FC0, a carry out of the
// largest finite values gives inf.
uint16_t F32BitsToBf16(uint32_t x) {
  if ((x & 0x7F800000u) == 0x7F800000u && (x & 0x007FFFFFu) != 0) return 0x7FC0;
  if ((x & 0x7F800000u) == 0) return static_cast<uint16_t>((x >> 16) & 0x8000u);
  return static_cast<uint16_t>((x + 0x7FFFu + ((x >> 16) & 1u)) >> 16);
}

// A float32 .npy's elements as bf16, little-endian, row-major.
std::vector<uint8_t> Float32NpyToBf16(const NpyArray& f) {
  const size_t count = f.data.size() / 4;
  std::vector<uint8_t> out(2 * count);
  for (size_t i = 0; i < count; ++i) {
    uint32_t x;
    std::memcpy(&x, f.data.data() + 4 * i, 4);
    const uint16_t h = F32BitsToBf16(x);
    out[2 * i] = static_cast<uint8_t>(h);
    out[2 * i + 1] = static_cast<uint8_t>(h >> 8);
  }
  return out;
}

}  // namespace

int RunGemm(int argc, char* argv[]) {
  PlatformConfig config;
  config.max_cycles = 2'000'000'000ull;
  std::string a_path, b_path, c_path, out_path, fw_path, hbm_preset = strata::hbm::kDefaultHbmPreset;
  bool json = false, relu = false, int8 = false;
  std::string dtype = "int8", out_dtype = "fp32";
  HbmControllerOptions hbm_controller;
  RunTimelineOptions timeline;
  int64_t mult = 1;
  uint64_t shift = 0;
  CLI::App app{kDescription, kProgram};
  strata::cli::Setup(app, "strata-sim gemm --a A.npy --b B.npy --out C.npy [options]", kFooter);
  app.add_option("--a", a_path, "A, int8 [M, K] (float32 with --dtype bf16)")->type_name("A.npy");
  app.add_option("--b", b_path, "B, int8 [K, N] (float32 with --dtype bf16)")->type_name("B.npy");
  app.add_option("--out", out_path, "where C goes (int32 [M, N]; int8 with --int8; float32 with --dtype bf16)")
      ->type_name("C.npy");
  app.add_option("--c", c_path, "add C_in (int32 [M, N]; float32 with --dtype bf16) to the product")
      ->type_name("C.npy");
  app.add_flag("--relu", relu, "ReLU on the int32 (fp32) result");
  strata::cli::AddTaken(
      app, "--dtype", "int8|bf16",
      [&](const std::string& v) -> std::string {
        if (v != "int8" && v != "bf16") return "--dtype must be int8 or bf16, not '" + v + "'";
        dtype = v;
        return "";
      },
      "operand type: int8 (default) or bf16 (float32 .npy in and out; the image gemm_bf16.elf)");
  strata::cli::AddTaken(
      app, "--out-dtype", "fp32|bf16",
      [&](const std::string& v) -> std::string {
        if (v != "fp32" && v != "bf16") return "--out-dtype must be fp32 or bf16, not '" + v + "'";
        out_dtype = v;
        return "";
      },
      "with --dtype bf16: fp32 (default) or bf16 (C rounded to bf16 RNE on the chip, written as float32)");
  strata::cli::AddTaken(
      app, "--int8", "MULT,SHIFT",
      [&](const std::string& q) -> std::string {
        long long m = 0;
        unsigned long long sh = 0;
        char extra = 0;
        if (std::sscanf(q.c_str(), "%lld,%llu%c", &m, &sh, &extra) != 2 || m < INT32_MIN || m > INT32_MAX ||
            sh > STRATA_GEMM_MAX_QUANT_SHIFT) {
          return "--int8 needs MULT,SHIFT (a 32-bit signed multiplier and a shift 0.." +
                 std::to_string(STRATA_GEMM_MAX_QUANT_SHIFT) + ")";
        }
        int8 = true;
        mult = m;
        shift = sh;
        return "";
      },
      "requantize: sat8(round((x * MULT) >> SHIFT)) (rounding half up)");
  app.add_option("--firmware", fw_path,
                 "GEMM firmware image (default: the installed gemm.elf, gemm_bf16.elf with --dtype bf16, else the "
                 "build's; the old per-tile issue path is the benchmark image bench/bench_gemm_per_tile.elf)")
      ->type_name("FILE");
  AddMxuNOption(app, config.mxu_n);
  AddHbmPresetOption(app, hbm_preset);
  AddHbmControllerOptions(app, hbm_controller);
  AddMaxCyclesOption(app, config.max_cycles, "give up after N cycles (default 2000000000)");
  app.add_flag("--json", json, "print the summary as one JSON object");
  AddTraceOptions(app, config.trace);
  AddTimelineOptions(app, timeline);
  app.add_flag_callback(
      "--no-fast-forward", [&] { config.fast_forward = false; },
      "evaluate the chip in every cycle, quiescent ones too, at every falling edge and with the idle\n"
      "blocks' clock gates held open (same cycle counts, slower)");
  // argv[1] is "gemm": the subcommand's own command line starts after it.
  if (int rc = strata::cli::Parse(app, argc - 1, argv + 1); rc != strata::cli::kContinue) return rc;
  if (a_path.empty() || b_path.empty() || out_path.empty()) return GemmUsage("gemm needs --a, --b and --out");
  const bool bf16 = dtype == "bf16", out_bf16 = out_dtype == "bf16";
  if (bf16 && int8) return GemmUsage("--int8 is for --dtype int8 (bf16 results are fp32 or, --out-dtype, bf16)");
  if (out_bf16 && !bf16) return GemmUsage("--out-dtype bf16 needs --dtype bf16");
  if (fw_path.empty()) fw_path = FirmwareImagePath(bf16 ? "gemm_bf16" : "gemm");
  if (const std::string why = CheckTimelineOptions(timeline); !why.empty()) return GemmUsage(why);
  if (const std::string why = CheckTraceOptions(config.trace); !why.empty()) return GemmUsage(why);
  // Output that could not be written is refused before the run, not found missing after it.
  if (const std::string why = tool::CheckWritableFile(out_path); !why.empty()) {
    return GemmUsage("cannot write " + out_path + ": " + why);
  }
  if (const std::string clash =
          tool::CheckOutputsApart({{"--a", a_path}, {"--b", b_path}, {"--c", c_path}, {"--firmware", fw_path}},
                                  {{"--out", out_path}, {"--trace", config.trace.path}, {"--timeline", timeline.path}});
      !clash.empty()) {
    return GemmUsage(clash);
  }

  if (const std::string why = CheckHbmPreset(hbm_preset); !why.empty()) return GemmUsage(why);
  strata::hbm::HbmConfig::FromName(hbm_preset, &config.hbm, 4ull << 30);
  hbm_controller.ApplyTo(config.hbm);
  if (const std::string why = config.hbm.Validate(); !why.empty()) return GemmUsage("HBM configuration: " + why);
  auto input_error = [](const std::string& why) {
    std::fprintf(stderr, "strata-sim: error: %s\n", why.c_str());
    return kExitUsage;
  };
  NpyArray a, b, c;
  std::string error;
  if (!ReadNpy(a_path, a, error)) return input_error(error);
  if (!ReadNpy(b_path, b, error)) return input_error(error);
  const char* in_descr = bf16 ? "<f4" : "|i1";
  const char* in_name = bf16 ? "float32 ('<f4', with --dtype bf16)" : "int8 ('|i1')";
  if (a.descr != in_descr) return input_error(a_path + ": A must be " + in_name + ", not '" + a.descr + "'");
  if (b.descr != in_descr) return input_error(b_path + ": B must be " + in_name + ", not '" + b.descr + "'");
  const uint64_t m = a.rows, k = a.cols, n = b.cols;
  if (m == 0 || k == 0 || n == 0 || b.rows == 0) return input_error("empty matrix: every dimension must be >= 1");
  if (b.rows != k) {
    return input_error("shape mismatch: A is " + std::to_string(m) + "x" + std::to_string(k) + " but B is " +
                       std::to_string(b.rows) + "x" + std::to_string(n) + " (A columns must equal B rows)");
  }
  if (m > 65536 || k > 65536 || n > 65536) return input_error("dimensions above 65536 are not supported");
  if (!c_path.empty()) {
    if (!ReadNpy(c_path, c, error)) return input_error(error);
    const char* c_descr = bf16 ? "<f4" : "<i4";
    if (c.descr != c_descr) {
      return input_error(c_path + ": C must be " + (bf16 ? "float32 ('<f4')" : "int32 ('<i4')") + ", not '" + c.descr +
                         "'");
    }
    if (c.rows != m || c.cols != n) {
      return input_error("shape mismatch: C is " + std::to_string(c.rows) + "x" + std::to_string(c.cols) + ", A.B is " +
                         std::to_string(m) + "x" + std::to_string(n));
    }
  }
  ElfImage image;
  if (!LoadElf(fw_path, STRATA_SMEM_BASE, STRATA_SMEM_SIZE, image, error)) return input_error(error);
  const auto sym = image.symbols.find("strata_gemm_mailbox");
  if (sym == image.symbols.end())
    return input_error(fw_path + ": no strata_gemm_mailbox symbol (not the GEMM firmware)");

  // HBM layout: A, B, C_in, C_out, each 4 KiB aligned.
  auto align = [](uint64_t x) { return (x + 4095) & ~uint64_t{4095}; };
  StrataGemmMailbox box{};
  box.magic = bf16 ? STRATA_GEMM_MAILBOX_MAGIC_BF16 : STRATA_GEMM_MAILBOX_MAGIC;
  box.version = STRATA_GEMM_MAILBOX_VERSION;
  box.m = static_cast<uint32_t>(m);
  box.k = static_cast<uint32_t>(k);
  box.n = static_cast<uint32_t>(n);
  box.flags = (c_path.empty() ? 0 : STRATA_GEMM_FLAG_ACCUMULATE) | (relu ? STRATA_GEMM_FLAG_RELU : 0) |
              (int8 ? STRATA_GEMM_FLAG_INT8 | STRATA_GEMM_FLAG_ROUND : 0) |
              (out_bf16 ? STRATA_GEMM_MAILBOX_FLAG_OUT_BF16 : 0);
  box.quant_mult = static_cast<int32_t>(mult);
  box.quant_shift = static_cast<uint32_t>(shift);
  box.a = 0;
  const uint64_t in_es = bf16 ? 2 : 1;  // bytes per A/B element in HBM
  box.b = align(box.a + m * k * in_es);
  box.c_in = align(box.b + k * n * in_es);
  box.c_out = align(box.c_in + m * n * 4);
  box.status = 0xffffffffu;
  if (align(box.c_out + m * n * 4) > config.hbm.capacity_bytes) return input_error("matrices do not fit in HBM");
  bool patched = false;
  for (auto& seg : image.segments) {
    if (sym->second >= seg.address && sym->second + sizeof box <= seg.address + seg.bytes.size()) {
      std::memcpy(seg.bytes.data() + (sym->second - seg.address), &box, sizeof box);
      patched = true;
    }
  }
  if (!patched) return input_error(fw_path + ": strata_gemm_mailbox is not in a loadable segment");

  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  Platform platform("platform", config);
  platform.SetImage(image);
  auto& hbm = platform.device().hbm();
  if (bf16) {
    const std::vector<uint8_t> a16 = Float32NpyToBf16(a), b16 = Float32NpyToBf16(b);
    hbm.WriteDebug(box.a, a16.data(), a16.size());
    hbm.WriteDebug(box.b, b16.data(), b16.size());
  } else {
    hbm.WriteDebug(box.a, a.data.data(), a.data.size());
    hbm.WriteDebug(box.b, b.data.data(), b.data.size());
  }
  if (!c_path.empty()) hbm.WriteDebug(box.c_in, c.data.data(), c.data.size());
  std::unique_ptr<RunTimeline> run_timeline;
  if (!timeline.path.empty()) {
    run_timeline = RunTimeline::Start(platform.device(), timeline, "strata-sim gemm", &error);
    if (!run_timeline) return input_error("cannot write the timeline " + timeline.path + ": " + error);
  }
  const RunResult r = platform.Run();
  if (run_timeline && !run_timeline->Finish()) {
    std::fprintf(stderr, "strata-sim: error: the timeline %s could not be written completely\n", timeline.path.c_str());
    return kExitFail;
  }
  std::fflush(stdout);
  if (r.outcome == RunOutcome::kTimeout) {
    std::fprintf(stderr, "strata-sim: gemm: TIMEOUT after %" PRIu64 " cycles\n", r.cycles);
    return kExitTimeout;
  }
  // The mailbox's result words, read back through the host port.
  std::vector<uint32_t> words(sizeof box / 4);
  for (size_t w = 0; w < words.size(); ++w) words[w] = platform.device().HostRead32(sym->second + 4 * w);
  std::memcpy(&box, words.data(), sizeof box);
  if (r.outcome != RunOutcome::kPass || box.status != 0) {
    std::fprintf(stderr, "strata-sim: gemm: the firmware failed (status %s)\n",
                 strata_status_name(static_cast<int>(box.status)));
    return kExitFail;
  }
  NpyArray out;
  out.descr = bf16 ? "<f4" : (int8 ? "|i1" : "<i4");
  out.rows = m;
  out.cols = n;
  out.data.resize(m * n * (int8 ? 1 : 4));
  if (out_bf16) {
    // bf16 results (2 bytes each) widen exactly to float32.
    std::vector<uint8_t> c16(m * n * 2);
    hbm.ReadDebug(box.c_out, c16.data(), c16.size());
    for (uint64_t i = 0; i < m * n; ++i) {
      out.data[4 * i + 0] = 0;
      out.data[4 * i + 1] = 0;
      out.data[4 * i + 2] = c16[2 * i];
      out.data[4 * i + 3] = c16[2 * i + 1];
    }
  } else {
    hbm.ReadDebug(box.c_out, out.data.data(), out.data.size());
  }
  if (!WriteNpy(out_path, out, error)) return input_error(error);
  const double macs = static_cast<double>(m) * k * n;
  const double n2 = double(box.array_n) * box.array_n;
  const double util = box.cycles ? macs / (n2 * double(box.cycles)) : 0.0;
  // Roofline: the array's MAC rate against moving every operand through HBM once at peak.
  const double hbm_bytes = double(in_es) * (double(m) * k + double(k) * n) +
                           double(m) * n * (int8 ? 1 : (out_bf16 ? 2 : 4)) + (c_path.empty() ? 0.0 : double(m) * n * 4);
  const double peak = config.hbm.PeakBytesPerCycle();
  const double compute_cycles = n2 > 0 ? macs / n2 : 0.0;
  const double memory_cycles = peak > 0 ? hbm_bytes / peak : 0.0;
  const double roofline = compute_cycles >= memory_cycles ? 1.0 : compute_cycles / memory_cycles;
  const double speed = r.wall_seconds > 0 ? r.cycles / r.wall_seconds : 0.0;
  if (json) {
    const nlohmann::ordered_json j{{"m", m},
                                   {"k", k},
                                   {"n", n},
                                   {"array_n", box.array_n},
                                   {"cycles", box.cycles},
                                   {"utilization", Round(util, 4)},
                                   {"roofline_utilization", Round(roofline, 4)},
                                   {"hbm", config.hbm.name},
                                   {"hbm_peak_bytes_per_cycle", Round(peak, 1)},
                                   {"hbm_bytes_min", std::llround(hbm_bytes)},
                                   {"run_cycles", r.cycles},
                                   {"start_cycle", r.start_cycle},
                                   {"mxu_commands", box.mxu_commands},
                                   {"dma_descriptors", box.dma_descriptors},
                                   {"rows_streamed", box.rows_streamed},
                                   {"starved_cycles", box.starved_cycles},
                                   {"steps", box.steps},
                                   {"dma_waits", box.dma_waits},
                                   {"skipped_cycles", r.skipped_cycles},
                                   {"elided_falling_edges", r.elided_falling_edges},
                                   {"dma_gated_cycles", r.dma_gated_cycles},
                                   {"mxu_gated_cycles", r.mxu_gated_cycles},
                                   {"wall_seconds", Round(r.wall_seconds, 3)},
                                   {"sim_cycles_per_second", std::llround(speed)}};
    std::printf("%s\n", j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace).c_str());
  } else {
    std::printf("gemm %" PRIu64 "x%" PRIu64 "x%" PRIu64 " on a %ux%u array: %" PRIu64
                " cycles, utilization %.1f%% (roofline %.1f%% under %s; %u MXU commands, %u DMA descriptors, MXU"
                " starved %u cycles; run %" PRIu64 " cycles, %.2f M cycles/s)\n",
                m, k, n, box.array_n, box.array_n, box.cycles, 100 * util, 100 * roofline, config.hbm.name.c_str(),
                box.mxu_commands, box.dma_descriptors, box.starved_cycles, r.cycles, speed / 1e6);
  }
  return kExitPass;
}

}  // namespace strata::sim
