// memcpy/memset/memmove/memcmp for the freestanding image: GCC emits calls to these itself.
#include <stddef.h>
#include <stdint.h>

extern "C" {

void* memcpy(void* dst, const void* src, size_t n) {
  auto* d = static_cast<uint8_t*>(dst);
  const auto* s = static_cast<const uint8_t*>(src);
  // Word copies when both sides are aligned: the core has no misaligned access.
  if (((reinterpret_cast<uintptr_t>(d) | reinterpret_cast<uintptr_t>(s)) & 3) == 0) {
    for (; n >= 4; n -= 4, d += 4, s += 4) {
      *reinterpret_cast<uint32_t*>(d) = *reinterpret_cast<const uint32_t*>(s);
    }
  }
  while (n--) *d++ = *s++;
  return dst;
}

void* memset(void* dst, int c, size_t n) {
  auto* d = static_cast<uint8_t*>(dst);
  const uint8_t b = static_cast<uint8_t>(c);
  while (n && (reinterpret_cast<uintptr_t>(d) & 3)) {
    *d++ = b;
    --n;
  }
  const uint32_t w = b * 0x01010101u;
  for (; n >= 4; n -= 4, d += 4) *reinterpret_cast<uint32_t*>(d) = w;
  while (n--) *d++ = b;
  return dst;
}

void* memmove(void* dst, const void* src, size_t n) {
  auto* d = static_cast<uint8_t*>(dst);
  const auto* s = static_cast<const uint8_t*>(src);
  if (d == s || n == 0) return dst;
  if (d < s || d >= s + n) return memcpy(dst, src, n);
  while (n--) d[n] = s[n];  // overlapping, destination above source: copy backwards
  return dst;
}

int memcmp(const void* a, const void* b, size_t n) {
  const auto* x = static_cast<const uint8_t*>(a);
  const auto* y = static_cast<const uint8_t*>(b);
  for (size_t i = 0; i < n; ++i) {
    if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
  }
  return 0;
}

}  // extern "C"
