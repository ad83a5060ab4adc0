// The cudaMallocAsync policies "jax-async" (XLA_PYTHON_CLIENT_ALLOCATOR=cuda_async,
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
//
// Cost: every hole of every partly used page is also in one index ordered by address that knows the longest hole
// below each node (HoleIndex), so the first fit and the largest free block take O(log holes), not a walk over
// the holes. Pages are booked in runs: free pages as runs of addresses, and the whole pages of an allocation not at
// all (only partly used pages have a book of their own), so a request of n pages costs O(log) books, not O(n); the
// n single-page Unmap calls of a remap, which the driver sees and counts, go to it in one GpuDriver::UnmapPages. The
// decisions and counts are the page-by-page walk's: tests/gpu/async_differential_test.cc holds this to the model it
// replaced, event by event.
#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <map>
#include <random>
#include <unordered_map>
#include <vector>

#include "families.h"
#include "numbers.h"
#include "tf_memory.h"
#include "va_books.h"

namespace strata::gpu {
namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kRound = 512;  // model

uint64_t RoundUp(uint64_t x, uint64_t m) { return (x + m - 1) / m * m; }

// The pool's holes (free room inside partly used pages) by address, each with its length: a treap whose nodes
// also hold the longest hole in their subtree. FirstFit(from, len) is the lowest-addressed hole at or above `from`
// at least `len` long, in O(log n) expected; Longest() is O(1). Addresses are unique (holes never overlap).
class HoleIndex {
 public:
  // Down the path to where the node belongs by priority, and only the subtree there split: not the whole tree.
  void Insert(uint64_t addr, uint64_t len) { root_ = Insert(root_, NewNode(addr, len)); }
  // The node's two subtrees merged in its place.
  void Erase(uint64_t addr) { root_ = Erase(root_, addr); }
  // The hole at `addr` becomes [to, to + len): no other hole may lie between addr and to (the order stays), so the
  // node changes in place, without the splits and merges of an erase and an insert.
  void Move(uint64_t addr, uint64_t to, uint64_t len) { Move(root_, addr, to, len); }
  uint64_t Longest() const { return root_ == 0 ? 0 : nodes_[root_].longest; }
  // The lowest address >= from of a hole of at least `len` bytes, in *addr and *hole_len; false when none.
  bool FirstFit(uint64_t from, uint64_t len, uint64_t* addr, uint64_t* hole_len) const {
    const uint32_t n = Find(root_, from, len);
    if (n == 0) return false;
    *addr = nodes_[n].addr;
    *hole_len = nodes_[n].len;
    return true;
  }

 private:
  struct Node {
    uint64_t addr = 0, len = 0, longest = 0;
    uint32_t priority = 0, left = 0, right = 0;
  };

  uint32_t NewNode(uint64_t addr, uint64_t len) {
    uint32_t n = 0;
    if (!free_.empty()) {
      n = free_.back();
      free_.pop_back();
    } else {
      n = static_cast<uint32_t>(nodes_.size());
      nodes_.emplace_back();
    }
    nodes_[n] = Node{addr, len, len, static_cast<uint32_t>(random_()), 0, 0};
    return n;
  }
  void Update(uint32_t n) {
    Node& x = nodes_[n];
    x.longest = std::max({x.len, x.left ? nodes_[x.left].longest : 0, x.right ? nodes_[x.right].longest : 0});
  }
  uint32_t Insert(uint32_t t, uint32_t n) {
    if (t == 0) return n;
    if (nodes_[n].priority > nodes_[t].priority) {
      Split(t, nodes_[n].addr, &nodes_[n].left, &nodes_[n].right);
      Update(n);
      return n;
    }
    if (nodes_[n].addr < nodes_[t].addr) {
      nodes_[t].left = Insert(nodes_[t].left, n);
    } else {
      nodes_[t].right = Insert(nodes_[t].right, n);
    }
    Update(t);
    return t;
  }
  uint32_t Erase(uint32_t t, uint64_t addr) {
    if (t == 0) return 0;
    if (nodes_[t].addr == addr) {
      const uint32_t rest = Merge(nodes_[t].left, nodes_[t].right);
      free_.push_back(t);
      return rest;
    }
    if (addr < nodes_[t].addr) {
      nodes_[t].left = Erase(nodes_[t].left, addr);
    } else {
      nodes_[t].right = Erase(nodes_[t].right, addr);
    }
    Update(t);
    return t;
  }
  // Nodes with addr < key go to *lo, the rest to *hi.
  void Split(uint32_t t, uint64_t key, uint32_t* lo, uint32_t* hi) {
    if (t == 0) {
      *lo = *hi = 0;
    } else if (nodes_[t].addr < key) {
      Split(nodes_[t].right, key, &nodes_[t].right, hi);
      *lo = t;
      Update(t);
    } else {
      Split(nodes_[t].left, key, lo, &nodes_[t].left);
      *hi = t;
      Update(t);
    }
  }
  // Every address in a is below every address in b.
  uint32_t Merge(uint32_t a, uint32_t b) {
    if (a == 0 || b == 0) return a | b;
    if (nodes_[a].priority > nodes_[b].priority) {
      nodes_[a].right = Merge(nodes_[a].right, b);
      Update(a);
      return a;
    }
    nodes_[b].left = Merge(a, nodes_[b].left);
    Update(b);
    return b;
  }
  void Move(uint32_t t, uint64_t addr, uint64_t to, uint64_t len) {
    if (t == 0) return;
    if (addr < nodes_[t].addr) {
      Move(nodes_[t].left, addr, to, len);
    } else if (addr > nodes_[t].addr) {
      Move(nodes_[t].right, addr, to, len);
    } else {
      nodes_[t].addr = to;
      nodes_[t].len = len;
    }
    Update(t);
  }
  uint32_t Find(uint32_t t, uint64_t from, uint64_t len) const {
    while (t != 0 && nodes_[t].longest >= len) {
      const Node& x = nodes_[t];
      if (x.addr < from) {
        t = x.right;
        continue;
      }
      if (const uint32_t in_left = Find(x.left, from, len); in_left != 0) return in_left;
      if (x.len >= len) return t;
      t = x.right;
    }
    return 0;
  }

  std::vector<Node> nodes_ = std::vector<Node>(1);  // node 0: none
  std::vector<uint32_t> free_;
  uint32_t root_ = 0;
  std::minstd_rand random_{1};  // treap priorities: the shape, never a decision, depends on them
};

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
    // Every page of the pool, one Unmap each: partly used pages, whole pages of live allocations, free pages.
    for (const auto& [va, page] : pages_) driver_.Unmap(va, page_);
    for (const auto& [va, live] : live_) {
      if (const uint64_t whole = WholePages(va, live.rounded); whole != 0) driver_.UnmapPages(va, whole * page_);
    }
    for (const auto& [lo, hi] : free_.runs()) driver_.UnmapPages(lo, hi - lo);
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
    // The pages the allocation covers whole had it as their one user: they become free pages, as one run. The
    // pages it covers in part (at most one at each end) lose a user and gain a hole.
    if (const uint64_t whole = WholePages(ptr, rounded); whole != 0) free_.Insert(ptr, ptr + whole * page_);
    const uint64_t first = ptr / page_ * page_, last = (ptr + rounded - 1) / page_ * page_;
    for (uint64_t p = first; p <= last; p += last - first == 0 ? page_ : last - first) {
      if (p >= ptr && p + page_ <= ptr + rounded) continue;  // covered whole
      const auto it = pages_.find(p);
      Page& page = it->second;
      const uint64_t lo = std::max(ptr, p) - p;
      const uint64_t hi = std::min(ptr + rounded, p + page_) - p;
      page.used -= hi - lo;
      --page.users;
      if (page.users == 0) {
        ClearHoles(p, page);
        pages_.erase(it);
        free_.Insert(p, p + page_);
      } else {
        AddHole(p, page, lo, hi - lo);
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
    s.segments = pool_pages_ == 0 ? 0 : 1;  // one default pool
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
  // A partly used page: one that sub-page allocations or an allocation's last, partly filled page use.
  struct Page {
    uint32_t users = 0;
    uint64_t used = 0;
    std::map<uint64_t, uint64_t> holes;  // offset -> length, free room of a partly used page
  };
  struct Live {
    uint64_t rounded, requested;
  };

  uint64_t PoolBytes() const { return pool_pages_ * page_; }

  // Free pages can be remapped into one range; a hole serves only sub-page requests.
  uint64_t LargestFree() const { return std::max<uint64_t>(free_.bytes(), holes_.Longest()); }

  // How many pages from `ptr` on an allocation of `rounded` bytes covers whole: none for one inside a page (not
  // page-aligned, or shorter than a page), else all but a partly filled last page.
  uint64_t WholePages(uint64_t ptr, uint64_t rounded) const { return ptr % page_ != 0 ? 0 : rounded / page_; }

  // The lowest free page (`lowest`) or the highest, out of the free pages.
  uint64_t TakeFreePage(bool lowest) {
    const auto run = lowest ? free_.runs().begin() : std::prev(free_.runs().end());
    const uint64_t p = lowest ? run->first : run->second - page_;
    free_.Erase(p, p + page_);
    return p;
  }
  // The `count` lowest (`lowest`) or highest free pages unmapped, a call a page: they leave the pool.
  void UnmapFreePages(uint64_t count, bool lowest) {
    pool_pages_ -= count;
    while (count > 0) {
      const auto run = lowest ? free_.runs().begin() : std::prev(free_.runs().end());
      const uint64_t n = std::min(count, (run->second - run->first) / page_);
      const uint64_t lo = lowest ? run->first : run->second - n * page_;
      free_.Erase(lo, lo + n * page_);
      driver_.UnmapPages(lo, n * page_);
      count -= n;
    }
  }

  // Every change to a page's holes goes through these three, which keep holes_ the same.
  void SetHole(uint64_t p, Page& page, uint64_t off, uint64_t len) {
    auto [it, fresh] = page.holes.try_emplace(off, len);
    if (fresh) {
      holes_.Insert(p + off, len);
    } else {
      it->second = len;
      holes_.Move(p + off, p + off, len);
    }
  }
  std::map<uint64_t, uint64_t>::iterator EraseHole(uint64_t p, Page& page, std::map<uint64_t, uint64_t>::iterator it) {
    holes_.Erase(p + it->first);
    return page.holes.erase(it);
  }
  void ClearHoles(uint64_t p, Page& page) {
    for (const auto& [off, len] : page.holes) holes_.Erase(p + off);
    page.holes.clear();
  }

  // A freed range [off, off + len) of page p becomes a hole, merged with the holes it touches in that page.
  void AddHole(uint64_t p, Page& page, uint64_t off, uint64_t len) {
    auto next = page.holes.lower_bound(off);
    if (next != page.holes.end() && off + len == next->first) {
      len += next->second;
      next = EraseHole(p, page, next);
    }
    if (next != page.holes.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == off) {
        SetHole(p, page, prev->first, prev->second + len);
        return;
      }
    }
    SetHole(p, page, off, len);
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
  // The pages are the pool's from here on; the caller books the partly filled last page, if any, in pages_.
  bool MapFresh(uint64_t va, uint64_t count) {
    const uint64_t from_pool = std::min<uint64_t>(count, free_.bytes() / page_);
    if (count - from_pool > driver_.free_bytes() / page_) return false;
    UnmapFreePages(from_pool, true);
    if (!driver_.Map(va, count * page_)) {
      // Only another user of the device between the check and here could cause this; the remapped pages
      // are lost to the pool (they went back to the driver).
      return false;
    }
    pool_pages_ += count;
    return true;
  }

  uint64_t Place(uint64_t rounded, uint64_t align) {
    if (rounded < page_ && align <= page_) {
      // First fit in the holes of partly used pages, lowest address first (holes never span pages, so address
      // order is page order, then offset order). A hole shorter than the request cannot fit; a longer one may
      // still not once its start is aligned up, so the search goes on above it.
      uint64_t from = 0, at = 0, len = 0;
      while (holes_.FirstFit(from, rounded, &at, &len)) {
        const uint64_t start = RoundUp(at, align);
        if (start + rounded > at + len) {
          from = at + 1;
          continue;
        }
        const uint64_t p = at / page_ * page_;
        Page& page = pages_.at(p);
        const uint64_t hole_off = at - p;
        if (start == at && start + rounded < at + len) {
          // The common case: the hole's front is taken, its rest stays one hole (nothing lies between).
          page.holes.erase(hole_off);
          page.holes.emplace(hole_off + rounded, len - rounded);
          holes_.Move(at, at + rounded, len - rounded);
        } else {
          EraseHole(p, page, page.holes.find(hole_off));
          if (start > at) SetHole(p, page, hole_off, start - at);
          if (start + rounded < at + len) SetHole(p, page, start + rounded - p, at + len - start - rounded);
        }
        page.used += rounded;
        ++page.users;
        return start;
      }
      // A cached free page at its own VA (no remapping needed), else a new one.
      uint64_t p = 0;
      if (!free_.empty()) {
        p = TakeFreePage(true);
      } else {
        p = NewVa(page_, page_);
        if (!MapFresh(p, 1)) return 0;
      }
      Page& page = pages_[p];
      page = Page{1, rounded, {}};
      SetHole(p, page, rounded, page_ - rounded);
      return p;
    }
    const uint64_t count = (rounded + page_ - 1) / page_;
    const uint64_t va = NewVa(count * page_, align);
    if (!MapFresh(va, count)) return 0;
    const uint64_t tail = rounded % page_;
    if (tail != 0) {
      const uint64_t last = va + (count - 1) * page_;
      Page& page = pages_[last];
      page = Page{1, tail, {}};
      SetHole(last, page, tail, page_ - tail);
    }
    return va;
  }

  // The release threshold at a synchronisation point: unmap cached free pages while above it.
  void Trim() {
    if (PoolBytes() <= s_.release_threshold) return;
    const uint64_t over = (PoolBytes() - s_.release_threshold + page_ - 1) / page_;
    UnmapFreePages(std::min(over, free_.bytes() / page_), false);
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
  // The pool's mapped pages are the partly used ones (pages_), the free ones (free_, as runs) and the rest of the
  // pages of live allocations, whole pages no other allocation shares (never booked page by page): a request of
  // many pages costs O(log) in books, and the driver calls it stands for are counted in bulk (UnmapPages).
  uint64_t pool_pages_ = 0;
  std::unordered_map<uint64_t, Page> pages_;  // partly used pages (by VA, hashed)
  PageRanges free_;                           // mapped, no allocation on them; lowest and highest taken first
  HoleIndex holes_;                           // every page's holes by address (page + offset)
  std::unordered_map<uint64_t, Live> live_;
  uint64_t va_next_ = 0, va_end_ = 0;
  uint64_t used_rounded_ = 0, bytes_in_use_ = 0, peak_bytes_in_use_ = 0, peak_pool_bytes_ = 0;
  uint64_t largest_alloc_ = 0, num_allocs_ = 0, num_frees_ = 0, num_failed_ = 0;
  uint64_t oom_capacity_ = 0, oom_fragmentation_ = 0, retries_ = 0;
};

// ---------------------------------------------------------------------------------------------------
// Settings.

// strata::cli's readers (host/tool/numbers.h): NaN, infinity, hex, blanks and a '+' are refused.
bool ParseDouble(const std::string& s, double* out) {
  return cli::ParseReal(s, 0, std::numeric_limits<double>::max(), out);
}

bool ParseInt(const std::string& s, int64_t* out) { return cli::ParseSignedDecimal(s, INT64_MIN, INT64_MAX, out); }

// A setting: the explicit option if given, else the environment variable; `source` names which.
struct Setting {
  bool present = false;
  std::string value, source;
};
Setting Lookup(const PolicyConfig& config, const std::string& option, const char* env) {
  Setting s;
  if (const auto it = config.options.find(option); it != config.options.end()) {
    s = {true, it->second, "option " + option};
  } else if (env != nullptr && config.env) {
    if (const char* v = config.env(env); v != nullptr) s = {true, v, env};
  }
  return s;
}

// The memory-fraction grammar of allocator_config.cc (docs/gpu-policies.md P0), read by the jax policies' one parser
// (ParseXlaMemFraction: a malformed value gets the same message under every jax policy). cudaMallocAsync takes one
// number, the start F (preallocated, threshold); a cap would not bind (no maxSize), but is checked all the same.
bool ParseFraction(const Setting& s, const JaxRelease& release, double* out, std::string* error) {
  XlaMemFraction f;
  if (!ParseXlaMemFraction(s.source, s.value, release, &f, error)) return false;
  *out = f.start;
  return true;
}

// TF_CUDA_MALLOC_ASYNC_SUPPORTED_PREALLOC (tsl::ReadInt64FromEnvVar): -1 = the pool size, N = N bytes.
bool ParsePrealloc(const PolicyConfig& config, int64_t* out, std::string* error) {
  const Setting s = Lookup(config, "prealloc_bytes", "TF_CUDA_MALLOC_ASYNC_SUPPORTED_PREALLOC");
  *out = 0;
  if (!s.present) return true;
  if (!ParseInt(s.value, out) || *out < -1) {
    *error = s.source + ": invalid value '" + s.value + "' (expected -1 for the pool size, or a byte count >= 0)";
    return false;
  }
  return true;
}

bool CheckOptions(const std::string& name, const PolicyConfig& config, std::string* error) {
  const auto valid = AsyncPolicyOptions(name);
  for (const auto& [key, value] : config.options) {
    bool known = false;
    for (const PolicyOption& o : valid) known = known || o.name == key;
    if (!known) {
      std::string list;
      for (const PolicyOption& o : valid) list += (list.empty() ? "" : ", ") + o.name;
      *error = "unknown option '" + key + "' for policy " + name + " (valid: " + list + ")";
      return false;
    }
  }
  return true;
}

bool JaxSettings(GpuDriver& driver, const PolicyConfig& config, AsyncSettings* out, std::string* error) {
  // jaxlib/xla_client.py generate_pjrt_gpu_plugin_options: preallocate = value not in ('false','False','0');
  // XLA_CLIENT_MEM_FRACTION, or the deprecated XLA_PYTHON_CLIENT_MEM_FRACTION (both set: ValueError).
  const Setting pre = Lookup(config, "preallocate", "XLA_PYTHON_CLIENT_PREALLOCATE");
  const bool preallocate = !pre.present || !(pre.value == "false" || pre.value == "False" || pre.value == "0");
  Setting frac = Lookup(config, "memory_fraction", "XLA_CLIENT_MEM_FRACTION");
  if (config.options.count("memory_fraction") == 0) {
    const Setting old = Lookup(config, "", "XLA_PYTHON_CLIENT_MEM_FRACTION");
    if (old.present && frac.present) {
      *error =
          "XLA_PYTHON_CLIENT_MEM_FRACTION and XLA_CLIENT_MEM_FRACTION are both set; use only "
          "XLA_CLIENT_MEM_FRACTION (XLA_PYTHON_CLIENT_MEM_FRACTION is deprecated)";
      return false;
    }
    if (old.present) frac = old;
  }
  JaxRelease release;
  if (!ReadJaxVersion(config.options, &release, error)) return false;
  double fraction = DefaultXlaMemFraction(release).start;  // GpuAllocatorConfig::memory_fraction = 0.75
  if (frac.present && !ParseFraction(frac, release, &fraction, error)) return false;
  int64_t prealloc = 0;
  if (!ParsePrealloc(config, &prealloc, error)) return false;
  // CreateCudaAsyncAllocator(device, memory_fraction, reserve_memory = preallocate, ...):
  // pool_size = total x fraction; threshold and bytes_limit = pool_size with preallocation, else 0.
  const auto pool_size = static_cast<uint64_t>(static_cast<double>(driver.total_bytes()) * fraction);
  out->name = "jax-async";
  out->framework = "jax";
  out->release_threshold = preallocate ? pool_size : 0;
  out->bytes_limit = preallocate ? pool_size : 0;
  out->prealloc_bytes = (prealloc == -1 || preallocate) ? pool_size : static_cast<uint64_t>(prealloc);
  return true;
}

bool TfSettings(GpuDriver& driver, const PolicyConfig& config, AsyncSettings* out, std::string* error) {
  // gpu_device.cc SingleVirtualDeviceMemoryLimit: fraction > 0 -> total x fraction; else
  // free - MinSystemMemory(free, cc_major), or free - TF_DEVICE_MIN_SYS_MEMORY_IN_MB (ignored when larger
  // than free).
  const uint64_t free = driver.free_bytes();
  uint64_t limit = 0;
  const Setting frac = Lookup(config, "memory_fraction", nullptr);
  double fraction = 0;
  if (frac.present && (!ParseDouble(frac.value, &fraction) || fraction < 0 || fraction > 1)) {
    *error = frac.source + ": invalid per_process_gpu_memory_fraction '" + frac.value + "' (expected 0..1)";
    return false;
  }
  if (fraction > 0) {
    limit = static_cast<uint64_t>(static_cast<double>(driver.total_bytes()) * fraction);
  } else {
    uint64_t reserve = TfMinSystemMemory(free, driver.cc_major());
    const Setting mb = Lookup(config, "min_sys_memory_mb", "TF_DEVICE_MIN_SYS_MEMORY_IN_MB");
    if (mb.present) {
      int64_t v = 0;
      uint64_t bytes = 0;
      if (!ParseInt(mb.value, &v) || v < 0 || !cli::MultiplyChecked(static_cast<uint64_t>(v), kMiB, &bytes)) {
        *error = mb.source + ": invalid value '" + mb.value + "' (expected a number of MiB >= 0, below 2^44)";
        return false;
      }
      if (bytes <= free) reserve = bytes;
    }
    limit = free > reserve ? free - reserve : 0;
  }
  int64_t prealloc = 0;
  if (!ParsePrealloc(config, &prealloc, error)) return false;
  // GpuCudaMallocAsyncAllocator(platform_device_id, total_bytes = limit): release_threshold = limit,
  // reserve_memory = false, bytes_limit = limit.
  out->name = "tf-async";
  out->framework = "tf";
  out->release_threshold = limit;
  out->bytes_limit = limit;
  out->prealloc_bytes = prealloc == -1 ? limit : static_cast<uint64_t>(prealloc);
  return true;
}

}  // namespace

std::vector<PolicyOption> AsyncPolicyOptions(const std::string& name) {
  const PolicyOption prealloc = {"prealloc_bytes", "TF_CUDA_MALLOC_ASYNC_SUPPORTED_PREALLOC", "0",
                                 "-1 = preallocate the pool size, N = preallocate N bytes"};
  if (name == "jax-async") {
    return {{"jax_version", "", kDefaultJaxVersion,
             "JAX release whose memory-fraction grammar applies: 0.6 to 0.10 (a number), or next (START-CAP)"},
            {"preallocate", "XLA_PYTHON_CLIENT_PREALLOCATE", "true",
             "preallocate fraction x total and keep it (release threshold), else threshold 0"},
            {"memory_fraction", "XLA_CLIENT_MEM_FRACTION", "0.75",
             "F of total (jax_version=next: START or START-CAP, the pool takes START; XLA_PYTHON_CLIENT_MEM_FRACTION "
             "too); not a cap"},
            prealloc};
  }
  if (name == "tf-async") {
    return {{"memory_fraction", "", "0", "per_process_gpu_memory_fraction: limit = total x F (0: free - reserve)"},
            {"min_sys_memory_mb", "TF_DEVICE_MIN_SYS_MEMORY_IN_MB", "by compute capability",
             "reserve kept out of the limit"},
            prealloc};
  }
  return {};
}

bool ResolveAsyncSettings(const std::string& name, GpuDriver& driver, const PolicyConfig& config, AsyncSettings* out,
                          std::string* error) {
  if (name != "jax-async" && name != "tf-async") {
    *error = "not a cudaMallocAsync policy: " + name;
    return false;
  }
  if (!CheckOptions(name, config, error)) return false;
  return name == "jax-async" ? JaxSettings(driver, config, out, error) : TfSettings(driver, config, out, error);
}

bool MakeAsyncPolicy(const std::string& name, GpuDriver& driver, const PolicyConfig& config,
                     std::unique_ptr<Policy>* out, std::string* error) {
  AsyncSettings s;
  if (!ResolveAsyncSettings(name, driver, config, &s, error)) return false;
  *out = std::make_unique<AsyncPoolPolicy>(driver, std::move(s));
  return true;
}

}  // namespace strata::gpu
