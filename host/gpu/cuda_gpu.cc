// CudaGpu: the policies' GpuDriver over the CUDA runtime (linked statically) and the driver's VMM calls (looked up
// at run time). See cuda_gpu.h for why nothing here links libcuda.
#include "cuda_gpu.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <algorithm>

namespace strata::gpu {

#ifdef STRATA_CUDA_GEMM_KERNEL
// cuda_gemm.cu
cudaError_t LaunchGemm(const int8_t* a, const int8_t* b, void* c, const reference::GemmSpec& spec, bool accumulate);
#endif

namespace {

uint64_t RoundUp(uint64_t x, uint64_t to) { return (x + to - 1) / to * to; }

void* ToPtr(uint64_t va) { return reinterpret_cast<void*>(static_cast<uintptr_t>(va)); }

std::string RuntimeError(cudaError_t e, const char* call) {
  return std::string(call) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
}

// A driver entry point through the runtime (no link against libcuda). The ABI asked for is CUDA 12.0's: the VMM
// calls have not changed since 10.2.
template <typename Fn>
bool Lookup(const char* symbol, Fn* out) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
  const cudaError_t e = cudaGetDriverEntryPointByVersion(symbol, &fn, 12000, cudaEnableDefault, &found);
#else
  const cudaError_t e = cudaGetDriverEntryPoint(symbol, &fn, cudaEnableDefault, &found);
#endif
  if (e != cudaSuccess || found != cudaDriverEntryPointSuccess || fn == nullptr) {
    cudaGetLastError();
    return false;
  }
  *out = reinterpret_cast<Fn>(fn);
  return true;
}

}  // namespace

struct CudaGpu::DriverApi {
  decltype(&cuMemAddressReserve) address_reserve = nullptr;
  decltype(&cuMemAddressFree) address_free = nullptr;
  decltype(&cuMemCreate) create = nullptr;
  decltype(&cuMemRelease) release = nullptr;
  decltype(&cuMemMap) map = nullptr;
  decltype(&cuMemUnmap) unmap = nullptr;
  decltype(&cuMemSetAccess) set_access = nullptr;
  decltype(&cuMemGetAllocationGranularity) granularity = nullptr;
  decltype(&cuGetErrorName) error_name = nullptr;
  CUmemAllocationProp prop{};
  CUmemAccessDesc access{};

  bool Load(int ordinal) {
    const bool found = Lookup("cuMemAddressReserve", &address_reserve) && Lookup("cuMemAddressFree", &address_free) &&
                       Lookup("cuMemCreate", &create) && Lookup("cuMemRelease", &release) && Lookup("cuMemMap", &map) &&
                       Lookup("cuMemUnmap", &unmap) && Lookup("cuMemSetAccess", &set_access) &&
                       Lookup("cuMemGetAllocationGranularity", &granularity) && Lookup("cuGetErrorName", &error_name);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = ordinal;
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    return found;
  }
};

std::string CudaGpu::Unavailable() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clears the sticky error for a later Open
    return std::string("no CUDA device: ") + cudaGetErrorName(e);
  }
  return count == 0 ? "no CUDA device" : "";
}

std::unique_ptr<CudaGpu> CudaGpu::Open(int ordinal, std::string* error, bool* no_device) {
  *no_device = true;
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();
    *error = RuntimeError(e, "cudaGetDeviceCount");
    return nullptr;
  }
  if (ordinal < 0 || ordinal >= count) {
    *error =
        "CUDA device " + std::to_string(ordinal) + " does not exist (this machine has " + std::to_string(count) + ")";
    return nullptr;
  }
  *no_device = false;
  std::unique_ptr<CudaGpu> gpu(new CudaGpu(ordinal));
  cudaDeviceProp props{};
  size_t free = 0, total = 0;
  if ((e = cudaSetDevice(ordinal)) != cudaSuccess || (e = cudaFree(nullptr)) != cudaSuccess ||  // makes the context
      (e = cudaGetDeviceProperties(&props, ordinal)) != cudaSuccess ||
      (e = cudaMemGetInfo(&free, &total)) != cudaSuccess) {
    cudaGetLastError();
    *error = RuntimeError(e, "opening the CUDA device");
    return nullptr;
  }
  gpu->name_ = props.name;
  gpu->cc_major_ = static_cast<uint32_t>(props.major);
  gpu->cc_minor_ = static_cast<uint32_t>(props.minor);
  gpu->total_bytes_ = total;
  gpu->vmm_ = gpu->api_->Load(ordinal);
  size_t granule = 0;
  if (gpu->vmm_ &&
      gpu->api_->granularity(&granule, &gpu->api_->prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) == CUDA_SUCCESS &&
      granule != 0) {
    gpu->books_.page = granule;
  } else {
    gpu->vmm_ = false;
  }
  return gpu;
}

CudaGpu::CudaGpu(int ordinal) : ordinal_(ordinal), api_(std::make_unique<DriverApi>()) {
  books_.page = 2ull << 20;  // until the driver says its granule
}

CudaGpu::~CudaGpu() {
  if (!Use()) return;
  // Whatever the policies left behind (they give their pools back first; this is for a failed run).
  for (const auto& [va, bytes] : books_.mallocs) cudaFree(ToPtr(va));
  while (!books_.pages.empty()) UnmapPage(books_.pages.begin()->first);
  for (const auto& [va, bytes] : books_.reservations) api_->address_free(va, bytes);
  if (held_back_ != 0) cudaFree(ToPtr(held_back_));
}

bool CudaGpu::Use() const { return Check(cudaSetDevice(ordinal_), "cudaSetDevice"); }

bool CudaGpu::Check(int status, const char* call) const {
  const auto e = static_cast<cudaError_t>(status);
  if (e == cudaSuccess) return true;
  cudaGetLastError();  // an allocation failure is not sticky: clear it so that the next call does not see it
  last_error_ = RuntimeError(e, call);
  return false;
}

bool CudaGpu::CheckDriver(int result, const char* call) const {
  if (result == CUDA_SUCCESS) return true;
  const char* name = nullptr;
  if (api_->error_name == nullptr || api_->error_name(static_cast<CUresult>(result), &name) != CUDA_SUCCESS) {
    name = "CUresult";
  }
  last_error_ = std::string(call) + ": " + name + " (" + std::to_string(result) + ")";
  return false;
}

uint64_t CudaGpu::free_bytes() const {
  size_t free = 0, total = 0;
  if (!Use() || !Check(cudaMemGetInfo(&free, &total), "cudaMemGetInfo")) return 0;
  return free;
}

uint64_t CudaGpu::Malloc(uint64_t bytes) {
  if (bytes == 0) return 0;
  void* p = nullptr;
  if (!Use() || !Check(cudaMalloc(&p, bytes), "cudaMalloc")) {
    ++counters_.failed_device_allocs;
    return 0;
  }
  const auto va = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
  books_.mallocs[va] = bytes;
  ++counters_.device_allocs;
  return va;
}

bool CudaGpu::Free(uint64_t va) {
  const auto it = books_.mallocs.find(va);
  if (it == books_.mallocs.end() || !Use()) return false;
  const bool ok = Check(cudaFree(ToPtr(va)), "cudaFree");
  books_.mallocs.erase(it);  // even on an error: the pointer is not ours to free twice
  ++counters_.device_frees;
  ++counters_.device_syncs;  // cudaFree synchronises the device
  return ok;
}

uint64_t CudaGpu::ReserveVa(uint64_t bytes) {
  if (!vmm_ || !Use()) return 0;
  const uint64_t size = RoundUp(std::max<uint64_t>(bytes, 1), books_.page);
  CUdeviceptr va = 0;
  if (!CheckDriver(api_->address_reserve(&va, size, books_.page, 0, 0), "cuMemAddressReserve")) return 0;
  books_.reservations[va] = size;
  return va;
}

bool CudaGpu::Map(uint64_t va, uint64_t bytes) {
  const uint64_t page = books_.page;
  if (!vmm_ || !books_.CanMap(va, bytes) || !Use()) return false;
  uint64_t done = va;
  for (; done < va + bytes; done += page) {
    CUmemGenericAllocationHandle h = 0;
    if (!CheckDriver(api_->create(&h, page, &api_->prop, 0), "cuMemCreate")) break;
    if (!CheckDriver(api_->map(done, page, 0, h, 0), "cuMemMap")) {
      api_->release(h);
      break;
    }
    books_.pages[done] = h;
  }
  if (done == va + bytes && CheckDriver(api_->set_access(va, bytes, &api_->access, 1), "cuMemSetAccess")) {
    ++counters_.maps;
    ++counters_.device_allocs;  // one mapping, as the emulator counts it (the driver saw one cuMemCreate a page)
    counters_.pages_mapped += bytes / page;
    return true;
  }
  for (uint64_t p = va; p < done; p += page) UnmapPage(p);
  ++counters_.failed_device_allocs;
  return false;
}

void CudaGpu::UnmapPage(uint64_t va) {
  const auto it = books_.pages.find(va);
  CheckDriver(api_->unmap(va, books_.page), "cuMemUnmap");
  CheckDriver(api_->release(it->second), "cuMemRelease");
  books_.pages.erase(it);
}

bool CudaGpu::Unmap(uint64_t va, uint64_t bytes) {
  const uint64_t page = books_.page;
  if (!books_.AllMapped(va, bytes) || !Use()) return false;
  for (uint64_t p = va; p < va + bytes; p += page) UnmapPage(p);
  ++counters_.unmaps;
  ++counters_.device_frees;
  return true;
}

void CudaGpu::DeviceSynchronize() {
  ++counters_.device_syncs;
  if (Use()) Check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

void CudaGpu::StreamSynchronize() {
  ++counters_.stream_syncs;
  if (Use()) Check(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize");
}

bool CudaGpu::Write(uint64_t va, const void* src, uint64_t bytes) {
  if (!books_.Backed(va, bytes) || !Use()) return false;
  return Check(cudaMemcpy(ToPtr(va), src, bytes, cudaMemcpyHostToDevice), "cudaMemcpy (host to device)");
}

bool CudaGpu::Read(uint64_t va, void* dst, uint64_t bytes) const {
  if (!books_.Backed(va, bytes) || !Use()) return false;
  return Check(cudaMemcpy(dst, ToPtr(va), bytes, cudaMemcpyDeviceToHost), "cudaMemcpy (device to host)");
}

bool CudaGpu::HoldBack(uint64_t bytes, std::string* error) {
  void* p = nullptr;
  if (bytes == 0) return true;
  if (held_back_ != 0 || !Use() || !Check(cudaMalloc(&p, bytes), "cudaMalloc (context_bytes hold-back)")) {
    *error = held_back_ != 0 ? "already holding memory back" : last_error_;
    return false;
  }
  held_back_ = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
  return true;
}

bool CudaGpu::HasGemmKernel() {
#ifdef STRATA_CUDA_GEMM_KERNEL
  return true;
#else
  return false;
#endif
}

bool CudaGpu::Gemm(uint64_t a, uint64_t b, uint64_t c, const reference::GemmSpec& spec, bool accumulate,
                   std::string* error) {
#ifdef STRATA_CUDA_GEMM_KERNEL
  const uint64_t c_bytes = spec.m * spec.n * (spec.int8 ? 1 : 4);
  if (!books_.Backed(a, spec.m * spec.k) || !books_.Backed(b, spec.k * spec.n) || !books_.Backed(c, c_bytes)) {
    *error = "a GEMM operand is not in memory this driver gave";
    return false;
  }
  if (!Use() ||
      !Check(LaunchGemm(reinterpret_cast<const int8_t*>(ToPtr(a)), reinterpret_cast<const int8_t*>(ToPtr(b)), ToPtr(c),
                        spec, accumulate),
             "the GEMM kernel") ||
      !Check(cudaDeviceSynchronize(), "cudaDeviceSynchronize after the GEMM kernel")) {
    *error = last_error_;
    return false;
  }
  return true;
#else
  (void)a, (void)b, (void)c, (void)spec, (void)accumulate;
  *error = "this build has no GEMM kernel (nvcc did not work at configure time)";
  return false;
#endif
}

}  // namespace strata::gpu
