// The jax / jax-growth / tf / tf-growth policies: limits, validation cases of the BFC's rules (docs/gpu-policies.md),
// every environment variable with its values and bad values, explicit options, routing, OOM kinds and messages.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "emu_gpu.h"
#include "families.h"
#include "policy.h"

namespace strata::gpu {
namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kGiB = 1ull << 30;

GpuSpec Device(uint64_t total, uint64_t context = 0, uint32_t cc_major = 9) {
  GpuSpec s;
  s.total_bytes = total;
  s.context_bytes = context;
  s.cc_major = cc_major;
  return s;
}

// A policy built from a fake environment and explicit options.
struct Made {
  std::unique_ptr<Policy> policy;
  std::string error;
  bool ok = false;
};

Made Make(const std::string& name, GpuDriver& gpu, std::map<std::string, std::string> env,
          std::map<std::string, std::string> options = {}) {
  auto store = std::make_shared<std::map<std::string, std::string>>(std::move(env));
  PolicyConfig config;
  config.env = [store](const char* var) -> const char* {
    auto it = store->find(var);
    return it == store->end() ? nullptr : it->second.c_str();
  };
  config.options = std::move(options);
  Made m;
  m.ok = MakePolicy(name, gpu, config, &m.policy, &m.error);
  return m;
}

bool Has(const std::string& haystack, const std::string& needle) { return haystack.find(needle) != std::string::npos; }

// ---- JAX ------------------------------------------------------------------------------------------

// Rule 7: first allocation -> pool_bytes = bytes_limit = roundup(0.75 total, 2 MiB); a request above
// bytes_limit - bytes_in_use fails with kind "cap" although a quarter of the device is free.
TEST(JaxPolicy, FixedPoolIsThreeQuartersOfTotal) {
  EmuGpu gpu(Device(1001 * kMiB));  // 0.75 x 1001 MiB = 750.75 MiB -> 752 MiB
  Made m = Make("jax", gpu, {});
  ASSERT_TRUE(m.ok) << m.error;
  Policy& p = *m.policy;
  EXPECT_EQ(std::string(p.name()), "jax");
  EXPECT_EQ(p.Stats().bytes_limit, 752 * kMiB);
  EXPECT_EQ(p.Stats().pool_bytes, 0u);
  Oom oom;
  const uint64_t a = p.Allocate(1024, 0, &oom);
  ASSERT_NE(a, 0u);
  EXPECT_EQ(p.Stats().pool_bytes, 752 * kMiB);
  EXPECT_EQ(p.Stats().segments, 1u);
  EXPECT_EQ(p.Allocate(752 * kMiB - 1024 + 1, 0, &oom), 0u);
  EXPECT_EQ(oom.kind, OomKind::kCap);
  EXPECT_GE(gpu.free_bytes(), 248 * kMiB);
  EXPECT_EQ(oom.limit_bytes, 752 * kMiB);
  EXPECT_EQ(oom.live_bytes, 1024u);
  EXPECT_EQ(oom.reserved_bytes, 752 * kMiB);
  EXPECT_EQ(oom.rounded_bytes, 752 * kMiB - 1024 + 256);
  EXPECT_TRUE(Has(oom.message, "Allocator (GPU_0_bfc) ran out of memory trying to allocate 752.00MiB")) << oom.message;
  EXPECT_TRUE(Has(oom.message, "(rounded to " + std::to_string(752 * kMiB - 768) + ")"));
  const std::string hint =
      "If this is caused by memory fragmentation, the environment variable 'TF_GPU_ALLOCATOR=cuda_malloc_async' may "
      "improve the situation.";
  EXPECT_EQ(oom.message.substr(oom.message.size() - hint.size()), hint);
  const PolicyStats s = p.Stats();
  EXPECT_EQ(s.num_failed_allocs, 1u);
  EXPECT_EQ(s.oom_cap, 1u);
  EXPECT_EQ(s.num_alloc_retries, 1u);
  // What fits under the limit still succeeds in the one region.
  EXPECT_NE(p.Allocate(752 * kMiB - 1024, 0, &oom), 0u);
  EXPECT_EQ(p.Stats().segments, 1u);
  p.Deallocate(a);
  EXPECT_EQ(p.Stats().num_frees, 1u);
}

TEST(JaxPolicy, MoreThanTheDeviceIsCapacity) {
  EmuGpu gpu(Device(kGiB));
  Made m = Make("jax", gpu, {});
  ASSERT_TRUE(m.ok);
  Oom oom;
  EXPECT_EQ(m.policy->Allocate(2 * kGiB, 0, &oom), 0u);
  EXPECT_EQ(oom.kind, OomKind::kCapacity);
  EXPECT_EQ(m.policy->Stats().oom_capacity, 1u);
}

TEST(JaxPolicy, FragmentationInGrowthModeWithoutGc) {
  EmuGpu gpu(Device(kGiB));
  Made m = Make("jax-growth", gpu, {}, {{"mem_fraction", "0.0078125"}});  // 8 MiB limit
  ASSERT_TRUE(m.ok) << m.error;
  Policy& p = *m.policy;
  Oom oom;
  const uint64_t x = p.Allocate(2 * kMiB, 0, &oom);  // region 2 MiB
  const uint64_t y = p.Allocate(4 * kMiB, 0, &oom);  // region 4 MiB
  ASSERT_NE(x, 0u);
  ASSERT_NE(y, 0u);
  p.Deallocate(x);
  p.Deallocate(y);
  // 6 MiB free in two regions and 2 MiB left under the limit, but no 5 MiB block: a fragmentation OOM.
  EXPECT_EQ(p.Allocate(5 * kMiB, 0, &oom), 0u);
  EXPECT_EQ(oom.kind, OomKind::kFragmentation);
  EXPECT_EQ(oom.largest_free_block_bytes, 4 * kMiB);
  EXPECT_EQ(p.Stats().oom_fragmentation, 1u);
  EXPECT_EQ(gpu.counters().device_frees, 0u);  // no GC in JAX
  EXPECT_DOUBLE_EQ(p.Stats().fragmentation, 2.0 / 6.0);
}

TEST(JaxPolicy, GrowthStartsAtTwoMiBUnderTheSameLimit) {
  EmuGpu gpu(Device(1000 * kMiB));
  Made m = Make("jax-growth", gpu, {});
  ASSERT_TRUE(m.ok) << m.error;
  Oom oom;
  ASSERT_NE(m.policy->Allocate(1024, 0, &oom), 0u);
  EXPECT_EQ(m.policy->Stats().pool_bytes, 2 * kMiB);
  EXPECT_EQ(m.policy->Stats().bytes_limit, 750 * kMiB);
  ASSERT_NE(m.policy->Allocate(3 * kMiB, 0, &oom), 0u);
  EXPECT_EQ(m.policy->Stats().pool_bytes, 6 * kMiB);
  EXPECT_EQ(m.policy->Allocate(800 * kMiB, 0, &oom), 0u);
  EXPECT_EQ(oom.kind, OomKind::kCap);
}

uint64_t PoolAfterFirstAlloc(const Made& m) {
  Oom oom;
  EXPECT_NE(m.policy->Allocate(1, 0, &oom), 0u);
  return m.policy->Stats().pool_bytes;
}

TEST(JaxPolicy, PreallocateVariable) {
  for (const char* v : {"false", "False", "0"}) {
    EmuGpu gpu(Device(1000 * kMiB));
    Made m = Make("jax", gpu, {{"XLA_PYTHON_CLIENT_PREALLOCATE", v}});
    ASSERT_TRUE(m.ok) << m.error;
    EXPECT_EQ(PoolAfterFirstAlloc(m), 2 * kMiB) << v;
  }
  // JAX: preallocate = value not in ('false', 'False', '0'): anything else is true, even "FALSE" or "no".
  for (const char* v : {"true", "1", "FALSE", "no", "yes"}) {
    EmuGpu gpu(Device(1000 * kMiB));
    Made m = Make("jax", gpu, {{"XLA_PYTHON_CLIENT_PREALLOCATE", v}});
    ASSERT_TRUE(m.ok) << m.error;
    EXPECT_EQ(PoolAfterFirstAlloc(m), 750 * kMiB) << v;
  }
  // The option overrides the variable, and is checked.
  EmuGpu gpu(Device(1000 * kMiB));
  Made m = Make("jax", gpu, {{"XLA_PYTHON_CLIENT_PREALLOCATE", "false"}}, {{"preallocate", "true"}});
  ASSERT_TRUE(m.ok) << m.error;
  EXPECT_EQ(PoolAfterFirstAlloc(m), 750 * kMiB);
  Made g = Make("jax", gpu, {}, {{"preallocate", "no"}});
  EXPECT_FALSE(g.ok);
  EXPECT_TRUE(Has(g.error, "preallocate")) << g.error;
  // jax-growth has no preallocate option: growth is its name.
  Made h = Make("jax-growth", gpu, {}, {{"preallocate", "true"}});
  EXPECT_FALSE(h.ok);
  EXPECT_TRUE(Has(h.error, "unknown option 'preallocate'")) << h.error;
  EXPECT_TRUE(Has(h.error, "mem_fraction")) << h.error;
}

TEST(JaxPolicy, MemFractionVariables) {
  EmuGpu gpu(Device(1000 * kMiB));
  for (const char* var : {"XLA_PYTHON_CLIENT_MEM_FRACTION", "XLA_CLIENT_MEM_FRACTION"}) {
    Made m = Make("jax", gpu, {{var, ".5"}});
    ASSERT_TRUE(m.ok) << m.error;
    EXPECT_EQ(m.policy->Stats().bytes_limit, 500 * kMiB) << var;
    for (const char* bad : {"abc", "0", "-0.5", "1.5", "0.5x", "0.8-0.6", "nan", "+", "inf", "0x0.8p0", " .5"}) {
      Made b = Make("jax", gpu, {{var, bad}});
      EXPECT_FALSE(b.ok) << var << "=" << bad;
      EXPECT_TRUE(Has(b.error, var)) << b.error;
      EXPECT_TRUE(Has(b.error, bad)) << b.error;
    }
  }
  // Both set: JAX's ValueError.
  Made both = Make("jax", gpu, {{"XLA_PYTHON_CLIENT_MEM_FRACTION", ".5"}, {"XLA_CLIENT_MEM_FRACTION", ".5"}});
  EXPECT_FALSE(both.ok);
  EXPECT_TRUE(Has(both.error, "ValueError")) << both.error;
  EXPECT_TRUE(Has(both.error, "XLA_PYTHON_CLIENT_MEM_FRACTION") && Has(both.error, "XLA_CLIENT_MEM_FRACTION"));
  // The option wins over the variables (and over the both-set error).
  Made opt = Make("jax", gpu, {{"XLA_PYTHON_CLIENT_MEM_FRACTION", ".5"}, {"XLA_CLIENT_MEM_FRACTION", ".5"}},
                  {{"mem_fraction", "0.25"}});
  ASSERT_TRUE(opt.ok) << opt.error;
  EXPECT_EQ(opt.policy->Stats().bytes_limit, 250 * kMiB);
  Made bad_opt = Make("jax", gpu, {}, {{"mem_fraction", "lots"}});
  EXPECT_FALSE(bad_opt.ok);
  EXPECT_TRUE(Has(bad_opt.error, "option 'mem_fraction'")) << bad_opt.error;
  // 1.0 is all memory.
  Made all = Make("jax", gpu, {{"XLA_CLIENT_MEM_FRACTION", "1"}});
  ASSERT_TRUE(all.ok);
  EXPECT_EQ(all.policy->Stats().bytes_limit, 1000 * kMiB);
}

// jax_version=next, XLA's unreleased START / START-CAP grammar: "S-C" preallocates S and grows to C, a bare S below
// 1 grows to all memory, "S-S" is fixed.
TEST(JaxPolicy, MemFractionGrammar) {
  const std::map<std::string, std::string> next = {{"jax_version", "next"}};
  {
    EmuGpu gpu(Device(1000 * kMiB));
    Made m = Make("jax", gpu, {{"XLA_CLIENT_MEM_FRACTION", "0.5-0.6"}}, next);
    ASSERT_TRUE(m.ok) << m.error;
    EXPECT_EQ(m.policy->Stats().bytes_limit, 600 * kMiB);
    EXPECT_EQ(PoolAfterFirstAlloc(m), 500 * kMiB);
    Oom oom;
    ASSERT_NE(m.policy->Allocate(499 * kMiB, 0, &oom), 0u);
    ASSERT_NE(m.policy->Allocate(90 * kMiB, 0, &oom), 0u);  // grows past 0.5 up to the 0.6 cap
    EXPECT_EQ(m.policy->Stats().pool_bytes, 600 * kMiB);
    EXPECT_EQ(m.policy->Allocate(20 * kMiB, 0, &oom), 0u);
    EXPECT_EQ(oom.kind, OomKind::kCap);
  }
  {
    EmuGpu gpu(Device(1000 * kMiB));
    Made m = Make("jax", gpu, {{"XLA_CLIENT_MEM_FRACTION", "0.5"}}, next);  // bare: grow to all
    ASSERT_TRUE(m.ok) << m.error;
    EXPECT_EQ(m.policy->Stats().bytes_limit, 1000 * kMiB);
    EXPECT_EQ(PoolAfterFirstAlloc(m), 500 * kMiB);
  }
  for (const char* fixed : {"0.5-0.5", "1"}) {  // the cap equal to the start, or all memory: a fixed cap
    EmuGpu gpu(Device(1000 * kMiB));
    Made m = Make("jax", gpu, {{"XLA_CLIENT_MEM_FRACTION", fixed}}, next);
    ASSERT_TRUE(m.ok) << m.error;
    EXPECT_EQ(m.policy->Stats().bytes_limit, PoolAfterFirstAlloc(m)) << fixed;
  }
  {
    // Without preallocation only START counts: the pool that grows past it is the preallocated one.
    EmuGpu gpu(Device(1000 * kMiB));
    Made m =
        Make("jax", gpu, {{"XLA_CLIENT_MEM_FRACTION", "0.5-0.6"}, {"XLA_PYTHON_CLIENT_PREALLOCATE", "false"}}, next);
    ASSERT_TRUE(m.ok) << m.error;
    EXPECT_EQ(PoolAfterFirstAlloc(m), 2 * kMiB);
    EXPECT_EQ(m.policy->Stats().bytes_limit, 500 * kMiB);
  }
}

// The grammar's edges: each bad value refused with the variable, the value and the reason named.
TEST(JaxPolicy, MemFractionGrammarEdgesRefused) {
  struct Case {
    const char* version;
    const char* value;
    const char* why;
  };
  const Case cases[] = {
      // Released JAX (default 0.10.2): float() in xla_client.py, so any START-CAP form is refused.
      {nullptr, "0.5-0.6", "(not a number; expected a number in (0, 1], e.g. 0.75; JAX 0.10.2 converts it"},
      {nullptr, "0.5+", "(not a number;"},
      {"0.8", "0.75-0.75", "JAX 0.8 converts it with float()"},
      {nullptr, "0", "(out of range;"},
      {nullptr, "1.5", "(out of range;"},
      // next: START or START-CAP.
      {"next", "0.9-0.1", "(the cap must be at least the start;"},
      {"next", "0.5-2", "(a growth cap cannot exceed 1, all of device memory;"},
      {"next", "0.5+", "(not a number; expected START or START-CAP"},
      {"next", "-0.5", "(not a number;"},
      {"next", "0-0.5", "(out of range;"},
      {"next", "0.5-", "(not a number;"},
      {"next", "0.5-0.6-0.7", "(not a number;"},
      {"next", "nan", "(not a number;"},
  };
  for (const Case& c : cases) {
    std::map<std::string, std::string> options;
    if (c.version != nullptr) options["jax_version"] = c.version;
    EmuGpu gpu(Device(1000 * kMiB));
    Made m = Make("jax", gpu, {{"XLA_CLIENT_MEM_FRACTION", c.value}}, options);
    EXPECT_FALSE(m.ok) << c.value;
    EXPECT_TRUE(Has(m.error, std::string("XLA_CLIENT_MEM_FRACTION='") + c.value + "' is not a valid memory fraction "))
        << m.error;
    EXPECT_TRUE(Has(m.error, c.why)) << c.value << ": " << m.error;
  }
  for (const char* bad : {"0.5", "0.11", "1.0", "0.10.2.1", "0.x", "next2", "", "0.10.", "v0.10.2"}) {
    EmuGpu gpu(Device(1000 * kMiB));
    Made m = Make("jax", gpu, {}, {{"jax_version", bad}});
    EXPECT_FALSE(m.ok) << bad;
    EXPECT_TRUE(Has(m.error, std::string("option jax_version: '") + bad + "' is not a JAX release")) << m.error;
  }
  for (const char* good : {"0.6", "0.7.2", "0.10", "0.10.2", "next"}) {
    EmuGpu gpu(Device(1000 * kMiB));
    EXPECT_TRUE(Make("jax", gpu, {}, {{"jax_version", good}}).ok) << good;
  }
}

// Per release: a workload whose peak is 80 % of the GPU fails under the fixed 0.75 of every released JAX Strata
// models, and completes under next's default (0.75, grow to all), the same 75 % taken at the start. jax-growth
// (no preallocation) keeps the 0.75 cap in every release: only the preallocated pool grows.
TEST(JaxPolicy, GrowableDefaultCompletesWhereTheFixedOneFails) {
  for (const char* version : {"0.6", "0.8.0", "0.10.2", "next"}) {
    for (const char* name : {"jax", "jax-growth"}) {
      EmuGpu gpu(Device(1000 * kMiB));
      Made m = Make(name, gpu, {}, {{"jax_version", version}});
      ASSERT_TRUE(m.ok) << m.error;
      Oom oom;
      std::vector<uint64_t> live;
      bool completed = true;
      for (int i = 0; i < 8 && completed; ++i) {  // 8 x 100 MiB = 800 MiB of 1000
        const uint64_t p = m.policy->Allocate(100 * kMiB, 0, &oom);
        completed = p != 0;
        if (p != 0) live.push_back(p);
      }
      const bool growable = std::string(version) == "next" && std::string(name) == "jax";
      EXPECT_EQ(completed, growable) << name << " at jax_version=" << version;
      if (!completed) {
        EXPECT_EQ(oom.kind, OomKind::kCap) << name << " " << version;
      }
      if (std::string(name) == "jax") {
        EXPECT_EQ(m.policy->Stats().bytes_limit, growable ? 1000 * kMiB : 750 * kMiB) << version;
      }
      for (uint64_t p : live) m.policy->Deallocate(p);
    }
  }
}

// "75 %" silently becomes less when the device cannot supply it: the first region back-pedals.
TEST(JaxPolicy, PreallocationBackPedalsWhenAnotherTenantHoldsMemory) {
  EmuGpu gpu(Device(1000 * kMiB));
  ASSERT_NE(gpu.Malloc(500 * kMiB), 0u);  // someone else's
  Made m = Make("jax", gpu, {});
  ASSERT_TRUE(m.ok);
  const uint64_t pool = PoolAfterFirstAlloc(m);
  EXPECT_LT(pool, 500 * kMiB);
  EXPECT_GT(pool, 400 * kMiB);
  EXPECT_EQ(m.policy->Stats().bytes_limit, 750 * kMiB);
}

TEST(JaxPolicy, AllocatorVariableRoutes) {
  EmuGpu gpu(Device(kGiB));
  for (const char* v : {"default", "bfc"}) {
    Made m = Make("jax", gpu, {{"XLA_PYTHON_CLIENT_ALLOCATOR", v}});
    ASSERT_TRUE(m.ok) << m.error;
    EXPECT_EQ(std::string(m.policy->name()), "jax");
  }
  for (const char* v : {"platform", "address"}) {
    Made m = Make("jax", gpu, {{"XLA_PYTHON_CLIENT_ALLOCATOR", v}}, {{"mem_fraction", "0.5"}});
    ASSERT_TRUE(m.ok) << m.error;
    EXPECT_EQ(std::string(m.policy->name()), "jax-platform");
  }
  Made g = Make("jax-growth", gpu, {{"XLA_PYTHON_CLIENT_ALLOCATOR", "platform"}});
  ASSERT_TRUE(g.ok) << g.error;
  EXPECT_EQ(std::string(g.policy->name()), "jax-platform");
  // cuda_async is the async family's (built elsewhere): either it is built and named jax-async, or its
  // error names jax-async.
  Made a = Make("jax", gpu, {{"XLA_PYTHON_CLIENT_ALLOCATOR", "cuda_async"}});
  if (a.ok) {
    EXPECT_EQ(std::string(a.policy->name()), "jax-async");
  } else {
    EXPECT_TRUE(Has(a.error, "jax-async")) << a.error;
  }
  Made vmm = Make("jax", gpu, {{"XLA_PYTHON_CLIENT_ALLOCATOR", "vmm"}});
  EXPECT_FALSE(vmm.ok);
  EXPECT_TRUE(Has(vmm.error, "XLA_PYTHON_CLIENT_ALLOCATOR") && Has(vmm.error, "not emulated")) << vmm.error;
  Made bad = Make("jax", gpu, {{"XLA_PYTHON_CLIENT_ALLOCATOR", "Platform"}});
  EXPECT_FALSE(bad.ok);
  EXPECT_TRUE(Has(bad.error, "XLA_PYTHON_CLIENT_ALLOCATOR") && Has(bad.error, "default, bfc, platform")) << bad.error;
  // The option overrides the variable.
  Made opt = Make("jax", gpu, {{"XLA_PYTHON_CLIENT_ALLOCATOR", "platform"}}, {{"allocator", "bfc"}});
  ASSERT_TRUE(opt.ok) << opt.error;
  EXPECT_EQ(std::string(opt.policy->name()), "jax");
  Made bad_opt = Make("jax", gpu, {}, {{"allocator", "x"}});
  EXPECT_FALSE(bad_opt.ok);
  EXPECT_TRUE(Has(bad_opt.error, "option 'allocator'")) << bad_opt.error;
}

TEST(BfcPolicyOptions, ListedWithVariablesAndUnknownKeysRefused) {
  auto names = [](const std::vector<PolicyOption>& o) {
    std::string s;
    for (const PolicyOption& x : o) s += x.name + "=" + x.env + "=" + x.default_value + ";";
    return s;
  };
  EXPECT_EQ(
      names(PolicyOptions("jax")),
      "jax_version==0.10.2;mem_fraction=XLA_CLIENT_MEM_FRACTION=0.75;preallocate=XLA_PYTHON_CLIENT_PREALLOCATE=true;"
      "allocator=XLA_PYTHON_CLIENT_ALLOCATOR=default;");
  EXPECT_EQ(
      names(PolicyOptions("jax-growth")),
      "jax_version==0.10.2;mem_fraction=XLA_CLIENT_MEM_FRACTION=0.75;allocator=XLA_PYTHON_CLIENT_ALLOCATOR=default;");
  EXPECT_EQ(names(PolicyOptions("tf")),
            "tf_version==2.21;memory_fraction==0;min_sys_memory_mb=TF_DEVICE_MIN_SYS_MEMORY_IN_MB=;"
            "allow_growth=TF_FORCE_GPU_ALLOW_GROWTH=false;garbage_collection=TF_ENABLE_GPU_GARBAGE_COLLECTION=true;"
            "allocator=TF_GPU_ALLOCATOR=bfc;");
  EXPECT_FALSE(Has(names(PolicyOptions("tf-growth")), "allow_growth"));
  for (const PolicyOption& o : PolicyOptions("tf")) EXPECT_FALSE(o.help.empty()) << o.name;
  EmuGpu gpu(Device(kGiB));
  Made m = Make("tf", gpu, {}, {{"mem_fraction", "0.5"}});  // JAX's name on a TF policy
  EXPECT_FALSE(m.ok);
  EXPECT_TRUE(Has(m.error, "unknown option 'mem_fraction'") && Has(m.error, "memory_fraction, min_sys_memory_mb"))
      << m.error;
  std::unique_ptr<Policy> p;
  std::string error;
  EXPECT_FALSE(MakeBfcPolicy("torch", gpu, PolicyConfig{}, &p, &error));
  EXPECT_TRUE(Has(error, "not a BFC policy"));
}

// ---- TensorFlow -----------------------------------------------------------------------------------

// limit = free - MinSystemMemory(free, cc_major) (docs/gpu-policies.md, BFC rule 7).
TEST(TfPolicy, LimitIsFreeMinusTheReserve) {
  struct Case {
    uint64_t total;
    uint32_t cc;
    uint64_t reserve;
  };
  for (const Case& c :
       {Case{16 * kGiB, 9, 1800 * kMiB}, Case{16 * kGiB, 10, 1800 * kMiB}, Case{16 * kGiB, 8, 1536 * kMiB},
        Case{16 * kGiB, 7, 1050 * kMiB}, Case{16 * kGiB, 6, 500 * kMiB}, Case{16 * kGiB, 5, 500 * kMiB},
        Case{2 * kGiB + 512 * kMiB, 9, 1800 * kMiB}, Case{2 * kGiB, 9, 225 * kMiB}}) {
    EmuGpu gpu(Device(c.total, 512 * kMiB, c.cc));
    const uint64_t free = c.total - 512 * kMiB;
    Made m = Make("tf", gpu, {});
    ASSERT_TRUE(m.ok) << m.error;
    EXPECT_EQ(m.policy->Stats().bytes_limit, free - c.reserve) << c.total << " cc " << c.cc;
  }
  // A reserve at or above free is not subtracted.
  EmuGpu tiny(Device(200 * kMiB));
  Made t = Make("tf", tiny, {});
  ASSERT_TRUE(t.ok);
  EXPECT_EQ(t.policy->Stats().bytes_limit, 200 * kMiB);
}

TEST(TfPolicy, FixedModeIsOneRegionOfTheLimit) {
  EmuGpu gpu(Device(16 * kGiB, 512 * kMiB, 9));
  Made m = Make("tf", gpu, {});
  ASSERT_TRUE(m.ok);
  const uint64_t limit = 15 * kGiB + 512 * kMiB - 1800 * kMiB;
  EXPECT_EQ(PoolAfterFirstAlloc(m), limit);
  Oom oom;
  EXPECT_EQ(m.policy->Allocate(limit, 0, &oom), 0u);
  EXPECT_EQ(oom.kind, OomKind::kCap);  // the reserve is free on the device
  EXPECT_EQ(m.policy->Stats().segments, 1u);
  EXPECT_TRUE(Has(oom.message, "TF_GPU_ALLOCATOR=cuda_malloc_async"));
}

TEST(TfPolicy, MinSysMemoryVariableAndOption) {
  EmuGpu gpu(Device(16 * kGiB, 0, 9));
  Made m = Make("tf", gpu, {{"TF_DEVICE_MIN_SYS_MEMORY_IN_MB", "100"}});
  ASSERT_TRUE(m.ok) << m.error;
  EXPECT_EQ(m.policy->Stats().bytes_limit, 16 * kGiB - 100 * kMiB);
  Made zero = Make("tf", gpu, {{"TF_DEVICE_MIN_SYS_MEMORY_IN_MB", "0"}});
  ASSERT_TRUE(zero.ok);
  EXPECT_EQ(zero.policy->Stats().bytes_limit, 16 * kGiB);
  // Larger than free: ignored (TF warns), the default reserve applies.
  Made big = Make("tf", gpu, {{"TF_DEVICE_MIN_SYS_MEMORY_IN_MB", "100000"}});
  ASSERT_TRUE(big.ok);
  EXPECT_EQ(big.policy->Stats().bytes_limit, 16 * kGiB - 1800 * kMiB);
  // 2^44 MiB x 2^20 wrapped to 0 bytes (no reserve at all); hex, a sign and blanks were taken by strtoll.
  for (const char* bad : {"abc", "-5", "1.5", "10MB", "17592186044416", "0x10", "+3", " 3"}) {
    Made b = Make("tf", gpu, {{"TF_DEVICE_MIN_SYS_MEMORY_IN_MB", bad}});
    EXPECT_FALSE(b.ok) << bad;
    EXPECT_TRUE(Has(b.error, "TF_DEVICE_MIN_SYS_MEMORY_IN_MB")) << b.error;
  }
  Made opt = Make("tf", gpu, {{"TF_DEVICE_MIN_SYS_MEMORY_IN_MB", "100"}}, {{"min_sys_memory_mb", "1024"}});
  ASSERT_TRUE(opt.ok);
  EXPECT_EQ(opt.policy->Stats().bytes_limit, 15 * kGiB);
}

// tf_version: up to 2.4 the reserve was max(300 MiB, 6 % of free) above 2 GiB free (gpu_device.cc before
// tensorflow#44810), and TF_DEVICE_MIN_SYS_MEMORY_IN_MB did not exist; 2.5 on, the compute capability's.
TEST(TfPolicy, ReleaseDecidesTheReserve) {
  struct Case {
    uint64_t total;
    uint32_t cc;
    const char* version;
    uint64_t reserve;
  };
  // 6 % of free computed in float, as TensorFlow's int64 x float product: 0.06f x 15.5 GiB, 0.06f x 3.5 GiB.
  const uint64_t six_of_15_5 = static_cast<uint64_t>(static_cast<float>(15 * kGiB + 512 * kMiB) * 0.06f);
  for (const Case& c : {Case{16 * kGiB, 7, "2.4", six_of_15_5}, Case{16 * kGiB, 7, "2.0", six_of_15_5},
                        Case{16 * kGiB, 9, "2.4", six_of_15_5}, Case{4 * kGiB, 7, "2.4", 300 * kMiB},
                        Case{2 * kGiB, 7, "2.4", 225 * kMiB}, Case{16 * kGiB, 7, "2.5", 1050 * kMiB},
                        Case{16 * kGiB, 7, "2.21", 1050 * kMiB}, Case{16 * kGiB, 8, "2.10", 1536 * kMiB}}) {
    EmuGpu gpu(Device(c.total, 512 * kMiB, c.cc));
    Made m = Make("tf", gpu, {}, {{"tf_version", c.version}});
    ASSERT_TRUE(m.ok) << m.error;
    EXPECT_EQ(m.policy->Stats().bytes_limit, c.total - 512 * kMiB - c.reserve) << c.version << " cc " << c.cc;
  }
  EXPECT_GT(six_of_15_5, 900 * kMiB);  // the old share: about 952 MiB of a T4-sized device, the new 1050 MiB
  EXPECT_LT(six_of_15_5, 1050 * kMiB);
  // 2.4 never read TF_DEVICE_MIN_SYS_MEMORY_IN_MB: the variable is ignored, the option asked for is refused.
  EmuGpu gpu(Device(16 * kGiB, 0, 7));
  Made env = Make("tf-growth", gpu, {{"TF_DEVICE_MIN_SYS_MEMORY_IN_MB", "100"}}, {{"tf_version", "2.4"}});
  ASSERT_TRUE(env.ok) << env.error;
  EXPECT_EQ(env.policy->Stats().bytes_limit, 16 * kGiB - static_cast<uint64_t>(static_cast<float>(16 * kGiB) * 0.06f));
  Made opt = Make("tf", gpu, {}, {{"tf_version", "2.4"}, {"min_sys_memory_mb", "100"}});
  EXPECT_FALSE(opt.ok);
  EXPECT_TRUE(Has(opt.error, "came with TensorFlow 2.5")) << opt.error;
  for (const char* bad : {"3.0", "2", "2.", "2.x", "1.15", "2.05", "2.100", "", " 2.4"}) {
    Made b = Make("tf", gpu, {}, {{"tf_version", bad}});
    EXPECT_FALSE(b.ok) << bad;
    EXPECT_TRUE(Has(b.error, "is not a TensorFlow release")) << b.error;
  }
}

TEST(TfPolicy, MemoryFractionIsOfTotal) {
  EmuGpu gpu(Device(16 * kGiB, 4 * kGiB, 9));
  Made m = Make("tf", gpu, {}, {{"memory_fraction", "0.5"}});
  ASSERT_TRUE(m.ok) << m.error;
  EXPECT_EQ(m.policy->Stats().bytes_limit, 8 * kGiB);
  // TF_DEVICE_MIN_SYS_MEMORY_IN_MB overrides the fraction: free - reserve.
  Made both = Make("tf", gpu, {{"TF_DEVICE_MIN_SYS_MEMORY_IN_MB", "1024"}}, {{"memory_fraction", "0.5"}});
  ASSERT_TRUE(both.ok);
  EXPECT_EQ(both.policy->Stats().bytes_limit, 11 * kGiB);
  for (const char* bad : {"-0.1", "1.5", "half"}) {
    Made b = Make("tf", gpu, {}, {{"memory_fraction", bad}});
    EXPECT_FALSE(b.ok) << bad;
    EXPECT_TRUE(Has(b.error, "memory_fraction")) << b.error;
  }
}

TEST(TfPolicy, AllowGrowthVariable) {
  auto pool = [](const std::string& name, std::map<std::string, std::string> env,
                 std::map<std::string, std::string> opts = {}) {
    EmuGpu gpu(Device(4 * kGiB, 0, 9));
    Made m = Make(name, gpu, std::move(env), std::move(opts));
    EXPECT_TRUE(m.ok) << m.error;
    return m.ok ? PoolAfterFirstAlloc(m) : 0;
  };
  const uint64_t limit = 4 * kGiB - 1800 * kMiB;
  EXPECT_EQ(pool("tf", {}), limit);
  EXPECT_EQ(pool("tf", {{"TF_FORCE_GPU_ALLOW_GROWTH", "true"}}), 2 * kMiB);
  EXPECT_EQ(pool("tf", {{"TF_FORCE_GPU_ALLOW_GROWTH", "false"}}), limit);
  EXPECT_EQ(pool("tf-growth", {}), 2 * kMiB);
  EXPECT_EQ(pool("tf-growth", {{"TF_FORCE_GPU_ALLOW_GROWTH", "false"}}), 2 * kMiB);  // growth by name
  EXPECT_EQ(pool("tf", {{"TF_FORCE_GPU_ALLOW_GROWTH", "true"}}, {{"allow_growth", "false"}}), limit);
  EXPECT_EQ(pool("tf", {}, {{"allow_growth", "1"}}), 2 * kMiB);
  for (const char* bad : {"True", "1", "yes"}) {  // TF compares with "true" / "false" exactly
    EmuGpu gpu(Device(4 * kGiB));
    Made b = Make("tf", gpu, {{"TF_FORCE_GPU_ALLOW_GROWTH", bad}});
    EXPECT_FALSE(b.ok) << bad;
    EXPECT_TRUE(Has(b.error, "TF_FORCE_GPU_ALLOW_GROWTH")) << b.error;
  }
  EmuGpu gpu(Device(4 * kGiB));
  Made b = Make("tf", gpu, {}, {{"allow_growth", "sometimes"}});
  EXPECT_FALSE(b.ok);
  EXPECT_TRUE(Has(b.error, "allow_growth"));
}

// Growth + GC (on by default in TF): wholly free regions go back on the OOM path; without GC the same
// request is a fragmentation OOM.
TEST(TfPolicy, GarbageCollectionVariable) {
  struct Case {
    std::map<std::string, std::string> env, opts;
    bool gc;
  };
  for (const Case& c : {Case{{}, {}, true}, Case{{{"TF_ENABLE_GPU_GARBAGE_COLLECTION", "false"}}, {}, false},
                        Case{{{"TF_ENABLE_GPU_GARBAGE_COLLECTION", "0"}}, {}, false},
                        Case{{{"TF_ENABLE_GPU_GARBAGE_COLLECTION", "TRUE"}}, {}, true},
                        Case{{{"TF_ENABLE_GPU_GARBAGE_COLLECTION", "false"}}, {{"garbage_collection", "true"}}, true},
                        Case{{}, {{"garbage_collection", "false"}}, false}}) {
    EmuGpu gpu(Device(64 * kMiB, 0, 9));  // free < 2 GiB: reserve 225 MiB >= free, so limit = 64 MiB
    Made m = Make("tf-growth", gpu, c.env, c.opts);
    ASSERT_TRUE(m.ok) << m.error;
    Policy& p = *m.policy;
    EXPECT_EQ(p.Stats().bytes_limit, 64 * kMiB);
    Oom oom;
    std::vector<uint64_t> live;
    for (int i = 0; i < 15; ++i) live.push_back(p.Allocate(4 * kMiB, 0, &oom));  // regions 4,4,8,16,32 MiB
    for (uint64_t x : live) ASSERT_NE(x, 0u);
    EXPECT_EQ(p.Stats().pool_bytes, 64 * kMiB);
    for (size_t i = 0; i + 1 < live.size(); ++i) p.Deallocate(live[i]);
    const uint64_t big = p.Allocate(32 * kMiB, 0, &oom);  // only fits after the 4+4+8+16 MiB regions go back
    if (c.gc) {
      EXPECT_NE(big, 0u);
      EXPECT_EQ(gpu.counters().device_frees, 4u);
      EXPECT_EQ(p.Stats().segments, 2u);
    } else {
      EXPECT_EQ(big, 0u);
      EXPECT_EQ(oom.kind, OomKind::kFragmentation);
      EXPECT_EQ(gpu.counters().device_frees, 0u);
    }
  }
  for (const char* bad : {"off", "2", "nope"}) {
    EmuGpu gpu(Device(kGiB));
    Made b = Make("tf", gpu, {{"TF_ENABLE_GPU_GARBAGE_COLLECTION", bad}});
    EXPECT_FALSE(b.ok) << bad;
    EXPECT_TRUE(Has(b.error, "TF_ENABLE_GPU_GARBAGE_COLLECTION")) << b.error;
  }
}

// With growth off the pool is one region of the limit, so GC (on) never helps: "in the allow_growth=false
// model the entire memory is just one region" (PR tensorflow#30827).
TEST(TfPolicy, GarbageCollectionCannotHelpOneRegion) {
  EmuGpu gpu(Device(64 * kMiB, 0, 9));  // limit = 64 MiB (the reserve is not below free)
  Made m = Make("tf", gpu, {});
  ASSERT_TRUE(m.ok) << m.error;
  Policy& p = *m.policy;
  Oom oom;
  std::vector<uint64_t> live;
  for (int i = 0; i < 16; ++i) live.push_back(p.Allocate(4 * kMiB, 0, &oom));
  for (uint64_t x : live) ASSERT_NE(x, 0u);
  for (size_t i = 0; i < live.size(); i += 2) p.Deallocate(live[i]);  // 32 MiB free in 4 MiB holes
  EXPECT_EQ(p.Allocate(8 * kMiB, 0, &oom), 0u);
  EXPECT_EQ(oom.kind, OomKind::kFragmentation);
  EXPECT_EQ(oom.largest_free_block_bytes, 4 * kMiB);
  EXPECT_EQ(gpu.counters().device_frees, 0u);
  EXPECT_EQ(p.Stats().segments, 1u);
}

TEST(TfPolicy, AllocatorVariableRoutes) {
  EmuGpu gpu(Device(4 * kGiB));
  Made a = Make("tf", gpu, {{"TF_GPU_ALLOCATOR", "cuda_malloc_async"}});
  if (a.ok) {
    EXPECT_EQ(std::string(a.policy->name()), "tf-async");
  } else {
    EXPECT_TRUE(Has(a.error, "tf-async")) << a.error;
  }
  Made cm = Make("tf-growth", gpu, {{"TF_GPU_ALLOCATOR", "cuda_malloc"}}, {{"garbage_collection", "false"}});
  ASSERT_TRUE(cm.ok) << cm.error;
  EXPECT_EQ(std::string(cm.policy->name()), "tf-cuda-malloc");
  Oom oom;
  ASSERT_NE(cm.policy->Allocate(4, 0, &oom), 0u);
  EXPECT_EQ(gpu.counters().device_allocs, 1u);
  Made bfc = Make("tf", gpu, {{"TF_GPU_ALLOCATOR", "bfc"}});
  ASSERT_TRUE(bfc.ok) << bfc.error;
  EXPECT_EQ(std::string(bfc.policy->name()), "tf");
  Made guard = Make("tf", gpu, {{"TF_GPU_ALLOCATOR", "memory_guard"}});
  EXPECT_FALSE(guard.ok);
  EXPECT_TRUE(Has(guard.error, "TF_GPU_ALLOCATOR") && Has(guard.error, "not emulated")) << guard.error;
  Made bad = Make("tf", gpu, {{"TF_GPU_ALLOCATOR", "cuda_malloc_asink"}});
  EXPECT_FALSE(bad.ok);
  EXPECT_TRUE(Has(bad.error, "TF_GPU_ALLOCATOR") && Has(bad.error, "cuda_malloc_async")) << bad.error;
  Made opt = Make("tf", gpu, {{"TF_GPU_ALLOCATOR", "memory_guard"}}, {{"allocator", "bfc"}});
  EXPECT_TRUE(opt.ok) << opt.error;
}

TEST(TfPolicy, ResetPeakIsClearStats) {
  EmuGpu gpu(Device(kGiB));
  Made m = Make("tf-growth", gpu, {});
  ASSERT_TRUE(m.ok);
  Oom oom;
  const uint64_t a = m.policy->Allocate(8 * kMiB, 0, &oom);
  const uint64_t b = m.policy->Allocate(kMiB, 0, &oom);
  m.policy->Deallocate(a);
  EXPECT_EQ(m.policy->Stats().peak_bytes_in_use, 9 * kMiB);
  m.policy->ResetPeak();
  PolicyStats s = m.policy->Stats();
  EXPECT_EQ(s.peak_bytes_in_use, kMiB);
  EXPECT_EQ(s.num_allocs, 0u);
  EXPECT_EQ(s.largest_alloc_size, 0u);
  EXPECT_EQ(s.requested_bytes, kMiB);
  m.policy->Deallocate(b);
}

}  // namespace
}  // namespace strata::gpu
