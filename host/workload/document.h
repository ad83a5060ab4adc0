// The tree a PyTorch memory snapshot decodes to, from a pickle or from JSON: plain values in one arena.
#ifndef STRATA_HOST_WORKLOAD_DOCUMENT_H_
#define STRATA_HOST_WORKLOAD_DOCUMENT_H_

#include <stdint.h>

#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace strata::workload {

enum class Kind : uint8_t {
  kNone,
  kBool,
  kInt,     // fits in int64
  kBigInt,  // an integer beyond 64 bits: kept as a marker only (no snapshot field needs one)
  kFloat,
  kString,
  kBytes,
  kList,
  kTuple,
  kDict,
};

const char* KindName(Kind kind);

// 16 bytes: scalars inline, strings and containers by index into the Document's arenas. Containers are
// referenced, never copied, so a pickle's memo shares them exactly as Python does (and a cycle built through
// the memo costs nothing: nothing here walks the tree recursively, and the arenas own every node).
struct Value {
  Kind kind = Kind::kNone;
  uint32_t ref = 0;  // kString/kBytes: index into strings; kList/kTuple/kDict: index into containers
  int64_t i = 0;     // kBool (0/1), kInt; kFloat holds the double's bits
};

struct StringNode {
  std::string text;
  uint64_t offset = 0;  // byte offset of what created it in the source
};

struct Container {
  Kind kind = Kind::kList;
  uint64_t offset = 0;       // byte offset of what created it in the source
  std::vector<Value> items;  // kDict: key0, value0, key1, value1, ...
};

class Document {
 public:
  Value root;
  // Deques: they grow in 512-byte blocks, with no moment where a doubled copy sits beside the old one (a
  // vector's growth would make the densest pickle, a byte per empty dict, cost 120 bytes per byte at peak).
  std::deque<StringNode> strings;
  std::deque<Container> containers;

  // nullptr unless v is a string (for Str) or a container of any kind (for Items/Node).
  const std::string* Str(const Value& v) const;
  const Container* Node(const Value& v) const;
  // A dict's value for a string key (the last one set, as in Python), or nullptr when v is not a dict or
  // has no such key. A dict of more than kScannedDictPairs pairs is indexed on its first lookup (once: a
  // dict that a pickle's memo shares between a million entries is not scanned a million times), so each
  // lookup costs at most kScannedDictPairs comparisons. The index is not updated: a dict changed after its
  // first Get must not be looked up again until Clear().
  const Value* Get(const Value& dict, std::string_view key) const;
  static constexpr size_t kScannedDictPairs = 8;
  // The work Get has done, in dict items: those compared by scans and indexed, plus one per indexed lookup.
  // The importer charges it against its work budget.
  uint64_t visits() const { return visits_; }
  // Where v came from in the source: its own offset for strings and containers, else `fallback`.
  uint64_t Offset(const Value& v, uint64_t fallback) const;
  double Float(const Value& v) const;
  void Clear();

 private:
  mutable std::unordered_map<uint32_t, std::unordered_map<std::string_view, uint32_t>> index_;
  mutable uint64_t visits_ = 0;
};

}  // namespace strata::workload

#endif  // STRATA_HOST_WORKLOAD_DOCUMENT_H_
