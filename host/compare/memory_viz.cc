// strata-compare --memory-viz (memory_viz.h): one contender's run rebuilt as PyTorch's memory snapshot and pickled.
// The field names follow torch.cuda.memory._snapshot()'s documentation and CUDACachingAllocator.h's TraceEntry.
#include "memory_viz.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <unordered_map>

#include "gpu_replay.h"
#include "pickle_writer.h"
#include "replay.h"
#include "va_books.h"

namespace strata::compare {
namespace {

// One trace entry. `buffer`: index into the trace's buffers, -1 for none (segments, OOMs take the failed buffer's).
struct Entry {
  const char* action;
  uint64_t addr = 0, size = 0, time = 0;
  int64_t buffer = -1;
  uint64_t device_free = 0;  // oom
};

// A live buffer's block: `bytes` what the allocator took, `buffer` its index in the trace.
struct Block {
  uint64_t bytes = 0;
  uint32_t buffer = 0;
};

struct Segment {
  uint64_t address = 0, bytes = 0;
  bool expandable = false;  // mapped pages (cuMemMap), not a cudaMalloc
};

// What a run leaves for the snapshot: its entries in order, and the segments and blocks live at the end.
struct Recorded {
  std::vector<Entry> entries;
  std::map<uint64_t, Block> live;  // by address
  std::vector<Segment> segments;
};

// A label "file:line:function" (Trace::labels) as a frame's parts: the function after the last ':', the line the
// digits before it; a label not of that form is the file name whole, at line 0 (nothing is lost).
void LabelFrame(std::string_view label, std::string_view* file, uint64_t* line, std::string_view* function) {
  *file = label, *line = 0, *function = "";
  const size_t fn = label.rfind(':');
  if (fn == std::string_view::npos || fn == 0) return;
  const size_t at = label.rfind(':', fn - 1);
  if (at == std::string_view::npos || at + 1 == fn || fn - at > 19) return;
  uint64_t n = 0;
  for (size_t k = at + 1; k < fn; ++k) {
    if (label[k] < '0' || label[k] > '9') return;
    n = n * 10 + static_cast<uint64_t>(label[k] - '0');
  }
  *file = label.substr(0, at), *line = n, *function = label.substr(fn + 1);
}

// A buffer's stack: its label's frame where the workload has one (a PyTorch snapshot's), else one naming the
// workload's file, the buffer's line there and its id.
void Frames(tool::PickleWriter& w, const replay::Trace& trace, int64_t buffer) {
  w.BeginList();
  if (buffer >= 0) {
    const size_t i = static_cast<size_t>(buffer);
    const replay::TraceBuffer& b = trace.buffers[i];
    w.BeginDict();
    if (trace.labels.size() == trace.buffers.size() && !trace.labels[i].empty()) {
      std::string_view file, function;
      uint64_t line = 0;
      LabelFrame(trace.labels[i], &file, &line, &function);
      w.Name("filename");
      w.Name(file);  // labels recur: each text once (a snapshot's distinct labels are bounded, docs/workloads.md)
      w.Name("line");
      w.UInt(line);
      w.Name("name");
      w.Name(function);
    } else {
      w.Name("filename");
      w.Name(trace.name.empty() ? "workload" : trace.name);
      w.Name("line");
      w.UInt(b.line);
      w.Name("name");
      w.Str("buffer " + std::to_string(b.id));
    }
    w.EndDict();
  }
  w.EndList();
}

// Strata's firmware allocator on the host, as RunContender runs it, with every place each buffer held.
bool RecordStrata(const replay::Trace& trace, const std::vector<replay::Event>& events, const Contender& c,
                  uint64_t capacity, Recorded* rec, std::string* error) {
  replay::ReplayOptions o;
  o.compaction_on_oom = c.compaction;
  o.capacity_bytes = capacity;
  o.record_places = true;
  o.events = &events;
  std::vector<std::pair<uint64_t, uint64_t>> failed;  // (event, HBM free then)
  o.step = [&](const replay::ReplayStep& s) {
    if (s.failed) failed.emplace_back(s.event, s.free_bytes);
  };
  replay::ReplayResult rr;
  if (!replay::Replay(trace, o, &rr, error)) return false;
  // Each event's spans: those that end there close first (a free, or a compaction moving the buffer away), then those
  // that open (moved buffers, then the event's own allocation), then its failure. A span that opens and closes at one
  // event (a buffer moved twice by one compaction) was never a place between two events: left out.
  const size_t n = rr.places.size();
  std::vector<size_t> by_to(n), by_from(n);
  for (size_t i = 0; i < n; ++i) by_to[i] = by_from[i] = i;
  std::stable_sort(by_to.begin(), by_to.end(), [&](size_t a, size_t b) { return rr.places[a].to < rr.places[b].to; });
  std::stable_sort(by_from.begin(), by_from.end(), [&](size_t a, size_t b) {
    const replay::PlacedSpan &x = rr.places[a], &y = rr.places[b];
    if (x.from != y.from) return x.from < y.from;
    const bool x_own = events[x.from].kind == 1 && events[x.from].buffer == x.buffer;
    const bool y_own = events[y.from].kind == 1 && events[y.from].buffer == y.buffer;
    return !x_own && y_own;
  });
  rec->entries.push_back({"segment_alloc", 0, capacity, 0});
  size_t t = 0, f = 0, k = 0;
  for (uint64_t e = 0; e < rr.events; ++e) {
    for (; t < n && rr.places[by_to[t]].to == e; ++t) {
      const replay::PlacedSpan& p = rr.places[by_to[t]];
      if (p.from == p.to) continue;
      const uint64_t size = trace.buffers[p.buffer].size;
      rec->entries.push_back({"free_requested", p.offset, size, e, p.buffer});
      rec->entries.push_back({"free_completed", p.offset, size, e, p.buffer});
    }
    for (; f < n && rr.places[by_from[f]].from == e; ++f) {
      const replay::PlacedSpan& p = rr.places[by_from[f]];
      if (p.from == p.to) continue;
      rec->entries.push_back({"alloc", p.offset, trace.buffers[p.buffer].size, e, p.buffer});
    }
    for (; k < failed.size() && failed[k].first == e; ++k) {
      const uint32_t b = events[e].buffer;
      Entry oom{"oom", 0, trace.buffers[b].size, e, b};
      oom.device_free = failed[k].second;
      rec->entries.push_back(oom);
    }
  }
  for (const replay::PlacedSpan& p : rr.places) {
    if (p.to >= rr.events) rec->live[p.offset] = {p.bytes, p.buffer};
  }
  rec->segments.push_back({0, capacity, false});
  return true;
}

// A GPU policy on the emulated GPU through the C API, as RunContender runs it, hearing the backend's "device" and
// "heap" events in the order they happen.
bool RecordGpu(const replay::Trace& trace, const std::vector<replay::Event>& events, const Contender& c,
               uint64_t capacity, uint64_t context_bytes, const Options& options, Recorded* rec, std::string* error) {
  replay::GpuReplayOptions o = GpuRunOptions(c, "gpu-emu", capacity, context_bytes, options);
  o.events = &events;
  uint64_t now = 0;  // the event being run: the series hears of event i after its calls
  struct Held {
    uint64_t address, bytes;
    uint32_t buffer;
  };
  std::unordered_map<uint64_t, Held> by_id;  // the backend's buffer ids
  std::map<uint64_t, uint64_t> mallocs;      // va -> bytes
  gpu::PageRanges mapped;
  auto freed = [&](uint64_t address, uint32_t buffer) {
    const uint64_t size = trace.buffers[buffer].size;
    rec->entries.push_back({"free_requested", address, size, now, buffer});
    rec->entries.push_back({"free_completed", address, size, now, buffer});
    rec->live.erase(address);
  };
  // Defragment() moves every live buffer at once: each leaves its old place before any takes its new one (one
  // buffer's new place may be another's old), so its moves are held until something else happens.
  std::vector<std::pair<uint64_t, uint64_t>> moves;  // (buffer id, new address)
  auto place_moved = [&] {
    for (const auto& [id, to] : moves) freed(by_id[id].address, by_id[id].buffer);
    for (const auto& [id, to] : moves) {
      Held& h = by_id[id];
      h.address = to;
      rec->entries.push_back({"alloc", h.address, trace.buffers[h.buffer].size, now, h.buffer});
      rec->live[h.address] = {h.bytes, h.buffer};
    }
    moves.clear();
  };
  o.on_event = [&](const strata_event& e) {
    if (e.struct_size < sizeof(strata_event) || !(e.flags & STRATA_EVENT_FLAG_ADDRESS)) return;
    const uint64_t bytes = e.value > 0 ? static_cast<uint64_t>(e.value) : 0;
    const bool move = std::strcmp(e.track, "heap") == 0 && std::strcmp(e.name, "move") == 0;
    if (!move && !moves.empty()) place_moved();
    if (std::strcmp(e.track, "device") == 0) {
      if (std::strcmp(e.name, "malloc") == 0) {
        mallocs[e.address] = bytes;
        rec->entries.push_back({"segment_alloc", e.address, bytes, now});
      } else if (std::strcmp(e.name, "free") == 0) {
        mallocs.erase(e.address);
        rec->entries.push_back({"segment_free", e.address, bytes, now});
      } else if (std::strcmp(e.name, "map") == 0) {
        mapped.Insert(e.address, e.address + bytes);
        rec->entries.push_back({"segment_map", e.address, bytes, now});
      } else if (std::strcmp(e.name, "unmap") == 0) {
        if (mapped.AllIn(e.address, bytes, 1)) mapped.Erase(e.address, e.address + bytes);  // the backend's are
        rec->entries.push_back({"segment_unmap", e.address, bytes, now});
      }
      return;
    }
    if (std::strcmp(e.track, "heap") != 0) return;
    if (std::strcmp(e.name, "alloc") == 0) {
      if (now >= events.size()) return;
      const uint32_t buffer = events[now].buffer;  // the sink runs inside the call that allocates it
      by_id[e.id] = {e.address, bytes, buffer};
      rec->entries.push_back({"alloc", e.address, trace.buffers[buffer].size, now, buffer});
      rec->live[e.address] = {bytes, buffer};
    } else if (std::strcmp(e.name, "free") == 0) {
      const auto it = by_id.find(e.id);
      if (it == by_id.end()) return;
      freed(it->second.address, it->second.buffer);
      by_id.erase(it);
    } else if (move && by_id.count(e.id) != 0) {  // Defragment(): through the host and back
      moves.emplace_back(e.id, e.to_address);
    }
  };
  o.series = [&](const replay::GpuSeriesRow& row) {
    if (!moves.empty()) place_moved();
    if (std::strcmp(row.oom, "none") != 0) {
      Entry oom{"oom", 0, row.size, row.event, events[row.event].buffer};
      oom.device_free = row.device_free_bytes;
      rec->entries.push_back(oom);
    }
    now = row.event + 1;
  };
  replay::GpuReplayResult g;
  if (!replay::GpuReplay(trace, o, &g, error)) return false;
  if (!moves.empty()) place_moved();  // a run stopped at a Defragment() that lost buffers hears no series row after it
  for (const auto& [va, bytes] : mallocs) rec->segments.push_back({va, bytes, false});
  for (const auto& [lo, hi] : mapped.runs()) rec->segments.push_back({lo, hi - lo, true});
  return true;
}

// The segments with their blocks, every byte of each in exactly one block (memory_viz's segment summary checks that),
// and the trace; a live block outside every segment (none should be) gets a segment of its own.
void WriteSnapshot(const replay::Trace& trace, Recorded& rec, std::string* out, MemoryVizSummary* summary) {
  std::vector<Segment>& segs = rec.segments;
  std::sort(segs.begin(), segs.end(), [](const Segment& a, const Segment& b) { return a.address < b.address; });
  std::vector<std::vector<std::pair<uint64_t, Block>>> inside(segs.size());
  std::vector<Segment> extra;
  std::vector<std::pair<uint64_t, Block>> extra_blocks;
  for (const auto& [address, block] : rec.live) {
    auto it =
        std::upper_bound(segs.begin(), segs.end(), address, [](uint64_t a, const Segment& s) { return a < s.address; });
    if (it != segs.begin()) {
      const Segment& s = *std::prev(it);
      if (address + block.bytes <= s.address + s.bytes) {
        inside[static_cast<size_t>(std::prev(it) - segs.begin())].emplace_back(address, block);
        continue;
      }
    }
    extra.push_back({address, block.bytes, false});
    extra_blocks.emplace_back(address, block);
  }
  for (size_t i = 0; i < extra.size(); ++i) {
    segs.push_back(extra[i]);
    inside.push_back({extra_blocks[i]});
  }

  tool::PickleWriter w;
  w.BeginDict();
  w.Name("segments");
  w.BeginList();
  for (size_t i = 0; i < segs.size(); ++i) {
    const Segment& s = segs[i];
    uint64_t allocated = 0, requested = 0;
    for (const auto& [address, block] : inside[i]) {
      allocated += block.bytes;
      requested += trace.buffers[block.buffer].size;
    }
    w.BeginDict();
    w.Name("device");
    w.Int(0);
    w.Name("address");
    w.UInt(s.address);
    w.Name("total_size");
    w.UInt(s.bytes);
    w.Name("allocated_size");
    w.UInt(allocated);
    w.Name("active_size");
    w.UInt(allocated);
    w.Name("requested_size");
    w.UInt(requested);
    w.Name("stream");
    w.Int(0);
    w.Name("segment_type");
    w.Name("large");
    w.Name("is_expandable");
    w.Bool(s.expandable);
    w.Name("frames");
    w.BeginList();
    w.EndList();
    w.Name("blocks");
    w.BeginList();
    uint64_t at = s.address;
    auto block = [&](uint64_t address, uint64_t size, uint64_t req, const char* state, int64_t buffer) {
      w.BeginDict();
      w.Name("address");
      w.UInt(address);
      w.Name("size");
      w.UInt(size);
      w.Name("requested_size");
      w.UInt(req);
      w.Name("state");
      w.Name(state);
      w.Name("frames");
      Frames(w, trace, buffer);
      w.EndDict();
    };
    for (const auto& [address, b] : inside[i]) {
      if (address < at) continue;  // overlapping an earlier block: no allocator hands out a byte twice
      if (address > at) block(at, address - at, 0, "inactive", -1);
      block(address, b.bytes, std::min(b.bytes, trace.buffers[b.buffer].size), "active_allocated", b.buffer);
      ++summary->blocks;
      at = address + b.bytes;
    }
    if (at < s.address + s.bytes) block(at, s.address + s.bytes - at, 0, "inactive", -1);
    w.EndList();
    w.EndDict();
  }
  w.EndList();
  summary->segments = segs.size();

  w.Name("device_traces");
  w.BeginList();
  w.BeginList();
  for (const Entry& e : rec.entries) {
    const std::string action = e.action;
    w.BeginDict();
    w.Name("action");
    w.Name(action);
    if (action == "oom") {
      w.Name("device_free");  // PyTorch keeps the free memory where other entries keep the address
      w.UInt(e.device_free);
      ++summary->ooms;
    } else {
      w.Name("addr");
      w.UInt(e.addr);
    }
    w.Name("size");
    w.UInt(e.size);
    w.Name("stream");
    w.Int(0);
    w.Name("time_us");
    w.UInt(e.time);
    w.Name("frames");
    Frames(w, trace, e.buffer);  // -1 for segments; an oom names the buffer whose allocation failed
    w.EndDict();
    summary->allocs += action == "alloc";
    summary->frees += action == "free_completed";
    summary->segment_allocs += action == "segment_alloc";
    summary->segment_frees += action == "segment_free";
    summary->segment_maps += action == "segment_map";
    summary->segment_unmaps += action == "segment_unmap";
  }
  summary->entries = rec.entries.size();
  w.EndList();
  w.EndList();
  w.EndDict();
  w.Finish(out);
}

}  // namespace

std::string DefaultMemoryVizContender(const std::vector<Contender>& contenders) {
  for (const Contender& c : contenders) {
    if (c.name == "torch") return c.name;
  }
  return contenders.empty() ? "torch" : contenders.front().name;
}

bool MemoryVizSnapshot(const replay::Trace& trace, const std::string& name, const WorkloadReport& report,
                       const Options& options, std::string* out, MemoryVizSummary* summary, std::string* error) {
  const auto c = std::find_if(options.contenders.begin(), options.contenders.end(),
                              [&](const Contender& k) { return k.name == name; });
  if (c == options.contenders.end()) {
    std::string names;
    for (const Contender& k : options.contenders) names += (names.empty() ? "" : ", ") + k.name;
    *error = "--memory-viz-contender '" + name + "' is not one of the contenders that ran (" + names + ")";
    return false;
  }
  const std::vector<replay::Event> events = replay::BuildEvents(trace);
  const uint64_t context = options.capacity.kind == CapacitySpec::Kind::kPreset ? options.capacity.context_bytes : 0;
  Recorded rec;
  *summary = MemoryVizSummary{};
  // As CompareContender: Strata has no CUDA context, so with a GPU preset it gets what a process could use.
  const bool ok = c->strata ? RecordStrata(trace, events, *c, report.capacity_bytes - context, &rec, error)
                            : RecordGpu(trace, events, *c, report.capacity_bytes, context, options, &rec, error);
  if (!ok) {
    *error = name + ": " + *error;
    return false;
  }
  WriteSnapshot(trace, rec, out, summary);
  return true;
}

}  // namespace strata::compare
