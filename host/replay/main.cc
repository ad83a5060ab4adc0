// strata-replay: replays a buffer-lifetime trace through the firmware HBM allocator and reports footprint,
// failures and compaction traffic.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "replay.h"

namespace {

constexpr const char* kUsage =
    "usage: strata-replay TRACE.csv [--policy tlsf|best-fit|first-fit] [--compaction off|on-oom]\n"
    "                     [--capacity BYTES|<F>x] [--granule BYTES] [--json] [--check] [--verbose]\n"
    "\n"
    "Replays a buffer-lifetime trace (CSV header id,lower,upper,size; see data/traces/README.md)\n"
    "through the Strata firmware HBM allocator: at each time, buffers whose upper bound is reached\n"
    "are freed, then buffers whose lower bound is reached are allocated, in file order.\n"
    "\n"
    "  --policy P        placement policy (default tlsf)\n"
    "  --compaction M    off (default) or on-oom: when an allocation fails although enough memory\n"
    "                    is free in total, move as few bytes as possible to make room, then retry\n"
    "  --capacity C      heap size: BYTES (suffixes K M G T, KiB MiB GiB TiB) or <F>x, F times the\n"
    "                    trace's max load (peak of live sizes rounded up to the granule).\n"
    "                    Default: unbounded, and the footprint (highest address used) is reported\n"
    "  --granule BYTES   allocation granule, a power of two <= 65536 (default 256)\n"
    "  --json            print one JSON object instead of the table\n"
    "  --check           run the allocator's Check() after every operation (slow)\n"
    "  --verbose         one line on stderr per compaction: request, bytes moved, and what sliding\n"
    "                    every buffer down would have moved\n"
    "  --help            this text\n"
    "\n"
    "Exit status: 0 when every allocation succeeded, 1 when some failed, 2 on bad usage or input.\n";

int Usage(const std::string& message) {
  std::fprintf(stderr, "strata-replay: %s\n\n%s", message.c_str(), kUsage);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string trace_path, capacity_text;
  strata::replay::ReplayOptions options;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= argc) return false;
      *out = argv[++i];
      return true;
    };
    std::string v;
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (arg == "--json") {
      json = true;
    } else if (arg == "--verbose" || arg == "-v") {
      options.verbose = true;
    } else if (arg == "--check") {
      options.check_every_op = true;
    } else if (arg == "--policy") {
      if (!value(&v)) return Usage("--policy needs a value");
      if (!strata::alloc::ParsePolicy(v.c_str(), &options.policy)) {
        return Usage("unknown policy '" + v + "' (tlsf, best-fit or first-fit)");
      }
    } else if (arg == "--compaction") {
      if (!value(&v)) return Usage("--compaction needs a value");
      if (v == "off") {
        options.compaction_on_oom = false;
      } else if (v == "on-oom") {
        options.compaction_on_oom = true;
      } else {
        return Usage("unknown compaction mode '" + v + "' (off or on-oom)");
      }
    } else if (arg == "--capacity") {
      if (!value(&capacity_text)) return Usage("--capacity needs a value");
    } else if (arg == "--granule") {
      if (!value(&v)) return Usage("--granule needs a value");
      char* end = nullptr;
      const unsigned long long g = std::strtoull(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || g == 0 || (g & (g - 1)) != 0 || g > strata::alloc::kMaxGranuleBytes) {
        return Usage("--granule must be a power of two between 1 and 65536 (got '" + v + "')");
      }
      options.granule_bytes = static_cast<uint32_t>(g);
    } else if (!arg.empty() && arg[0] == '-') {
      return Usage("unknown option '" + arg + "'");
    } else if (trace_path.empty()) {
      trace_path = arg;
    } else {
      return Usage("more than one trace given ('" + trace_path + "' and '" + arg + "')");
    }
  }
  if (trace_path.empty()) return Usage("no trace given");

  strata::replay::Trace trace;
  std::string error;
  if (!strata::replay::LoadTrace(trace_path, &trace, &error)) {
    std::fprintf(stderr, "strata-replay: %s\n", error.c_str());
    return 2;
  }
  if (!capacity_text.empty()) {
    const uint64_t max_load = strata::replay::MaxLoad(trace, options.granule_bytes);
    if (!strata::replay::ParseCapacity(capacity_text, max_load, options.granule_bytes, &options.capacity_bytes,
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
        std::fprintf(stderr, "\rstrata-replay: %s %zu/%zu events (%zu%%)", trace.name.c_str(), done, total,
                     done * 100 / total);
      } else if (done * 4 / total > last_quarter) {
        last_quarter = done * 4 / total;
        std::fprintf(stderr, "strata-replay: %s %zu/%zu events (%zu%%)\n", trace.name.c_str(), done, total,
                     done * 100 / total);
      }
    };
  }
  strata::replay::ReplayResult result;
  const bool ok = strata::replay::Replay(trace, options, &result, &error);
  if (options.progress && tty) std::fprintf(stderr, "\r\033[K");
  if (!ok) {
    std::fprintf(stderr, "strata-replay: %s: %s\n", trace_path.c_str(), error.c_str());
    return 2;
  }
  if (json) {
    std::printf("%s\n", strata::replay::ToJson(result).c_str());
  } else {
    std::fputs(strata::replay::ToTable(result).c_str(), stdout);
  }
  return result.failed_allocs == 0 ? 0 : 1;
}
