// Protocol-2 pickles of plain data (pickle_writer.h); opcodes and encodings as Python's pickletools documents them.
#include "pickle_writer.h"

#include <cstring>

namespace strata::tool {
namespace {
// The opcodes written (pickletools' names).
constexpr uint8_t kProto = 0x80, kStop = '.', kMark = '(', kEmptyDict = '}', kEmptyList = ']', kSetItems = 'u',
                  kAppends = 'e', kBinUnicode = 'X', kBinInt1 = 'K', kBinInt2 = 'M', kBinInt = 'J', kLong1 = 0x8a,
                  kNone = 'N', kTrue = 0x88, kFalse = 0x89, kBinFloat = 'G', kBinPut = 'q', kLongBinPut = 'r',
                  kBinGet = 'h', kLongBinGet = 'j';
}  // namespace

PickleWriter::PickleWriter() {
  Put(kProto);
  Put(2);
}

void PickleWriter::Le(uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void PickleWriter::Item() {
  if (open_.empty()) return;
  Open& o = open_.back();
  // A dict's batch ends after a value, never between a key and its value.
  if (o.items >= kBatch && (!o.dict || o.items % 2 == 0)) {
    Flush(o.dict);
    Put(kMark);
    o.items = 0;
  }
  ++o.items;
}

void PickleWriter::Flush(bool dict) { Put(dict ? kSetItems : kAppends); }

void PickleWriter::BeginDict() {
  Item();
  Put(kEmptyDict);
  Put(kMark);
  open_.push_back({true, 0});
}

void PickleWriter::EndDict() {
  if (open_.empty() || !open_.back().dict || open_.back().items % 2 != 0) {
    broken_ = true;
    return;
  }
  Flush(true);
  open_.pop_back();
}

void PickleWriter::BeginList() {
  Item();
  Put(kEmptyList);
  Put(kMark);
  open_.push_back({false, 0});
}

void PickleWriter::EndList() {
  if (open_.empty() || open_.back().dict) {
    broken_ = true;
    return;
  }
  Flush(false);
  open_.pop_back();
}

void PickleWriter::Str(std::string_view s) {
  Item();
  Put(kBinUnicode);
  Le(s.size(), 4);
  out_.append(s.data(), s.size());
}

void PickleWriter::Name(std::string_view s) {
  const auto it = memo_.find(std::string(s));
  if (it == memo_.end()) {
    Str(s);
    const uint32_t slot = static_cast<uint32_t>(memo_.size());
    memo_.emplace(std::string(s), slot);
    if (slot < 256) {
      Put(kBinPut);
      Le(slot, 1);
    } else {
      Put(kLongBinPut);
      Le(slot, 4);
    }
    return;
  }
  Item();
  if (it->second < 256) {
    Put(kBinGet);
    Le(it->second, 1);
  } else {
    Put(kLongBinGet);
    Le(it->second, 4);
  }
}

void PickleWriter::Int(int64_t v) {
  Item();
  if (v >= 0 && v < 256) {
    Put(kBinInt1);
    Le(static_cast<uint64_t>(v), 1);
  } else if (v >= 0 && v < 65536) {
    Put(kBinInt2);
    Le(static_cast<uint64_t>(v), 2);
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    Put(kBinInt);
    Le(static_cast<uint64_t>(static_cast<uint32_t>(static_cast<int32_t>(v))), 4);
  } else {
    // LONG1: little-endian two's complement in the fewest bytes that keep the sign (8 always do).
    int n = 8;
    while (n > 1) {
      const int64_t top = v >> (8 * (n - 1) - 1);  // the bits the shorter form would drop, and its sign bit
      if (top != 0 && top != -1) break;
      --n;
    }
    Put(kLong1);
    Le(static_cast<uint64_t>(n), 1);
    Le(static_cast<uint64_t>(v), n);
  }
}

void PickleWriter::UInt(uint64_t v) {
  if (v <= static_cast<uint64_t>(INT64_MAX)) return Int(static_cast<int64_t>(v));
  Item();  // 2^63 and above: 9 bytes, the last 0 so the value stays positive
  Put(kLong1);
  Le(9, 1);
  Le(v, 8);
  Le(0, 1);
}

void PickleWriter::Bool(bool v) {
  Item();
  Put(v ? kTrue : kFalse);
}

void PickleWriter::None() {
  Item();
  Put(kNone);
}

void PickleWriter::Float(double v) {
  Item();
  Put(kBinFloat);
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  for (int i = 7; i >= 0; --i) out_.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));  // big-endian
}

bool PickleWriter::Finish(std::string* out) {
  if (broken_ || !open_.empty()) return false;
  Put(kStop);
  *out = std::move(out_);
  out_.clear();
  return true;
}

}  // namespace strata::tool
