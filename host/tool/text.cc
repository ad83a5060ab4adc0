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

std::string CsvText(const std::string& text) {
  std::string q = "\"";
  if (!text.empty() && std::string("=+-@\t\r").find(text[0]) != std::string::npos) q += '\'';
  for (char c : text) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

namespace {

// The length of the valid UTF-8 sequence at text[i] (1 to 4) and its code point, or 0 when the bytes there are
// not one (a stray continuation byte, a truncated or overlong sequence, a surrogate, beyond U+10FFFF).
size_t Utf8At(const std::string& text, size_t i, uint32_t* cp) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80) {
    *cp = b0;
    return 1;
  }
  size_t n;
  uint32_t min;
  if ((b0 & 0xe0) == 0xc0) {
    n = 2, min = 0x80, *cp = b0 & 0x1f;
  } else if ((b0 & 0xf0) == 0xe0) {
    n = 3, min = 0x800, *cp = b0 & 0x0f;
  } else if ((b0 & 0xf8) == 0xf0) {
    n = 4, min = 0x10000, *cp = b0 & 0x07;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
    *cp = (*cp << 6) | (byte(i + k) & 0x3f);
  }
  if (*cp < min || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff)) return 0;
  return n;
}

}  // namespace

std::string XmlText(const std::string& text) {
  static const char kReplacement[] = "\xef\xbf\xbd";  // U+FFFD
  std::string out;
  for (size_t i = 0; i < text.size();) {
    uint32_t cp = 0;
    const size_t n = Utf8At(text, i, &cp);
    if (n == 0 || (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0xfffe || cp == 0xffff) {
      out += kReplacement;
      i += n == 0 ? 1 : n;
      continue;
    }
    switch (cp) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out.append(text, i, n);
    }
    i += n;
  }
  return out;
}

}  // namespace strata::tool
