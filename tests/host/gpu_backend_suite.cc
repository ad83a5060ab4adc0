// The GPU backends' conformance tests (gpu_backend_suite.h): what every backend x policy must do through the C API.
#include "gpu_backend_suite.h"

#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include "policy.h"
#include "strata/reference_gemm.h"

namespace strata::gpu_suite {

strata_status OpenBackend(const char* backend, const std::vector<strata_named_value>& named, strata_device** d) {
  strata_open_options o{};
  o.struct_size = sizeof o;
  o.named_options = named.data();
  o.num_named_options = static_cast<uint32_t>(named.size());
  return strata_open(backend, &o, d);
}

bool BackendListed(const char* backend) {
  size_t count = 0;
  if (strata_list_backends(nullptr, 0, &count) != STRATA_OK) return false;
  std::vector<const char*> names(count);
  if (strata_list_backends(names.data(), count, &count) != STRATA_OK) return false;
  for (const char* n : names) {
    if (std::strcmp(n, backend) == 0) return true;
  }
  return false;
}

std::vector<GpuCase> EveryPolicyOn(const char* backend) {
  static const std::vector<std::string> names = gpu::PolicyNames();  // GpuCase points into it
  std::vector<GpuCase> cases;
  for (const std::string& p : names) cases.push_back({backend, p.c_str()});
  return cases;
}

void PrintTo(const GpuCase& c, std::ostream* os) { *os << c.backend << ' ' << c.policy; }

std::string GpuCaseName(const ::testing::TestParamInfo<GpuCase>& info) {
  std::string n = info.param.policy;
  for (char& c : n) c = c == '-' ? '_' : c;
  return n;
}

strata_context GpuBackendTest::QuotaContext(uint64_t quota_bytes) {
  strata_context_options co{};
  co.struct_size = sizeof co;
  co.quota_bytes = quota_bytes;
  strata_context q = 0;
  EXPECT_EQ(strata_context_create(dev_, &co, &q), STRATA_OK) << strata_last_error_message();
  return q;
}

bool GpuBackendTest::OnModel() const { return std::strcmp(GetParam().backend, "sim") == 0; }

void GpuBackendTest::SetUp() {
  std::vector<strata_named_value> named;
  if (OnModel()) {
    named.push_back(Int("hbm_capacity_bytes", 128 * kMiB));  // the model: its firmware allocator, no policy
  } else {
    named.push_back(Str("policy", GetParam().policy));
  }
  if (std::strcmp(GetParam().backend, "gpu-emu") == 0) {
    named.push_back(Int("total_bytes", 1024 * kMiB));
    named.push_back(Int("context_bytes", 0));
  }
  const strata_status s = OpenBackend(GetParam().backend, named, &dev_);
  if (s == STRATA_UNAVAILABLE) GTEST_SKIP() << strata_last_error_message();
  ASSERT_EQ(s, STRATA_OK) << strata_last_error_message();
  ASSERT_EQ(strata_context_create(dev_, nullptr, &ctx_), STRATA_OK) << strata_last_error_message();
}

void GpuBackendTest::TearDown() {
  if (dev_ != nullptr) {
    EXPECT_EQ(strata_close(dev_), STRATA_OK);
  }
}

strata_memory_stats GpuBackendTest::Stats() {
  strata_memory_stats s{};
  s.struct_size = sizeof s;
  EXPECT_EQ(strata_get_memory_stats(dev_, 0, &s), STRATA_OK) << strata_last_error_message();
  return s;
}

uint64_t GpuBackendTest::TotalBytes() {
  strata_device_info info{};
  info.struct_size = sizeof info;
  EXPECT_EQ(strata_get_device_info(dev_, &info), STRATA_OK);
  return info.hbm_capacity_bytes;
}

namespace {

TEST_P(GpuBackendTest, CopiesAreBitExactAcrossAllocationSizes) {
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

// One GEMM through the API against the reference; C starts as `c_init` (int32 values, for ACCUMULATE).
void CheckGemm(strata_device* dev, strata_context ctx, uint32_t m, uint32_t n, uint32_t k, uint32_t flags,
               const std::vector<int8_t>& a, const std::vector<int8_t>& b, const std::vector<int32_t>& c_init) {
  const bool int8 = flags & STRATA_GEMM_FLAG_INT8;
  strata_buffer ha, hb, hc;
  ASSERT_EQ(strata_alloc(dev, ctx, a.size(), 0, 0, &ha), STRATA_OK);
  ASSERT_EQ(strata_alloc(dev, ctx, b.size(), 0, 0, &hb), STRATA_OK);
  ASSERT_EQ(strata_alloc(dev, ctx, uint64_t{m} * n * (int8 ? 1 : 4), 0, 0, &hc), STRATA_OK);
  ASSERT_EQ(strata_write(dev, ctx, ha, 0, a.data(), a.size()), STRATA_OK);
  ASSERT_EQ(strata_write(dev, ctx, hb, 0, b.data(), b.size()), STRATA_OK);
  if (!c_init.empty()) {
    ASSERT_EQ(strata_write(dev, ctx, hc, 0, c_init.data(), c_init.size() * 4), STRATA_OK);
  }
  strata_gemm_args g{};
  g.struct_size = sizeof g;
  g.a = ha, g.b = hb, g.c = hc, g.m = m, g.n = n, g.k = k, g.flags = flags;
  if (int8) g.quant_mult = 3, g.quant_shift = 9;
  ASSERT_EQ(strata_gemm(dev, ctx, &g), STRATA_OK) << strata_last_error_message();
  reference::GemmSpec spec;
  spec.m = m, spec.n = n, spec.k = k, spec.relu = flags & STRATA_GEMM_FLAG_RELU, spec.int8 = int8;
  spec.round = flags & STRATA_GEMM_FLAG_ROUND, spec.quant_mult = 3, spec.quant_shift = 9;
  const std::vector<int32_t> want = reference::Gemm(a.data(), b.data(), c_init.empty() ? nullptr : c_init.data(), spec);
  if (int8) {
    std::vector<int8_t> got(uint64_t{m} * n);
    ASSERT_EQ(strata_read(dev, ctx, hc, 0, got.data(), got.size()), STRATA_OK);
    EXPECT_EQ(std::vector<int32_t>(got.begin(), got.end()), want);
  } else {
    std::vector<int32_t> got(uint64_t{m} * n);
    ASSERT_EQ(strata_read(dev, ctx, hc, 0, got.data(), got.size() * 4), STRATA_OK);
    EXPECT_EQ(got, want);
  }
  g.c = ha;  // C may not be A
  EXPECT_EQ(strata_gemm(dev, ctx, &g), STRATA_INVALID_ARGUMENT);
  for (strata_buffer h : {ha, hb, hc}) EXPECT_EQ(strata_free(dev, ctx, h), STRATA_OK);
}

TEST_P(GpuBackendTest, GemmMatchesTheReference) {
  for (uint32_t flags : {0u, STRATA_GEMM_FLAG_RELU, STRATA_GEMM_FLAG_INT8 | STRATA_GEMM_FLAG_ROUND,
                         STRATA_GEMM_FLAG_INT8 | STRATA_GEMM_FLAG_RELU, STRATA_GEMM_FLAG_ACCUMULATE,
                         STRATA_GEMM_FLAG_ACCUMULATE | STRATA_GEMM_FLAG_RELU}) {
    SCOPED_TRACE(flags);
    const uint32_t m = 37, k = 53, n = 29;  // partial tiles in every dimension
    std::mt19937 rng(flags + 1);
    std::vector<int8_t> a(m * k), b(k * n);
    for (auto& x : a) x = static_cast<int8_t>(rng());
    for (auto& x : b) x = static_cast<int8_t>(rng());
    std::vector<int32_t> c_init;
    if (flags & STRATA_GEMM_FLAG_ACCUMULATE) {
      c_init.resize(m * n);
      for (auto& x : c_init) x = static_cast<int32_t>(rng());  // near the int32 limits too: sums wrap
    }
    CheckGemm(dev_, ctx_, m, n, k, flags, a, b, c_init);
  }
}

// -128 x -128 summed 140,000 times passes 2^31: the sum wraps modulo 2^32 as the reference's and the matrix unit's.
TEST_P(GpuBackendTest, GemmSumsWrapAroundLikeTheReference) {
  const uint32_t m = 2, n = 3, k = 140000;
  CheckGemm(dev_, ctx_, m, n, k, 0, std::vector<int8_t>(m * k, -128), std::vector<int8_t>(k * n, -128), {});
}

TEST_P(GpuBackendTest, HandleMisuseGetsItsPreciseStatusAndChangesNothing) {
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
  EXPECT_EQ(strata_alloc(dev_, 0, 64, 0, 0, &x), STRATA_INVALID_ARGUMENT);  // 0 is never a context
  EXPECT_EQ(strata_alloc(dev_, ctx_ + 7, 64, 0, 0, &x), STRATA_NOT_FOUND);  // one that was never created
  EXPECT_EQ(strata_free(dev_, 0, b), STRATA_INVALID_ARGUMENT);              // the same rule for every call
  EXPECT_EQ(strata_read(dev_, 0, b, 0, buf, 16), STRATA_INVALID_ARGUMENT);
  const strata_memory_stats after = Stats();
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(after.live_buffers, before.live_buffers);
  EXPECT_EQ(strata_free(dev_, ctx_, b), STRATA_OK);
  EXPECT_EQ(strata_free(dev_, ctx_, b), STRATA_NOT_FOUND);  // stale
}

// A destroyed context's id stays refused (NOT_FOUND, as any context that is gone) after a new context takes its
// place: ids carry a generation on every backend (the runtime's on sim), so a stale id never allocates in, frees
// from or destroys the next tenant's context.
TEST_P(GpuBackendTest, ADestroyedContextsIdNamesNoLaterContext) {
  strata_context gone = 0, next = 0;
  ASSERT_EQ(strata_context_create(dev_, nullptr, &gone), STRATA_OK) << strata_last_error_message();
  ASSERT_EQ(strata_context_destroy(dev_, gone), STRATA_OK) << strata_last_error_message();
  ASSERT_EQ(strata_context_create(dev_, nullptr, &next), STRATA_OK) << strata_last_error_message();
  EXPECT_NE(next, gone);
  strata_buffer mine = 0;
  ASSERT_EQ(strata_alloc(dev_, next, 4096, 0, 0, &mine), STRATA_OK) << strata_last_error_message();
  const strata_memory_stats before = Stats();
  strata_buffer x = 0;
  EXPECT_EQ(strata_alloc(dev_, gone, 4096, 0, 0, &x), STRATA_NOT_FOUND);
  EXPECT_NE(std::string(strata_last_error_message()).find("context"), std::string::npos) << strata_last_error_message();
  char buf[16] = {};
  EXPECT_EQ(strata_free(dev_, gone, mine), STRATA_NOT_FOUND);
  EXPECT_EQ(strata_write(dev_, gone, mine, 0, buf, 16), STRATA_NOT_FOUND);
  EXPECT_EQ(strata_read(dev_, gone, mine, 0, buf, 16), STRATA_NOT_FOUND);
  strata_memory_stats s{};
  s.struct_size = sizeof s;
  EXPECT_EQ(strata_get_memory_stats(dev_, gone, &s), STRATA_NOT_FOUND);
  EXPECT_EQ(strata_context_destroy(dev_, gone), STRATA_NOT_FOUND);
  const strata_memory_stats after = Stats();
  EXPECT_EQ(after.contexts, before.contexts);
  EXPECT_EQ(after.live_buffers, before.live_buffers);
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  s = strata_memory_stats{};
  s.struct_size = sizeof s;
  ASSERT_EQ(strata_get_memory_stats(dev_, next, &s), STRATA_OK);
  EXPECT_EQ(s.context_buffers, 1u);  // the new tenant's buffer, untouched
  EXPECT_EQ(strata_free(dev_, next, mine), STRATA_OK);
  EXPECT_EQ(strata_context_destroy(dev_, next), STRATA_OK);
}

TEST_P(GpuBackendTest, QuotaFailsWithKindCapAndNumbers) {
  const strata_context q = QuotaContext(8 * kMiB);
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

// Named context options (API 1.9): on a GPU backend a context may run another framework's policy beside the device's
// (here PyTorch's, which rounds 1 B to its 512-byte block, or TF's BFC and its 256-byte granule beside a PyTorch
// device); the model takes none and says so. A refused one creates nothing.
TEST_P(GpuBackendTest, AContextMayNameItsOwnPolicy) {
  const bool torch_device = std::string(GetParam().policy).rfind("torch", 0) == 0;
  const char* other = torch_device ? "tf-growth" : "torch";
  const strata_named_value policy[] = {Str("policy", other)};
  strata_context_options o{};
  o.struct_size = sizeof o;
  o.named_options = policy;
  o.num_named_options = 1;
  const uint32_t contexts = Stats().contexts;
  strata_context c = 0;
  if (OnModel()) {
    EXPECT_EQ(strata_context_create(dev_, &o, &c), STRATA_INVALID_ARGUMENT);
    EXPECT_NE(std::string(strata_last_error_message()).find("has no context option 'policy'"), std::string::npos)
        << strata_last_error_message();
    EXPECT_EQ(Stats().contexts, contexts);
    return;
  }
  ASSERT_EQ(strata_context_create(dev_, &o, &c), STRATA_OK) << strata_last_error_message();
  strata_buffer b = 0;
  ASSERT_EQ(strata_alloc(dev_, c, 1, 0, 0, &b), STRATA_OK) << strata_last_error_message();
  strata_memory_stats s{};
  s.struct_size = sizeof s;
  ASSERT_EQ(strata_get_memory_stats(dev_, c, &s), STRATA_OK);
  EXPECT_EQ(s.context_allocated_bytes, torch_device ? 256u : 512u);
  EXPECT_GT(s.context_pool_bytes, 0u);
  const strata_named_value bad[] = {Str("policy", other), Str("no_such_setting", "1")};
  o.named_options = bad;
  o.num_named_options = 2;
  strata_context refused = 0;
  EXPECT_EQ(strata_context_create(dev_, &o, &refused), STRATA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(strata_last_error_message()).find("no_such_setting"), std::string::npos);
  EXPECT_EQ(refused, 0u);
  EXPECT_EQ(Stats().contexts, contexts + 1);
  EXPECT_EQ(strata_free(dev_, c, b), STRATA_OK);
  EXPECT_EQ(strata_context_destroy(dev_, c), STRATA_OK);
}

TEST_P(GpuBackendTest, MoreThanTheDeviceFailsWithKindCapacity) {
  const uint64_t request = 2 * TotalBytes();
  strata_buffer b;
  EXPECT_EQ(strata_alloc(dev_, ctx_, request, 0, 0, &b), STRATA_RESOURCE_EXHAUSTED);
  const std::string message = strata_last_error_message();
  strata_oom_info oom{};
  oom.struct_size = sizeof oom;
  ASSERT_EQ(strata_get_last_oom(dev_, &oom), STRATA_OK);
  EXPECT_EQ(oom.kind, STRATA_OOM_CAPACITY) << strata_oom_kind_name(oom.kind);
  char want[96];
  if (OnModel()) {  // the driver's message for the device, in bytes
    std::snprintf(want, sizeof want, "(capacity): requested %llu B", static_cast<unsigned long long>(request));
  } else {
    std::snprintf(want, sizeof want, "out of memory (capacity): requested %.2f GiB", request / double(1ull << 30));
  }
  EXPECT_NE(message.find(want), std::string::npos) << message;
  EXPECT_EQ(Stats().oom_capacity, 1u);
}

// Requests near 2^64 fail as capacity OOMs and change nothing (a policy's round-up once wrapped 2^64 - 1 to 0
// and served it); a quota's check does not wrap either.
TEST_P(GpuBackendTest, HugeRequestsFailAndChangeNothing) {
  strata_buffer keep;
  ASSERT_EQ(strata_alloc(dev_, ctx_, kMiB, 0, 0, &keep), STRATA_OK);
  const strata_memory_stats before = Stats();
  for (uint64_t bytes : {(1ull << 62) + 1, 1ull << 63, ~0ull - (1ull << 20), ~0ull}) {
    strata_buffer b = 0;
    EXPECT_EQ(strata_alloc(dev_, ctx_, bytes, 0, 0, &b), STRATA_RESOURCE_EXHAUSTED) << bytes;
    EXPECT_EQ(b, 0u);
    strata_oom_info oom{};
    oom.struct_size = sizeof oom;
    ASSERT_EQ(strata_get_last_oom(dev_, &oom), STRATA_OK);
    EXPECT_EQ(oom.kind, STRATA_OOM_CAPACITY) << bytes;
    EXPECT_EQ(oom.request_bytes, bytes);
  }
  const strata_memory_stats after = Stats();
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(after.live_buffers, before.live_buffers);
  EXPECT_EQ(after.num_allocs, before.num_allocs);

  const strata_context q = QuotaContext(8 * kMiB);
  strata_buffer b;
  ASSERT_EQ(strata_alloc(dev_, q, 6 * kMiB, 0, 0, &b), STRATA_OK);
  // 6 MiB in use + (2^64 - 4 MiB) wraps to 2 MiB, under the quota: the check must not add.
  EXPECT_EQ(strata_alloc(dev_, q, ~0ull - 4 * kMiB + 1, 0, 0, &b), STRATA_RESOURCE_EXHAUSTED);
  EXPECT_EQ(strata_free(dev_, ctx_, keep), STRATA_OK);
}

TEST_P(GpuBackendTest, DefragmentationKeepsEveryByte) {
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
  if (OnModel()) {
    // On the device: only the buffers above a hole move, HBM to HBM; nothing crosses the host link.
    EXPECT_GT(r.moves, 0u);
    EXPECT_LE(r.moves, 20u);
    EXPECT_GT(r.bytes_moved, 0u);
    EXPECT_LE(r.bytes_moved, kept + 20 * 256);  // whole 256-byte granules
    EXPECT_EQ(Stats().host_bytes_copied, 0u);
    EXPECT_EQ(Stats().fragmentation, 0.0);
  } else {
    EXPECT_EQ(r.moves, 20u);  // JAX's Defragment(): every live buffer
    EXPECT_EQ(r.bytes_moved, kept);
    EXPECT_EQ(Stats().host_bytes_copied, 2 * kept);  // to the host and back
  }
  for (size_t i = 1; i < live.size(); i += 2) {
    std::vector<uint8_t> back(live[i].second.size());
    ASSERT_EQ(strata_read(dev_, ctx_, live[i].first, 0, back.data(), back.size()), STRATA_OK);
    EXPECT_EQ(back, live[i].second);
  }
}

// A buffer written with zeros keeps them through defragmentation even where it lands on memory a freed
// buffer had written (the emulated GPU must not take written zeros for "never written").
TEST_P(GpuBackendTest, DefragmentationKeepsWrittenZeros) {
  const uint64_t bytes = 4 * kMiB;
  strata_buffer below, zeros;
  ASSERT_EQ(strata_alloc(dev_, ctx_, bytes, 0, 0, &below), STRATA_OK);
  std::vector<uint8_t> noise(bytes);
  std::mt19937_64 rng(5);
  for (auto& x : noise) x = static_cast<uint8_t>(rng() | 1);  // no zero byte
  ASSERT_EQ(strata_write(dev_, ctx_, below, 0, noise.data(), bytes), STRATA_OK);
  ASSERT_EQ(strata_alloc(dev_, ctx_, bytes, 0, 0, &zeros), STRATA_OK);
  const std::vector<uint8_t> zero(bytes, 0);
  ASSERT_EQ(strata_write(dev_, ctx_, zeros, 0, zero.data(), bytes), STRATA_OK);
  ASSERT_EQ(strata_free(dev_, ctx_, below), STRATA_OK);
  strata_compact_result r{};
  r.struct_size = sizeof r;
  ASSERT_EQ(strata_compact(dev_, ctx_, nullptr, &r), STRATA_OK) << strata_last_error_message();
  std::vector<uint8_t> back(bytes, 0xAA);
  ASSERT_EQ(strata_read(dev_, ctx_, zeros, 0, back.data(), bytes), STRATA_OK);
  EXPECT_EQ(back, zero);
}

}  // namespace
}  // namespace strata::gpu_suite
