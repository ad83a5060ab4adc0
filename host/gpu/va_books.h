// What a GpuDriver keeps of what it handed out, and the checks on it that the emulated and the CUDA driver share:
// cudaMalloc'd ranges, VA reservations, mapped pages (each with what backs it: nothing, or a CUDA handle).
#ifndef STRATA_HOST_GPU_VA_BOOKS_H_
#define STRATA_HOST_GPU_VA_BOOKS_H_

#include <cstdint>
#include <map>
#include <unordered_map>

namespace strata::gpu {

template <typename Backing>
struct VaBooks {
  uint64_t page = 0;
  std::map<uint64_t, uint64_t> mallocs;         // va -> bytes
  std::map<uint64_t, uint64_t> reservations;    // va -> bytes (page-rounded)
  std::unordered_map<uint64_t, Backing> pages;  // mapped page va -> what backs it (hashed: one step a page)

  // Map's preconditions: a non-empty page-aligned range inside one reservation, no page of it mapped yet.
  bool CanMap(uint64_t va, uint64_t bytes) const {
    if (bytes == 0 || va % page != 0 || bytes % page != 0) return false;
    auto r = reservations.upper_bound(va);
    if (r == reservations.begin()) return false;
    --r;
    if (va + bytes > r->first + r->second) return false;
    for (uint64_t p = va; p < va + bytes; p += page) {
      if (pages.count(p) != 0) return false;
    }
    return true;
  }
  // Unmap's precondition: a non-empty page-aligned range whose every page is mapped.
  bool AllMapped(uint64_t va, uint64_t bytes) const {
    if (bytes == 0 || va % page != 0 || bytes % page != 0) return false;
    for (uint64_t p = va; p < va + bytes; p += page) {
      if (pages.count(p) == 0) return false;
    }
    return true;
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
    for (uint64_t p = va / page * page; p < va + bytes; p += page) {
      if (pages.count(p) == 0) return false;
    }
    return true;
  }
};

}  // namespace strata::gpu

#endif  // STRATA_HOST_GPU_VA_BOOKS_H_
