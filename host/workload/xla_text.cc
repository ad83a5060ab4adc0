// The text parser of xla_text.h: XLA's buffer-assignment and live-range dumps as an XlaModule.
#include "xla_text.h"

#include <unordered_map>
#include <utility>
#include <vector>

#include "trace.h"

namespace strata::workload {
namespace {

bool ParseNumber(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 19) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = v;
  return true;
}

// Splits into lines, keeping each line's 1-based number; a final line without '\n' is kept.
std::vector<std::string_view> Lines(std::string_view data) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < data.size()) {
    size_t end = data.find('\n', start);
    if (end == std::string_view::npos) end = data.size();
    std::string_view line = data.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

std::string At(size_t line, const std::string& what) { return std::to_string(line) + ": " + what; }

// "allocation 12: size 311296, preallocated-temp:" (attributes in any order; shapes between '|' may hold commas).
bool ParseAllocationHeader(std::string_view line, XlaAllocation* a, std::string* why) {
  std::string_view rest = line.substr(std::string_view("allocation ").size());
  const size_t colon = rest.find(':');
  if (colon == std::string_view::npos || !ParseNumber(rest.substr(0, colon), &a->index)) {
    *why = "expected 'allocation N: size S, ...:'";
    return false;
  }
  rest.remove_prefix(colon + 1);
  if (rest.substr(0, 6) != " size ") {
    *why = "expected ' size S' after 'allocation " + std::to_string(a->index) + ":'";
    return false;
  }
  rest.remove_prefix(6);
  size_t digits = 0;
  while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
  if (!ParseNumber(rest.substr(0, digits), &a->size) || a->size > replay::kMaxTraceBytes) {
    *why = "allocation " + std::to_string(a->index) + ": size is not a byte count up to 2^62";
    return false;
  }
  rest.remove_prefix(digits);
  if (rest.empty() || rest.back() != ':') {
    *why = "allocation " + std::to_string(a->index) + ": the header does not end with ':' (truncated?)";
    return false;
  }
  // Shapes are quoted between '|': drop them so that their text cannot look like an attribute.
  std::string attrs;
  bool in_shape = false;
  for (char c : rest) {
    if (c == '|') in_shape = !in_shape;
    if (!in_shape && c != '|') attrs += c;
  }
  a->live_out = attrs.find("maybe-live-out") != std::string::npos;
  a->temp = attrs.find("preallocated-temp") != std::string::npos;
  a->thread_local_ = attrs.find("thread-local") != std::string::npos;
  a->constant = attrs.find("constant") != std::string::npos;
  const size_t p = attrs.find(", parameter ");
  if (p != std::string::npos) {
    size_t k = p + 12, end = k;
    while (end < attrs.size() && attrs[end] >= '0' && attrs[end] <= '9') ++end;
    uint64_t n = 0;
    if (!ParseNumber(std::string_view(attrs).substr(k, end - k), &n)) {
      *why = "allocation " + std::to_string(a->index) + ": 'parameter' without a number";
      return false;
    }
    a->parameter = static_cast<int64_t>(n);
  }
  return true;
}

// " value: <73 ynn_fusion.3 @0> (size=131072,offset=131072): f32[128,256]{1,0}"
bool ParseValue(std::string_view line, XlaStrings* strings, XlaValue* v, std::string* why) {
  std::string_view rest = line.substr(std::string_view(" value: ").size());
  const size_t close = rest.find('>');
  if (rest.empty() || rest[0] != '<' || close == std::string_view::npos) {
    *why = "expected ' value: <ID NAME> (size=S,offset=O): SHAPE'";
    return false;
  }
  std::string_view inner = rest.substr(1, close - 1);
  const size_t space = inner.find(' ');
  uint64_t id = 0;
  if (space == std::string_view::npos || !ParseNumber(inner.substr(0, space), &id)) {
    *why = "value: expected a numeric id after '<'";
    return false;
  }
  v->id = static_cast<int64_t>(id);
  std::string_view name = inner.substr(space + 1);
  name = name.substr(0, name.find(' '));  // drops " (phi)" and " @POSITION"
  if (name.empty()) {
    *why = "value " + std::to_string(id) + ": no name";
    return false;
  }
  // The live-range file always names the shape index; the assignment leaves out an empty one.
  const size_t brace = name.back() == '}' ? name.rfind('{') : std::string_view::npos;
  v->name = strings->Intern(name.substr(0, brace));
  v->index = brace == std::string_view::npos ? std::string_view("{}") : strings->Intern(name.substr(brace));
  rest.remove_prefix(close + 1);
  constexpr std::string_view kSize = " (size=";
  if (rest.substr(0, kSize.size()) != kSize) {
    *why = "value " + std::to_string(id) + ": expected ' (size=S,offset=O)'";
    return false;
  }
  rest.remove_prefix(kSize.size());
  const size_t comma = rest.find(",offset=");
  const size_t paren = rest.find(')');
  if (comma == std::string_view::npos || paren == std::string_view::npos || paren < comma ||
      !ParseNumber(rest.substr(0, comma), &v->size) ||
      !ParseNumber(rest.substr(comma + 8, paren - comma - 8), &v->offset) || v->size > replay::kMaxTraceBytes ||
      v->offset > replay::kMaxTraceBytes) {
    *why = "value " + std::to_string(id) + ": size or offset is not a byte count up to 2^62";
    return false;
  }
  rest.remove_prefix(paren + 1);
  if (rest.substr(0, 2) != ": ") {
    *why = "value " + std::to_string(id) + ": no shape after the size (truncated?)";
    return false;
  }
  v->shape = strings->Intern(rest.substr(2));
  return true;
}

bool ParseLiveRanges(std::string_view text, int64_t* max,
                     std::unordered_map<std::string_view, std::pair<int64_t, int64_t>>* ranges, std::string* error) {
  const std::vector<std::string_view> lines = Lines(text);
  constexpr std::string_view kHead = "HloLiveRange (max ";
  if (lines.empty() || lines[0].substr(0, kHead.size()) != kHead) {
    *error = "live-range 1: expected 'HloLiveRange (max N):'";
    return false;
  }
  uint64_t m = 0;
  const std::string_view head = lines[0].substr(kHead.size());
  if (!ParseNumber(head.substr(0, head.find(')')), &m)) {
    *error = "live-range 1: expected 'HloLiveRange (max N):'";
    return false;
  }
  *max = static_cast<int64_t>(m);
  enum { kNone, kRanges, kDone } section = kNone;
  for (size_t k = 1; k < lines.size() && section != kDone; ++k) {
    std::string_view l = lines[k];
    const size_t first = l.find_first_not_of(' ');
    if (first == std::string_view::npos) continue;
    l.remove_prefix(first);
    if (l == "BufferLiveRange:") {
      section = kRanges;
      continue;
    }
    if (section == kRanges) {
      if (l.substr(0, 15) == "Live ranges at ") {
        section = kDone;
        break;
      }
      const size_t colon = l.rfind(':');
      const size_t dash = colon == std::string_view::npos ? colon : l.find('-', colon);
      uint64_t s = 0, e = 0;
      if (colon == std::string_view::npos || dash == std::string_view::npos ||
          !ParseNumber(l.substr(colon + 1, dash - colon - 1), &s) || !ParseNumber(l.substr(dash + 1), &e) || e < s ||
          e > m) {
        *error = "live-range " + std::to_string(k + 1) +
                 ": expected 'NAME{INDEX}:START-END' with START <= END <= " + std::to_string(m);
        return false;
      }
      (*ranges)[l.substr(0, colon)] = {static_cast<int64_t>(s), static_cast<int64_t>(e)};
    }
  }
  if (section != kDone) {
    *error = "live-range " + std::to_string(lines.size()) + ": ends before its 'Live ranges at' section (truncated?)";
    return false;
  }
  return true;
}

}  // namespace

bool ParseXlaText(std::string_view assignment, std::string_view live_range, XlaModule* module, std::string* error) {
  *module = XlaModule{};
  module->input_bytes = assignment.size() + live_range.size();
  const std::vector<std::string_view> lines = Lines(assignment);
  if (lines.empty() || lines[0] != "BufferAssignment:") {
    *error = assignment.empty() ? "1: the buffer assignment is empty"
                                : "1: expected 'BufferAssignment:' (not an XLA buffer-assignment dump)";
    return false;
  }
  std::string why;
  uint64_t total = 0;  // of the allocations' sizes: at most 2^63, so that no sum over them wraps
  for (size_t k = 1; k < lines.size(); ++k) {
    const std::string_view l = lines[k];
    if (l.find_first_not_of(" \t") == std::string_view::npos) continue;
    if (l.substr(0, 11) == "allocation ") {
      XlaAllocation a;
      a.line = static_cast<uint32_t>(k + 1);
      if (!ParseAllocationHeader(l, &a, &why)) {
        *error = At(k + 1, why);
        return false;
      }
      if (a.index != module->allocations.size()) {
        *error = At(k + 1, "allocation " + std::to_string(a.index) + " follows allocation " +
                               std::to_string(module->allocations.size()) + " - 1 (allocations are numbered in order)");
        return false;
      }
      if (a.size > replay::kMaxTraceTotalBytes - total) {
        *error = At(k + 1, "allocation " + std::to_string(a.index) +
                               ": the allocations' sizes up to here add up to more than 2^63 bytes");
        return false;
      }
      total += a.size;
      module->allocations.push_back(std::move(a));
    } else if (l.substr(0, 8) == " value: ") {
      if (module->allocations.empty()) {
        *error = At(k + 1, "a value before any allocation");
        return false;
      }
      XlaValue v;
      v.line = static_cast<uint32_t>(k + 1);
      if (!ParseValue(l, module->strings.get(), &v, &why)) {
        *error = At(k + 1, why);
        return false;
      }
      XlaAllocation& a = module->allocations.back();
      if (v.offset + v.size > a.size) {
        *error = At(k + 1, "value " + std::to_string(v.id) + " (offset " + std::to_string(v.offset) + ", size " +
                               std::to_string(v.size) + ") does not fit allocation " + std::to_string(a.index) +
                               " of " + std::to_string(a.size) + " bytes");
        return false;
      }
      a.values.push_back(std::move(v));
      ++module->values;
    } else {
      *error = At(k + 1, "expected 'allocation N: ...' or ' value: <...>'");
      return false;
    }
  }
  if (module->allocations.empty()) {
    *error = At(lines.size(), "no allocations (truncated?)");
    return false;
  }
  for (const XlaAllocation& a : module->allocations) {
    if (a.values.empty()) {
      *error = At(a.line, "allocation " + std::to_string(a.index) + " has no values (truncated?)");
      return false;
    }
  }
  SumXlaModule(module);
  if (live_range.empty()) return true;
  std::unordered_map<std::string_view, std::pair<int64_t, int64_t>> ranges;
  if (!ParseLiveRanges(live_range, &module->sequence_length, &ranges, error)) return false;
  std::string full;
  for (XlaAllocation& a : module->allocations) {
    for (XlaValue& v : a.values) {
      full.assign(v.name);
      full += v.index;
      auto it = ranges.find(full);
      if (it != ranges.end()) std::tie(v.start, v.end) = it->second;
    }
  }
  return true;
}

bool CheckXlaValuesText(std::string_view values, std::string_view assignment, const XlaModule& module,
                        std::string* error) {
  constexpr std::string_view kValuesFile = "buffer-assignment-values.txt";
  const size_t at = values.find("Total bytes used: ");
  if (at == std::string_view::npos) return true;
  uint64_t total = 0, sum = 0;
  const std::string_view rest = values.substr(at + 18);
  ParseNumber(rest.substr(0, rest.find_first_not_of("0123456789")), &total);
  for (const XlaAllocation& a : module.allocations) sum += a.size;
  uint64_t listed = 0;  // "Used values:" lists each value once, a line starting with '<'
  for (std::string_view l : Lines(values)) listed += !l.empty() && l.front() == '<';
  if (total == sum && listed != module.values) {
    *error = std::to_string(Lines(assignment).size()) + ": " + std::to_string(module.values) + " values, " +
             std::string(kValuesFile) + " lists " + std::to_string(listed) + " (truncated?)";
    return false;
  }
  if (total != sum) {
    *error = std::to_string(Lines(assignment).size()) + ": the allocations add up to " + std::to_string(sum) +
             " bytes, " + std::string(kValuesFile) + " says " + std::to_string(total) + " (truncated?)";
    return false;
  }
  return true;
}

bool LooksLikeXlaAssignment(std::string_view data) { return data.substr(0, 17) == "BufferAssignment:"; }

}  // namespace strata::workload
