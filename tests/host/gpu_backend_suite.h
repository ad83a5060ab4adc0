// One conformance suite for the backends (gpu-emu and cuda over every policy, and the sim backend: the model
// with its firmware allocator) through the C API: bit-exact
// copies and GEMM, stats identities, handle misuse, quotas, OOM kinds and JAX's defragmentation, each with its
// precise status. gpu_backend_suite.cc holds the tests; each backend's test file instantiates them
// (INSTANTIATE_GPU_BACKEND_SUITE) and adds its own. A backend that cannot open here (cuda without a GPU: UNAVAILABLE)
// skips every test with the reason.
#ifndef STRATA_TESTS_HOST_GPU_BACKEND_SUITE_H_
#define STRATA_TESTS_HOST_GPU_BACKEND_SUITE_H_

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "named_values.h"
#include "strata/strata.h"

namespace strata::gpu_suite {

constexpr uint64_t kMiB = 1ull << 20;

using test_values::Int;
using test_values::Str;
strata_status OpenBackend(const char* backend, const std::vector<strata_named_value>& named, strata_device** d);
bool BackendListed(const char* backend);  // strata_list_backends names it

struct GpuCase {
  const char* backend;
  const char* policy;
};
// Every GPU policy (gpu::PolicyNames()) on `backend`.
std::vector<GpuCase> EveryPolicyOn(const char* backend);
void PrintTo(const GpuCase& c, std::ostream* os);                        // "cuda torch": CTest's test names show it
std::string GpuCaseName(const ::testing::TestParamInfo<GpuCase>& info);  // the policy, '-' as '_'

class GpuBackendTest : public ::testing::TestWithParam<GpuCase> {
 protected:
  // Opens the backend with the policy (gpu-emu: a 1 GiB GPU with no context) and one context; skips the test
  // with strata_open's message when the backend is UNAVAILABLE here.
  void SetUp() override;
  void TearDown() override;
  strata_memory_stats Stats();
  uint64_t TotalBytes();  // the GPU's total memory (strata_device_info.hbm_capacity_bytes)
  bool OnModel() const;   // the sim backend: the Strata model and its firmware allocator, no GPU policy
  strata_context QuotaContext(uint64_t quota_bytes);  // a second context with that quota (fails the test if refused)
  strata_device* dev_ = nullptr;
  strata_context ctx_ = 0;
};

}  // namespace strata::gpu_suite

#define INSTANTIATE_GPU_BACKEND_SUITE(PREFIX, BACKEND)                                                               \
  INSTANTIATE_TEST_SUITE_P(PREFIX, GpuBackendTest, ::testing::ValuesIn(::strata::gpu_suite::EveryPolicyOn(BACKEND)), \
                           ::strata::gpu_suite::GpuCaseName)

#endif  // STRATA_TESTS_HOST_GPU_BACKEND_SUITE_H_
