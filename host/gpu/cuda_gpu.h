// A GpuDriver over a real GPU: the CUDA runtime for cudaMalloc / cudaFree / cudaMemGetInfo / cudaMemcpy, and the
// driver's virtual memory management (cuMemAddressReserve, cuMemCreate, cuMemMap, ...) fetched at run time with
// cudaGetDriverEntryPoint, so that nothing links libcuda: on a machine without a driver the library still loads
// and Open() says why there is no GPU. No CUDA header is needed to include this one.
#ifndef STRATA_HOST_GPU_CUDA_GPU_H_
#define STRATA_HOST_GPU_CUDA_GPU_H_

#include <cstdint>
#include <memory>
#include <string>

#include "emu_gpu.h"
#include "strata/reference_gemm.h"
#include "va_books.h"

namespace strata::gpu {

class CudaGpu final : public GpuDriver {
 public:
  // Opens device `ordinal` (creating its primary context). Null with *error naming the CUDA call and error when
  // there is no usable GPU, e.g. "cudaGetDeviceCount: cudaErrorInsufficientDriver (CUDA driver version is
  // insufficient for CUDA runtime version)"; *no_device is then true (false for a device that exists but failed).
  static std::unique_ptr<CudaGpu> Open(int ordinal, std::string* error, bool* no_device);
  // Empty where the runtime sees a GPU, else why not: "no CUDA device" (with the CUDA error where there is one,
  // e.g. "no CUDA device: cudaErrorInsufficientDriver"). Creates no context.
  static std::string Unavailable();
  ~CudaGpu() override;
  CudaGpu(const CudaGpu&) = delete;
  CudaGpu& operator=(const CudaGpu&) = delete;

  // cuMemGetAllocationGranularity (minimum) for pinned device memory on this GPU; 2 MiB where VMM is missing.
  uint64_t page_bytes() const override { return books_.page; }
  uint64_t total_bytes() const override { return total_bytes_; }
  uint64_t free_bytes() const override;  // cudaMemGetInfo, now
  uint32_t cc_major() const override { return cc_major_; }
  uint32_t cc_minor() const { return cc_minor_; }
  const std::string& device_name() const { return name_; }
  bool has_vmm() const { return vmm_; }

  // cudaMalloc of exactly `bytes` (the driver rounds as it does); 0 when it fails.
  uint64_t Malloc(uint64_t bytes) override;
  bool Free(uint64_t va) override;  // cudaFree (synchronises the device)
  // cuMemAddressReserve, aligned to the page; 0 when it fails (no VMM, or the VA space is exhausted).
  uint64_t ReserveVa(uint64_t bytes) override;
  // One cuMemCreate + cuMemMap per page (so that any page can be unmapped alone, as the policies do), then
  // cuMemSetAccess for the range. False (nothing mapped) when a page cannot be created.
  bool Map(uint64_t va, uint64_t bytes) override;
  bool Unmap(uint64_t va, uint64_t bytes) override;  // cuMemUnmap + cuMemRelease per page
  void DeviceSynchronize() override;                 // cudaDeviceSynchronize
  void StreamSynchronize() override;                 // cudaStreamSynchronize(legacy default stream)

  bool Write(uint64_t va, const void* src, uint64_t bytes) override;  // cudaMemcpy host -> device
  bool Read(uint64_t va, void* dst, uint64_t bytes) const override;   // cudaMemcpy device -> host

  // Holds `bytes` back from everyone (one cudaMalloc, not counted): free at start = total - context.
  bool HoldBack(uint64_t bytes, std::string* error);

  // True when this build has the GEMM kernel (nvcc worked at configure time).
  static bool HasGemmKernel();
  // C = A.B (+ C) on the GPU, bit-exact with reference::Gemm: int8 A (m x k) and B (k x n) at device addresses
  // a and b, int32 C (or int8 with spec.int8) at c. False with *error when there is no kernel or CUDA failed.
  bool Gemm(uint64_t a, uint64_t b, uint64_t c, const reference::GemmSpec& spec, bool accumulate, std::string* error);

  // The last CUDA error this driver saw, as "call: cudaErrorName (text)" (for messages).
  const std::string& last_error() const { return last_error_; }

 private:
  struct DriverApi;  // the VMM entry points
  explicit CudaGpu(int ordinal);
  bool Use() const;  // cudaSetDevice(ordinal_): calls may come from any thread
  bool Check(int status, const char* call) const;
  bool CheckDriver(int result, const char* call) const;
  void UnmapPage(uint64_t va);

  int ordinal_;
  std::unique_ptr<DriverApi> api_;
  bool vmm_ = false;
  std::string name_;
  uint32_t cc_major_ = 0, cc_minor_ = 0;
  uint64_t total_bytes_ = 0;
  uint64_t held_back_ = 0;              // the HoldBack allocation (0: none)
  VaBooks<PagesByVa<uint64_t>> books_;  // the page (the granule), mallocs, reservations, mapped pages' handles
  mutable std::string last_error_;
};

}  // namespace strata::gpu

#endif  // STRATA_HOST_GPU_CUDA_GPU_H_
