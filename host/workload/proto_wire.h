// A small bounded reader of the protobuf wire format (https://protobuf.dev/programming-guides/encoding/):
// varints, fixed 32/64-bit fields and length-delimited fields, nested by the caller. No schema: the caller knows
// the field numbers it wants and skips the rest. Every length is checked against the bytes left, a varint stops at
// 64 bits (10 bytes), and errors give the absolute byte position of the field, as the other importers do.
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

// The one varint reader: the varint at data[*at], *at moved past it. kTruncated when data ends inside it (*at is
// then data.size()), kOver64Bits when its 10th byte carries bits past the 64th (or continues).
enum class VarintRead { kOk, kTruncated, kOver64Bits };
VarintRead ReadVarint(std::string_view data, size_t* at, uint64_t* out);

// Reads the fields of one message. `base` is the absolute offset of data[0] in the whole input, so that a nested
// message's reader reports positions in the file. Every failure is written to *error, the one error of a decode
// ("byte N: what"): the readers of one input share it, and each stops once it is set. Next() returns false at the
// end (*error empty) or on bad input.
class WireReader {
 public:
  WireReader(std::string_view data, uint64_t base, std::string* error) : data_(data), base_(base), error_(error) {}
  bool Next(WireField* field);
  uint64_t position() const { return base_ + at_; }

  // A reader over field's payload (a nested message), sharing this reader's error.
  WireReader Nested(const WireField& field) const { return WireReader(field.bytes, field.payload_at, error_); }

  // The values of a repeated integer field, packed (one kLen field) or not (one kVarint per value): calls add(v)
  // for each; false with *error set when a packed varint is cut by its field's end or passes 64 bits.
  template <typename Add>
  bool Packed(const WireField& field, Add add) {
    if (field.type == WireType::kVarint) {
      add(field.value);
      return true;
    }
    size_t at = 0;
    while (at < field.bytes.size()) {
      const size_t start = at;
      uint64_t v = 0;
      switch (ReadVarint(field.bytes, &at, &v)) {
        case VarintRead::kOk:
          add(v);
          break;
        case VarintRead::kTruncated:
          return Fail(field.payload_at + at, "a packed varint runs past its field");
        case VarintRead::kOver64Bits:
          return Fail(field.payload_at + start, "a packed varint longer than 64 bits (not protobuf?)");
      }
    }
    return true;
  }

 private:
  bool Varint(uint64_t* out);
  bool Fail(uint64_t position, const std::string& what);

  std::string_view data_;
  uint64_t base_ = 0;
  size_t at_ = 0;
  std::string* error_;
};

}  // namespace strata::workload

#endif  // STRATA_HOST_WORKLOAD_PROTO_WIRE_H_
