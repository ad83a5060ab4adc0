// Bit and integer helpers for the allocator: the freestanding rv32 toolchain has no <bit> or <algorithm>.
#ifndef STRATA_FW_ALLOC_BITS_H_
#define STRATA_FW_ALLOC_BITS_H_

#include <stdint.h>

namespace strata::alloc::bits {

// Index of the most significant set bit; x must be nonzero. Split into 32-bit halves so rv32 never
// needs a 64-bit count-leading-zeros helper.
inline uint32_t Msb64(uint64_t x) {
  const uint32_t hi = static_cast<uint32_t>(x >> 32);
  if (hi != 0) return 63u - static_cast<uint32_t>(__builtin_clz(hi));
  return 31u - static_cast<uint32_t>(__builtin_clz(static_cast<uint32_t>(x)));
}

// Index of the least significant set bit; x must be nonzero.
inline uint32_t Lsb64(uint64_t x) {
  const uint32_t lo = static_cast<uint32_t>(x);
  if (lo != 0) return static_cast<uint32_t>(__builtin_ctz(lo));
  return 32u + static_cast<uint32_t>(__builtin_ctz(static_cast<uint32_t>(x >> 32)));
}

inline uint32_t Lsb32(uint32_t x) { return static_cast<uint32_t>(__builtin_ctz(x)); }

// 64-bit shifts by a variable amount: on rv32 the compiler calls libgcc (__lshrdi3/__ashldi3) for these;
// the allocator's amounts are almost always below 32, so two 32-bit shifts inline are cheaper.
inline uint64_t Shr64(uint64_t x, uint32_t s) {
  if constexpr (sizeof(void*) == 4) {
    const uint32_t lo = static_cast<uint32_t>(x), hi = static_cast<uint32_t>(x >> 32);
    if (s == 0) return x;
    if (s < 32) return (static_cast<uint64_t>(hi >> s) << 32) | ((lo >> s) | (hi << (32 - s)));
    return hi >> (s - 32);
  } else {
    return x >> s;
  }
}
inline uint64_t Shl64(uint64_t x, uint32_t s) {
  if constexpr (sizeof(void*) == 4) {
    const uint32_t lo = static_cast<uint32_t>(x), hi = static_cast<uint32_t>(x >> 32);
    if (s == 0) return x;
    if (s < 32) return (static_cast<uint64_t>((hi << s) | (lo >> (32 - s))) << 32) | (lo << s);
    return static_cast<uint64_t>(lo << (s - 32)) << 32;
  } else {
    return x << s;
  }
}

constexpr bool IsPowerOfTwo(uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

constexpr uint32_t Log2Exact(uint64_t pow2) {
  uint32_t n = 0;
  while ((pow2 >> n) > 1) ++n;
  return n;
}

// Rounds x up to a multiple of the power of two `align`; callers keep x + align below 2^64.
constexpr uint64_t AlignUp(uint64_t x, uint64_t align) { return (x + align - 1) & ~(align - 1); }

template <typename T>
constexpr T Min(T a, T b) {
  return a < b ? a : b;
}
template <typename T>
constexpr T Max(T a, T b) {
  return a < b ? b : a;
}

}  // namespace strata::alloc::bits

#endif  // STRATA_FW_ALLOC_BITS_H_
