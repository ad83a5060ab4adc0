// Console driver and a freestanding printf (no C library on the device).
#include "drivers/console.h"

#include <stddef.h>

#include "hal/mmio.h"
#include "strata/regmap.h"

namespace strata::console {
namespace {

constexpr hal::MmioRegion kCtrl(STRATA_CTRL_BASE);

// Output sink: either the console register or a bounded buffer.
struct Sink {
  char* buf;
  uint32_t size;
  uint32_t len;
  void Put(char c) {
    if (buf == nullptr) {
      kCtrl.Write32(STRATA_CTRL_CONSOLE_TX, static_cast<uint8_t>(c));
    } else if (len + 1 < size) {
      buf[len] = c;
    }
    ++len;
  }
};

void PutUnsigned(Sink& out, uint64_t v, unsigned base, bool upper, int width, char pad, bool neg) {
  char digits[24];
  int n = 0;
  const char* set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  do {
    // 64-bit division on rv32 goes through libgcc's __udivdi3; base is small, so split to keep
    // the common 32-bit case fast.
    if (v <= 0xffffffffu) {
      const uint32_t v32 = static_cast<uint32_t>(v);
      digits[n++] = set[v32 % base];
      v = v32 / base;
    } else {
      digits[n++] = set[v % base];
      v /= base;
    }
  } while (v != 0);
  int total = n + (neg ? 1 : 0);
  if (neg && pad == '0') out.Put('-');
  for (; total < width; ++total) out.Put(pad);
  if (neg && pad != '0') out.Put('-');
  while (n > 0) out.Put(digits[--n]);
}

void Format(Sink& out, const char* fmt, va_list args) {
  for (const char* p = fmt; *p != '\0'; ++p) {
    if (*p != '%') {
      out.Put(*p);
      continue;
    }
    ++p;
    char pad = ' ';
    int width = 0;
    bool left = false;
    for (;; ++p) {
      if (*p == '-') {
        left = true;
      } else if (*p == '0') {
        pad = '0';
      } else {
        break;
      }
    }
    if (left) pad = ' ';  // '-' overrides '0'
    const uint32_t start = out.len;
    while (*p >= '0' && *p <= '9') width = width * 10 + (*p++ - '0');
    int longs = 0;
    while (*p == 'l') {
      ++longs;
      ++p;
    }
    if (*p == 'z') ++p;  // size_t is 32-bit on rv32 and handled as unsigned long below
    switch (*p) {
      case 'd':
      case 'i': {
        int64_t v = longs >= 2 ? va_arg(args, long long) : longs == 1 ? va_arg(args, long) : va_arg(args, int);
        const bool neg = v < 0;
        PutUnsigned(out, neg ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v), 10, false, left ? 0 : width,
                    pad, neg);
        break;
      }
      case 'u':
      case 'x':
      case 'X': {
        uint64_t v = longs >= 2   ? va_arg(args, unsigned long long)
                     : longs == 1 ? va_arg(args, unsigned long)
                                  : va_arg(args, unsigned);
        PutUnsigned(out, v, *p == 'u' ? 10 : 16, *p == 'X', left ? 0 : width, pad, false);
        break;
      }
      case 'p':
        out.Put('0');
        out.Put('x');
        PutUnsigned(out, reinterpret_cast<uintptr_t>(va_arg(args, void*)), 16, false, 0, ' ', false);
        break;
      case 'c':
        out.Put(static_cast<char>(va_arg(args, int)));
        break;
      case 's': {
        const char* s = va_arg(args, const char*);
        if (s == nullptr) s = "(null)";
        int len = 0;
        while (s[len] != '\0') ++len;
        for (; !left && len < width; ++len) out.Put(' ');
        while (*s != '\0') out.Put(*s++);
        break;
      }
      case '%':
        out.Put('%');
        break;
      case '\0':
        return;
      default:  // unknown conversion: print it verbatim so the mistake is visible
        out.Put('%');
        out.Put(*p);
        break;
    }
    if (left) {
      for (int written = static_cast<int>(out.len - start); written < width; ++written) out.Put(' ');
    }
  }
}

}  // namespace

void PutChar(char c) { kCtrl.Write32(STRATA_CTRL_CONSOLE_TX, static_cast<uint8_t>(c)); }

void Puts(const char* s) {
  while (*s != '\0') PutChar(*s++);
}

void VPrintf(const char* fmt, va_list args) {
  Sink out{nullptr, 0, 0};
  Format(out, fmt, args);
}

void Printf(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  VPrintf(fmt, args);
  va_end(args);
}

int SNPrintf(char* buf, uint32_t size, const char* fmt, ...) {
  Sink out{buf, size, 0};
  va_list args;
  va_start(args, fmt);
  Format(out, fmt, args);
  va_end(args);
  if (size > 0) buf[out.len < size ? out.len : size - 1] = '\0';
  return static_cast<int>(out.len);
}

}  // namespace strata::console
