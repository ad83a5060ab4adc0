// The trace model (see trace.h): the CSV reader, the replay order, the max load and the capacity grammar.
#include "trace.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>

#include "numbers.h"
#include "regular_file.h"
#include "text.h"

namespace strata::replay {
namespace {

using tool::Printable;

// The most of a field a message quotes (escaped): enough to see what is wrong, never a whole line of the file.
constexpr size_t kQuotedBytes = 40;

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
  return s.substr(b, e - b);
}

std::vector<std::string> SplitCsv(const std::string& line) {
  std::vector<std::string> fields;
  std::string cur;
  for (char c : line) {
    if (c == ',') {
      fields.push_back(Trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  fields.push_back(Trim(cur));
  return fields;
}

bool ParseUnsigned(const std::string& s, uint64_t* out) { return cli::ParseDecimal(s, 0, UINT64_MAX, out); }

bool ParseSigned(const std::string& s, int64_t* out) {
  uint64_t v;
  if (!s.empty() && s[0] == '-') {
    if (!ParseUnsigned(s.substr(1), &v) || v > static_cast<uint64_t>(INT64_MAX)) return false;
    *out = -static_cast<int64_t>(v);
    return true;
  }
  if (!ParseUnsigned(s, &v) || v > static_cast<uint64_t>(INT64_MAX)) return false;
  *out = static_cast<int64_t>(v);
  return true;
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

uint64_t RoundUp(uint64_t bytes, uint32_t granule) { return (bytes + granule - 1) / granule * granule; }

}  // namespace

bool ParseTrace(std::istream& in, const std::string& name, Trace* trace, std::string* error) {
  trace->name = name;
  trace->buffers.clear();
  std::string line;
  uint32_t line_no = 0;
  int col_id = -1, col_lower = -1, col_upper = -1, col_size = -1;
  size_t num_cols = 0;
  auto fail = [&](const std::string& what) {
    *error = std::to_string(line_no) + ": " + what;
    return false;
  };
  bool have_header = false;
  uint64_t total = 0;  // every size so far: bounded so that no load, sum or rounding downstream can wrap
  while (std::getline(in, line)) {
    ++line_no;
    if (Trim(line).empty()) continue;
    const std::vector<std::string> f = SplitCsv(line);
    if (!have_header) {
      for (size_t c = 0; c < f.size(); ++c) {
        int* slot = f[c] == "id"      ? &col_id
                    : f[c] == "lower" ? &col_lower
                    : f[c] == "upper" ? &col_upper
                    : f[c] == "size"  ? &col_size
                                      : nullptr;
        if (slot == nullptr) continue;
        if (*slot != -1) return fail("header names column '" + f[c] + "' twice");
        *slot = static_cast<int>(c);
      }
      if (col_id < 0 || col_lower < 0 || col_upper < 0 || col_size < 0) {
        // Not quoted: a file that is not a trace fails here, and its first line may be anything (a password entry).
        return fail("not a trace: the first line must be the header naming the columns id, lower, upper, size");
      }
      num_cols = f.size();
      have_header = true;
      continue;
    }
    if (f.size() != num_cols) {
      return fail("expected " + std::to_string(num_cols) + " fields, got " + std::to_string(f.size()));
    }
    TraceBuffer b;
    b.line = line_no;
    if (!ParseSigned(f[col_id], &b.id))
      return fail("id '" + Printable(f[col_id], kQuotedBytes) + "' is not an integer");
    if (!ParseUnsigned(f[col_lower], &b.lower))
      return fail("lower '" + Printable(f[col_lower], kQuotedBytes) + "' is not a non-negative integer");
    if (!ParseUnsigned(f[col_upper], &b.upper))
      return fail("upper '" + Printable(f[col_upper], kQuotedBytes) + "' is not a non-negative integer");
    if (!ParseUnsigned(f[col_size], &b.size))
      return fail("size '" + Printable(f[col_size], kQuotedBytes) + "' is not a non-negative integer");
    if (b.upper <= b.lower)
      return fail("upper (" + f[col_upper] + ") must be greater than lower (" + f[col_lower] + ")");
    if (b.size == 0) return fail("size must be at least 1 byte");
    if (b.size > kMaxTraceBytes) return fail("size " + f[col_size] + " is beyond any device");
    if (b.size > kMaxTraceTotalBytes - total) {
      return fail("the sizes up to here add up to more than 2^63 bytes (sums over the trace would overflow)");
    }
    total += b.size;
    trace->buffers.push_back(b);
  }
  if (!have_header) {
    line_no = std::max<uint32_t>(line_no, 1);
    return fail("empty trace: no header line");
  }
  return true;
}

bool LoadTrace(const std::string& path, Trace* trace, std::string* error) {
  if (const std::string why = tool::CheckRegularFile(path, 1ull << 30); !why.empty()) {
    *error = path + ": " + why;
    return false;
  }
  std::ifstream in(path);
  if (!in) {
    *error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  std::string e;
  if (!ParseTrace(in, BaseName(path), trace, &e)) {
    *error = path + ":" + e;
    return false;
  }
  return true;
}

namespace {

// The replay order, sorted: (time, kind, buffer). When every time is below 2^31 (every shared trace's is) the three
// pack into one 64-bit key, sorted as plain integers; else the comparison sort. The same order either way.
std::vector<Event> SortEvents(const Trace& trace) {
  const size_t n = trace.buffers.size();
  std::vector<Event> events;
  events.reserve(n * 2);
  uint64_t last = 0;
  for (const TraceBuffer& b : trace.buffers) last = std::max({last, b.lower, b.upper});
  if (last < (uint64_t{1} << 31)) {
    std::vector<uint64_t> keys;
    keys.reserve(n * 2);
    for (uint32_t i = 0; i < n; ++i) {
      keys.push_back(trace.buffers[i].lower << 33 | uint64_t{1} << 32 | i);
      keys.push_back(trace.buffers[i].upper << 33 | i);
    }
    std::sort(keys.begin(), keys.end());
    for (const uint64_t k : keys) {
      events.push_back(Event{k >> 33, static_cast<uint32_t>(k >> 32 & 1), static_cast<uint32_t>(k)});
    }
    return events;
  }
  for (uint32_t i = 0; i < n; ++i) {
    events.push_back(Event{trace.buffers[i].lower, 1, i});
    events.push_back(Event{trace.buffers[i].upper, 0, i});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.kind != b.kind) return a.kind < b.kind;
    return a.buffer < b.buffer;
  });
  return events;
}

}  // namespace

// One comparison replays one trace ~150 times, and every replay asks for its events. The order depends on nothing
// but each buffer's (lower, upper) in file order, so the last trace's spans and events are kept (per thread): a
// trace with the same spans gets a copy of the events, O(n), instead of a new O(n log n) sort. A trace that differs
// in any span, or in length, is sorted afresh.
std::vector<Event> BuildEvents(const Trace& trace) {
  thread_local std::vector<std::pair<uint64_t, uint64_t>> spans;
  thread_local std::vector<Event> events;
  const size_t n = trace.buffers.size();
  bool same = spans.size() == n;
  for (size_t i = 0; same && i < n; ++i)
    same = spans[i].first == trace.buffers[i].lower && spans[i].second == trace.buffers[i].upper;
  if (!same) {
    events = SortEvents(trace);
    spans.resize(n);
    for (size_t i = 0; i < n; ++i) spans[i] = {trace.buffers[i].lower, trace.buffers[i].upper};
  }
  return events;
}

// Sorted afresh, not through BuildEvents' per-thread copy: an importer asks once, and its memory bound
// (docs/workloads.md, test workload.memory_bound) has no room for a second copy of the events kept after.
uint64_t MaxLoad(const Trace& trace, uint32_t granule_bytes) {
  return MaxLoad(trace, SortEvents(trace), granule_bytes);
}

uint64_t MaxLoad(const Trace& trace, const std::vector<Event>& events, uint32_t granule_bytes) {
  uint64_t live = 0, peak = 0;
  for (const Event& e : events) {
    const uint64_t size = RoundUp(trace.buffers[e.buffer].size, granule_bytes);
    live = e.kind == 1 ? live + size : live - size;
    peak = std::max(peak, live);
  }
  return peak;
}

bool ParseCapacity(const std::string& text, uint64_t max_load, uint32_t granule, uint64_t* bytes, std::string* error) {
  if (!text.empty() && (text.back() == 'x' || text.back() == 'X')) {
    const std::string num = text.substr(0, text.size() - 1);
    double f = 0;
    if (!cli::ParseReal(num, 0, std::numeric_limits<double>::max(), &f) || !(f > 0)) {
      *error = "capacity '" + text + "': expected a positive factor like 1.0x";
      return false;
    }
    // Exactly F times the max load, rounded down to the granule (1.0x is the max load itself).
    const long double want = static_cast<long double>(f) * static_cast<long double>(max_load);
    if (want >= 18446744073709551615.0L) {
      *error = "capacity '" + text + "' overflows 64 bits";
      return false;
    }
    *bytes = static_cast<uint64_t>(want) / granule * granule;
    if (*bytes == 0) *bytes = granule;
    return true;
  }
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  uint64_t v;
  if (!ParseUnsigned(text.substr(0, digits), &v)) {
    *error = "capacity '" + text + "': expected BYTES (e.g. 1073741824, 1G, 512MiB) or a factor like 1.05x";
    return false;
  }
  const std::string suffix = text.substr(digits);
  int shift = -1;
  if (suffix.empty() || suffix == "B") shift = 0;
  if (suffix == "K" || suffix == "KiB") shift = 10;
  if (suffix == "M" || suffix == "MiB") shift = 20;
  if (suffix == "G" || suffix == "GiB") shift = 30;
  if (suffix == "T" || suffix == "TiB") shift = 40;
  if (shift < 0) {
    *error = "capacity '" + text + "': unknown unit '" + suffix + "' (use K, M, G, T or KiB, MiB, GiB, TiB)";
    return false;
  }
  if (shift > 0 && v > (UINT64_MAX >> shift)) {
    *error = "capacity '" + text + "' overflows 64 bits";
    return false;
  }
  *bytes = v << shift;
  if (*bytes == 0) {
    *error = "capacity must be positive";
    return false;
  }
  // Checked here, where the text is still at hand: the allocator's own refusal of a heap smaller than one granule
  // reached the user as a failed backend (strata-compare exit 3) naming the wrong limit.
  if (*bytes < granule) {
    *error = "capacity '" + text + "' is smaller than one allocation granule (" + std::to_string(granule) + " bytes)";
    return false;
  }
  return true;
}

}  // namespace strata::replay
