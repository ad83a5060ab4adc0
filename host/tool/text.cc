// Text for people (see text.h).
#include "text.h"

#include <algorithm>
#include <cstdio>

namespace strata::tool {

std::string HumanBytes(uint64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", u == 0 ? 0 : 2, v);
  return std::string(buf) + " " + units[u];
}

std::string Printable(const std::string& text, size_t max_bytes) {
  std::string out;
  const size_t n = std::min(text.size(), max_bytes);
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return n < text.size() ? out + "..." : out;
}

}  // namespace strata::tool
