// TEST-ONLY REFERENCE: the cudaMallocAsync pool model as it was before issue [Q] item 4 (see
// async_policy_reference.cc). Same settings and errors as gpu::MakePolicy("jax-async" / "tf-async", ...).
#ifndef STRATA_TESTS_GPU_ASYNC_POLICY_REFERENCE_H_
#define STRATA_TESTS_GPU_ASYNC_POLICY_REFERENCE_H_

#include <memory>
#include <string>

#include "policy.h"

namespace strata::gpu::pre_q_reference {

bool MakeReferenceAsyncPolicy(const std::string& name, GpuDriver& driver, const PolicyConfig& config,
                              std::unique_ptr<Policy>* out, std::string* error);

}  // namespace strata::gpu::pre_q_reference

#endif  // STRATA_TESTS_GPU_ASYNC_POLICY_REFERENCE_H_
