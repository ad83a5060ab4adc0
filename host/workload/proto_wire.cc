// The bounded protobuf wire reader of proto_wire.h.
#include "proto_wire.h"

namespace strata::workload {

VarintRead ReadVarint(std::string_view data, size_t* at, uint64_t* out) {
  uint64_t v = 0;
  for (int k = 0; k < 10; ++k) {
    if (*at >= data.size()) return VarintRead::kTruncated;
    const uint8_t c = static_cast<uint8_t>(data[(*at)++]);
    // The 10th byte holds bit 63 alone: anything more (or a continuation) does not fit 64 bits.
    if (k == 9 && c > 1) return VarintRead::kOver64Bits;
    v |= static_cast<uint64_t>(c & 0x7f) << (7 * k);
    if (c < 0x80) {
      *out = v;
      return VarintRead::kOk;
    }
  }
  return VarintRead::kOver64Bits;  // not reached: the 10th byte either ends the varint or is refused above
}

bool WireReader::Fail(uint64_t position, const std::string& what) {
  *error_ = "byte " + std::to_string(position) + ": " + what;
  return false;
}

bool WireReader::Varint(uint64_t* out) {
  const uint64_t start = base_ + at_;
  switch (ReadVarint(data_, &at_, out)) {
    case VarintRead::kOk:
      return true;
    case VarintRead::kTruncated:
      return Fail(start, "a varint runs past the end of its message (truncated?)");
    case VarintRead::kOver64Bits:
      break;
  }
  return Fail(start, "a varint longer than 64 bits (not protobuf?)");
}

bool WireReader::Next(WireField* field) {
  if (!error_->empty() || at_ >= data_.size()) return false;
  field->position = base_ + at_;
  uint64_t tag = 0;
  if (!Varint(&tag)) return false;
  const uint64_t number = tag >> 3;
  if (number == 0 || number > 536870911) return Fail(field->position, "field number 0 or over 2^29 (not protobuf?)");
  field->number = static_cast<uint32_t>(number);
  field->bytes = {};
  field->value = 0;
  switch (tag & 7) {
    case 0:
      field->type = WireType::kVarint;
      return Varint(&field->value);
    case 1:
    case 5: {
      const size_t n = (tag & 7) == 1 ? 8 : 4;
      field->type = n == 8 ? WireType::kFixed64 : WireType::kFixed32;
      if (data_.size() - at_ < n) {
        return Fail(field->position, "field " + std::to_string(number) + ": a fixed " + std::to_string(8 * n) +
                                         "-bit value runs past the end (truncated?)");
      }
      for (size_t k = 0; k < n; ++k)
        field->value |= static_cast<uint64_t>(static_cast<uint8_t>(data_[at_ + k])) << (8 * k);
      at_ += n;
      return true;
    }
    case 2: {
      field->type = WireType::kLen;
      uint64_t n = 0;
      if (!Varint(&n)) return false;
      if (n > data_.size() - at_) {
        return Fail(field->position, "field " + std::to_string(number) + ": length " + std::to_string(n) +
                                         " but only " + std::to_string(data_.size() - at_) +
                                         " bytes left (truncated?)");
      }
      field->payload_at = base_ + at_;
      field->bytes = data_.substr(at_, static_cast<size_t>(n));
      at_ += static_cast<size_t>(n);
      return true;
    }
    default:
      return Fail(field->position, "field " + std::to_string(number) + ": wire type " + std::to_string(tag & 7) +
                                       " (groups and unknown types are not read; not protobuf?)");
  }
}

}  // namespace strata::workload
