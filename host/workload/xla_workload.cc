// The workload builder of xla_workload.h: the executable and steps views of a parsed XLA module.
#include "xla_workload.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "tpu.h"

namespace strata::workload {
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

// The steps view's temp allocation: the temp allocations' sizes summed (*unpadded), and with tpu_pad the padded
// values' max load, what a TPU compile would need at least (XLA's offsets do not hold any more).
bool StepsTemp(const XlaModule& module, bool pad, XlaWorkloadStats* stats, uint64_t* temp, uint64_t* unpadded,
               std::string* error) {
  *temp = *unpadded = 0;
  for (const XlaAllocation& a : module.allocations) {
    if (!a.temp) continue;
    if (a.size > replay::kMaxTraceTotalBytes - *unpadded) {
      *error = AllocationName(a) + ": the temp allocations add up to more than 2^63 bytes";
      return false;
    }
    *unpadded += a.size;
  }
  if (!pad || *unpadded == 0) {
    *temp = *unpadded;
    return true;
  }
  replay::Trace t;
  XlaWorkloadStats s;
  std::string e;
  bool empty = false;
  if (BuildExecutable(module, true, &t, &s, &e, &empty)) {
    *temp = std::max<uint64_t>(replay::MaxLoad(t, 1), 1);
  } else if (!empty) {
    *error = "the padded temp allocation: " + e;
    return false;
  }
  stats->unparsed_shapes += s.unparsed_shapes;
  return true;
}

// What the steps view allocates of a module's allocations: once, the resident ones (constants first, then
// parameters in parameter order); every step, the outputs that alias no parameter.
struct StepsAllocations {
  std::vector<const XlaAllocation*> resident, outputs;
};

StepsAllocations SplitForSteps(const XlaModule& module) {
  StepsAllocations s;
  for (const XlaAllocation& a : module.allocations) {
    if (a.thread_local_ || a.size == 0) continue;
    if (a.constant) {
      s.resident.push_back(&a);
    } else if (a.parameter >= 0) {
      s.resident.push_back(&a);
    } else if (a.live_out && !a.temp) {
      s.outputs.push_back(&a);
    }
  }
  std::stable_sort(s.resident.begin(), s.resident.end(), [](const XlaAllocation* x, const XlaAllocation* y) {
    // Constants first (parameter -1), then parameters in parameter order.
    const int64_t px = x->constant ? -1 : x->parameter, py = y->constant ? -1 : y->parameter;
    return px < py;
  });
  return s;
}

// The steps view into *trace: the PJRT order of docs/jax.md. Time 0: constants and arguments; step s (from 1) at
// T = 3s - 2: the outputs that alias no argument and the temp allocation are allocated at T; at T + 1 the temp and
// the previous step's outputs are freed; donated (aliased) arguments carry over as their outputs.
bool BuildSteps(const XlaModule& module, const XlaWorkloadOptions& options, replay::Trace* trace,
                XlaWorkloadStats* stats, std::string* error) {
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
  if (!StepsTemp(module, options.tpu_pad, stats, &temp, &temp_unpadded, error)) return false;
  const StepsAllocations split = SplitForSteps(module);
  const std::vector<const XlaAllocation*>& resident = split.resident;
  const std::vector<const XlaAllocation*>& outputs = split.outputs;
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

}  // namespace

const char* XlaViewName(XlaView view) { return view == XlaView::kSteps ? "steps" : "executable"; }

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
  return BuildSteps(module, options, trace, stats, error);
}

}  // namespace strata::workload
