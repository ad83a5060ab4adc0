// RMM logging_resource_adaptor logs (header Thread,Time,Action,Pointer,Size,Stream) to buffer lifetimes,
// read as RMM's own replay benchmark reads them (cpp/benchmarks/utilities/log_parser.hpp).
#include <string>
#include <vector>

#include "lifetimes.h"
#include "numbers.h"
#include "workload.h"

namespace strata::workload {
namespace {

constexpr uint64_t kMaxBufferBytes = replay::kMaxTraceBytes;

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> Split(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  for (size_t k = 0; k <= line.size(); ++k) {
    if (k == line.size() || line[k] == ',') {
      fields.push_back(Trim(line.substr(start, k - start)));
      start = k + 1;
    }
  }
  return fields;
}

bool ParseHex(std::string_view s, uint64_t* out) {
  if (s == "(nil)") {
    *out = 0;
    return true;
  }
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.empty() || s.size() > 16) return false;
  uint64_t v = 0;
  for (char c : s) {
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0) return false;
    v = (v << 4) | static_cast<uint64_t>(d);
  }
  *out = v;
  return true;
}

}  // namespace

bool ImportRmmLog(std::string_view data, const ImportOptions&, replay::Trace* trace, ImportStats* stats,
                  std::string* error) {
  *stats = ImportStats{};
  stats->source = "RMM log";
  trace->buffers.clear();
  uint64_t line_no = 0;
  auto fail = [&](const std::string& what) {
    *error = std::to_string(line_no) + ": " + what;
    trace->buffers.clear();
    return false;
  };
  int col_action = -1, col_pointer = -1, col_size = -1;
  size_t num_cols = 0;
  bool have_header = false;
  Lifetimes lifetimes;
  uint64_t events = 0;
  size_t pos = 0;
  while (pos < data.size()) {
    size_t end = data.find('\n', pos);
    if (end == std::string_view::npos) end = data.size();
    const std::string_view line = data.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (Trim(line).empty()) continue;
    const std::vector<std::string_view> f = Split(line);
    if (!have_header) {
      for (size_t c = 0; c < f.size(); ++c) {
        int* slot = f[c] == "Action"    ? &col_action
                    : f[c] == "Pointer" ? &col_pointer
                    : f[c] == "Size"    ? &col_size
                                        : nullptr;
        if (slot == nullptr) continue;
        if (*slot != -1) return fail("header names column '" + std::string(f[c]) + "' twice");
        *slot = static_cast<int>(c);
      }
      if (col_action < 0 || col_pointer < 0 || col_size < 0) {
        return fail("an RMM log starts with the header Thread,Time,Action,Pointer,Size,Stream (got '" +
                    std::string(Trim(line).substr(0, 80)) + "')");
      }
      num_cols = f.size();
      have_header = true;
      continue;
    }
    if (f.size() != num_cols) {
      return fail("expected " + std::to_string(num_cols) + " fields, got " + std::to_string(f.size()));
    }
    const std::string_view action = f[col_action];
    const uint64_t time = ++events;
    if (action == "allocate failure") {
      ++stats->failed_allocs;
      continue;
    }
    const bool alloc = action == "allocate";
    if (!alloc && action != "free") {
      return fail("action '" + std::string(action) + "' is not one of allocate, allocate failure, free");
    }
    uint64_t pointer = 0, size = 0;
    if (!ParseHex(f[col_pointer], &pointer)) {
      return fail("pointer '" + std::string(f[col_pointer]) + "' is not a hex address or (nil)");
    }
    if (!cli::ParseDecimal(f[col_size], 0, UINT64_MAX, &size)) {
      return fail("size '" + std::string(f[col_size]) + "' is not a non-negative integer");
    }
    if (size > kMaxBufferBytes) return fail("size " + std::to_string(size) + " is beyond any device");
    if (alloc) {
      ++stats->allocs;
    } else {
      ++stats->frees;
    }
    if (!(alloc ? lifetimes.Alloc(pointer, size, time) : lifetimes.Free(pointer, size, time))) {
      return fail(Lifetimes::TotalError());
    }
  }
  if (!have_header) {
    line_no = line_no == 0 ? 1 : line_no;
    return fail("empty log: no header line");
  }
  stats->events = events;
  if (stats->failed_allocs != 0) stats->skipped.emplace_back("allocate failure", stats->failed_allocs);
  lifetimes.Finish(events + 1, trace, stats);
  stats->peak_live_bytes = replay::MaxLoad(*trace, 1);
  return true;
}

}  // namespace strata::workload
