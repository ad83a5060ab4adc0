// Accessors for the decoded snapshot tree.
#include "document.h"

#include <bit>

namespace strata::workload {

const char* KindName(Kind kind) {
  switch (kind) {
    case Kind::kNone:
      return "None";
    case Kind::kBool:
      return "bool";
    case Kind::kInt:
      return "int";
    case Kind::kBigInt:
      return "int beyond 64 bits";
    case Kind::kFloat:
      return "float";
    case Kind::kString:
      return "str";
    case Kind::kBytes:
      return "bytes";
    case Kind::kList:
      return "list";
    case Kind::kTuple:
      return "tuple";
    case Kind::kDict:
      return "dict";
  }
  return "?";
}

const std::string* Document::Str(const Value& v) const {
  if (v.kind != Kind::kString || v.ref >= strings.size()) return nullptr;
  return &strings[v.ref].text;
}

const Container* Document::Node(const Value& v) const {
  if ((v.kind != Kind::kList && v.kind != Kind::kTuple && v.kind != Kind::kDict) || v.ref >= containers.size()) {
    return nullptr;
  }
  return &containers[v.ref];
}

const Value* Document::Get(const Value& dict, std::string_view key) const {
  if (dict.kind != Kind::kDict) return nullptr;
  const Container* c = Node(dict);
  if (c == nullptr) return nullptr;
  const size_t pairs = c->items.size() / 2;
  if (pairs <= kScannedDictPairs) {
    // Backwards: a key set twice keeps its last value, as in a Python dict.
    for (size_t i = 2 * pairs; i >= 2; i -= 2) {
      ++visits_;
      const std::string* k = Str(c->items[i - 2]);
      if (k != nullptr && *k == key) return &c->items[i - 1];
    }
    return nullptr;
  }
  auto [it, fresh] = index_.try_emplace(dict.ref);
  if (fresh) {
    it->second.reserve(pairs);
    for (size_t i = 0; i < 2 * pairs; i += 2) {
      const std::string* k = Str(c->items[i]);
      if (k != nullptr) it->second.insert_or_assign(std::string_view(*k), static_cast<uint32_t>(i + 1));
    }
    visits_ += pairs;
  }
  ++visits_;
  const auto found = it->second.find(key);
  return found == it->second.end() ? nullptr : &c->items[found->second];
}

uint64_t Document::Offset(const Value& v, uint64_t fallback) const {
  if (v.kind == Kind::kString || v.kind == Kind::kBytes) {
    return v.ref < strings.size() ? strings[v.ref].offset : fallback;
  }
  const Container* c = Node(v);
  return c != nullptr ? c->offset : fallback;
}

double Document::Float(const Value& v) const { return std::bit_cast<double>(v.i); }

void Document::Clear() {
  root = Value{};
  strings = {};  // the memory too (clear() keeps a deque's first block and a map's buckets)
  containers = {};
  index_ = {};
  visits_ = 0;
}

}  // namespace strata::workload
