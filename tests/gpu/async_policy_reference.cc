// TEST-ONLY REFERENCE: the cudaMallocAsync pool model ("jax-async", "tf-async") exactly as host/gpu/async_policy.cc
// was before issue [Q] item 4 ("fast at any size") gave it an index of the pool's holes. Frozen: do not edit or
// "fix" it; tests/gpu/async_differential_test.cc asserts that the indexed implementation makes the same
// decisions (addresses, failures, OOM reports, statistics, driver calls) as this one, event by event. Its costs
// are what the index removed: a first fit that walks every hole of every partly used page, and a largest free
// block (every Stats()) that walks them again.
//
// Only the pool is frozen here: its settings come from host/gpu's ResolveAsyncSettings, as the indexed pool's do.
// The original header comment follows.
//
// The cudaMallocAsync policies "jax-async" (XLA_PYTHON_CLIENT_ALLOCATOR=cuda_async, reference
// docs/gpu-policies.md P2) and "tf-async" (TF_GPU_ALLOCATOR=cuda_malloc_async, P3): XLA's
// GpuCudaMallocAsyncAllocator (xla/stream_executor/gpu/gpu_cudamallocasync_allocator.cc) over the device's
// default memory pool, with the pool itself as a PAGE-LEVEL MODEL (P4).
//
// What the pool does inside is undocumented (driver-internal). The model, labelled "model" wherever it
// shows:
//  * Requests round up to 512 B (model; the driver's real granularity is unknown, 256 B is guaranteed).
//  * The pool's physical memory is whole driver pages (the granule). Physical pages are mapped with
//    driver.Map into VA that this policy reserves in chunks with ReserveVa; VA is handed out by a bump
//    pointer and never reused (there are 2^47 bytes of it, as PyTorch notes "256TiB of address space").
//  * A request of at least a page gets fresh VA of ceil(r / page) pages. Cached free pages of the pool are
//    "remapped" there (Unmap at their old VA, then Map at the new one) before new pages are taken from the
//    driver: the driver "defragments the pool by remapping unused memory in the pool to a contiguous
//    portion of the GPU's virtual address space" (NVIDIA, quoted in pytorch#110194). Its last page keeps
//    the unused tail for sub-page requests.
//  * A request below a page is packed first-fit into the holes of partly used pages, else takes a cached
//    free page, else a new page. A page becomes a cached free page when its last allocation goes.
//  * So an allocation succeeds whenever its pages are covered by the pool's free pages plus the driver's
//    free pages (sub-page requests also by holes). Holes inside partly used pages never serve a request
//    of a page or more: that, and nothing else, is the model's fragmentation. The real driver can still
//    fail where this model succeeds (rapidsai/rmm#1245), so OOMs here are a lower bound.
//  * Release threshold: at synchronisation points the pool unmaps cached free pages while it holds more
//    than the threshold. Synchronisation points are ReleaseCache() and the OOM path's stream sync; a replay
//    that wants per-step syncs calls ReleaseCache() (a trace carries no syncs).
//  * No hard cap: the default pool has no maxSize, the fraction only sets threshold and bytes_limit.
//  * One stream: cross-stream reuse rules (REUSE_ALLOW_OPPORTUNISTIC, TF_DETERMINISTIC_ALLOCATOR) do not
//    arise.
#include "async_policy_reference.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>

namespace strata::gpu::pre_q_reference {
namespace {

constexpr uint64_t kRound = 512;  // model

uint64_t RoundUp(uint64_t x, uint64_t m) { return (x + m - 1) / m * m; }

class AsyncPoolPolicy final : public Policy {
 public:
  AsyncPoolPolicy(GpuDriver& driver, AsyncSettings settings)
      : driver_(driver), s_(std::move(settings)), page_(driver.page_bytes()) {
    // The constructor's preallocation (gpu_cudamallocasync_allocator.cc, P2): one allocation of the
    // whole amount, then a free, so the pool keeps it (the threshold is at least as large), then
    // ClearStats(). A failure here is what the real allocator logs and ignores.
    if (s_.prealloc_bytes > 0) {
      Oom ignored;
      const uint64_t ptr = Allocate(s_.prealloc_bytes, 0, &ignored);
      if (ptr != 0) Deallocate(ptr);
      num_failed_ = oom_capacity_ = oom_fragmentation_ = retries_ = 0;
      num_frees_ = 0;
      ResetPeak();
      peak_pool_bytes_ = PoolBytes();
    }
  }
  ~AsyncPoolPolicy() override {
    for (const auto& [va, page] : pages_) driver_.Unmap(va, page_);
  }

  const char* name() const override { return s_.name.c_str(); }

  uint64_t Allocate(uint64_t bytes, uint64_t alignment, Oom* oom) override {
    if (bytes == 0) {
      if (oom != nullptr) *oom = Oom{};
      return 0;
    }
    const uint64_t align = std::max<uint64_t>(alignment, kRound);
    const uint64_t rounded = RoundUp(bytes, kRound);
    // AllocateRaw(): cuMemAllocFromPoolAsync; on CUDA_ERROR_OUT_OF_MEMORY cuStreamSynchronize ("gives the
    // driver more flexibility for blocks coalescing and doing memory remapping") and one retry.
    uint64_t va = Place(rounded, align);
    if (va == 0) {
      driver_.StreamSynchronize();
      Trim();  // a synchronisation point
      ++retries_;
      ++driver_.counters().retries;
      va = Place(rounded, align);
    }
    if (va == 0) {
      FillOom(bytes, rounded, oom);
      return 0;
    }
    live_[va] = {rounded, bytes};
    used_rounded_ += rounded;
    bytes_in_use_ += bytes;  // XLA counts the request as asked (stats_.bytes_in_use += num_bytes)
    peak_bytes_in_use_ = std::max(peak_bytes_in_use_, bytes_in_use_);
    largest_alloc_ = std::max(largest_alloc_, bytes);
    ++num_allocs_;
    peak_pool_bytes_ = std::max(peak_pool_bytes_, PoolBytes());
    if (oom != nullptr) *oom = Oom{};
    return va;
  }

  void Deallocate(uint64_t ptr) override {
    // DeallocateRaw(): cuMemFreeAsync, no synchronisation (sync_mode is false).
    const auto it = live_.find(ptr);
    if (it == live_.end()) return;
    const uint64_t rounded = it->second.rounded;
    used_rounded_ -= rounded;
    bytes_in_use_ -= it->second.requested;
    live_.erase(it);
    ++num_frees_;
    const uint64_t first = ptr / page_ * page_;
    for (uint64_t p = first; p < ptr + rounded; p += page_) {
      Page& page = pages_.at(p);
      const uint64_t lo = std::max(ptr, p) - p;
      const uint64_t hi = std::min(ptr + rounded, p + page_) - p;
      page.used -= hi - lo;
      --page.users;
      if (page.users == 0) {
        page.holes.clear();
        open_.erase(p);
        free_pages_.insert(p);
      } else {
        AddHole(page, lo, hi - lo);
        open_.insert(p);
      }
    }
  }

  PolicyStats Stats() const override {
    PolicyStats s;
    s.bytes_in_use = bytes_in_use_;
    s.peak_bytes_in_use = peak_bytes_in_use_;
    s.requested_bytes = bytes_in_use_;
    s.bytes_limit = s_.bytes_limit;
    s.pool_bytes = PoolBytes();  // cudaMemPoolAttrReservedMemCurrent
    s.peak_pool_bytes = peak_pool_bytes_;
    s.largest_alloc_size = largest_alloc_;
    s.num_allocs = num_allocs_;
    s.num_frees = num_frees_;
    s.num_failed_allocs = num_failed_;
    s.oom_capacity = oom_capacity_;
    s.oom_fragmentation = oom_fragmentation_;
    s.num_alloc_retries = retries_;
    s.segments = pages_.empty() ? 0 : 1;  // one default pool
    // Not reported by XLA (P2); the model's values: free pages can be remapped into one range.
    s.largest_free_block_bytes = LargestFree();
    const uint64_t free_bytes = s.pool_bytes - used_rounded_;
    if (free_bytes > 0) {
      s.fragmentation = static_cast<double>(free_bytes - s.largest_free_block_bytes) / static_cast<double>(free_bytes);
    }
    return s;
  }

  // A synchronisation point: the pool gives pages above the release threshold back.
  void ReleaseCache() override {
    driver_.StreamSynchronize();
    Trim();
  }

  // ClearStats(): num_allocs = 0, peak_bytes_in_use = bytes_in_use, largest_alloc_size = 0.
  void ResetPeak() override {
    num_allocs_ = 0;
    peak_bytes_in_use_ = bytes_in_use_;
    largest_alloc_ = 0;
    peak_pool_bytes_ = PoolBytes();
  }

 private:
  struct Page {
    uint32_t users = 0;
    uint64_t used = 0;
    std::map<uint64_t, uint64_t> holes;  // offset -> length, free room of a partly used page
  };
  struct Live {
    uint64_t rounded, requested;
  };

  uint64_t PoolBytes() const { return pages_.size() * page_; }

  uint64_t LargestFree() const {
    uint64_t largest = free_pages_.size() * page_;
    for (uint64_t p : open_) {
      for (const auto& [off, len] : pages_.at(p).holes) largest = std::max(largest, len);
    }
    return largest;
  }

  static void AddHole(Page& page, uint64_t off, uint64_t len) {
    auto next = page.holes.lower_bound(off);
    if (next != page.holes.end() && off + len == next->first) {
      len += next->second;
      next = page.holes.erase(next);
    }
    if (next != page.holes.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == off) {
        prev->second += len;
        return;
      }
    }
    page.holes[off] = len;
  }

  uint64_t NewVa(uint64_t bytes, uint64_t align) {
    const uint64_t a = std::max(align, page_);
    uint64_t va = RoundUp(va_next_, a);
    if (va_next_ == 0 || va + bytes > va_end_) {
      const uint64_t chunk = RoundUp(std::max(driver_.total_bytes(), bytes + a), page_);
      va_next_ = driver_.ReserveVa(chunk);
      va_end_ = va_next_ + chunk;
      va = RoundUp(va_next_, a);
    }
    va_next_ = va + bytes;
    return va;
  }

  // Takes `count` physical pages for fresh VA: cached free pages first (remapped), then the driver.
  // False (nothing changed) when the pool's free pages and the driver's together are short.
  bool MapFresh(uint64_t va, uint64_t count) {
    const uint64_t from_pool = std::min<uint64_t>(count, free_pages_.size());
    if (count - from_pool > driver_.free_bytes() / page_) return false;
    for (uint64_t i = 0; i < from_pool; ++i) {
      const uint64_t old = *free_pages_.begin();
      free_pages_.erase(free_pages_.begin());
      pages_.erase(old);
      driver_.Unmap(old, page_);
    }
    if (!driver_.Map(va, count * page_)) {
      // Only another user of the device between the check and here could cause this; the remapped pages
      // are lost to the pool (they went back to the driver).
      return false;
    }
    for (uint64_t i = 0; i < count; ++i) pages_[va + i * page_] = Page{};
    return true;
  }

  uint64_t Place(uint64_t rounded, uint64_t align) {
    if (rounded < page_ && align <= page_) {
      // First fit in the holes of partly used pages, lowest address first.
      for (uint64_t p : open_) {
        Page& page = pages_.at(p);
        for (auto it = page.holes.begin(); it != page.holes.end(); ++it) {
          const uint64_t start = RoundUp(p + it->first, align) - p;
          if (start + rounded > it->first + it->second) continue;
          const uint64_t hole_off = it->first, hole_len = it->second;
          page.holes.erase(it);
          if (start > hole_off) page.holes[hole_off] = start - hole_off;
          if (start + rounded < hole_off + hole_len)
            page.holes[start + rounded] = hole_off + hole_len - start - rounded;
          page.used += rounded;
          ++page.users;
          if (page.holes.empty()) open_.erase(p);
          return p + start;
        }
      }
      // A cached free page at its own VA (no remapping needed), else a new one.
      uint64_t p = 0;
      if (!free_pages_.empty()) {
        p = *free_pages_.begin();
        free_pages_.erase(free_pages_.begin());
      } else {
        p = NewVa(page_, page_);
        if (!MapFresh(p, 1)) return 0;
      }
      Page& page = pages_.at(p);
      page.users = 1;
      page.used = rounded;
      page.holes.clear();
      page.holes[rounded] = page_ - rounded;
      open_.insert(p);
      return p;
    }
    const uint64_t count = (rounded + page_ - 1) / page_;
    const uint64_t va = NewVa(count * page_, align);
    if (!MapFresh(va, count)) return 0;
    for (uint64_t i = 0; i < count; ++i) {
      Page& page = pages_.at(va + i * page_);
      page.users = 1;
      page.used = std::min(page_, rounded - i * page_);
    }
    const uint64_t tail = rounded % page_;
    if (tail != 0) {
      const uint64_t last = va + (count - 1) * page_;
      pages_.at(last).holes[tail] = page_ - tail;
      open_.insert(last);
    }
    return va;
  }

  // The release threshold at a synchronisation point: unmap cached free pages while above it.
  void Trim() {
    while (PoolBytes() > s_.release_threshold && !free_pages_.empty()) {
      const auto it = std::prev(free_pages_.end());
      driver_.Unmap(*it, page_);
      pages_.erase(*it);
      free_pages_.erase(it);
    }
  }

  void FillOom(uint64_t bytes, uint64_t rounded, Oom* oom) {
    ++num_failed_;
    const uint64_t device_free = driver_.free_bytes();
    // No cap: the default pool has no maxSize. What this process could hold = device free + the pool.
    const OomKind kind = ClassifyOom(rounded, used_rounded_, 0, device_free + PoolBytes());
    if (kind == OomKind::kCapacity) {
      ++oom_capacity_;
    } else {
      ++oom_fragmentation_;
    }
    if (oom == nullptr) return;
    oom->kind = kind;
    oom->request_bytes = bytes;
    oom->rounded_bytes = rounded;
    oom->live_bytes = bytes_in_use_;
    oom->reserved_bytes = PoolBytes();
    oom->largest_free_block_bytes = LargestFree();
    oom->limit_bytes = 0;
    oom->device_free_bytes = device_free;
    // AllocateRaw's LOG(ERROR) (Name() is "gpu_async_0" for device 0), then what the framework raises.
    std::string msg = "gpu_async_0 cuMemAllocAsync failed to allocate " + std::to_string(bytes) +
                      " bytes: CUDA_ERROR_OUT_OF_MEMORY: out of memory\n Reported by CUDA: Free memory/Total "
                      "memory: " +
                      std::to_string(device_free) + "/" + std::to_string(driver_.total_bytes());
    if (std::string(s_.framework) == "jax") {
      msg += "\nRESOURCE_EXHAUSTED: Out of memory while trying to allocate " + std::to_string(bytes) + " bytes.";
    } else {
      msg += "\nResourceExhaustedError: OOM when allocating tensor of " + std::to_string(bytes) + " bytes";
    }
    oom->message = msg;
  }

  GpuDriver& driver_;
  AsyncSettings s_;
  uint64_t page_;
  std::map<uint64_t, Page> pages_;  // every mapped page of the pool
  std::set<uint64_t> free_pages_;   // mapped, no allocation on it
  std::set<uint64_t> open_;         // partly used pages with holes
  std::map<uint64_t, Live> live_;
  uint64_t va_next_ = 0, va_end_ = 0;
  uint64_t used_rounded_ = 0, bytes_in_use_ = 0, peak_bytes_in_use_ = 0, peak_pool_bytes_ = 0;
  uint64_t largest_alloc_ = 0, num_allocs_ = 0, num_frees_ = 0, num_failed_ = 0;
  uint64_t oom_capacity_ = 0, oom_fragmentation_ = 0, retries_ = 0;
};

}  // namespace

std::unique_ptr<Policy> MakeReferenceAsyncPool(GpuDriver& driver, const AsyncSettings& settings) {
  return std::make_unique<AsyncPoolPolicy>(driver, settings);
}

}  // namespace strata::gpu::pre_q_reference
