// JSON lines (see json_lines.h).
#include "json_lines.h"

#include <cmath>
#include <cstdio>

namespace strata::tool {

std::string JsonLine(const Json& value) { return value.dump(-1, ' ', false, Json::error_handler_t::replace); }

void PrintJsonLine(const Json& value) {
  std::printf("%s\n", JsonLine(value).c_str());
  std::fflush(stdout);
}

double JsonRound(double x, int digits) {
  const double scale = std::pow(10.0, digits);
  return std::round(x * scale) / scale;
}

std::string JsonEscape(const std::string& s) {
  const std::string quoted = JsonLine(Json(s));
  return quoted.substr(1, quoted.size() - 2);
}

}  // namespace strata::tool
