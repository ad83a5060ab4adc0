// strata-explain's engine (explain.h): a scanner that reads an OOM message's numbers, then the classification.
#include "explain.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "families.h"
#include "json_lines.h"
#include "policy.h"
#include "replay.h"
#include "text.h"

namespace strata::fit {
namespace {

// JAX's fraction variable, read from the jax policy's option table (host/gpu/bfc_policies.cc) rather than spelled
// again here: XLA_CLIENT_MEM_FRACTION in every release Strata models. The old name still works, but JAX refuses
// the two set together, so a user who has it set must change that one instead.
std::string JaxFractionVariable() { return gpu::PolicyOptionVariable("jax", "mem_fraction"); }
constexpr const char* kDeprecatedFractionNote =
    "or its deprecated name XLA_PYTHON_CLIENT_MEM_FRACTION where that is already set: JAX refuses both";

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
// "785.61M" (the TPU runtime), "3.47E" (the TPU compiler's early abort), "512 bytes". 0 when `unit` is none of them.
double UnitScale(std::string_view unit) {
  if (unit == "bytes" || unit == "B") return 1;
  static constexpr std::string_view kSuffixes[] = {"", "iB", "B"};
  static constexpr std::pair<char, double> kPowers[] = {
      {'K', 1024.0},          {'M', 1048576.0},          {'G', 1073741824.0},
      {'T', 1099511627776.0}, {'P', 1125899906842624.0}, {'E', 1152921504606846976.0}};
  if (unit.empty()) return 0;
  for (const auto& [letter, scale] : kPowers) {
    if (unit[0] != letter) continue;
    for (std::string_view suffix : kSuffixes) {
      if (unit.substr(1) == suffix) return scale;
    }
  }
  return 0;
}

// "8.00 ZiB", "5 kB": a word shaped like a unit that UnitScale does not read. Read as a bare number it would be 8 B.
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

  // The size at `i` (SizeAt's rule), for fields that follow no fixed phrase ("(59.32/79.15 GiB)"). A refusal counts.
  Read SizeAtIndex(size_t i, uint64_t* bytes, size_t* end) { return Keep(SizeAt(i, bytes, end)); }

  // A plain number right after `phrase` (a token count, a fraction, a sequence length): digits with at most one
  // fraction, read whole, at most kMaxNumberChars long. `*end`: where it ends. False when none is there.
  bool NumberAfter(std::string_view phrase, double* v, size_t* end = nullptr) const {
    for (size_t at = t_.find(phrase); at != std::string_view::npos; at = t_.find(phrase, at + 1)) {
      size_t i = at + phrase.size(), k = i;
      while (k < t_.size() && IsDigit(t_[k])) ++k;
      if (k == i) continue;
      if (k + 1 < t_.size() && t_[k] == '.' && IsDigit(t_[k + 1])) {
        for (++k; k < t_.size() && IsDigit(t_[k]);) ++k;
      }
      if (k - i > kMaxNumberChars) continue;
      *v = std::strtod(std::string(t_.substr(i, k - i)).c_str(), nullptr);
      if (end != nullptr) *end = k;
      return true;
    }
    return false;
  }

  std::string_view text() const { return t_; }

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
               " (it reads bytes, B, K, M, G, T, P, E and KiB ... EiB, KB ... EB)";
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

// "OOM when allocating tensor with shape[32,1024,64,64] and type float" (TensorFlow 1.5 and later) or "... tensor of
// shape [512] and type float" (older): the dimensions, and the type where the paste has it ("with shape[100,4096,32]"
// alone is common: the rest of the line went to the log).
bool FindShape(std::string_view text, std::string_view* dims, std::string_view* type) {
  static constexpr std::string_view kPhrases[] = {"OOM when allocating tensor with shape",
                                                  "OOM when allocating tensor of shape"};
  constexpr std::string_view kType = "] and type ";
  for (std::string_view phrase : kPhrases) {
    for (size_t at = text.find(phrase); at != std::string_view::npos; at = text.find(phrase, at + 1)) {
      size_t i = at + phrase.size();
      while (i < text.size() && IsSpace(text[i])) ++i;
      if (i >= text.size() || text[i] != '[') continue;
      const size_t begin = ++i;
      while (i < text.size() && (IsDigit(text[i]) || text[i] == ',' || text[i] == ' ')) ++i;
      if (i >= text.size() || text[i] != ']') continue;
      *dims = text.substr(begin, i - begin);
      *type = {};
      if (text.substr(i).substr(0, kType.size()) == kType) {
        const size_t type_begin = i + kType.size();
        size_t j = type_begin;
        while (j < text.size() && ((text[j] >= 'a' && text[j] <= 'z') || IsDigit(text[j]))) ++j;
        *type = text.substr(type_begin, j - type_begin);
      }
      return true;
    }
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

// How a message is read before any phrase is searched (issue 49: messages as users paste them). Each line loses its log
// prefix, HTML entities are decoded, and every run of whitespace becomes one space, so a line wrapped by a terminal or
// a web page ("22.26 GiB\n reserved in total by PyTorch", "Out \nof memory") reads as one. With `join_words`, a line
// break inside a word ("Failed to allo\ncate request") is closed as well: the second reading, tried only when the
// first finds no format, since it would also glue "the\nnext" of ordinary text. Linear, and never longer than its
// input.

// The end of a log line's prefix: TensorFlow's and XLA's ("2019-06-08 03:44:36.084180: E
// external/.../cuda_driver.cc:828] "), glog's ("W1110 07:24:24.387306     892 op_kernel.cc:1639] "), vLLM's ("ERROR
// 04-05 01:12:55 [core.py:390] "): a time of day, then "FILE:LINE] ". 0 when the line has none. Only the first 400
// characters are looked at.
size_t LogPrefixEnd(std::string_view line) {
  const size_t limit = std::min<size_t>(line.size(), 400);
  bool time = false;
  for (size_t i = 0; i < limit; ++i) {
    if (!time && i + 8 <= line.size() && IsDigit(line[i]) && IsDigit(line[i + 1]) && line[i + 2] == ':' &&
        IsDigit(line[i + 3]) && IsDigit(line[i + 4]) && line[i + 5] == ':' && IsDigit(line[i + 6]) &&
        IsDigit(line[i + 7])) {
      time = true;
    }
    if (time && line[i] == ']' && (i + 1 == line.size() || line[i + 1] == ' ')) {
      size_t d = i;
      while (d > 0 && IsDigit(line[d - 1])) --d;
      if (d < i && d > 0 && line[d - 1] == ':') return std::min(line.size(), i + 2);
    }
  }
  return 0;
}

// "&gt;" and its kin, as GitHub's and forums' HTML leave them in a copied message: the character and the entity's
// length.
std::pair<char, size_t> Entity(std::string_view s) {
  static constexpr std::pair<std::string_view, char> kEntities[] = {
      {"&gt;", '>'}, {"&lt;", '<'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&#39;", '\''}, {"&#x27;", '\''}, {"&#34;", '"'}};
  for (const auto& [name, c] : kEntities) {
    if (s.substr(0, name.size()) == name) return {c, name.size()};
  }
  return {'&', 1};
}

std::string Normalize(std::string_view in, bool join_words) {
  std::string out;
  out.reserve(in.size());
  bool space = false;  // whitespace since the last character written
  for (size_t pos = 0, line_no = 0;; ++line_no) {
    size_t eol = in.find('\n', pos);
    if (eol == std::string_view::npos) eol = in.size();
    std::string_view line = in.substr(pos, eol - pos);
    line.remove_prefix(LogPrefixEnd(line));
    if (line_no > 0) {
      const bool wrapped = join_words && !space && !out.empty() && IsLetter(out.back()) && !line.empty() &&
                           line[0] >= 'a' && line[0] <= 'z';
      if (!wrapped) space = true;
    }
    for (size_t i = 0; i < line.size(); ++i) {
      char c = line[i];
      if (IsSpace(c)) {
        space = true;
        continue;
      }
      if (c == '&') {
        const auto [decoded, length] = Entity(line.substr(i));
        c = decoded;
        i += length - 1;
      }
      if (space && !out.empty()) out += ' ';
      space = false;
      out += c;
    }
    if (eol == in.size()) break;
    pos = eol + 1;
  }
  return out;
}

// PyTorch's caching allocator asks cudaMalloc for a segment, not the request: 2 MiB for a request of 1 MiB or less
// (the small pool), 20 MiB below 10 MiB, else the request rounded up to 2 MiB (c10/cuda/CUDACachingAllocator.cpp,
// get_allocation_size).
uint64_t PyTorchSegment(uint64_t request) {
  constexpr uint64_t kMiB = 1 << 20;
  if (request <= kMiB) return 2 * kMiB;
  if (request < 10 * kMiB) return 20 * kMiB;
  return (request + 2 * kMiB - 1) / (2 * kMiB) * (2 * kMiB);
}

// Memory outside the framework that is still "a CUDA context": the context with the kernels, cuBLAS and cuDNN
// handles a framework loads. Measured contexts run from about 0.3 GiB (lazy loading) to over 1 GiB (every kernel of
// a fat binary loaded); more than this is memory another process or library holds.
constexpr uint64_t kContextAllowance = 3ull << 29;  // 1.5 GiB
// cudaMalloc of a segment with this much more free than the segment does not fail for want of memory.
constexpr uint64_t kFreeSlack = 64ull << 20;

// The PyTorch releases a message's format allows, as torch_version values: the oldest and the newest ("" for the
// newest the policies know). Formats: before 1.5 "X cached)"; 1.5 to 2.0 "already allocated"; 2.1 and 2.2 the typo
// "capacty"; 2.1 on "Of the allocated memory".
std::pair<const char*, const char*> TorchReleases(const std::string& framework) {
  auto is = [&](const char* prefix) { return framework.rfind(prefix, 0) == 0; };  // "... (CUDA caching allocator)"
  if (is("PyTorch before 1.5")) return {"1.10", "1.10"};  // the oldest release the policies model
  if (is("PyTorch before 2.1")) return {"1.10", "2.0"};
  if (is("PyTorch 2.1 to 2.2")) return {"2.1", "2.2"};
  return {"2.1", ""};
}

// What a numberless message lacks, per format: the next thing to capture.
constexpr const char* kCaptureBfc =
    "capture the allocator's statistics printed with it (the BFC allocator logs 'Stats:' with Limit, InUse and "
    "Reserved just before the error; JAX/TensorFlow with TF_CPP_MIN_LOG_LEVEL=0), and nvidia-smi at the moment of "
    "failure; with those strata-explain names the kind. If InUse plus the request is within Limit, it is the BFC's "
    "fragmentation, and TF_GPU_ALLOCATOR=cuda_malloc_async (TensorFlow) or XLA_PYTHON_CLIENT_ALLOCATOR=cuda_async "
    "(JAX), a pool that maps pages instead of carving one region, is the setting to try";
constexpr const char* kCaptureTensorFlow =
    "capture the BFC allocator's lines logged just before this one ('Sum Total of in-use chunks', 'Stats:', 'Limit:', "
    "'InUse:'), or rerun with report_tensor_allocations_upon_oom in RunOptions; with those strata-explain names the "
    "kind";

// The PyTorch settings variable the message itself suggests (it names the backend's: CUDA, HIP, or the unified one).
std::string PyTorchConf(std::string_view text, bool hip) {
  if (text.find("PYTORCH_ALLOC_CONF=") != std::string_view::npos) return "PYTORCH_ALLOC_CONF";
  if (hip || text.find("PYTORCH_HIP_ALLOC_CONF") != std::string_view::npos) return "PYTORCH_HIP_ALLOC_CONF";
  return "PYTORCH_CUDA_ALLOC_CONF";
}

std::string Percent(double f) {
  char s[32];
  std::snprintf(s, sizeof s, "%.1f%%", f * 100.0);
  return s;
}

// One reading of a normalized message: the format it is in, its numbers, the kind and the advice. False with *error
// when a number in it cannot be read; *found false when it is in none of the formats.
// What one message says beyond the Explanation's fields (the format-specific numbers), and the figures its kind is
// worked out from: read by ReadMessage, then classified (Classify) and advised on (Advise).
struct Reading {
  // Sizes past 2^63 in sum: the message's numbers cannot all be true (they wrapped into nonsense before issue 45).
  std::string inconsistent;
  // Format-specific numbers beyond the Explanation's fields.
  uint64_t other = 0, used = 0, capacity_bytes = 0, exceeded = 0, hbm_reserved = 0, unpadded = 0, padded = 0;
  bool has_other = false, has_used = false, has_capacity = false, has_exceeded = false, has_hbm_reserved = false,
       has_unpadded = false, has_padded = false, hip = false, host_bfc = false, early_abort = false;
  double seq_len = 0, kv_tokens = 0, estimated_len = 0, utilization = 0;
  uint64_t kv_needed = 0, kv_available = 0;
  bool has_kv_needed = false, has_kv_available = false, has_estimate = false, has_utilization = false;
  std::string memory_space;
  // The kind's figures (Classify).
  uint64_t req = 0;
  uint64_t need = 0;     // what the process needed at that moment: in use plus the request
  uint64_t usable = 0;   // what it could get from the device
  uint64_t outside = 0;  // what was held outside the allocator
  std::string capture;   // what to capture next when the message cannot settle the kind
};

// The kind of a message read (e.kind, e.why; the rule below) and what to capture when the message cannot settle it.
void Classify(uint64_t device_total, uint64_t device_context, Explanation* out, Reading* reading) {
  Explanation& e = *out;
  Reading& rd = *reading;
  if (!e.has_total && device_total != 0) {
    e.total_bytes = device_total;
    e.has_total = true;
  }

  // The rule every tool uses (gpu::ClassifyOom): capacity when live + request exceed what the process can get from
  // the device, cap when they fit there but exceed the framework's limit, else fragmentation; for messages also
  // other-process, compile-time and inconsistent (tests/fit/corpus/README.md states each format's arithmetic). Every
  // sum is checked (Add): numbers that cannot all be true make the kind "inconsistent", never a wrapped figure.
  rd.req = e.request_bytes;
  rd.need = rd.req;
  if (!rd.inconsistent.empty()) {
  } else if (e.format == "tpu-compile") {
    if (rd.has_used && rd.has_capacity) {
      e.kind = "compile-time";
      e.why = rd.early_abort
                  ? "the compiler estimates the program needs " + H(rd.used) + " and the device has " +
                        H(rd.capacity_bytes) + " available: it stopped before planning, nothing ran"
                  : "the compiled program needs " + H(rd.used) + " of " + rd.memory_space + " and the device has " +
                        H(rd.capacity_bytes) + ": the static plan does not fit, before anything runs";
      // The compiler rounds each figure to two decimals: the excess it states agrees within 1% of the capacity.
      const uint64_t diff = rd.used > rd.capacity_bytes ? rd.used - rd.capacity_bytes : 0;
      const uint64_t slack = rd.capacity_bytes / 100 + (16 << 10);
      if (rd.has_exceeded && (diff + slack < rd.exceeded || rd.exceeded + slack < diff)) {
        rd.inconsistent = "it uses " + H(rd.used) + " of " + H(rd.capacity_bytes) + ", " + H(diff) +
                          " over, yet says " + H(rd.exceeded) + " over";
      }
    }
  } else if (e.format == "tpu-reserve") {
    if (e.has_free) {
      e.kind = rd.req > e.free_bytes                                 ? "capacity"
               : e.has_largest_free && rd.req > e.largest_free_bytes ? "fragmentation"
                                                                     : "unknown";
      e.why = e.kind == "capacity"
                  ? "the program's " + H(rd.req) + " is more than all the free HBM (" + H(e.free_bytes) + ")"
              : e.kind == "fragmentation"
                  ? "the free HBM (" + H(e.free_bytes) + ") would hold the program's " + H(rd.req) + " but only " +
                        H(e.largest_free_bytes) + " of it is reservable at the bottom of memory"
                  : "the numbers say the " + H(rd.req) + " fit: the runtime gives no reason";
    } else {
      // A paste cut before the runtime's next sentence (AI-Hypercomputer/tpu-recipes#151) leaves only the request.
      e.why = "the message gives the program (" + H(rd.req) +
              ") but not what was free: the runtime's next sentence says it";
      rd.capture = "capture the whole line: the runtime goes on 'There are F free, R reserved, and V reservable.'";
    }
  } else if (e.format == "tpu") {
    if (e.has_free) {
      rd.usable = e.free_bytes;
      const gpu::OomKind k = gpu::ClassifyOom(rd.req, 0, 0, e.free_bytes);
      e.kind = gpu::OomKindName(k);
      e.why = k == gpu::OomKind::kCapacity
                  ? "the request (" + H(rd.req) + ") is more than all the free HBM (" + H(e.free_bytes) + ")"
                  : "the free HBM (" + H(e.free_bytes) + ") would hold the request (" + H(rd.req) +
                        ") but its largest contiguous region (" + H(e.largest_free_bytes) + ") does not";
    } else {
      e.why = "the message gives the request (" + H(rd.req) +
              ") but not what was free: the runtime's next sentence says it";
      rd.capture =
          "capture the whole line: the runtime goes on 'There are F free. Due to fragmentation, the largest "
          "contiguous region of free memory is L.'";
    }
  } else if (e.format == "pytorch-mps") {
    uint64_t held = 0;
    if (e.has_live && rd.has_other && e.has_limit && Add(e.live_bytes, rd.other, &held) &&
        Add(held, rd.req, &rd.need)) {
      const std::string sum = H(e.live_bytes) + " MPS allocated + " + H(rd.other) + " other allocations + " +
                              H(rd.req) + " requested = " + H(rd.need);
      if (rd.need > e.limit_bytes) {
        e.kind = "cap";
        e.why = sum + ", more than the high watermark allows (" + H(e.limit_bytes) + ")";
      } else {
        e.kind = "capacity";
        e.why = sum + " is within the high watermark (" + H(e.limit_bytes) +
                "): the system's memory refused it, not the limit";
      }
    }
  } else if (e.format == "pytorch-async" || e.format == "xla-async") {
    const bool xla = e.format == "xla-async";
    if (e.has_live && e.has_total && e.has_free && Add(e.live_bytes, rd.req, &rd.need)) {
      rd.usable = e.total_bytes;
      const std::string sum =
          H(e.live_bytes) + (xla ? " in use + " : " allocated + ") + H(rd.req) + " requested = " + H(rd.need);
      uint64_t held = 0;
      if (!Add(e.free_bytes, e.live_bytes, &held) || held > e.total_bytes + e.total_bytes / 100) {
        rd.inconsistent = "free (" + H(e.free_bytes) + ") plus " + (xla ? "in use" : "allocated") + " (" +
                          H(e.live_bytes) + ") is more than the device " + (xla ? "total" : "limit") + " (" +
                          H(e.total_bytes) + ")";
      } else if (e.has_limit && rd.need > e.limit_bytes && rd.need <= e.total_bytes) {
        e.kind = "cap";
        e.why = sum + ", more than the " + (xla ? "allocator's limit" : "memory fraction") + " allows (" +
                H(e.limit_bytes) + ")";
      } else if (e.free_bytes >= rd.req + kFreeSlack) {
        rd.inconsistent = "the GPU had " + H(e.free_bytes) + " free, more than the " + H(rd.req) + " requested";
      } else {
        rd.outside = e.total_bytes - std::min(e.total_bytes, held);
        if (rd.outside > kContextAllowance && rd.need + kContextAllowance <= e.total_bytes) {
          e.kind = "other-process";
          e.why = sum + "; " + H(rd.outside) + " of the " + H(e.total_bytes) + " is held outside " +
                  (xla ? "the allocator's pool" : "PyTorch's pool") +
                  " (other processes or libraries), more than a CUDA context: without it the request fits";
        } else {
          e.kind = "capacity";
          e.why = sum + ", and the device (" + H(e.total_bytes) + ") has only " + H(e.free_bytes) +
                  " free beside a CUDA context's worth (" + H(rd.outside) + ") held outside";
        }
      }
    }
  } else if (e.format == "pytorch" && e.has_live && e.has_reserved && e.has_free) {
    // What this process can get: what is free on the GPU plus what PyTorch holds. What it allocates comes out of
    // what it reserves, so allocated above reserved (the older format states both) is no real state.
    if (e.reserved_bytes < e.live_bytes) {
      rd.inconsistent = "PyTorch has " + H(e.live_bytes) + " allocated but only " + H(e.reserved_bytes) +
                        " reserved, and what it allocates comes out of what it reserves";
    } else if (!Add(e.live_bytes, rd.req, &rd.need)) {
      rd.inconsistent = "allocated (" + H(e.live_bytes) + ") plus the request (" + H(rd.req) + ") reach 2^63 bytes";
    } else if (!Add(e.free_bytes, e.reserved_bytes, &rd.usable)) {
      rd.inconsistent = "free (" + H(e.free_bytes) + ") plus reserved (" + H(e.reserved_bytes) + ") reach 2^63 bytes";
    } else {
      const uint64_t unallocated = e.reserved_bytes - e.live_bytes;
      const uint64_t segment = PyTorchSegment(rd.req);
      const std::string sum = H(e.live_bytes) + " allocated + " + H(rd.req) + " requested = " + H(rd.need);
      // PyTorch refuses a segment when what it reserves plus the segment passes the fraction (or the request alone
      // does).
      const bool capped = e.has_limit && (rd.need > e.limit_bytes || e.reserved_bytes + segment > e.limit_bytes);
      const uint64_t slack = e.has_total ? e.total_bytes / 100 + (16 << 20) : 0;
      if (capped) {
        if (e.has_total && rd.need > e.total_bytes) {
          // A cap names a fraction of the total; one above 1 (or of a 0 B GPU) is no setting PyTorch takes.
          rd.inconsistent = sum + " is more than the GPU's total capacity (" + H(e.total_bytes) +
                            "), yet only the memory fraction (" + H(e.limit_bytes) + ") stopped it";
        } else {
          e.kind = "cap";
          e.why = sum + ", more than the memory fraction allows (" + H(e.limit_bytes) + ")";
          if (rd.need <= e.limit_bytes) {
            e.why = "PyTorch reserves " + H(e.reserved_bytes) + " and a segment of " + H(segment) + " for the " +
                    H(rd.req) + " requested would pass the memory fraction (" + H(e.limit_bytes) + ")";
          }
        }
      } else if (e.has_total && rd.usable > e.total_bytes + slack) {
        rd.inconsistent = "PyTorch holds " + H(e.reserved_bytes) + " (" + H(e.live_bytes) + " of it allocated) and " +
                          H(e.free_bytes) + " is free: more than the GPU's total capacity (" + H(e.total_bytes) + ")";
      } else if (e.free_bytes >= segment + kFreeSlack) {
        rd.inconsistent = "the GPU had " + H(e.free_bytes) + " free, more than the " + H(segment) +
                          " segment the request needs, and no memory fraction is printed: cudaMalloc did not fail for "
                          "want of memory (on Windows the driver's figures can mislead; check nvidia-smi)";
      } else if (e.free_bytes + unallocated >= rd.req) {
        e.kind = "fragmentation";
        e.why = sum + " fits in what PyTorch holds plus what is free (" + H(rd.usable) + "): " + H(unallocated) +
                " is reserved but unallocated, in blocks too small";
      } else {
        rd.outside = e.has_total ? e.total_bytes - std::min(e.total_bytes, rd.usable) : 0;
        if (e.has_total && rd.outside > kContextAllowance && rd.need + kContextAllowance <= e.total_bytes) {
          e.kind = "other-process";
          e.why = sum + ", more than PyTorch holds plus what is free (" + H(rd.usable) + "); " + H(rd.outside) +
                  " of the " + H(e.total_bytes) +
                  " is held outside PyTorch (other processes or libraries), more than a CUDA context: without it the "
                  "request fits";
        } else {
          e.kind = "capacity";
          e.why = sum + ", more than PyTorch holds plus what is free on the GPU (" + H(rd.usable) + ")";
        }
      }
    }
  } else if (e.format == "vllm-kv") {
    if ((rd.seq_len > 0 && rd.kv_tokens > 0) || (rd.has_kv_needed && rd.has_kv_available)) {
      e.kind = "cap";
      e.why = rd.has_kv_needed && rd.has_kv_available
                  ? "one sequence of max_model_len (" + std::to_string(static_cast<uint64_t>(rd.seq_len)) + ") needs " +
                        H(rd.kv_needed) + " of KV cache; what gpu_memory_utilization leaves for it is " +
                        H(rd.kv_available)
                  : "one sequence of max_model_len (" + std::to_string(static_cast<uint64_t>(rd.seq_len)) +
                        " tokens) does not fit the KV cache that gpu_memory_utilization leaves (" +
                        std::to_string(static_cast<uint64_t>(rd.kv_tokens)) + " tokens)";
    }
  } else if (e.format == "vllm-startup") {
    e.kind = "other-process";
    e.why = H(e.total_bytes - std::min(e.total_bytes, e.free_bytes)) + " of the GPU's " + H(e.total_bytes) +
            " was in use before the engine started, and the free " + H(e.free_bytes) + " is less than " +
            (rd.has_utilization ? Fraction(static_cast<uint64_t>(rd.utilization * 1000), 1000) + " of the total"
                                : "the share") +
            " the engine wants";
    if (e.free_bytes > e.total_bytes) rd.inconsistent = "more is free than the GPU's total";
  } else if (e.format == "xla-bfc" && e.has_live && e.has_limit) {
    // The BFC: its limit is known; the device only if --device says what it is.
    rd.usable = e.has_total ? e.total_bytes - std::min(e.total_bytes, device_context) : UINT64_MAX;
    if (!Add(e.live_bytes, rd.req, &rd.need)) {
      rd.inconsistent = "in use (" + H(e.live_bytes) + ") plus the request (" + H(rd.req) + ") reach 2^63 bytes";
    } else {
      const gpu::OomKind k = gpu::ClassifyOom(rd.req, e.live_bytes, e.limit_bytes, rd.usable);
      e.kind = gpu::OomKindName(k);
      const std::string sum = H(e.live_bytes) + " in use + " + H(rd.req) + " requested = " + H(rd.need);
      e.why = k == gpu::OomKind::kCapacity ? sum + ", more than the device gives a process (" + H(rd.usable) + ")"
              : k == gpu::OomKind::kCap
                  ? sum + ", over the allocator's limit (" + H(e.limit_bytes) + ")" +
                        (e.has_total ? "" : "; give --device to know whether the GPU could")
                  : sum + " is within the limit (" + H(e.limit_bytes) + ") but no free chunk" +
                        (e.has_largest_free ? " (the largest is " + H(e.largest_free_bytes) + ")" : std::string()) +
                        " holds it";
      // A pool that grows (allow_growth, preallocation off) and is still below its limit could not get more memory
      // from the device: something outside the allocator holds it.
      if (k == gpu::OomKind::kFragmentation && e.has_reserved && e.reserved_bytes < e.limit_bytes &&
          e.reserved_bytes >= e.live_bytes && e.reserved_bytes - e.live_bytes < rd.req) {
        e.kind = "other-process";
        e.why = sum + " is within the limit (" + H(e.limit_bytes) + "), but the pool has grown only to " +
                H(e.reserved_bytes) + " and could not grow further: the device's memory is held outside the allocator";
      }
    }
  } else {
    e.why = "the message gives the request (" + H(rd.req) +
            ") but not what was in use: run strata-fit on a trace or snapshot of the run to classify it";
    if (e.format == "xla-bfc" || e.format == "xla") rd.capture = kCaptureBfc;
    if (e.format == "tensorflow") rd.capture = kCaptureTensorFlow;
    if (e.format == "xla-platform") {
      e.why = "the message gives the request (" + H(rd.req) +
              ") from XLA's device allocator, which has no pool: nothing says what else held the GPU";
      rd.capture =
          "capture nvidia-smi at the moment of failure (what every process holds) and JAX's allocator "
          "settings (XLA_PYTHON_CLIENT_ALLOCATOR, _PREALLOCATE, _MEM_FRACTION); with the BFC allocator's "
          "statistics strata-explain names the kind";
    }
    if (e.format == "tensorflow-eager") {
      e.why = "the message names the op but no size";
      rd.capture = kCaptureTensorFlow;
    }
    if (e.format == "vllm-no-cache") {
      e.why =
          "the weights and the profiled activation peak leave nothing of gpu_memory_utilization x the GPU's "
          "memory for the KV cache; the message has no numbers";
      rd.capture =
          "capture vLLM's start-up lines before it ('Loading model weights took', 'Memory profiling results' "
          "or '# GPU blocks'): with the weights, the peak and the total, the utilization that leaves room "
          "follows";
    }
    if (e.format == "vllm-kv") e.why = "the message's token counts were not readable";
    if (e.format == "pytorch") {
      rd.capture =
          "capture the whole message (PyTorch prints the GPU's total, what is free, allocated and reserved "
          "after the request) or torch.cuda.memory_summary()";
    }
  }
  if (!rd.inconsistent.empty()) {
    e.kind = "inconsistent";
    e.why = "the message's numbers cannot all be true: " + rd.inconsistent;
  }
}

// The advice the numbers support (the settings strata-fit searches; docs/fit.md), into e.advice and e.capture.
void Advise(std::string_view text, Explanation* out, const Reading& rd) {
  Explanation& e = *out;
  std::vector<std::string> advice;
  auto& a = advice;
  const std::string fewer =
      "or need less at once: a smaller batch or sequence length, activation checkpointing (rematerialization), or "
      "the model sharded over more devices";
  if (e.kind == "inconsistent") {
    a.push_back("no setting can be derived from these numbers: check that the message was copied whole and unedited");
  } else if (e.kind == "capacity") {
    if (e.format == "tpu" || e.format == "tpu-reserve") {
      a.push_back("no XLA setting helps: the TPU has " + H(e.free_bytes) + " free and " + H(rd.req) +
                  " is needed; a smaller batch or sequence length, fewer live buffers (rematerialization, "
                  "donate_argnums), or sharding over more chips");
    } else if (e.format == "pytorch-mps") {
      a.push_back("no setting helps: the system's memory refused " + H(rd.need) +
                  " below the watermark; free memory "
                  "(other apps), or a smaller batch or model");
    } else {
      a.push_back("no setting helps: the workload needs at least " + H(rd.need) + " at this point, the device has " +
                  H(e.format == "pytorch-async" || e.format == "xla-async" ? e.total_bytes : rd.usable) +
                  "; a larger device, fewer live buffers (smaller batch, activation checkpointing) or sharding");
    }
  } else if (e.kind == "other-process") {
    if (e.format == "vllm-startup") {
      const uint64_t hundredths = e.total_bytes == 0 ? 0 : e.free_bytes * 100 / e.total_bytes;
      char u[16];
      std::snprintf(u, sizeof u, "%.2f", static_cast<double>(hundredths) / 100.0);
      a.push_back(std::string("gpu_memory_utilization=") + u + " or lower (the free " + H(e.free_bytes) + " over the " +
                  H(e.total_bytes) + " total), or free the GPU of the other process first (nvidia-smi lists them)");
    } else if (e.format == "xla-bfc") {
      a.push_back(
          "free the GPU of the other process (nvidia-smi lists them), or let the allocator take its memory "
          "at start: XLA_PYTHON_CLIENT_PREALLOCATE=true (JAX) / no allow_growth (TensorFlow)");
    } else {
      a.push_back("free the " + H(rd.outside) + " held outside " +
                  (e.format == "pytorch-async" || e.format == "xla-async" ? "the pool" : "PyTorch") +
                  " (nvidia-smi lists each process's memory; another framework in this process counts too), or "
                  "cap the other process (its framework's memory fraction): without it " +
                  H(rd.need) + " fits");
      a.push_back(fewer);
    }
  } else if (e.kind == "cap") {
    // A cap's need fits the device (ClassifyOom; PyTorch's total checked above): the fraction is in (0, 1].
    if (e.format == "pytorch" || e.format == "pytorch-async") {
      a.push_back("torch.cuda.set_per_process_memory_fraction(" +
                  (e.has_total ? Fraction(rd.need, e.total_bytes) : std::string("a larger fraction")) +
                  ") or more: the fraction caps what PyTorch may reserve");
    } else if (e.format == "pytorch-mps") {
      a.push_back("PYTORCH_MPS_HIGH_WATERMARK_RATIO above its current value (the limit, " + H(e.limit_bytes) +
                  ", is that ratio of the system's recommended working set; 0.0 removes it, at the risk the message "
                  "names), if the machine has the memory");
      a.push_back(fewer);
    } else if (e.format == "vllm-kv") {
      uint64_t fit_len = 0;
      if (rd.has_estimate) {
        fit_len = static_cast<uint64_t>(rd.estimated_len);
      } else if (rd.kv_tokens > 0) {
        fit_len = static_cast<uint64_t>(rd.kv_tokens);
      } else if (rd.has_kv_needed && rd.kv_needed > 0 && rd.seq_len > 0) {
        fit_len = static_cast<uint64_t>(rd.seq_len * static_cast<double>(rd.kv_available) /
                                        static_cast<double>(rd.kv_needed));
      }
      if (fit_len > 0) {
        a.push_back("max_model_len=" + std::to_string(fit_len) +
                    " or less: the longest sequence the KV cache holds at this gpu_memory_utilization");
      }
      if (rd.has_kv_needed && rd.has_kv_available) {
        const uint64_t more = rd.kv_needed - std::min(rd.kv_needed, rd.kv_available);
        a.push_back("or raise gpu_memory_utilization so the KV cache gains " + H(more) +
                    (e.has_total ? " (+" + Fraction(more, e.total_bytes) + " of the GPU's " + H(e.total_bytes) + ")"
                                 : std::string(" (that over the GPU's total, added to the fraction)")) +
                    ", if the GPU has it free");
      } else {
        a.push_back("or raise gpu_memory_utilization until the KV cache holds " +
                    std::to_string(static_cast<uint64_t>(rd.seq_len)) + " tokens (it holds " +
                    std::to_string(static_cast<uint64_t>(rd.kv_tokens)) + " now" +
                    (rd.has_utilization ? " at " + Fraction(static_cast<uint64_t>(rd.utilization * 1000), 1000) : "") +
                    "), if the GPU has it free");
      }
    } else if (rd.host_bfc) {
      a.push_back("TF_GPU_HOST_MEM_LIMIT_IN_MB=" + std::to_string((rd.need + (1 << 20) - 1) >> 20) +
                  " or more: the pinned host allocator's limit (64 GiB by default), if the host has the memory");
    } else if (e.has_total) {
      a.push_back(JaxFractionVariable() + "=" + Fraction(rd.need, e.total_bytes) +
                  " (JAX: the limit is that fraction of the GPU's total; at least " + H(rd.need) + "; " +
                  kDeprecatedFractionNote + ")");
      a.push_back("TensorFlow: TF_DEVICE_MIN_SYS_MEMORY_IN_MB below the reserve it keeps now, so the limit reaches " +
                  H(rd.need));
    } else {
      a.push_back("raise the allocator's limit to at least " + H(rd.need) + " (JAX: " + JaxFractionVariable() +
                  "; TensorFlow: TF_DEVICE_MIN_SYS_MEMORY_IN_MB); --device NAME "
                  "gives the fraction");
    }
  } else if (e.kind == "fragmentation") {
    if (e.format == "pytorch") {
      const std::string conf = PyTorchConf(text, rd.hip);
      // The message's format bounds the release (TorchReleases): expandable_segments came with 2.1, and the least
      // max_split_size_mb is the policy's own rule (gpu::LeastMaxSplitSizeMb) for every release the format allows.
      const auto [oldest, newest] = TorchReleases(e.framework);
      if (e.framework.find("before") == std::string::npos) {  // 2.1 or newer
        a.push_back(conf + "=expandable_segments:True: the " + H(e.reserved_bytes - e.live_bytes) +
                    " reserved but unallocated can then be mapped as one range");
      }
      uint64_t least = 0;
      for (const char* release : {oldest, newest}) {
        uint64_t mb = 0;
        std::string ignored;
        std::map<std::string, std::string> options;
        if (release[0] != '\0') options["torch_version"] = release;
        if (gpu::LeastMaxSplitSizeMb(options, &mb, &ignored)) least = std::max(least, mb);
      }
      if (rd.req > (least << 20)) {
        const uint64_t mb = std::max<uint64_t>(least, std::min<uint64_t>(rd.req >> 20, 512));
        a.push_back(conf + "=max_split_size_mb:" + std::to_string(mb) + " (blocks of " + std::to_string(mb) +
                    " MiB and more are not split, and are released whole on a miss; " + std::to_string(least) +
                    " is the least every PyTorch release of this message's format accepts)");
      }
      a.push_back(fewer);
    } else if (e.format == "tpu" || e.format == "tpu-reserve") {
      a.push_back(
          "compaction: the free HBM holds the request once live buffers are moved together (Strata's "
          "--compaction on-oom; the TPU runtime's own defragmentation)");
      a.push_back(fewer);
    } else {
      a.push_back(
          "XLA_PYTHON_CLIENT_ALLOCATOR=cuda_async or TF_GPU_ALLOCATOR=cuda_malloc_async: a pool that maps "
          "pages instead of carving one region");
      a.push_back("JAX: backend.defragment() on the OOM, then retry (every live buffer through the host)");
    }
  } else if (e.kind == "compile-time") {
    std::string line = std::string("no runtime setting helps: XLA ") + (rd.early_abort ? "estimated " : "planned ") +
                       H(rd.used) + " of " + rd.memory_space + " for a device of " + H(rd.capacity_bytes);
    if (rd.memory_space == "hbm" && rd.capacity_bytes > 0) {
      // Sharded over n chips, the program's share (all but the runtime's reserve) divides; the reserve stays.
      const uint64_t fixed = rd.has_hbm_reserved ? std::min(rd.hbm_reserved, rd.used) : 0;
      line += "; sharded evenly over";
      for (uint64_t n : {2, 4, 8}) {
        const uint64_t per = fixed + (rd.used - fixed) / n;
        line += std::string(n == 2 ? " " : ", ") + std::to_string(n) + " chips about " + H(per) + " each" +
                (per <= rd.capacity_bytes ? " (fits)" : "");
      }
    }
    a.push_back(line);
    if (rd.has_unpadded && rd.has_padded && rd.padded > 0 && rd.padded >= rd.unpadded) {
      a.push_back("padding to the TPU's tiles takes " +
                  Percent(static_cast<double>(rd.padded - rd.unpadded) / rd.padded) + " of the temporaries (" +
                  H(rd.unpadded) + " unpadded, " + H(rd.padded) + " padded)");
    }
    a.push_back(
        "a smaller batch or sequence length, rematerialization (jax.checkpoint), or more chips with the "
        "arrays sharded over them");
  }
  if (e.kind == "unknown" && !rd.capture.empty()) a.push_back(rd.capture);
  // What the TPU holds beside the request may be a cache a server sized from a share of the memory at start: vLLM on
  // TPU preallocates its KV cache from gpu_memory_utilization, and lowering it was the fix in
  // AI-Hypercomputer/tpu-recipes#151. A share of the HBM, not the model, is then what is missing.
  if ((e.format == "tpu" || e.format == "tpu-reserve") && (e.kind == "capacity" || e.kind == "unknown")) {
    a.push_back(
        "if a server preallocated a cache from a share of the HBM (vLLM on TPU: gpu_memory_utilization), a "
        "lower share leaves the " +
        H(rd.req) + " this " + (e.format == "tpu" ? "buffer" : "program") + " needs");
  }
  if (e.kind == "unknown" && e.format == "xla-platform") {
    a.push_back(
        std::string("this text comes from XLA's device allocator outside the BFC pool (XLA_PYTHON_CLIENT_ALLOCATOR="
                    "platform, or a scratch allocation such as cuDNN autotuning): if the pool holds most of the "
                    "GPU, ") +
        JaxFractionVariable() + " lower leaves the room (" + kDeprecatedFractionNote +
        "); with the platform allocator, the default one with XLA_PYTHON_CLIENT_PREALLOCATE=true holds the memory "
        "from the start");
  }
  if (e.kind == "unknown" && e.format == "vllm-no-cache") {
    a.push_back(
        "a higher gpu_memory_utilization if the GPU has the memory, or a smaller model (quantized), or more "
        "GPUs (tensor_parallel_size)");
  }
  if (e.format != "vllm-kv" && e.format != "vllm-startup" && e.format != "vllm-no-cache" && e.format != "tpu-compile") {
    a.push_back(
        "strata-fit on a trace or snapshot of this run checks each setting and prints the cheapest that completes");
  }
  e.advice = std::move(advice);
  e.capture = rd.capture;
}

bool ReadMessage(std::string_view text, uint64_t device_total, uint64_t device_context, Explanation* out,
                 bool* found_out, std::string* error) {
  Reading rd;
  Explanation e;
  Scanner scan(text);
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
  auto has_text = [&](std::string_view phrase) { return text.find(phrase) != std::string_view::npos; };
  std::string_view dims, type;
  if (size_t at = text.find("Ran out of memory in memory space "); at != std::string_view::npos) {
    // The TPU compiler (XLA:TPU, closed source; the text as users post it): "Ran out of memory in memory space hbm.
    // Used 21.95G of 15.48G hbm. Exceeded hbm capacity by 6.47G." with "Total hbm usage >= ...: reserved, program,
    // arguments" and "HLO temp ... Unpadded (X) Padded (Y)". The static plan does not fit: no runtime setting helps.
    e.format = "tpu-compile";
    e.framework = "XLA TPU compiler";
    found = true;
    size_t i = at + std::string_view("Ran out of memory in memory space ").size(), j = i;
    while (j < text.size() && IsLetter(text[j])) ++j;
    rd.memory_space = std::string(text.substr(i, j - i));
    const std::string unit_after = " " + rd.memory_space;
    after("Used ", &rd.used, &rd.has_used, " of ");
    after(" of ", &rd.capacity_bytes, &rd.has_capacity, unit_after);
    after("capacity by ", &rd.exceeded, &rd.has_exceeded);
    after("reserved ", &rd.hbm_reserved, &rd.has_hbm_reserved);
    after("Unpadded (", &rd.unpadded, &rd.has_unpadded);
    after("Padded (", &rd.padded, &rd.has_padded);
    e.request_bytes = rd.used;
    if (rd.has_capacity) {
      e.total_bytes = rd.capacity_bytes;
      e.has_total = true;
    }
  } else if (has_text("Aborting compilation early because")) {
    // The TPU compiler before it plans (hawkinsp's text in jax-ml/jax#7822): "Compilation failure: Aborting
    // compilation early because it's unlikely to have enough memory. Requires 3.47E, has 14.49G available." Its
    // estimate of the program against the HBM the chip has: a static plan that cannot fit, as above.
    e.format = "tpu-compile";
    e.framework = "XLA TPU compiler (early estimate)";
    found = true;
    rd.early_abort = true;
    rd.memory_space = "hbm";
    after("Requires ", &rd.used, &rd.has_used, ", has ");
    after(", has ", &rd.capacity_bytes, &rd.has_capacity, " available");
    e.request_bytes = rd.used;
    if (rd.has_capacity) {
      e.total_bytes = rd.capacity_bytes;
      e.has_total = true;
    }
  } else if (after("Attempting to reserve ", &e.request_bytes, &found, " at the bottom of memory")) {
    // The TPU runtime loading a program (libtpu): "Attempting to reserve 6.48G at the bottom of memory. That was not
    // possible. There are 6.78G free, 0B reserved, and 3.33G reservable."
    e.format = "tpu-reserve";
    e.framework = "TPU runtime (program load)";
    after("There are ", &e.free_bytes, &e.has_free, " free");
    after("and ", &e.largest_free_bytes, &e.has_largest_free, " reservable");
  } else if (after("Attempting to allocate ", &e.request_bytes, &found, ". That was not possible")) {
    // The TPU runtime (libtpu, closed source): "Error allocating device buffer: Attempting to allocate X. That was
    // not possible. There are Y free. Due to fragmentation, the largest contiguous region of free memory is Z."
    e.format = "tpu";
    e.framework = "TPU runtime";
    after("There are ", &e.free_bytes, &e.has_free, " free");
    after("largest contiguous region of free memory is ", &e.largest_free_bytes, &e.has_largest_free);
  } else if (has_text("MPS backend out of memory")) {
    // PyTorch on Apple silicon (aten/src/ATen/mps/MPSAllocator.mm): "MPS backend out of memory (MPS allocated: A, other
    // allocations: O, max allowed: L). Tried to allocate R on private pool." Its sizes print GB for GiB.
    e.format = "pytorch-mps";
    e.framework = "PyTorch (MPS allocator)";
    found = true;
    after("Tried to allocate ", &e.request_bytes, nullptr);
    after("MPS allocated: ", &e.live_bytes, &e.has_live);
    after("other allocations: ", &rd.other, &rd.has_other);
    after("max allowed: ", &e.limit_bytes, &e.has_limit);
  } else if (has_text("would exceed allowed memory")) {
    // PyTorch's cudaMallocAsync backend (c10/cuda/CUDAMallocAsyncAllocator.cpp): "Allocation on device 0 would exceed
    // allowed memory. (out of memory) Currently allocated : A Requested : R Device limit : T Free (according to CUDA):
    // F PyTorch limit (set by user-supplied memory fraction) : L". L is 2^64 bytes when no fraction is set: past any
    // device, so it is no limit (and not read as a size).
    e.format = "pytorch-async";
    e.framework = "PyTorch (cudaMallocAsync backend)";
    found = true;
    after("Requested : ", &e.request_bytes, nullptr);
    after("Currently allocated : ", &e.live_bytes, &e.has_live);
    after("Device limit : ", &e.total_bytes, &e.has_total);
    after("Free (according to CUDA): ", &e.free_bytes, &e.has_free);
    uint64_t limit = 0;
    if (scan.After("memory fraction) : ", &limit) == Read::kOk && (!e.has_total || limit < e.total_bytes)) {
      e.limit_bytes = limit;
      e.has_limit = true;
    }
  } else if (after("cuMemAllocAsync failed to allocate ", &e.request_bytes, &found)) {
    // The cudaMallocAsync allocator of XLA and TensorFlow (xla/stream_executor/gpu/gpu_cudamallocasync_allocator.cc:
    // XLA_PYTHON_CLIENT_ALLOCATOR=cuda_async, TF_GPU_ALLOCATOR=cuda_malloc_async): "gpu_async_0 cuMemAllocAsync failed
    // to allocate N bytes: ... CUDA_ERROR_OUT_OF_MEMORY ... Reported by CUDA: Free memory/Total memory: F/T", then its
    // Stats (Limit, InUse, ...). Limit 0 is no limit. The same arithmetic as PyTorch's cudaMallocAsync backend.
    e.format = "xla-async";
    const bool tf = has_text("tensorflow");
    const bool jax = has_text("jaxlib") || has_text("XlaRuntimeError") || has_text("jax.");
    e.framework = tf && !jax   ? "TensorFlow (cudaMallocAsync allocator)"
                  : jax && !tf ? "JAX/XLA (cudaMallocAsync allocator)"
                               : "JAX/XLA or TensorFlow (cudaMallocAsync allocator)";
    if (size_t at = text.find("Free memory/Total memory: "); at != std::string_view::npos) {
      size_t end = 0;
      if (got(scan.SizeAtIndex(at + std::string_view("Free memory/Total memory: ").size(), &e.free_bytes, &end),
              &e.has_free) &&
          end < text.size() && text[end] == '/') {
        got(scan.SizeAtIndex(end + 1, &e.total_bytes, &end), &e.has_total);
      }
    }
    stat("InUse:", &e.live_bytes, &e.has_live, true);
    uint64_t limit = 0;
    bool has_limit = false;
    if (stat("Limit:", &limit, &has_limit) && limit > 0) {
      e.limit_bytes = limit;
      e.has_limit = true;
    }
  } else if (after("Tried to allocate ", &e.request_bytes, &found)) {
    // PyTorch: c10/cuda/CUDACachingAllocator.cpp, the OutOfMemoryError raised by malloc() (CUDA, and HIP on ROCm).
    rd.hip = has_text("HIP out of memory");
    e.format = "pytorch";
    after("total capacity of ", &e.total_bytes, &e.has_total);
    bool typo = false;
    if (!e.has_total) after("total capacty of ", &e.total_bytes, &typo);  // PyTorch 2.1 to 2.2's own typo
    e.has_total = e.has_total || typo;
    after("of which ", &e.free_bytes, &e.has_free, " is free");
    before(" allowed;", &e.limit_bytes, &e.has_limit);
    after("Of the allocated memory ", &e.live_bytes, &e.has_live);
    uint64_t unallocated = 0;
    bool has_unallocated = false;
    after("and ", &unallocated, &has_unallocated, " is reserved by PyTorch but unallocated");
    e.framework = !e.has_live ? "PyTorch before 2.1" : typo ? "PyTorch 2.1 to 2.2" : "PyTorch 2.1 or newer";
    // Older PyTorch (1.5 to 2.0): "(GPU 0; 7.93 GiB total capacity; 130.35 MiB already allocated; 47.06 MiB free;
    // 188.00 MiB reserved in total by PyTorch)"; before 1.5 the last field was "X cached)", what PyTorch held
    // unallocated.
    if (!e.has_total) before(" total capacity", &e.total_bytes, &e.has_total);
    if (!e.has_live) before(" already allocated", &e.live_bytes, &e.has_live);
    if (!e.has_free) before(" free;", &e.free_bytes, &e.has_free);
    if (!has_unallocated && before(" cached)", &unallocated, &has_unallocated)) e.framework = "PyTorch before 1.5";
    if (e.has_live && has_unallocated) {
      if (Add(e.live_bytes, unallocated, &e.reserved_bytes)) {
        e.has_reserved = true;
      } else {
        rd.inconsistent = "allocated (" + H(e.live_bytes) + ") plus reserved but unallocated (" + H(unallocated) +
                          ") reach 2^63 bytes";
      }
    }
    if (!e.has_reserved && rd.inconsistent.empty()) {
      before(" reserved in total by PyTorch", &e.reserved_bytes, &e.has_reserved);
    }
    e.framework += rd.hip ? " (HIP caching allocator)" : " (CUDA caching allocator)";
  } else if (has_text("the maximum number of tokens that can be stored in KV cache") ||
             has_text("KV cache is needed, which is larger than the available KV cache memory")) {
    // vLLM (vllm/worker/worker.py, vllm/v1/core/kv_cache_utils.py): the KV cache that gpu_memory_utilization leaves
    // after the weights and the profiled activations cannot hold one sequence of max_model_len.
    e.format = "vllm-kv";
    e.framework = "vLLM";
    found = true;
    scan.NumberAfter("max seq len (", &rd.seq_len);
    scan.NumberAfter("stored in KV cache (", &rd.kv_tokens);
    before(" KV cache is needed", &rd.kv_needed, &rd.has_kv_needed);
    after("available KV cache memory (", &rd.kv_available, &rd.has_kv_available);
    rd.has_estimate = scan.NumberAfter("the estimated maximum model length is ", &rd.estimated_len);
    rd.has_utilization = scan.NumberAfter("gpu_memory_utilization=", &rd.utilization);
    after("total_gpu_memory=", &e.total_bytes, &e.has_total);
    e.request_bytes = rd.kv_needed;
  } else if (size_t at = text.find("ree memory on device"); at != std::string_view::npos) {
    // vLLM v1 start-up (vllm/v1/worker/gpu_worker.py): "Free memory on device (59.32/79.15 GiB) on startup is less
    // than desired GPU memory utilization (0.9, 71.24 GiB)."
    e.format = "vllm-startup";
    e.framework = "vLLM";
    size_t open = text.find('(', at);
    size_t end = 0;
    double free_number = 0;
    if (open != std::string_view::npos && open - at < 40) {
      size_t k = open + 1;
      const std::string_view rest = text.substr(k);
      size_t digits = 0;
      while (digits < rest.size() && (IsDigit(rest[digits]) || rest[digits] == '.')) ++digits;
      if (digits > 0 && digits <= kMaxNumberChars && k + digits < text.size() && text[k + digits] == '/') {
        free_number = std::strtod(std::string(rest.substr(0, digits)).c_str(), nullptr);
        size_t t = k + digits + 1, unit_begin = t;
        if (got(scan.SizeAtIndex(t, &e.total_bytes, &end), &e.has_total)) {
          // The free figure carries the total's unit: the unit is the scale of the total over its number.
          while (unit_begin < end && (IsDigit(text[unit_begin]) || text[unit_begin] == '.')) ++unit_begin;
          const double total_number = std::strtod(std::string(text.substr(t, unit_begin - t)).c_str(), nullptr);
          if (total_number > 0) {
            e.free_bytes =
                static_cast<uint64_t>(std::llround(free_number * static_cast<double>(e.total_bytes) / total_number));
            e.has_free = true;
          }
        }
      }
    }
    rd.has_utilization = scan.NumberAfter("memory utilization (", &rd.utilization, &end);
    if (rd.has_utilization && end + 2 < text.size() && text[end] == ',') {
      got(scan.SizeAtIndex(end + 2, &e.request_bytes, &end), nullptr);
    }
    found = e.has_total && e.has_free;
  } else if (after("ran out of memory trying to allocate ", &e.request_bytes, &found)) {
    // The BFC allocator of XLA and TensorFlow: xla/tsl/framework/bfc_allocator.cc, AllocateRaw's warning, with its
    // Stats (Limit, InUse, Reserved, LargestFreeBlock) or Strata's summary (bytes_in_use, pool_bytes, ...).
    // TensorFlow's older dumps give in use as "Sum Total of in-use chunks". cuda_host_bfc is TensorFlow's pinned host
    // memory.
    e.format = "xla-bfc";
    rd.host_bfc = has_text("cuda_host_bfc");
    const bool tf = has_text("tensorflow/core") || has_text("OOM when allocating tensor");
    const bool jax = has_text("xla/") || has_text("jaxlib") || has_text("XlaRuntimeError");
    e.framework = rd.host_bfc  ? "TensorFlow (BFC allocator, pinned host memory)"
                  : tf && !jax ? "TensorFlow (BFC allocator)"
                  : jax && !tf ? "JAX/XLA (BFC allocator)"
                               : "JAX/XLA or TensorFlow (BFC allocator)";
    after("(rounded to ", &e.request_bytes, nullptr);
    if (!after("bytes_in_use ", &e.live_bytes, &e.has_live)) stat("InUse:", &e.live_bytes, &e.has_live, true);
    if (!e.has_live) after("Sum Total of in-use chunks: ", &e.live_bytes, &e.has_live);
    if (!after("pool_bytes ", &e.reserved_bytes, &e.has_reserved)) {
      stat("Reserved:", &e.reserved_bytes, &e.has_reserved, true);
    }
    if (!after("bytes_limit ", &e.limit_bytes, &e.has_limit)) stat("Limit:", &e.limit_bytes, &e.has_limit);
    if (!after("largest_free_block_bytes ", &e.largest_free_bytes, &e.has_largest_free)) {
      stat("LargestFreeBlock:", &e.largest_free_bytes, &e.has_largest_free);
    }
  } else if (FindShape(text, &dims, &type)) {
    // TensorFlow: tensorflow/core/framework/op_kernel.cc, OpKernelContext::allocate_tensor's ResourceExhausted.
    e.format = "tensorflow";
    e.framework = "TensorFlow";
    const uint64_t width = type.empty() ? 1 : DtypeBytes(type);
    if (!ShapeBytes(dims, width == 0 ? 1 : width, &e.request_bytes, error)) return false;
    if (width == 0) {
      *error = "TensorFlow type '" + std::string(type) + "': its size is not known here";
      return false;
    }
    if (type.empty()) e.framework = "TensorFlow (the type is not in the paste: the request counts elements, not bytes)";
    found = true;
    // The BFC's statistics are often pasted with it.
    stat("InUse:", &e.live_bytes, &e.has_live, true);
    stat("Limit:", &e.limit_bytes, &e.has_limit);
    stat("Reserved:", &e.reserved_bytes, &e.has_reserved, true);
    stat("LargestFreeBlock:", &e.largest_free_bytes, &e.has_largest_free);
  } else if (after("Out of memory while trying to allocate ", &e.request_bytes, &found)) {
    // XLA's RESOURCE_EXHAUSTED from the device allocator (xla/stream_executor/integrations/tf_allocator_adapter.cc).
    e.format = "xla";
    e.framework = "JAX/XLA";
  } else if (after("Failed to allocate request for ", &e.request_bytes, &found)) {
    // XLA's StreamExecutor allocator without a pool in between
    // (xla/stream_executor/stream_executor_memory_allocator.cc): "Failed to allocate request for 6.27GiB (6727663616B)
    // on device ordinal 0". The bytes in parentheses are exact.
    e.format = "xla-platform";
    e.framework = "JAX/XLA (device allocator, no BFC pool)";
    after("(", &e.request_bytes, nullptr, ") on device ordinal");
  } else if (has_text("failed to allocate memory") &&
             (has_text("ResourceExhausted") || has_text("Resource exhausted") || has_text("[Op:"))) {
    // TensorFlow eager ops (tensorflow/core/common_runtime/eager): "ResourceExhaustedError: failed to allocate memory
    // [Op:AddV2]": no size at all.
    e.format = "tensorflow-eager";
    e.framework = "TensorFlow (eager op)";
    found = true;
  } else if (has_text("No available memory for the cache blocks")) {
    // vLLM: the weights and the profiled activations leave nothing of gpu_memory_utilization x total for the KV cache.
    e.format = "vllm-no-cache";
    e.framework = "vLLM";
    found = true;
  }
  if (bad) {
    *error = scan.bad();
    return false;
  }
  *found_out = found;
  if (!found) return true;
  Classify(device_total, device_context, &e, &rd);
  Advise(text, &e, rd);
  *out = e;
  return true;
}

// A message of a framework with none of the numbers: named, kind unknown, and what to capture next. False when
// it names no framework's out-of-memory error either.
bool ExplainBare(const std::string& message, Explanation* out) {
  const std::string text = Normalize(message, false);
  static constexpr std::pair<std::string_view, std::string_view> kBare[] = {
      {"HIP out of memory", "PyTorch (HIP)"},
      {"CUDA out of memory", "PyTorch or another CUDA program"},
      {"CUDA_ERROR_OUT_OF_MEMORY", "a CUDA program (the driver's error)"},
      {"HIP_ERROR_OutOfMemory", "a ROCm program (the HIP driver's error)"},
      {"hipErrorOutOfMemory", "a ROCm program (the HIP runtime's error)"},
      {"OutOfMemoryError", "PyTorch"},
      {"ResourceExhaustedError", "TensorFlow"},
      {"RESOURCE_EXHAUSTED", "JAX/XLA or TensorFlow"},
      {"Resource exhausted", "JAX/XLA or TensorFlow"},
      {"out of memory", "unnamed"}};
  for (const auto& [phrase, framework] : kBare) {
    if (text.find(phrase) == std::string::npos) continue;
    Explanation e;
    e.format = "oom-text";
    e.framework = std::string(framework);
    e.why = "the message says '" + std::string(phrase) + "' with no sizes";
    e.capture =
        "capture the whole error message, from its first line to the allocator's statistics (PyTorch "
        "prints the GPU's total, free, allocated and reserved; JAX/TensorFlow's BFC allocator logs "
        "'Stats:' before the error)";
    e.advice = {e.capture};
    *out = e;
    return true;
  }
  return false;
}

// Never advise a setting the user says is already on: a line that names one goes.
void DropSettingsOn(const std::vector<std::string>& settings_on, std::vector<std::string>* advice) {
  if (settings_on.empty()) return;
  std::vector<std::string> kept;
  for (const std::string& line : *advice) {
    bool names = false;
    for (const std::string& s : settings_on) names = names || (!s.empty() && line.find(s) != std::string::npos);
    if (!names) kept.push_back(line);
  }
  *advice = std::move(kept);
}

}  // namespace

bool Explain(const std::string& message, uint64_t device_total, uint64_t device_context, Explanation* out,
             std::string* error) {
  return Explain(message, device_total, device_context, {}, out, error);
}

bool Explain(const std::string& message, uint64_t device_total, uint64_t device_context,
             const std::vector<std::string>& settings_on, Explanation* out, std::string* error) {
  if (message.size() > kMaxMessageBytes) {
    *error = "the message is longer than " + std::to_string(kMaxMessageBytes) +
             " bytes (64 KiB), the most strata-explain reads: give the out-of-memory error itself (from its first "
             "line to the allocator's statistics), not the whole log";
    return false;
  }
  // First the message with its lines joined by spaces, then (only when no format is found) with the words a
  // terminal broke across lines joined again.
  bool found = false;
  for (bool join_words : {false, true}) {
    const std::string text = Normalize(message, join_words);
    if (!ReadMessage(text, device_total, device_context, out, &found, error)) return false;
    if (found) break;
  }
  if (!found && !ExplainBare(message, out)) {
    *error =
        "not an out-of-memory message of PyTorch (\"Tried to allocate\"), XLA's BFC (\"ran out of memory trying to "
        "allocate\"), XLA (\"Out of memory while trying to allocate\"), TensorFlow (\"OOM when allocating tensor with "
        "shape\") or the TPU runtime (\"Attempting to allocate ... That was not possible\")";
    return false;
  }
  DropSettingsOn(settings_on, &out->advice);
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
  if (!e.capture.empty()) j["capture"] = e.capture;
  return tool::JsonLine(j);
}

}  // namespace strata::fit
