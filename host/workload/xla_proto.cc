// The protobuf parser of xla_proto.h: XLA's HloProto / BufferAssignmentProto decoded by the wire format
// (proto_wire.h) and the field numbers of xla_schema.h, in three steps: the messages read into records named as
// the schema names them (MessageReader), shapes printed as XLA prints them (ShapeText), and the records made an
// XlaModule (ToModule). One error channel (Fields) carries every failure, of the wire or of the schema.
#include "xla_proto.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "importer.h"
#include "proto_wire.h"
#include "trace.h"
#include "xla_schema.h"

namespace strata::workload {
namespace xla {

const char* PrimitiveTypeName(uint64_t type) {
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

}  // namespace xla

namespace {

// Tuples inside tuples, and shape indices into them, deeper than any real program's.
constexpr uint32_t kMaxShapeDepth = 64;
// The most text the shapes may print as: a real dump's is about its ShapeProtos' own size (a tuple's text repeats
// its elements' once per level of nesting, and real programs nest two or three deep).
constexpr uint64_t kShapeTextPerByte = 8, kShapeTextBase = uint64_t{1} << 20;

// "1,0": numbers as XLA prints dimensions, layouts and shape indices.
std::string Join(const std::vector<uint64_t>& numbers) {
  std::string out;
  for (size_t k = 0; k < numbers.size(); ++k) {
    if (k != 0) out += ',';
    out += std::to_string(numbers[k]);
  }
  return out;
}

// The records of a decode, one per message read, their fields named as the schema names them (xla_schema.h);
// `position` is the byte offset of the message's field, for errors.
struct LogicalBuffer {  // LogicalBufferProto, with its defined_at Location
  int64_t id = 0;
  uint64_t size = 0;
  int64_t instruction_id = -1;
  std::string_view instruction_name;  // the deprecated Location.instruction_name, when written (interned)
  std::vector<uint64_t> shape_index;
  uint64_t position = 0;
};

struct Assigned {  // BufferAllocationProto.Assigned
  int64_t logical_buffer_id = 0;
  uint64_t offset = 0, size = 0, position = 0;
};

struct BufferAllocation {  // BufferAllocationProto
  uint64_t index = 0, size = 0, position = 0;
  int64_t parameter_number = 0;
  bool is_thread_local = false, is_entry_computation_parameter = false, maybe_live_out = false, is_constant = false;
  std::vector<Assigned> assigned;
};

struct Event {  // HeapSimulatorTrace.Event
  uint64_t kind = 0, position = 0;
  int64_t buffer_id = 0, share_with_canonical_id = 0;
};

struct Instruction {      // HloInstructionProto
  std::string_view name;  // interned once per instruction, not per logical buffer that names it
  WireField shape;        // its ShapeProto, printed only when a logical buffer names it
  bool has_shape = false;
};

struct Records {
  std::string_view module_name;                           // HloModuleProto.name
  std::unordered_map<int64_t, Instruction> instructions;  // by HloInstructionProto.id
  std::vector<LogicalBuffer> logical_buffers;
  std::unordered_map<int64_t, size_t> buffer_at;  // LogicalBufferProto.id -> its index in logical_buffers
  std::vector<BufferAllocation> buffer_allocations;
  std::vector<Event> events;  // of every heap-simulator trace, in order
};

// The one error channel of a decode, and its work budget: every wire reader over the input writes its failure
// here (WireReader shares the string), and so does every check of the schema; failed() is whether any did.
class Fields {
 public:
  Fields(uint64_t input_bytes, XlaProtoInfo* info) : info_(info), budget_(WalkBudget(input_bytes)) {}

  WireReader Reader(std::string_view data, uint64_t base) { return WireReader(data, base, &error_); }
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  XlaProtoInfo* info() { return info_; }

  bool Fail(uint64_t position, const std::string& what) {
    error_ = "byte " + std::to_string(position) + ": " + what;
    return false;
  }

  // Next field of r, counted against the budget; false at the end or on an error (failed() tells which).
  bool Next(WireReader& r, WireField* f) {
    if (!r.Next(f)) return false;
    if (++info_->fields <= budget_) return true;
    return Fail(f->position, "decoding would read more than " + std::to_string(budget_) + " fields");
  }

  bool Want(const WireField& f, WireType type, const char* message) {
    if (f.type == type) return true;
    static const char* const kNames[] = {"varint", "fixed64", "length-delimited", "?", "?", "fixed32"};
    return Fail(f.position, std::string(message) + " field " + std::to_string(f.number) + " is " +
                                kNames[static_cast<int>(f.type)] + ", the schema says " +
                                kNames[static_cast<int>(type)] + " (not this XLA message?)");
  }

  // A repeated integer field, packed or not (the schema says packed; older writers did not).
  bool WantRepeated(const WireField& f, const char* message) {
    return f.type == WireType::kLen || Want(f, WireType::kVarint, message);
  }

  bool NonNegative(const WireField& f, const char* what, uint64_t* out) {
    if (!Want(f, WireType::kVarint, what)) return false;
    if (f.value > replay::kMaxTraceBytes) {
      return Fail(f.position, std::string(what) + " field " + std::to_string(f.number) + ": " +
                                  std::to_string(static_cast<int64_t>(f.value)) + " is negative or over 2^62");
    }
    *out = f.value;
    return true;
  }

 private:
  XlaProtoInfo* info_;
  uint64_t budget_;
  std::string error_;
};

// Reads the schema's messages into Records: fields checked for their wire types and ranges, nothing else yet
// (what refers to what is ToModule's to check). Fields newer than the schema read here are skipped.
class MessageReader {
 public:
  MessageReader(Fields* fields, XlaStrings* strings, Records* records)
      : fields_(*fields), strings_(*strings), records_(*records) {}

  bool ReadHloModule(const WireField& field) {
    using M = xla::HloModuleProto;
    WireReader r = Nested(field);
    WireField f;
    while (fields_.Next(r, &f)) {
      if (f.number == M::name) {
        if (!fields_.Want(f, WireType::kLen, "HloModuleProto")) return false;
        records_.module_name = f.bytes;
      } else if (f.number == M::computations) {
        if (!fields_.Want(f, WireType::kLen, "HloModuleProto") || !ReadComputation(f)) return false;
      }
    }
    return !fields_.failed();
  }

  bool ReadBufferAssignment(std::string_view data, uint64_t base) {
    using M = xla::BufferAssignmentProto;
    WireReader r = fields_.Reader(data, base);
    WireField f;
    while (fields_.Next(r, &f)) {
      if (f.number < M::logical_buffers || f.number > M::heap_simulator_traces) continue;
      if (!fields_.Want(f, WireType::kLen, "BufferAssignmentProto")) return false;
      if (f.number == M::logical_buffers && !ReadLogicalBuffer(f)) return false;
      if (f.number == M::buffer_allocations && !ReadBufferAllocation(f)) return false;
      if (f.number == M::heap_simulator_traces && !ReadHeapSimulatorTrace(f)) return false;
    }
    return !fields_.failed();
  }

 private:
  WireReader Nested(const WireField& field) { return fields_.Reader(field.bytes, field.payload_at); }

  bool ReadComputation(const WireField& field) {
    WireReader r = Nested(field);
    WireField f;
    while (fields_.Next(r, &f)) {
      if (f.number != xla::HloComputationProto::instructions) continue;
      if (!fields_.Want(f, WireType::kLen, "HloComputationProto") || !ReadInstruction(f)) return false;
    }
    return !fields_.failed();
  }

  bool ReadInstruction(const WireField& field) {
    using M = xla::HloInstructionProto;
    WireReader r = Nested(field);
    WireField f;
    Instruction ins;
    uint64_t id = 0;
    bool has_id = false;
    while (fields_.Next(r, &f)) {
      if (f.number == M::name) {
        if (!fields_.Want(f, WireType::kLen, "HloInstructionProto")) return false;
        ins.name = strings_.Intern(f.bytes);
      } else if (f.number == M::shape) {
        if (!fields_.Want(f, WireType::kLen, "HloInstructionProto")) return false;
        ins.shape = f;
        ins.has_shape = true;
      } else if (f.number == M::id) {
        if (!fields_.Want(f, WireType::kVarint, "HloInstructionProto")) return false;
        id = f.value;
        has_id = true;
      }
    }
    if (fields_.failed()) return false;
    if (has_id) records_.instructions[static_cast<int64_t>(id)] = ins;
    return true;
  }

  bool ReadLogicalBuffer(const WireField& field) {
    using M = xla::LogicalBufferProto;
    LogicalBuffer b;
    b.position = field.position;
    WireReader r = Nested(field);
    WireField f;
    while (fields_.Next(r, &f)) {
      if (f.number == M::id) {
        if (!fields_.Want(f, WireType::kVarint, "LogicalBufferProto")) return false;
        b.id = static_cast<int64_t>(f.value);
      } else if (f.number == M::size) {
        if (!fields_.NonNegative(f, "LogicalBufferProto", &b.size)) return false;
      } else if (f.number == M::defined_at) {
        if (!fields_.Want(f, WireType::kLen, "LogicalBufferProto") || !ReadLocation(f, &b)) return false;
      }
    }
    if (fields_.failed()) return false;
    if (!records_.buffer_at.emplace(b.id, records_.logical_buffers.size()).second) {
      return fields_.Fail(b.position, "logical buffer " + std::to_string(b.id) + " is listed twice");
    }
    records_.logical_buffers.push_back(std::move(b));
    return true;
  }

  bool ReadLocation(const WireField& field, LogicalBuffer* b) {
    using M = xla::LogicalBufferProto::Location;
    constexpr const char* kMessage = "LogicalBufferProto.Location";
    WireReader r = Nested(field);
    WireField f;
    while (fields_.Next(r, &f)) {
      if (f.number == M::instruction_name) {
        if (!fields_.Want(f, WireType::kLen, kMessage)) return false;
        b->instruction_name = strings_.Intern(f.bytes);
      } else if (f.number == M::shape_index) {
        if (!fields_.WantRepeated(f, kMessage) || !r.Packed(f, [&](uint64_t v) { b->shape_index.push_back(v); })) {
          return false;
        }
        if (b->shape_index.size() > kMaxShapeDepth) {
          return fields_.Fail(f.position, "a shape index deeper than " + std::to_string(kMaxShapeDepth));
        }
      } else if (f.number == M::instruction_id) {
        if (!fields_.Want(f, WireType::kVarint, kMessage)) return false;
        b->instruction_id = static_cast<int64_t>(f.value);
      }
    }
    return !fields_.failed();
  }

  bool ReadBufferAllocation(const WireField& field) {
    using M = xla::BufferAllocationProto;
    constexpr const char* kMessage = "BufferAllocationProto";
    BufferAllocation a;
    a.position = field.position;
    WireReader r = Nested(field);
    WireField f;
    while (fields_.Next(r, &f)) {
      switch (f.number) {
        case M::index:
          if (!fields_.NonNegative(f, kMessage, &a.index)) return false;
          break;
        case M::size:
          if (!fields_.NonNegative(f, kMessage, &a.size)) return false;
          break;
        case M::is_thread_local:
        case M::is_entry_computation_parameter:
        case M::maybe_live_out:
        case M::is_constant:
          if (!fields_.Want(f, WireType::kVarint, kMessage)) return false;
          (f.number == M::is_thread_local                  ? a.is_thread_local
           : f.number == M::is_entry_computation_parameter ? a.is_entry_computation_parameter
           : f.number == M::maybe_live_out                 ? a.maybe_live_out
                                                           : a.is_constant) = f.value != 0;
          break;
        case M::parameter_number: {
          uint64_t p = 0;
          if (!fields_.NonNegative(f, kMessage, &p)) return false;
          a.parameter_number = static_cast<int64_t>(p);
          break;
        }
        case M::assigned:
          if (!fields_.Want(f, WireType::kLen, kMessage) || !ReadAssigned(f, &a)) return false;
          break;
        default:
          break;
      }
    }
    if (fields_.failed()) return false;
    records_.buffer_allocations.push_back(std::move(a));
    return true;
  }

  bool ReadAssigned(const WireField& field, BufferAllocation* a) {
    using M = xla::BufferAllocationProto::Assigned;
    constexpr const char* kMessage = "BufferAllocationProto.Assigned";
    Assigned s;
    s.position = field.position;
    WireReader r = Nested(field);
    WireField f;
    while (fields_.Next(r, &f)) {
      if (f.number == M::logical_buffer_id) {
        if (!fields_.Want(f, WireType::kVarint, kMessage)) return false;
        s.logical_buffer_id = static_cast<int64_t>(f.value);
      } else if (f.number == M::offset) {
        if (!fields_.NonNegative(f, kMessage, &s.offset)) return false;
      } else if (f.number == M::size) {
        if (!fields_.NonNegative(f, kMessage, &s.size)) return false;
      }
    }
    if (fields_.failed()) return false;
    a->assigned.push_back(s);
    return true;
  }

  bool ReadHeapSimulatorTrace(const WireField& field) {
    ++fields_.info()->traces;
    WireReader r = Nested(field);
    WireField f;
    while (fields_.Next(r, &f)) {
      if (f.number != xla::HeapSimulatorTrace::events) continue;
      if (!fields_.Want(f, WireType::kLen, "HeapSimulatorTrace") || !ReadEvent(f)) return false;
    }
    return !fields_.failed();
  }

  bool ReadEvent(const WireField& field) {
    using M = xla::HeapSimulatorTrace::Event;
    Event e;
    e.position = field.position;
    WireReader r = Nested(field);
    WireField f;
    while (fields_.Next(r, &f)) {
      if (f.number != M::kind && f.number != M::buffer_id && f.number != M::share_with_canonical_id) continue;
      if (!fields_.Want(f, WireType::kVarint, "HeapSimulatorTrace.Event")) return false;
      if (f.number == M::kind) e.kind = f.value;
      if (f.number == M::buffer_id) e.buffer_id = static_cast<int64_t>(f.value);
      if (f.number == M::share_with_canonical_id) e.share_with_canonical_id = static_cast<int64_t>(f.value);
    }
    if (fields_.failed()) return false;
    if (e.kind > M::SHARE_WITH) {
      return fields_.Fail(e.position,
                          "heap-simulator event kind " + std::to_string(e.kind) + " (ALLOC 0, FREE 1, SHARE_WITH 2)");
    }
    records_.events.push_back(e);
    return true;
  }

  Fields& fields_;
  XlaStrings& strings_;
  Records& records_;
};

// Shapes as XLA prints them ("f32[128,256]{1,0}", "(f32[2]{0}, s32[])"): each ShapeProto decoded once, by its
// position in the input, whatever number of logical buffers name it; the texts together bounded by the input's size.
class ShapeText {
 public:
  ShapeText(Fields* fields, XlaStrings* strings, uint64_t input_bytes)
      : fields_(*fields), strings_(*strings), text_budget_(kShapeTextPerByte * input_bytes + kShapeTextBase) {}

  // The text of an instruction's shape at a shape index (tuple element after tuple element).
  bool At(const WireField& field, const std::vector<uint64_t>& index, std::string_view* out) {
    const Parsed* s = Parse(field);
    for (size_t depth = 0; s != nullptr && depth < index.size(); ++depth) {
      if (index[depth] >= s->tuple.size()) {
        return fields_.Fail(field.position, "shape index " + std::to_string(index[depth]) + " of a tuple of " +
                                                std::to_string(s->tuple.size()));
      }
      s = Parse(s->tuple[index[depth]]);
    }
    if (s == nullptr) return false;
    *out = s->text;
    return true;
  }

 private:
  struct Parsed {
    std::string_view text;         // "f32[128,256]{1,0}", "(f32[2]{0}, s32[])", or "type N" for a type not known here
    std::vector<WireField> tuple;  // a tuple's element shapes
  };

  // The fields of one ShapeProto (and its LayoutProto's minor_to_major).
  bool Read(const WireField& field, uint64_t* type, std::vector<uint64_t>* dims, std::vector<uint64_t>* minor_to_major,
            std::vector<WireField>* tuple) {
    using M = xla::ShapeProto;
    WireReader r = fields_.Reader(field.bytes, field.payload_at);
    WireField f;
    while (fields_.Next(r, &f)) {
      if (f.number == M::element_type) {
        if (!fields_.Want(f, WireType::kVarint, "ShapeProto")) return false;
        *type = f.value;
      } else if (f.number == M::dimensions) {
        if (!fields_.WantRepeated(f, "ShapeProto") || !r.Packed(f, [&](uint64_t v) { dims->push_back(v); })) {
          return false;
        }
      } else if (f.number == M::tuple_shapes) {
        if (!fields_.Want(f, WireType::kLen, "ShapeProto")) return false;
        tuple->push_back(f);
      } else if (f.number == M::layout) {
        if (!fields_.Want(f, WireType::kLen, "ShapeProto")) return false;
        WireReader l = fields_.Reader(f.bytes, f.payload_at);
        WireField g;
        while (fields_.Next(l, &g)) {
          if (g.number != xla::LayoutProto::minor_to_major) continue;
          if (!fields_.WantRepeated(g, "LayoutProto") ||
              !l.Packed(g, [&](uint64_t v) { minor_to_major->push_back(v); })) {
            return false;
          }
        }
        if (fields_.failed()) return false;
      }
    }
    return !fields_.failed();
  }

  const Parsed* Parse(const WireField& field, uint32_t depth = 0) {
    auto cached = shapes_.find(field.payload_at);
    if (cached != shapes_.end()) return &cached->second;
    if (depth > kMaxShapeDepth) {
      fields_.Fail(field.position, "tuples nested more than " + std::to_string(kMaxShapeDepth) + " deep");
      return nullptr;
    }
    Parsed s;
    uint64_t type = 0;
    std::vector<uint64_t> dims, minor_to_major;
    if (!Read(field, &type, &dims, &minor_to_major, &s.tuple)) return nullptr;
    const char* name = xla::PrimitiveTypeName(type);
    std::string text;
    if (type == xla::TUPLE) {
      // As XLA prints a tuple: "(f32[2]{0}, s32[], ..., /*index=5*/f32[])".
      text = "(";
      for (size_t k = 0; k < s.tuple.size(); ++k) {
        const Parsed* element = Parse(s.tuple[k], depth + 1);
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
      fields_.Fail(field.position, "the shapes would print as more than " + std::to_string(text_budget_) +
                                       " bytes of text (" + std::to_string(kShapeTextPerByte) +
                                       " per input byte plus 1 MiB; tuples nested over and over?)");
      return nullptr;
    }
    s.text = strings_.Intern(text);
    return &shapes_.emplace(field.payload_at, std::move(s)).first->second;
  }

  Fields& fields_;
  XlaStrings& strings_;
  std::unordered_map<uint64_t, Parsed> shapes_;  // by the payload's byte position
  uint64_t text_bytes_ = 0, text_budget_;        // of the shapes' texts
};

// Live ranges from the heap-simulator traces: time is the event's position in the traces (concatenated, from 1),
// a logical buffer lives from its ALLOC (or SHARE_WITH) to its FREE inclusive, and buffers sharing one chunk
// (SHARE_WITH) get the union of their ranges, as XLA extends the canonical buffer's.
class LiveRanges {
 public:
  bool Read(const Records& records, Fields* fields) {
    using Kind = xla::HeapSimulatorTrace::Event;
    const size_t n = records.logical_buffers.size();
    start_.assign(n, -1);
    std::vector<int64_t> end(n, -1);
    parent_.resize(n);
    for (size_t k = 0; k < n; ++k) parent_[k] = k;
    int64_t t = 1;  // time 0 is before the first event, as position 0 of an instruction sequence is a parameter
    for (const Event& e : records.events) {
      auto it = records.buffer_at.find(e.buffer_id);
      if (it == records.buffer_at.end()) {
        return fields->Fail(e.position, "heap-simulator event for logical buffer " + std::to_string(e.buffer_id) +
                                            ", which the buffer assignment does not list");
      }
      const size_t k = it->second;
      if (e.kind == Kind::FREE) {
        if (start_[k] < 0) {
          return fields->Fail(e.position,
                              "FREE of logical buffer " + std::to_string(e.buffer_id) + " before its ALLOC");
        }
        end[k] = t;
      } else {
        if (start_[k] < 0) start_[k] = t;
        if (e.kind == Kind::SHARE_WITH) {
          auto c = records.buffer_at.find(e.share_with_canonical_id);
          if (c == records.buffer_at.end() || start_[c->second] < 0) {
            return fields->Fail(e.position, "logical buffer " + std::to_string(e.buffer_id) + " shares with " +
                                                std::to_string(e.share_with_canonical_id) +
                                                ", which is not allocated before it");
          }
          parent_[Root(k)] = Root(c->second);
        }
      }
      ++t;
    }
    last_ = t - 1;
    group_start_.assign(n, -1);
    group_end_.assign(n, -1);
    for (size_t k = 0; k < n; ++k) {
      if (start_[k] < 0) continue;
      if (end[k] < 0) end[k] = last_;  // never freed in the trace: live to its end
      const size_t r = Root(k);
      group_start_[r] = group_start_[r] < 0 ? start_[k] : std::min(group_start_[r], start_[k]);
      group_end_[r] = std::max(group_end_[r], end[k]);
    }
    return true;
  }

  int64_t last() const { return last_; }  // the last event's time

  // The range of logical buffer k (its index in Records::logical_buffers); false when no trace allocates it.
  bool Of(size_t k, int64_t* start, int64_t* end) {
    if (start_[k] < 0) return false;
    const size_t r = Root(k);
    *start = group_start_[r];
    *end = group_end_[r];
    return true;
  }

 private:
  size_t Root(size_t k) {
    while (parent_[k] != k) k = parent_[k] = parent_[parent_[k]];
    return k;
  }

  std::vector<int64_t> start_, group_start_, group_end_;
  std::vector<size_t> parent_;
  int64_t last_ = 0;
};

// The records as an XlaModule: allocations in index order, each with its logical buffers named, shaped and
// given their live ranges; what refers to what checked (every buffer listed, assigned once, inside its allocation).
class ModuleMaker {
 public:
  ModuleMaker(Records* records, Fields* fields, ShapeText* shapes, XlaStrings* strings)
      : records_(*records), fields_(*fields), shapes_(*shapes), strings_(*strings) {}

  bool Make(XlaModule* module) {
    fields_.info()->logical_buffers = records_.logical_buffers.size();
    std::vector<BufferAllocation>& allocations = records_.buffer_allocations;
    std::sort(allocations.begin(), allocations.end(),
              [](const BufferAllocation& x, const BufferAllocation& y) { return x.index < y.index; });
    if (!ranges_.Read(records_, &fields_)) return false;
    fields_.info()->events = records_.events.size();
    module->sequence_length = records_.events.empty() ? 0 : ranges_.last();
    uint64_t total = 0;  // of the allocations' sizes: at most 2^63, so that no sum over them wraps
    for (size_t i = 0; i < allocations.size(); ++i) {
      const BufferAllocation& a = allocations[i];
      if (a.index != i) {
        return fields_.Fail(a.position, "allocation " + std::to_string(a.index) + " where " + std::to_string(i) +
                                            " is expected (allocations are numbered 0, 1, ...)");
      }
      if (a.size > replay::kMaxTraceTotalBytes - total) {
        return fields_.Fail(a.position, "allocation " + std::to_string(a.index) +
                                            ": the allocations' sizes up to here add up to more than 2^63 bytes");
      }
      total += a.size;
      if (!Allocation(a, module)) return false;
    }
    if (module->allocations.empty()) return fields_.Fail(0, "no buffer allocations (not an XLA buffer assignment?)");
    SumXlaModule(module);
    return true;
  }

 private:
  bool Allocation(const BufferAllocation& a, XlaModule* module) {
    if (a.assigned.empty()) {
      return fields_.Fail(a.position, "allocation " + std::to_string(a.index) + " has no assigned logical buffers");
    }
    XlaAllocation x;
    x.index = a.index;
    x.size = a.size;
    x.parameter = a.is_entry_computation_parameter ? a.parameter_number : -1;
    x.live_out = a.maybe_live_out;
    x.thread_local_ = a.is_thread_local;
    x.constant = a.is_constant;
    // XLA's preallocated temp: what no parameter, output, constant or thread-local allocation is.
    x.temp = !a.is_entry_computation_parameter && !a.maybe_live_out && !a.is_thread_local && !a.is_constant;
    for (const Assigned& s : a.assigned) {
      XlaValue v;
      if (!Value(a, s, &v)) return false;
      x.values.push_back(std::move(v));
      ++module->values;
    }
    module->allocations.push_back(std::move(x));
    return true;
  }

  bool Value(const BufferAllocation& a, const Assigned& s, XlaValue* v) {
    auto it = records_.buffer_at.find(s.logical_buffer_id);
    if (it == records_.buffer_at.end()) {
      return fields_.Fail(s.position, "allocation " + std::to_string(a.index) + " holds logical buffer " +
                                          std::to_string(s.logical_buffer_id) +
                                          ", which the buffer assignment does not list");
    }
    if (s.offset + s.size > a.size) {
      return fields_.Fail(s.position, "logical buffer " + std::to_string(s.logical_buffer_id) + " (offset " +
                                          std::to_string(s.offset) + ", size " + std::to_string(s.size) +
                                          ") does not fit allocation " + std::to_string(a.index) + " of " +
                                          std::to_string(a.size) + " bytes");
    }
    if (!assigned_.insert(s.logical_buffer_id).second) {
      return fields_.Fail(s.position, "logical buffer " + std::to_string(s.logical_buffer_id) + " is assigned twice");
    }
    const LogicalBuffer& b = records_.logical_buffers[it->second];
    v->id = s.logical_buffer_id;
    v->size = s.size;
    v->offset = s.offset;
    auto ins = records_.instructions.find(b.instruction_id);
    // Views of the one copy of each name and shape (XlaStrings): a name or shape that many logical buffers
    // share is neither copied nor printed again per buffer.
    v->name = ins != records_.instructions.end() ? ins->second.name : b.instruction_name;  // empty: "value.ID{...}"
    index_ = '{';
    index_ += Join(b.shape_index);
    index_ += '}';
    v->index = strings_.Intern(index_);
    if (ins != records_.instructions.end() && ins->second.has_shape &&
        !shapes_.At(ins->second.shape, b.shape_index, &v->shape)) {
      return false;
    }
    ranges_.Of(it->second, &v->start, &v->end);
    return true;
  }

  Records& records_;
  Fields& fields_;
  ShapeText& shapes_;
  XlaStrings& strings_;
  LiveRanges ranges_;
  std::unordered_set<int64_t> assigned_;
  std::string index_;  // reused: the shape index's text before it is interned
};

// One decode of `data` as an HloProto (the module, then its buffer assignment) or as a bare
// BufferAssignmentProto. False with *error the one failure.
bool Decode(std::string_view data, bool as_hlo_proto, XlaModule* module, XlaProtoInfo* info, std::string* error) {
  *info = XlaProtoInfo{};
  info->hlo_proto = as_hlo_proto;
  Fields fields(data.size(), info);
  auto strings = std::make_shared<XlaStrings>();
  Records records;
  MessageReader reader(&fields, strings.get(), &records);
  bool read = true;
  if (as_hlo_proto) {
    // The top level is not counted against the budget: it holds two fields.
    WireReader r = fields.Reader(data, 0);
    WireField f, assignment;
    while (read && r.Next(&f)) {
      ++info->fields;
      if (f.number == xla::HloProto::hlo_module) read = reader.ReadHloModule(f);
      if (f.number == xla::HloProto::buffer_assignment) assignment = f;
    }
    read = read && !fields.failed() && reader.ReadBufferAssignment(assignment.bytes, assignment.payload_at);
  } else {
    read = reader.ReadBufferAssignment(data, 0);
  }
  if (!read) {
    *error = fields.error();
    return false;
  }
  ShapeText shapes(&fields, strings.get(), data.size());
  *module = XlaModule{};
  module->name = std::string(records.module_name);
  module->strings = strings;
  module->input_bytes = data.size();
  if (ModuleMaker(&records, &fields, &shapes, strings.get()).Make(module)) return true;
  *error = fields.error();
  return false;
}

// HloProto (hlo.proto): hlo_module = 1, buffer_assignment = 3, each at most once. A BufferAssignmentProto repeats
// its fields 1 and 3 and has traces (4): only one with a single allocation and logical buffer, and no trace, has
// the HloProto's outline, and it then fails as one (its allocation is no BufferAssignmentProto).
enum class Outline { kHloProto, kModuleOnly, kOther };
Outline OutlineOf(std::string_view data) {
  std::string error;  // a wire error makes the outline kOther; the decode then reports it
  WireReader r(data, 0, &error);
  WireField f, module;
  int modules = 0, assignments = 0;
  while (r.Next(&f)) {
    if (f.type != WireType::kLen || f.number == 2 || f.number == 4) return Outline::kOther;
    if (f.number == xla::HloProto::hlo_module) ++modules, module = f;
    if (f.number == xla::HloProto::buffer_assignment) ++assignments;
  }
  if (!error.empty() || modules > 1) return Outline::kOther;
  if (assignments == 1) return Outline::kHloProto;
  // One field 1 whose payload starts with a string (HloModuleProto.name = 1; LogicalBufferProto.id = 1 is a
  // varint): the module alone.
  WireReader m = r.Nested(module);
  return modules == 1 && assignments == 0 && m.Next(&f) && f.number == xla::HloModuleProto::name &&
                 f.type == WireType::kLen
             ? Outline::kModuleOnly
             : Outline::kOther;
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
