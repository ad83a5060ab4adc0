// The one reader of numbers from command-line options and environment variables: decimal digits only (no sign,
// blank, "+", hex or octal unless a caller documents them), an overflow check instead of a wrap, and a finite
// real in range (NaN and infinity refused). Header-only, standard library only, so the policies (host/gpu) and
// the tools (tool_cli.h) share it.
#ifndef STRATA_HOST_TOOL_NUMBERS_H_
#define STRATA_HOST_TOOL_NUMBERS_H_

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace strata::cli {

// Decimal digits only, the value within [min, max]; false (and *out untouched) for anything else, a value
// beyond 64 bits included.
inline bool ParseDecimal(std::string_view text, uint64_t min, uint64_t max, uint64_t* out) {
  if (text.empty()) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  if (v < min || v > max) return false;
  *out = v;
  return true;
}

// As ParseDecimal, with one optional leading '-' (for a documented negative value such as TF's -1).
inline bool ParseSignedDecimal(std::string_view text, int64_t min, int64_t max, int64_t* out) {
  const bool negative = !text.empty() && text[0] == '-';
  uint64_t magnitude = 0;
  const uint64_t limit = negative ? uint64_t{1} << 63 : static_cast<uint64_t>(INT64_MAX);
  if (!ParseDecimal(negative ? text.substr(1) : text, 0, limit, &magnitude)) return false;
  const int64_t v = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  if (v < min || v > max) return false;
  *out = v;
  return true;
}

// A decimal real: digits with at most one '.', and an optional exponent (e or E, an optional sign, digits);
// no leading sign, blank, hex float, "nan" or "inf". Finite and within [min, max].
inline bool ParseReal(std::string_view text, double min, double max, double* out) {
  size_t k = 0, digits = 0;
  while (k < text.size() && text[k] >= '0' && text[k] <= '9') ++k, ++digits;
  if (k < text.size() && text[k] == '.') {
    ++k;
    while (k < text.size() && text[k] >= '0' && text[k] <= '9') ++k, ++digits;
  }
  if (digits == 0) return false;
  if (k < text.size() && (text[k] == 'e' || text[k] == 'E')) {
    ++k;
    if (k < text.size() && (text[k] == '+' || text[k] == '-')) ++k;
    size_t exponent_digits = 0;
    while (k < text.size() && text[k] >= '0' && text[k] <= '9') ++k, ++exponent_digits;
    if (exponent_digits == 0) return false;
  }
  if (k != text.size()) return false;
  const std::string copy(text);
  const double v = std::strtod(copy.c_str(), nullptr);
  if (!std::isfinite(v) || !(v >= min && v <= max)) return false;
  *out = v;
  return true;
}

// a * b, or false when the product does not fit in 64 bits.
inline bool MultiplyChecked(uint64_t a, uint64_t b, uint64_t* out) {
  if (a != 0 && b > UINT64_MAX / a) return false;
  *out = a * b;
  return true;
}

}  // namespace strata::cli

#endif  // STRATA_HOST_TOOL_NUMBERS_H_
