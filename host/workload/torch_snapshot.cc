// PyTorch memory snapshots (torch.cuda.memory._snapshot(), pickled by _dump_snapshot or written as JSON)
// to buffer lifetimes, following MemoryViz.js's process_alloc_data (torch/utils/viz/MemoryViz.js; docs/workloads.md).
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "document.h"
#include "json_reader.h"
#include "lifetimes.h"
#include "pickle_reader.h"
#include "workload.h"

namespace strata::workload {
namespace {

constexpr uint64_t kMaxBufferBytes = replay::kMaxTraceBytes;

// A buffer's label: "file:line:function" of the first frame (innermost first, as PyTorch gathers them) whose file
// is Python (".py") outside a torch/ directory, else of the first Python frame at all; C++ frames and frames with
// no file name are skipped. At most kMaxLabelBytes of UTF-8 (a long file name loses its head, shown as "..."),
// control characters and invalid UTF-8 as '?'. The labels' distinct texts are kept once, each charged its size plus
// kLabelOverheadBytes (its string, index and map entries) against kLabelBytesPerByte per byte of input plus
// kLabelBytesBase: past that a buffer keeps no new label (memory stays bounded by the file, docs/workloads.md).
constexpr size_t kMaxLabelBytes = 160;
constexpr uint64_t kLabelOverheadBytes = 128;
constexpr uint64_t kLabelBytesPerByte = 4;
constexpr uint64_t kLabelBytesBase = uint64_t{1} << 20;

// Valid UTF-8 of `text`, control characters and each byte of an invalid sequence as '?'.
std::string CleanText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    bool ok = n != 0 && i + n <= text.size() && !(n == 2 && c < 0xC2) && !(n == 4 && c > 0xF4);
    for (size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    if (ok && n == 3) {  // no overlong forms, no surrogates
      const unsigned char d = static_cast<unsigned char>(text[i + 1]);
      ok = !(c == 0xE0 && d < 0xA0) && !(c == 0xED && d >= 0xA0);
    }
    if (ok && n == 4) {
      const unsigned char d = static_cast<unsigned char>(text[i + 1]);
      ok = !(c == 0xF0 && d < 0x90) && !(c == 0xF4 && d >= 0x90);
    }
    if (!ok) {
      out += '?';
      ++i;
    } else if (n == 1 && (c < 0x20 || c == 0x7F)) {
      out += '?';
      ++i;
    } else {
      out.append(text, i, n);
      i += n;
    }
  }
  return out;
}

// The last `keep` bytes of valid UTF-8 `text` or fewer, starting on a character: with "..." before when cut.
std::string Tail(const std::string& text, size_t keep) {
  if (text.size() <= keep) return text;
  size_t from = text.size() - keep + 3;
  while (from < text.size() && (static_cast<unsigned char>(text[from]) & 0xC0) == 0x80) ++from;
  return "..." + text.substr(from);
}
// The first `keep` bytes of valid UTF-8 `text` or fewer, ending on a character.
std::string Head(const std::string& text, size_t keep) {
  if (text.size() <= keep) return text;
  size_t to = keep;
  while (to > 0 && (static_cast<unsigned char>(text[to]) & 0xC0) == 0x80) --to;
  return text.substr(0, to);
}

bool PythonFile(std::string_view file) { return file.size() >= 3 && file.substr(file.size() - 3) == ".py"; }
bool TorchFile(std::string_view file) {
  return file.rfind("torch/", 0) == 0 || file.find("/torch/") != std::string_view::npos;
}

// The label text of one frame, within kMaxLabelBytes: the function name keeps up to 48 bytes, the file the rest.
std::string FrameLabel(std::string_view file, int64_t line, std::string_view function) {
  const std::string fn = Head(CleanText(function), 48);
  const std::string at = ":" + std::to_string(line) + ":";
  const size_t room = kMaxLabelBytes - fn.size() - at.size();
  return Tail(CleanText(file), room) + at + fn;
}

class SnapshotWalker {
 public:
  SnapshotWalker(const Document& doc, uint64_t input_bytes, const ImportOptions& options, ImportStats* stats,
                 std::string* error)
      : doc_(doc),
        options_(options),
        stats_(stats),
        error_(error),
        budget_(WalkBudget(input_bytes)),
        label_budget_(input_bytes > (UINT64_MAX - kLabelBytesBase) / kLabelBytesPerByte
                          ? UINT64_MAX
                          : input_bytes * kLabelBytesPerByte + kLabelBytesBase) {}

  // Pairs the snapshot's events into *lifetimes; *end_time is when the never-freed buffers end.
  bool Run(Lifetimes* lifetimes, uint64_t* end_time) {
    const Value& root = doc_.root;
    Value segments{}, traces{};
    bool have_segments = false, have_traces = false;
    if (root.kind == Kind::kList) {
      // torch.cuda.memory_snapshot() (no history): the list of segments alone.
      segments = root;
      have_segments = true;
      if (!BareListHoldsSegments()) return false;
    } else if (root.kind == Kind::kDict) {
      if (const Value* v = doc_.Get(root, "segments")) segments = *v, have_segments = true;
      if (const Value* v = doc_.Get(root, "device_traces")) traces = *v, have_traces = true;
      if (!have_segments && !have_traces) {
        return Fail(root, 0,
                    "the top-level dict has neither 'segments' nor 'device_traces': not a PyTorch memory "
                    "snapshot");
      }
    } else {
      return Fail(root, 0,
                  std::string("the top level is a ") + KindName(root.kind) +
                      ", not a dict with 'segments' and 'device_traces': not a PyTorch memory snapshot");
    }
    const Container* segs = nullptr;
    if (have_segments) {
      if (segments.kind != Kind::kList) return Fail(segments, 0, "'segments' is not a list");
      segs = doc_.Node(segments);
    }
    const Container* devs = nullptr;
    if (have_traces) {
      if (traces.kind != Kind::kList) return Fail(traces, 0, "'device_traces' is not a list");
      devs = doc_.Node(traces);
    }

    // Which devices the snapshot knows: one trace list per device, and the segments' devices.
    const int64_t device = options_.device;
    uint64_t devices = devs != nullptr ? devs->items.size() : 0;
    bool device_in_segments = false;
    if (segs != nullptr) {
      for (const Value& seg : segs->items) {
        if (!Visit(seg)) return false;
        int64_t d = 0;
        if (!SegmentDevice(seg, &d)) return false;
        if (d == device) device_in_segments = true;
        if (d >= 0 && static_cast<uint64_t>(d) + 1 > devices) devices = static_cast<uint64_t>(d) + 1;
      }
    }
    stats_->devices = devices;
    stats_->device = device;
    const bool device_in_traces = devs != nullptr && device >= 0 && static_cast<uint64_t>(device) < devs->items.size();
    if (!device_in_traces && !device_in_segments && !(devices == 0 && device == 0)) {
      const std::string have = devices == 0   ? "it has none"
                               : devices == 1 ? "it has device 0 only"
                                              : "it has devices 0 to " + std::to_string(devices - 1);
      return Fail(root, 0, "device " + std::to_string(device) + " is not in the snapshot (" + have + ")");
    }

    uint64_t events = 0;
    if (device_in_traces) {
      const Value& list = devs->items[static_cast<size_t>(device)];
      if (list.kind != Kind::kList) {
        return Fail(list, devs->offset, "device_traces[" + std::to_string(device) + "] is not a list");
      }
      const Container* entries = doc_.Node(list);
      events = entries->items.size();
      for (uint64_t k = 0; k < events; ++k) {
        if (!Visit(entries->items[k]) || !Event(entries->items[k], k, entries->offset, lifetimes)) return false;
      }
    }
    stats_->events = events;
    if (segs != nullptr) {
      for (const Value& seg : segs->items) {
        if (!Visit(seg) || !SegmentBlocks(seg, device, lifetimes)) return false;
      }
    }
    *end_time = events + 1;
    stats_->visits = Visits();
    return true;
  }

 private:
  bool Fail(const Value& at, uint64_t fallback, const std::string& what) {
    *error_ = "byte " + std::to_string(doc_.Offset(at, fallback)) + ": " + what;
    return false;
  }

  uint64_t Visits() const { return visits_ + doc_.visits(); }
  // Charges one list item about to be read (and what the dict lookups cost since the last charge) against
  // the budget. Without sharing each item is read about once; with a pickle's memo a 400 KB file can name
  // one list of blocks from a million segments, so the budget, not the tree's apparent size, bounds the work.
  bool Visit(const Value& at) {
    ++visits_;
    if (Visits() <= budget_) return true;
    stats_->visits = Visits();
    return Fail(at, 0,
                "reading the snapshot would visit more than " + std::to_string(budget_) + " items (" +
                    std::to_string(kWalkVisitsPerByte) + " per byte of input, plus " + std::to_string(kWalkVisitsBase) +
                    "): its lists and dicts are shared so often (pickle memo references) that the work grows "
                    "faster than the file; refused");
  }

  // torch.cuda.memory_snapshot() gives the segments alone; a bare list of trace entries is not that.
  bool BareListHoldsSegments() {
    const Container* items = doc_.Node(doc_.root);
    for (const Value& item : items->items) {
      if (!Visit(item)) return false;
      if (doc_.Get(item, "action") != nullptr) {
        return Fail(item, items->offset,
                    "the top level is a list of trace entries (they have an 'action'), not of segments: a "
                    "snapshot's entries sit under 'device_traces' (write {\"device_traces\": [LIST]})");
      }
    }
    return true;
  }

  // An integer field >= 0 of a dict; `what` names the dict in messages.
  bool Unsigned(const Value& dict, const char* key, const std::string& what, uint64_t* out, bool* present = nullptr) {
    const Value* v = doc_.Get(dict, key);
    if (v == nullptr) {
      if (present != nullptr) {
        *present = false;
        return true;
      }
      return Fail(dict, 0, what + " has no '" + key + "'");
    }
    if (present != nullptr) *present = true;
    if (v->kind == Kind::kBigInt) return Fail(dict, 0, what + ": '" + key + "' is an integer beyond 64 bits");
    if (v->kind != Kind::kInt) {
      return Fail(dict, 0, what + ": '" + key + "' is a " + KindName(v->kind) + ", not an integer");
    }
    if (v->i < 0) return Fail(dict, 0, what + ": '" + key + "' is negative (" + std::to_string(v->i) + ")");
    *out = static_cast<uint64_t>(v->i);
    return true;
  }

  bool Size(const Value& dict, const char* key, const std::string& what, uint64_t* out, bool* present = nullptr) {
    if (!Unsigned(dict, key, what, out, present)) return false;
    if ((present == nullptr || *present) && *out > kMaxBufferBytes) {
      return Fail(dict, 0, what + ": '" + key + "' (" + std::to_string(*out) + " bytes) is beyond any device");
    }
    return true;
  }

  bool SegmentDevice(const Value& seg, int64_t* device) {
    if (seg.kind != Kind::kDict)
      return Fail(seg, 0, std::string("a segment is a ") + KindName(seg.kind) + ", not a dict");
    const Value* v = doc_.Get(seg, "device");
    if (v == nullptr) {
      *device = 0;  // a single-device snapshot may leave it out
      return true;
    }
    if (v->kind != Kind::kInt) return Fail(seg, 0, std::string("a segment's 'device' is a ") + KindName(v->kind));
    *device = v->i;
    return true;
  }

  // stats_->skipped keeps first-seen order; the map finds an action's row (a snapshot may have a million
  // distinct ones).
  void Skip(const std::string& action) {
    auto [it, fresh] = skipped_row_.try_emplace(action, stats_->skipped.size());
    if (fresh) {
      stats_->skipped.emplace_back(action, 1);
    } else {
      ++stats_->skipped[it->second].second;
    }
  }

  bool Event(const Value& entry, uint64_t k, uint64_t list_offset, Lifetimes* lifetimes) {
    const std::string what = "device_traces[" + std::to_string(options_.device) + "][" + std::to_string(k) + "]";
    if (entry.kind != Kind::kDict) {
      return Fail(entry, list_offset, what + " is a " + KindName(entry.kind) + ", not a dict");
    }
    const Value* action_value = doc_.Get(entry, "action");
    if (action_value == nullptr) return Fail(entry, 0, what + " has no 'action'");
    const std::string* action = doc_.Str(*action_value);
    if (action == nullptr) {
      return Fail(entry, 0, what + ": 'action' is a " + KindName(action_value->kind) + ", not a string");
    }
    const bool alloc = *action == "alloc";
    const bool requested = *action == "free_requested";
    // 'free' is what older snapshots and MemoryViz.js call a completed free.
    const bool completed = *action == "free_completed" || *action == "free";
    if (!alloc && !requested && !completed) {
      Skip(*action);  // segment_alloc/free/map/unmap, snapshot, oom: not buffer lifetimes
      return true;
    }
    const std::string named = what + " (" + *action + ")";
    uint64_t addr = 0, size = 0;
    if (!Unsigned(entry, "addr", named, &addr) || !Size(entry, "size", named, &size)) return false;
    const uint64_t time = k + 1;
    bool added = true;
    if (alloc) {
      ++stats_->allocs;
      added = lifetimes->Alloc(addr, size, time, FramesLabel(doc_.Get(entry, "frames")));
    } else if (requested) {
      ++stats_->free_requests;
      added = lifetimes->FreeRequested(addr, size, time);
    } else {
      ++stats_->frees;
      added = lifetimes->Free(addr, size, time);
    }
    return added || Fail(entry, 0, named + ": " + Lifetimes::TotalError());
  }

  // Blocks still allocated at the dump with no open allocation in the trace were live before it started.
  bool SegmentBlocks(const Value& seg, int64_t device, Lifetimes* lifetimes) {
    int64_t d = 0;
    if (!SegmentDevice(seg, &d)) return false;
    if (d != device) return true;
    const Value* blocks_value = doc_.Get(seg, "blocks");
    if (blocks_value == nullptr) return true;
    if (blocks_value->kind != Kind::kList) return Fail(seg, 0, "a segment's 'blocks' is not a list");
    uint64_t addr = 0;
    bool have_addr = false;
    if (!Unsigned(seg, "address", "a segment", &addr, &have_addr)) return false;
    const Container* blocks = doc_.Node(*blocks_value);
    for (size_t k = 0; k < blocks->items.size(); ++k) {
      const Value& block = blocks->items[k];
      if (!Visit(block)) return false;
      const std::string what = "a segment's blocks[" + std::to_string(k) + "]";
      if (block.kind != Kind::kDict) return Fail(block, blocks->offset, what + " is not a dict");
      uint64_t size = 0, requested = 0, own_addr = 0;
      bool have_requested = false, have_own_addr = false;
      if (!Size(block, "size", what, &size) || !Size(block, "requested_size", what, &requested, &have_requested) ||
          !Unsigned(block, "address", what, &own_addr, &have_own_addr)) {
        return false;
      }
      // Older snapshots give blocks no address: they tile their segment in order (as MemoryViz.js assumes).
      const uint64_t block_addr = have_own_addr ? own_addr : addr;
      addr = block_addr + size;
      const Value* state_value = doc_.Get(block, "state");
      const std::string* state = state_value != nullptr ? doc_.Str(*state_value) : nullptr;
      if (state == nullptr || *state != "active_allocated") continue;
      if (!have_own_addr && !have_addr) {
        return Fail(block, 0, what + " is active_allocated but neither it nor its segment has an address");
      }
      if (lifetimes->IsOpen(block_addr)) continue;
      ++stats_->segment_blocks;
      if (!lifetimes->Initial(block_addr, have_requested ? requested : size, FramesLabel(doc_.Get(block, "frames")))) {
        return Fail(block, 0, what + ": " + Lifetimes::TotalError());
      }
    }
    return true;
  }

  // The label of a 'frames' list (nullptr or not a list: none), as an index into labels(); a list the pickle's memo
  // shares is read once.
  uint32_t FramesLabel(const Value* frames) {
    if (frames == nullptr || frames->kind != Kind::kList) return Lifetimes::kNoLabel;
    const Container* list = doc_.Node(*frames);
    auto cached = label_of_frames_.find(list);
    if (cached != label_of_frames_.end()) return cached->second;
    uint32_t label = Lifetimes::kNoLabel;
    const Value* fallback = nullptr;  // the first Python frame, torch's own included
    const Value* chosen = nullptr;
    for (const Value& frame : list->items) {
      ++visits_;  // charged with the next Visit: a frame costs its bytes in the file or is read once
      const Value* f = doc_.Get(frame, "filename");
      const std::string* file = f != nullptr ? doc_.Str(*f) : nullptr;
      if (file == nullptr || !PythonFile(*file)) continue;
      if (fallback == nullptr) fallback = &frame;
      if (!TorchFile(*file)) {
        chosen = &frame;
        break;
      }
    }
    if (chosen == nullptr) chosen = fallback;
    if (chosen != nullptr) {
      const std::string* file = doc_.Str(*doc_.Get(*chosen, "filename"));
      const Value* l = doc_.Get(*chosen, "line");
      const Value* n = doc_.Get(*chosen, "name");
      const std::string* name = n != nullptr ? doc_.Str(*n) : nullptr;
      label = Label(FrameLabel(*file, l != nullptr && l->kind == Kind::kInt ? l->i : 0,
                               name != nullptr ? *name : std::string_view("?")));
    }
    label_of_frames_.emplace(list, label);
    return label;
  }

  // The index of `text` in the table, stored once; kNoLabel once the table is full.
  uint32_t Label(std::string text) {
    auto found = label_index_.find(text);
    if (found != label_index_.end()) return found->second;
    const uint64_t cost = text.size() + kLabelOverheadBytes;
    if (cost > label_budget_ - label_bytes_ || texts_->size() >= Lifetimes::kNoLabel) {
      ++stats_->labels_dropped;
      return Lifetimes::kNoLabel;
    }
    label_bytes_ += cost;
    texts_->push_back(std::move(text));
    const uint32_t index = static_cast<uint32_t>(texts_->size() - 1);
    label_index_.emplace(texts_->back(), index);
    labels_.push_back(texts_->back());
    return index;
  }

 public:
  const std::vector<std::string_view>& labels() const { return labels_; }
  std::shared_ptr<std::deque<std::string>> texts() const { return texts_; }

 private:
  const Document& doc_;
  const ImportOptions& options_;
  ImportStats* stats_;
  std::string* error_;
  const uint64_t budget_;
  uint64_t visits_ = 0;
  std::unordered_map<std::string, size_t> skipped_row_;
  // The labels: their texts once each (a deque: the views stay put), the views by index, the index by text.
  std::shared_ptr<std::deque<std::string>> texts_ = std::make_shared<std::deque<std::string>>();
  std::vector<std::string_view> labels_;
  std::unordered_map<std::string_view, uint32_t> label_index_;
  std::unordered_map<const Container*, uint32_t> label_of_frames_;
  uint64_t label_bytes_ = 0;
  uint64_t label_budget_;
};

}  // namespace

bool ImportTorchSnapshot(std::string_view data, const ImportOptions& options, replay::Trace* trace, ImportStats* stats,
                         std::string* error) {
  *stats = ImportStats{};
  trace->buffers.clear();
  trace->planned_offsets.clear();  // a snapshot has neither: none left from a trace this one replaces
  trace->shapes.clear();
  Document doc;
  // JSON starts with '{' (or '[' for a bare segment list) after any byte-order mark and blanks; anything else
  // is read as a pickle, so a protocol 0/1 pickle is refused by the opcode it uses rather than as bad JSON.
  const size_t first = JsonValueStart(data);
  const bool json = first != std::string_view::npos && (data[first] == '{' || data[first] == '[');
  if (!json) {
    PickleInfo info;
    if (!ReadPickle(data, options.pickle, &doc, &info, error)) return false;
    stats->source = "torch pickle (protocol " + std::to_string(info.protocol) + ")";
  } else {
    if (!ReadJson(data, options.json, &doc, error)) return false;
    stats->source = "torch JSON";
  }
  Lifetimes lifetimes;
  uint64_t end_time = 0;
  SnapshotWalker walker(doc, data.size(), options, stats, error);
  if (!walker.Run(&lifetimes, &end_time)) return false;
  doc.Clear();  // before the trace is filled in: the import's peak memory is then
  lifetimes.Finish(end_time, trace, stats, &walker.labels());
  trace->shape_text = walker.texts();
  stats->labels = walker.labels().size();
  stats->peak_live_bytes = replay::MaxLoad(*trace, 1);
  return true;
}

}  // namespace strata::workload
