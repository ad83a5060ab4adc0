// Decodes XLA's HloProto / BufferAssignmentProto by the wire format. Field numbers are those of XLA's public schema
// (hlo.proto for the module and the buffer assignment, xla_data.proto for shapes), cited at each use.
#include "xla_proto.h"

#include <algorithm>
#include <cstdlib>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "proto_wire.h"
#include "regular_file.h"
#include "workload.h"

namespace strata::workload {
namespace {

// hlo.proto, HeapSimulatorTrace.Event.Kind.
constexpr uint64_t kAlloc = 0, kFree = 1, kShareWith = 2;
// xla_data.proto, PrimitiveType: TUPLE.
constexpr uint64_t kTupleType = 13;
// Tuples inside tuples, and shape indices into them, deeper than any real program's.
constexpr uint32_t kMaxShapeDepth = 64;
// The most text the shapes may print as: a real dump's is about its ShapeProtos' own size (a tuple's text repeats
// its elements' once per level of nesting, and real programs nest two or three deep).
constexpr uint64_t kShapeTextPerByte = 8, kShapeTextBase = uint64_t{1} << 20;

// xla_data.proto, PrimitiveType: the names XLA prints in shapes ("f32[128,256]{1,0}").
const char* TypeName(uint64_t type) {
  switch (type) {
    case 1:
      return "pred";
    case 2:
      return "s8";
    case 3:
      return "s16";
    case 4:
      return "s32";
    case 5:
      return "s64";
    case 6:
      return "u8";
    case 7:
      return "u16";
    case 8:
      return "u32";
    case 9:
      return "u64";
    case 10:
      return "f16";
    case 11:
      return "f32";
    case 12:
      return "f64";
    case 15:
      return "c64";
    case 16:
      return "bf16";
    case 18:
      return "c128";
    case 19:
      return "f8e5m2";
    case 20:
      return "f8e4m3fn";
    case 21:
      return "s4";
    case 22:
      return "u4";
    case 23:
      return "f8e4m3b11fnuz";
    case 24:
      return "f8e5m2fnuz";
    case 25:
      return "f8e4m3fnuz";
    case 26:
      return "s2";
    case 27:
      return "u2";
    case 28:
      return "f8e4m3";
    case 29:
      return "f8e3m4";
    default:
      return nullptr;
  }
}

// "1,0": numbers as XLA prints dimensions, layouts and shape indices.
std::string Join(const std::vector<uint64_t>& numbers) {
  std::string out;
  for (size_t k = 0; k < numbers.size(); ++k) {
    if (k != 0) out += ',';
    out += std::to_string(numbers[k]);
  }
  return out;
}

struct LogicalBuffer {
  int64_t id = 0;
  uint64_t size = 0;
  int64_t instruction_id = -1;
  std::string_view instruction_name;  // the deprecated Location.instruction_name, when written (interned)
  std::vector<uint64_t> shape_index;
  uint64_t position = 0;
};

struct Assigned {
  int64_t id = 0;
  uint64_t offset = 0, size = 0, position = 0;
};

struct Allocation {
  uint64_t index = 0, size = 0, position = 0;
  int64_t parameter = 0;
  bool thread_local_ = false, parameter_ = false, live_out = false, constant = false;
  std::vector<Assigned> assigned;
};

struct Event {
  uint64_t kind = 0, position = 0;
  int64_t buffer = 0, canonical = 0;
};

struct Instruction {
  std::string_view name;  // interned once per instruction, not per logical buffer that names it
  WireField shape;
  bool has_shape = false;
};

class Decoder {
 public:
  Decoder(uint64_t input_bytes, XlaProtoInfo* info, std::string* error)
      : info_(info),
        error_(error),
        budget_(WalkBudget(input_bytes)),
        text_budget_(kShapeTextPerByte * input_bytes + kShapeTextBase),
        input_bytes_(input_bytes) {}

  bool Fail(uint64_t position, const std::string& what) {
    *error_ = "byte " + std::to_string(position) + ": " + what;
    return false;
  }

  // Next field of r; false at the end (error_ untouched) or on a wire error (error_ set, failed_ true).
  bool Next(WireReader& r, WireField* f) {
    if (r.Next(f)) {
      if (++info_->fields <= budget_) return true;
      failed_ = true;
      return Fail(f->position, "decoding would read more than " + std::to_string(budget_) + " fields");
    }
    if (!r.error().empty()) {
      *error_ = r.error();
      failed_ = true;
    }
    return false;
  }

  bool Want(const WireField& f, WireType type, const char* message) {
    if (f.type == type) return true;
    static const char* const kNames[] = {"varint", "fixed64", "length-delimited", "?", "?", "fixed32"};
    failed_ = true;
    return Fail(f.position, std::string(message) + " field " + std::to_string(f.number) + " is " +
                                kNames[static_cast<int>(f.type)] + ", the schema says " +
                                kNames[static_cast<int>(type)] + " (not this XLA message?)");
  }

  bool NonNegative(const WireField& f, const char* what, uint64_t* out) {
    if (!Want(f, WireType::kVarint, what)) return false;
    if (f.value > replay::kMaxTraceBytes) {
      failed_ = true;
      return Fail(f.position, std::string(what) + " field " + std::to_string(f.number) + ": " +
                                  std::to_string(static_cast<int64_t>(f.value)) + " is negative or over 2^62");
    }
    *out = f.value;
    return true;
  }

  // HloModuleProto (hlo.proto): name = 1, computations = 3; HloComputationProto: instructions = 2;
  // HloInstructionProto: name = 1, shape = 3, id = 35.
  bool Module(const WireField& field) {
    WireReader r = WireReader::Nested(field);
    WireField f;
    while (Next(r, &f)) {
      if (f.number == 1) {
        if (!Want(f, WireType::kLen, "HloModuleProto")) return false;
        module_name_ = f.bytes;
      } else if (f.number == 3) {
        if (!Want(f, WireType::kLen, "HloModuleProto")) return false;
        WireReader c = WireReader::Nested(f);
        WireField g;
        while (Next(c, &g)) {
          if (g.number != 2) continue;
          if (!Want(g, WireType::kLen, "HloComputationProto")) return false;
          WireReader i = WireReader::Nested(g);
          WireField h;
          Instruction ins;
          uint64_t id = 0;
          bool has_id = false;
          while (Next(i, &h)) {
            if (h.number == 1) {
              if (!Want(h, WireType::kLen, "HloInstructionProto")) return false;
              ins.name = strings_->Intern(h.bytes);
            } else if (h.number == 3) {
              if (!Want(h, WireType::kLen, "HloInstructionProto")) return false;
              ins.shape = h;
              ins.has_shape = true;
            } else if (h.number == 35) {
              if (!Want(h, WireType::kVarint, "HloInstructionProto")) return false;
              id = h.value;
              has_id = true;
            }
          }
          if (failed_) return false;
          if (has_id) instructions_[static_cast<int64_t>(id)] = ins;
        }
        if (failed_) return false;
      }
    }
    return !failed_;
  }

  // BufferAssignmentProto (hlo.proto): logical_buffers = 1, buffer_aliases = 2, buffer_allocations = 3,
  // heap_simulator_traces = 4.
  bool Assignment(std::string_view data, uint64_t base) {
    WireReader r(data, base);
    WireField f;
    while (Next(r, &f)) {
      if (f.number < 1 || f.number > 4) continue;  // fields newer than the schema read here
      if (!Want(f, WireType::kLen, "BufferAssignmentProto")) return false;
      if (f.number == 1 && !ReadLogicalBuffer(f)) return false;
      if (f.number == 3 && !ReadAllocation(f)) return false;
      if (f.number == 4 && !ReadTrace(f)) return false;
    }
    return !failed_;
  }

  // LogicalBufferProto: id = 1, size = 2, defined_at = 3 (Location: instruction_name = 2, shape_index = 3,
  // instruction_id = 4).
  bool ReadLogicalBuffer(const WireField& field) {
    LogicalBuffer b;
    b.position = field.position;
    WireReader r = WireReader::Nested(field);
    WireField f;
    while (Next(r, &f)) {
      if (f.number == 1) {
        if (!Want(f, WireType::kVarint, "LogicalBufferProto")) return false;
        b.id = static_cast<int64_t>(f.value);
      } else if (f.number == 2) {
        if (!NonNegative(f, "LogicalBufferProto", &b.size)) return false;
      } else if (f.number == 3) {
        if (!Want(f, WireType::kLen, "LogicalBufferProto")) return false;
        WireReader l = WireReader::Nested(f);
        WireField g;
        while (Next(l, &g)) {
          if (g.number == 2) {
            if (!Want(g, WireType::kLen, "LogicalBufferProto.Location")) return false;
            b.instruction_name = strings_->Intern(g.bytes);
          } else if (g.number == 3) {
            if (g.type != WireType::kLen && !Want(g, WireType::kVarint, "LogicalBufferProto.Location")) return false;
            if (!ReadPackedVarints(
                    g, [&](uint64_t v) { b.shape_index.push_back(v); }, error_)) {
              failed_ = true;
              return false;
            }
            if (b.shape_index.size() > kMaxShapeDepth) {
              failed_ = true;
              return Fail(g.position, "a shape index deeper than " + std::to_string(kMaxShapeDepth));
            }
          } else if (g.number == 4) {
            if (!Want(g, WireType::kVarint, "LogicalBufferProto.Location")) return false;
            b.instruction_id = static_cast<int64_t>(g.value);
          }
        }
        if (failed_) return false;
      }
    }
    if (failed_) return false;
    if (!buffer_at_.emplace(b.id, buffers_.size()).second) {
      return Fail(b.position, "logical buffer " + std::to_string(b.id) + " is listed twice");
    }
    buffers_.push_back(std::move(b));
    return true;
  }

  // BufferAllocationProto: index = 1, size = 2, is_thread_local = 3, is_entry_computation_parameter = 5,
  // parameter_number = 6, maybe_live_out = 7, assigned = 9 (Assigned: logical_buffer_id = 1, offset = 2,
  // size = 3), is_constant = 12.
  bool ReadAllocation(const WireField& field) {
    Allocation a;
    a.position = field.position;
    WireReader r = WireReader::Nested(field);
    WireField f;
    while (Next(r, &f)) {
      switch (f.number) {
        case 1:
          if (!NonNegative(f, "BufferAllocationProto", &a.index)) return false;
          break;
        case 2:
          if (!NonNegative(f, "BufferAllocationProto", &a.size)) return false;
          break;
        case 3:
        case 5:
        case 7:
        case 12:
          if (!Want(f, WireType::kVarint, "BufferAllocationProto")) return false;
          (f.number == 3   ? a.thread_local_
           : f.number == 5 ? a.parameter_
           : f.number == 7 ? a.live_out
                           : a.constant) = f.value != 0;
          break;
        case 6: {
          uint64_t p = 0;
          if (!NonNegative(f, "BufferAllocationProto", &p)) return false;
          a.parameter = static_cast<int64_t>(p);
          break;
        }
        case 9: {
          if (!Want(f, WireType::kLen, "BufferAllocationProto")) return false;
          Assigned s;
          s.position = f.position;
          WireReader g = WireReader::Nested(f);
          WireField h;
          while (Next(g, &h)) {
            if (h.number == 1) {
              if (!Want(h, WireType::kVarint, "BufferAllocationProto.Assigned")) return false;
              s.id = static_cast<int64_t>(h.value);
            } else if (h.number == 2) {
              if (!NonNegative(h, "BufferAllocationProto.Assigned", &s.offset)) return false;
            } else if (h.number == 3) {
              if (!NonNegative(h, "BufferAllocationProto.Assigned", &s.size)) return false;
            }
          }
          if (failed_) return false;
          a.assigned.push_back(s);
          break;
        }
        default:
          break;
      }
    }
    if (failed_) return false;
    allocations_.push_back(std::move(a));
    return true;
  }

  // HeapSimulatorTrace: events = 1 (Event: kind = 1, buffer_id = 2, share_with_canonical_id = 5).
  bool ReadTrace(const WireField& field) {
    ++info_->traces;
    WireReader r = WireReader::Nested(field);
    WireField f;
    while (Next(r, &f)) {
      if (f.number != 1) continue;
      if (!Want(f, WireType::kLen, "HeapSimulatorTrace")) return false;
      Event e;
      e.position = f.position;
      WireReader g = WireReader::Nested(f);
      WireField h;
      while (Next(g, &h)) {
        if (h.number == 1 || h.number == 2 || h.number == 5) {
          if (!Want(h, WireType::kVarint, "HeapSimulatorTrace.Event")) return false;
          if (h.number == 1) e.kind = h.value;
          if (h.number == 2) e.buffer = static_cast<int64_t>(h.value);
          if (h.number == 5) e.canonical = static_cast<int64_t>(h.value);
        }
      }
      if (failed_) return false;
      if (e.kind > kShareWith) {
        return Fail(e.position,
                    "heap-simulator event kind " + std::to_string(e.kind) + " (ALLOC 0, FREE 1, SHARE_WITH 2)");
      }
      events_.push_back(e);
    }
    return !failed_;
  }

  struct ParsedShape {
    std::string_view text;         // "f32[128,256]{1,0}", "(f32[2]{0}, s32[])", or "type N" for a type not known here
    std::vector<WireField> tuple;  // a tuple's element shapes
  };

  // One ShapeProto (xla_data.proto): element_type = 2, dimensions = 3, tuple_shapes = 4, layout = 5
  // (LayoutProto: minor_to_major = 1). Each is decoded once, whatever number of buffers name it.
  const ParsedShape* ParseShape(const WireField& field, uint32_t depth = 0) {
    auto cached = shapes_.find(field.payload_at);
    if (cached != shapes_.end()) return &cached->second;
    if (depth > kMaxShapeDepth) {
      failed_ = true;
      Fail(field.position, "tuples nested more than " + std::to_string(kMaxShapeDepth) + " deep");
      return nullptr;
    }
    ParsedShape s;
    WireReader r = WireReader::Nested(field);
    WireField f;
    uint64_t type = 0;
    std::vector<uint64_t> dims, minor_to_major;
    while (Next(r, &f)) {
      if (f.number == 2) {
        if (!Want(f, WireType::kVarint, "ShapeProto")) return nullptr;
        type = f.value;
      } else if (f.number == 3) {
        if (f.type != WireType::kLen && !Want(f, WireType::kVarint, "ShapeProto")) return nullptr;
        if (!ReadPackedVarints(
                f, [&](uint64_t v) { dims.push_back(v); }, error_))
          return Failed();
      } else if (f.number == 4) {
        if (!Want(f, WireType::kLen, "ShapeProto")) return nullptr;
        s.tuple.push_back(f);
      } else if (f.number == 5) {
        if (!Want(f, WireType::kLen, "ShapeProto")) return nullptr;
        WireReader l = WireReader::Nested(f);
        WireField g;
        while (Next(l, &g)) {
          if (g.number != 1) continue;
          if (g.type != WireType::kLen && !Want(g, WireType::kVarint, "LayoutProto")) return nullptr;
          if (!ReadPackedVarints(
                  g, [&](uint64_t v) { minor_to_major.push_back(v); }, error_))
            return Failed();
        }
        if (failed_) return nullptr;
      }
    }
    if (failed_) return nullptr;
    const char* name = TypeName(type);
    std::string text;
    if (type == kTupleType) {
      // As XLA prints a tuple: "(f32[2]{0}, s32[], ..., /*index=5*/f32[])".
      text = "(";
      for (size_t k = 0; k < s.tuple.size(); ++k) {
        const ParsedShape* element = ParseShape(s.tuple[k], depth + 1);
        if (element == nullptr) return nullptr;
        if (k != 0) text += ", ";
        if (k != 0 && k % 5 == 0) text += "/*index=" + std::to_string(k) + "*/";
        text += element->text;
      }
      text += ")";
    } else if (name == nullptr) {
      text = "type " + std::to_string(type);
    } else {
      text = name;
      text += '[';
      text += Join(dims);
      text += ']';
      if (!dims.empty() && minor_to_major.size() == dims.size()) {
        text += '{';
        text += Join(minor_to_major);
        text += '}';
      }
    }
    // A tuple's text repeats its elements', so nesting could make the texts far larger than the file.
    text_bytes_ += text.size();
    if (text_bytes_ > text_budget_) {
      failed_ = true;
      Fail(field.position, "the shapes would print as more than " + std::to_string(text_budget_) + " bytes of text (" +
                               std::to_string(kShapeTextPerByte) +
                               " per input byte plus 1 MiB; tuples nested over and over?)");
      return nullptr;
    }
    s.text = strings_->Intern(text);
    return &shapes_.emplace(field.payload_at, std::move(s)).first->second;
  }

  const ParsedShape* Failed() {
    failed_ = true;
    return nullptr;
  }

  // The shape text of an instruction's shape at a shape index (tuple element after tuple element).
  bool Shape(const WireField& field, const std::vector<uint64_t>& index, std::string_view* out) {
    const ParsedShape* s = ParseShape(field);
    for (size_t depth = 0; s != nullptr && depth < index.size(); ++depth) {
      if (index[depth] >= s->tuple.size()) {
        failed_ = true;
        return Fail(field.position, "shape index " + std::to_string(index[depth]) + " of a tuple of " +
                                        std::to_string(s->tuple.size()));
      }
      s = ParseShape(s->tuple[index[depth]]);
    }
    if (s == nullptr) return false;
    *out = s->text;
    return true;
  }

  bool Build(XlaModule* module) {
    *module = XlaModule{};
    module->name = std::string(module_name_);
    module->strings = strings_;
    module->input_bytes = input_bytes_;
    info_->logical_buffers = buffers_.size();
    std::sort(allocations_.begin(), allocations_.end(),
              [](const Allocation& x, const Allocation& y) { return x.index < y.index; });
    // Live ranges from the traces: time is the event's position; SHARE_WITH joins the canonical buffer's chunk.
    std::vector<int64_t> start(buffers_.size(), -1), end(buffers_.size(), -1);
    std::vector<size_t> parent(buffers_.size());
    for (size_t k = 0; k < parent.size(); ++k) parent[k] = k;
    auto root = [&](size_t k) {
      while (parent[k] != k) k = parent[k] = parent[parent[k]];
      return k;
    };
    int64_t t = 1;  // time 0 is before the first event, as position 0 of an instruction sequence is a parameter
    for (const Event& e : events_) {
      auto it = buffer_at_.find(e.buffer);
      if (it == buffer_at_.end()) {
        return Fail(e.position, "heap-simulator event for logical buffer " + std::to_string(e.buffer) +
                                    ", which the buffer assignment does not list");
      }
      const size_t k = it->second;
      if (e.kind == kFree) {
        if (start[k] < 0) {
          return Fail(e.position, "FREE of logical buffer " + std::to_string(e.buffer) + " before its ALLOC");
        }
        end[k] = t;
      } else {
        if (start[k] < 0) start[k] = t;
        if (e.kind == kShareWith) {
          auto c = buffer_at_.find(e.canonical);
          if (c == buffer_at_.end() || start[c->second] < 0) {
            return Fail(e.position, "logical buffer " + std::to_string(e.buffer) + " shares with " +
                                        std::to_string(e.canonical) + ", which is not allocated before it");
          }
          parent[root(k)] = root(c->second);
        }
      }
      ++t;
    }
    info_->events = events_.size();
    const int64_t last = t - 1;
    std::vector<int64_t> group_start(buffers_.size(), -1), group_end(buffers_.size(), -1);
    for (size_t k = 0; k < buffers_.size(); ++k) {
      if (start[k] < 0) continue;
      if (end[k] < 0) end[k] = last;  // never freed in the trace: live to its end
      const size_t r = root(k);
      group_start[r] = group_start[r] < 0 ? start[k] : std::min(group_start[r], start[k]);
      group_end[r] = std::max(group_end[r], end[k]);
    }
    module->sequence_length = events_.empty() ? 0 : last;
    std::unordered_set<int64_t> assigned;
    uint64_t total = 0;  // of the allocations' sizes: at most 2^63, so that no sum over them wraps
    std::string index;
    for (size_t i = 0; i < allocations_.size(); ++i) {
      const Allocation& a = allocations_[i];
      if (a.index != i) {
        return Fail(a.position, "allocation " + std::to_string(a.index) + " where " + std::to_string(i) +
                                    " is expected (allocations are numbered 0, 1, ...)");
      }
      if (a.size > replay::kMaxTraceTotalBytes - total) {
        return Fail(a.position, "allocation " + std::to_string(a.index) +
                                    ": the allocations' sizes up to here add up to more than 2^63 bytes");
      }
      total += a.size;
      if (a.assigned.empty()) {
        return Fail(a.position, "allocation " + std::to_string(a.index) + " has no assigned logical buffers");
      }
      XlaAllocation x;
      x.index = a.index;
      x.size = a.size;
      x.parameter = a.parameter_ ? a.parameter : -1;
      x.live_out = a.live_out;
      x.thread_local_ = a.thread_local_;
      x.constant = a.constant;
      // XLA's preallocated temp: what no parameter, output, constant or thread-local allocation is.
      x.temp = !a.parameter_ && !a.live_out && !a.thread_local_ && !a.constant;
      for (const Assigned& s : a.assigned) {
        auto it = buffer_at_.find(s.id);
        if (it == buffer_at_.end()) {
          return Fail(s.position, "allocation " + std::to_string(a.index) + " holds logical buffer " +
                                      std::to_string(s.id) + ", which the buffer assignment does not list");
        }
        if (s.offset + s.size > a.size) {
          return Fail(s.position, "logical buffer " + std::to_string(s.id) + " (offset " + std::to_string(s.offset) +
                                      ", size " + std::to_string(s.size) + ") does not fit allocation " +
                                      std::to_string(a.index) + " of " + std::to_string(a.size) + " bytes");
        }
        if (!assigned.insert(s.id).second) {
          return Fail(s.position, "logical buffer " + std::to_string(s.id) + " is assigned twice");
        }
        const LogicalBuffer& b = buffers_[it->second];
        XlaValue v;
        v.id = s.id;
        v.size = s.size;
        v.offset = s.offset;
        auto ins = instructions_.find(b.instruction_id);
        // Views of the one copy of each name and shape (XlaStrings): a name or shape that many logical buffers
        // share is neither copied nor printed again per buffer.
        const std::string_view name = ins != instructions_.end() ? ins->second.name : b.instruction_name;
        v.name = name;  // empty when the proto names no instruction: FullName() says "value.ID{...}"
        index = '{';
        index += Join(b.shape_index);
        index += '}';
        v.index = strings_->Intern(index);
        if (ins != instructions_.end() && ins->second.has_shape && !Shape(ins->second.shape, b.shape_index, &v.shape)) {
          return false;
        }
        const size_t r = root(it->second);
        if (start[it->second] >= 0) {
          v.start = group_start[r];
          v.end = group_end[r];
        }
        x.values.push_back(std::move(v));
        ++module->values;
      }
      module->allocations.push_back(std::move(x));
    }
    if (module->allocations.empty()) return Fail(0, "no buffer allocations (not an XLA buffer assignment?)");
    SumXlaModule(module);
    return true;
  }

  bool failed() const { return failed_; }

 private:
  XlaProtoInfo* info_;
  std::string* error_;
  bool failed_ = false;
  std::string_view module_name_;
  std::unordered_map<int64_t, Instruction> instructions_;
  std::vector<LogicalBuffer> buffers_;
  std::unordered_map<int64_t, size_t> buffer_at_;
  std::vector<Allocation> allocations_;
  std::vector<Event> events_;
  std::unordered_map<uint64_t, ParsedShape> shapes_;                      // by the payload's byte position
  std::shared_ptr<XlaStrings> strings_ = std::make_shared<XlaStrings>();  // the module's names and shapes
  uint64_t budget_;
  uint64_t text_bytes_ = 0, text_budget_;  // of the shapes' texts
  uint64_t input_bytes_;
};

// HloProto (hlo.proto): hlo_module = 1, buffer_assignment = 3, each at most once. A BufferAssignmentProto repeats
// its fields 1 and 3 and has traces (4): only one with a single allocation and logical buffer, and no trace, has
// the HloProto's outline, and it then fails as one (its allocation is no BufferAssignmentProto).
enum class Outline { kHloProto, kModuleOnly, kOther };
Outline OutlineOf(std::string_view data) {
  WireReader r(data, 0);
  WireField f, module;
  int modules = 0, assignments = 0;
  while (r.Next(&f)) {
    if (f.type != WireType::kLen || f.number == 2 || f.number == 4) return Outline::kOther;
    if (f.number == 1) ++modules, module = f;
    if (f.number == 3) ++assignments;
  }
  if (!r.error().empty() || modules > 1) return Outline::kOther;
  if (assignments == 1) return Outline::kHloProto;
  // One field 1 whose payload starts with a string (HloModuleProto.name = 1; LogicalBufferProto.id = 1 is a
  // varint): the module alone.
  WireReader m = WireReader::Nested(module);
  return modules == 1 && assignments == 0 && m.Next(&f) && f.number == 1 && f.type == WireType::kLen
             ? Outline::kModuleOnly
             : Outline::kOther;
}

bool Decode(std::string_view data, bool as_hlo_proto, XlaModule* module, XlaProtoInfo* info, std::string* error) {
  *info = XlaProtoInfo{};
  info->hlo_proto = as_hlo_proto;
  Decoder d(data.size(), info, error);
  if (!as_hlo_proto) return d.Assignment(data, 0) && d.Build(module);
  WireReader r(data, 0);
  WireField f, assignment;
  while (r.Next(&f)) {
    ++info->fields;
    if (f.number == 1 && !d.Module(f)) return false;
    if (f.number == 3) assignment = f;
  }
  if (!r.error().empty()) {
    *error = r.error();
    return false;
  }
  return d.Assignment(assignment.bytes, assignment.payload_at) && d.Build(module);
}

}  // namespace

bool IsXlaProtoName(std::string_view path) { return path.size() > 3 && path.substr(path.size() - 3) == ".pb"; }

bool ParseXlaProto(std::string_view data, XlaModule* module, XlaProtoInfo* info, std::string* error) {
  if (data.empty()) {
    *error = "byte 0: the file is empty";
    return false;
  }
  const Outline outline = OutlineOf(data);
  if (outline == Outline::kModuleOnly) {
    *error =
        "byte 0: an HloProto without a buffer assignment (the *before_optimizations* dump? the "
        "*after_optimizations.hlo.pb one has it)";
    return false;
  }
  if (outline == Outline::kHloProto) {
    std::string first;
    if (Decode(data, true, module, info, &first)) return true;
    // Not an HloProto after all: a BufferAssignmentProto of that outline. Report what got further.
    if (Decode(data, false, module, info, error)) return true;
    auto at = [](const std::string& e) { return std::strtoull(e.c_str() + 5, nullptr, 10); };
    if (at(first) >= at(*error)) *error = first;
    return false;
  }
  return Decode(data, false, module, info, error);
}

}  // namespace strata::workload

namespace strata::workload {

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

}  // namespace strata::workload
