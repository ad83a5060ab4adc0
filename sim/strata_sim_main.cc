// strata-sim: runs a firmware ELF on the Strata platform and reports what happened.
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

#include "../firmware/apps/gemm/gemm_mailbox.h"
#include "../firmware/include/strata/status.h"
#include "chip_model.h"
#include "elf_loader.h"
#include "hbm/hbm_model.h"
#include "npy.h"
#include "platform.h"
#include "regular_file.h"
#include "run_timeline.h"
#include "strata/regmap.h"

namespace {

enum ExitStatus { kExitPass = 0, kExitFail = 1, kExitUsage = 2, kExitTimeout = 3, kExitBadTohost = 4 };

void PrintHelp() {
  std::printf(
      "usage: strata-sim [options] FIRMWARE.elf\n"
      "       strata-sim gemm --a A.npy --b B.npy --out C.npy [gemm options]   (see strata-sim gemm --help)\n"
      "\n"
      "Runs an RV32 ELF on the Strata model until the firmware stores to `tohost` (HTIF)\n"
      "or --max-cycles pass, then prints a summary.\n"
      "\n"
      "options:\n"
      "  --max-cycles N      stop after N cycles (default 200000000)\n"
      "  --trace FILE        write a waveform: FILE.fst (default format) or FILE.vcd\n"
      "  --trace-start C     first cycle to record (default 0)\n"
      "  --trace-end C       stop recording at cycle C (default: end of run)\n"
      "  --trace-depth D     hierarchy levels to record (default: all)\n"
      "  --mxu-n N           the chip with an N x N matrix unit (default 16; this build has %s)\n"
      "  --hbm PRESET        HBM2 (default), HBM2e or HBM3\n"
      "  --hbm-capacity B    HBM capacity in bytes, K/M/G suffixes allowed (default 4G; up to 64G+;\n"
      "                      the backing store is sparse, so only touched pages cost host memory)\n"
      "  --hbm-address-map M xor-hash (default: higher address bits XOR-folded into channel and bank) or\n"
      "                      linear (plain bit fields, the old map; docs/hbm.md)\n"
      "  --hbm-row-hit-cap N row hits served past an older request to another row of the bank (default 4;\n"
      "                      0 = no cap, plain FR-FCFS, the old scheduler)\n"
      "  --timeline FILE     write the run as a Perfetto timeline (trace-event JSON; docs/timelines.md): the\n"
      "                      DMA's row commands, HBM traffic, the core's awake time; --timeline-start C,\n"
      "                      --timeline-end C (cycle window) and --timeline-max-bytes N (default 256M) bound it\n"
      "  --json              print the summary as one JSON object\n"
      "  --quiet             no summary (console output and exit status only)\n"
      "  --progress          progress line on stderr every few seconds\n"
      "  --no-fast-forward   evaluate the chip in every cycle, also while it is quiescent (the core asleep\n"
      "                      in wfi, DMA and matrix unit waiting): the same cycle counts, only slower\n"
      "  -h, --help          this help\n"
      "\n"
      "exit status: 0 firmware passed (tohost = 1); 1 firmware failed (odd tohost, code = tohost >> 1);\n"
      "             2 bad usage or unloadable ELF; 3 --max-cycles reached; 4 unsupported tohost value\n",
      strata::sim::BuiltMxuSizesText().c_str());
}

// Bytes with an optional K/M/G suffix (powers of 1024).
// A decimal number, or hex with 0x. No sign, no spaces, and no leading zero ("010" would be octal to strtoull
// and 10 to a person: refused). *end is left after the digits.
bool ParseNumber(const char* text, unsigned long long& v, char** end) {
  if (text == nullptr || !std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  const bool hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  if (!hex && text[0] == '0' && std::isdigit(static_cast<unsigned char>(text[1]))) return false;
  if (hex && !std::isxdigit(static_cast<unsigned char>(text[2]))) return false;
  errno = 0;
  v = std::strtoull(text, end, hex ? 16 : 10);
  return errno == 0 && *end != text;
}

bool ParseBytes(const char* text, uint64_t& out) {
  unsigned long long v = 0;
  char* end = nullptr;
  if (!ParseNumber(text, v, &end)) return false;
  int shift = 0;
  if (*end == 'K' || *end == 'k') shift = 10;
  if (*end == 'M' || *end == 'm') shift = 20;
  if (*end == 'G' || *end == 'g') shift = 30;
  if (shift != 0) ++end;
  if (*end != '\0' || (shift != 0 && v > (~0ull >> shift))) return false;
  out = v << shift;
  return true;
}

bool ParseU64(const char* text, uint64_t& out) {
  unsigned long long v = 0;
  char* end = nullptr;
  if (!ParseNumber(text, v, &end) || *end != '\0') return false;
  out = v;
  return true;
}

int Usage(const std::string& why) {
  std::fprintf(stderr, "strata-sim: %s\nTry 'strata-sim --help'.\n", why.c_str());
  return kExitUsage;
}

// --mxu-n N: a size this build has a chip for; otherwise the message that names the built ones.
bool ParseMxuN(const char* text, int& out, std::string& why) {
  uint64_t v = 0;
  if (text == nullptr || !ParseU64(text, v) || !strata::sim::IsBuiltMxuSize(static_cast<int64_t>(v))) {
    why = std::string("--mxu-n ") + (text ? text : "") +
          ": this build has no such chip (built: " + strata::sim::BuiltMxuSizesText() + ")";
    return false;
  }
  out = static_cast<int>(v);
  return true;
}

// The HBM controller options both parsers share: --hbm-address-map and --hbm-row-hit-cap. They are kept
// here and applied after HbmConfig::FromName, which replaces the whole configuration with the preset.
struct HbmControllerOptions {
  strata::hbm::AddressMap address_map = strata::hbm::HbmConfig{}.address_map;
  uint32_t row_hit_cap = strata::hbm::HbmConfig{}.row_hit_cap;

  void ApplyTo(strata::hbm::HbmConfig& hbm) const {
    hbm.address_map = address_map;
    hbm.row_hit_cap = row_hit_cap;
  }
};

// Parses one of the two options at argv[i] (advancing i past its value). Returns false when arg is neither;
// otherwise true, with why set when the value is missing or wrong.
bool ParseHbmControllerOption(const std::string& arg, int argc, char* argv[], int& i, HbmControllerOptions& out,
                              std::string& why) {
  if (arg == "--hbm-address-map") {
    const char* text = i + 1 < argc ? argv[++i] : nullptr;
    if (text == nullptr) {
      why = "--hbm-address-map needs a name (xor-hash, linear)";
    } else if (!strata::hbm::AddressMapFromName(text, &out.address_map)) {
      why = std::string("unknown --hbm-address-map '") + text + "' (xor-hash, linear)";
    }
    return true;
  }
  if (arg == "--hbm-row-hit-cap") {
    uint64_t v = 0;
    if (i + 1 >= argc || !ParseU64(argv[++i], v) || v > UINT32_MAX) {
      why = "--hbm-row-hit-cap needs a number >= 0 (0 = no cap)";
    } else {
      out.row_hit_cap = static_cast<uint32_t>(v);
    }
    return true;
  }
  return false;
}

// --timeline and its bounds, for runs and `gemm` alike (run_timeline.h). Returns false when arg is none of
// them; otherwise true, with why set when the value is missing or wrong.
bool ParseTimelineOption(const std::string& arg, int argc, char* argv[], int& i, strata::sim::RunTimelineOptions& out,
                         std::string& why) {
  uint64_t v = 0;
  auto number = [&](const char* what) {
    if (i + 1 >= argc || !ParseBytes(argv[++i], v)) why = arg + " needs " + what;
    return why.empty();
  };
  if (arg == "--timeline") {
    if (i + 1 >= argc || argv[i + 1][0] == '\0') {
      why = "--timeline needs a file name";
    } else {
      out.path = argv[++i];
    }
  } else if (arg == "--timeline-start") {
    if (number("a cycle number")) out.window.start_cycle = v;
  } else if (arg == "--timeline-end") {
    if (number("a cycle number")) out.window.end_cycle = v;
  } else if (arg == "--timeline-max-bytes") {
    if (number("a size in bytes (at least 4096)") && v < 4096) why = "--timeline-max-bytes must be at least 4096";
    if (why.empty()) out.max_bytes = v;
  } else {
    return false;
  }
  return true;
}

// Checks the timeline's options once parsed; "" when they are good (or there is no timeline).
std::string CheckTimelineOptions(const strata::sim::RunTimelineOptions& t) {
  if (t.path.empty()) return "";
  if (t.window.end_cycle <= t.window.start_cycle) return "--timeline-end must be after --timeline-start";
  if (const std::string why = strata::sim::CheckWritableFile(t.path); !why.empty()) {
    return "cannot write the timeline " + t.path + ": " + why;
  }
  return "";
}

void PrintGemmHelp() {
  std::printf(
      "usage: strata-sim gemm --a A.npy --b B.npy --out C.npy [options]\n"
      "\n"
      "Computes C = A.B (+ C_in) on the model's matrix unit with the GEMM firmware and writes C.\n"
      "A is int8 [M, K], B int8 [K, N], C_in and the output int32 [M, N] (int8 with --int8);\n"
      ".npy format 1.0/2.0, C order, 2-D. Prints cycles and utilization = M*K*N / (n^2 * cycles)\n"
      "for the n x n array, and the roofline limit of that utilization under the HBM preset:\n"
      "min(1, (M*K*N / n^2) / (bytes / peak bytes per cycle)), bytes = A + B + C (+ C_in) once each.\n"
      "\n"
      "options:\n"
      "  --c C.npy           add C_in (int32 [M, N]) to the product\n"
      "  --relu              ReLU on the int32 result\n"
      "  --int8 MULT,SHIFT   requantize: sat8(round((x * MULT) >> SHIFT)) (rounding half up)\n"
      "  --firmware FILE     GEMM firmware image (default: the build's rv32/apps/gemm/gemm.elf)\n"
      "  --mxu-n N           the chip with an N x N matrix unit (default 16; this build has %s)\n"
      "  --hbm PRESET        HBM2 (default), HBM2e or HBM3\n"
      "  --hbm-address-map M xor-hash (default) or linear (the old map); docs/hbm.md\n"
      "  --hbm-row-hit-cap N row-hit cap of the HBM scheduler (default 4; 0 = no cap, the old scheduler)\n"
      "  --per-tile          issue one LOAD_WEIGHTS + MATMUL per weight tile (the old command path)\n"
      "  --max-cycles N      give up after N cycles (default 2000000000)\n"
      "  --json              print the summary as one JSON object\n"
      "  --trace FILE        waveform (.fst or .vcd); --trace-start/--trace-end/--trace-depth as for runs\n"
      "  --timeline FILE     Perfetto timeline; --timeline-start/--timeline-end/--timeline-max-bytes as for runs\n"
      "  --no-fast-forward   evaluate the chip in every cycle, quiescent ones too (same cycle counts, slower)\n"
      "\n"
      "exit status: 0 done; 1 the firmware reported an error; 2 bad usage or bad .npy input; 3 timeout\n",
      strata::sim::BuiltMxuSizesText().c_str());
}

std::string DefaultGemmFirmware() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "gemm.elf";
  std::string exe(buf, static_cast<size_t>(n));
  const std::string dir = exe.substr(0, exe.rfind('/'));
  return dir + "/../rv32/apps/gemm/gemm.elf";
}

int RunGemm(int argc, char* argv[]) {
  strata::sim::PlatformConfig config;
  config.max_cycles = 2'000'000'000ull;
  std::string a_path, b_path, c_path, out_path, fw_path = DefaultGemmFirmware(), hbm_preset = "HBM2";
  bool json = false, relu = false, int8 = false, per_tile = false;
  HbmControllerOptions hbm_controller;
  strata::sim::RunTimelineOptions timeline;
  int64_t mult = 1;
  uint64_t shift = 0;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    auto str = [&](std::string& out) {
      if (i + 1 >= argc) return false;
      out = argv[++i];
      return true;
    };
    uint64_t v = 0;
    std::string why;
    if (arg == "-h" || arg == "--help") {
      PrintGemmHelp();
      return kExitPass;
    } else if (ParseHbmControllerOption(arg, argc, argv, i, hbm_controller, why) ||
               ParseTimelineOption(arg, argc, argv, i, timeline, why)) {
      if (!why.empty()) return Usage(why);
    } else if (arg == "--a") {
      if (!str(a_path)) return Usage("--a needs a file");
    } else if (arg == "--b") {
      if (!str(b_path)) return Usage("--b needs a file");
    } else if (arg == "--c") {
      if (!str(c_path)) return Usage("--c needs a file");
    } else if (arg == "--out") {
      if (!str(out_path)) return Usage("--out needs a file");
    } else if (arg == "--firmware") {
      if (!str(fw_path)) return Usage("--firmware needs a file");
    } else if (arg == "--hbm") {
      if (!str(hbm_preset)) return Usage("--hbm needs a preset name");
    } else if (arg == "--mxu-n") {
      if (!ParseMxuN(i + 1 < argc ? argv[++i] : nullptr, config.mxu_n, why)) return Usage(why);
    } else if (arg == "--relu") {
      relu = true;
    } else if (arg == "--per-tile") {
      per_tile = true;
    } else if (arg == "--int8") {
      std::string q;
      long long m = 0;
      unsigned long long sh = 0;
      char extra = 0;
      if (!str(q) || std::sscanf(q.c_str(), "%lld,%llu%c", &m, &sh, &extra) != 2 || m < INT32_MIN || m > INT32_MAX ||
          sh > 63) {
        return Usage("--int8 needs MULT,SHIFT (a 32-bit signed multiplier and a shift 0..63)");
      }
      int8 = true;
      mult = m;
      shift = sh;
    } else if (arg == "--max-cycles") {
      if (i + 1 >= argc || !ParseU64(argv[++i], v) || v == 0) return Usage("--max-cycles needs a positive number");
      config.max_cycles = v;
    } else if (arg == "--json") {
      json = true;
    } else if (arg == "--trace") {
      if (!str(config.trace.path)) return Usage("--trace needs a file name");
    } else if (arg == "--trace-start") {
      if (i + 1 >= argc || !ParseU64(argv[++i], v)) return Usage("--trace-start needs a cycle number");
      config.trace.start = v;
    } else if (arg == "--trace-end") {
      if (i + 1 >= argc || !ParseU64(argv[++i], v)) return Usage("--trace-end needs a cycle number");
      config.trace.end = v;
    } else if (arg == "--trace-depth") {
      if (i + 1 >= argc || !ParseU64(argv[++i], v) || v == 0 || v > 99) return Usage("--trace-depth needs 1..99");
      config.trace.depth = static_cast<int>(v);
    } else if (arg == "--no-fast-forward") {
      config.fast_forward = false;
    } else {
      return Usage("gemm: unknown option " + arg);
    }
  }
  if (a_path.empty() || b_path.empty() || out_path.empty()) return Usage("gemm needs --a, --b and --out");
  if (const std::string why = CheckTimelineOptions(timeline); !why.empty()) return Usage(why);
  // Output that could not be written is refused before the run, not found missing after it.
  for (const std::string* out : {&out_path, &config.trace.path}) {
    if (out->empty()) continue;
    if (const std::string why = strata::sim::CheckWritableFile(*out); !why.empty()) {
      return Usage("cannot write " + *out + ": " + why);
    }
  }
  if (!strata::hbm::HbmConfig::FromName(hbm_preset, &config.hbm, 4ull << 30)) {
    return Usage("unknown --hbm preset '" + hbm_preset + "' (HBM2, HBM2e, HBM3)");
  }
  hbm_controller.ApplyTo(config.hbm);
  if (const std::string why = config.hbm.Validate(); !why.empty()) return Usage("HBM configuration: " + why);
  auto input_error = [](const std::string& why) {
    std::fprintf(stderr, "strata-sim: error: %s\n", why.c_str());
    return kExitUsage;
  };
  strata::sim::NpyArray a, b, c;
  std::string error;
  if (!strata::sim::ReadNpy(a_path, a, error)) return input_error(error);
  if (!strata::sim::ReadNpy(b_path, b, error)) return input_error(error);
  if (a.descr != "|i1") return input_error(a_path + ": A must be int8 ('|i1'), not '" + a.descr + "'");
  if (b.descr != "|i1") return input_error(b_path + ": B must be int8 ('|i1'), not '" + b.descr + "'");
  const uint64_t m = a.rows, k = a.cols, n = b.cols;
  if (m == 0 || k == 0 || n == 0 || b.rows == 0) return input_error("empty matrix: every dimension must be >= 1");
  if (b.rows != k) {
    return input_error("shape mismatch: A is " + std::to_string(m) + "x" + std::to_string(k) + " but B is " +
                       std::to_string(b.rows) + "x" + std::to_string(n) + " (A columns must equal B rows)");
  }
  if (m > 65536 || k > 65536 || n > 65536) return input_error("dimensions above 65536 are not supported");
  if (!c_path.empty()) {
    if (!strata::sim::ReadNpy(c_path, c, error)) return input_error(error);
    if (c.descr != "<i4") return input_error(c_path + ": C must be int32 ('<i4'), not '" + c.descr + "'");
    if (c.rows != m || c.cols != n) {
      return input_error("shape mismatch: C is " + std::to_string(c.rows) + "x" + std::to_string(c.cols) + ", A.B is " +
                         std::to_string(m) + "x" + std::to_string(n));
    }
  }
  strata::sim::ElfImage image;
  if (!strata::sim::LoadElf(fw_path, STRATA_SMEM_BASE, STRATA_SMEM_SIZE, image, error)) return input_error(error);
  const auto sym = image.symbols.find("strata_gemm_mailbox");
  if (sym == image.symbols.end())
    return input_error(fw_path + ": no strata_gemm_mailbox symbol (not the GEMM firmware)");

  // HBM layout: A, B, C_in, C_out, each 4 KiB aligned.
  auto align = [](uint64_t x) { return (x + 4095) & ~uint64_t{4095}; };
  StrataGemmMailbox box{};
  box.magic = STRATA_GEMM_MAILBOX_MAGIC;
  box.version = STRATA_GEMM_MAILBOX_VERSION;
  box.m = static_cast<uint32_t>(m);
  box.k = static_cast<uint32_t>(k);
  box.n = static_cast<uint32_t>(n);
  box.flags = (c_path.empty() ? 0 : STRATA_GEMM_FLAG_ACCUMULATE) | (relu ? STRATA_GEMM_FLAG_RELU : 0) |
              (int8 ? STRATA_GEMM_FLAG_INT8 | STRATA_GEMM_FLAG_ROUND : 0) | (per_tile ? STRATA_GEMM_FLAG_PER_TILE : 0);
  box.quant_mult = static_cast<int32_t>(mult);
  box.quant_shift = static_cast<uint32_t>(shift);
  box.a = 0;
  box.b = align(box.a + m * k);
  box.c_in = align(box.b + k * n);
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
  strata::sim::Platform platform("platform", config);
  platform.SetImage(image);
  auto& hbm = platform.device().hbm();
  hbm.WriteDebug(box.a, a.data.data(), a.data.size());
  hbm.WriteDebug(box.b, b.data.data(), b.data.size());
  if (!c_path.empty()) hbm.WriteDebug(box.c_in, c.data.data(), c.data.size());
  std::unique_ptr<strata::sim::RunTimeline> run_timeline;
  if (!timeline.path.empty()) {
    run_timeline = strata::sim::RunTimeline::Start(platform.device(), timeline, "strata-sim gemm", &error);
    if (!run_timeline) return input_error("cannot write the timeline " + timeline.path + ": " + error);
  }
  const strata::sim::RunResult r = platform.Run();
  if (run_timeline) run_timeline->Finish();
  std::fflush(stdout);
  if (r.outcome == strata::sim::RunOutcome::kTimeout) {
    std::fprintf(stderr, "strata-sim: gemm: TIMEOUT after %" PRIu64 " cycles\n", r.cycles);
    return kExitTimeout;
  }
  // The mailbox's result words, read back through the host port.
  std::vector<uint32_t> words(sizeof box / 4);
  for (size_t w = 0; w < words.size(); ++w) words[w] = platform.device().HostRead32(sym->second + 4 * w);
  std::memcpy(&box, words.data(), sizeof box);
  if (r.outcome != strata::sim::RunOutcome::kPass || box.status != 0) {
    std::fprintf(stderr, "strata-sim: gemm: the firmware failed (status %s)\n",
                 strata_status_name(static_cast<int>(box.status)));
    return kExitFail;
  }
  strata::sim::NpyArray out;
  out.descr = int8 ? "|i1" : "<i4";
  out.rows = m;
  out.cols = n;
  out.data.resize(m * n * (int8 ? 1 : 4));
  hbm.ReadDebug(box.c_out, out.data.data(), out.data.size());
  if (!strata::sim::WriteNpy(out_path, out, error)) return input_error(error);
  const double macs = static_cast<double>(m) * k * n;
  const double n2 = double(box.array_n) * box.array_n;
  const double util = box.cycles ? macs / (n2 * double(box.cycles)) : 0.0;
  // Roofline: the array's MAC rate against moving every operand through HBM once at peak.
  const double hbm_bytes =
      double(m) * k + double(k) * n + double(m) * n * (int8 ? 1 : 4) + (c_path.empty() ? 0.0 : double(m) * n * 4);
  const double peak = config.hbm.PeakBytesPerCycle();
  const double compute_cycles = n2 > 0 ? macs / n2 : 0.0;
  const double memory_cycles = peak > 0 ? hbm_bytes / peak : 0.0;
  const double roofline = compute_cycles >= memory_cycles ? 1.0 : compute_cycles / memory_cycles;
  const double speed = r.wall_seconds > 0 ? r.cycles / r.wall_seconds : 0.0;
  if (json) {
    std::printf("{\"m\":%" PRIu64 ",\"k\":%" PRIu64 ",\"n\":%" PRIu64 ",\"array_n\":%u,\"cycles\":%" PRIu64
                ",\"utilization\":%.4f,\"roofline_utilization\":%.4f,\"hbm\":\"%s\",\"hbm_peak_bytes_per_cycle\":%.1f,"
                "\"hbm_bytes_min\":%.0f,\"run_cycles\":%" PRIu64
                ",\"mxu_commands\":%u,\"dma_descriptors\":%u,\"rows_streamed\":%u,\"starved_cycles\":%u,\"steps\":%u,"
                "\"dma_waits\":%u,\"skipped_cycles\":%" PRIu64
                ",\"wall_seconds\":%.3f,\"sim_cycles_per_second\":%.0f}\n",
                m, k, n, box.array_n, box.cycles, util, roofline, config.hbm.name.c_str(), peak, hbm_bytes, r.cycles,
                box.mxu_commands, box.dma_descriptors, box.rows_streamed, box.starved_cycles, box.steps, box.dma_waits,
                r.skipped_cycles, r.wall_seconds, speed);
  } else {
    std::printf("gemm %" PRIu64 "x%" PRIu64 "x%" PRIu64 " on a %ux%u array: %" PRIu64
                " cycles, utilization %.1f%% (roofline %.1f%% under %s; %u MXU commands, %u DMA descriptors, MXU"
                " starved %u cycles; run %" PRIu64 " cycles, %.2f M cycles/s)\n",
                m, k, n, box.array_n, box.array_n, box.cycles, 100 * util, 100 * roofline, config.hbm.name.c_str(),
                box.mxu_commands, box.dma_descriptors, box.starved_cycles, r.cycles, speed / 1e6);
  }
  return kExitPass;
}
}  // namespace

int sc_main(int argc, char* argv[]) {
  if (argc > 1 && std::strcmp(argv[1], "gemm") == 0) return RunGemm(argc, argv);
  strata::sim::PlatformConfig config;
  std::string elf_path;
  bool json = false;
  bool quiet = false;
  std::string hbm_preset = "HBM2";
  uint64_t hbm_capacity = 4ull << 30;
  HbmControllerOptions hbm_controller;
  strata::sim::RunTimelineOptions timeline;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](uint64_t& out) {
      if (i + 1 >= argc) return false;
      return ParseU64(argv[++i], out);
    };
    uint64_t v = 0;
    std::string why;
    if (arg == "-h" || arg == "--help") {
      PrintHelp();
      return kExitPass;
    } else if (ParseHbmControllerOption(arg, argc, argv, i, hbm_controller, why) ||
               ParseTimelineOption(arg, argc, argv, i, timeline, why)) {
      if (!why.empty()) return Usage(why);
    } else if (arg == "--max-cycles") {
      if (!value(v) || v == 0) return Usage("--max-cycles needs a positive number");
      config.max_cycles = v;
    } else if (arg == "--trace") {
      if (i + 1 >= argc) return Usage("--trace needs a file name");
      config.trace.path = argv[++i];
      const std::string& p = config.trace.path;
      const bool ok =
          (p.size() > 4 && (p.compare(p.size() - 4, 4, ".fst") == 0 || p.compare(p.size() - 4, 4, ".vcd") == 0));
      if (!ok) return Usage("--trace file must end in .fst or .vcd: " + p);
    } else if (arg == "--trace-start") {
      if (!value(v)) return Usage("--trace-start needs a cycle number");
      config.trace.start = v;
    } else if (arg == "--trace-end") {
      if (!value(v)) return Usage("--trace-end needs a cycle number");
      config.trace.end = v;
    } else if (arg == "--trace-depth") {
      if (!value(v) || v == 0 || v > 99) return Usage("--trace-depth needs a number from 1 to 99");
      config.trace.depth = static_cast<int>(v);
    } else if (arg == "--mxu-n") {
      if (!ParseMxuN(i + 1 < argc ? argv[++i] : nullptr, config.mxu_n, why)) return Usage(why);
    } else if (arg == "--hbm") {
      if (i + 1 >= argc) return Usage("--hbm needs a preset name (HBM2, HBM2e, HBM3)");
      hbm_preset = argv[++i];
    } else if (arg == "--hbm-capacity") {
      if (i + 1 >= argc || !ParseBytes(argv[++i], hbm_capacity) || hbm_capacity == 0) {
        return Usage("--hbm-capacity needs a size in bytes (e.g. 4G)");
      }
    } else if (arg == "--json") {
      json = true;
    } else if (arg == "--quiet") {
      quiet = true;
    } else if (arg == "--progress") {
      config.progress = true;
    } else if (arg == "--no-fast-forward") {
      config.fast_forward = false;
    } else if (!arg.empty() && arg[0] == '-') {
      return Usage("unknown option " + arg);
    } else if (elf_path.empty()) {
      elf_path = arg;
    } else {
      return Usage("more than one firmware file given");
    }
  }
  if (elf_path.empty()) return Usage("no firmware ELF given");
  if (!config.trace.path.empty()) {
    if (const std::string why = strata::sim::CheckWritableFile(config.trace.path); !why.empty()) {
      return Usage("cannot write the waveform " + config.trace.path + ": " + why);
    }
  }
  if (config.trace.end <= config.trace.start) return Usage("--trace-end must be after --trace-start");
  if (const std::string why = CheckTimelineOptions(timeline); !why.empty()) return Usage(why);
  if (!strata::hbm::HbmConfig::FromName(hbm_preset, &config.hbm, hbm_capacity)) {
    return Usage("unknown --hbm preset '" + hbm_preset + "' (HBM2, HBM2e, HBM3)");
  }
  hbm_controller.ApplyTo(config.hbm);
  if (const std::string why = config.hbm.Validate(); !why.empty()) return Usage("--hbm-capacity: " + why);

  strata::sim::ElfImage image;
  std::string error;
  if (!strata::sim::LoadElf(elf_path, STRATA_SMEM_BASE, STRATA_SMEM_SIZE, image, error)) {
    std::fprintf(stderr, "strata-sim: error: %s\n", error.c_str());
    return kExitUsage;
  }
  if (image.entry != STRATA_SMEM_BASE) {
    std::fprintf(stderr, "strata-sim: warning: entry point 0x%08x is not the reset vector 0x%08x\n", image.entry,
                 STRATA_SMEM_BASE);
  }
  if (!image.tohost) {
    std::fprintf(stderr, "strata-sim: warning: %s defines no `tohost`; the run can only end at --max-cycles\n",
                 elf_path.c_str());
  }

  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);  // "stopped by user"
  strata::sim::Platform platform("platform", config);
  platform.SetImage(image);
  std::unique_ptr<strata::sim::RunTimeline> run_timeline;
  if (!timeline.path.empty()) {
    run_timeline = strata::sim::RunTimeline::Start(platform.device(), timeline, "strata-sim " + elf_path, &error);
    if (!run_timeline) {
      std::fprintf(stderr, "strata-sim: error: cannot write the timeline %s: %s\n", timeline.path.c_str(),
                   error.c_str());
      return kExitUsage;
    }
  }
  const strata::sim::RunResult r = platform.Run();
  if (run_timeline) run_timeline->Finish();
  std::fflush(stdout);

  using strata::sim::RunOutcome;
  const char* verdict = r.outcome == RunOutcome::kPass      ? "PASS"
                        : r.outcome == RunOutcome::kFail    ? "FAIL"
                        : r.outcome == RunOutcome::kTimeout ? "TIMEOUT"
                                                            : "BAD_TOHOST";
  const double cpi = r.instret ? static_cast<double>(r.cycles) / r.instret : 0.0;
  const double speed = r.wall_seconds > 0 ? r.cycles / r.wall_seconds : 0.0;
  if (json) {
    // mxu_n is the size of the chip model that ran (the device's), not the --mxu-n that asked for it.
    std::printf("{\"elf\":\"%s\",\"result\":\"%s\",\"tohost\":%u,\"fail_code\":%u,\"cycles\":%" PRIu64
                ",\"instructions\":%" PRIu64 ",\"cpi\":%.4f,\"mxu_n\":%d,\"skipped_cycles\":%" PRIu64
                ",\"wall_seconds\":%.4f,\"sim_cycles_per_second\":%.0f%s%s%s}\n",
                elf_path.c_str(), verdict, r.tohost, r.fail_code, r.cycles, r.instret, cpi, platform.device().mxu_n(),
                r.skipped_cycles, r.wall_seconds, speed, config.trace.path.empty() ? "" : ",\"trace\":\"",
                config.trace.path.c_str(), config.trace.path.empty() ? "" : "\"");
  } else if (!quiet) {
    std::fprintf(stderr, "\nstrata-sim: %s", verdict);
    if (r.outcome == RunOutcome::kFail) std::fprintf(stderr, " (firmware code %u)", r.fail_code);
    if (r.outcome == RunOutcome::kBadTohost) std::fprintf(stderr, " (tohost = 0x%08x)", r.tohost);
    if (r.outcome == RunOutcome::kTimeout) std::fprintf(stderr, " (--max-cycles %" PRIu64 ")", config.max_cycles);
    std::fprintf(stderr,
                 "\n  cycles        %" PRIu64 "\n  instructions  %" PRIu64
                 "\n  CPI           %.3f\n  wall time     %.3f s\n  sim speed     %.2f M cycles/s\n",
                 r.cycles, r.instret, cpi, r.wall_seconds, speed / 1e6);
    if (!config.trace.path.empty()) std::fprintf(stderr, "  waveform      %s\n", config.trace.path.c_str());
  }
  switch (r.outcome) {
    case RunOutcome::kPass:
      return kExitPass;
    case RunOutcome::kFail:
      return kExitFail;
    case RunOutcome::kTimeout:
      return kExitTimeout;
    default:
      return kExitBadTohost;
  }
}

// Our own main (instead of libsystemc's) so the SystemC banner can be silenced before the
// kernel prints it: stdout carries console output and JSON.
int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
