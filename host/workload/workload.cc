// Format detection, file import, the CSV exporter and the summary line.
#include "workload.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>

#include "names.h"
#include "numbers.h"
#include "regular_file.h"
#include "xla_text.h"

namespace strata::workload {
namespace {

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string_view FirstLine(std::string_view data) {
  size_t start = 0;  // blank lines before the header are skipped, as replay::ParseTrace does
  while (start < data.size()) {
    size_t end = data.find('\n', start);
    if (end == std::string_view::npos) end = data.size();
    std::string_view line = data.substr(start, end - start);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) return line;
    start = end + 1;
  }
  return {};
}

bool HasColumn(std::string_view line, std::string_view name) {
  size_t start = 0;
  while (start <= line.size()) {
    size_t end = line.find(',', start);
    if (end == std::string_view::npos) end = line.size();
    std::string_view f = line.substr(start, end - start);
    while (!f.empty() && (f.front() == ' ' || f.front() == '\t')) f.remove_prefix(1);
    while (!f.empty() && (f.back() == ' ' || f.back() == '\t' || f.back() == '\r')) f.remove_suffix(1);
    if (f == name) return true;
    start = end + 1;
  }
  return false;
}

}  // namespace

const std::vector<FormatInfo>& Formats() {
  static const std::vector<FormatInfo> formats{
      {Format::kAuto, "auto", "by the first bytes"},
      {Format::kCsv, "csv", "a trace CSV, checked and rewritten"},
      {Format::kTorch, "torch", "a PyTorch memory snapshot: torch.cuda.memory._dump_snapshot\npickle, or JSON"},
      {Format::kRmm, "rmm", "an RMM logging_resource_adaptor log"},
      {Format::kXla, "xla",
       "an XLA_FLAGS=--xla_dump_to=DIR dump: the directory or a\n*-buffer-assignment.txt; a directory is xla whatever "
       "the format; docs/jax.md"},
  };
  return formats;
}

const char* FormatName(Format format) {
  for (const FormatInfo& f : Formats()) {
    if (f.format == format) return f.name;
  }
  return "?";
}

std::string UnknownFormat(const std::string& text) {
  return "unknown format '" + text + "' (" + tool::JoinNames(tool::NamesOf(Formats())) + ")";
}

std::string FormatsHelp() {
  std::string help;
  for (const FormatInfo& f : Formats()) {
    help += (help.empty() ? "" : "\n") + std::string(f.name) + (f.format == Format::kAuto ? " (default)" : "") + ": " +
            f.help;
  }
  return help;
}

bool ParseCount(const std::string& text, uint64_t* out) {
  return text.size() <= 19 && cli::ParseDecimal(text, 0, UINT64_MAX, out);
}

bool ParseFormat(const std::string& text, Format* format) {
  for (const FormatInfo& f : Formats()) {
    if (text == f.name) {
      *format = f.format;
      return true;
    }
  }
  return false;
}

Format DetectFormat(std::string_view data) {
  if (!data.empty() && static_cast<uint8_t>(data[0]) == 0x80) return Format::kTorch;
  // JSON: a dict, or the bare list of segments torch.cuda.memory_snapshot() gives, after any byte-order mark.
  const size_t first = JsonValueStart(data);
  if (first != std::string_view::npos && (data[first] == '{' || data[first] == '[')) return Format::kTorch;
  if (LooksLikeXlaAssignment(data)) return Format::kXla;
  const std::string_view line = FirstLine(data);
  if (HasColumn(line, "Action") && HasColumn(line, "Pointer") && HasColumn(line, "Size")) return Format::kRmm;
  if (HasColumn(line, "id") && HasColumn(line, "lower") && HasColumn(line, "upper") && HasColumn(line, "size")) {
    return Format::kCsv;
  }
  return Format::kAuto;
}

bool ImportTraceCsv(std::string_view data, const ImportOptions&, replay::Trace* trace, ImportStats* stats,
                    std::string* error) {
  *stats = ImportStats{};
  stats->source = "trace CSV";
  std::istringstream in{std::string(data)};
  const std::string name = trace->name;
  if (!replay::ParseTrace(in, name, trace, error)) return false;
  stats->allocs = stats->frees = trace->buffers.size();
  stats->events = 2 * trace->buffers.size();
  uint64_t end = 0;
  for (const replay::TraceBuffer& b : trace->buffers) end = std::max(end, b.upper);
  for (const replay::TraceBuffer& b : trace->buffers) {
    if (b.lower == 0) ++stats->initially_live;
    if (b.upper == end) ++stats->never_freed;
  }
  stats->peak_live_bytes = replay::MaxLoad(*trace, 1);
  return true;
}

bool Import(std::string_view data, Format format, const std::string& name, const ImportOptions& options,
            replay::Trace* trace, ImportStats* stats, std::string* error) {
  trace->name = name;
  if (format == Format::kAuto) {
    format = DetectFormat(data);
    if (format == Format::kAuto) {
      *stats = ImportStats{};
      *error = data.empty()
                   ? "byte 0: the file is empty"
                   : "byte 0: cannot tell the format: not a pickle (first byte 0x80), JSON ('{' or '['), an RMM log "
                     "(header Thread,Time,Action,Pointer,Size,Stream), a trace CSV (header "
                     "id,lower,upper,size) or an XLA buffer assignment ('BufferAssignment:'); name it "
                     "with --format";
      return false;
    }
  }
  bool ok = false;
  switch (format) {
    case Format::kTorch:
      ok = ImportTorchSnapshot(data, options, trace, stats, error);
      break;
    case Format::kRmm:
      ok = ImportRmmLog(data, options, trace, stats, error);
      break;
    case Format::kXla:
      ok = ImportXlaText(data, options.xla, trace, stats, error);
      break;
    case Format::kCsv:
    case Format::kAuto:
      ok = ImportTraceCsv(data, options, trace, stats, error);
      break;
  }
  trace->name = name;
  return ok;
}

bool ImportFile(const std::string& path, Format format, const ImportOptions& options, replay::Trace* trace,
                ImportStats* stats, std::string* error) {
  *stats = ImportStats{};
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    *error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  // An XLA dump is a directory or a pair of files: xla_dump.cc reads what it needs.
  const bool xla_name =
      IsXlaProtoName(path) || (path.size() > 22 && (path.compare(path.size() - 22, 22, "-buffer-assignment.txt") == 0 ||
                                                    path.compare(path.size() - 15, 15, "-live-range.txt") == 0));
  if (format == Format::kXla || S_ISDIR(st.st_mode) || (format == Format::kAuto && xla_name)) {
    return ImportXlaPath(path, options.xla_module, options.xla, options.max_input_bytes, trace, stats, nullptr, error);
  }
  std::string data;
  if (!tool::ReadRegularFile(path, options.max_input_bytes, &data, error)) return false;
  std::string e;
  if (!Import(data, format, BaseName(path), options, trace, stats, &e)) {
    // "byte N: ..." reads "PATH: byte N: ...", a line number "PATH:N: ..." as replay::LoadTrace writes it.
    *error = path + (e.rfind("byte ", 0) == 0 ? ": " : ":") + e;
    return false;
  }
  return true;
}

void AddImportInputs(const std::string& role, const std::string& path, std::vector<tool::NamedFile>* inputs) {
  inputs->push_back({role, path});
  for (const std::string& file : XlaDumpFiles(path)) inputs->push_back({role, file});
}

bool WriteTraceCsv(const replay::Trace& trace, std::ostream& out, std::string* error) {
  uint64_t total = 0;
  for (size_t k = 0; k < trace.buffers.size(); ++k) {
    const replay::TraceBuffer& b = trace.buffers[k];
    const std::string which = "buffer " + std::to_string(k) + " (id " + std::to_string(b.id) + ")";
    if (b.upper <= b.lower) {
      *error = which + ": upper " + std::to_string(b.upper) + " is not above lower " + std::to_string(b.lower);
      return false;
    }
    if (b.id == INT64_MIN) {
      *error = which + ": id " + std::to_string(b.id) + " cannot be read back (replay::ParseTrace takes " +
               std::to_string(INT64_MIN + 1) + " and up)";
      return false;
    }
    if (b.size == 0 || b.size > replay::kMaxTraceBytes) {
      *error = which + ": size " + std::to_string(b.size) + " cannot be written (1 to 2^62 bytes)";
      return false;
    }
    if (b.size > replay::kMaxTraceTotalBytes - total) {  // replay::ParseTrace would refuse to read it back
      *error = which + ": the sizes up to here add up to more than 2^63 bytes";
      return false;
    }
    total += b.size;
  }
  std::string text = "id,lower,upper,size\n";
  for (const replay::TraceBuffer& b : trace.buffers) {
    text += std::to_string(b.id);
    text += ',';
    text += std::to_string(b.lower);
    text += ',';
    text += std::to_string(b.upper);
    text += ',';
    text += std::to_string(b.size);
    text += '\n';
  }
  out << text;
  if (!out) {
    *error = "write failed";
    return false;
  }
  return true;
}

constexpr size_t kSummarySkippedActions = 8;

std::string SummaryLine(const replay::Trace& trace, const ImportStats& stats) {
  std::string s = trace.name + ": " + stats.source;
  if (stats.device >= 0) {
    s += ", device " + std::to_string(stats.device) + " of " + std::to_string(stats.devices);
  }
  s += ": " + std::to_string(stats.events) + " events, " + std::to_string(trace.buffers.size()) + " buffers (" +
       std::to_string(stats.initially_live) + " initially live, " + std::to_string(stats.never_freed) +
       " never freed), peak live " + std::to_string(stats.peak_live_bytes) + " bytes";
  if (stats.closed_by_request != 0) s += ", " + std::to_string(stats.closed_by_request) + " freed at free_requested";
  if (stats.zero_size_dropped != 0) s += ", " + std::to_string(stats.zero_size_dropped) + " zero-size dropped";
  if (!stats.skipped.empty()) {
    // The first kSummarySkippedActions actions by name: a snapshot can have a million distinct ones.
    s += "; skipped";
    uint64_t more_events = 0;
    for (size_t k = 0; k < stats.skipped.size(); ++k) {
      const auto& [action, count] = stats.skipped[k];
      if (k < kSummarySkippedActions) {
        s += (k == 0 ? " " : ", ") + std::to_string(count) + " " + action;
      } else {
        more_events += count;
      }
    }
    if (stats.skipped.size() > kSummarySkippedActions) {
      s += " and " + std::to_string(more_events) + " of " +
           std::to_string(stats.skipped.size() - kSummarySkippedActions) + " other actions";
    }
  }
  return s;
}

}  // namespace strata::workload
