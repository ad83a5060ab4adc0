// strata-sim's command line, shared by its two programs (runs: strata_sim_main.cc; `gemm`:
// strata_sim_gemm.cc): exit statuses, numbers and sizes, and the options both take (matrix-unit size, HBM
// controller, waveform window, timeline), each added to the program's CLI11 App (tool_cli.h) and checked in one
// place.
#ifndef STRATA_SIM_STRATA_SIM_CLI_H_
#define STRATA_SIM_STRATA_SIM_CLI_H_

#include <cmath>
#include <cstdint>
#include <string>

#include "hbm/hbm_config.h"
#include "platform.h"
#include "run_timeline.h"
#include "tool_cli.h"

namespace strata::sim::cli {

enum ExitStatus { kExitPass = 0, kExitFail = 1, kExitUsage = 2, kExitTimeout = 3, kExitBadTohost = 4 };

// A decimal number, or hex with 0x; no sign, no spaces, no leading zero. ParseBytes also takes a K/M/G suffix.
bool ParseU64(const char* text, uint64_t& out);
bool ParseBytes(const char* text, uint64_t& out);

// x to `digits` decimals, for the --json lines (nlohmann-json then prints the shortest text for it).
inline double Round(double x, int digits) {
  const double scale = std::pow(10.0, digits);
  return std::round(x * scale) / scale;
}

// Prints "PROGRAM: WHY" and the --help hint on stderr; returns kExitUsage.
int Usage(const std::string& why, const std::string& program = "strata-sim");

// --mxu-n N: a size this build has a chip for; otherwise the message that names the built ones.
bool ParseMxuN(const char* text, int& out, std::string& why);

// The HBM controller options both programs take: --hbm-address-map, --hbm-row-hit-cap and
// --hbm-row-hit-count. They are kept here and applied after HbmConfig::FromName, which replaces the
// whole configuration with the preset.
struct HbmControllerOptions {
  hbm::AddressMap address_map = hbm::HbmConfig{}.address_map;
  uint32_t row_hit_cap = hbm::HbmConfig{}.row_hit_cap;
  hbm::RowHitCount row_hit_count = hbm::HbmConfig{}.row_hit_count;

  void ApplyTo(hbm::HbmConfig& hbm) const {
    hbm.address_map = address_map;
    hbm.row_hit_cap = row_hit_cap;
    hbm.row_hit_count = row_hit_count;
  }
};

// Each Add*Options adds its options to `app`, writing `out` as they are parsed; a value that is wrong is a usage
// error naming the option.
// --mxu-n N.
void AddMxuNOption(CLI::App& app, int& out);
// --max-cycles N (positive); `help` says what happens then and the program's default.
void AddMaxCyclesOption(CLI::App& app, uint64_t& out, const std::string& help);
// --hbm PRESET: the name of one of hbm::HbmPresets() (the default kDefaultHbmPreset), checked after parsing with
// the capacity (CheckHbmPreset).
void AddHbmPresetOption(CLI::App& app, std::string& out);
// "" when `preset` names an HBM preset (case-insensitive, as HbmConfig::FromName reads it); else the usage error.
std::string CheckHbmPreset(const std::string& preset);
// --hbm-address-map M, --hbm-row-hit-cap N.
void AddHbmControllerOptions(CLI::App& app, HbmControllerOptions& out);
// --trace FILE (.fst or .vcd), --trace-start C, --trace-end C, --trace-depth D.
void AddTraceOptions(CLI::App& app, TraceOptions& out);
// --timeline FILE, --timeline-start C, --timeline-end C, --timeline-max-bytes N (run_timeline.h).
void AddTimelineOptions(CLI::App& app, RunTimelineOptions& out);

// Once parsed: "" when the options are good (or not given), else what is wrong (a window that ends before it
// starts, a file that cannot be written).
std::string CheckTraceOptions(const TraceOptions& t);
std::string CheckTimelineOptions(const RunTimelineOptions& t);

}  // namespace strata::sim::cli

#endif  // STRATA_SIM_STRATA_SIM_CLI_H_
