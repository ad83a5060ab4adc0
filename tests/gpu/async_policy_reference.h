// TEST-ONLY REFERENCE: the cudaMallocAsync pool model as it was before issue [Q] item 4 (see
// async_policy_reference.cc), built from the settings gpu::ResolveAsyncSettings gives for "jax-async" / "tf-async".
#ifndef STRATA_TESTS_GPU_ASYNC_POLICY_REFERENCE_H_
#define STRATA_TESTS_GPU_ASYNC_POLICY_REFERENCE_H_

#include <memory>
#include <string>

#include "families.h"
#include "policy.h"

namespace strata::gpu::pre_q_reference {

std::unique_ptr<Policy> MakeReferenceAsyncPool(GpuDriver& driver, const AsyncSettings& settings);

}  // namespace strata::gpu::pre_q_reference

#endif  // STRATA_TESTS_GPU_ASYNC_POLICY_REFERENCE_H_
