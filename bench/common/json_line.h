// The benchmarks' result lines: one JSON object per line on stdout, built with nlohmann-json (keys in the order
// written, strings escaped, never a malformed line), flushed at once so a long run shows its results as they come.
#ifndef STRATA_BENCH_COMMON_JSON_LINE_H_
#define STRATA_BENCH_COMMON_JSON_LINE_H_

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace strata::bench {

using Json = nlohmann::ordered_json;

// x to `digits` decimals (nlohmann-json then prints the shortest text for it). Counts stay integers: a rate printed
// without decimals before is std::llround'ed by the caller.
inline double Round(double x, int digits) {
  const double scale = std::pow(10.0, digits);
  return std::round(x * scale) / scale;
}

inline void PrintJsonLine(const Json& line) {
  std::printf("%s\n", line.dump(-1, ' ', false, Json::error_handler_t::replace).c_str());
  std::fflush(stdout);
}

}  // namespace strata::bench

#endif  // STRATA_BENCH_COMMON_JSON_LINE_H_
