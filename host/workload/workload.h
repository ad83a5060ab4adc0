// Importers that turn workloads users already have (PyTorch memory snapshots, RMM logs, trace CSVs) into a
// strata::replay::Trace, and the exporter that writes any Trace as the CSV trace format.
//
// Interval times are event indices in the source: the k-th event (0-based) of the chosen device's trace, or
// the k-th data row of an RMM log, happens at time k + 1; time 0 is "before recording started", where the
// buffers that were already live sit. A buffer never freed lives until time (number of events + 1).
// docs/workloads.md has the rules and examples.
#ifndef STRATA_HOST_WORKLOAD_WORKLOAD_H_
#define STRATA_HOST_WORKLOAD_WORKLOAD_H_

#include <stdint.h>

#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "importer.h"
#include "json_reader.h"
#include "pickle_reader.h"
#include "regular_file.h"
#include "trace.h"
#include "xla_dump.h"
#include "xla_proto.h"

namespace strata::workload {

enum class Format { kAuto, kCsv, kTorch, kRmm, kXla };

// The formats a user names (strata-import, strata-replay and strata-compare --format, strata.compare(format=...)):
// the one list their help texts, messages and Python name, in this order. A new importer is a row here and a case
// in Import (tests/host/check_name_tables.py checks every consumer).
struct FormatInfo {
  Format format;
  const char* name;  // "auto", "csv", "torch", "rmm", "xla"
  const char* help;  // what it reads, for --help (may span lines)
};
const std::vector<FormatInfo>& Formats();
const char* FormatName(Format format);
bool ParseFormat(const std::string& text, Format* format);
// "unknown format 'TEXT' (auto, csv, torch, rmm, xla)": every tool's message for a name ParseFormat refuses.
std::string UnknownFormat(const std::string& text);
// strata-import's --format help: each format's name and what it reads, one per line, "auto (default)" first.
std::string FormatsHelp();
// A decimal count of at most 19 digits (a command-line --device or byte limit); false for anything else.
bool ParseCount(const std::string& text, uint64_t* out);

struct ImportOptions {
  int64_t device = 0;  // torch: which device's trace and segments
  uint64_t max_input_bytes = uint64_t{1} << 30;
  PickleLimits pickle;
  JsonLimits json;
  std::string xla_module;  // xla: in a dump directory, the module whose file name contains this
  XlaWorkloadOptions xla;  // xla: which workload (inside the executable, or N steps), TPU padding
};

// Each returns false with "byte N: what" (pickle, JSON) or "LINE: what" (CSV, RMM) in *error.
bool ImportTorchSnapshot(std::string_view data, const ImportOptions& options, replay::Trace* trace, ImportStats* stats,
                         std::string* error);
bool ImportRmmLog(std::string_view data, const ImportOptions& options, replay::Trace* trace, ImportStats* stats,
                  std::string* error);
bool ImportTraceCsv(std::string_view data, const ImportOptions& options, replay::Trace* trace, ImportStats* stats,
                    std::string* error);

// By the first bytes: 0x80 a pickle, '{' or '[' JSON after any UTF-8 byte-order mark and blanks (both torch),
// an RMM header, a trace CSV header, "BufferAssignment:" (xla); kAuto when none of these.
Format DetectFormat(std::string_view data);

// Any format, from memory or a file. Errors from ImportFile read "PATH: byte N: what" or "PATH:LINE: what".
// ImportFile also takes an XLA dump directory, or a *-buffer-assignment.txt with its live ranges beside it.
bool Import(std::string_view data, Format format, const std::string& name, const ImportOptions& options,
            replay::Trace* trace, ImportStats* stats, std::string* error);
bool ImportFile(const std::string& path, Format format, const ImportOptions& options, replay::Trace* trace,
                ImportStats* stats, std::string* error);
// What ImportFile(path) reads, appended to `inputs` for a tool's check that no output is one of them
// (tool::CheckOutputsApart): `path` itself and the XLA module files beside it (XlaDumpFiles), each as `role`.
void AddImportInputs(const std::string& role, const std::string& path, std::vector<tool::NamedFile>* inputs);

// The CSV trace format (header id,lower,upper,size), which replay::ParseTrace reads back exactly. Fails,
// writing nothing, if a buffer is not valid there (upper <= lower, size 0 or beyond 2^62 bytes, id INT64_MIN).
bool WriteTraceCsv(const replay::Trace& trace, std::ostream& out, std::string* error);

// One line (no newline): source, events, buffers, initially live, never freed, peak live bytes, skipped (the
// first 8 actions by name, then how many events of how many other actions).
std::string SummaryLine(const replay::Trace& trace, const ImportStats& stats);

}  // namespace strata::workload

#endif  // STRATA_HOST_WORKLOAD_WORKLOAD_H_
