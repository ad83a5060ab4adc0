// A context's memory quota: one rule for the runtime firmware, the host driver's GPU backends and strata-compare's
// tenants (docs/runtime.md, contexts). C and C++, freestanding: integers only.
#ifndef STRATA_QUOTA_H_
#define STRATA_QUOTA_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// The quota of a context opened with quota_bytes, or else quota_ppm millionths of `memory_bytes` (the device's
// memory, or the runtime's heap), rounded down; 0 when neither was asked for. Exact for any 64-bit memory size
// (floor(memory * ppm / 1e6) computed without the product, which could wrap); quota_ppm <= 1,000,000. The runtime
// firmware computes heap * ppm / 1e6 directly, the same value for any heap below 2^44 (test host.core.Quota.*), so
// that its code and cycle counts stay as measured.
static inline uint64_t strata_quota_bytes(uint64_t quota_bytes, uint32_t quota_ppm, uint64_t memory_bytes) {
  if (quota_bytes != 0) return quota_bytes;
  const uint64_t million = 1000000u;
  return memory_bytes / million * quota_ppm + memory_bytes % million * quota_ppm / million;
}

// Whether a context with `in_use` bytes (never above its quota) may take `bytes` more (as the device counts them:
// rounded to its granule or page): the difference is compared, so no sum can wrap.
static inline int strata_quota_admits(uint64_t quota, uint64_t in_use, uint64_t bytes) {
  return bytes <= quota - in_use;
}

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // STRATA_QUOTA_H_
