// strata-import: converts a workload users already have (PyTorch memory snapshot, RMM log, trace CSV) into
// the CSV trace format strata-replay reads, with a one-line summary on stderr.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "names.h"
#include "regular_file.h"
#include "text.h"
#include "tool_cli.h"
#include "workload.h"
#include "xla_cli.h"

namespace {

// The usage line; the formats come from their table (workload.h: Formats).
std::string Synopsis() {
  return "strata-import INPUT [--format " +
         strata::tool::JoinNames(strata::tool::NamesOf(strata::workload::Formats()), "|", "|") +
         "] [--device N] [-o OUT.csv] [--summary]\n"
         "                     [--max-input-bytes N] [--xla-view executable|steps] [--xla-steps N] [--xla-module S]\n"
         "                     [--tpu-pad]";
}
constexpr const char* kDescription =
    "Converts a workload into the buffer-lifetime trace CSV (header id,lower,upper,size) that\n"
    "strata-replay reads, and prints a one-line summary on stderr (events, buffers, buffers live\n"
    "from the start, peak live bytes, events skipped). Times are event indices in the source.";
constexpr const char* kFooter =
    "Pickles are read by a data-only reader: nothing in them is imported or executed, and a pickle\n"
    "that asks for a Python object (GLOBAL, REDUCE, ...) is refused. See docs/workloads.md.\n"
    "\n"
    "Exit status: 0 on success, 1 when the output cannot be written or the host is out of memory, 2 on\n"
    "bad usage or input (the message names the byte offset or line of what could not be read; -o naming\n"
    "the input). -o is replaced whole once the trace is written: a refused input leaves it as it was.";

// The whole run; main wraps it.
int Main(int argc, char** argv) {
  using namespace strata::workload;
  std::string input, output;
  bool summary_only = false;
  Format format = Format::kAuto;
  ImportOptions options;
  CLI::App app{kDescription, "strata-import"};
  strata::cli::Setup(app, Synopsis(), kFooter);
  app.add_option("INPUT", input, "the workload file: a PyTorch snapshot, an RMM log or a trace CSV")
      ->type_name("INPUT");
  strata::cli::AddTaken(
      app, "--format", "F", [&](const std::string& v) { return ParseFormat(v, &format) ? "" : UnknownFormat(v); },
      FormatsHelp());
  AddXlaOptions(app, &options);
  strata::cli::AddTaken(
      app, "--device", "N",
      [&](const std::string& v) -> std::string {
        uint64_t n;
        if (!ParseCount(v, &n) || n > 1'000'000) return "'" + v + "' is not a device index";
        options.device = static_cast<int64_t>(n);
        return "";
      },
      "torch: the device whose trace to import (default 0)");
  app.add_option("-o,--output", output, "write the trace there (default: standard output)")->type_name("OUT.csv");
  app.add_flag("--summary", summary_only, "only the summary: no trace on standard output (still written with -o)");
  strata::cli::AddTaken(
      app, "--max-input-bytes", "N",
      [&](const std::string& v) -> std::string {
        if (!ParseCount(v, &options.max_input_bytes)) return "'" + v + "' is not a byte count";
        options.pickle.max_bytes = options.json.max_bytes = options.max_input_bytes;
        return "";
      },
      "refuse larger inputs (default 1073741824)");
  if (int rc = strata::cli::Parse(app, argc, argv); rc != strata::cli::kContinue) return rc;
  if (input.empty()) return strata::cli::Usage("strata-import", "no input file");
  // -o is checked before the input is read (a long import must not be lost at the end), and must not be the input.
  if (!output.empty()) {
    if (const std::string why = strata::tool::CheckWritableFile(output); !why.empty()) {
      std::fprintf(stderr, "strata-import: %s: cannot write it: %s\n", output.c_str(), why.c_str());
      return 2;
    }
    std::vector<strata::tool::NamedFile> inputs;  // the input and, for an XLA dump, the module files it may read
    AddImportInputs("the input", input, &inputs);
    if (const std::string clash = strata::tool::CheckOutputsApart(inputs, {{"-o", output}}); !clash.empty()) {
      std::fprintf(stderr, "strata-import: %s\n", clash.c_str());
      return 2;
    }
  }

  strata::replay::Trace trace;
  ImportStats stats;
  std::string error;
  if (!ImportFile(input, format, options, &trace, &stats, &error)) {
    std::fprintf(stderr, "strata-import: %s\n", error.c_str());
    return 2;
  }
  if (!output.empty()) {
    // Written whole or not at all: a trace the exporter refuses leaves -o as it was.
    std::ostringstream csv;
    if (!WriteTraceCsv(trace, csv, &error)) {
      std::fprintf(stderr, "strata-import: %s: %s\n", output.c_str(), error.empty() ? "write failed" : error.c_str());
      return 1;
    }
    if (const std::string why = strata::tool::WriteTextFile(output, csv.str()); !why.empty()) {
      std::fprintf(stderr, "strata-import: %s: %s\n", output.c_str(), why.c_str());
      return 1;
    }
  } else if (!summary_only) {
    if (!WriteTraceCsv(trace, std::cout, &error) || !std::cout.flush()) {
      std::fprintf(stderr, "strata-import: standard output: %s\n", error.empty() ? "write failed" : error.c_str());
      return 1;
    }
  }
  // The summary names the module, the file and a snapshot's actions: escaped, so a name cannot drive the terminal.
  std::fprintf(stderr, "strata-import: %s\n", strata::tool::Printable(SummaryLine(trace, stats)).c_str());
  return 0;
}

}  // namespace

// Host out of memory anywhere in the run: a message and exit status 1 (tool_cli.h), not an abort.
int main(int argc, char** argv) { return strata::cli::RunMain("strata-import", Main, argc, argv); }
