// The cuda backend through the C API: the GPU backends' conformance suite over every policy on the real GPU
// (gpu_backend_suite.cc), and what only this backend has. Without a GPU or driver, strata_open("cuda") fails
// UNAVAILABLE and every test that needs the device is skipped with that message; the option checks, which come
// before CUDA is touched, run everywhere.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu_backend_suite.h"
#include "strata/strata.h"

namespace strata::gpu_suite {
INSTANTIATE_GPU_BACKEND_SUITE(Cuda, "cuda");

namespace {

strata_status OpenCuda(const std::vector<strata_named_value>& named, strata_device** d) {
  return OpenBackend("cuda", named, d);
}

// Skips the calling test, with strata_open's message, where there is no GPU.
#define OPEN_CUDA_OR_SKIP(named, d)                                            \
  do {                                                                         \
    const strata_status s_ = OpenCuda(named, d);                               \
    if (s_ == STRATA_UNAVAILABLE) GTEST_SKIP() << strata_last_error_message(); \
    ASSERT_EQ(s_, STRATA_OK) << strata_last_error_message();                   \
  } while (0)

std::string Message() { return strata_last_error_message(); }

strata_device_info Info(strata_device* d) {
  strata_device_info info{};
  info.struct_size = sizeof info;
  EXPECT_EQ(strata_get_device_info(d, &info), STRATA_OK);
  return info;
}

TEST(CudaBackend, TheBackendIsListed) { EXPECT_TRUE(BackendListed("cuda")); }

// Here (no driver): UNAVAILABLE, the CUDA call and error named, no device handed out.
TEST(CudaBackend, WithoutAGpuOpenFailsUnavailableNamingTheCudaError) {
  strata_device* d = nullptr;
  const strata_status s = OpenCuda({}, &d);
  if (s == STRATA_OK) {
    EXPECT_EQ(strata_close(d), STRATA_OK);
    GTEST_SKIP() << "a CUDA GPU is present: nothing to check";
  }
  EXPECT_EQ(s, STRATA_UNAVAILABLE) << Message();
  EXPECT_NE(Message().find("no usable CUDA GPU: cudaGetDeviceCount: cudaError"), std::string::npos) << Message();
  EXPECT_EQ(d, nullptr);
}

// Every bad option is INVALID_ARGUMENT on any machine: they are checked before CUDA is touched.
TEST(CudaBackend, BadOptionsAreRefusedBeforeCudaIsTouched) {
  strata_device* d = nullptr;
  EXPECT_EQ(OpenCuda({Str("policy", "jaxx")}, &d), STRATA_INVALID_ARGUMENT);
  EXPECT_NE(Message().find("unknown GPU policy 'jaxx'"), std::string::npos) << Message();
  // The emulator's sizing options do not exist here: the real GPU has its own size and granule.
  for (const strata_named_value& emulated :
       {Str("gpu", "h100-80g"), Int("total_bytes", 1024 * kMiB), Int("page_bytes", 65536)}) {
    EXPECT_EQ(OpenCuda({emulated}, &d), STRATA_INVALID_ARGUMENT) << emulated.name;
    EXPECT_NE(Message().find(std::string("backend 'cuda' has no option '") + emulated.name + "'"), std::string::npos)
        << Message();
  }
  EXPECT_EQ(OpenCuda({Int("device", -1)}, &d), STRATA_INVALID_ARGUMENT);
  EXPECT_EQ(OpenCuda({Int("context_bytes", -5)}, &d), STRATA_INVALID_ARGUMENT);
  EXPECT_EQ(OpenCuda({Int("policy", 3)}, &d), STRATA_INVALID_ARGUMENT);  // mistyped
  EXPECT_EQ(OpenCuda({Str("policy", "jax"), Str("garbage_collection", "true")}, &d), STRATA_INVALID_ARGUMENT);
  EXPECT_NE(Message().find("option 'garbage_collection' is not one of policy jax's"), std::string::npos) << Message();
  EXPECT_EQ(OpenCuda({Str("policy", "jax"), Str("mem_fraction", "lots")}, &d), STRATA_INVALID_ARGUMENT);
  EXPECT_NE(Message().find("mem_fraction"), std::string::npos) << Message();
  EXPECT_EQ(d, nullptr);
}

TEST(CudaBackend, DeviceInfoDescribesTheGpu) {
  strata_device* d = nullptr;
  OPEN_CUDA_OR_SKIP({}, &d);
  const strata_device_info info = Info(d);
  EXPECT_STREQ(info.backend, "cuda");
  EXPECT_GT(info.hbm_capacity_bytes, 0u);
  EXPECT_LT(info.heap_bytes, info.hbm_capacity_bytes);  // the CUDA context takes something
  EXPECT_EQ(strata_close(d), STRATA_OK);
}

// context_bytes means what it means on gpu-emu, free at start = total - context_bytes: the difference to the
// real context is held back; less than the real context is refused.
TEST(CudaBackend, ContextBytesHoldsBackMemory) {
  strata_device* d = nullptr;
  OPEN_CUDA_OR_SKIP({}, &d);
  strata_device_info info = Info(d);
  ASSERT_EQ(strata_close(d), STRATA_OK);
  const uint64_t context = info.hbm_capacity_bytes - info.heap_bytes;
  EXPECT_EQ(OpenCuda({Int("context_bytes", 1)}, &d), STRATA_INVALID_ARGUMENT);
  EXPECT_NE(Message().find("is less than the CUDA context"), std::string::npos) << Message();
  const int64_t wanted = static_cast<int64_t>(context + 1024 * kMiB);
  ASSERT_EQ(OpenCuda({Int("context_bytes", wanted)}, &d), STRATA_OK) << Message();
  info = Info(d);
  EXPECT_EQ(info.heap_bytes, info.hbm_capacity_bytes - static_cast<uint64_t>(wanted));
  EXPECT_EQ(strata_close(d), STRATA_OK);
}

}  // namespace
}  // namespace strata::gpu_suite
