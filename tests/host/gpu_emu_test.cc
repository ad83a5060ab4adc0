// The gpu-emu backend through the C API, for every policy: bit-exact copies and GEMM, stats identities,
// handle misuse, quotas and bad options with their precise statuses, OOM kinds, JAX's host-bounce
// defragmentation. Links no simulator.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "strata/reference_gemm.h"
#include "strata/strata.h"

namespace {

constexpr uint64_t kMiB = 1ull << 20;

const char* const kPolicies[] = {"jax",       "jax-growth", "jax-platform", "jax-async",       "tf",
                                 "tf-growth", "tf-async",   "torch",        "torch-expandable"};

strata_named_value Str(const char* name, const char* v) {
  strata_named_value n{};
  n.struct_size = sizeof n;
  n.name = name;
  n.type = STRATA_VALUE_STRING;
  n.string_value = v;
  return n;
}
strata_named_value Int(const char* name, int64_t v) {
  strata_named_value n{};
  n.struct_size = sizeof n;
  n.name = name;
  n.type = STRATA_VALUE_INT64;
  n.int64_value = v;
  return n;
}

strata_status OpenGpu(const std::vector<strata_named_value>& named, strata_device** d) {
  strata_open_options o{};
  o.struct_size = sizeof o;
  o.named_options = named.data();
  o.num_named_options = static_cast<uint32_t>(named.size());
  return strata_open("gpu-emu", &o, d);
}

class EveryPolicy : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    ASSERT_EQ(OpenGpu({Str("policy", GetParam()), Int("total_bytes", 1024 * kMiB), Int("context_bytes", 0)}, &dev_),
              STRATA_OK)
        << strata_last_error_message();
    ASSERT_EQ(strata_context_create(dev_, nullptr, &ctx_), STRATA_OK) << strata_last_error_message();
  }
  void TearDown() override { EXPECT_EQ(strata_close(dev_), STRATA_OK); }
  strata_memory_stats Stats() {
    strata_memory_stats s{};
    s.struct_size = sizeof s;
    EXPECT_EQ(strata_get_memory_stats(dev_, 0, &s), STRATA_OK) << strata_last_error_message();
    return s;
  }
  strata_device* dev_ = nullptr;
  strata_context ctx_ = 0;
};

TEST_P(EveryPolicy, CopiesAreBitExactAcrossAllocationSizes) {
  std::mt19937_64 rng(7);
  std::vector<std::pair<strata_buffer, std::vector<uint8_t>>> live;
  for (uint64_t bytes : {1ull, 255ull, 256ull, 4097ull, 1ull << 20, (3ull << 20) + 5, 25ull << 20}) {
    strata_buffer b = 0;
    ASSERT_EQ(strata_alloc(dev_, ctx_, bytes, 0, 0, &b), STRATA_OK) << strata_last_error_message();
    std::vector<uint8_t> data(bytes);
    for (auto& x : data) x = static_cast<uint8_t>(rng());
    ASSERT_EQ(strata_write(dev_, ctx_, b, 0, data.data(), bytes), STRATA_OK);
    live.emplace_back(b, std::move(data));
  }
  ASSERT_EQ(strata_free(dev_, ctx_, live[2].first), STRATA_OK);  // a hole in the middle
  live.erase(live.begin() + 2);
  for (auto& [b, data] : live) {
    std::vector<uint8_t> back(data.size());
    ASSERT_EQ(strata_read(dev_, ctx_, b, 0, back.data(), back.size()), STRATA_OK);
    EXPECT_EQ(back, data);
  }
  const strata_memory_stats s = Stats();
  EXPECT_EQ(s.live_buffers, live.size());
  EXPECT_GE(s.bytes_in_use, s.requested_bytes);
  EXPECT_GE(s.pool_bytes, s.bytes_in_use);
  EXPECT_GE(s.peak_pool_bytes, s.pool_bytes);
  EXPECT_EQ(s.num_allocs, 7u);
  EXPECT_EQ(s.num_frees, 1u);
}

TEST_P(EveryPolicy, GemmMatchesTheReference) {
  for (uint32_t flags : {0u, STRATA_GEMM_FLAG_RELU, STRATA_GEMM_FLAG_INT8 | STRATA_GEMM_FLAG_ROUND}) {
    const uint32_t m = 37, k = 53, n = 29;
    std::mt19937 rng(flags + 1);
    std::vector<int8_t> a(m * k), b(k * n);
    for (auto& x : a) x = static_cast<int8_t>(rng());
    for (auto& x : b) x = static_cast<int8_t>(rng());
    const bool int8 = flags & STRATA_GEMM_FLAG_INT8;
    strata_buffer ha, hb, hc;
    ASSERT_EQ(strata_alloc(dev_, ctx_, a.size(), 0, 0, &ha), STRATA_OK);
    ASSERT_EQ(strata_alloc(dev_, ctx_, b.size(), 0, 0, &hb), STRATA_OK);
    ASSERT_EQ(strata_alloc(dev_, ctx_, m * n * (int8 ? 1 : 4), 0, 0, &hc), STRATA_OK);
    ASSERT_EQ(strata_write(dev_, ctx_, ha, 0, a.data(), a.size()), STRATA_OK);
    ASSERT_EQ(strata_write(dev_, ctx_, hb, 0, b.data(), b.size()), STRATA_OK);
    strata_gemm_args g{};
    g.struct_size = sizeof g;
    g.a = ha, g.b = hb, g.c = hc, g.m = m, g.n = n, g.k = k, g.flags = flags;
    if (int8) g.quant_mult = 3, g.quant_shift = 9;
    ASSERT_EQ(strata_gemm(dev_, ctx_, &g), STRATA_OK) << strata_last_error_message();
    strata::reference::GemmSpec spec;
    spec.m = m, spec.n = n, spec.k = k, spec.relu = flags & STRATA_GEMM_FLAG_RELU, spec.int8 = int8;
    spec.round = flags & STRATA_GEMM_FLAG_ROUND, spec.quant_mult = 3, spec.quant_shift = 9;
    const std::vector<int32_t> want = strata::reference::Gemm(a.data(), b.data(), nullptr, spec);
    if (int8) {
      std::vector<int8_t> got(m * n);
      ASSERT_EQ(strata_read(dev_, ctx_, hc, 0, got.data(), got.size()), STRATA_OK);
      EXPECT_EQ(std::vector<int32_t>(got.begin(), got.end()), want);
    } else {
      std::vector<int32_t> got(m * n);
      ASSERT_EQ(strata_read(dev_, ctx_, hc, 0, got.data(), got.size() * 4), STRATA_OK);
      EXPECT_EQ(got, want);
    }
    g.c = ha;  // C may not be A
    EXPECT_EQ(strata_gemm(dev_, ctx_, &g), STRATA_INVALID_ARGUMENT);
  }
}

TEST_P(EveryPolicy, HandleMisuseGetsItsPreciseStatusAndChangesNothing) {
  strata_buffer b;
  ASSERT_EQ(strata_alloc(dev_, ctx_, 4096, 0, 0, &b), STRATA_OK);
  strata_context other;
  ASSERT_EQ(strata_context_create(dev_, nullptr, &other), STRATA_OK);
  const strata_memory_stats before = Stats();
  char buf[16] = {};
  EXPECT_EQ(strata_free(dev_, other, b), STRATA_PERMISSION_DENIED);
  EXPECT_EQ(strata_read(dev_, ctx_, b, 4090, buf, 16), STRATA_OUT_OF_RANGE);
  EXPECT_EQ(strata_write(dev_, ctx_, b, UINT64_MAX - 4, buf, 16), STRATA_OUT_OF_RANGE);
  strata_buffer x;
  EXPECT_EQ(strata_alloc(dev_, ctx_, 0, 0, 0, &x), STRATA_INVALID_ARGUMENT);
  EXPECT_EQ(strata_alloc(dev_, ctx_, 64, 3, 0, &x), STRATA_INVALID_ARGUMENT);
  EXPECT_EQ(strata_alloc(dev_, 0, 64, 0, 0, &x), STRATA_NOT_FOUND);
  const strata_memory_stats after = Stats();
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(after.live_buffers, before.live_buffers);
  EXPECT_EQ(strata_free(dev_, ctx_, b), STRATA_OK);
  EXPECT_EQ(strata_free(dev_, ctx_, b), STRATA_NOT_FOUND);  // stale
}

TEST_P(EveryPolicy, QuotaFailsWithKindCapAndNumbers) {
  strata_context_options co{};
  co.struct_size = sizeof co;
  co.quota_bytes = 8 * kMiB;
  strata_context q;
  ASSERT_EQ(strata_context_create(dev_, &co, &q), STRATA_OK);
  strata_buffer b;
  ASSERT_EQ(strata_alloc(dev_, q, 6 * kMiB, 0, 0, &b), STRATA_OK);
  EXPECT_EQ(strata_alloc(dev_, q, 4 * kMiB, 0, 0, &b), STRATA_RESOURCE_EXHAUSTED);
  EXPECT_NE(std::string(strata_last_error_message()).find("quota"), std::string::npos);
  strata_oom_info oom{};
  oom.struct_size = sizeof oom;
  ASSERT_EQ(strata_get_last_oom(dev_, &oom), STRATA_OK);
  EXPECT_EQ(oom.kind, STRATA_OOM_CAP);
  EXPECT_EQ(oom.request_bytes, 4 * kMiB);
  EXPECT_EQ(oom.context_quota_bytes, 8 * kMiB);
  EXPECT_EQ(oom.context_bytes_in_use, 6 * kMiB);
}

TEST_P(EveryPolicy, MoreThanTheDeviceFailsWithKindCapacity) {
  strata_buffer b;
  EXPECT_EQ(strata_alloc(dev_, ctx_, 2048 * kMiB, 0, 0, &b), STRATA_RESOURCE_EXHAUSTED);
  const std::string message = strata_last_error_message();
  strata_oom_info oom{};
  oom.struct_size = sizeof oom;
  ASSERT_EQ(strata_get_last_oom(dev_, &oom), STRATA_OK);
  EXPECT_EQ(oom.kind, STRATA_OOM_CAPACITY) << strata_oom_kind_name(oom.kind);
  EXPECT_NE(message.find("out of memory (capacity): requested 2.00 GiB"), std::string::npos) << message;
  EXPECT_EQ(Stats().oom_capacity, 1u);
}

TEST_P(EveryPolicy, DefragmentationKeepsEveryByte) {
  std::vector<std::pair<strata_buffer, std::vector<uint8_t>>> live;
  std::mt19937_64 rng(3);
  for (int i = 0; i < 40; ++i) {
    const uint64_t bytes = 1 + rng() % (3 * kMiB);
    strata_buffer b;
    ASSERT_EQ(strata_alloc(dev_, ctx_, bytes, 0, 0, &b), STRATA_OK);
    std::vector<uint8_t> data(bytes);
    for (auto& x : data) x = static_cast<uint8_t>(rng());
    ASSERT_EQ(strata_write(dev_, ctx_, b, 0, data.data(), bytes), STRATA_OK);
    live.emplace_back(b, std::move(data));
  }
  for (size_t i = 0; i < live.size(); i += 2) ASSERT_EQ(strata_free(dev_, ctx_, live[i].first), STRATA_OK);
  uint64_t kept = 0;
  for (size_t i = 1; i < live.size(); i += 2) kept += live[i].second.size();
  strata_compact_result r{};
  r.struct_size = sizeof r;
  ASSERT_EQ(strata_compact(dev_, ctx_, nullptr, &r), STRATA_OK) << strata_last_error_message();
  EXPECT_EQ(r.moves, 20u);
  EXPECT_EQ(r.bytes_moved, kept);
  EXPECT_EQ(Stats().host_bytes_copied, 2 * kept);  // to the host and back
  for (size_t i = 1; i < live.size(); i += 2) {
    std::vector<uint8_t> back(live[i].second.size());
    ASSERT_EQ(strata_read(dev_, ctx_, live[i].first, 0, back.data(), back.size()), STRATA_OK);
    EXPECT_EQ(back, live[i].second);
  }
}

INSTANTIATE_TEST_SUITE_P(GpuEmu, EveryPolicy, ::testing::ValuesIn(kPolicies), [](const auto& info) {
  std::string n = info.param;
  for (char& c : n) c = c == '-' ? '_' : c;
  return n;
});

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

TEST(GpuEmuOptions, TheBackendIsListed) {
  size_t count = 0;
  ASSERT_EQ(strata_list_backends(nullptr, 0, &count), STRATA_OK);
  std::vector<const char*> names(count);
  ASSERT_EQ(strata_list_backends(names.data(), count, &count), STRATA_OK);
  bool found = false;
  for (const char* n : names) found = found || std::string(n) == "gpu-emu";
  EXPECT_TRUE(found);
}

// JAX's default: bytes_limit = roundup(0.75 x total, 2 MiB); a request beyond it fails with kind "cap" while
// a quarter of the device is free (reference §6).
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
