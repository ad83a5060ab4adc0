// strata-sim's command line (see strata_sim_cli.h).
#include "strata_sim_cli.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "chip_model.h"
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

namespace {

// The value after `arg` (advancing i), read by `parse`: false, with why = "ARG needs WHAT", when it is missing or
// does not parse.
bool NumberAfter(const std::string& arg, int argc, char* argv[], int& i, bool (*parse)(const char*, uint64_t&),
                 const char* what, uint64_t& v, std::string& why) {
  if (i + 1 >= argc || !parse(argv[++i], v)) why = arg + " needs " + what;
  return why.empty();
}

}  // namespace

int Usage(const std::string& why) {
  std::fprintf(stderr, "strata-sim: %s\nTry 'strata-sim --help'.\n", why.c_str());
  return kExitUsage;
}

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

bool ParseHbmControllerOption(const std::string& arg, int argc, char* argv[], int& i, HbmControllerOptions& out,
                              std::string& why) {
  if (arg == "--hbm-address-map") {
    const char* text = i + 1 < argc ? argv[++i] : nullptr;
    if (text == nullptr) {
      why = "--hbm-address-map needs a name (xor-hash, linear)";
    } else if (!hbm::AddressMapFromName(text, &out.address_map)) {
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

bool ParseTraceOption(const std::string& arg, int argc, char* argv[], int& i, TraceOptions& out, std::string& why) {
  uint64_t v = 0;
  if (arg == "--trace") {
    if (i + 1 >= argc) {
      why = "--trace needs a file name";
      return true;
    }
    out.path = argv[++i];
    const std::string& f = out.path;
    const bool ok =
        f.size() > 4 && (f.compare(f.size() - 4, 4, ".fst") == 0 || f.compare(f.size() - 4, 4, ".vcd") == 0);
    if (!ok) why = "--trace file must end in .fst or .vcd: " + f;
  } else if (arg == "--trace-start") {
    if (NumberAfter(arg, argc, argv, i, ParseU64, "a cycle number", v, why)) out.start = v;
  } else if (arg == "--trace-end") {
    if (NumberAfter(arg, argc, argv, i, ParseU64, "a cycle number", v, why)) out.end = v;
  } else if (arg == "--trace-depth") {
    const char* what = "a number from 1 to 99";
    if (NumberAfter(arg, argc, argv, i, ParseU64, what, v, why) && (v == 0 || v > 99)) why = arg + " needs " + what;
    if (why.empty()) out.depth = static_cast<int>(v);
  } else {
    return false;
  }
  return true;
}

std::string CheckTraceOptions(const TraceOptions& t) {
  if (t.end <= t.start) return "--trace-end must be after --trace-start";
  if (t.path.empty()) return "";
  if (const std::string why = CheckWritableFile(t.path); !why.empty()) {
    return "cannot write the waveform " + t.path + ": " + why;
  }
  return "";
}

bool ParseTimelineOption(const std::string& arg, int argc, char* argv[], int& i, RunTimelineOptions& out,
                         std::string& why) {
  uint64_t v = 0;
  if (arg == "--timeline") {
    if (i + 1 >= argc || argv[i + 1][0] == '\0') {
      why = "--timeline needs a file name";
    } else {
      out.path = argv[++i];
    }
  } else if (arg == "--timeline-start") {
    if (NumberAfter(arg, argc, argv, i, ParseU64, "a cycle number", v, why)) out.window.start_cycle = v;
  } else if (arg == "--timeline-end") {
    if (NumberAfter(arg, argc, argv, i, ParseU64, "a cycle number", v, why)) out.window.end_cycle = v;
  } else if (arg == "--timeline-max-bytes") {
    const std::string least = std::to_string(timeline::TraceFile::kMinMaxBytes);
    if (NumberAfter(arg, argc, argv, i, ParseBytes, ("a size in bytes (at least " + least + ")").c_str(), v, why) &&
        v < timeline::TraceFile::kMinMaxBytes) {
      why = "--timeline-max-bytes must be at least " + least;
    }
    if (why.empty()) out.max_bytes = v;
  } else {
    return false;
  }
  return true;
}

std::string CheckTimelineOptions(const RunTimelineOptions& t) {
  if (t.window.end_cycle <= t.window.start_cycle) return "--timeline-end must be after --timeline-start";
  if (t.path.empty()) return "";
  if (const std::string why = CheckWritableFile(t.path); !why.empty()) {
    return "cannot write the timeline " + t.path + ": " + why;
  }
  return "";
}

}  // namespace strata::sim::cli
