// strata-explain's engine (explain.h): a scanner that reads an OOM message's numbers, then the classification.
#include "explain.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

#include "json_lines.h"
#include "policy.h"
#include "replay.h"
#include "text.h"

namespace strata::fit {
namespace {

// Why no std::regex: libstdc++'s matcher backtracks, and recurses once per character a repetition takes, so a long
// run of digits made one search quadratic (10 KB: over a minute) and overflowed the stack from about 30 KB (issue 45).
// Every field of these messages is a fixed phrase beside one number, so the scan below finds each phrase with
// string_view::find and reads the number next to it once: linear in the message, no recursion, no backtracking.

constexpr uint64_t kMaxBytes = uint64_t{1} << 63;  // a size, sum or product at or past 2^63 bytes is no real one
// A size token longer than this is refused before it is converted: no framework prints 40 characters of one number.
constexpr size_t kMaxNumberChars = 40;

enum class Read { kNone, kOk, kBad };  // no size there; a size; a size it cannot read (Scanner::bad() says why)

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLetter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool IsWordChar(char c) { return IsDigit(c) || IsLetter(c) || c == '_'; }
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// Binary units in every case: "20.00 MiB" (PyTorch's format_size), "1.00GiB" (tsl's HumanReadableNumBytes),
// "785.61M" (the TPU runtime), "512 bytes". 0 when `unit` is none of them.
double UnitScale(std::string_view unit) {
  if (unit == "bytes" || unit == "B") return 1;
  static constexpr std::string_view kSuffixes[] = {"", "iB", "B"};
  static constexpr std::pair<char, double> kPowers[] = {
      {'K', 1024.0}, {'M', 1048576.0}, {'G', 1073741824.0}, {'T', 1099511627776.0}};
  if (unit.empty()) return 0;
  for (const auto& [letter, scale] : kPowers) {
    if (unit[0] != letter) continue;
    for (std::string_view suffix : kSuffixes) {
      if (unit.substr(1) == suffix) return scale;
    }
  }
  return 0;
}

// "8.00 EiB", "5 kB": a word shaped like a unit that UnitScale does not read. Read as a bare number it would be 8 B.
bool LooksLikeUnit(std::string_view word) {
  if (word.size() < 2 || std::string_view("kKMGTPEZY").find(word[0]) == std::string_view::npos) return false;
  return word.substr(1) == "B" || word.substr(1) == "iB";
}

std::string Quote(std::string_view token) {
  if (token.size() <= 32) return "'" + std::string(token) + "'";
  return "'" + std::string(token.substr(0, 24)) + "...' (" + std::to_string(token.size()) + " characters)";
}

// The message, scanned for sizes next to fixed phrases. Each phrase is searched left to right and the first
// occurrence with a size in place wins, as the regexes this replaces did.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : t_(text) {}

  // The size right after `phrase` (after any whitespace when `skip_space`; `phrase` starting a word when
  // `word_start`), and then `then` when it is not empty.
  Read After(std::string_view phrase, uint64_t* bytes, bool skip_space = false, bool word_start = false,
             std::string_view then = {}) {
    for (size_t at = t_.find(phrase); at != std::string_view::npos; at = t_.find(phrase, at + 1)) {
      if (word_start && at > 0 && IsWordChar(t_[at - 1])) continue;
      size_t i = at + phrase.size();
      if (skip_space) {
        while (i < t_.size() && IsSpace(t_[i])) ++i;
      }
      size_t end = 0;
      const Read r = SizeAt(i, bytes, &end);
      if (r == Read::kNone || t_.substr(end).substr(0, then.size()) != then) continue;
      return Keep(r);
    }
    return Read::kNone;
  }

  // The size that ends right where `phrase` starts ("39.55 GiB" of "39.55 GiB allowed;").
  Read Before(std::string_view phrase, uint64_t* bytes) {
    for (size_t at = t_.find(phrase); at != std::string_view::npos; at = t_.find(phrase, at + 1)) {
      // Back over the unit (the letters before the phrase), one space, then the number: digits, an exponent, a
      // fraction. SizeAt then reads it forward, by the one rule, and must end where the phrase starts.
      size_t b = at;
      while (b > 0 && IsLetter(t_[b - 1])) --b;
      if (b < at && b > 0 && t_[b - 1] == ' ') --b;
      if (b == 0 || !IsDigit(t_[b - 1])) continue;
      b = DigitsBack(b);
      if (b >= 3 && (t_[b - 1] == '+' || t_[b - 1] == '-') && (t_[b - 2] == 'e' || t_[b - 2] == 'E') &&
          IsDigit(t_[b - 3])) {
        b = DigitsBack(b - 2);
      } else if (b >= 2 && (t_[b - 1] == 'e' || t_[b - 1] == 'E') && IsDigit(t_[b - 2])) {
        b = DigitsBack(b - 1);
      }
      if (b >= 2 && t_[b - 1] == '.' && IsDigit(t_[b - 2])) b = DigitsBack(b - 1);
      size_t end = 0;
      const Read r = SizeAt(b, bytes, &end);
      if (r == Read::kNone || end != at) continue;
      return Keep(r);
    }
    return Read::kNone;
  }

  // Why the first size After or Before refused was bad.
  const std::string& bad() const { return bad_; }

 private:
  // A refusal counts once After or Before returns it: a bad size that was not the field's (no `then` after it) is no
  // error.
  Read Keep(Read r) {
    if (r == Read::kBad && bad_.empty()) bad_ = why_;
    return r;
  }

  size_t DigitsBack(size_t b) const {
    while (b > 0 && IsDigit(t_[b - 1])) --b;
    return b;
  }

  // A size starting at `i`: digits, an optional fraction, an optional exponent (read whole: "9.2e18" is 9.2e18, not 9
  // and a word), then at most one space and a unit that is the whole word ("62277025792\nMaxInUse" is no "M"). A
  // number followed by a word that is no unit is no size ("5xyz"); one followed by a space and a word is a size
  // without a unit ("5 free"). `*end`: where the size ends, also when it is out of range.
  Read SizeAt(size_t i, uint64_t* bytes, size_t* end) {
    const size_t n = t_.size();
    if (i >= n || !IsDigit(t_[i])) return Read::kNone;
    size_t k = i;
    while (k < n && IsDigit(t_[k])) ++k;
    if (k + 1 < n && t_[k] == '.' && IsDigit(t_[k + 1])) {
      for (++k; k < n && IsDigit(t_[k]);) ++k;
    }
    if (k < n && (t_[k] == 'e' || t_[k] == 'E')) {
      size_t x = k + 1;
      if (x < n && (t_[x] == '+' || t_[x] == '-')) ++x;
      if (x < n && IsDigit(t_[x])) {
        for (k = x; k < n && IsDigit(t_[k]);) ++k;
      }
    }
    const std::string_view number = t_.substr(i, k - i);
    size_t u = k;
    if (u + 1 < n && t_[u] == ' ' && IsLetter(t_[u + 1])) ++u;
    size_t w = u;
    while (w < n && IsLetter(t_[w])) ++w;
    double scale = 1;
    *end = k;
    if (w > u) {
      scale = UnitScale(t_.substr(u, w - u));
      if (scale != 0) {
        *end = w;
      } else if (LooksLikeUnit(t_.substr(u, w - u))) {
        *end = w;
        why_ = "a size in the message has a unit strata-explain does not read: " + Quote(t_.substr(i, w - i)) +
               " (it reads bytes, B, K, M, G, T and KiB ... TiB, KB ... TB)";
        return Read::kBad;
      } else if (u == k) {
        return Read::kNone;  // "5xyz", "9.2e": a word, not a size
      } else {
        scale = 1;  // "5 free": a size without its unit
      }
    }
    if (number.size() > kMaxNumberChars) {
      why_ = "a size in the message is out of range: " + Quote(number) + " is too long to be a size";
      return Read::kBad;
    }
    const double v = std::strtod(std::string(number).c_str(), nullptr) * scale;
    if (!std::isfinite(v) || v >= static_cast<double>(kMaxBytes)) {
      why_ = "a size in the message is out of range: " + Quote(t_.substr(i, *end - i)) + " is 2^63 bytes or more";
      return Read::kBad;
    }
    *bytes = static_cast<uint64_t>(std::llround(v));
    return Read::kOk;
  }

  std::string_view t_;
  std::string why_;  // why SizeAt refused its last size
  std::string bad_;
};

// a + b, false when the sum reaches 2^63 bytes: the numbers of one message never add up that far.
bool Add(uint64_t a, uint64_t b, uint64_t* sum) {
  if (a >= kMaxBytes || b >= kMaxBytes - a) return false;
  *sum = a + b;
  return true;
}

// TensorFlow's "shape[32,1024,64,64] and type float": the request is the product of the dimensions times the type's
// size, each step checked against 2^63 bytes (a wrapped product read as a 0 B request: issue 45).
bool ShapeBytes(std::string_view dims, uint64_t width, uint64_t* bytes, std::string* error) {
  uint64_t elements = 1;
  for (size_t i = 0; i < dims.size();) {
    if (!IsDigit(dims[i])) {
      ++i;
      continue;
    }
    uint64_t d = 0;
    for (; i < dims.size() && IsDigit(dims[i]); ++i) {
      const uint64_t digit = static_cast<uint64_t>(dims[i] - '0');
      if (d > (kMaxBytes - digit) / 10) {
        *error = "the tensor's shape is too large to be a real request (a dimension reaches 2^63)";
        return false;
      }
      d = d * 10 + digit;
    }
    if (d != 0 && elements > (kMaxBytes - 1) / d) {
      *error = "the tensor's shape is too large to be a real request (its elements reach 2^63)";
      return false;
    }
    elements *= d;
  }
  if (elements > (kMaxBytes - 1) / width) {
    *error = "the tensor's shape is too large to be a real request (its bytes reach 2^63)";
    return false;
  }
  *bytes = elements * width;
  return true;
}

// "OOM when allocating tensor with shape" \s* "[" [0-9, ]* "] and type " [a-z0-9]+: the dimensions and the type.
bool FindShape(std::string_view text, std::string_view* dims, std::string_view* type) {
  constexpr std::string_view kPhrase = "OOM when allocating tensor with shape";
  constexpr std::string_view kType = "] and type ";
  for (size_t at = text.find(kPhrase); at != std::string_view::npos; at = text.find(kPhrase, at + 1)) {
    size_t i = at + kPhrase.size();
    while (i < text.size() && IsSpace(text[i])) ++i;
    if (i >= text.size() || text[i] != '[') continue;
    const size_t begin = ++i;
    while (i < text.size() && (IsDigit(text[i]) || text[i] == ',' || text[i] == ' ')) ++i;
    if (text.substr(i).substr(0, kType.size()) != kType) continue;
    const size_t type_begin = i + kType.size();
    size_t j = type_begin;
    while (j < text.size() && ((text[j] >= 'a' && text[j] <= 'z') || IsDigit(text[j]))) ++j;
    if (j == type_begin) continue;
    *dims = text.substr(begin, i - begin);
    *type = text.substr(type_begin, j - type_begin);
    return true;
  }
  return false;
}

uint64_t DtypeBytes(std::string_view t) {
  if (t == "float" || t == "int32" || t == "uint32" || t == "qint32") return 4;
  if (t == "double" || t == "int64" || t == "uint64" || t == "complex64") return 8;
  if (t == "complex128") return 16;
  if (t == "half" || t == "bfloat16" || t == "int16" || t == "uint16") return 2;
  if (t == "int8" || t == "uint8" || t == "bool" || t == "qint8" || t == "quint8") return 1;
  return 0;
}

std::string H(uint64_t b) { return tool::HumanBytes(b); }

// ceil(part / whole) to 0.01. Callers hold 0 < part <= whole (a cap's need fits the device: Explain checks it), so
// the fraction is finite and at most 1, as set_per_process_memory_fraction and XLA_PYTHON_CLIENT_MEM_FRACTION take.
std::string Fraction(uint64_t part, uint64_t whole) {
  const double f = static_cast<double>(part) / static_cast<double>(whole);
  char s[16];
  std::snprintf(s, sizeof s, "%.2f", std::ceil(f * 100.0 - 1e-9) / 100.0);
  return s;
}

}  // namespace

bool Explain(const std::string& message, uint64_t device_total, uint64_t device_context, Explanation* out,
             std::string* error) {
  if (message.size() > kMaxMessageBytes) {
    *error = "the message is longer than " + std::to_string(kMaxMessageBytes) +
             " bytes (64 KiB), the most strata-explain reads: give the out-of-memory error itself (from its first "
             "line to the allocator's statistics), not the whole log";
    return false;
  }
  Explanation e;
  Scanner scan(message);
  bool found = false, bad = false;
  // The outcome of one read: `*has` says whether the size was there and in range; an out-of-range one fails Explain.
  auto got = [&](Read r, bool* has) {
    if (r == Read::kBad) bad = true;
    if (has != nullptr) *has = r == Read::kOk;
    return r == Read::kOk;
  };
  auto after = [&](std::string_view phrase, uint64_t* v, bool* has, std::string_view then = {}) {
    return got(scan.After(phrase, v, false, false, then), has);
  };
  // "InUse:   62277025792": the BFC's Stats align their numbers with spaces; "Reserved:" must start a word (not
  // "PeakReserved:").
  auto stat = [&](std::string_view name, uint64_t* v, bool* has, bool word_start = false) {
    return got(scan.After(name, v, true, word_start), has);
  };
  auto before = [&](std::string_view phrase, uint64_t* v, bool* has) { return got(scan.Before(phrase, v), has); };
  // Sizes past 2^63 in sum: the message's numbers cannot all be true (they wrapped into nonsense before issue 45).
  std::string inconsistent;
  std::string_view dims, type;
  if (after("Tried to allocate ", &e.request_bytes, &found)) {
    // PyTorch: c10/cuda/CUDACachingAllocator.cpp, the OutOfMemoryError raised by malloc().
    e.format = "pytorch";
    e.framework = "PyTorch";
    after("total capacity of ", &e.total_bytes, &e.has_total);
    after("of which ", &e.free_bytes, &e.has_free, " is free");
    before(" allowed;", &e.limit_bytes, &e.has_limit);
    after("Of the allocated memory ", &e.live_bytes, &e.has_live);
    uint64_t unallocated = 0;
    bool has_unallocated = false;
    after("and ", &unallocated, &has_unallocated, " is reserved by PyTorch but unallocated");
    if (e.has_live && has_unallocated) {
      if (Add(e.live_bytes, unallocated, &e.reserved_bytes)) {
        e.has_reserved = true;
      } else {
        inconsistent = "allocated (" + H(e.live_bytes) + ") plus reserved but unallocated (" + H(unallocated) +
                       ") reach 2^63 bytes";
      }
    }
    // Older PyTorch (before 2.1): "(GPU 0; 7.93 GiB total capacity; 130.35 MiB already allocated; 47.06 MiB free;
    // 188.00 MiB reserved in total by PyTorch)".
    if (!e.has_total) before(" total capacity", &e.total_bytes, &e.has_total);
    if (!e.has_live) before(" already allocated", &e.live_bytes, &e.has_live);
    if (!e.has_free) before(" free;", &e.free_bytes, &e.has_free);
    if (!e.has_reserved && inconsistent.empty()) {
      before(" reserved in total by PyTorch", &e.reserved_bytes, &e.has_reserved);
    }
  } else if (after("ran out of memory trying to allocate ", &e.request_bytes, &found)) {
    // The BFC allocator of XLA and TensorFlow: xla/tsl/framework/bfc_allocator.cc, AllocateRaw's warning, with its
    // Stats (Limit, InUse, Reserved, LargestFreeBlock) or Strata's summary (bytes_in_use, pool_bytes, ...).
    e.format = "xla-bfc";
    e.framework = "JAX/XLA or TensorFlow (BFC allocator)";
    after("(rounded to ", &e.request_bytes, nullptr);
    if (!after("bytes_in_use ", &e.live_bytes, &e.has_live)) stat("InUse:", &e.live_bytes, &e.has_live);
    if (!after("pool_bytes ", &e.reserved_bytes, &e.has_reserved)) {
      stat("Reserved:", &e.reserved_bytes, &e.has_reserved, true);
    }
    if (!after("bytes_limit ", &e.limit_bytes, &e.has_limit)) stat("Limit:", &e.limit_bytes, &e.has_limit);
    if (!after("largest_free_block_bytes ", &e.largest_free_bytes, &e.has_largest_free)) {
      stat("LargestFreeBlock:", &e.largest_free_bytes, &e.has_largest_free);
    }
  } else if (after("Attempting to allocate ", &e.request_bytes, &found, ". That was not possible")) {
    // The TPU runtime (libtpu, closed source): "Error allocating device buffer: Attempting to allocate X. That was
    // not possible. There are Y free. Due to fragmentation, the largest contiguous region of free memory is Z."
    e.format = "tpu";
    e.framework = "TPU runtime";
    after("There are ", &e.free_bytes, &e.has_free, " free");
    after("largest contiguous region of free memory is ", &e.largest_free_bytes, &e.has_largest_free);
  } else if (FindShape(message, &dims, &type)) {
    // TensorFlow: tensorflow/core/framework/op_kernel.cc, OpKernelContext::allocate_tensor's ResourceExhausted.
    e.format = "tensorflow";
    e.framework = "TensorFlow";
    const uint64_t width = DtypeBytes(type);
    if (!ShapeBytes(dims, width == 0 ? 1 : width, &e.request_bytes, error)) return false;
    if (width == 0) {
      *error = "TensorFlow type '" + std::string(type) + "': its size is not known here";
      return false;
    }
    found = true;
    // The BFC's statistics are often pasted with it.
    stat("InUse:", &e.live_bytes, &e.has_live);
    stat("Limit:", &e.limit_bytes, &e.has_limit);
    stat("Reserved:", &e.reserved_bytes, &e.has_reserved, true);
    stat("LargestFreeBlock:", &e.largest_free_bytes, &e.has_largest_free);
  } else if (after("Out of memory while trying to allocate ", &e.request_bytes, &found)) {
    // XLA's RESOURCE_EXHAUSTED from the device allocator (xla/stream_executor/integrations/tf_allocator_adapter.cc).
    e.format = "xla";
    e.framework = "JAX/XLA";
  }
  if (bad) {
    *error = scan.bad();
    return false;
  }
  if (!found) {
    *error =
        "not an out-of-memory message of PyTorch (\"Tried to allocate\"), XLA's BFC (\"ran out of memory trying to "
        "allocate\"), XLA (\"Out of memory while trying to allocate\"), TensorFlow (\"OOM when allocating tensor with "
        "shape\") or the TPU runtime (\"Attempting to allocate ... That was not possible\")";
    return false;
  }
  if (!e.has_total && device_total != 0) {
    e.total_bytes = device_total;
    e.has_total = true;
  }

  // The rule every tool uses (gpu::ClassifyOom): capacity when live + request exceed what the process can get from
  // the device, cap when they fit there but exceed the framework's limit, else fragmentation. Every sum is checked
  // (Add): numbers that cannot all be true make the kind "inconsistent", never a wrapped figure.
  const uint64_t req = e.request_bytes;
  uint64_t need = req;  // what the process needed at that moment: in use plus the request
  uint64_t usable = 0;  // what it could get from the device
  if (!inconsistent.empty()) {
  } else if (e.format == "tpu") {
    if (e.has_free) {
      usable = e.free_bytes;
      const gpu::OomKind k = gpu::ClassifyOom(req, 0, 0, e.free_bytes);
      e.kind = gpu::OomKindName(k);
      e.why = k == gpu::OomKind::kCapacity
                  ? "the request (" + H(req) + ") is more than all the free HBM (" + H(e.free_bytes) + ")"
                  : "the free HBM (" + H(e.free_bytes) + ") would hold the request (" + H(req) +
                        ") but its largest contiguous region (" + H(e.largest_free_bytes) + ") does not";
    }
  } else if (e.format == "pytorch" && e.has_live && e.has_reserved && e.has_free) {
    // What this process can get: what is free on the GPU plus what PyTorch holds. What it allocates comes out of
    // what it reserves, so allocated above reserved (the older format states both) is no real state.
    if (e.reserved_bytes < e.live_bytes) {
      inconsistent = "PyTorch has " + H(e.live_bytes) + " allocated but only " + H(e.reserved_bytes) +
                     " reserved, and what it allocates comes out of what it reserves";
    } else if (!Add(e.live_bytes, req, &need)) {
      inconsistent = "allocated (" + H(e.live_bytes) + ") plus the request (" + H(req) + ") reach 2^63 bytes";
    } else if (!Add(e.free_bytes, e.reserved_bytes, &usable)) {
      inconsistent = "free (" + H(e.free_bytes) + ") plus reserved (" + H(e.reserved_bytes) + ") reach 2^63 bytes";
    } else {
      const gpu::OomKind k = gpu::ClassifyOom(req, e.live_bytes, e.has_limit ? e.limit_bytes : 0, usable);
      const std::string sum = H(e.live_bytes) + " allocated + " + H(req) + " requested = " + H(need);
      if (k == gpu::OomKind::kCap && e.has_total && need > e.total_bytes) {
        // A cap names a fraction of the total; one above 1 (or of a 0 B GPU) is no setting PyTorch takes.
        inconsistent = sum + " is more than the GPU's total capacity (" + H(e.total_bytes) +
                       "), yet only the memory fraction (" + H(e.limit_bytes) + ") stopped it";
      } else {
        e.kind = gpu::OomKindName(k);
        e.why = k == gpu::OomKind::kCapacity
                    ? sum + ", more than PyTorch holds plus what is free on the GPU (" + H(usable) + ")"
                : k == gpu::OomKind::kCap ? sum + ", more than the memory fraction allows (" + H(e.limit_bytes) + ")"
                                          : sum + " fits in what PyTorch holds plus what is free (" + H(usable) +
                                                "): " + H(e.reserved_bytes - e.live_bytes) +
                                                " is reserved but unallocated, in blocks too small";
      }
    }
  } else if (e.has_live && e.has_limit) {
    // The BFC: its limit is known; the device only if --device says what it is.
    usable = e.has_total ? e.total_bytes - std::min(e.total_bytes, device_context) : UINT64_MAX;
    if (!Add(e.live_bytes, req, &need)) {
      inconsistent = "in use (" + H(e.live_bytes) + ") plus the request (" + H(req) + ") reach 2^63 bytes";
    } else {
      const gpu::OomKind k = gpu::ClassifyOom(req, e.live_bytes, e.limit_bytes, usable);
      e.kind = gpu::OomKindName(k);
      const std::string sum = H(e.live_bytes) + " in use + " + H(req) + " requested = " + H(need);
      e.why = k == gpu::OomKind::kCapacity ? sum + ", more than the device gives a process (" + H(usable) + ")"
              : k == gpu::OomKind::kCap
                  ? sum + ", over the allocator's limit (" + H(e.limit_bytes) + ")" +
                        (e.has_total ? "" : "; give --device to know whether the GPU could")
                  : sum + " is within the limit (" + H(e.limit_bytes) + ") but no free chunk" +
                        (e.has_largest_free ? " (the largest is " + H(e.largest_free_bytes) + ")" : std::string()) +
                        " holds it";
    }
  } else {
    e.why = "the message gives the request (" + H(req) +
            ") but not what was in use: run strata-fit on a trace or snapshot of the run to classify it";
  }
  if (!inconsistent.empty()) {
    e.kind = "inconsistent";
    e.why = "the message's numbers cannot all be true: " + inconsistent;
  }

  // Advice the numbers support (the settings strata-fit searches; docs/fit.md).
  auto& a = e.advice;
  if (e.kind == "inconsistent") {
    a.push_back("no setting can be derived from these numbers: check that the message was copied whole and unedited");
  } else if (e.kind == "capacity") {
    a.push_back("no setting helps: the workload needs at least " + H(need) + " at this point, the device has " +
                H(usable) +
                "; a larger device, fewer live buffers (smaller batch, activation checkpointing) or sharding");
  } else if (e.kind == "cap") {
    // A cap's need fits the device (ClassifyOom; PyTorch's total checked above): the fraction is in (0, 1].
    if (e.format == "pytorch") {
      a.push_back("torch.cuda.set_per_process_memory_fraction(" +
                  (e.has_total ? Fraction(need, e.total_bytes) : std::string("a larger fraction")) +
                  ") or more: the fraction caps what PyTorch may reserve");
    } else if (e.has_total) {
      a.push_back("XLA_PYTHON_CLIENT_MEM_FRACTION=" + Fraction(need, e.total_bytes) +
                  " (JAX: the limit is that fraction of the GPU's total; at least " + H(need) + ")");
      a.push_back("TensorFlow: TF_DEVICE_MIN_SYS_MEMORY_IN_MB below the reserve it keeps now, so the limit reaches " +
                  H(need));
    } else {
      a.push_back("raise the allocator's limit to at least " + H(need) +
                  " (JAX: XLA_PYTHON_CLIENT_MEM_FRACTION; TensorFlow: TF_DEVICE_MIN_SYS_MEMORY_IN_MB); --device NAME "
                  "gives the fraction");
    }
  } else if (e.kind == "fragmentation") {
    if (e.format == "pytorch") {
      a.push_back("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: the " + H(e.reserved_bytes - e.live_bytes) +
                  " reserved but unallocated can then be mapped as one range");
      if (req > (20ull << 20)) {
        const uint64_t mb = std::max<uint64_t>(21, std::min<uint64_t>(req >> 20, 512));
        a.push_back("PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:" + std::to_string(mb) + " (blocks of " +
                    std::to_string(mb) +
                    " MiB and more are not split, and are released whole on a miss; 21 is the least PyTorch takes)");
      }
    } else if (e.format == "tpu") {
      a.push_back(
          "compaction: the free HBM holds the request once live buffers are moved together (Strata's "
          "--compaction on-oom; the TPU runtime's own defragmentation)");
    } else {
      a.push_back(
          "XLA_PYTHON_CLIENT_ALLOCATOR=cuda_async or TF_GPU_ALLOCATOR=cuda_malloc_async: a pool that maps "
          "pages instead of carving one region");
      a.push_back("JAX: backend.defragment() on the OOM, then retry (every live buffer through the host)");
    }
  }
  a.push_back(
      "strata-fit on a trace or snapshot of this run checks each setting and prints the cheapest that completes");
  *out = e;
  return true;
}

std::string ExplainText(const Explanation& e) {
  std::string out = "format: " + e.framework + "\n";
  out += "request: " + H(e.request_bytes) + "\n";
  if (e.has_live) out += "in use: " + H(e.live_bytes) + "\n";
  if (e.has_reserved) out += "reserved: " + H(e.reserved_bytes) + "\n";
  if (e.has_limit) out += "limit: " + H(e.limit_bytes) + "\n";
  if (e.has_total) out += "device total: " + H(e.total_bytes) + "\n";
  if (e.has_free) out += "free: " + H(e.free_bytes) + "\n";
  if (e.has_largest_free) out += "largest free block: " + H(e.largest_free_bytes) + "\n";
  out += "kind: " + e.kind + ": " + e.why + "\n";
  for (const std::string& a : e.advice) out += "advice: " + a + "\n";
  return out;
}

std::string ExplainJson(const Explanation& e) {
  replay::Json j;
  j["format"] = e.format;
  j["framework"] = e.framework;
  j["request_bytes"] = e.request_bytes;
  auto opt = [&](const char* k, bool has, uint64_t v) { j[k] = has ? replay::Json(v) : replay::Json(nullptr); };
  opt("live_bytes", e.has_live, e.live_bytes);
  opt("reserved_bytes", e.has_reserved, e.reserved_bytes);
  opt("limit_bytes", e.has_limit, e.limit_bytes);
  opt("total_bytes", e.has_total, e.total_bytes);
  opt("free_bytes", e.has_free, e.free_bytes);
  opt("largest_free_bytes", e.has_largest_free, e.largest_free_bytes);
  j["kind"] = e.kind;
  j["why"] = e.why;
  j["advice"] = e.advice;
  return tool::JsonLine(j);
}

}  // namespace strata::fit
