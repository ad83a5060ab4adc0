// strata-sim: runs a firmware ELF on the Strata platform and reports what happened; `strata-sim gemm` is
// strata_sim_gemm.cc, `strata-sim vector` strata_sim_vector.cc, the options they share strata_sim_cli.h.
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
#include "firmware_image.h"
#include "hbm/hbm_model.h"
#include "platform.h"
#include "regular_file.h"
#include "run_timeline.h"
#include "strata/regmap.h"
#include "strata_sim_cli.h"
#include "strata_sim_gemm.h"
#include "strata_sim_vector.h"
#include "tool_cli.h"

namespace {

using namespace strata::sim::cli;  // NOLINT: the command line's vocabulary (exit statuses, parsers)

constexpr const char* kSynopsis =
    "strata-sim [options] FIRMWARE.elf\n"
    "       strata-sim gemm --a A.npy --b B.npy --out C.npy [gemm options]   (see strata-sim gemm --help)\n"
    "       strata-sim vector OP --a A.npy [--b B.npy] --out C.npy [options]   (see strata-sim vector --help)";
constexpr const char* kDescription =
    "Runs an RV32 ELF on the Strata model until the firmware stores to `tohost` (HTIF)\n"
    "or --max-cycles pass, then prints a summary.";
constexpr const char* kFooter =
    "exit status: 0 firmware passed (tohost = 1); 1 firmware failed (odd tohost, code = tohost >> 1);\n"
    "             2 bad usage or unloadable ELF; 3 --max-cycles reached; 4 unsupported tohost value";

// The whole run (either program); sc_main wraps it.
int SimMain(int argc, char* argv[]) {
  if (argc > 1 && std::strcmp(argv[1], "gemm") == 0) return strata::sim::RunGemm(argc, argv);
  if (argc > 1 && std::strcmp(argv[1], "vector") == 0) return strata::sim::RunVector(argc, argv);
  strata::sim::PlatformConfig config;
  std::string elf_path;
  bool json = false;
  bool quiet = false;
  std::string hbm_preset = strata::hbm::kDefaultHbmPreset;
  uint64_t hbm_capacity = 4ull << 30;
  HbmControllerOptions hbm_controller;
  strata::sim::RunTimelineOptions timeline;
  CLI::App app{kDescription, "strata-sim"};
  strata::cli::Setup(app, kSynopsis, kFooter);
  app.add_option("FIRMWARE.elf", elf_path, "an RV32 ELF whose loadable segments fit in SMEM");
  AddMaxCyclesOption(app, config.max_cycles, "stop after N cycles (default 200000000)");
  AddTraceOptions(app, config.trace);
  AddMxuNOption(app, config.mxu_n);
  AddHbmPresetOption(app, hbm_preset);
  strata::cli::AddTaken(
      app, "--hbm-capacity", "B",
      [&](const std::string& text) -> std::string {
        if (!ParseBytes(text.c_str(), hbm_capacity) || hbm_capacity == 0) {
          return "--hbm-capacity needs a size in bytes (e.g. 4G)";
        }
        return "";
      },
      "HBM capacity in bytes, K/M/G suffixes allowed (default 4G; up to 64G+;\n"
      "the backing store is sparse, so only touched pages cost host memory)");
  AddHbmControllerOptions(app, hbm_controller);
  AddTimelineOptions(app, timeline);
  app.add_flag("--json", json, "print the summary as one JSON object");
  app.add_flag("--quiet", quiet, "no summary (console output and exit status only)");
  app.add_flag("--progress", config.progress, "progress line on stderr every few seconds");
  app.add_flag_callback(
      "--no-fast-forward", [&] { config.fast_forward = false; },
      "evaluate the chip in every cycle, also while it is quiescent (the core asleep\n"
      "in wfi, DMA and matrix unit waiting), at every falling edge, and with the idle\n"
      "DMA's, matrix unit's and memories' clocks running: the same cycle counts, only\n"
      "slower");
  if (int rc = strata::cli::Parse(app, argc, argv); rc != strata::cli::kContinue) return rc;
  if (elf_path.empty()) return Usage("no firmware ELF given");
  if (const std::string why = CheckTraceOptions(config.trace); !why.empty()) return Usage(why);
  if (const std::string why = CheckTimelineOptions(timeline); !why.empty()) return Usage(why);
  if (const std::string clash = strata::tool::CheckOutputsApart(
          {{"the ELF", elf_path}}, {{"--trace", config.trace.path}, {"--timeline", timeline.path}});
      !clash.empty()) {
    return Usage(clash);
  }
  if (const std::string why = CheckHbmPreset(hbm_preset); !why.empty()) return Usage(why);
  strata::hbm::HbmConfig::FromName(hbm_preset, &config.hbm, hbm_capacity);
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
                             {"elided_falling_edges", r.elided_falling_edges},
                             {"dma_gated_cycles", r.dma_gated_cycles},
                             {"mxu_gated_cycles", r.mxu_gated_cycles},
                             {"wall_seconds", Round(r.wall_seconds, 4)},
                             {"sim_cycles_per_second", std::llround(speed)}};
    if (!config.trace.path.empty()) j["trace"] = config.trace.path;
    std::printf("%s\n", j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace).c_str());
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
      const std::string symbols = strata::sim::GtkwaveSymbolsCommand();
      const char* view = symbols.rfind("scripts/", 0) == 0 ? "out/core-symbols.gtkw" : "core-symbols.gtkw";
      std::fprintf(stderr, "  view it with  %s %s -o %s --wave %s && gtkwave %s\n", symbols.c_str(), elf_path.c_str(),
                   view, config.trace.path.c_str(), view);
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

}  // namespace

// Host out of memory while parsing, loading or running: a message and exit status 1 (tool_cli.h), not SystemC's
// report of an unknown exception.
int sc_main(int argc, char* argv[]) { return strata::cli::RunMain("strata-sim", SimMain, argc, argv); }

// Our own main (instead of libsystemc's) so the SystemC banner can be silenced before the
// kernel prints it: stdout carries console output and JSON.
int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
