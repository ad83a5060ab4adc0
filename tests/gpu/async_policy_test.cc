// The cudaMallocAsync policies (jax-async, tf-async): docs/gpu-policies.md P2-P4 and the P7
// validation case, over the page-level pool model of async_policy.cc.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <random>

#include "emu_gpu.h"
#include "policy.h"

namespace strata::gpu {
namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kGiB = 1ull << 30;

GpuSpec Spec(uint64_t total, uint64_t context = 0, uint32_t cc_major = 9) {
  GpuSpec s;
  s.total_bytes = total;
  s.context_bytes = context;
  s.cc_major = cc_major;
  return s;
}

GpuSpec H100() {
  GpuSpec s;
  EXPECT_TRUE(GpuPresetByName("h100-80g", &s));
  return s;
}

EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

std::unique_ptr<Policy> Make(const std::string& name, GpuDriver& gpu, std::map<std::string, std::string> env = {},
                             std::map<std::string, std::string> options = {}) {
  PolicyConfig config;
  config.env = Env(std::move(env));
  config.options = std::move(options);
  std::unique_ptr<Policy> p;
  std::string error;
  EXPECT_TRUE(MakePolicy(name, gpu, config, &p, &error)) << error;
  return p;
}

std::string MakeError(const std::string& name, std::map<std::string, std::string> env,
                      std::map<std::string, std::string> options = {}) {
  EmuGpu gpu(H100());
  PolicyConfig config;
  config.env = Env(std::move(env));
  config.options = std::move(options);
  std::unique_ptr<Policy> p;
  std::string error;
  EXPECT_FALSE(MakePolicy(name, gpu, config, &p, &error));
  return error;
}

TEST(JaxAsync, PreallocationReservesThreeQuartersAndUsesNothing) {
  EmuGpu gpu(H100());
  auto p = Make("jax-async", gpu);
  const PolicyStats s = p->Stats();
  EXPECT_EQ(s.pool_bytes, 60 * kGiB);  // 0.75 x 80 GiB
  EXPECT_EQ(s.bytes_in_use, 0u);
  EXPECT_EQ(s.bytes_limit, 60 * kGiB);
  EXPECT_EQ(s.num_allocs, 0u);  // ClearStats() after the preallocation
  EXPECT_EQ(s.peak_bytes_in_use, 0u);
  EXPECT_EQ(gpu.used_pages() * gpu.page_bytes(), 60 * kGiB);
}

TEST(JaxAsync, AllocationsBeyondThePoolSucceedWhileTheDeviceHasPages) {
  EmuGpu gpu(H100());  // 80 GiB, 512 MiB context: 79.5 GiB usable
  auto p = Make("jax-async", gpu);
  Oom oom;
  const uint64_t a = p->Allocate(70 * kGiB, 0, &oom);  // the fraction is not a cap
  ASSERT_NE(a, 0u) << oom.message;
  EXPECT_EQ(p->Stats().pool_bytes, 70 * kGiB);
  EXPECT_EQ(p->Stats().bytes_in_use, 70 * kGiB);
  ASSERT_NE(p->Allocate(9 * kGiB + 256 * kMiB, 0, &oom), 0u) << oom.message;
  EXPECT_EQ(gpu.counters().failed_device_allocs, 0u);  // the driver never failed while pages were free
  EXPECT_EQ(p->Stats().num_alloc_retries, 0u);
  // 512 MiB more: the OOM path syncs the stream, retries once, then fails with the allocator's message.
  const uint64_t syncs = gpu.counters().stream_syncs;
  EXPECT_EQ(p->Allocate(512 * kMiB, 0, &oom), 0u);
  EXPECT_EQ(gpu.counters().stream_syncs, syncs + 1);
  EXPECT_EQ(p->Stats().num_alloc_retries, 1u);
  EXPECT_EQ(p->Stats().num_failed_allocs, 1u);
  EXPECT_EQ(oom.kind, OomKind::kCapacity);
  EXPECT_EQ(oom.message.rfind("gpu_async_0 cuMemAllocAsync failed to allocate 536870912 bytes: "
                              "CUDA_ERROR_OUT_OF_MEMORY: out of memory\n Reported by CUDA: Free memory/Total memory: ",
                              0),
            0u)
      << oom.message;
  EXPECT_NE(oom.message.find("RESOURCE_EXHAUSTED: Out of memory while trying to allocate 536870912 bytes."),
            std::string::npos);
  // Freeing keeps the pages in the pool up to the threshold; a sync trims the rest.
  p->Deallocate(a);
  EXPECT_EQ(p->Stats().pool_bytes, 79 * kGiB + 256 * kMiB);
  p->ReleaseCache();
  EXPECT_EQ(p->Stats().pool_bytes, 60 * kGiB);
}

TEST(JaxAsync, WithoutPreallocationThresholdIsZero) {
  EmuGpu gpu(H100());
  auto p = Make("jax-async", gpu, {{"XLA_PYTHON_CLIENT_PREALLOCATE", "false"}});
  EXPECT_EQ(p->Stats().pool_bytes, 0u);
  EXPECT_EQ(p->Stats().bytes_limit, 0u);
  const uint64_t a = p->Allocate(100 * kMiB, 0, nullptr);
  EXPECT_EQ(p->Stats().pool_bytes, 100 * kMiB);
  p->Deallocate(a);
  EXPECT_EQ(p->Stats().pool_bytes, 100 * kMiB);  // no sync yet
  p->ReleaseCache();
  EXPECT_EQ(p->Stats().pool_bytes, 0u);
  EXPECT_EQ(gpu.used_pages(), 0u);
}

TEST(JaxAsync, SubPageRequestsArePacked) {
  EmuGpu gpu(H100());
  auto p = Make("jax-async", gpu, {{"XLA_PYTHON_CLIENT_PREALLOCATE", "0"}});
  std::vector<uint64_t> v;
  for (int i = 0; i < 1500; ++i) v.push_back(p->Allocate(1000, 0, nullptr));  // 1024 B each (model)
  EXPECT_EQ(p->Stats().pool_bytes, 2 * kMiB);
  EXPECT_EQ(p->Stats().bytes_in_use, 1500u * 1000u);  // XLA counts the request as asked
  for (size_t i = 1; i < v.size(); ++i) EXPECT_EQ(v[i], v[i - 1] + 1024);
  // A 3 MiB request takes two pages; its last page's free 1 MiB serves sub-page requests.
  const uint64_t big = p->Allocate(3 * kMiB, 0, nullptr);
  EXPECT_EQ(big % (2 * kMiB), 0u);
  EXPECT_EQ(p->Stats().pool_bytes, 6 * kMiB);
  const uint64_t small = p->Allocate(600 * 1024, 0, nullptr);  // more than the first page's 548 KiB hole
  EXPECT_EQ(small, big + 3 * kMiB);
  EXPECT_EQ(p->Stats().pool_bytes, 6 * kMiB);
}

TEST(JaxAsync, HolesInPartlyUsedPagesAreTheModelsFragmentation) {
  EmuGpu gpu(Spec(64 * kMiB));  // 32 pages
  auto p = Make("jax-async", gpu, {{"XLA_PYTHON_CLIENT_PREALLOCATE", "false"}});
  std::vector<uint64_t> v;
  for (int i = 0; i < 64; ++i) v.push_back(p->Allocate(kMiB, 0, nullptr));
  for (size_t i = 0; i < v.size(); i += 2) p->Deallocate(v[i]);
  Oom oom;
  EXPECT_EQ(p->Allocate(2 * kMiB, 0, &oom), 0u);
  EXPECT_EQ(oom.kind, OomKind::kFragmentation);  // 32 MiB live + 2 MiB <= 64 MiB, but no whole page free
  EXPECT_EQ(oom.largest_free_block_bytes, kMiB);
  EXPECT_EQ(p->Stats().oom_fragmentation, 1u);
  EXPECT_NE(p->Allocate(kMiB, 0, &oom), 0u);  // a hole still serves a sub-page request
}

TEST(JaxAsync, MemoryFractionSettings) {
  EmuGpu gpu(H100());
  EXPECT_EQ(Make("jax-async", gpu, {{"XLA_CLIENT_MEM_FRACTION", "0.5"}})->Stats().pool_bytes, 40 * kGiB);
  EmuGpu gpu2(H100());
  EXPECT_EQ(Make("jax-async", gpu2, {{"XLA_PYTHON_CLIENT_MEM_FRACTION", ".25"}})->Stats().bytes_limit, 20 * kGiB);
  EmuGpu gpu3(H100());
  // jax_version=next: the pool takes START of START-CAP (a bare fraction is START too).
  EXPECT_EQ(
      Make("jax-async", gpu3, {{"XLA_CLIENT_MEM_FRACTION", "0.5"}}, {{"jax_version", "next"}})->Stats().pool_bytes,
      40 * kGiB);
  EmuGpu gpu4(H100());
  EXPECT_EQ(
      Make("jax-async", gpu4, {{"XLA_CLIENT_MEM_FRACTION", "0.25-0.5"}}, {{"jax_version", "next"}})->Stats().pool_bytes,
      20 * kGiB);
  EmuGpu gpu5(H100());  // the option overrides the variable
  EXPECT_EQ(
      Make("jax-async", gpu5, {{"XLA_CLIENT_MEM_FRACTION", "0.9"}}, {{"memory_fraction", "0.5"}})->Stats().pool_bytes,
      40 * kGiB);
  EmuGpu gpu6(H100());  // TF_CUDA_MALLOC_ASYNC_SUPPORTED_PREALLOC=N without preallocation: N bytes
  auto p = Make("jax-async", gpu6,
                {{"XLA_PYTHON_CLIENT_PREALLOCATE", "false"}, {"TF_CUDA_MALLOC_ASYNC_SUPPORTED_PREALLOC", "104857600"}});
  EXPECT_EQ(p->Stats().pool_bytes, 100 * kMiB);
  EXPECT_EQ(p->Stats().bytes_limit, 0u);
  EmuGpu gpu7(H100());
  auto q = Make("jax-async", gpu7, {{"XLA_PYTHON_CLIENT_PREALLOCATE", "False"}}, {{"prealloc_bytes", "-1"}});
  EXPECT_EQ(q->Stats().pool_bytes, 60 * kGiB);
  EmuGpu gpu8(H100());
  EXPECT_EQ(Make("jax-async", gpu8, {}, {{"preallocate", "false"}})->Stats().pool_bytes, 0u);
}

TEST(TfAsync, LimitIsFreeMinusTheReserve) {
  EmuGpu gpu(H100());  // cc 9: 1800 MiB reserve
  const uint64_t free = gpu.free_bytes();
  auto p = Make("tf-async", gpu);
  EXPECT_EQ(p->Stats().bytes_limit, free - 1800 * kMiB);
  EXPECT_EQ(p->Stats().pool_bytes, 0u);  // no preallocation
  const uint64_t a = p->Allocate(kGiB, 0, nullptr);
  p->Deallocate(a);
  p->ReleaseCache();
  EXPECT_EQ(p->Stats().pool_bytes, kGiB);  // below the threshold (= limit): kept
  // Not a cap: beyond the limit while the device has pages.
  Oom oom;
  ASSERT_NE(p->Allocate(free - 100 * kMiB, 0, &oom), 0u) << oom.message;
  EXPECT_EQ(p->Allocate(200 * kMiB, 0, &oom), 0u);
  EXPECT_NE(oom.message.find("ResourceExhaustedError: OOM when allocating tensor of 209715200 bytes"),
            std::string::npos)
      << oom.message;

  EmuGpu v100(Spec(32 * kGiB, 512 * kMiB, 7));
  EXPECT_EQ(Make("tf-async", v100)->Stats().bytes_limit, v100.free_bytes() - 1050 * kMiB);
  EmuGpu a100(Spec(40 * kGiB, 512 * kMiB, 8));
  EXPECT_EQ(Make("tf-async", a100)->Stats().bytes_limit, a100.free_bytes() - 1536 * kMiB);
  EmuGpu p100(Spec(16 * kGiB, 512 * kMiB, 6));
  EXPECT_EQ(Make("tf-async", p100)->Stats().bytes_limit, p100.free_bytes() - 500 * kMiB);
  EmuGpu tiny(Spec(2 * kGiB, 512 * kMiB));  // free < 2 GiB
  EXPECT_EQ(Make("tf-async", tiny)->Stats().bytes_limit, tiny.free_bytes() - 225 * kMiB);
}

TEST(TfAsync, SettingsAndPreallocation) {
  EmuGpu gpu(H100());
  const uint64_t free = gpu.free_bytes();
  EXPECT_EQ(Make("tf-async", gpu, {{"TF_DEVICE_MIN_SYS_MEMORY_IN_MB", "1000"}})->Stats().bytes_limit,
            free - 1000 * kMiB);
  // A reserve larger than free is ignored (TF warns and keeps its own).
  EXPECT_EQ(Make("tf-async", gpu, {{"TF_DEVICE_MIN_SYS_MEMORY_IN_MB", "100000000"}})->Stats().bytes_limit,
            free - 1800 * kMiB);
  EXPECT_EQ(Make("tf-async", gpu, {}, {{"memory_fraction", "0.5"}})->Stats().bytes_limit, 40 * kGiB);
  EXPECT_EQ(Make("tf-async", gpu, {{"TF_DEVICE_MIN_SYS_MEMORY_IN_MB", "1000"}}, {{"min_sys_memory_mb", "2000"}})
                ->Stats()
                .bytes_limit,
            free - 2000 * kMiB);
  EmuGpu gpu2(H100());
  auto p = Make("tf-async", gpu2, {{"TF_CUDA_MALLOC_ASYNC_SUPPORTED_PREALLOC", "-1"}});
  EXPECT_EQ(p->Stats().pool_bytes, (free - 1800 * kMiB + 2 * kMiB - 1) / (2 * kMiB) * (2 * kMiB));
  EXPECT_EQ(p->Stats().bytes_in_use, 0u);
  EXPECT_EQ(p->Stats().num_allocs, 0u);
}

TEST(AsyncConf, BadValuesNameTheVariable) {
  struct Case {
    std::string policy, var, value, expect;
  };
  const Case cases[] = {
      {"jax-async", "XLA_PYTHON_CLIENT_MEM_FRACTION", "abc", "='abc' is not a valid memory fraction"},
      {"jax-async", "XLA_CLIENT_MEM_FRACTION", "1.5", "='1.5' is not a valid memory fraction"},
      {"jax-async", "XLA_CLIENT_MEM_FRACTION", "0", "='0' is not a valid memory fraction"},
      {"jax-async", "XLA_CLIENT_MEM_FRACTION", "0.5-2", "='0.5-2' is not a valid memory fraction"},
      // Issue #45: the start above the cap was taken (only the start matters to cudaMallocAsync).
      {"jax-async", "XLA_PYTHON_CLIENT_MEM_FRACTION", "0.9-0.1",
       "='0.9-0.1' is not a valid memory fraction (not a number"},
      {"jax-async", "TF_CUDA_MALLOC_ASYNC_SUPPORTED_PREALLOC", "lots", "invalid value 'lots'"},
      {"tf-async", "TF_CUDA_MALLOC_ASYNC_SUPPORTED_PREALLOC", "-2", "invalid value '-2'"},
      {"tf-async", "TF_DEVICE_MIN_SYS_MEMORY_IN_MB", "-5", "invalid value '-5'"},
      {"tf-async", "TF_DEVICE_MIN_SYS_MEMORY_IN_MB", "1e3", "invalid value '1e3'"},
      // Issue #32: one number reader (host/tool/numbers.h). NaN passed "0 < F <= 1" (every comparison false)
      // and gave a 2^63-byte pool; MiB x 2^20 wrapped to a small reserve; hex and blanks were taken.
      {"jax-async", "XLA_PYTHON_CLIENT_MEM_FRACTION", "nan", "='nan' is not a valid memory fraction"},
      {"jax-async", "XLA_CLIENT_MEM_FRACTION", "NaN-1", "='NaN-1' is not a valid memory fraction"},
      {"jax-async", "XLA_CLIENT_MEM_FRACTION", "0.5-nan", "='0.5-nan' is not a valid memory fraction"},
      {"jax-async", "XLA_CLIENT_MEM_FRACTION", "inf", "='inf' is not a valid memory fraction"},
      {"jax-async", "XLA_CLIENT_MEM_FRACTION", "0x0.8p0", "='0x0.8p0' is not a valid memory fraction"},
      {"jax-async", "XLA_CLIENT_MEM_FRACTION", " 0.5", "=' 0.5' is not a valid memory fraction"},
      {"tf-async", "TF_DEVICE_MIN_SYS_MEMORY_IN_MB", "17592186044416", "invalid value '17592186044416'"},
      {"tf-async", "TF_DEVICE_MIN_SYS_MEMORY_IN_MB", "0x10", "invalid value '0x10'"},
      {"tf-async", "TF_DEVICE_MIN_SYS_MEMORY_IN_MB", "+3", "invalid value '+3'"},
      {"tf-async", "TF_CUDA_MALLOC_ASYNC_SUPPORTED_PREALLOC", "99999999999999999999", "invalid value"},
  };
  for (const Case& c : cases) {
    const std::string e = MakeError(c.policy, {{c.var, c.value}});
    // "VAR: ..." (the async policies' own settings) or "VAR='VALUE' is not ..." (the jax policies' fraction parser).
    EXPECT_TRUE(e.rfind(c.var + ": ", 0) == 0 || e.rfind(c.var + "='", 0) == 0)
        << c.var << "=" << c.value << " -> " << e;
    EXPECT_NE(e.find(c.expect), std::string::npos) << e;
  }
  std::string e =
      MakeError("jax-async", {{"XLA_CLIENT_MEM_FRACTION", "0.5"}, {"XLA_PYTHON_CLIENT_MEM_FRACTION", "0.5"}});
  EXPECT_NE(e.find("XLA_PYTHON_CLIENT_MEM_FRACTION and XLA_CLIENT_MEM_FRACTION are both set"), std::string::npos);
  e = MakeError("tf-async", {}, {{"memory_fraction", "2"}});
  EXPECT_EQ(e.rfind("option memory_fraction: ", 0), 0u) << e;
  e = MakeError("jax-async", {}, {{"fraction", "0.5"}});
  EXPECT_NE(e.find("unknown option 'fraction' for policy jax-async (valid: jax_version, preallocate, memory_fraction, "
                   "prealloc_bytes)"),
            std::string::npos)
      << e;
  e = MakeError("tf-async", {}, {{"preallocate", "true"}});
  EXPECT_NE(e.find("valid: memory_fraction, min_sys_memory_mb, prealloc_bytes"), std::string::npos) << e;
}

// One parser of XLA's memory fraction (ParseXlaMemFraction): jax-async refuses what jax refuses, in the same words
// (issue #45: it took 0.9-0.1, a start above its cap).
TEST(AsyncConf, MemFractionRefusedAsJaxRefusesIt) {
  for (const char* v : {"0.9-0.1", "abc", "0", "1.5", "0.5-2", "nan", "-0.5", "0.5+x"}) {
    const std::string async = MakeError("jax-async", {{"XLA_PYTHON_CLIENT_MEM_FRACTION", v}});
    EXPECT_EQ(async, MakeError("jax", {{"XLA_PYTHON_CLIENT_MEM_FRACTION", v}})) << v;
    EXPECT_NE(async.find("is not a valid memory fraction"), std::string::npos) << async;
  }
  EXPECT_NE(MakeError("jax-async", {{"XLA_CLIENT_MEM_FRACTION", "0.9-0.1"}}, {{"jax_version", "next"}})
                .find("(the cap must be at least the start;"),
            std::string::npos);
}

// Property test: random traces, invariants after every operation, over >= 20 seeds per policy.
void RunAsyncTrace(const std::string& name, std::map<std::string, std::string> env, uint32_t seed) {
  SCOPED_TRACE(name + " seed " + std::to_string(seed));
  EmuGpu gpu(Spec(3 * kGiB / 2 + 64 * kMiB, 64 * kMiB));
  auto p = Make(name, gpu, std::move(env));
  std::mt19937_64 rng(seed);
  struct Live {
    uint64_t bytes, tag;
  };
  std::map<uint64_t, Live> live;
  uint64_t tag = seed * 7919ull;
  auto random_size = [&]() -> uint64_t {
    switch (rng() % 3) {
      case 0:
        return 1 + rng() % 8192;
      case 1:
        return 1 + rng() % (3 * kMiB);
      default:
        return kMiB + rng() % (200 * kMiB);
    }
  };
  for (int op = 0; op < 300; ++op) {
    const uint64_t r = rng() % 100;
    if (r < 55 || live.empty()) {
      const uint64_t bytes = random_size();
      const uint64_t device_free = gpu.free_bytes();
      Oom oom;
      const uint64_t ptr = p->Allocate(bytes, 0, &oom);
      if (ptr == 0) {
        // The emulated driver never fails while pages are free: a request the device alone could serve
        // does not fail.
        const uint64_t page = gpu.page_bytes();
        ASSERT_GT((bytes + page - 1) / page * page, device_free) << oom.message;
        ASSERT_NE(oom.kind, OomKind::kNone);
        ASSERT_NE(oom.message.find("cuMemAllocAsync failed to allocate"), std::string::npos);
      } else {
        ASSERT_EQ(ptr % 512, 0u);
        auto next = live.lower_bound(ptr);
        if (next != live.end()) {
          ASSERT_LE(ptr + bytes, next->first) << "overlaps a live allocation";
        }
        if (next != live.begin()) {
          ASSERT_LE(std::prev(next)->first + std::prev(next)->second.bytes, ptr) << "overlaps a live allocation";
        }
        for (uint64_t va = ptr; va < ptr + bytes; va += gpu.page_bytes()) {
          char byte;
          ASSERT_TRUE(gpu.Read(va, &byte, 1)) << "not mapped";
        }
        char last;
        ASSERT_TRUE(gpu.Read(ptr + bytes - 1, &last, 1)) << "not mapped";
        ++tag;
        ASSERT_TRUE(gpu.Write(ptr, &tag, std::min<uint64_t>(8, bytes)));
        live[ptr] = {bytes, tag};
      }
    } else if (r < 95) {
      auto it = live.begin();
      std::advance(it, static_cast<long>(rng() % live.size()));
      uint64_t head = 0;
      const uint64_t n = std::min<uint64_t>(8, it->second.bytes);
      ASSERT_TRUE(gpu.Read(it->first, &head, n));
      uint64_t expect = 0;
      std::memcpy(&expect, &it->second.tag, n);
      ASSERT_EQ(head, expect) << "tag overwritten";
      p->Deallocate(it->first);
      live.erase(it);
    } else {
      p->ReleaseCache();
    }
    const PolicyStats s = p->Stats();
    uint64_t requested = 0, rounded = 0;
    for (const auto& [ptr, l] : live) {
      requested += l.bytes;
      rounded += (l.bytes + 511) / 512 * 512;
    }
    ASSERT_EQ(s.bytes_in_use, requested);
    ASSERT_LE(rounded, s.pool_bytes);
    ASSERT_EQ(s.pool_bytes, gpu.used_pages() * gpu.page_bytes());
    ASSERT_GE(s.peak_bytes_in_use, s.bytes_in_use);
    ASSERT_GE(s.fragmentation, 0.0);
    ASSERT_LE(s.fragmentation, 1.0);
  }
  for (const auto& [ptr, l] : live) p->Deallocate(ptr);
  p->ReleaseCache();
  EXPECT_LE(p->Stats().pool_bytes, p->Stats().bytes_limit == 0 ? 0 : p->Stats().bytes_limit + gpu.page_bytes());
}

TEST(AsyncProperty, RandomTracesKeepInvariants) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    RunAsyncTrace("jax-async", {}, seed);
    RunAsyncTrace("jax-async", {{"XLA_PYTHON_CLIENT_PREALLOCATE", "false"}}, seed);
    RunAsyncTrace("tf-async", {}, seed);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace strata::gpu
