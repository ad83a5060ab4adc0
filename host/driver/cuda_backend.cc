// The `cuda` backend: a real GPU (host/gpu/cuda_gpu.h) under the same JAX / TensorFlow / PyTorch policies as
// gpu-emu, through the same tenants, handles, stats and Defragment() (gpu_policy_backend.h). GEMM runs on the GPU
// when the build has the kernel. With no driver or no GPU, strata_open fails UNAVAILABLE naming the CUDA error.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "cuda_gpu.h"
#include "gpu_policy_backend.h"

namespace strata::driver {
namespace {

class CudaBackend : public GpuPolicyBackend {
 public:
  CudaBackend(std::unique_ptr<gpu::CudaGpu> gpu, uint64_t heap_bytes, std::string policy, gpu::PolicyConfig config)
      : GpuPolicyBackend(std::move(gpu), heap_bytes, std::move(policy), std::move(config)) {}
  const char* name() const override { return "cuda"; }

 protected:
  Error RunGemm(uint64_t a, uint64_t b, uint64_t c, const reference::GemmSpec& spec, bool accumulate) override {
    if (!gpu::CudaGpu::HasGemmKernel()) return GpuPolicyBackend::RunGemm(a, b, c, spec, accumulate);
    std::string error;
    if (!static_cast<gpu::CudaGpu&>(driver()).Gemm(a, b, c, spec, accumulate, &error)) {
      return {STRATA_INTERNAL, "GEMM on the GPU failed: " + error};
    }
    return {};
  }
};

const std::vector<std::string> kCudaOptions = {"device", "context_bytes"};

Error OpenCuda(const OpenOptions& o, std::unique_ptr<Backend>* out) {
  const int64_t device = o.GetInt("device", 0), context = o.GetInt("context_bytes", -1);
  if (device < 0 || device > 1023) return {STRATA_INVALID_ARGUMENT, "device must be a CUDA device ordinal 0 .. 1023"};
  if (o.Has("context_bytes") && context < 0) return {STRATA_INVALID_ARGUMENT, "context_bytes must not be negative"};
  std::string policy;
  gpu::PolicyConfig config;
  Error e = GpuPolicyFromOptions(o, kCudaOptions, &policy, &config);
  // Settings are checked before CUDA is touched, so that a bad one is INVALID_ARGUMENT on any machine.
  gpu::GpuSpec largest;  // the largest preset: a setting that only fits a smaller GPU is caught below, at open
  gpu::GpuPresetByName("b200", &largest);
  if (e.ok()) e = CheckGpuPolicy(policy, config, largest);
  if (!e.ok()) return e;

  std::string error;
  bool no_device = false;
  std::unique_ptr<gpu::CudaGpu> gpu = gpu::CudaGpu::Open(static_cast<int>(device), &error, &no_device);
  if (!gpu) {
    return {STRATA_UNAVAILABLE, std::string(no_device ? "no usable CUDA GPU: " : "the CUDA device failed: ") + error};
  }
  // What the CUDA context (and anyone else on the GPU) holds now; context_bytes may hold back more, never less.
  const uint64_t total = gpu->total_bytes(), taken = total - std::min(total, gpu->free_bytes());
  uint64_t context_bytes = taken;
  if (context >= 0) {
    context_bytes = static_cast<uint64_t>(context);
    if (context_bytes < taken) {
      return {STRATA_INVALID_ARGUMENT, "context_bytes (" + GpuBytes(context_bytes) +
                                           ") is less than the CUDA context and other users already hold on " +
                                           gpu->device_name() + " (" + GpuBytes(taken) + ")"};
    }
    if (context_bytes >= total) {
      return {STRATA_INVALID_ARGUMENT, "context_bytes (" + GpuBytes(context_bytes) + ") leaves nothing of " +
                                           gpu->device_name() + "'s " + GpuBytes(total)};
    }
    if (!gpu->HoldBack(context_bytes - taken, &error)) {
      return {STRATA_RESOURCE_EXHAUSTED, "holding back context_bytes: " + error};
    }
  }
  // Again with the real GPU's figures (a scratch emulation: nothing is allocated).
  gpu::GpuSpec real;
  real.name = gpu->device_name();
  real.total_bytes = total;
  real.context_bytes = context_bytes;
  real.cc_major = gpu->cc_major();
  real.cc_minor = gpu->cc_minor();
  real.page_bytes = gpu->page_bytes();
  e = CheckGpuPolicy(policy, config, real);
  if (!e.ok()) return e;
  *out = std::make_unique<CudaBackend>(std::move(gpu), total - context_bytes, policy, config);
  return {};
}

std::vector<OptionSpec> CudaOptions() {
  std::vector<OptionSpec> specs = {
      {"device", STRATA_VALUE_INT64, "0", "CUDA device ordinal (as cudaSetDevice; CUDA_VISIBLE_DEVICES applies)"},
      {"context_bytes", STRATA_VALUE_INT64, "-1",
       "free at start = total - this, as on gpu-emu: the difference to what the CUDA context already holds is held "
       "back with one cudaMalloc; -1 = the context as measured"},
  };
  for (OptionSpec& s : GpuPolicyOptionSpecs()) specs.push_back(std::move(s));
  return specs;
}

std::string CudaUnavailable() { return gpu::CudaGpu::Unavailable(); }

}  // namespace

void strata_register_backend_cuda() {
  RegisterBackend({"cuda", "a real GPU through CUDA under a JAX / TensorFlow / PyTorch allocation policy",
                   CudaOptions(), OpenCuda, CudaUnavailable, GpuPolicyOptionSpecs()});
}

}  // namespace strata::driver
