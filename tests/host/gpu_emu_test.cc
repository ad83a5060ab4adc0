// The gpu-emu backend through the C API: the GPU backends' conformance suite over every policy
// (gpu_backend_suite.cc), then what only the emulator has: its sizing options, GPU presets, and JAX's cap at 75% of
// total on a GPU of a chosen size. Links no simulator.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "emu_gpu.h"
#include "gpu_backend_suite.h"
#include "policy.h"
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

// The standard open option capacity_bytes (API 1.10) is free at start: the CUDA context comes on top of it, the
// preset's unless context_bytes says otherwise. Given with total_bytes it is refused (two sizes of one device).
TEST(GpuEmuOptions, CapacityBytesIsFreeAtStart) {
  for (const uint64_t capacity : {2 * kMiB, 48 * kMiB, 3074 * kMiB}) {
    for (const int64_t context : {int64_t{-1}, int64_t{0}, int64_t{7 * kMiB}}) {
      std::vector<strata::Option> options = {{"policy", "torch"}, {"capacity_bytes", capacity}};
      if (context >= 0) options.emplace_back("context_bytes", context);
      strata::Device dev("gpu-emu", options);
      const strata_device_info info = dev.Info();
      const uint64_t context_bytes = context >= 0 ? static_cast<uint64_t>(context) : gpu::GpuSpec{}.context_bytes;
      EXPECT_EQ(info.heap_bytes, capacity) << capacity << " " << context;
      EXPECT_EQ(info.hbm_capacity_bytes, capacity + context_bytes) << capacity << " " << context;
    }
  }
  strata_device* d = nullptr;
  EXPECT_EQ(OpenGpu({Int("capacity_bytes", 64 * kMiB), Int("total_bytes", 128 * kMiB)}, &d), STRATA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(strata_last_error_message()).find("give one of them, not both"), std::string::npos);
  EXPECT_EQ(OpenGpu({Int("capacity_bytes", -1)}, &d), STRATA_INVALID_ARGUMENT);
  EXPECT_EQ(d, nullptr);
}

// The backend describes its presets and policies (API 1.10): the choices are the tables' own names, in order, and
// each default is one of them.
TEST(GpuEmuOptions, ChoicesAreTheTablesNames) {
  std::map<std::string, strata::OptionInfo> by_name;
  for (const strata::OptionInfo& o : strata::BackendOptions("gpu-emu")) by_name[o.name] = o;
  EXPECT_EQ(by_name["policy"].choices, gpu::PolicyNames());
  EXPECT_EQ(strata::OptionChoices("gpu-emu", "policy"), gpu::PolicyNames());
  std::string presets;
  for (const std::string& g : by_name["gpu"].choices) presets += (presets.empty() ? "" : ", ") + g;
  EXPECT_EQ(presets, gpu::GpuPresetNames());
  for (const char* name : {"policy", "gpu"}) {
    const auto& c = by_name[name].choices;
    EXPECT_NE(std::find(c.begin(), c.end(), by_name[name].default_value), c.end()) << name;
  }
  EXPECT_EQ(by_name["context_bytes"].default_int64, static_cast<int64_t>(gpu::GpuSpec{}.context_bytes));
  EXPECT_TRUE(by_name["total_bytes"].choices.empty());
  EXPECT_TRUE(strata::OptionChoices("no-such-backend", "policy").empty());
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

// A context's own figures (API 1.9): its policy's bytes_in_use and pool_bytes.
std::pair<uint64_t, uint64_t> ContextFigures(strata_device* d, strata_context c) {
  strata_memory_stats s{};
  s.struct_size = sizeof s;
  EXPECT_EQ(strata_get_memory_stats(d, c, &s), STRATA_OK) << strata_last_error_message();
  return {s.context_allocated_bytes, s.context_pool_bytes};
}

strata_status CreateContext(strata_device* d, const std::vector<strata_named_value>& named, strata_context* c) {
  strata_context_options o{};
  o.struct_size = sizeof o;
  o.named_options = named.data();
  o.num_named_options = static_cast<uint32_t>(named.size());
  return strata_context_create(d, &o, c);
}

// Two contexts with different policies (API 1.9) on one gpu-emu device behave as two instances of those policies
// made directly (gpu::MakePolicy) over one emulated GPU of the same shape: on random traces the same allocations
// fail, with the same kind, and after every call each context's bytes_in_use and pool_bytes are its instance's and the
// device-wide figures the two instances' sums (the backend's cached statistics are never stale), as are the driver's
// counters at the end. The device's own policy (jax) is neither's, and the first context gets a setting of its policy.
TEST(GpuEmuContextPolicies, EachContextIsItsOwnPolicyInstance) {
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"jax", "tf"},        {"torch", "jax-async"},        {"tf-async", "torch-expandable"},
      {"tf", "jax-growth"}, {"jax-platform", "tf-growth"}, {"torch-expandable", "jax"}};
  const std::map<std::string, std::map<std::string, std::string>> setting = {{"jax", {{"mem_fraction", "0.4"}}},
                                                                             {"tf", {{"memory_fraction", "0.3"}}},
                                                                             {"torch", {{"memory_fraction", "0.5"}}}};
  constexpr uint64_t kTotal = 256 * kMiB, kPage = 64 * 1024;
  std::mt19937_64 rng(20261129);
  uint64_t failures = 0, successes = 0;
  for (const auto& [first, second] : pairs) {
    for (int seed = 0; seed < 3; ++seed) {
      SCOPED_TRACE(first + " + " + second + ", trace " + std::to_string(seed));
      strata_device* d = nullptr;
      ASSERT_EQ(
          OpenGpu({Str("policy", "jax"), Int("total_bytes", kTotal), Int("context_bytes", 0), Int("page_bytes", kPage)},
                  &d),
          STRATA_OK)
          << strata_last_error_message();
      gpu::GpuSpec spec;
      ASSERT_TRUE(gpu::GpuPresetByName(gpu::kDefaultGpuPreset, &spec));
      spec.total_bytes = kTotal;
      spec.context_bytes = 0;
      spec.page_bytes = kPage;
      gpu::EmuGpu reference(spec);  // declared before the policies: they give their pools back to it
      std::vector<std::unique_ptr<gpu::Policy>> policies(2);
      std::vector<strata_context> contexts(2);
      const std::string names[2] = {first, second};
      for (int k = 0; k < 2; ++k) {
        gpu::PolicyConfig config;
        std::vector<strata_named_value> named = {Str("policy", names[k].c_str())};
        if (k == 0 && setting.count(names[k])) {
          for (const auto& [name, value] : setting.at(names[k])) {
            config.options[name] = value;
            named.push_back(Str(name.c_str(), value.c_str()));
          }
        }
        std::string error;
        ASSERT_TRUE(gpu::MakePolicy(names[k], reference, config, &policies[k], &error)) << error;
        ASSERT_EQ(CreateContext(d, named, &contexts[k]), STRATA_OK) << strata_last_error_message();
      }
      std::vector<std::vector<std::pair<strata_buffer, uint64_t>>> live(2);  // handle, reference pointer
      std::uniform_real_distribution<double> unit(0, 1);
      for (int step = 0; step < 300; ++step) {
        const int k = static_cast<int>(rng() % 2);
        if (!live[k].empty() && unit(rng) < 0.45) {
          const size_t at = rng() % live[k].size();
          ASSERT_EQ(strata_free(d, contexts[k], live[k][at].first), STRATA_OK) << strata_last_error_message();
          policies[k]->Deallocate(live[k][at].second);
          live[k].erase(live[k].begin() + static_cast<std::ptrdiff_t>(at));
        } else {
          const uint64_t bytes = 1 + static_cast<uint64_t>(std::exp2(unit(rng) * 26));  // 1 B .. 64 MiB, log-uniform
          gpu::Oom oom;
          const uint64_t ptr = policies[k]->Allocate(bytes, 0, &oom);
          strata_buffer b = 0;
          const strata_status st = strata_alloc(d, contexts[k], bytes, 0, 0, &b);
          ASSERT_EQ(st == STRATA_OK, ptr != 0) << "step " << step << ", " << bytes << " B on " << names[k];
          if (ptr != 0) {
            live[k].push_back({b, ptr});
            ++successes;
          } else {
            ASSERT_EQ(st, STRATA_RESOURCE_EXHAUSTED);
            const std::string message = strata_last_error_message();  // before the next call replaces it
            strata_oom_info info{};
            info.struct_size = sizeof info;
            ASSERT_EQ(strata_get_last_oom(d, &info), STRATA_OK);
            EXPECT_STREQ(strata_oom_kind_name(info.kind), gpu::OomKindName(oom.kind));
            EXPECT_NE(message.find(". " + names[k] + " says: " + oom.message), std::string::npos) << message;
            ++failures;
          }
        }
        gpu::PolicyStats sum;  // the device-wide figures the two instances add up to
        for (int j = 0; j < 2; ++j) {
          const gpu::PolicyStats want = policies[j]->Stats();
          const auto [in_use, pool] = ContextFigures(d, contexts[j]);
          ASSERT_EQ(in_use, want.bytes_in_use) << "step " << step << ", " << names[j];
          ASSERT_EQ(pool, want.pool_bytes) << "step " << step << ", " << names[j];
          sum.bytes_in_use += want.bytes_in_use;
          sum.peak_bytes_in_use += want.peak_bytes_in_use;
          sum.pool_bytes += want.pool_bytes;
          sum.requested_bytes += want.requested_bytes;
          sum.inactive_split_bytes += want.inactive_split_bytes;
          sum.largest_free_block_bytes = std::max(sum.largest_free_block_bytes, want.largest_free_block_bytes);
          sum.num_allocs += want.num_allocs;
          sum.num_frees += want.num_frees;
          sum.num_failed_allocs += want.num_failed_allocs;
          sum.num_alloc_retries += want.num_alloc_retries;
        }
        strata_memory_stats all{};
        all.struct_size = sizeof all;
        ASSERT_EQ(strata_get_memory_stats(d, 0, &all), STRATA_OK);
        ASSERT_EQ(std::vector<uint64_t>({all.bytes_in_use, all.peak_bytes_in_use, all.pool_bytes, all.requested_bytes,
                                         all.inactive_split_bytes, all.largest_free_block_bytes, all.num_allocs,
                                         all.num_frees, all.num_failed_allocs, all.num_alloc_retries}),
                  std::vector<uint64_t>({sum.bytes_in_use, sum.peak_bytes_in_use, sum.pool_bytes, sum.requested_bytes,
                                         sum.inactive_split_bytes, sum.largest_free_block_bytes, sum.num_allocs,
                                         sum.num_frees, sum.num_failed_allocs, sum.num_alloc_retries}))
            << "step " << step;
      }
      strata_memory_stats all{};
      all.struct_size = sizeof all;
      ASSERT_EQ(strata_get_memory_stats(d, 0, &all), STRATA_OK);
      EXPECT_EQ(all.device_allocs, reference.counters().device_allocs);
      EXPECT_EQ(all.maps, reference.counters().maps);
      EXPECT_EQ(all.context_allocated_bytes, 0u);  // device-wide: no context's
      EXPECT_EQ(strata_close(d), STRATA_OK);
    }
  }
  EXPECT_GT(failures, 50u);  // the traces reach the policies' limits, not only their fast paths
  EXPECT_GT(successes, 500u);
}

// A bad context option is refused by name with INVALID_ARGUMENT and creates nothing: no context, no id, no memory
// taken from the device.
TEST(GpuEmuContextPolicies, BadContextOptionsAreRefusedAndCreateNothing) {
  strata_device* d = nullptr;
  ASSERT_EQ(OpenGpu({Str("policy", "torch"), Int("total_bytes", 256 * kMiB), Int("context_bytes", 0)}, &d), STRATA_OK);
  strata_context first = 0;
  ASSERT_EQ(strata_context_create(d, nullptr, &first), STRATA_OK);
  strata_memory_stats before{};
  before.struct_size = sizeof before;
  ASSERT_EQ(strata_get_memory_stats(d, 0, &before), STRATA_OK);
  const struct {
    std::vector<strata_named_value> named;
    const char* said;
  } cases[] = {
      {{Str("polcy", "jax")}, "has no context option 'polcy'"},
      {{Str("policy", "jaxx")}, "unknown GPU policy 'jaxx'"},
      {{Int("policy", 1)}, "context option 'policy' is a string, not a int64"},
      {{Str("mem_fraction", "0.5")}, "option 'mem_fraction' is not one of policy torch's"},  // the device's policy
      {{Str("policy", "tf"), Str("mem_fraction", "0.5")}, "option 'mem_fraction' is not one of policy tf's"},
      {{Str("policy", "jax"), Str("mem_fraction", "2")}, "mem_fraction"},
      {{Str("policy", "jax"), Str("preallocate", "maybe")}, "preallocate"},
  };
  for (const auto& c : cases) {
    strata_context out = 12345;
    EXPECT_EQ(CreateContext(d, c.named, &out), STRATA_INVALID_ARGUMENT) << c.said;
    EXPECT_NE(std::string(strata_last_error_message()).find(c.said), std::string::npos) << strata_last_error_message();
    EXPECT_EQ(out, 12345u);
  }
  strata_memory_stats after{};
  after.struct_size = sizeof after;
  ASSERT_EQ(strata_get_memory_stats(d, 0, &after), STRATA_OK);
  EXPECT_EQ(after.contexts, 1u);
  EXPECT_EQ(after.pool_bytes, before.pool_bytes);
  EXPECT_EQ(after.device_allocs, before.device_allocs);
  strata_context next = 0;
  ASSERT_EQ(CreateContext(d, {Str("policy", "jax")}, &next), STRATA_OK) << strata_last_error_message();
  EXPECT_EQ(next, first + 1);  // the refused calls took no id
  EXPECT_EQ(strata_close(d), STRATA_OK);
}

// What a context does not give is the device's: its policy, and each of its settings that the context's policy has.
// An older caller's struct (API 1.8's size) gets the device's policy whatever lies after it.
TEST(GpuEmuContextPolicies, WhatAContextDoesNotGiveIsTheDevices) {
  strata_device* d = nullptr;
  ASSERT_EQ(OpenGpu({Str("policy", "jax"), Str("mem_fraction", "0.5"), Int("total_bytes", 1000 * kMiB),
                     Int("context_bytes", 0)},
                    &d),
            STRATA_OK)
      << strata_last_error_message();
  strata_buffer b = 0;
  strata_context plain = 0, growth = 0, torch = 0;
  ASSERT_EQ(strata_context_create(d, nullptr, &plain), STRATA_OK);
  ASSERT_EQ(strata_alloc(d, plain, 1024, 0, 0, &b), STRATA_OK);
  EXPECT_EQ(ContextFigures(d, plain).second, 500 * kMiB);  // JAX preallocates the device's fraction, 0.5
  // Its own preallocate=false, the device's mem_fraction: a small pool, and the cap at 500 MiB.
  ASSERT_EQ(CreateContext(d, {Str("policy", "jax"), Str("preallocate", "false")}, &growth), STRATA_OK);
  ASSERT_EQ(strata_alloc(d, growth, 1024, 0, 0, &b), STRATA_OK);
  EXPECT_LT(ContextFigures(d, growth).second, 500 * kMiB);
  EXPECT_EQ(strata_alloc(d, growth, 499 * kMiB, 0, 0, &b), STRATA_RESOURCE_EXHAUSTED);
  strata_oom_info oom{};
  oom.struct_size = sizeof oom;
  ASSERT_EQ(strata_get_last_oom(d, &oom), STRATA_OK);
  EXPECT_EQ(oom.limit_bytes, 500 * kMiB);  // the device's 0.5 (JAX's own default would be 750 MiB)
  // PyTorch has no mem_fraction: it rounds 1 B to its 512-byte block and takes what it asks for.
  ASSERT_EQ(CreateContext(d, {Str("policy", "torch")}, &torch), STRATA_OK);
  ASSERT_EQ(strata_alloc(d, torch, 1, 0, 0, &b), STRATA_OK);
  EXPECT_EQ(ContextFigures(d, torch).first, 512u);
  // A 1.8 caller's struct: what lies after it is not read.
  const test_values::OldContextOptions old;
  strata_context from_old = 0;
  ASSERT_EQ(strata_context_create(d, &old.options, &from_old), STRATA_OK) << strata_last_error_message();
  ASSERT_EQ(strata_alloc(d, from_old, 1, 0, 0, &b), STRATA_OK);
  EXPECT_EQ(ContextFigures(d, from_old).first, 256u);  // BFC's 256-byte granule: the device's jax
  EXPECT_EQ(strata_close(d), STRATA_OK);
}

}  // namespace
}  // namespace strata::gpu_suite
