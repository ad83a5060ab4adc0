// What a GpuDriver keeps of what it handed out, and the checks on it that the emulated and the CUDA driver share:
// cudaMalloc'd ranges, VA reservations, mapped pages. The mapped pages are a type of the driver's choosing with
// AnyIn / AllIn: PagesByVa keeps one entry a page with what backs it (the CUDA driver: a handle per page),
// PageRanges keeps runs of pages (the emulator: a Map or Unmap of n pages is O(log runs), not O(n)).
#ifndef STRATA_HOST_GPU_VA_BOOKS_H_
#define STRATA_HOST_GPU_VA_BOOKS_H_

#include <cstdint>
#include <iterator>
#include <map>
#include <unordered_map>

namespace strata::gpu {

// Mapped page va -> what backs it (hashed: one step a page).
template <typename Backing>
struct PagesByVa : std::unordered_map<uint64_t, Backing> {
  bool AnyIn(uint64_t va, uint64_t bytes, uint64_t page) const {
    for (uint64_t p = va / page * page; p < va + bytes; p += page) {
      if (this->count(p) != 0) return true;
    }
    return false;
  }
  bool AllIn(uint64_t va, uint64_t bytes, uint64_t page) const {
    for (uint64_t p = va / page * page; p < va + bytes; p += page) {
      if (this->count(p) == 0) return false;
    }
    return true;
  }
};

// A set of byte ranges kept as maximal runs (start -> end, touching runs merged), with the bytes it holds.
// Insert takes a range that overlaps none in the set; Erase a range that lies inside one run.
class PageRanges {
 public:
  void Insert(uint64_t lo, uint64_t hi) {
    bytes_ += hi - lo;
    auto next = runs_.lower_bound(lo);
    if (next != runs_.end() && next->first == hi) {
      hi = next->second;
      next = runs_.erase(next);
    }
    if (next != runs_.begin()) {
      if (auto prev = std::prev(next); prev->second == lo) {
        prev->second = hi;
        return;
      }
    }
    runs_.emplace_hint(next, lo, hi);
  }
  void Erase(uint64_t lo, uint64_t hi) {
    auto run = std::prev(runs_.upper_bound(lo));
    const uint64_t run_lo = run->first, run_hi = run->second;
    bytes_ -= hi - lo;
    if (run_lo == lo) {
      runs_.erase(run);
    } else {
      run->second = lo;
    }
    if (hi < run_hi) runs_.emplace(hi, run_hi);
  }
  // [va, va + bytes) rounded out to whole pages: does a run touch it / cover it?
  bool AnyIn(uint64_t va, uint64_t bytes, uint64_t page) const {
    const uint64_t lo = va / page * page;
    auto run = runs_.lower_bound(va + bytes);  // the first run starting at or after the end
    return run != runs_.begin() && std::prev(run)->second > lo;
  }
  bool AllIn(uint64_t va, uint64_t bytes, uint64_t page) const {
    const uint64_t lo = va / page * page;
    auto run = runs_.upper_bound(lo);
    return run != runs_.begin() && std::prev(run)->second >= va + bytes;
  }
  uint64_t bytes() const { return bytes_; }
  bool empty() const { return runs_.empty(); }
  const std::map<uint64_t, uint64_t>& runs() const { return runs_; }

 private:
  std::map<uint64_t, uint64_t> runs_;
  uint64_t bytes_ = 0;
};

template <typename Pages>
struct VaBooks {
  uint64_t page = 0;
  std::map<uint64_t, uint64_t> mallocs;       // va -> bytes
  std::map<uint64_t, uint64_t> reservations;  // va -> bytes (page-rounded)
  Pages pages;                                // the mapped pages

  // Map's preconditions: a non-empty page-aligned range inside one reservation, no page of it mapped yet.
  bool CanMap(uint64_t va, uint64_t bytes) const {
    if (bytes == 0 || va % page != 0 || bytes % page != 0) return false;
    auto r = reservations.upper_bound(va);
    if (r == reservations.begin()) return false;
    --r;
    if (va + bytes > r->first + r->second) return false;
    return !pages.AnyIn(va, bytes, page);
  }
  // Unmap's precondition: a non-empty page-aligned range whose every page is mapped.
  bool AllMapped(uint64_t va, uint64_t bytes) const {
    if (bytes == 0 || va % page != 0 || bytes % page != 0) return false;
    return pages.AllIn(va, bytes, page);
  }
  // Data may go to [va, va + bytes): it lies inside one malloc, or every page it touches is mapped.
  bool Backed(uint64_t va, uint64_t bytes) const {
    if (bytes == 0) return true;
    if (va + bytes < va) return false;
    auto m = mallocs.upper_bound(va);
    if (m != mallocs.begin()) {
      --m;
      if (va >= m->first && va + bytes <= m->first + m->second) return true;
    }
    return pages.AllIn(va, bytes, page);
  }
};

}  // namespace strata::gpu

#endif  // STRATA_HOST_GPU_VA_BOOKS_H_
