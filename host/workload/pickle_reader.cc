// The safe pickle reader: a stack machine over the data-only opcodes, every length and count bounded.
#include "pickle_reader.h"

#include <bit>
#include <cstddef>
#include <cstdio>
#include <unordered_map>
#include <vector>

namespace strata::workload {
namespace {

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%02llx", static_cast<unsigned long long>(v));
  return buf;
}

// Opcodes that would import, construct or call a Python object: a snapshot never holds one.
bool ImportsCode(uint8_t op) {
  switch (op) {
    case 'c':   // GLOBAL
    case 0x93:  // STACK_GLOBAL
    case 'R':   // REDUCE
    case 'b':   // BUILD
    case 'i':   // INST
    case 'o':   // OBJ
    case 0x81:  // NEWOBJ
    case 0x92:  // NEWOBJ_EX
    case 0x82:  // EXT1
    case 0x83:  // EXT2
    case 0x84:  // EXT4
    case 'P':   // PERSID
    case 'Q':   // BINPERSID
      return true;
    default:
      return false;
  }
}

class Reader {
 public:
  Reader(std::string_view data, const PickleLimits& limits, Document* doc, PickleInfo* info, std::string* error)
      : d_(data), lim_(limits), doc_(doc), info_(info), error_(error) {}

  bool Run() {
    if (d_.size() > lim_.max_bytes) {
      return Fail(0, "the pickle is " + std::to_string(d_.size()) + " bytes, over the limit of " +
                         std::to_string(lim_.max_bytes));
    }
    while (pos_ < d_.size()) {
      op_pos_ = pos_;
      const uint8_t op = static_cast<uint8_t>(d_[pos_++]);
      ++info_->opcodes;
      bool stop = false;
      if (!Step(op, &stop)) return false;
      if (stop) {
        if (pos_ != d_.size()) {
          return Fail(pos_, std::to_string(d_.size() - pos_) + " bytes after STOP (one pickle per file)");
        }
        return true;
      }
    }
    return Fail(d_.size(), "the data ends without STOP: truncated");
  }

 private:
  bool Fail(uint64_t at, const std::string& what) {
    *error_ = "byte " + std::to_string(at) + ": " + what;
    return false;
  }
  std::string OpName(uint8_t op) const {
    const char* n = PickleOpcodeName(op);
    return std::string(n != nullptr ? n : "?") + " (" + Hex(op) + ")";
  }

  // The argument bytes after the opcode: fails (truncated) unless n bytes are left.
  bool Take(uint8_t op, uint64_t n, std::string_view* out) {
    const uint64_t left = d_.size() - pos_;
    if (n > left) {
      return Fail(op_pos_, OpName(op) + " needs " + std::to_string(n) + " bytes of argument, only " +
                               std::to_string(left) + " left: truncated");
    }
    *out = d_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool TakeUnsigned(uint8_t op, int width, uint64_t* v) {
    std::string_view b;
    if (!Take(op, width, &b)) return false;
    uint64_t x = 0;
    for (int k = width - 1; k >= 0; --k) x = (x << 8) | static_cast<uint8_t>(b[k]);
    *v = x;
    return true;
  }

  size_t Base() const { return marks_.empty() ? 0 : marks_.back(); }
  bool Push(const Value& v) {
    if (stack_.size() >= lim_.max_stack) {
      return Fail(op_pos_, "more than " + std::to_string(lim_.max_stack) + " values on the stack (nesting too deep)");
    }
    stack_.push_back(v);
    return true;
  }
  bool Top(uint8_t op, Value** v) {
    if (stack_.size() <= Base()) {
      return Fail(op_pos_, OpName(op) + " on an empty stack" + (marks_.empty() ? "" : " (above the last MARK)"));
    }
    *v = &stack_.back();
    return true;
  }
  // Closes the innermost MARK: the values above it are [*first, stack_.size()).
  bool PopMark(uint8_t op, size_t* first) {
    if (marks_.empty()) return Fail(op_pos_, OpName(op) + " without a MARK");
    *first = marks_.back();
    marks_.pop_back();
    return true;
  }

  bool NewObject() {
    if (doc_->strings.size() + doc_->containers.size() >= lim_.max_objects) {
      return Fail(op_pos_, "more than " + std::to_string(lim_.max_objects) + " strings and containers");
    }
    return true;
  }
  bool PushString(Kind kind, std::string_view text) {
    if (!NewObject()) return false;
    doc_->strings.push_back(StringNode{std::string(text), op_pos_});
    return Push(Value{kind, static_cast<uint32_t>(doc_->strings.size() - 1), 0});
  }
  bool PushContainer(Kind kind, std::vector<Value> items) {
    if (!NewObject()) return false;
    doc_->containers.push_back(Container{kind, op_pos_, std::move(items)});
    return Push(Value{kind, static_cast<uint32_t>(doc_->containers.size() - 1), 0});
  }
  bool PushInt(int64_t v) { return Push(Value{Kind::kInt, 0, v}); }

  // Moves the values above stack position `first` out. When they are most of the stack (a list of a million
  // values built by one APPENDS) its buffer becomes the container's, so they are never held twice.
  std::vector<Value> TakeAbove(size_t first) {
    std::vector<Value> items;
    if (first < stack_.size() - first) {
      items = std::move(stack_);
      stack_.assign(items.begin(), items.begin() + static_cast<ptrdiff_t>(first));
      items.erase(items.begin(), items.begin() + static_cast<ptrdiff_t>(first));
    } else {
      items.assign(stack_.begin() + static_cast<ptrdiff_t>(first), stack_.end());
      stack_.resize(first);
    }
    return items;
  }

  static bool Hashable(Kind k) { return k != Kind::kList && k != Kind::kDict; }

  // Moves the values above stack position `first` into the container `target` (a list, or a dict taking pairs).
  bool Extend(uint8_t op, const Value& target, size_t first) {
    const size_t end = stack_.size();
    const Kind want = (op == 'a' || op == 'e') ? Kind::kList : Kind::kDict;
    if (target.kind != want) {
      return Fail(op_pos_,
                  OpName(op) + " needs a " + KindName(want) + " below its values, found a " + KindName(target.kind));
    }
    if (want == Kind::kDict) {
      if ((end - first) % 2 != 0) {
        return Fail(op_pos_, OpName(op) + " with an odd number of values (" + std::to_string(end - first) + ")");
      }
      for (size_t k = first; k < end; k += 2) {
        if (!Hashable(stack_[k].kind)) {
          return Fail(op_pos_, OpName(op) + ": a " + std::string(KindName(stack_[k].kind)) + " cannot be a dict key");
        }
      }
    }
    std::vector<Value>& items = doc_->containers[target.ref].items;
    if (items.empty()) {
      items = TakeAbove(first);
    } else {
      items.insert(items.end(), stack_.begin() + static_cast<ptrdiff_t>(first), stack_.end());
      stack_.resize(first);
    }
    return true;
  }

  // Python's pickler numbers memo entries 0, 1, 2, ... (MEMOIZE always does): those live in a vector, 16
  // bytes each; any other index in a map (over 50 bytes each).
  bool Memo(uint8_t op, uint64_t index) {
    Value* top = nullptr;
    if (!Top(op, &top)) return false;
    const uint32_t key = static_cast<uint32_t>(index);
    if (key < memo_dense_.size()) {
      memo_dense_[key] = *top;
      return true;
    }
    if (memo_dense_.size() + memo_sparse_.size() >= lim_.max_memo && memo_sparse_.find(key) == memo_sparse_.end()) {
      return Fail(op_pos_, "more than " + std::to_string(lim_.max_memo) + " memo entries");
    }
    if (key == memo_dense_.size()) {
      memo_dense_.push_back(*top);
      memo_sparse_.erase(key);  // an earlier sparse entry at this index is overwritten
    } else {
      memo_sparse_[key] = *top;
    }
    return true;
  }
  bool Recall(uint8_t op, uint64_t index) {
    const uint32_t key = static_cast<uint32_t>(index);
    if (key < memo_dense_.size()) return Push(memo_dense_[key]);
    auto it = memo_sparse_.find(key);
    if (it == memo_sparse_.end()) {
      return Fail(op_pos_, OpName(op) + " of memo entry " + std::to_string(index) + ", which was never stored");
    }
    return Push(it->second);
  }

  // Little-endian two's complement, as LONG1/LONG4 carry it; beyond 64 bits only a marker is kept.
  bool PushLong(std::string_view b) {
    const size_t n = b.size();
    if (n == 0) return PushInt(0);
    const bool negative = (static_cast<uint8_t>(b[n - 1]) & 0x80) != 0;
    if (n > 8) {
      // Fits in 64 bits only when every byte past the eighth is sign fill and the eighth agrees on the sign.
      bool fits = ((static_cast<uint8_t>(b[7]) & 0x80) != 0) == negative;
      for (size_t k = 8; k < n && fits; ++k) fits = static_cast<uint8_t>(b[k]) == (negative ? 0xff : 0x00);
      if (!fits) return Push(Value{Kind::kBigInt, 0, static_cast<int64_t>(n)});
    }
    uint64_t x = negative ? ~uint64_t{0} : 0;
    for (size_t k = 0; k < n && k < 8; ++k) {
      x &= ~(uint64_t{0xff} << (8 * k));
      x |= uint64_t{static_cast<uint8_t>(b[k])} << (8 * k);
    }
    return PushInt(static_cast<int64_t>(x));
  }

  bool Step(uint8_t op, bool* stop) {
    std::string_view b;
    uint64_t n = 0;
    Value v;
    Value* top = nullptr;
    size_t first;
    switch (op) {
      case 0x80:  // PROTO
        if (!TakeUnsigned(op, 1, &n)) return false;
        if (n < 2 || n > 5) return Fail(op_pos_, "pickle protocol " + std::to_string(n) + " is not supported (2 to 5)");
        info_->protocol = static_cast<int>(n);
        return true;
      case 0x95:  // FRAME: the framing only groups opcodes; it must not start inside another frame
        if (!TakeUnsigned(op, 8, &n)) return false;
        if (pos_ < frame_end_) {
          return Fail(op_pos_, "FRAME starts " + std::to_string(frame_end_ - pos_) +
                                   " bytes before the end of the previous frame");
        }
        if (n > d_.size() - pos_) {
          return Fail(op_pos_, "FRAME of " + std::to_string(n) + " bytes runs past the end of the data (" +
                                   std::to_string(d_.size() - pos_) + " bytes left): truncated");
        }
        frame_end_ = pos_ + n;
        return true;
      case '.':  // STOP
        if (!marks_.empty()) return Fail(op_pos_, "STOP with " + std::to_string(marks_.size()) + " MARK(s) open");
        if (stack_.size() != 1) {
          return Fail(op_pos_, "STOP with " + std::to_string(stack_.size()) + " values on the stack (expected 1)");
        }
        doc_->root = stack_.back();
        *stop = true;
        return true;
      case '(':  // MARK
        if (marks_.size() >= lim_.max_marks) {
          return Fail(op_pos_, "more than " + std::to_string(lim_.max_marks) + " MARKs open (nesting too deep)");
        }
        marks_.push_back(stack_.size());
        return true;
      case '0':  // POP: the top value, or the innermost MARK when nothing is above it
        if (stack_.size() > Base()) {
          stack_.pop_back();
          return true;
        }
        return PopMark(op, &first);
      case '1':  // POP_MARK
        if (!PopMark(op, &first)) return false;
        stack_.resize(first);
        return true;
      case '2':  // DUP
        if (!Top(op, &top)) return false;
        return Push(*top);
      case 'N':
        return Push(Value{Kind::kNone, 0, 0});
      case 0x88:
        return Push(Value{Kind::kBool, 0, 1});
      case 0x89:
        return Push(Value{Kind::kBool, 0, 0});
      case 'J':  // BININT: signed 32-bit
        if (!TakeUnsigned(op, 4, &n)) return false;
        return PushInt(static_cast<int32_t>(static_cast<uint32_t>(n)));
      case 'K':  // BININT1
        if (!TakeUnsigned(op, 1, &n)) return false;
        return PushInt(static_cast<int64_t>(n));
      case 'M':  // BININT2
        if (!TakeUnsigned(op, 2, &n)) return false;
        return PushInt(static_cast<int64_t>(n));
      case 0x8a:  // LONG1
        if (!TakeUnsigned(op, 1, &n) || !Take(op, n, &b)) return false;
        return PushLong(b);
      case 0x8b: {  // LONG4: a signed 32-bit byte count
        if (!TakeUnsigned(op, 4, &n)) return false;
        const int32_t count = static_cast<int32_t>(static_cast<uint32_t>(n));
        if (count < 0) return Fail(op_pos_, "LONG4 (0x8b) with a negative length " + std::to_string(count));
        if (!Take(op, static_cast<uint64_t>(count), &b)) return false;
        return PushLong(b);
      }
      case 'G':  // BINFLOAT: big-endian IEEE double
        if (!Take(op, 8, &b)) return false;
        for (int k = 0; k < 8; ++k) n = (n << 8) | static_cast<uint8_t>(b[k]);
        return Push(Value{Kind::kFloat, 0, static_cast<int64_t>(n)});
      case 0x8c:    // SHORT_BINUNICODE
      case 'X':     // BINUNICODE
      case 0x8d:    // BINUNICODE8
      case 'C':     // SHORT_BINBYTES
      case 'B':     // BINBYTES
      case 0x8e: {  // BINBYTES8
        const int width = (op == 0x8c || op == 'C') ? 1 : (op == 'X' || op == 'B') ? 4 : 8;
        if (!TakeUnsigned(op, width, &n)) return false;
        if (n > d_.size() - pos_) {
          return Fail(op_pos_, OpName(op) + " of " + std::to_string(n) + " bytes runs past the end of the data (" +
                                   std::to_string(d_.size() - pos_) + " bytes left)");
        }
        if (!Take(op, n, &b)) return false;
        const bool text = op == 0x8c || op == 'X' || op == 0x8d;
        return PushString(text ? Kind::kString : Kind::kBytes, b);
      }
      case '}':
        return PushContainer(Kind::kDict, {});
      case ']':
        return PushContainer(Kind::kList, {});
      case ')':
        return PushContainer(Kind::kTuple, {});
      case 'l':    // LIST
      case 't':    // TUPLE
      case 'd': {  // DICT
        if (!PopMark(op, &first)) return false;
        if (op == 'd') {
          if ((stack_.size() - first) % 2 != 0) {
            return Fail(op_pos_,
                        "DICT (0x64) with an odd number of values (" + std::to_string(stack_.size() - first) + ")");
          }
          for (size_t k = first; k < stack_.size(); k += 2) {
            if (!Hashable(stack_[k].kind)) {
              return Fail(op_pos_, std::string("DICT (0x64): a ") + KindName(stack_[k].kind) + " cannot be a dict key");
            }
          }
        }
        std::vector<Value> items = TakeAbove(first);
        return PushContainer(op == 'l' ? Kind::kList : op == 't' ? Kind::kTuple : Kind::kDict, std::move(items));
      }
      case 0x85:
      case 0x86:
      case 0x87: {  // TUPLE1..3
        const size_t count = op - 0x84;
        if (stack_.size() < Base() + count) {
          return Fail(op_pos_, OpName(op) + " needs " + std::to_string(count) + " values, the stack has " +
                                   std::to_string(stack_.size() - Base()));
        }
        std::vector<Value> items(stack_.end() - count, stack_.end());
        stack_.resize(stack_.size() - count);
        return PushContainer(Kind::kTuple, std::move(items));
      }
      case 'a': {  // APPEND
        if (stack_.size() < Base() + 2) {
          return Fail(op_pos_, "APPEND (0x61) needs a list and a value; the stack has " +
                                   std::to_string(stack_.size() - Base()) + " values");
        }
        const Value target = stack_[stack_.size() - 2];
        return Extend(op, target, stack_.size() - 1);
      }
      case 's':  // SETITEM
        if (stack_.size() < Base() + 3) {
          return Fail(op_pos_, "SETITEM (0x73) needs a dict, a key and a value; the stack has " +
                                   std::to_string(stack_.size() - Base()) + " values");
        }
        v = stack_[stack_.size() - 3];
        return Extend(op, v, stack_.size() - 2);
      case 'e':  // APPENDS
      case 'u':  // SETITEMS
        if (!PopMark(op, &first)) return false;
        if (first <= Base()) {
          return Fail(op_pos_,
                      OpName(op) + " needs a " + (op == 'e' ? "list" : "dict") + " below its MARK, found none");
        }
        v = stack_[first - 1];
        return Extend(op, v, first);
      case 0x94:  // MEMOIZE
        return Memo(op, memo_dense_.size() + memo_sparse_.size());
      case 'q':  // BINPUT
        if (!TakeUnsigned(op, 1, &n)) return false;
        return Memo(op, n);
      case 'r':  // LONG_BINPUT
        if (!TakeUnsigned(op, 4, &n)) return false;
        return Memo(op, n);
      case 'h':  // BINGET
        if (!TakeUnsigned(op, 1, &n)) return false;
        return Recall(op, n);
      case 'j':  // LONG_BINGET
        if (!TakeUnsigned(op, 4, &n)) return false;
        return Recall(op, n);
      default:
        break;
    }
    if (ImportsCode(op)) {
      return Fail(op_pos_, "opcode " + OpName(op) +
                               " refused: it would import or call Python code, and a memory snapshot is plain data "
                               "(nothing in a pickle is ever executed here)");
    }
    if (PickleOpcodeName(op) != nullptr) {
      return Fail(op_pos_, "opcode " + OpName(op) + " is not supported (not used by memory snapshots)");
    }
    return Fail(op_pos_, "byte " + Hex(op) + " is not a pickle opcode (corrupt data?)");
  }

  std::string_view d_;
  const PickleLimits& lim_;
  Document* doc_;
  PickleInfo* info_;
  std::string* error_;
  size_t pos_ = 0;
  uint64_t op_pos_ = 0;
  uint64_t frame_end_ = 0;
  std::vector<Value> stack_;
  std::vector<size_t> marks_;
  std::vector<Value> memo_dense_;
  std::unordered_map<uint32_t, Value> memo_sparse_;
};

}  // namespace

const char* PickleOpcodeName(uint8_t op) {
  switch (op) {
    case '(':
      return "MARK";
    case '.':
      return "STOP";
    case '0':
      return "POP";
    case '1':
      return "POP_MARK";
    case '2':
      return "DUP";
    case 'F':
      return "FLOAT";
    case 'I':
      return "INT";
    case 'J':
      return "BININT";
    case 'K':
      return "BININT1";
    case 'L':
      return "LONG";
    case 'M':
      return "BININT2";
    case 'N':
      return "NONE";
    case 'P':
      return "PERSID";
    case 'Q':
      return "BINPERSID";
    case 'R':
      return "REDUCE";
    case 'S':
      return "STRING";
    case 'T':
      return "BINSTRING";
    case 'U':
      return "SHORT_BINSTRING";
    case 'V':
      return "UNICODE";
    case 'X':
      return "BINUNICODE";
    case 'a':
      return "APPEND";
    case 'b':
      return "BUILD";
    case 'c':
      return "GLOBAL";
    case 'd':
      return "DICT";
    case '}':
      return "EMPTY_DICT";
    case 'e':
      return "APPENDS";
    case 'g':
      return "GET";
    case 'h':
      return "BINGET";
    case 'i':
      return "INST";
    case 'j':
      return "LONG_BINGET";
    case 'l':
      return "LIST";
    case ']':
      return "EMPTY_LIST";
    case 'o':
      return "OBJ";
    case 'p':
      return "PUT";
    case 'q':
      return "BINPUT";
    case 'r':
      return "LONG_BINPUT";
    case 's':
      return "SETITEM";
    case 't':
      return "TUPLE";
    case ')':
      return "EMPTY_TUPLE";
    case 'u':
      return "SETITEMS";
    case 'G':
      return "BINFLOAT";
    case 'B':
      return "BINBYTES";
    case 'C':
      return "SHORT_BINBYTES";
    case 0x80:
      return "PROTO";
    case 0x81:
      return "NEWOBJ";
    case 0x82:
      return "EXT1";
    case 0x83:
      return "EXT2";
    case 0x84:
      return "EXT4";
    case 0x85:
      return "TUPLE1";
    case 0x86:
      return "TUPLE2";
    case 0x87:
      return "TUPLE3";
    case 0x88:
      return "NEWTRUE";
    case 0x89:
      return "NEWFALSE";
    case 0x8a:
      return "LONG1";
    case 0x8b:
      return "LONG4";
    case 0x8c:
      return "SHORT_BINUNICODE";
    case 0x8d:
      return "BINUNICODE8";
    case 0x8e:
      return "BINBYTES8";
    case 0x8f:
      return "EMPTY_SET";
    case 0x90:
      return "ADDITEMS";
    case 0x91:
      return "FROZENSET";
    case 0x92:
      return "NEWOBJ_EX";
    case 0x93:
      return "STACK_GLOBAL";
    case 0x94:
      return "MEMOIZE";
    case 0x95:
      return "FRAME";
    case 0x96:
      return "BYTEARRAY8";
    case 0x97:
      return "NEXT_BUFFER";
    case 0x98:
      return "READONLY_BUFFER";
    default:
      return nullptr;
  }
}

bool ReadPickle(std::string_view data, const PickleLimits& limits, Document* doc, PickleInfo* info,
                std::string* error) {
  doc->Clear();
  PickleInfo local;
  PickleInfo* i = info != nullptr ? info : &local;
  *i = PickleInfo{};
  Reader reader(data, limits, doc, i, error);
  if (!reader.Run()) {
    doc->Clear();
    return false;
  }
  return true;
}

}  // namespace strata::workload
