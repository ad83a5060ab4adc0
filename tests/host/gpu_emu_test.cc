// The gpu-emu backend through the C API: the GPU backends' conformance suite over every policy
// (gpu_backend_suite.cc), then what only the emulator has: its sizing options, GPU presets, and JAX's cap at 75% of
// total on a GPU of a chosen size. Links no simulator.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu_backend_suite.h"
#include "strata/strata.h"
#include "strata/strata.hpp"

namespace strata::gpu_suite {
INSTANTIATE_GPU_BACKEND_SUITE(GpuEmu, "gpu-emu");

namespace {

strata_status OpenGpu(const std::vector<strata_named_value>& named, strata_device** d) {
  return OpenBackend("gpu-emu", named, d);
}

TEST(GpuEmuOptions, BadOptionsAreRefusedByName) {
  strata_device* d = nullptr;
  EXPECT_EQ(OpenGpu({Str("policy", "jaxx")}, &d), STRATA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(strata_last_error_message()).find("unknown GPU policy 'jaxx'"), std::string::npos);
  EXPECT_EQ(OpenGpu({Str("gpu", "h999")}, &d), STRATA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(strata_last_error_message()).find("h100-80g"), std::string::npos);
  EXPECT_EQ(OpenGpu({Int("total_bytes", 256 * kMiB), Int("context_bytes", 512 * kMiB)}, &d), STRATA_INVALID_ARGUMENT);
  EXPECT_EQ(OpenGpu({Int("page_bytes", 3000)}, &d), STRATA_INVALID_ARGUMENT);
  EXPECT_EQ(OpenGpu({Str("policy", "jax"), Str("total_bytes", "1")}, &d), STRATA_INVALID_ARGUMENT);  // mistyped
  EXPECT_EQ(d, nullptr);
}

TEST(GpuEmuOptions, TheBackendIsListed) { EXPECT_TRUE(BackendListed("gpu-emu")); }

// strata_get_backend_availability: nothing stands against an emulator; an unknown name and NULLs are refused.
TEST(GpuEmuOptions, AvailabilityWithoutOpening) {
  const char* reason = "unset";
  ASSERT_EQ(strata_get_backend_availability("gpu-emu", &reason), STRATA_OK) << strata_last_error_message();
  EXPECT_STREQ(reason, "");
  EXPECT_EQ(strata_get_backend_availability("no-such-backend", &reason), STRATA_UNIMPLEMENTED);
  EXPECT_NE(std::string(strata_last_error_message()).find("gpu-emu"), std::string::npos);
  EXPECT_EQ(strata_get_backend_availability(nullptr, &reason), STRATA_INVALID_ARGUMENT);
  EXPECT_EQ(strata_get_backend_availability("gpu-emu", nullptr), STRATA_INVALID_ARGUMENT);
}

// strata::Device with named options, as the C API's named values and Python's keywords: each typed by the
// backend's table, checked against what the device then reports.
TEST(GpuEmuOptions, CppDeviceOpensWithNamedOptions) {
  strata::Device dev(
      "gpu-emu",
      {{"policy", "torch"}, {"total_bytes", 96 * kMiB}, {"context_bytes", 0}, {"page_bytes", std::string("65536")}});
  const strata_device_info info = dev.Info();
  EXPECT_EQ(info.hbm_capacity_bytes, 96 * kMiB);
  EXPECT_EQ(info.heap_bytes, 96 * kMiB);  // no CUDA context taken out of it
  // The policy is PyTorch's (it rounds a request to 512 B blocks).
  strata::Context ctx = dev.CreateContext();
  strata::Buffer b = ctx.Alloc(1000);
  EXPECT_EQ(dev.MemoryStats().bytes_in_use, 1024u);
  // JAX's BFC at mem_fraction 0.5 (a double) caps at half the device once it exists (the first allocation);
  // preallocate (a bool) decides whether it takes all of that at once or grows from one 2 MiB region.
  for (const bool preallocate : {true, false}) {
    strata::Device jax("gpu-emu", {{"policy", "jax"},
                                   {"total_bytes", 64 * kMiB},
                                   {"context_bytes", 0},
                                   {"mem_fraction", 0.5},
                                   {"preallocate", preallocate}});
    strata::Context c = jax.CreateContext();
    strata::Buffer small = c.Alloc(1000);
    const strata_memory_stats stats = jax.MemoryStats();
    EXPECT_EQ(stats.bytes_limit, 32 * kMiB);
    EXPECT_EQ(stats.pool_bytes, preallocate ? 32 * kMiB : 2 * kMiB) << preallocate;
  }
}

TEST(GpuEmuOptions, CppDeviceRefusesBadNamedOptions) {
  auto status = [](const std::vector<strata::Option>& options) {
    try {
      strata::Device dev("gpu-emu", options);
    } catch (const strata::Error& e) {
      return std::make_pair(e.status(), std::string(e.what()));
    }
    return std::make_pair(STRATA_OK, std::string());
  };
  auto [st, what] = status({{"total_bytes", "1 GiB"}});  // not an integer: refused before strata_open
  EXPECT_EQ(st, STRATA_INVALID_ARGUMENT);
  EXPECT_NE(what.find("option total_bytes of the gpu-emu backend wants an integer, not '1 GiB'"), std::string::npos)
      << what;
  std::tie(st, what) = status({{"total_bytes", 0.5}});
  EXPECT_EQ(st, STRATA_INVALID_ARGUMENT);
  std::tie(st, what) = status({{"polcy", "jax"}});  // unknown: strata_open's message lists the valid names
  EXPECT_EQ(st, STRATA_INVALID_ARGUMENT);
  EXPECT_NE(what.find("policy"), std::string::npos) << what;
  std::tie(st, what) = status({{"policy", "jaxx"}});
  EXPECT_NE(what.find("unknown GPU policy 'jaxx'"), std::string::npos) << what;
  try {
    strata::Device dev("no-such-backend", {{"policy", "jax"}});
    ADD_FAILURE() << "opened";
  } catch (const strata::Error& e) {
    EXPECT_EQ(e.status(), STRATA_UNIMPLEMENTED);
  }
}

// JAX's default: bytes_limit = roundup(0.75 x total, 2 MiB); a request beyond it fails with kind "cap" while
// a quarter of the device is free (docs/gpu-policies.md P7).
TEST(GpuEmuPolicies, JaxCapsAtThreeQuartersOfTotal) {
  strata_device* d = nullptr;
  ASSERT_EQ(OpenGpu({Str("policy", "jax"), Int("total_bytes", 1000 * kMiB), Int("context_bytes", 0)}, &d), STRATA_OK)
      << strata_last_error_message();
  strata_context c;
  ASSERT_EQ(strata_context_create(d, nullptr, &c), STRATA_OK);
  strata_buffer b;
  ASSERT_EQ(strata_alloc(d, c, 1024, 0, 0, &b), STRATA_OK);
  strata_memory_stats s{};
  s.struct_size = sizeof s;
  ASSERT_EQ(strata_get_memory_stats(d, 0, &s), STRATA_OK);
  EXPECT_EQ(s.bytes_limit, 750 * kMiB);  // 750 MiB is a multiple of 2 MiB
  EXPECT_EQ(s.pool_bytes, 750 * kMiB);   // the whole region on the first allocation
  EXPECT_EQ(strata_alloc(d, c, 800 * kMiB, 0, 0, &b), STRATA_RESOURCE_EXHAUSTED);
  strata_oom_info oom{};
  oom.struct_size = sizeof oom;
  ASSERT_EQ(strata_get_last_oom(d, &oom), STRATA_OK);
  EXPECT_EQ(oom.kind, STRATA_OOM_CAP);
  EXPECT_GE(oom.device_free_bytes, 250 * kMiB - 2 * kMiB);
  EXPECT_EQ(strata_close(d), STRATA_OK);
}

}  // namespace
}  // namespace strata::gpu_suite
