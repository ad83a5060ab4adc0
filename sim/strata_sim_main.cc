// strata-sim: runs a firmware ELF on the Strata platform and reports what happened; `strata-sim gemm` is
// strata_sim_gemm.cc, the options both share strata_sim_cli.h.
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <systemc>

#include "chip_model.h"
#include "elf_loader.h"
#include "hbm/hbm_model.h"
#include "platform.h"
#include "regular_file.h"
#include "run_timeline.h"
#include "strata/regmap.h"
#include "strata_sim_cli.h"
#include "strata_sim_gemm.h"

namespace {

using namespace strata::sim::cli;  // NOLINT: the command line's vocabulary (exit statuses, parsers)

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
      "  --trace-start C     first cycle to record (default 0); cycles count from power-on, so the\n"
      "                      ELF load comes first: the summary's `first cycle` is where the firmware starts\n"
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

}  // namespace

int sc_main(int argc, char* argv[]) {
  if (argc > 1 && std::strcmp(argv[1], "gemm") == 0) return strata::sim::RunGemm(argc, argv);
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
               ParseTraceOption(arg, argc, argv, i, config.trace, why) ||
               ParseTimelineOption(arg, argc, argv, i, timeline, why)) {
      if (!why.empty()) return Usage(why);
    } else if (arg == "--max-cycles") {
      if (!value(v) || v == 0) return Usage("--max-cycles needs a positive number");
      config.max_cycles = v;
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
  if (const std::string why = CheckTraceOptions(config.trace); !why.empty()) return Usage(why);
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
  if (run_timeline && !run_timeline->Finish()) {
    std::fprintf(stderr, "strata-sim: error: the timeline %s could not be written completely\n", timeline.path.c_str());
    return kExitFail;
  }
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
    // Strings through nlohmann-json: a path with a quote or a backslash still gives a well-formed line.
    nlohmann::ordered_json j{{"elf", elf_path},
                             {"result", verdict},
                             {"tohost", r.tohost},
                             {"fail_code", r.fail_code},
                             {"cycles", r.cycles},
                             {"instructions", r.instret},
                             {"cpi", Round(cpi, 4)},
                             {"mxu_n", platform.device().mxu_n()},
                             {"start_cycle", r.start_cycle},
                             {"skipped_cycles", r.skipped_cycles},
                             {"wall_seconds", Round(r.wall_seconds, 4)},
                             {"sim_cycles_per_second", std::llround(speed)}};
    if (!config.trace.path.empty()) j["trace"] = config.trace.path;
    std::printf("%s\n", j.dump().c_str());
  } else if (!quiet) {
    std::fprintf(stderr, "\nstrata-sim: %s", verdict);
    if (r.outcome == RunOutcome::kFail) std::fprintf(stderr, " (firmware code %u)", r.fail_code);
    if (r.outcome == RunOutcome::kBadTohost) std::fprintf(stderr, " (tohost = 0x%08x)", r.tohost);
    if (r.outcome == RunOutcome::kTimeout) std::fprintf(stderr, " (--max-cycles %" PRIu64 ")", config.max_cycles);
    std::fprintf(stderr,
                 "\n  cycles        %" PRIu64 "\n  instructions  %" PRIu64
                 "\n  CPI           %.3f\n  wall time     %.3f s\n  sim speed     %.2f M cycles/s\n",
                 r.cycles, r.instret, cpi, r.wall_seconds, speed / 1e6);
    std::fprintf(stderr,
                 "  first cycle   %" PRIu64 " (reset released after the ELF load; waveform time %" PRIu64 " ns)\n",
                 r.start_cycle, r.start_cycle);
    if (!config.trace.path.empty()) {
      std::fprintf(stderr, "  waveform      %s\n", config.trace.path.c_str());
      // The core's view with function names and decoded instructions (docs/waveforms.md).
      std::fprintf(stderr,
                   "  view it with  scripts/gtkwave_symbols.py %s -o out/core-symbols.gtkw --wave %s"
                   " && gtkwave out/core-symbols.gtkw\n",
                   elf_path.c_str(), config.trace.path.c_str());
    }
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
