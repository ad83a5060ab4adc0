// Bit and integer helpers for the allocator: the freestanding rv32 toolchain has no <bit> or <algorithm>.
#ifndef STRATA_FW_ALLOC_BITS_H_
#define STRATA_FW_ALLOC_BITS_H_

#include <stdint.h>

namespace strata::alloc::bits {

// rv32im has no count-leading/trailing-zeros instruction: __builtin_clz/ctz become libgcc calls
// (__clzsi2/__ctzsi2, ~15 instructions plus the call). The software versions below are branchless
// and call nothing; hosts (and cores with Zbb) keep the builtins, which are one instruction there.
#if defined(__riscv) && !defined(__riscv_zbb)
#define STRATA_ALLOC_SOFT_BITS 1
#endif

namespace detail {
struct Log2ByteTable {
  uint8_t v[256];
  constexpr Log2ByteTable() : v() {
    for (uint32_t i = 2; i < 256; ++i) v[i] = static_cast<uint8_t>(v[i / 2] + 1);
  }
};
inline constexpr Log2ByteTable kLog2Byte{};  // floor(log2(i)) for i in [1, 255]
// The same minus a bias, so that Msb32Minus folds the subtraction into the table.
template <uint32_t kBias>
struct Log2ByteMinusTable {
  int8_t v[256];
  constexpr Log2ByteMinusTable() : v() {
    for (uint32_t i = 1; i < 256; ++i) v[i] = static_cast<int8_t>(static_cast<int32_t>(kLog2Byte.v[i]) - kBias);
  }
};
template <uint32_t kBias>
inline constexpr Log2ByteMinusTable<kBias> kLog2ByteMinus{};
// Position of the single set bit b, indexed by (b * 0x077CB531) >> 27 (a de Bruijn sequence).
inline constexpr uint8_t kDeBruijnBit[32] = {0,  1,  28, 2,  29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4,  8,
                                             31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6,  11, 5,  10, 9};
}  // namespace detail

// Index of the most significant set bit; x must be nonzero.
inline uint32_t Msb32(uint32_t x) {
#ifdef STRATA_ALLOC_SOFT_BITS
  const uint32_t a = static_cast<uint32_t>((x >> 16) != 0) << 4;  // branchless binary search, then a byte table
  x >>= a;
  const uint32_t b = static_cast<uint32_t>((x >> 8) != 0) << 3;
  x >>= b;
  return a + b + detail::kLog2Byte.v[x];
#else
  return 31u - static_cast<uint32_t>(__builtin_clz(x));
#endif
}

// Msb32(x) - kBias, one instruction shorter on rv32 (the bias is in the table); x must be nonzero.
template <uint32_t kBias>
inline uint32_t Msb32Minus(uint32_t x) {
#ifdef STRATA_ALLOC_SOFT_BITS
  const uint32_t a = static_cast<uint32_t>((x >> 16) != 0) << 4;
  x >>= a;
  const uint32_t b = static_cast<uint32_t>((x >> 8) != 0) << 3;
  x >>= b;
  return a + b + static_cast<uint32_t>(static_cast<int32_t>(detail::kLog2ByteMinus<kBias>.v[x]));
#else
  return 31u - kBias - static_cast<uint32_t>(__builtin_clz(x));
#endif
}

// Index of the least significant set bit; x must be nonzero.
inline uint32_t Lsb32(uint32_t x) {
#ifdef STRATA_ALLOC_SOFT_BITS
  return detail::kDeBruijnBit[((x & (0u - x)) * 0x077CB531u) >> 27];  // one multiply (3 cycles), one load
#else
  return static_cast<uint32_t>(__builtin_ctz(x));
#endif
}

// Split into 32-bit halves so rv32 never needs a 64-bit helper.
inline uint32_t Msb64(uint64_t x) {
  const uint32_t hi = static_cast<uint32_t>(x >> 32);
  if (hi != 0) return 32u + Msb32(hi);
  return Msb32(static_cast<uint32_t>(x));
}

inline uint32_t Lsb64(uint64_t x) {
  const uint32_t lo = static_cast<uint32_t>(x);
  if (lo != 0) return Lsb32(lo);
  return 32u + Lsb32(static_cast<uint32_t>(x >> 32));
}

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

// (x + 2^s - 1) >> s truncated to 32 bits, for s < 32 and a result known to fit 32 bits: on rv32 two
// 32-bit shifts instead of a 64-bit one (and no branch for s == 0).
inline uint32_t ShrRoundUpTo32(uint64_t x, uint32_t s) {
  x += (1u << s) - 1u;
  if constexpr (sizeof(void*) == 4) {
    const uint32_t lo = static_cast<uint32_t>(x), hi = static_cast<uint32_t>(x >> 32);
    return (lo >> s) | ((hi << 1) << (31 - s));
  } else {
    return static_cast<uint32_t>(x >> s);
  }
}

// uint64_t{x} << s for s < 32, without a 64-bit shift (or a libgcc call) on rv32.
inline uint64_t WideShl32(uint32_t x, uint32_t s) {
  if constexpr (sizeof(void*) == 4) {
    return (static_cast<uint64_t>((x >> 1) >> (31 - s)) << 32) | (x << s);
  } else {
    return static_cast<uint64_t>(x) << s;
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
