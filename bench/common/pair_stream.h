// The steady-state alloc+free benchmark shared by bench/alloc (the firmware allocator's policies) and
// bench/gpu (the GPU framework policies beside it): with `live` buffers held, free a random one and allocate a
// random size (log-uniform 256 B .. 1 MiB), the same sizes and victims (seed 42) for every allocator.
#ifndef STRATA_BENCH_COMMON_PAIR_STREAM_H_
#define STRATA_BENCH_COMMON_PAIR_STREAM_H_

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace strata::bench {

struct PairStream {
  std::vector<uint64_t> sizes;
  std::vector<uint32_t> victims;
  explicit PairStream(uint32_t live) : sizes(1 << 16), victims(1 << 16) {
    std::mt19937_64 rng(42);
    for (uint64_t& s : sizes) s = static_cast<uint64_t>(std::exp2(8.0 + 12.0 * (rng() % 10000) / 10000.0));
    for (uint32_t& v : victims) v = live ? static_cast<uint32_t>(rng() % live) : 0;
  }
};

// ns per pair over `pairs` pairs after filling `live` buffers. `alloc(size)` returns a handle (0 = failed,
// counted in *failures), `release(handle)` frees it; everything still held is freed at the end (untimed).
template <typename Alloc, typename Release>
double TimePairs(uint32_t live, uint64_t pairs, Alloc alloc, Release release, uint64_t* failures) {
  const PairStream st(live);
  std::vector<uint64_t> hs(std::max<uint32_t>(live, 1), 0);
  for (uint32_t i = 0; i < live; ++i) hs[i] = alloc(st.sizes[i & 0xffff]);
  const auto t0 = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < pairs; ++i) {
    const uint64_t size = st.sizes[i & 0xffff];
    if (live == 0) {
      const uint64_t h = alloc(size);
      *failures += h == 0;
      if (h != 0) release(h);
    } else {
      uint64_t& slot = hs[st.victims[i & 0xffff]];
      if (slot != 0) release(slot);
      slot = alloc(size);
      *failures += slot == 0;
    }
  }
  const double ns =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 1e9 / static_cast<double>(pairs);
  for (uint64_t h : hs) {
    if (h != 0) release(h);
  }
  return ns;
}

}  // namespace strata::bench

#endif  // STRATA_BENCH_COMMON_PAIR_STREAM_H_
