// The XLA importer's routes (xla_dump.h): a dump's files picked and read, the parser chosen, the workload built.
#include "xla_dump.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "importer.h"
#include "regular_file.h"
#include "xla_proto.h"
#include "xla_text.h"

namespace strata::workload {
namespace {

constexpr std::string_view kAssignmentSuffix = "-buffer-assignment.txt";
constexpr std::string_view kLiveRangeSuffix = "-live-range.txt";
constexpr std::string_view kValuesSuffix = "-buffer-assignment-values.txt";
constexpr std::string_view kHloProtoSuffix = ".hlo.pb";

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Whether anything is at `path`: what is there is then read as every input is, and refused if it is not a
// regular file within the byte limit (tool::ReadRegularFile), rather than taken as missing.
bool Exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// Values in a buffer assignment, counted by lines (to pick the largest module without parsing all). Read as every
// input is (tool::OpenRegularFile: a regular file of at most `max_bytes`, so a FIFO never blocks and /dev/zero or a
// sparse file is refused by its size), in pieces: counting costs no memory. False with *error naming the file.
bool CountValues(const std::string& path, uint64_t max_bytes, uint64_t* count, std::string* error) {
  uint64_t left = 0;
  const int fd = tool::OpenRegularFile(path, max_bytes, &left, error);
  if (fd < 0) return false;
  constexpr std::string_view kValue = " value: ";
  std::vector<char> buffer(size_t{1} << 16);
  uint64_t n = 0;
  size_t column = 0;  // bytes of kValue matched at the start of the line; past its size: no match in this line
  while (left > 0) {
    const int64_t got = tool::ReadFully(fd, buffer.data(), std::min<uint64_t>(left, buffer.size()));
    if (got <= 0) {
      *error =
          path + ": read error" + (got < 0 ? std::string(" (") + std::strerror(errno) + ")" : " (the file shrank)");
      ::close(fd);
      return false;
    }
    for (int64_t k = 0; k < got; ++k) {
      const char c = buffer[static_cast<size_t>(k)];
      if (c == '\n') {
        column = 0;
      } else if (column < kValue.size()) {
        column = c == kValue[column] ? column + 1 : kValue.size() + 1;
        n += column == kValue.size();
      }
    }
    left -= static_cast<uint64_t>(got);
  }
  ::close(fd);
  *count = n;
  return true;
}

// The workload of a parsed module and the import stats every importer fills; `source` names the route.
bool FinishXlaImport(XlaModule&& module, const std::string& source, const XlaWorkloadOptions& options,
                     replay::Trace* trace, ImportStats* stats, XlaModule* parsed, std::string* error) {
  XlaWorkloadStats xs;
  trace->name = module.name;
  if (!BuildXlaWorkload(module, options, trace, &xs, error)) return false;
  // XLA names a dump's files after the platform it compiled for: a CPU compile plans for the CPU (its layouts,
  // fusions and temp sizes), which a reader sizing a GPU or TPU must know.
  const bool cpu = module.name.find("cpu_after_optimizations") != std::string::npos;
  stats->source = source + " (" + XlaViewName(options.view) +
                  (options.view == XlaView::kSteps ? ", " + std::to_string(options.steps) + " steps" : "") +
                  (options.tpu_pad ? ", TPU-padded" : "") + (cpu ? ", compiled for the CPU" : "") + ")";
  stats->events = 2 * trace->buffers.size();
  stats->allocs = stats->frees = trace->buffers.size();
  uint64_t end = 0;
  for (const replay::TraceBuffer& b : trace->buffers) end = std::max(end, b.upper);
  for (const replay::TraceBuffer& b : trace->buffers) {
    if (b.lower == 0) ++stats->initially_live;
    if (b.upper == end) ++stats->never_freed;
  }
  if (xs.skipped_thread_local) stats->skipped.emplace_back("thread-local allocations", xs.skipped_thread_local);
  if (xs.skipped_no_live_range) stats->skipped.emplace_back("values without a live range", xs.skipped_no_live_range);
  stats->peak_live_bytes = replay::MaxLoad(*trace, 1);
  if (parsed != nullptr) *parsed = std::move(module);
  return true;
}

// In a dump directory, the module to read: the text module with the most values (*text, its file name), else the
// largest *.hlo.pb (*proto); either filtered by `module_filter`. False with *error when there is neither.
bool ChooseModule(const std::string& path, const std::string& module_filter, uint64_t max_input_bytes,
                  std::string* text, std::string* proto, std::string* error) {
  DIR* dir = opendir(path.c_str());
  if (dir == nullptr) {
    *error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  std::vector<std::string> names, protos;
  while (dirent* e = readdir(dir)) {
    const std::string n = e->d_name;
    if (EndsWith(n, kAssignmentSuffix)) names.push_back(n);
    // --xla_dump_hlo_as_proto: the optimized module with its buffer assignment (the unoptimized one has none).
    if (EndsWith(n, kHloProtoSuffix) && n.find("before_optimizations") == std::string::npos) protos.push_back(n);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  uint64_t best = 0;
  for (const std::string& n : names) {
    if (!module_filter.empty() && n.find(module_filter) == std::string::npos) continue;
    uint64_t count = 0;
    if (!CountValues(path + "/" + n, max_input_bytes, &count, error)) return false;
    if (text->empty() || count >= best) {
      best = count;
      *text = n;
    }
  }
  if (!text->empty()) return true;
  // No text dump of the module: the protobuf one, the module with the largest file.
  std::sort(protos.begin(), protos.end());
  uint64_t largest = 0;
  for (const std::string& n : protos) {
    struct stat ps;
    if (!module_filter.empty() && n.find(module_filter) == std::string::npos) continue;
    if (stat((path + "/" + n).c_str(), &ps) != 0) continue;
    if (proto->empty() || static_cast<uint64_t>(ps.st_size) >= largest) {
      largest = static_cast<uint64_t>(ps.st_size);
      *proto = n;
    }
  }
  if (!proto->empty()) return true;
  names.insert(names.end(), protos.begin(), protos.end());
  *error = path + ": " +
           (names.empty() ? std::string("no *-buffer-assignment.txt or *.hlo.pb in this directory (dump with "
                                        "XLA_FLAGS=--xla_dump_to=DIR)")
                          : "no module's buffer assignment contains '" + module_filter + "' (" +
                                std::to_string(names.size()) + " modules, e.g. " + names.front() + ")");
  return false;
}

// The text dumps of the module at `prefix` (its path without "-buffer-assignment.txt"): the assignment and its
// live ranges parsed into *module, checked against the values file when there is one. Errors read "PATH:LINE: ...".
bool ReadTextModule(const std::string& prefix, uint64_t max_input_bytes, XlaModule* module, std::string* error) {
  const std::string assignment_path = prefix + std::string(kAssignmentSuffix);
  const std::string live_path = prefix + std::string(kLiveRangeSuffix);
  std::string assignment, live;
  if (!tool::ReadRegularFile(assignment_path, max_input_bytes, &assignment, error)) return false;
  if (!Exists(live_path)) {
    *error = live_path + ": cannot open (the buffer assignment's live ranges are needed)";
    return false;
  }
  if (!tool::ReadRegularFile(live_path, max_input_bytes, &live, error)) return false;
  if (!ParseXlaText(assignment, live, module, error)) {
    *error =
        (error->rfind("live-range ", 0) == 0 ? live_path + ":" + error->substr(11) : assignment_path + ":" + *error);
    return false;
  }
  // The values file, when present, states the total: a buffer assignment cut short after a whole line is caught.
  const std::string values_path = prefix + std::string(kValuesSuffix);
  if (Exists(values_path)) {
    std::string values;
    if (!tool::ReadRegularFile(values_path, max_input_bytes, &values, error)) return false;
    if (!CheckXlaValuesText(values, assignment, *module, error)) {
      *error = assignment_path + ":" + *error;
      return false;
    }
  }
  module->name = prefix.substr(prefix.find_last_of('/') + 1);
  return true;
}

}  // namespace

bool ImportXlaText(std::string_view data, const XlaWorkloadOptions& options, replay::Trace* trace, ImportStats* stats,
                   std::string* error) {
  if (!LooksLikeXlaAssignment(data)) return ImportXlaProto(data, "", options, trace, stats, nullptr, error);
  *stats = ImportStats{};
  stats->source = "XLA buffer assignment";
  XlaModule module;
  if (!ParseXlaText(data, {}, &module, error)) return false;
  trace->buffers.clear();
  *error =
      "1: a buffer assignment alone has no live ranges: give the dump directory, or the file with its "
      "-live-range.txt beside it";
  return false;
}

bool ImportXlaProto(std::string_view data, const std::string& name, const XlaWorkloadOptions& options,
                    replay::Trace* trace, ImportStats* stats, XlaModule* parsed, std::string* error) {
  *stats = ImportStats{};
  stats->source = "XLA buffer assignment proto";
  trace->buffers.clear();
  XlaModule module;
  XlaProtoInfo info;
  if (!ParseXlaProto(data, &module, &info, error)) return false;
  if (!name.empty()) module.name = name;
  if (module.name.empty()) module.name = "xla";
  if (options.view == XlaView::kExecutable && info.events == 0) {
    *error =
        "byte 0: no heap-simulator trace, so no live ranges (memory_analysis()'s proto has none): the executable "
        "view needs the *.hlo.pb dump (XLA_FLAGS=--xla_dump_hlo_as_proto); --xla-view steps needs only the "
        "allocations";
    return false;
  }
  return FinishXlaImport(std::move(module), info.hlo_proto ? "XLA HloProto" : "XLA BufferAssignmentProto", options,
                         trace, stats, parsed, error);
}

bool ImportXlaProtoFile(const std::string& path, const XlaWorkloadOptions& options, uint64_t max_input_bytes,
                        replay::Trace* trace, ImportStats* stats, XlaModule* parsed, std::string* error) {
  *stats = ImportStats{};
  std::string data;
  if (!tool::ReadRegularFile(path, max_input_bytes, &data, error)) return false;
  std::string name = path.substr(path.find_last_of('/') + 1);
  for (std::string_view suffix : {".hlo.pb", ".pb"}) {
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      name.resize(name.size() - suffix.size());
      break;
    }
  }
  if (!ImportXlaProto(data, name, options, trace, stats, parsed, error)) {
    *error = path + ": " + *error;
    return false;
  }
  return true;
}

bool ImportXlaPath(const std::string& path, const std::string& module_filter, const XlaWorkloadOptions& options,
                   uint64_t max_input_bytes, replay::Trace* trace, ImportStats* stats, XlaModule* parsed,
                   std::string* error) {
  *stats = ImportStats{};
  stats->source = "XLA buffer assignment";
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    *error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  std::string prefix;  // the module's path without the suffix
  if (S_ISDIR(st.st_mode)) {
    std::string text, proto;
    if (!ChooseModule(path, module_filter, max_input_bytes, &text, &proto, error)) return false;
    if (!proto.empty()) {
      return ImportXlaProtoFile(path + "/" + proto, options, max_input_bytes, trace, stats, parsed, error);
    }
    prefix = path + "/" + text.substr(0, text.size() - kAssignmentSuffix.size());
  } else if (EndsWith(path, kAssignmentSuffix)) {
    prefix = path.substr(0, path.size() - kAssignmentSuffix.size());
  } else if (EndsWith(path, kLiveRangeSuffix)) {
    prefix = path.substr(0, path.size() - kLiveRangeSuffix.size());
  } else if (IsXlaProtoName(path)) {
    return ImportXlaProtoFile(path, options, max_input_bytes, trace, stats, parsed, error);
  } else {
    // Any other file: a buffer-assignment text (refused: its live ranges cannot be found) or a protobuf.
    std::string data;
    if (!tool::ReadRegularFile(path, max_input_bytes, &data, error)) return false;
    if (!LooksLikeXlaAssignment(data)) {
      return ImportXlaProtoFile(path, options, max_input_bytes, trace, stats, parsed, error);
    }
    std::string e;
    ImportXlaText(data, options, trace, stats, &e);
    *error = path + ":" + e;
    return false;
  }
  XlaModule module;
  if (!ReadTextModule(prefix, max_input_bytes, &module, error)) return false;
  return FinishXlaImport(std::move(module), "XLA buffer assignment", options, trace, stats, parsed, error) ||
         (*error = prefix + std::string(kAssignmentSuffix) + ": " + *error, false);
}

std::vector<std::string> XlaDumpFiles(const std::string& path) {
  std::vector<std::string> files;
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    DIR* dir = opendir(path.c_str());
    if (dir == nullptr) return files;
    while (dirent* e = readdir(dir)) {
      const std::string n = e->d_name;
      if (EndsWith(n, kAssignmentSuffix) || EndsWith(n, kLiveRangeSuffix) || EndsWith(n, kValuesSuffix) ||
          EndsWith(n, kHloProtoSuffix)) {
        files.push_back(path + "/" + n);
      }
    }
    closedir(dir);
    std::sort(files.begin(), files.end());
    return files;
  }
  std::string prefix;
  if (EndsWith(path, kAssignmentSuffix)) prefix = path.substr(0, path.size() - kAssignmentSuffix.size());
  if (EndsWith(path, kLiveRangeSuffix)) prefix = path.substr(0, path.size() - kLiveRangeSuffix.size());
  if (prefix.empty()) return files;
  for (std::string_view suffix : {kAssignmentSuffix, kLiveRangeSuffix, kValuesSuffix}) {
    if (prefix + std::string(suffix) != path) files.push_back(prefix + std::string(suffix));
  }
  return files;
}

}  // namespace strata::workload
