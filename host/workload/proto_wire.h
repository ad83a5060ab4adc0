// A small bounded reader of the protobuf wire format (https://protobuf.dev/programming-guides/encoding/):
// varints, fixed 32/64-bit fields and length-delimited fields, nested by the caller. No schema: the caller knows
// the field numbers it wants and skips the rest. Every length is checked against the bytes left, varints stop at
// 10 bytes, and errors give the absolute byte position of the field, as the other importers do.
#ifndef STRATA_HOST_WORKLOAD_PROTO_WIRE_H_
#define STRATA_HOST_WORKLOAD_PROTO_WIRE_H_

#include <stdint.h>

#include <string>
#include <string_view>

namespace strata::workload {

enum class WireType : uint8_t { kVarint = 0, kFixed64 = 1, kLen = 2, kFixed32 = 5 };

struct WireField {
  uint32_t number = 0;
  WireType type = WireType::kVarint;
  uint64_t value = 0;       // kVarint, kFixed64, kFixed32
  std::string_view bytes;   // kLen: the payload
  uint64_t position = 0;    // absolute byte offset of the field's tag
  uint64_t payload_at = 0;  // absolute byte offset of the payload (kLen)
};

// Reads the fields of one message. `base` is the absolute offset of data[0] in the whole input, so that a nested
// message's reader reports positions in the file. Next() returns false at the end (error() empty) or on bad input
// (error() "byte N: what").
class WireReader {
 public:
  WireReader(std::string_view data, uint64_t base) : data_(data), base_(base) {}
  bool Next(WireField* field);
  const std::string& error() const { return error_; }
  uint64_t position() const { return base_ + at_; }

  // A nested message's reader over field's payload.
  static WireReader Nested(const WireField& field) { return WireReader(field.bytes, field.payload_at); }

 private:
  bool Varint(uint64_t* out);
  bool Fail(uint64_t position, const std::string& what);

  std::string_view data_;
  uint64_t base_ = 0;
  size_t at_ = 0;
  std::string error_;
};

// The values of a repeated integer field, packed (one kLen field) or not (one kVarint per value): calls add(v) for
// each; false with "byte N: ..." when a packed payload is cut inside a varint.
template <typename Add>
bool ReadPackedVarints(const WireField& field, Add add, std::string* error) {
  if (field.type == WireType::kVarint) {
    add(field.value);
    return true;
  }
  std::string_view p = field.bytes;
  size_t at = 0;
  while (at < p.size()) {
    uint64_t v = 0;
    int shift = 0;
    for (;;) {
      if (at >= p.size() || shift >= 64) {
        *error = "byte " + std::to_string(field.payload_at + at) + ": a packed varint runs past its field";
        return false;
      }
      const uint8_t c = static_cast<uint8_t>(p[at++]);
      v |= static_cast<uint64_t>(c & 0x7f) << shift;
      shift += 7;
      if (c < 0x80) break;
    }
    add(v);
  }
  return true;
}

}  // namespace strata::workload

#endif  // STRATA_HOST_WORKLOAD_PROTO_WIRE_H_
