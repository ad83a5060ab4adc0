// An emulated GPU in host memory: physical pages separate from virtual addresses
// (docs/gpu-policies.md P7). A device-level allocation fails only when there are not enough free pages;
// fragmentation can therefore arise only inside a policy's pools, as on a real GPU.
#ifndef STRATA_HOST_GPU_EMU_GPU_H_
#define STRATA_HOST_GPU_EMU_GPU_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "va_books.h"

namespace strata::gpu {

// What a GPU looks like to the frameworks: cudaMemGetInfo's total and free, the compute capability
// (TensorFlow's reserve rule), and the physical page granule.
struct GpuSpec {
  std::string name = "custom";
  uint64_t total_bytes = 0;
  uint64_t context_bytes = 512ull << 20;  // CUDA context + libraries: free at start = total - this
  uint32_t cc_major = 9, cc_minor = 0;
  uint64_t page_bytes = 2ull << 20;  // cuMemGetAllocationGranularity; every device allocation rounds to it
};

// The gpu-emu backend's GPU when none is named.
constexpr const char* kDefaultGpuPreset = "h100-80g";
// "h100-80g", "a100-40g", ... (case-insensitive). False for an unknown name.
bool GpuPresetByName(const std::string& name, GpuSpec* out);
// The board as a user names it ("H100 80GB" for h100-80g); an unknown name comes back as given.
std::string GpuModelName(const std::string& preset);
// The preset names, comma-separated, for help and error messages.
std::string GpuPresetNames();

// Cost counters of the emulated driver. A policy's work shows here, not in wall time.
struct DriverCounters {
  uint64_t device_allocs = 0;  // cudaMalloc / cuMemCreate calls that succeeded
  uint64_t device_frees = 0;   // cudaFree / cuMemRelease
  uint64_t failed_device_allocs = 0;
  uint64_t maps = 0;  // cuMemMap calls (VMM policies)
  uint64_t unmaps = 0;
  uint64_t pages_mapped = 0;       // pages ever mapped by Map()
  uint64_t device_syncs = 0;       // full-device synchronisations (every cudaFree, PyTorch's sync-all)
  uint64_t stream_syncs = 0;       // stream synchronisations (cudaMallocAsync retry, unmap)
  uint64_t retries = 0;            // allocation retries a policy made after a failure
  uint64_t host_bytes_copied = 0;  // over the host link (JAX's defragmentation bounces buffers)
};

// The driver's cost counters copied into any struct with fields of the same names (strata_memory_stats in the
// driver, strata-compare's Cost, from DriverCounters or from a struct that already holds them).
template <typename From, typename To>
void CopyDriverCosts(const From& c, To* out) {
  out->device_allocs = c.device_allocs;
  out->device_frees = c.device_frees;
  out->device_syncs = c.device_syncs;
  out->stream_syncs = c.stream_syncs;
  out->maps = c.maps;
  out->unmaps = c.unmaps;
}

// What a policy asks of the GPU driver. EmuGpu implements it in host memory; the cuda backend over
// the real CUDA driver. Every call counts itself in counters().
class GpuDriver {
 public:
  virtual ~GpuDriver() = default;
  virtual uint64_t page_bytes() const = 0;
  // cudaMemGetInfo: total, and what is free now.
  virtual uint64_t total_bytes() const = 0;
  virtual uint64_t free_bytes() const = 0;
  virtual uint32_t cc_major() const = 0;

  // cudaMalloc: ceil(bytes / page) pages in a fresh page-aligned VA range. Returns the VA, or 0
  // (counted in failed_device_allocs) when there are not enough free pages. bytes == 0 returns 0.
  virtual uint64_t Malloc(uint64_t bytes) = 0;
  // cudaFree of a Malloc'd VA: returns its pages; counts a device free and a device sync.
  // False for an address Malloc did not return.
  virtual bool Free(uint64_t va) = 0;

  // Virtual memory management (cuMemAddressReserve / cuMemCreate + cuMemMap / cuMemUnmap):
  // ReserveVa never fails (a huge VA, page-aligned); Map backs [va, va + bytes) (page-aligned,
  // inside a reservation, not already mapped) with pages and fails (false, nothing mapped) when pages
  // are short; Unmap returns them.
  virtual uint64_t ReserveVa(uint64_t bytes) = 0;
  virtual bool Map(uint64_t va, uint64_t bytes) = 0;
  virtual bool Unmap(uint64_t va, uint64_t bytes) = 0;
  // Every page of [va, va + bytes) unmapped by a call of its own, lowest first, as a pool that hands pages back
  // one by one does: bytes / page Unmap calls, counted as such. False at the first page that fails (the pages
  // before it stay unmapped). EmuGpu does it in one step with the same outcome and counts.
  virtual bool UnmapPages(uint64_t va, uint64_t bytes) {
    for (uint64_t p = va; p < va + bytes; p += page_bytes()) {
      if (!Unmap(p, page_bytes())) return false;
    }
    return true;
  }

  virtual void DeviceSynchronize() { ++counters_.device_syncs; }
  virtual void StreamSynchronize() { ++counters_.stream_syncs; }

  // Data (cudaMemcpy): the range must lie in memory that Malloc or Map gave; false otherwise (nothing
  // copied). Policies never touch data; the backends do (transfers, GEMM, defragmentation).
  virtual bool Write(uint64_t va, const void* src, uint64_t bytes) = 0;
  virtual bool Read(uint64_t va, void* dst, uint64_t bytes) const = 0;
  // False only when nothing was ever written into [va, va + bytes): a copy of it may be skipped (a buffer
  // never written holds undefined bytes, as on a GPU). JAX's Defragment() uses it.
  virtual bool MayHoldData(uint64_t /*va*/, uint64_t /*bytes*/) const { return true; }

  DriverCounters& counters() { return counters_; }
  const DriverCounters& counters() const { return counters_; }

 protected:
  DriverCounters counters_;
};

class EmuGpu final : public GpuDriver {
 public:
  explicit EmuGpu(const GpuSpec& spec);
  EmuGpu(const EmuGpu&) = delete;
  EmuGpu& operator=(const EmuGpu&) = delete;

  const GpuSpec& spec() const { return spec_; }
  uint64_t page_bytes() const override { return spec_.page_bytes; }
  uint64_t total_bytes() const override { return spec_.total_bytes; }
  // total - context - every page in use
  uint64_t free_bytes() const override;
  uint32_t cc_major() const override { return spec_.cc_major; }
  uint64_t used_pages() const { return used_pages_; }

  uint64_t Malloc(uint64_t bytes) override;
  bool Free(uint64_t va) override;
  uint64_t ReserveVa(uint64_t bytes) override;
  bool Map(uint64_t va, uint64_t bytes) override;
  bool Unmap(uint64_t va, uint64_t bytes) override;
  bool UnmapPages(uint64_t va, uint64_t bytes) override;

  // Data, kept sparsely (pages materialise on first write; unwritten bytes read as 0).
  bool Write(uint64_t va, const void* src, uint64_t bytes) override;
  bool Read(uint64_t va, void* dst, uint64_t bytes) const override;
  bool MayHoldData(uint64_t va, uint64_t bytes) const override;

 private:
  // Malloc's success: `pages` fresh pages at fresh VA.
  uint64_t TakePages(uint64_t pages);
  // Unmap's work on a range every page of which is mapped: the books, the data, the count.
  void ReturnPages(uint64_t va, uint64_t bytes);

  GpuSpec spec_;
  uint64_t capacity_pages_;  // (total - context) / page
  uint64_t used_pages_ = 0;
  uint64_t next_va_;                               // bump allocator in a 2^47-byte VA
  VaBooks<PageRanges> books_;                      // mallocs (page-rounded), reservations, mapped pages
  std::map<uint64_t, std::vector<uint8_t>> data_;  // page va -> contents (materialised on write)
};

}  // namespace strata::gpu

#endif  // STRATA_HOST_GPU_EMU_GPU_H_
