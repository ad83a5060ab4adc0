// strata-import: converts a workload users already have (PyTorch memory snapshot, RMM log, trace CSV) into
// the CSV trace format strata-replay reads, with a one-line summary on stderr.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "workload.h"

namespace {

constexpr const char* kUsage =
    "usage: strata-import INPUT [--format auto|csv|torch|rmm] [--device N] [-o OUT.csv] [--summary]\n"
    "                     [--max-input-bytes N]\n"
    "\n"
    "Converts a workload into the buffer-lifetime trace CSV (header id,lower,upper,size) that\n"
    "strata-replay reads, and prints a one-line summary on stderr (events, buffers, buffers live\n"
    "from the start, peak live bytes, events skipped). Times are event indices in the source.\n"
    "\n"
    "  --format F        auto (default: by the first bytes), torch (a PyTorch memory snapshot:\n"
    "                    torch.cuda.memory._dump_snapshot pickle, or JSON), rmm (an RMM\n"
    "                    logging_resource_adaptor log), csv (a trace CSV, checked and rewritten)\n"
    "  --device N        torch: the device whose trace to import (default 0)\n"
    "  -o OUT.csv        write the trace there (default: standard output)\n"
    "  --summary         only the summary: no trace on standard output (still written with -o)\n"
    "  --max-input-bytes N  refuse larger inputs (default 1073741824)\n"
    "  --help            this text\n"
    "\n"
    "Pickles are read by a data-only reader: nothing in them is imported or executed, and a pickle\n"
    "that asks for a Python object (GLOBAL, REDUCE, ...) is refused. See docs/workloads.md.\n"
    "\n"
    "Exit status: 0 on success, 1 when the output cannot be written, 2 on bad usage or input (the\n"
    "message names the byte offset or line of what could not be read).\n";

int Usage(const std::string& message) {
  std::fprintf(stderr, "strata-import: %s\n\n%s", message.c_str(), kUsage);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace strata::workload;
  std::string input, output;
  bool have_input = false, summary_only = false;
  Format format = Format::kAuto;
  ImportOptions options;
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
    } else if (arg == "--format") {
      if (!value(&v)) return Usage("--format needs a value");
      if (!ParseFormat(v, &format)) return Usage("unknown format '" + v + "' (auto, csv, torch, rmm)");
    } else if (arg == "--device") {
      uint64_t n;
      if (!value(&v)) return Usage("--device needs a value");
      if (!ParseCount(v, &n) || n > 1'000'000) return Usage("--device '" + v + "' is not a device index");
      options.device = static_cast<int64_t>(n);
    } else if (arg == "-o" || arg == "--output") {
      if (!value(&output)) return Usage(arg + " needs a file name");
    } else if (arg == "--summary") {
      summary_only = true;
    } else if (arg == "--max-input-bytes") {
      if (!value(&v)) return Usage("--max-input-bytes needs a value");
      if (!ParseCount(v, &options.max_input_bytes)) return Usage("--max-input-bytes '" + v + "' is not a byte count");
      options.pickle.max_bytes = options.json.max_bytes = options.max_input_bytes;
    } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
      return Usage("unknown option '" + arg + "'");
    } else if (have_input) {
      return Usage("more than one input ('" + input + "', '" + arg + "')");
    } else {
      input = arg;
      have_input = true;
    }
  }
  if (!have_input) return Usage("no input file");

  strata::replay::Trace trace;
  ImportStats stats;
  std::string error;
  if (!ImportFile(input, format, options, &trace, &stats, &error)) {
    std::fprintf(stderr, "strata-import: %s\n", error.c_str());
    return 2;
  }
  if (!output.empty()) {
    std::ofstream out(output, std::ios::binary | std::ios::trunc);
    if (!out) {
      std::fprintf(stderr, "strata-import: %s: cannot write\n", output.c_str());
      return 1;
    }
    if (!WriteTraceCsv(trace, out, &error) || !out.flush()) {
      std::fprintf(stderr, "strata-import: %s: %s\n", output.c_str(), error.empty() ? "write failed" : error.c_str());
      return 1;
    }
  } else if (!summary_only) {
    if (!WriteTraceCsv(trace, std::cout, &error) || !std::cout.flush()) {
      std::fprintf(stderr, "strata-import: standard output: %s\n", error.empty() ? "write failed" : error.c_str());
      return 1;
    }
  }
  std::fprintf(stderr, "strata-import: %s\n", SummaryLine(trace, stats).c_str());
  return 0;
}
