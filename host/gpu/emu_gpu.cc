#include "emu_gpu.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "devices.h"

namespace strata::gpu {
namespace {

constexpr uint64_t kVaBase = 1ull << 40;  // device VAs start here (never 0, far from host pointers)

uint64_t RoundUp(uint64_t x, uint64_t m) { return (x + m - 1) / m * m; }

}  // namespace

bool GpuPresetByName(const std::string& name, GpuSpec* out) {
  const devices::Device* d = devices::Find(name);
  if (d == nullptr || d->kind != devices::Kind::kGpu) return false;
  *out = GpuSpec{};
  out->name = d->name;
  out->total_bytes = d->total_bytes;
  out->context_bytes = d->context_bytes;
  out->cc_major = d->cc_major;
  out->cc_minor = d->cc_minor;
  return true;
}

std::string GpuModelName(const std::string& preset) {
  const devices::Device* d = devices::Find(preset);
  return d != nullptr && d->kind == devices::Kind::kGpu ? d->model : preset;
}

std::string GpuPresetNames() { return devices::Names(devices::Kind::kGpu); }

EmuGpu::EmuGpu(const GpuSpec& spec) : spec_(spec), next_va_(kVaBase) {
  if (spec_.page_bytes == 0) spec_.page_bytes = 2ull << 20;
  books_.page = spec_.page_bytes;
  const uint64_t usable = spec_.total_bytes > spec_.context_bytes ? spec_.total_bytes - spec_.context_bytes : 0;
  capacity_pages_ = usable / spec_.page_bytes;
}

uint64_t EmuGpu::free_bytes() const { return (capacity_pages_ - used_pages_) * spec_.page_bytes; }

uint64_t EmuGpu::Malloc(uint64_t bytes) {
  if (bytes == 0) return 0;
  const uint64_t pages = (bytes + spec_.page_bytes - 1) / spec_.page_bytes;
  if (pages > capacity_pages_ - used_pages_) {
    ++counters_.failed_device_allocs;
    return 0;
  }
  return TakePages(pages);
}

// Out of line: the BFC's region growth asks again and again with halved sizes (a million failed calls in one
// comparison of a small trace), and the failure above then costs no more than its test.
[[gnu::noinline]] uint64_t EmuGpu::TakePages(uint64_t pages) {
  used_pages_ += pages;
  const uint64_t va = next_va_;
  next_va_ += pages * spec_.page_bytes;
  books_.mallocs[va] = pages * spec_.page_bytes;
  ++counters_.device_allocs;
  return va;
}

bool EmuGpu::Free(uint64_t va) {
  const auto it = books_.mallocs.find(va);
  if (it == books_.mallocs.end()) return false;
  used_pages_ -= it->second / spec_.page_bytes;
  data_.erase(data_.lower_bound(va), data_.lower_bound(va + it->second));
  books_.mallocs.erase(it);
  ++counters_.device_frees;
  ++counters_.device_syncs;  // cudaFree synchronises the device
  return true;
}

uint64_t EmuGpu::ReserveVa(uint64_t bytes) {
  const uint64_t size = RoundUp(std::max<uint64_t>(bytes, 1), spec_.page_bytes);
  const uint64_t va = next_va_;
  next_va_ += size;
  books_.reservations[va] = size;
  return va;
}

bool EmuGpu::Map(uint64_t va, uint64_t bytes) {
  const uint64_t page = spec_.page_bytes;
  if (!books_.CanMap(va, bytes)) return false;
  const uint64_t pages = bytes / page;
  if (pages > capacity_pages_ - used_pages_) {
    ++counters_.failed_device_allocs;
    return false;
  }
  books_.pages.Insert(va, va + bytes);
  used_pages_ += pages;
  ++counters_.maps;
  ++counters_.device_allocs;  // one cuMemCreate per mapping
  counters_.pages_mapped += pages;
  return true;
}

bool EmuGpu::Unmap(uint64_t va, uint64_t bytes) {
  if (!books_.AllMapped(va, bytes)) return false;
  ReturnPages(va, bytes);
  ++counters_.unmaps;
  ++counters_.device_frees;
  return true;
}

// The page-by-page loop's outcome when every page is mapped; when one is not, the loop unmaps the pages below it and
// stops there, and so does this.
bool EmuGpu::UnmapPages(uint64_t va, uint64_t bytes) {
  const uint64_t page = spec_.page_bytes;
  if (!books_.AllMapped(va, bytes)) return GpuDriver::UnmapPages(va, bytes);
  ReturnPages(va, bytes);
  counters_.unmaps += bytes / page;
  counters_.device_frees += bytes / page;
  return true;
}

void EmuGpu::ReturnPages(uint64_t va, uint64_t bytes) {
  books_.pages.Erase(va, va + bytes);
  data_.erase(data_.lower_bound(va), data_.lower_bound(va + bytes));
  used_pages_ -= bytes / spec_.page_bytes;
}

bool EmuGpu::Write(uint64_t va, const void* src, uint64_t bytes) {
  if (!books_.Backed(va, bytes)) return false;
  const uint64_t page = spec_.page_bytes;
  const auto* in = static_cast<const uint8_t*>(src);
  while (bytes > 0) {
    const uint64_t base = va / page * page;
    const uint64_t off = va - base;
    const uint64_t n = std::min(bytes, page - off);
    std::vector<uint8_t>& p = data_[base];
    if (p.empty()) p.assign(page, 0);
    std::memcpy(p.data() + off, in, n);
    va += n;
    in += n;
    bytes -= n;
  }
  return true;
}

bool EmuGpu::MayHoldData(uint64_t va, uint64_t bytes) const {
  const auto it = data_.lower_bound(va / spec_.page_bytes * spec_.page_bytes);
  return it != data_.end() && it->first < va + bytes;
}

bool EmuGpu::Read(uint64_t va, void* dst, uint64_t bytes) const {
  if (!books_.Backed(va, bytes)) return false;
  const uint64_t page = spec_.page_bytes;
  auto* out = static_cast<uint8_t*>(dst);
  while (bytes > 0) {
    const uint64_t base = va / page * page;
    const uint64_t off = va - base;
    const uint64_t n = std::min(bytes, page - off);
    const auto it = data_.find(base);
    if (it == data_.end()) {
      std::memset(out, 0, n);
    } else {
      std::memcpy(out, it->second.data() + off, n);
    }
    va += n;
    out += n;
    bytes -= n;
  }
  return true;
}

}  // namespace strata::gpu
