// Differential test of BfcAllocator against a second, deliberately simple BFC written here from the
// BFC's rules (docs/gpu-policies.md, "The BFC's rules, by source"): a flat, address-sorted chunk vector, bins found by
// brute force, no maps or sets. Random request streams over many seeds; after every operation both must return the same
// address and agree on every statistic and on the whole chunk layout.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "bfc_allocator.h"
#include "emu_gpu.h"

namespace strata::gpu {
namespace {

constexpr uint64_t kMiB = 1ull << 20;

uint64_t Round256(uint64_t x) { return (x + 255) / 256 * 256; }
int Bin(uint64_t size) {
  // The bin is the largest b with 256 << b <= max(size, 256), at most 20, found by counting.
  int b = 0;
  while (b < 20 && (256ull << (b + 1)) <= std::max<uint64_t>(size, 256)) ++b;
  return b;
}

class SimpleBfc {
 public:
  struct C {
    uint64_t ptr, size, requested, region;
    bool used;
  };
  SimpleBfc(GpuDriver& d, uint64_t limit, const BfcOptions& o) : d_(d), o_(o), limit_(limit) {
    region_ = o.initial_region_bytes ? Round256(o.initial_region_bytes)
              : o.allow_growth       ? Round256(std::min<uint64_t>(limit, 2 * kMiB))
                                     : Round256(limit);
  }
  ~SimpleBfc() {
    for (auto& r : regions_) d_.Free(r.first);
  }

  uint64_t Alloc(uint64_t align, uint64_t n) {
    align = std::max<uint64_t>(align, 256);
    uint64_t p = Try(align, n);
    if (p == 0 && n != 0 && o_.allow_retry_on_failure) {
      ++retries;  // three more tries: the retry helper's, before and after its wait, and its last
      for (int k = 0; k < 3 && p == 0; ++k) p = Try(align, n);
    }
    return p;
  }

  void Free(uint64_t p) {
    size_t i = Index(p);
    chunks[i].used = false;
    in_use -= chunks[i].size;
    requested -= chunks[i].requested;
    chunks[i].requested = 0;
    // Next neighbour first, then previous (same region only).
    if (i + 1 < chunks.size() && !chunks[i + 1].used && chunks[i + 1].region == chunks[i].region) {
      chunks[i].size += chunks[i + 1].size;
      chunks.erase(chunks.begin() + i + 1);
    }
    if (i > 0 && !chunks[i - 1].used && chunks[i - 1].region == chunks[i].region) {
      chunks[i - 1].size += chunks[i].size;
      chunks.erase(chunks.begin() + i);
    }
  }

  uint64_t Largest() const {
    uint64_t m = 0;
    for (const C& c : chunks) {
      if (!c.used) m = std::max(m, c.size);
    }
    return m;
  }

  std::vector<C> chunks;  // sorted by ptr
  std::vector<std::pair<uint64_t, uint64_t>> regions_;
  uint64_t in_use = 0, peak = 0, pool = 0, peak_pool = 0, allocs = 0, largest_alloc = 0, requested = 0;
  uint64_t retries = 0;

 private:
  size_t Index(uint64_t p) const {
    for (size_t i = 0; i < chunks.size(); ++i) {
      if (chunks[i].ptr == p) return i;
    }
    ADD_FAILURE() << "no chunk at " << p;
    return 0;
  }

  uint64_t Find(uint64_t rounded, uint64_t n, uint64_t align) {
    // Every free chunk in bin >= Bin(rounded), ordered by (bin, size, ptr); the first that fits wins.
    std::vector<size_t> cand;
    for (size_t i = 0; i < chunks.size(); ++i) {
      if (!chunks[i].used && Bin(chunks[i].size) >= Bin(rounded)) cand.push_back(i);
    }
    std::sort(cand.begin(), cand.end(), [&](size_t a, size_t b) {
      const C &x = chunks[a], &y = chunks[b];
      if (Bin(x.size) != Bin(y.size)) return Bin(x.size) < Bin(y.size);
      if (x.size != y.size) return x.size < y.size;
      return x.ptr < y.ptr;
    });
    for (size_t i : cand) {
      const uint64_t aligned = (chunks[i].ptr + align - 1) / align * align;
      const uint64_t pad = Round256(aligned - chunks[i].ptr);
      if (chunks[i].size < rounded + pad) continue;
      if (pad > 0) {  // the prefix stays free
        C rest = chunks[i];
        rest.ptr += pad;
        rest.size -= pad;
        chunks[i].size = pad;
        chunks.insert(chunks.begin() + i + 1, rest);
        ++i;
      }
      const uint64_t threshold =
          o_.fragmentation_fraction > 0 ? static_cast<uint64_t>(o_.fragmentation_fraction * limit_) : 128 * kMiB;
      if (chunks[i].size >= 2 * rounded || chunks[i].size - rounded >= threshold) {
        C tail = chunks[i];
        tail.ptr += rounded;
        tail.size -= rounded;
        chunks[i].size = rounded;
        chunks.insert(chunks.begin() + i + 1, tail);
      }
      chunks[i].used = true;
      chunks[i].requested = n;
      ++allocs;
      in_use += chunks[i].size;
      requested += n;
      peak = std::max(peak, in_use);
      largest_alloc = std::max(largest_alloc, chunks[i].size);
      return chunks[i].ptr;
    }
    return 0;
  }

  bool Extend(uint64_t rounded) {
    uint64_t avail = limit_ > pool ? (limit_ - pool) / 256 * 256 : 0;
    if (rounded > avail) return false;
    bool grew = false;
    while (rounded > region_) {
      region_ *= 2;
      grew = true;
    }
    uint64_t bytes = std::min(region_, avail);
    uint64_t va = d_.Malloc(bytes);
    while (va == 0) {
      const uint64_t smaller = Round256(static_cast<uint64_t>(static_cast<float>(bytes) * 0.9f));
      bytes = smaller < bytes ? smaller : bytes - 256;  // below 2560 B: 256 B at a time
      if (bytes < rounded) return false;
      va = d_.Malloc(bytes);
    }
    if (!grew) region_ *= 2;
    const uint64_t got = bytes;  // the sub-allocator reports what it asked for, not the driver's pages
    pool += got;
    peak_pool = std::max(peak_pool, pool);
    regions_.push_back({va, got});
    C c{va, got, 0, va, false};
    chunks.insert(
        std::upper_bound(chunks.begin(), chunks.end(), c, [](const C& a, const C& b) { return a.ptr < b.ptr; }), c);
    return true;
  }

  bool Gc(uint64_t rounded) {
    if (!o_.garbage_collection) return false;
    std::vector<uint64_t> dead;
    uint64_t freed = 0;
    for (auto& [r, size] : regions_) {
      bool used = false;
      for (const C& c : chunks) used = used || (c.region == r && c.used);
      if (!used) {
        dead.push_back(r);
        freed += size;
      }
    }
    if (freed == 0 || rounded + pool > limit_ + freed) return false;
    for (uint64_t r : dead) {
      std::erase_if(chunks, [r](const C& c) { return c.region == r; });
      for (size_t i = 0; i < regions_.size(); ++i) {
        if (regions_[i].first == r) {
          pool -= regions_[i].second;
          regions_.erase(regions_.begin() + i);
          break;
        }
      }
      d_.Free(r);
    }
    return true;
  }

  uint64_t Try(uint64_t align, uint64_t n) {
    if (n == 0) return 0;
    const uint64_t rounded = Round256(n);
    if (uint64_t p = Find(rounded, n, align)) return p;
    if (Extend(rounded)) {
      if (uint64_t p = Find(rounded, n, align)) return p;
    }
    if (Gc(rounded) && Extend(rounded)) {
      if (uint64_t p = Find(rounded, n, align)) return p;
    }
    return 0;
  }

  GpuDriver& d_;
  BfcOptions o_;
  uint64_t limit_, region_;
};

struct Scenario {
  uint64_t device_bytes, limit;
  BfcOptions opts;
};

Scenario ScenarioFor(uint32_t seed) {
  std::mt19937_64 rng(seed * 7919u + 1);
  Scenario s;
  s.device_bytes = (64 + rng() % 448) * kMiB;  // 64..511 MiB
  switch (seed % 4) {
    case 0:  // JAX-like fixed pool below the device
      s.opts.allow_growth = false;
      s.limit = s.device_bytes * 3 / 4;
      break;
    case 1:  // growth, no GC, limit above the device (back-pedalling)
      s.opts.allow_growth = true;
      s.limit = s.device_bytes + s.device_bytes / 2;
      break;
    case 2:  // TF growth with GC
      s.opts.allow_growth = true;
      s.opts.garbage_collection = true;
      s.limit = s.device_bytes - 16 * kMiB;
      break;
    default:  // fixed above the device (first region back-pedals), small split threshold, no retry
      s.opts.allow_growth = false;
      s.opts.garbage_collection = true;
      s.opts.fragmentation_fraction = 0.01;
      s.opts.allow_retry_on_failure = false;
      s.limit = s.device_bytes * 2;
      break;
  }
  if (seed % 5 == 4) s.opts.initial_region_bytes = 24 * kMiB + 512;
  return s;
}

class BfcDifferential : public ::testing::TestWithParam<uint32_t> {};

TEST_P(BfcDifferential, SameAddressesAndStatsAfterEveryOp) {
  const uint32_t seed = GetParam();
  const Scenario sc = ScenarioFor(seed);
  GpuSpec spec;
  spec.total_bytes = sc.device_bytes;
  spec.context_bytes = 0;
  EmuGpu gpu_a(spec), gpu_b(spec);
  BfcAllocator real(gpu_a, sc.limit, "GPU_0_bfc", sc.opts);
  SimpleBfc model(gpu_b, sc.limit, sc.opts);

  std::mt19937_64 rng(seed);
  std::vector<uint64_t> live;
  uint64_t ooms = 0;
  for (int op = 0; op < 1500; ++op) {
    const bool alloc = live.empty() || rng() % 100 < 55;
    if (alloc) {
      // Log-uniform sizes from 1 B to 64 MiB, some exact powers of two, some zero.
      const int bits = static_cast<int>(rng() % 27);
      uint64_t n = (1ull << bits) + (rng() % 3 == 0 ? 0 : rng() % (1ull << bits));
      if (rng() % 200 == 0) n = 0;
      const uint64_t align = rng() % 8 == 0 ? (256ull << (rng() % 6)) : 0;
      const uint64_t a = real.AllocateRaw(align, n);
      const uint64_t b = model.Alloc(align, n);
      ASSERT_EQ(a, b) << "seed " << seed << " op " << op << " alloc " << n << " align " << align;
      if (a != 0) {
        live.push_back(a);
        if (align != 0) {
          ASSERT_EQ(a % align, 0u);
        }
      } else if (n != 0) {
        ++ooms;
      }
    } else {
      const size_t i = rng() % live.size();
      ASSERT_TRUE(real.DeallocateRaw(live[i]));
      model.Free(live[i]);
      live[i] = live.back();
      live.pop_back();
    }
    const BfcStats s = real.GetStats();
    ASSERT_EQ(s.bytes_in_use, model.in_use) << "seed " << seed << " op " << op;
    ASSERT_EQ(s.peak_bytes_in_use, model.peak);
    ASSERT_EQ(s.pool_bytes, model.pool);
    ASSERT_EQ(s.peak_pool_bytes, model.peak_pool);
    ASSERT_EQ(s.num_allocs, model.allocs);
    ASSERT_EQ(s.largest_alloc_size, model.largest_alloc);
    ASSERT_EQ(s.largest_free_block_bytes, model.Largest());
    ASSERT_EQ(s.requested_bytes, model.requested);
    ASSERT_EQ(real.retries(), model.retries);
    const std::vector<BfcChunkInfo> chunks = real.Chunks();
    ASSERT_EQ(chunks.size(), model.chunks.size()) << "seed " << seed << " op " << op;
    for (size_t i = 0; i < chunks.size(); ++i) {
      ASSERT_EQ(chunks[i].ptr, model.chunks[i].ptr);
      ASSERT_EQ(chunks[i].size, model.chunks[i].size);
      ASSERT_EQ(chunks[i].in_use, model.chunks[i].used);
      ASSERT_EQ(chunks[i].region, model.chunks[i].region);
    }
    std::string why;
    ASSERT_TRUE(real.CheckInvariants(&why)) << why << " seed " << seed << " op " << op;
    ASSERT_EQ(gpu_a.used_pages(), gpu_b.used_pages());
  }
  // Each scenario must reach the interesting paths at least sometimes; recorded, not required per seed.
  RecordProperty("ooms", static_cast<int>(ooms));
}

INSTANTIATE_TEST_SUITE_P(Seeds, BfcDifferential, ::testing::Range(1u, 33u));

// The random streams above must actually exercise OOMs, GC and back-pedalling across the seed set.
TEST(BfcDifferentialCoverage, StreamsReachTheFailurePaths) {
  uint64_t ooms = 0, gcs = 0, backpedals = 0;
  for (uint32_t seed = 1; seed < 33; ++seed) {
    const Scenario sc = ScenarioFor(seed);
    GpuSpec spec;
    spec.total_bytes = sc.device_bytes;
    spec.context_bytes = 0;
    EmuGpu gpu(spec);
    BfcAllocator real(gpu, sc.limit, "GPU_0_bfc", sc.opts);
    std::mt19937_64 rng(seed);
    std::vector<uint64_t> live;
    for (int op = 0; op < 1500; ++op) {
      if (live.empty() || rng() % 100 < 55) {
        const int bits = static_cast<int>(rng() % 27);
        uint64_t n = (1ull << bits) + (rng() % 3 == 0 ? 0 : rng() % (1ull << bits));
        if (rng() % 200 == 0) n = 0;
        const uint64_t align = rng() % 8 == 0 ? (256ull << (rng() % 6)) : 0;
        const uint64_t a = real.AllocateRaw(align, n);
        if (a != 0) live.push_back(a);
        if (a == 0 && n != 0) ++ooms;
      } else {
        const size_t i = rng() % live.size();
        real.DeallocateRaw(live[i]);
        live[i] = live.back();
        live.pop_back();
      }
    }
    gcs += real.garbage_collections();
    backpedals += gpu.counters().failed_device_allocs;
  }
  EXPECT_GT(ooms, 0u);
  EXPECT_GT(gcs, 0u);
  EXPECT_GT(backpedals, 0u);
}

}  // namespace
}  // namespace strata::gpu
