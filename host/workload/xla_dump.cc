// Reads XLA's buffer-assignment and live-range dumps and builds the two workloads of docs/jax.md from them.
#include "xla_dump.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

#include "regular_file.h"
#include "tpu.h"
#include "workload.h"
#include "xla_proto.h"

namespace strata::workload {
namespace {

constexpr std::string_view kAssignmentSuffix = "-buffer-assignment.txt";
constexpr std::string_view kLiveRangeSuffix = "-live-range.txt";
constexpr std::string_view kValuesSuffix = "-buffer-assignment-values.txt";
constexpr std::string_view kHloProtoSuffix = ".hlo.pb";

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

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

std::string_view XlaStrings::Intern(std::string_view text) {
  auto it = index_.find(text);
  if (it != index_.end()) return *it;
  const std::string& kept = store_.emplace_back(text);
  bytes_ += kept.size();
  return *index_.insert(kept).first;
}

void SumXlaModule(XlaModule* module) {
  module->argument_bytes = module->output_bytes = module->alias_bytes = module->temp_bytes = 0;
  module->constant_bytes = 0;
  for (const XlaAllocation& a : module->allocations) {
    if (a.parameter >= 0) module->argument_bytes += a.size;
    if (a.parameter >= 0 && a.live_out) module->alias_bytes += a.size;
    if (a.live_out) module->output_bytes += a.size;
    if (a.temp) module->temp_bytes += a.size;
    if (a.constant) module->constant_bytes += a.size;
  }
}

const char* XlaViewName(XlaView view) { return view == XlaView::kSteps ? "steps" : "executable"; }

bool LooksLikeXlaAssignment(std::string_view data) { return data.substr(0, 17) == "BufferAssignment:"; }

bool ParseXlaModule(std::string_view assignment, std::string_view live_range, XlaModule* module, std::string* error) {
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

namespace {

// The TPU-padded size of each distinct shape, parsed once: values view one shared text per shape (XlaStrings), and a
// protobuf dump can name one long shape from every logical buffer, so parsing it per value would cost their product.
class Padding {
 public:
  Padding(bool pad, XlaWorkloadStats* stats) : pad_(pad), stats_(stats) {}

  uint64_t Of(const XlaValue& v) {
    if (!pad_) return v.size;
    auto [it, fresh] = padded_.try_emplace(v.shape.data());
    Entry& e = it->second;
    if (fresh || e.length != v.shape.size()) {  // one text per start, as interned; else parsed afresh
      e.length = v.shape.size();
      e.known = TpuPaddedBytes(v.shape, &e.bytes);
    }
    if (!e.known) {
      ++stats_->unparsed_shapes;
      return v.size;
    }
    return std::max(e.bytes, v.size);
  }

 private:
  struct Entry {
    size_t length = 0;
    bool known = false;
    uint64_t bytes = 0;
  };
  bool pad_;
  XlaWorkloadStats* stats_;
  std::unordered_map<const char*, Entry> padded_;
};

struct Group {
  uint64_t offset = 0, size = 0;  // within the temp allocations laid end to end
  int64_t start = 0, end = 0;     // inclusive
  int64_t id = 0;
  std::string_view shape;
  uint64_t unpadded = 0, padded = 0;
  uint32_t line = 0;
};

// The temp allocations' values, aliases merged: what the heap simulator placed.
std::vector<Group> TempGroups(const XlaModule& module, Padding* padding, XlaWorkloadStats* stats) {
  std::vector<Group> groups;
  uint64_t base = 0;  // at most 2^63 (the module's allocations add up to no more), so base + offset cannot wrap
  for (const XlaAllocation& a : module.allocations) {
    if (!a.temp) continue;
    std::vector<const XlaValue*> values;
    for (const XlaValue& v : a.values) {
      ++stats->values;
      if (v.start < 0) {
        ++stats->skipped_no_live_range;
        continue;
      }
      if (v.size == 0) continue;
      values.push_back(&v);
    }
    std::sort(values.begin(), values.end(), [](const XlaValue* x, const XlaValue* y) {
      return x->offset != y->offset ? x->offset < y->offset
             : x->start != y->start ? x->start < y->start
                                    : x->id < y->id;
    });
    size_t first = groups.size();
    for (const XlaValue* v : values) {
      const uint64_t bytes = padding->Of(*v);
      Group* g = groups.size() > first ? &groups.back() : nullptr;
      // An alias or an in-place update: the same chunk, the next value's range starting before the last one's ends.
      if (g != nullptr && g->offset == base + v->offset && v->start <= g->end) {
        g->end = std::max(g->end, v->end);
        if (v->size > g->unpadded) g->shape = v->shape;
        g->size = std::max(g->size, bytes);
        g->unpadded = std::max(g->unpadded, v->size);
        g->padded = g->size;
        continue;
      }
      Group n;
      n.offset = base + v->offset;
      n.size = n.padded = bytes;
      n.unpadded = v->size;
      n.start = v->start;
      n.end = v->end;
      n.id = v->id;
      n.shape = v->shape;
      n.line = v->line;
      groups.push_back(n);
    }
    base += a.size;
  }
  return groups;
}

// Appends the workload's buffers with the checks the trace CSV reader makes (replay::ParseTrace): each at most 2^62
// bytes, all together (and unpadded) at most 2^63, so that no load, peak or sum computed from the workload wraps.
// A refusal names the buffer: `what` is called only then.
class Buffers {
 public:
  Buffers(replay::Trace* trace, XlaWorkloadStats* stats, std::string* error)
      : trace_(trace), stats_(stats), error_(error) {}

  template <typename What>
  bool Add(int64_t id, uint64_t lower, uint64_t upper, uint64_t size, uint64_t unpadded, std::string_view shape,
           uint32_t line, What what) {
    if (size > replay::kMaxTraceBytes) {
      *error_ = what() + ": " + std::to_string(size) + " bytes padded, over 2^62 (the largest buffer a trace holds)";
      return false;
    }
    if (size > replay::kMaxTraceTotalBytes - stats_->padded_bytes ||
        unpadded > replay::kMaxTraceTotalBytes - stats_->unpadded_bytes) {
      *error_ = what() + ": the workload's sizes up to here add up to more than 2^63 bytes (the most a trace holds)";
      return false;
    }
    stats_->padded_bytes += size;
    stats_->unpadded_bytes += unpadded;
    replay::TraceBuffer b;
    b.id = id;
    b.lower = lower;
    b.upper = upper;
    b.size = size;
    b.line = line;
    trace_->buffers.push_back(b);
    trace_->shapes.push_back(shape);
    return true;
  }

 private:
  replay::Trace* trace_;
  XlaWorkloadStats* stats_;
  std::string* error_;
};

const XlaValue& Largest(const XlaAllocation& a) {
  const XlaValue* best = &a.values.front();
  for (const XlaValue& v : a.values) {
    if (v.size > best->size) best = &v;
  }
  return *best;
}

std::string ValueName(int64_t id) { return "value " + std::to_string(id); }
std::string AllocationName(const XlaAllocation& a) { return "allocation " + std::to_string(a.index); }

// The executable view into *trace (emptied first, with *stats). False with *error when a size passes the trace's
// bounds; *empty is true when the error is only that nothing is left to place.
bool BuildExecutable(const XlaModule& module, bool pad, replay::Trace* trace, XlaWorkloadStats* stats,
                     std::string* error, bool* empty) {
  *empty = false;
  if (module.sequence_length == 0 && module.values != 0) {
    bool any = false;
    for (const XlaAllocation& a : module.allocations) {
      for (const XlaValue& v : a.values) any = any || v.start >= 0;
    }
    if (!any) {
      *empty = true;
      *error = "no live ranges: the module's -live-range.txt dump is needed (XLA_FLAGS=--xla_dump_to=DIR writes it)";
      return false;
    }
  }
  Padding padding(pad, stats);
  std::vector<Group> groups = TempGroups(module, &padding, stats);
  std::sort(groups.begin(), groups.end(),
            [](const Group& x, const Group& y) { return x.start != y.start ? x.start < y.start : x.id < y.id; });
  trace->buffers.reserve(groups.size());
  trace->shapes.reserve(groups.size());
  if (!pad) trace->planned_offsets.reserve(groups.size());
  Buffers out(trace, stats, error);
  for (const Group& g : groups) {
    if (!out.Add(g.id, static_cast<uint64_t>(g.start), static_cast<uint64_t>(g.end) + 1, g.size, g.unpadded, g.shape,
                 g.line, [&] { return ValueName(g.id); })) {
      return false;
    }
    if (!pad) trace->planned_offsets.push_back(g.offset);
  }
  stats->buffers = trace->buffers.size();
  if (trace->buffers.empty()) {
    *empty = true;
    *error =
        "the module has no temp allocation with live values (nothing for the heap simulator to place): use "
        "--xla-view steps for its arguments and outputs";
    return false;
  }
  return true;
}

}  // namespace

uint64_t XlaStepsBufferLimit(uint64_t input_bytes) { return (uint64_t{1} << 17) + input_bytes / 4; }

bool BuildXlaWorkload(const XlaModule& module, const XlaWorkloadOptions& options, replay::Trace* trace,
                      XlaWorkloadStats* stats, std::string* error) {
  *stats = XlaWorkloadStats{};
  trace->buffers.clear();
  trace->planned_offsets.clear();
  trace->shapes.clear();
  trace->shape_text = module.strings;
  for (const XlaAllocation& a : module.allocations) {
    if (a.thread_local_) ++stats->skipped_thread_local;
  }
  if (options.view == XlaView::kExecutable) {
    bool empty = false;
    return BuildExecutable(module, options.tpu_pad, trace, stats, error, &empty);
  }

  // kSteps: the PJRT order of docs/jax.md. Time 0: constants and arguments; step s (from 1) at T = 3s - 2:
  // the outputs that alias no argument and the temp allocation are allocated at T; at T + 1 the temp and the
  // previous step's outputs are freed; donated (aliased) arguments carry over as their outputs.
  if (options.steps == 0 || options.steps > 1'000'000) {
    *error = "steps must be 1 to 1000000";
    return false;
  }
  const uint64_t end = 3 * options.steps + 1;
  Padding padding(options.tpu_pad, stats);
  auto size_of = [&](const XlaAllocation& a) {
    ++stats->values;
    if (!options.tpu_pad || a.values.size() != 1) return a.size;  // a reused allocation keeps its planned size
    return std::max(a.size, padding.Of(a.values.front()));
  };
  uint64_t temp = 0, temp_unpadded = 0;
  for (const XlaAllocation& a : module.allocations) {
    if (!a.temp) continue;
    if (a.size > replay::kMaxTraceTotalBytes - temp_unpadded) {
      *error = AllocationName(a) + ": the temp allocations add up to more than 2^63 bytes";
      return false;
    }
    temp_unpadded += a.size;
  }
  if (options.tpu_pad && temp_unpadded != 0) {
    // What a TPU compile would need at least: the padded values' max load (XLA's offsets do not hold any more).
    replay::Trace t;
    XlaWorkloadStats s;
    std::string e;
    bool empty = false;
    if (BuildExecutable(module, true, &t, &s, &e, &empty)) {
      temp = std::max<uint64_t>(replay::MaxLoad(t, 1), 1);
    } else if (!empty) {
      *error = "the padded temp allocation: " + e;
      return false;
    }
    stats->unparsed_shapes += s.unparsed_shapes;
  } else {
    temp = temp_unpadded;
  }
  std::vector<const XlaAllocation*> resident, outputs;  // constants, then parameters in parameter order
  for (const XlaAllocation& a : module.allocations) {
    if (a.thread_local_ || a.size == 0) continue;
    if (a.constant) {
      resident.push_back(&a);
    } else if (a.parameter >= 0) {
      resident.push_back(&a);
    } else if (a.live_out && !a.temp) {
      outputs.push_back(&a);
    }
  }
  std::stable_sort(resident.begin(), resident.end(), [](const XlaAllocation* x, const XlaAllocation* y) {
    // Constants first (parameter -1), then parameters in parameter order.
    const int64_t px = x->constant ? -1 : x->parameter, py = y->constant ? -1 : y->parameter;
    return px < py;
  });
  // Counted before anything is allocated: outputs x steps grows far faster than the file.
  const uint64_t per_step = outputs.size() + (temp != 0 ? 1 : 0);
  const uint64_t count = resident.size() + options.steps * per_step;
  const uint64_t limit = XlaStepsBufferLimit(module.input_bytes);
  if (count > limit) {
    const uint64_t most = limit > resident.size() && per_step != 0 ? (limit - resident.size()) / per_step : 0;
    *error = "--xla-steps " + std::to_string(options.steps) + ": the steps view would make " + std::to_string(count) +
             " buffers (" + std::to_string(per_step) + " per step), over the limit of " + std::to_string(limit) +
             " for a module of " + std::to_string(module.input_bytes) +
             " bytes (2^17 plus one per 4 bytes read, to stay within the importers' memory bound)" +
             (most != 0 ? ": at most --xla-steps " + std::to_string(most) : "");
    return false;
  }
  trace->buffers.reserve(count);
  trace->shapes.reserve(count);
  Buffers out(trace, stats, error);
  int64_t id = 0;
  for (const XlaAllocation* a : resident) {
    const uint64_t s = size_of(*a);
    if (!out.Add(id++, 0, end, s, a->size, Largest(*a).shape, a->line, [&] { return AllocationName(*a); })) {
      return false;
    }
  }
  for (uint64_t step = 1; step <= options.steps; ++step) {
    const uint64_t t = 3 * step - 2;
    auto at_step = [&](const std::string& what) { return "step " + std::to_string(step) + ", " + what; };
    for (const XlaAllocation* a : outputs) {
      const uint64_t s = size_of(*a);
      // Held by the caller until the next call has finished (the loop feeds it back or reads it).
      if (!out.Add(id++, t, step == options.steps ? end : t + 4, s, a->size, Largest(*a).shape, a->line,
                   [&] { return at_step("output " + AllocationName(*a)); })) {
        return false;
      }
    }
    if (temp != 0 &&
        !out.Add(id++, t, t + 1, temp, temp_unpadded, "", 0, [&] { return at_step("the temp allocation"); })) {
      return false;
    }
  }
  stats->buffers = trace->buffers.size();
  if (trace->buffers.empty()) {
    *error = "the module allocates nothing";
    return false;
  }
  return true;
}

bool ImportXlaText(std::string_view data, const XlaWorkloadOptions& options, replay::Trace* trace, ImportStats* stats,
                   std::string* error) {
  if (!LooksLikeXlaAssignment(data)) return ImportXlaProto(data, "", options, trace, stats, nullptr, error);
  *stats = ImportStats{};
  stats->source = "XLA buffer assignment";
  XlaModule module;
  if (!ParseXlaModule(data, {}, &module, error)) return false;
  trace->buffers.clear();
  *error =
      "1: a buffer assignment alone has no live ranges: give the dump directory, or the file with its "
      "-live-range.txt beside it";
  return false;
}

namespace {

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

}  // namespace

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
    std::string chosen, list;
    for (const std::string& n : names) {
      if (!module_filter.empty() && n.find(module_filter) == std::string::npos) continue;
      uint64_t count = 0;
      if (!CountValues(path + "/" + n, max_input_bytes, &count, error)) return false;
      if (chosen.empty() || count >= best) {
        best = count;
        chosen = n;
      }
    }
    if (chosen.empty()) {
      // No text dump of the module: the protobuf one, the module with the largest file.
      std::sort(protos.begin(), protos.end());
      uint64_t largest = 0;
      for (const std::string& n : protos) {
        struct stat ps;
        if (!module_filter.empty() && n.find(module_filter) == std::string::npos) continue;
        if (stat((path + "/" + n).c_str(), &ps) != 0) continue;
        if (chosen.empty() || static_cast<uint64_t>(ps.st_size) >= largest) {
          largest = static_cast<uint64_t>(ps.st_size);
          chosen = n;
        }
      }
      if (!chosen.empty()) {
        return ImportXlaProtoFile(path + "/" + chosen, options, max_input_bytes, trace, stats, parsed, error);
      }
      names.insert(names.end(), protos.begin(), protos.end());
      *error = path + ": " +
               (names.empty() ? std::string("no *-buffer-assignment.txt or *.hlo.pb in this directory (dump with "
                                            "XLA_FLAGS=--xla_dump_to=DIR)")
                              : "no module's buffer assignment contains '" + module_filter + "' (" +
                                    std::to_string(names.size()) + " modules, e.g. " + names.front() + ")");
      return false;
    }
    prefix = path + "/" + chosen.substr(0, chosen.size() - kAssignmentSuffix.size());
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
  const std::string assignment_path = prefix + std::string(kAssignmentSuffix);
  const std::string live_path = prefix + std::string(kLiveRangeSuffix);
  std::string assignment, live;
  if (!tool::ReadRegularFile(assignment_path, max_input_bytes, &assignment, error)) return false;
  if (!Exists(live_path)) {
    *error = live_path + ": cannot open (the buffer assignment's live ranges are needed)";
    return false;
  }
  if (!tool::ReadRegularFile(live_path, max_input_bytes, &live, error)) return false;
  XlaModule module;
  if (!ParseXlaModule(assignment, live, &module, error)) {
    *error =
        (error->rfind("live-range ", 0) == 0 ? live_path + ":" + error->substr(11) : assignment_path + ":" + *error);
    return false;
  }
  // The values file, when present, states the total: a buffer assignment cut short after a whole line is caught.
  std::string values;
  if (Exists(prefix + std::string(kValuesSuffix))) {
    if (!tool::ReadRegularFile(prefix + std::string(kValuesSuffix), max_input_bytes, &values, error)) return false;
    const size_t at = values.find("Total bytes used: ");
    uint64_t total = 0, sum = 0;
    if (at != std::string::npos) {
      const std::string_view rest = std::string_view(values).substr(at + 18);
      ParseNumber(rest.substr(0, rest.find_first_not_of("0123456789")), &total);
      for (const XlaAllocation& a : module.allocations) sum += a.size;
      uint64_t listed = 0;  // "Used values:" lists each value once, a line starting with '<'
      for (std::string_view l : Lines(values)) listed += !l.empty() && l.front() == '<';
      if (total == sum && listed != module.values) {
        *error = assignment_path + ":" + std::to_string(Lines(assignment).size()) + ": " +
                 std::to_string(module.values) + " values, " + std::string(kValuesSuffix.substr(1)) + " lists " +
                 std::to_string(listed) + " (truncated?)";
        return false;
      }
      if (total != sum) {
        *error = assignment_path + ":" + std::to_string(Lines(assignment).size()) + ": the allocations add up to " +
                 std::to_string(sum) + " bytes, " + std::string(kValuesSuffix.substr(1)) + " says " +
                 std::to_string(total) + " (truncated?)";
        return false;
      }
    }
  }
  module.name = prefix.substr(prefix.find_last_of('/') + 1);
  return FinishXlaImport(std::move(module), "XLA buffer assignment", options, trace, stats, parsed, error) ||
         (*error = assignment_path + ": " + *error, false);
}

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
