// strata-sim: runs a firmware ELF on the Strata platform and reports what happened.
#include <systemc>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "elf_loader.h"
#include "platform.h"
#include "strata/regmap.h"

namespace {

enum ExitStatus { kExitPass = 0, kExitFail = 1, kExitUsage = 2, kExitTimeout = 3, kExitBadTohost = 4 };

void PrintHelp() {
  std::printf(
      "usage: strata-sim [options] FIRMWARE.elf\n"
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
      "  --hbm PRESET        HBM2 (default), HBM2e or HBM3\n"
      "  --hbm-capacity B    HBM capacity in bytes, K/M/G suffixes allowed (default 4G; up to 64G+;\n"
      "                      the backing store is sparse, so only touched pages cost host memory)\n"
      "  --json              print the summary as one JSON object\n"
      "  --quiet             no summary (console output and exit status only)\n"
      "  --progress          progress line on stderr every few seconds\n"
      "  -h, --help          this help\n"
      "\n"
      "exit status: 0 firmware passed (tohost = 1); 1 firmware failed (odd tohost, code = tohost >> 1);\n"
      "             2 bad usage or unloadable ELF; 3 --max-cycles reached; 4 unsupported tohost value\n");
}

// Bytes with an optional K/M/G suffix (powers of 1024).
bool ParseBytes(const char* text, uint64_t& out) {
  if (text == nullptr || *text == '\0' || *text == '-') return false;
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text, &end, 0);
  if (errno != 0 || end == text) return false;
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
  if (text == nullptr || *text == '\0' || *text == '-') return false;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 0);
  if (errno != 0 || *end != '\0') return false;
  out = v;
  return true;
}

int Usage(const std::string& why) {
  std::fprintf(stderr, "strata-sim: %s\nTry 'strata-sim --help'.\n", why.c_str());
  return kExitUsage;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  strata::sim::PlatformConfig config;
  std::string elf_path;
  bool json = false;
  bool quiet = false;
  std::string hbm_preset = "HBM2";
  uint64_t hbm_capacity = 4ull << 30;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](uint64_t& out) {
      if (i + 1 >= argc) return false;
      return ParseU64(argv[++i], out);
    };
    uint64_t v = 0;
    if (arg == "-h" || arg == "--help") {
      PrintHelp();
      return kExitPass;
    } else if (arg == "--max-cycles") {
      if (!value(v) || v == 0) return Usage("--max-cycles needs a positive number");
      config.max_cycles = v;
    } else if (arg == "--trace") {
      if (i + 1 >= argc) return Usage("--trace needs a file name");
      config.trace.path = argv[++i];
      const std::string& p = config.trace.path;
      const bool ok = (p.size() > 4 && (p.compare(p.size() - 4, 4, ".fst") == 0 || p.compare(p.size() - 4, 4, ".vcd") == 0));
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
    } else if (!arg.empty() && arg[0] == '-') {
      return Usage("unknown option " + arg);
    } else if (elf_path.empty()) {
      elf_path = arg;
    } else {
      return Usage("more than one firmware file given");
    }
  }
  if (elf_path.empty()) return Usage("no firmware ELF given");
  if (config.trace.end <= config.trace.start) return Usage("--trace-end must be after --trace-start");
  if (!strata::hbm::HbmConfig::FromName(hbm_preset, &config.hbm, hbm_capacity)) {
    return Usage("unknown --hbm preset '" + hbm_preset + "' (HBM2, HBM2e, HBM3)");
  }
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
  const strata::sim::RunResult r = platform.Run();
  std::fflush(stdout);

  using strata::sim::RunOutcome;
  const char* verdict = r.outcome == RunOutcome::kPass      ? "PASS"
                        : r.outcome == RunOutcome::kFail    ? "FAIL"
                        : r.outcome == RunOutcome::kTimeout ? "TIMEOUT"
                                                            : "BAD_TOHOST";
  const double cpi = r.instret ? static_cast<double>(r.cycles) / r.instret : 0.0;
  const double speed = r.wall_seconds > 0 ? r.cycles / r.wall_seconds : 0.0;
  if (json) {
    std::printf(
        "{\"elf\":\"%s\",\"result\":\"%s\",\"tohost\":%u,\"fail_code\":%u,\"cycles\":%" PRIu64
        ",\"instructions\":%" PRIu64 ",\"cpi\":%.4f,\"wall_seconds\":%.4f,\"sim_cycles_per_second\":%.0f%s%s%s}\n",
        elf_path.c_str(), verdict, r.tohost, r.fail_code, r.cycles, r.instret, cpi, r.wall_seconds, speed,
        config.trace.path.empty() ? "" : ",\"trace\":\"", config.trace.path.c_str(),
        config.trace.path.empty() ? "" : "\"");
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
    case RunOutcome::kPass: return kExitPass;
    case RunOutcome::kFail: return kExitFail;
    case RunOutcome::kTimeout: return kExitTimeout;
    default: return kExitBadTohost;
  }
}

// Our own main (instead of libsystemc's) so the SystemC banner can be silenced before the
// kernel prints it: stdout carries console output and JSON.
int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
