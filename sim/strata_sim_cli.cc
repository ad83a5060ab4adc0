// strata-sim's command line (see strata_sim_cli.h).
#include "strata_sim_cli.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "chip_model.h"
#include "names.h"
#include "regular_file.h"

namespace strata::sim::cli {
// A decimal number, or hex with 0x. No sign, no spaces, and no leading zero ("010" would be octal to strtoull
// and 10 to a person: refused). *end is left after the digits.
namespace {

bool ParseNumber(const char* text, unsigned long long& v, char** end) {
  if (text == nullptr || !std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  const bool hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  if (!hex && text[0] == '0' && std::isdigit(static_cast<unsigned char>(text[1]))) return false;
  if (hex && !std::isxdigit(static_cast<unsigned char>(text[2]))) return false;
  errno = 0;
  v = std::strtoull(text, end, hex ? 16 : 10);
  return errno == 0 && *end != text;
}

}  // namespace

// Bytes with an optional K/M/G suffix (powers of 1024).
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

int Usage(const std::string& why, const std::string& program) { return strata::cli::Usage(program, why); }

bool ParseMxuN(const char* text, int& out, std::string& why) {
  uint64_t v = 0;
  if (text == nullptr || !ParseU64(text, v) || !IsBuiltMxuSize(static_cast<int64_t>(v))) {
    why = std::string("--mxu-n ") + (text ? text : "") +
          ": this build has no such chip (built: " + BuiltMxuSizesText() + ")";
    return false;
  }
  out = static_cast<int>(v);
  return true;
}

namespace {

using strata::cli::AddTaken;

// Option `name` taking a cycle number into `out`: "NAME needs a cycle number" when it does not parse.
void AddCycleOption(CLI::App& app, const std::string& name, uint64_t& out, const std::string& help) {
  AddTaken(
      app, name, "C",
      [name, &out](const std::string& v) -> std::string {
        uint64_t n = 0;
        if (!ParseU64(v.c_str(), n)) return name + " needs a cycle number";
        out = n;
        return "";
      },
      help);
}

}  // namespace

void AddMxuNOption(CLI::App& app, int& out) {
  AddTaken(
      app, "--mxu-n", "N",
      [&out](const std::string& v) {
        std::string why;
        ParseMxuN(v.c_str(), out, why);
        return why;
      },
      "the chip with an N x N matrix unit (default 16; this build has " + BuiltMxuSizesText() + ")");
}

void AddMaxCyclesOption(CLI::App& app, uint64_t& out, const std::string& help) {
  AddTaken(
      app, "--max-cycles", "N",
      [&out](const std::string& text) -> std::string {
        uint64_t v = 0;
        if (!ParseU64(text.c_str(), v) || v == 0) return "--max-cycles needs a positive number";
        out = v;
        return "";
      },
      help);
}

void AddHbmPresetOption(CLI::App& app, std::string& out) {
  const std::vector<std::string> names = tool::NamesOf(hbm::HbmPresets());
  app.add_option("--hbm", out, tool::ChoicesWithDefault(names, hbm::kDefaultHbmPreset))->type_name("PRESET");
}

std::string CheckHbmPreset(const std::string& preset) {
  hbm::HbmConfig unused;
  if (hbm::HbmConfig::FromName(preset, &unused)) return "";
  return "unknown --hbm preset '" + preset + "' (" + tool::JoinNames(tool::NamesOf(hbm::HbmPresets())) + ")";
}

void AddHbmControllerOptions(CLI::App& app, HbmControllerOptions& out) {
  AddTaken(
      app, "--hbm-address-map", "xor-hash|linear",
      [&out](const std::string& v) -> std::string {
        if (!hbm::AddressMapFromName(v.c_str(), &out.address_map)) {
          return "unknown --hbm-address-map '" + v + "' (xor-hash, linear)";
        }
        return "";
      },
      "xor-hash (default: higher address bits XOR-folded into channel and bank) or\n"
      "linear (plain bit fields, the old map; docs/hbm.md)");
  AddTaken(
      app, "--hbm-row-hit-cap", "N",
      [&out](const std::string& v) -> std::string {
        uint64_t n = 0;
        if (!ParseU64(v.c_str(), n) || n > UINT32_MAX) return "--hbm-row-hit-cap needs a number >= 0 (0 = no cap)";
        out.row_hit_cap = static_cast<uint32_t>(n);
        return "";
      },
      "columns an open row serves while an older request to another row of its bank waits\n"
      "(default 4; 0 = no cap, plain FR-FCFS, the old scheduler)");
  AddTaken(
      app, "--hbm-row-hit-count", "since-act|bypasses",
      [&out](const std::string& v) -> std::string {
        if (!hbm::RowHitCountFromName(v, &out.row_hit_count)) {
          return "unknown --hbm-row-hit-count '" + v + "' (" + hbm::RowHitCountChoices() + ")";
        }
        return "";
      },
      std::string("what the row-hit cap counts: since-act (every column since the row's ACT, as DRAMsim3)\n"
                  "or bypasses (only hits served past the waiting request, as FR-FCFS+Cap's paper);\n"
                  "default ") +
          hbm::RowHitCountName(hbm::HbmConfig{}.row_hit_count) + " (docs/hbm.md)");
}

void AddTraceOptions(CLI::App& app, TraceOptions& out) {
  AddTaken(
      app, "--trace", "FILE",
      [&out](const std::string& f) -> std::string {
        out.path = f;
        const bool ok =
            f.size() > 4 && (f.compare(f.size() - 4, 4, ".fst") == 0 || f.compare(f.size() - 4, 4, ".vcd") == 0);
        return ok ? "" : "--trace file must end in .fst or .vcd: " + f;
      },
      "write a waveform: FILE.fst (default format) or FILE.vcd");
  AddCycleOption(app, "--trace-start", out.start,
                 "first cycle to record (default 0); cycles count from power-on, so the\n"
                 "ELF load comes first: the summary's `first cycle` is where the firmware starts");
  AddCycleOption(app, "--trace-end", out.end, "stop recording at cycle C (default: end of run)");
  AddTaken(
      app, "--trace-depth", "D",
      [&out](const std::string& v) -> std::string {
        uint64_t n = 0;
        if (!ParseU64(v.c_str(), n) || n == 0 || n > 99) return "--trace-depth needs a number from 1 to 99";
        out.depth = static_cast<int>(n);
        return "";
      },
      "hierarchy levels to record (default: all)");
}

std::string CheckTraceOptions(const TraceOptions& t) {
  if (t.end <= t.start) return "--trace-end must be after --trace-start";
  if (t.path.empty()) return "";
  if (const std::string why = tool::CheckWritableFile(t.path); !why.empty()) {
    return "cannot write the waveform " + t.path + ": " + why;
  }
  return "";
}

void AddTimelineOptions(CLI::App& app, RunTimelineOptions& out) {
  AddTaken(
      app, "--timeline", "FILE",
      [&out](const std::string& v) -> std::string {
        if (v.empty()) return "--timeline needs a file name";
        out.path = v;
        return "";
      },
      "write the run as a Perfetto timeline (trace-event JSON; docs/timelines.md): the\n"
      "DMA's row commands, HBM traffic, the core's awake time");
  AddCycleOption(app, "--timeline-start", out.window.start_cycle, "first cycle of the timeline (default 0)");
  AddCycleOption(app, "--timeline-end", out.window.end_cycle,
                 "end of the timeline's cycle window (default: end of run)");
  const std::string least = std::to_string(timeline::TraceFile::kMinMaxBytes);
  AddTaken(
      app, "--timeline-max-bytes", "N",
      [&out, least](const std::string& v) -> std::string {
        uint64_t n = 0;
        if (!ParseBytes(v.c_str(), n)) return "--timeline-max-bytes needs a size in bytes (at least " + least + ")";
        if (n < timeline::TraceFile::kMinMaxBytes) return "--timeline-max-bytes must be at least " + least;
        out.max_bytes = n;
        return "";
      },
      "bound on the timeline file, K/M/G suffixes (default 256M)");
}

std::string CheckTimelineOptions(const RunTimelineOptions& t) {
  if (t.window.end_cycle <= t.window.start_cycle) return "--timeline-end must be after --timeline-start";
  if (t.path.empty()) return "";
  if (const std::string why = tool::CheckWritableFile(t.path); !why.empty()) {
    return "cannot write the timeline " + t.path + ": " + why;
  }
  return "";
}

}  // namespace strata::sim::cli
