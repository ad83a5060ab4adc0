// libFuzzer target: operation sequences from the fuzzer's bytes drive the shared allocator harness (Check(),
// model, exact stats and shadow contents after every operation), over every policy and small metadata pools,
// with the 32-bit fast paths (inputs of even length) and without them (odd length: the generic code alone).
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "alloc_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  using strata::alloc::Policy;
  strata::alloc::testing::HarnessConfig config;
  // The first two bytes pick the configuration; the rest is the operation stream.
  config.policy = static_cast<Policy>(data[0] % strata::alloc::kNumPolicies);
  config.max_live = 4 + (data[0] >> 2) % 60;
  config.granule_bytes = 1u << (2 + data[1] % 7);  // 4 B .. 256 B
  config.capacity_bytes = uint64_t{config.granule_bytes} * (64 + (data[1] >> 3) * 16);
  config.max_moves = 1 + data[1] % 8;
  config.fast_paths = size % 2 == 0;
  strata::alloc::testing::BytesSource src(data + 2, size - 2);
  strata::alloc::testing::Harness<strata::alloc::Allocator> h(config);
  for (int ops = 0; ops < 2000 && !src.Exhausted(); ++ops) {
    if (!h.Step(src)) {
      fprintf(stderr, "alloc_fuzz: %s\n", h.error().c_str());
      __builtin_trap();
    }
  }
  return 0;
}
