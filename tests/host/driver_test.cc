// The host API end to end on the sim backend: bit-exact copies, data intact across compactions,
// defragment-on-OOM, out-of-memory without losses, and every kind of bad input refused with its precise
// status and no other change.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "strata/reference_gemm.h"
#include "strata/strata.h"
#include "strata/strata.hpp"

namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kKiB = 1ull << 10;

strata_open_options SmallDevice(uint64_t capacity) {
  strata_open_options o{};
  o.struct_size = sizeof o;
  o.hbm_capacity_bytes = capacity;
  return o;
}

class DriverTest : public ::testing::Test {
 protected:
  void Open(uint64_t capacity = 8 * kMiB) {
    const strata_open_options o = SmallDevice(capacity);
    ASSERT_EQ(strata_open("sim", &o, &dev_), STRATA_OK) << strata_last_error_message();
    ASSERT_EQ(strata_context_create(dev_, nullptr, &ctx_), STRATA_OK) << strata_last_error_message();
  }
  void TearDown() override { strata_close(dev_); }

  strata_buffer Alloc(uint64_t bytes, strata_context ctx = 0) {
    strata_buffer b = 0;
    EXPECT_EQ(strata_alloc(dev_, ctx ? ctx : ctx_, bytes, 0, 0, &b), STRATA_OK) << strata_last_error_message();
    return b;
  }
  std::vector<uint8_t> Random(size_t n) {
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = static_cast<uint8_t>(rng_());
    return v;
  }
  std::vector<uint8_t> ReadAll(strata_buffer b, uint64_t n, strata_context ctx = 0) {
    std::vector<uint8_t> v(n);
    EXPECT_EQ(strata_read(dev_, ctx ? ctx : ctx_, b, 0, v.data(), n), STRATA_OK) << strata_last_error_message();
    return v;
  }
  strata_memory_stats Stats(strata_context ctx = 0) {
    strata_memory_stats s{};
    s.struct_size = sizeof s;
    EXPECT_EQ(strata_get_memory_stats(dev_, ctx, &s), STRATA_OK) << strata_last_error_message();
    return s;
  }
  // What "nothing changed" compares.
  static void ExpectSameState(const strata_memory_stats& a, const strata_memory_stats& b) {
    EXPECT_EQ(a.bytes_in_use, b.bytes_in_use);
    EXPECT_EQ(a.live_buffers, b.live_buffers);
    EXPECT_EQ(a.num_allocs, b.num_allocs);
    EXPECT_EQ(a.num_frees, b.num_frees);
    EXPECT_EQ(a.largest_free_block_bytes, b.largest_free_block_bytes);
    EXPECT_EQ(a.context_bytes_in_use, b.context_bytes_in_use);
  }

  // Random int8 values over the whole range, -128 one time in sixteen.
  std::vector<int8_t> RandomInt8(size_t n) {
    std::vector<int8_t> v(n);
    for (auto& x : v) x = (rng_() & 15) == 0 ? int8_t{-128} : static_cast<int8_t>(rng_());
    return v;
  }
  strata_buffer Upload(const void* data, uint64_t bytes, strata_context ctx = 0) {
    const strata_buffer b = Alloc(bytes, ctx);
    EXPECT_EQ(strata_write(dev_, ctx ? ctx : ctx_, b, 0, data, bytes), STRATA_OK) << strata_last_error_message();
    return b;
  }
  strata_status Gemm(strata_buffer a, strata_buffer b, strata_buffer c, uint32_t m, uint32_t n, uint32_t k,
                     uint32_t flags = 0, int32_t mult = 0, uint32_t shift = 0, uint32_t dtype = STRATA_DTYPE_INT8) {
    const strata_gemm_args g{sizeof g, a, b, c, m, n, k, flags, mult, shift, dtype};
    return strata_gemm(dev_, ctx_, &g);
  }
  // Runs C = A.B (+ C) on the device with random operands and compares with the reference, element by element.
  void CheckGemm(uint32_t m, uint32_t n, uint32_t k, uint32_t flags = 0, int32_t mult = 0, uint32_t shift = 0) {
    SCOPED_TRACE(testing::Message() << "m=" << m << " n=" << n << " k=" << k << " flags=" << flags);
    const std::vector<int8_t> a = RandomInt8(uint64_t{m} * k), b = RandomInt8(uint64_t{k} * n);
    const bool int8 = (flags & STRATA_GEMM_FLAG_INT8) != 0;
    std::vector<int32_t> c_in(uint64_t{m} * n);
    for (auto& x : c_in) x = static_cast<int32_t>(rng_());
    const uint64_t c_bytes = uint64_t{m} * n * (int8 ? 1 : 4);
    const strata_buffer ha = Upload(a.data(), a.size()), hb = Upload(b.data(), b.size());
    const strata_buffer hc = Upload(c_in.data(), c_bytes);  // garbage unless ACCUMULATE: must be overwritten
    ASSERT_EQ(Gemm(ha, hb, hc, m, n, k, flags, mult, shift), STRATA_OK) << strata_last_error_message();
    strata::reference::GemmSpec spec;
    spec.m = m;
    spec.n = n;
    spec.k = k;
    spec.relu = (flags & STRATA_GEMM_FLAG_RELU) != 0;
    spec.int8 = int8;
    spec.round = (flags & STRATA_GEMM_FLAG_ROUND) != 0;
    spec.quant_mult = mult;
    spec.quant_shift = shift;
    const std::vector<int32_t> want = strata::reference::Gemm(
        a.data(), b.data(), (flags & STRATA_GEMM_FLAG_ACCUMULATE) ? c_in.data() : nullptr, spec);
    const std::vector<uint8_t> raw = ReadAll(hc, c_bytes);
    uint64_t bad = 0;
    for (uint64_t i = 0; i < want.size(); ++i) {
      int32_t got;
      if (int8) {
        got = static_cast<int8_t>(raw[i]);
      } else {
        std::memcpy(&got, raw.data() + 4 * i, 4);
      }
      if (got != want[i] && bad++ < 5)
        ADD_FAILURE() << "C[" << i / n << "][" << i % n << "] = " << got << ", want " << want[i];
    }
    EXPECT_EQ(bad, 0u);
    for (strata_buffer h : {ha, hb, hc}) EXPECT_EQ(strata_free(dev_, ctx_, h), STRATA_OK);
  }

  strata_device* dev_ = nullptr;
  strata_context ctx_ = 0;
  std::mt19937_64 rng_{1234};
};

TEST(Driver, VersionAndOpenErrors) {
  strata_version v{};
  v.struct_size = sizeof v;
  ASSERT_EQ(strata_get_version(&v), STRATA_OK);
  EXPECT_EQ(v.api_major, STRATA_API_VERSION_MAJOR);
  EXPECT_EQ(v.protocol_major, 1u);
  strata_device* d = nullptr;
  EXPECT_EQ(strata_open("nope", nullptr, &d), STRATA_UNIMPLEMENTED);
  EXPECT_NE(std::string(strata_last_error_message()).find("unknown backend 'nope'"), std::string::npos);
  strata_open_options o = SmallDevice(8 * kMiB);
  o.hbm_preset = "HBM9";
  EXPECT_EQ(strata_open("sim", &o, &d), STRATA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(strata_last_error_message()).find("HBM9"), std::string::npos);
  o = SmallDevice(8 * kMiB);
  o.firmware_path = "/nonexistent/runtime.elf";
  EXPECT_EQ(strata_open("sim", &o, &d), STRATA_UNAVAILABLE);
  EXPECT_EQ(d, nullptr);
  EXPECT_STREQ(strata_status_name(STRATA_PERMISSION_DENIED), "PERMISSION_DENIED");
}

TEST_F(DriverTest, DeviceInfoReportsTheProbedHbm) {
  Open(8 * kMiB);
  strata_device_info info{};
  info.struct_size = sizeof info;
  ASSERT_EQ(strata_get_device_info(dev_, &info), STRATA_OK);
  EXPECT_STREQ(info.backend, "sim");
  EXPECT_EQ(info.hbm_capacity_bytes, 8 * kMiB);
  EXPECT_EQ(info.heap_bytes, 7 * kMiB);  // minus four 256 KiB staging slots
  EXPECT_EQ(info.granule_bytes, 256u);
  EXPECT_EQ(Stats().bytes_limit, 7 * kMiB);
  EXPECT_EQ(strata_synchronize(dev_), STRATA_OK);
}

// The standard open option capacity_bytes (API 1.10): the backend sizes the HBM itself (the heap in whole 256 KiB
// stripes plus the four staging slots, at least the runtime's minimum; HBM3 rows span 512 KiB), and its pad at offset
// 0 leaves the contexts exactly the capacity, whatever it is. Checked against that rule computed here, over sizes
// that land on, just past and far from a stripe, on each preset.
TEST(Driver, CapacityBytesSizesTheHbmAndLeavesExactlyThatMuch) {
  constexpr uint64_t kStaging = 4 * 256 * kKiB;
  for (const char* preset : {"HBM2", "HBM3"}) {
    const uint64_t stride = std::string(preset) == "HBM3" ? 512 * kKiB : 256 * kKiB;
    for (uint64_t capacity : {uint64_t{256}, 1 * kMiB, 1 * kMiB + 256, 3 * kMiB - 768, 7 * kMiB}) {
      SCOPED_TRACE(std::string(preset) + " capacity " + std::to_string(capacity));
      strata::Device dev("sim", {{"hbm_preset", preset}, {"capacity_bytes", capacity}});
      strata_device_info info{};
      info.struct_size = sizeof info;
      ASSERT_EQ(strata_get_device_info(dev.get(), &info), STRATA_OK);
      const uint64_t hbm = std::max((capacity + kStaging + stride - 1) / stride * stride, 2 * kStaging);
      EXPECT_EQ(info.hbm_capacity_bytes, hbm);
      EXPECT_EQ(info.heap_bytes, hbm - kStaging);
      strata_context ctx = 0;
      ASSERT_EQ(strata_context_create(dev.get(), nullptr, &ctx), STRATA_OK) << strata_last_error_message();
      strata_memory_stats s{};
      s.struct_size = sizeof s;
      ASSERT_EQ(strata_get_memory_stats(dev.get(), 0, &s), STRATA_OK);
      EXPECT_EQ(s.bytes_in_use, info.heap_bytes - capacity);  // the pad
      EXPECT_EQ(s.live_buffers, info.heap_bytes == capacity ? 0u : 1u);
      // The whole capacity in one buffer, then not a granule more.
      strata_buffer b = 0, more = 0;
      ASSERT_EQ(strata_alloc(dev.get(), ctx, capacity, 0, 0, &b), STRATA_OK) << strata_last_error_message();
      EXPECT_EQ(strata_alloc(dev.get(), ctx, 256, 0, 0, &more), STRATA_RESOURCE_EXHAUSTED);
      // The pad's context is the backend's: no id below the caller's names a context (one sweep is enough).
      for (strata_context c = ctx & 0xfff00000u; capacity == 256 && c < ctx; ++c) {
        EXPECT_NE(strata_alloc(dev.get(), c, 256, 0, 0, &more), STRATA_OK) << c;
        EXPECT_NE(strata_context_destroy(dev.get(), c), STRATA_OK) << c;
      }
      ASSERT_EQ(strata_free(dev.get(), ctx, b), STRATA_OK);
    }
  }
  // Refused with the reason, and no device: a size off the granule, a negative one, both sizes at once.
  strata_device* d = nullptr;
  EXPECT_THROW(strata::Device("sim", {{"capacity_bytes", 1000}}), strata::Error);
  EXPECT_THROW(strata::Device("sim", {{"capacity_bytes", -256}}), strata::Error);
  try {
    strata::Device("sim", {{"capacity_bytes", 1 << 20}, {"hbm_capacity_bytes", 8 << 20}});
    ADD_FAILURE() << "both sizes were accepted";
  } catch (const strata::Error& e) {
    EXPECT_EQ(e.status(), STRATA_INVALID_ARGUMENT);
    EXPECT_NE(std::string(e.what()).find("give it or hbm_capacity_bytes, not both"), std::string::npos) << e.what();
  }
  EXPECT_EQ(d, nullptr);
}

TEST_F(DriverTest, RandomUploadsAndDownloadsAreBitExact) {
  Open(16 * kMiB);
  struct Buf {
    strata_buffer h;
    std::vector<uint8_t> shadow;
  };
  std::vector<Buf> bufs;
  for (uint64_t size : std::vector<uint64_t>{1, 255, 4096, 100001, 256 * kKiB, 256 * kKiB + 1, 1100 * kKiB}) {
    Buf b{Alloc(size), Random(size)};
    ASSERT_EQ(strata_write(dev_, ctx_, b.h, 0, b.shadow.data(), size), STRATA_OK) << strata_last_error_message();
    bufs.push_back(std::move(b));
  }
  for (int i = 0; i < 40; ++i) {  // random sub-range writes
    Buf& b = bufs[rng_() % bufs.size()];
    const uint64_t off = rng_() % b.shadow.size();
    const uint64_t n = 1 + rng_() % (b.shadow.size() - off);
    const std::vector<uint8_t> data = Random(n);
    ASSERT_EQ(strata_write(dev_, ctx_, b.h, off, data.data(), n), STRATA_OK) << strata_last_error_message();
    std::memcpy(b.shadow.data() + off, data.data(), n);
    const uint64_t roff = rng_() % b.shadow.size();
    const uint64_t rn = 1 + rng_() % (b.shadow.size() - roff);
    std::vector<uint8_t> got(rn);
    ASSERT_EQ(strata_read(dev_, ctx_, b.h, roff, got.data(), rn), STRATA_OK) << strata_last_error_message();
    ASSERT_EQ(0, std::memcmp(got.data(), b.shadow.data() + roff, rn)) << "read at " << roff << " + " << rn;
  }
  for (Buf& b : bufs) EXPECT_EQ(ReadAll(b.h, b.shadow.size()), b.shadow);
}

TEST_F(DriverTest, DataSurvivesCompaction) {
  Open(16 * kMiB);
  std::vector<strata_buffer> live;
  std::vector<std::vector<uint8_t>> contents;
  for (int i = 0; i < 48; ++i) {
    const uint64_t size = 4 * kKiB + (rng_() % (120 * kKiB));
    live.push_back(Alloc(size));
    contents.push_back(Random(size));
    ASSERT_EQ(strata_write(dev_, ctx_, live.back(), 0, contents.back().data(), size), STRATA_OK);
  }
  for (size_t i = 0; i < live.size(); i += 2) ASSERT_EQ(strata_free(dev_, ctx_, live[i]), STRATA_OK);
  const strata_memory_stats before = Stats();
  EXPECT_GT(before.fragmentation, 0.05);  // ~1.5 MiB of holes beside a ~12 MiB tail
  // A budgeted pass first, then everything.
  strata_compact_options budget{sizeof budget, 512 * kKiB, 4};
  strata_compact_result r{};
  r.struct_size = sizeof r;
  ASSERT_EQ(strata_compact(dev_, ctx_, &budget, &r), STRATA_OK) << strata_last_error_message();
  EXPECT_LE(r.moves, 4u);
  EXPECT_GT(r.moves, 0u);
  ASSERT_EQ(strata_compact(dev_, ctx_, nullptr, &r), STRATA_OK) << strata_last_error_message();
  const strata_memory_stats after = Stats();
  EXPECT_GT(after.compaction_moves, 0u);
  EXPECT_GT(after.compaction_cycles, 0u);
  EXPECT_EQ(after.fragmentation, 0.0);
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(after.largest_free_block_bytes, after.bytes_free);
  for (size_t i = 1; i < live.size(); i += 2) {
    EXPECT_EQ(ReadAll(live[i], contents[i].size()), contents[i]) << "buffer " << i;
  }
}

TEST_F(DriverTest, FragmentationOnlyFailureIsServedByDefragmentOnOom) {
  Open(8 * kMiB);  // 7 MiB heap
  std::vector<strata_buffer> bufs;
  std::vector<std::vector<uint8_t>> contents;
  for (int i = 0; i < 28; ++i) {  // 28 x 256 KiB = the whole heap
    bufs.push_back(Alloc(256 * kKiB));
    contents.push_back(Random(256 * kKiB));
    ASSERT_EQ(strata_write(dev_, ctx_, bufs.back(), 0, contents.back().data(), 256 * kKiB), STRATA_OK);
  }
  for (int i = 0; i < 28; i += 2) ASSERT_EQ(strata_free(dev_, ctx_, bufs[i]), STRATA_OK);
  // 3.5 MiB free, in 256 KiB holes: 1 MiB fits only after compaction.
  strata_buffer big = 0;
  const strata_memory_stats before = Stats();
  EXPECT_EQ(strata_alloc(dev_, ctx_, kMiB, 0, STRATA_ALLOC_FLAG_NO_COMPACT, &big), STRATA_RESOURCE_EXHAUSTED);
  EXPECT_NE(std::string(strata_last_error_message()).find("not enough device memory"), std::string::npos);
  ASSERT_EQ(strata_alloc(dev_, ctx_, kMiB, 0, 0, &big), STRATA_OK) << strata_last_error_message();
  const strata_memory_stats after = Stats();
  EXPECT_GT(after.compactions, before.compactions);
  EXPECT_GT(after.compaction_bytes_moved, 0u);
  EXPECT_LT(after.compaction_bytes_moved, 3 * kMiB) << "defragment-on-OOM moves just enough";
  for (int i = 1; i < 28; i += 2) EXPECT_EQ(ReadAll(bufs[i], 256 * kKiB), contents[i]) << "buffer " << i;
}

TEST_F(DriverTest, RequestLargerThanFreeMemoryFailsAndLosesNothing) {
  Open(8 * kMiB);
  std::vector<strata_buffer> bufs;
  std::vector<std::vector<uint8_t>> contents;
  for (int i = 0; i < 5; ++i) {
    bufs.push_back(Alloc(kMiB));
    contents.push_back(Random(kMiB));
    ASSERT_EQ(strata_write(dev_, ctx_, bufs.back(), 0, contents.back().data(), kMiB), STRATA_OK);
  }
  ASSERT_EQ(strata_free(dev_, ctx_, bufs[1]), STRATA_OK);  // a hole, so compaction would be tempting
  const strata_memory_stats before = Stats();
  strata_buffer b = 0;
  EXPECT_EQ(strata_alloc(dev_, ctx_, before.bytes_free + 1, 0, 0, &b), STRATA_RESOURCE_EXHAUSTED);
  EXPECT_EQ(b, 0u);
  EXPECT_EQ(strata_alloc(dev_, ctx_, 1ull << 40, 0, 0, &b), STRATA_RESOURCE_EXHAUSTED);
  const strata_memory_stats after = Stats();
  ExpectSameState(before, after);
  EXPECT_EQ(after.compaction_moves, before.compaction_moves);
  for (int i : {0, 2, 3, 4}) EXPECT_EQ(ReadAll(bufs[i], kMiB), contents[i]);
  // Exactly what is free still fits (after compaction).
  EXPECT_EQ(strata_alloc(dev_, ctx_, before.bytes_free, 0, 0, &b), STRATA_OK) << strata_last_error_message();
}

TEST_F(DriverTest, BadInputGetsItsPreciseStatusAndChangesNothing) {
  Open(8 * kMiB);
  strata_context other = 0;
  ASSERT_EQ(strata_context_create(dev_, nullptr, &other), STRATA_OK);
  const strata_buffer mine = Alloc(4096);
  const strata_buffer theirs = Alloc(4096, other);
  const std::vector<uint8_t> data = Random(4096);
  ASSERT_EQ(strata_write(dev_, ctx_, mine, 0, data.data(), 4096), STRATA_OK);
  ASSERT_EQ(strata_write(dev_, other, theirs, 0, data.data(), 4096), STRATA_OK);
  const strata_buffer gone = Alloc(512);
  ASSERT_EQ(strata_free(dev_, ctx_, gone), STRATA_OK);
  const strata_memory_stats before = Stats(ctx_);
  std::vector<uint8_t> buf(8192, 0xee);

  struct Case {
    const char* what;
    strata_status got, want;
    const char* message;
  };
  std::vector<Case> cases;
  auto add = [&](const char* what, strata_status got, strata_status want, const char* message) {
    cases.push_back({what, got, want, message});
    if (got != want || std::string(strata_last_error_message()).find(message) == std::string::npos) {
      ADD_FAILURE() << what << ": got " << strata_status_name(got) << " (" << strata_last_error_message() << "), want "
                    << strata_status_name(want) << " with '" << message << "'";
    }
  };
  add("double free", strata_free(dev_, ctx_, gone), STRATA_NOT_FOUND, "stale");
  add("stale read", strata_read(dev_, ctx_, gone, 0, buf.data(), 16), STRATA_NOT_FOUND, "stale");
  add("stale write", strata_write(dev_, ctx_, gone, 0, buf.data(), 16), STRATA_NOT_FOUND, "stale");
  add("forged handle", strata_free(dev_, ctx_, 0xffffffffull), STRATA_INVALID_ARGUMENT, "not a buffer handle");
  add("null handle", strata_free(dev_, ctx_, 0), STRATA_INVALID_ARGUMENT, "handle");
  add("other's free", strata_free(dev_, ctx_, theirs), STRATA_PERMISSION_DENIED, "another context");
  add("other's read", strata_read(dev_, ctx_, theirs, 0, buf.data(), 16), STRATA_PERMISSION_DENIED, "another context");
  add("other's write", strata_write(dev_, ctx_, theirs, 0, buf.data(), 16), STRATA_PERMISSION_DENIED,
      "another context");
  add("read past end", strata_read(dev_, ctx_, mine, 4000, buf.data(), 97), STRATA_OUT_OF_RANGE, "outside the buffer");
  add("write past end", strata_write(dev_, ctx_, mine, 1, buf.data(), 4096), STRATA_OUT_OF_RANGE, "outside the buffer");
  // A large write whose end is out of range: refused before any chunk lands.
  add("big write past end", strata_write(dev_, ctx_, mine, 0, std::vector<uint8_t>(600 * kKiB).data(), 600 * kKiB),
      STRATA_OUT_OF_RANGE, "outside the buffer");
  add("offset overflow", strata_read(dev_, ctx_, mine, UINT64_MAX - 4, buf.data(), 16), STRATA_OUT_OF_RANGE,
      "overflows");
  add("unknown context", strata_free(dev_, 0x7777, mine), STRATA_NOT_FOUND, "no such context");
  add("no context", strata_free(dev_, 0, mine), STRATA_INVALID_ARGUMENT, "context");
  strata_buffer out = 0;
  add("zero-byte alloc", strata_alloc(dev_, ctx_, 0, 0, 0, &out), STRATA_INVALID_ARGUMENT, "bytes");
  add("bad alignment", strata_alloc(dev_, ctx_, 4096, 3000, 0, &out), STRATA_INVALID_ARGUMENT, "alignment");
  add("bad flags", strata_alloc(dev_, ctx_, 4096, 0, 0x80, &out), STRATA_INVALID_ARGUMENT, "flags");
  EXPECT_EQ(out, 0u);

  ExpectSameState(before, Stats(ctx_));
  std::vector<uint8_t> back(4096);
  ASSERT_EQ(strata_read(dev_, ctx_, mine, 0, back.data(), 4096), STRATA_OK);
  EXPECT_EQ(back, data) << "refused writes changed the buffer";
  ASSERT_EQ(strata_read(dev_, other, theirs, 0, back.data(), 4096), STRATA_OK);
  EXPECT_EQ(back, data) << "another context's buffer changed";
  EXPECT_TRUE(std::all_of(buf.begin(), buf.end(), [](uint8_t b) { return b == 0xee; }))
      << "refused reads wrote host memory";
}

// Shapes around the array size (16): 1x1x1, primes, just below and above multiples of 16, long K, tall
// and skinny, wide and short.
TEST_F(DriverTest, GemmRandomShapesAreBitExact) {
  Open(16 * kMiB);
  struct Shape {
    uint32_t m, n, k;
  } shapes[] = {{1, 1, 1},    {2, 3, 5},    {13, 17, 31}, {15, 17, 16},  {16, 16, 16},  {33, 47, 65},
                {97, 7, 129}, {3, 200, 40}, {300, 5, 3},  {31, 33, 700}, {130, 70, 257}};
  for (const Shape& sh : shapes) CheckGemm(sh.m, sh.n, sh.k);
  strata_device_info info{};
  info.struct_size = sizeof info;
  ASSERT_EQ(strata_get_device_info(dev_, &info), STRATA_OK);
  EXPECT_EQ(info.mxu_array_n, 16u);
  EXPECT_GT(info.hbm_bytes_read, 0u);
  EXPECT_GT(info.hbm_peak_bytes_per_cycle, 0.0);
}

TEST_F(DriverTest, GemmAccumulateReluAndRequantization) {
  Open(16 * kMiB);
  CheckGemm(37, 29, 45, STRATA_GEMM_FLAG_ACCUMULATE);
  CheckGemm(37, 29, 45, STRATA_GEMM_FLAG_RELU);
  CheckGemm(37, 29, 45, STRATA_GEMM_FLAG_ACCUMULATE | STRATA_GEMM_FLAG_RELU);
  CheckGemm(40, 24, 70, STRATA_GEMM_FLAG_INT8, 3, 9);
  CheckGemm(40, 24, 70, STRATA_GEMM_FLAG_INT8 | STRATA_GEMM_FLAG_ROUND, -5, 11);
  CheckGemm(40, 24, 70, STRATA_GEMM_FLAG_INT8 | STRATA_GEMM_FLAG_ROUND | STRATA_GEMM_FLAG_RELU, 1 << 20, 31);
}

// A GEMM names buffers by handle: after compaction moved them, it reads and writes them where they are now.
TEST_F(DriverTest, GemmFollowsBuffersThatCompactionMoved) {
  Open(8 * kMiB);
  std::vector<strata_buffer> holes;
  for (int i = 0; i < 8; ++i) holes.push_back(Alloc(64 * kKiB));
  const std::vector<int8_t> a = RandomInt8(48 * 64), b = RandomInt8(64 * 40);
  const strata_buffer ha = Upload(a.data(), a.size()), hb = Upload(b.data(), b.size());
  const strata_buffer hc = Alloc(48 * 40 * 4);
  for (strata_buffer h : holes) ASSERT_EQ(strata_free(dev_, ctx_, h), STRATA_OK);
  strata_compact_result r{};
  r.struct_size = sizeof r;
  ASSERT_EQ(strata_compact(dev_, ctx_, nullptr, &r), STRATA_OK) << strata_last_error_message();
  ASSERT_GT(r.moves, 0u) << "the operands should have moved down";
  ASSERT_EQ(Gemm(ha, hb, hc, 48, 40, 64), STRATA_OK) << strata_last_error_message();
  strata::reference::GemmSpec spec;
  spec.m = 48;
  spec.n = 40;
  spec.k = 64;
  const std::vector<int32_t> want = strata::reference::Gemm(a.data(), b.data(), nullptr, spec);
  std::vector<int32_t> got(want.size());
  ASSERT_EQ(strata_read(dev_, ctx_, hc, 0, got.data(), got.size() * 4), STRATA_OK);
  EXPECT_EQ(got, want);
}

TEST_F(DriverTest, GemmBadInputGetsItsPreciseStatusAndChangesNothing) {
  Open(8 * kMiB);
  strata_context other = 0;
  ASSERT_EQ(strata_context_create(dev_, nullptr, &other), STRATA_OK);
  // Shapes 8 x 16 . 16 x 8: A 128 bytes, B 128, C 256 (int32) or 64 (int8).
  const std::vector<int8_t> a = RandomInt8(128), b = RandomInt8(128);
  const strata_buffer ha = Upload(a.data(), a.size()), hb = Upload(b.data(), b.size());
  const std::vector<uint8_t> c_pattern = Random(256);
  const strata_buffer hc = Upload(c_pattern.data(), 256);
  const strata_buffer small_c = Upload(c_pattern.data(), 64);
  const strata_buffer theirs = Upload(b.data(), b.size(), other);
  const strata_buffer gone = Alloc(4096);
  ASSERT_EQ(strata_free(dev_, ctx_, gone), STRATA_OK);
  const strata_memory_stats before = Stats(ctx_);

  struct Case {
    const char* what;
    strata_status got, want;
    std::string message;
    const char* needle;
  };
  std::vector<Case> cases;
  auto add = [&](const char* what, strata_status got, strata_status want, const char* needle) {
    cases.push_back({what, got, want, strata_last_error_message(), needle});
  };
  add("k larger than A holds (mismatched shapes)", Gemm(ha, hb, hc, 8, 8, 32), STRATA_OUT_OF_RANGE,
      "buffer A is smaller");
  add("n larger than B holds", Gemm(ha, hb, hc, 8, 9, 16), STRATA_OUT_OF_RANGE, "buffer B is smaller");
  add("int32 C too small", Gemm(ha, hb, small_c, 8, 8, 16), STRATA_OUT_OF_RANGE, "buffer C is smaller");
  add("zero m", Gemm(ha, hb, hc, 0, 8, 16), STRATA_INVALID_ARGUMENT, "m, n and k");
  add("k above 2^24", Gemm(ha, hb, hc, 8, 8, (1u << 24) + 1), STRATA_INVALID_ARGUMENT, "m, n and k");
  add("huge shape", Gemm(ha, hb, hc, 1u << 24, 8, 1u << 24), STRATA_OUT_OF_RANGE, "larger than device memory");
  add("C is A", Gemm(ha, hb, ha, 8, 8, 16), STRATA_INVALID_ARGUMENT, "same buffer as A or B");
  add("another context's B", Gemm(ha, theirs, hc, 8, 8, 16), STRATA_PERMISSION_DENIED,
      "buffer B belongs to another context");
  add("stale A", Gemm(gone, hb, hc, 8, 8, 16), STRATA_NOT_FOUND, "buffer A: the handle is stale");
  add("forged C", Gemm(ha, hb, 0xffffffffull, 8, 8, 16), STRATA_INVALID_ARGUMENT, "buffer C");
  add("null A", Gemm(0, hb, hc, 8, 8, 16), STRATA_INVALID_ARGUMENT, "buffer A");
  add("unknown flag", Gemm(ha, hb, hc, 8, 8, 16, 0x40), STRATA_INVALID_ARGUMENT, "unknown flags");
  add("OUT_BF16 on int8", Gemm(ha, hb, hc, 8, 8, 16, STRATA_GEMM_FLAG_OUT_BF16), STRATA_INVALID_ARGUMENT,
      "OUT_BF16 needs dtype");
  add("unknown dtype", Gemm(ha, hb, hc, 8, 8, 16, 0, 0, 0, 2), STRATA_INVALID_ARGUMENT, "unknown dtype 2");
  add("INT8 with bf16", Gemm(ha, hb, hc, 8, 8, 8, STRATA_GEMM_FLAG_INT8, 1, 0, STRATA_DTYPE_BF16),
      STRATA_INVALID_ARGUMENT, "not dtype BF16");
  add("ROUND with bf16", Gemm(ha, hb, hc, 8, 8, 8, STRATA_GEMM_FLAG_ROUND, 0, 0, STRATA_DTYPE_BF16),
      STRATA_INVALID_ARGUMENT, "not dtype BF16");
  add("quant_mult with bf16", Gemm(ha, hb, hc, 8, 8, 8, 0, 3, 0, STRATA_DTYPE_BF16), STRATA_INVALID_ARGUMENT,
      "quant_mult and quant_shift");
  add("ACCUMULATE into bf16",
      Gemm(ha, hb, hc, 8, 8, 8, STRATA_GEMM_FLAG_ACCUMULATE | STRATA_GEMM_FLAG_OUT_BF16, 0, 0, STRATA_DTYPE_BF16),
      STRATA_INVALID_ARGUMENT, "ACCUMULATE needs an fp32 C");
  // runtime.elf, the default image, has no bf16 path: refused before anything is sent, naming the image that has.
  add("bf16 on runtime.elf", Gemm(ha, hb, hc, 8, 8, 8, 0, 0, 0, STRATA_DTYPE_BF16), STRATA_FAILED_PRECONDITION,
      "runtime_fp.elf");
  add("accumulate into int8", Gemm(ha, hb, hc, 8, 8, 16, STRATA_GEMM_FLAG_ACCUMULATE | STRATA_GEMM_FLAG_INT8, 1, 0),
      STRATA_INVALID_ARGUMENT, "ACCUMULATE needs an int32 C");
  add("round without int8", Gemm(ha, hb, hc, 8, 8, 16, STRATA_GEMM_FLAG_ROUND), STRATA_INVALID_ARGUMENT,
      "ROUND needs INT8");
  add("multiplier without int8", Gemm(ha, hb, hc, 8, 8, 16, 0, 3, 0), STRATA_INVALID_ARGUMENT, "quant_mult");
  add("shift 64", Gemm(ha, hb, hc, 8, 8, 16, STRATA_GEMM_FLAG_INT8, 1, 64), STRATA_INVALID_ARGUMENT, "quant_shift");
  add("args NULL", strata_gemm(dev_, ctx_, nullptr), STRATA_INVALID_ARGUMENT, "args");
  strata_gemm_args tiny{};
  tiny.struct_size = 8;
  add("struct_size too small", strata_gemm(dev_, ctx_, &tiny), STRATA_INVALID_ARGUMENT, "too small");
  strata_gemm_args g{};
  g.struct_size = sizeof g;
  g.a = ha;
  g.b = hb;
  g.c = hc;
  g.m = g.n = 8;
  g.k = 16;
  add("unknown context", strata_gemm(dev_, 0x7777, &g), STRATA_NOT_FOUND, "no such context");
  for (const Case& c : cases) {
    EXPECT_EQ(c.got, c.want) << c.what << ": " << c.message;
    EXPECT_NE(c.message.find(c.needle), std::string::npos) << c.what << ": " << c.message;
  }
  ExpectSameState(before, Stats(ctx_));
  EXPECT_EQ(ReadAll(hc, 256), c_pattern) << "a refused GEMM wrote C";
  EXPECT_EQ(ReadAll(small_c, 64), std::vector<uint8_t>(c_pattern.begin(), c_pattern.begin() + 64));
  // The same buffers work once the call is right, and int8 C fits in 64 bytes.
  EXPECT_EQ(Gemm(ha, hb, small_c, 8, 8, 16, STRATA_GEMM_FLAG_INT8, 1, 4), STRATA_OK) << strata_last_error_message();
}

// A caller built against API 1.1 .. 1.9 passes the struct without dtype: it gets the int8 GEMM it always got.
TEST_F(DriverTest, GemmArgsWithoutDtypeAreAnInt8Gemm) {
  Open(8 * kMiB);
  const uint32_t m = 5, n = 7, k = 19;
  const std::vector<int8_t> a = RandomInt8(m * k), b = RandomInt8(k * n);
  const strata_buffer ha = Upload(a.data(), a.size()), hb = Upload(b.data(), b.size()), hc = Alloc(m * n * 4);
  // The bytes past struct_size are not read: a dtype there (as an older caller's stack might hold) is ignored.
  strata_gemm_args g{sizeof g, ha, hb, hc, m, n, k, 0, 0, 0, STRATA_DTYPE_BF16};
  g.struct_size = offsetof(strata_gemm_args, dtype);
  ASSERT_EQ(strata_gemm(dev_, ctx_, &g), STRATA_OK) << strata_last_error_message();
  strata::reference::GemmSpec spec;
  spec.m = m;
  spec.n = n;
  spec.k = k;
  const std::vector<int32_t> want = strata::reference::Gemm(a.data(), b.data(), nullptr, spec);
  std::vector<int32_t> got(want.size());
  ASSERT_EQ(strata_read(dev_, ctx_, hc, 0, got.data(), got.size() * 4), STRATA_OK);
  EXPECT_EQ(got, want);
}

// The bf16 GEMM through the C API on runtime_fp.elf (open option runtime_fp): small exact sums (bf16 integers,
// every partial sum an integer below 2^24, so any order gives them), fp32 and bf16 C, and the images' versions.
TEST(Driver, Bf16GemmOnRuntimeFp) {
  const strata_named_value fp{sizeof(strata_named_value), "runtime_fp", STRATA_VALUE_BOOL, nullptr, 0, 0.0, 1};
  strata_open_options o = SmallDevice(8 * kMiB);
  o.named_options = &fp;
  o.num_named_options = 1;
  strata_device* dev = nullptr;
  ASSERT_EQ(strata_open("sim", &o, &dev), STRATA_OK) << strata_last_error_message();
  strata_context ctx = 0;
  ASSERT_EQ(strata_context_create(dev, nullptr, &ctx), STRATA_OK);
  const uint32_t m = 3, k = 20, n = 18;  // n over two 16-wide blocks, k over two tiles
  std::vector<uint16_t> a(m * k), b(k * n);
  std::vector<float> want(m * n, 0.0f);
  const auto bf16 = [](int v) {  // an integer |v| < 256 as bf16: exact
    float f = static_cast<float>(v);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return static_cast<uint16_t>(bits >> 16);
  };
  for (uint32_t i = 0; i < m * k; ++i) a[i] = bf16(static_cast<int>(i % 7) - 3);
  for (uint32_t i = 0; i < k * n; ++i) b[i] = bf16(static_cast<int>(i % 5) - 2);
  for (uint32_t i = 0; i < m; ++i) {
    for (uint32_t j = 0; j < n; ++j) {
      for (uint32_t p = 0; p < k; ++p) {
        want[i * n + j] += static_cast<float>(static_cast<int>((i * k + p) % 7) - 3) *
                           static_cast<float>(static_cast<int>((p * n + j) % 5) - 2);
      }
    }
  }
  strata_buffer ha = 0, hb = 0, hc = 0, hc16 = 0;
  ASSERT_EQ(strata_alloc(dev, ctx, a.size() * 2, 0, 0, &ha), STRATA_OK);
  ASSERT_EQ(strata_alloc(dev, ctx, b.size() * 2, 0, 0, &hb), STRATA_OK);
  ASSERT_EQ(strata_alloc(dev, ctx, m * n * 4, 0, 0, &hc), STRATA_OK);
  ASSERT_EQ(strata_alloc(dev, ctx, m * n * 2, 0, 0, &hc16), STRATA_OK);
  ASSERT_EQ(strata_write(dev, ctx, ha, 0, a.data(), a.size() * 2), STRATA_OK);
  ASSERT_EQ(strata_write(dev, ctx, hb, 0, b.data(), b.size() * 2), STRATA_OK);
  strata_gemm_args g{sizeof g, ha, hb, hc, m, n, k, 0, 0, 0, STRATA_DTYPE_BF16};
  ASSERT_EQ(strata_gemm(dev, ctx, &g), STRATA_OK) << strata_last_error_message();
  std::vector<float> got(m * n);
  ASSERT_EQ(strata_read(dev, ctx, hc, 0, got.data(), got.size() * 4), STRATA_OK);
  EXPECT_EQ(got, want);
  g.c = hc16;
  g.flags = STRATA_GEMM_FLAG_OUT_BF16 | STRATA_GEMM_FLAG_RELU;
  ASSERT_EQ(strata_gemm(dev, ctx, &g), STRATA_OK) << strata_last_error_message();
  std::vector<uint16_t> got16(m * n);
  ASSERT_EQ(strata_read(dev, ctx, hc16, 0, got16.data(), got16.size() * 2), STRATA_OK);
  for (uint32_t i = 0; i < m * n; ++i) {
    // |sum| <= 20 * 6 = 120: exact in bf16.
    EXPECT_EQ(got16[i], bf16(want[i] > 0 ? static_cast<int>(want[i]) : 0)) << i;
  }
  // Too small for the bf16 operand (it would hold the int8 one): OUT_OF_RANGE naming A, C untouched.
  strata_buffer small = 0;
  ASSERT_EQ(strata_alloc(dev, ctx, m * k, 0, 0, &small), STRATA_OK);
  g.a = small;
  g.c = hc;
  g.flags = 0;
  EXPECT_EQ(strata_gemm(dev, ctx, &g), STRATA_OUT_OF_RANGE);
  EXPECT_NE(std::string(strata_last_error_message()).find("buffer A"), std::string::npos)
      << strata_last_error_message();
  ASSERT_EQ(strata_read(dev, ctx, hc, 0, got.data(), got.size() * 4), STRATA_OK);
  EXPECT_EQ(got, want);
  // int8 GEMMs run on runtime_fp.elf too.
  const std::vector<int8_t> ones(64, 1);
  strata_buffer i8 = 0, c32 = 0;
  ASSERT_EQ(strata_alloc(dev, ctx, 64, 0, 0, &i8), STRATA_OK);
  ASSERT_EQ(strata_alloc(dev, ctx, 256, 0, 0, &c32), STRATA_OK);
  ASSERT_EQ(strata_write(dev, ctx, i8, 0, ones.data(), 64), STRATA_OK);
  strata_gemm_args gi{sizeof gi, i8, i8, c32, 8, 8, 8, 0, 0, 0, STRATA_DTYPE_INT8};
  ASSERT_EQ(strata_gemm(dev, ctx, &gi), STRATA_OK) << strata_last_error_message();
  std::vector<int32_t> sums(64);
  ASSERT_EQ(strata_read(dev, ctx, c32, 0, sums.data(), 256), STRATA_OK);
  EXPECT_EQ(sums, std::vector<int32_t>(64, 8));
  strata_close(dev);
}

// "Every call is thread-safe": four threads, each with its own context, allocate, write, multiply, read and
// free on one device at once; every thread's data comes back intact and nothing leaks.
TEST_F(DriverTest, ConcurrentThreadsEachWithAContext) {
  Open(16 * kMiB);
  constexpr int kThreads = 4, kRounds = 12;
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, t, &errors] {
      std::mt19937_64 rng(100 + t);
      strata_context ctx = 0;
      if (strata_context_create(dev_, nullptr, &ctx) != STRATA_OK) {
        errors[t] = strata_last_error_message();
        return;
      }
      for (int r = 0; r < kRounds && errors[t].empty(); ++r) {
        const uint32_t m = 8 + rng() % 40, n = 8 + rng() % 40, k = 8 + rng() % 40;
        std::vector<int8_t> a(m * k), b(k * n);
        for (auto& x : a) x = static_cast<int8_t>(rng());
        for (auto& x : b) x = static_cast<int8_t>(rng());
        std::vector<int32_t> got(uint64_t{m} * n);
        strata_gemm_args g{sizeof g, 0, 0, 0, m, n, k, 0, 0, 0, STRATA_DTYPE_INT8};
        const bool ok = strata_alloc(dev_, ctx, a.size(), 0, 0, &g.a) == STRATA_OK &&
                        strata_alloc(dev_, ctx, b.size(), 0, 0, &g.b) == STRATA_OK &&
                        strata_alloc(dev_, ctx, got.size() * 4, 0, 0, &g.c) == STRATA_OK &&
                        strata_write(dev_, ctx, g.a, 0, a.data(), a.size()) == STRATA_OK &&
                        strata_write(dev_, ctx, g.b, 0, b.data(), b.size()) == STRATA_OK &&
                        strata_gemm(dev_, ctx, &g) == STRATA_OK &&
                        strata_read(dev_, ctx, g.c, 0, got.data(), got.size() * 4) == STRATA_OK &&
                        strata_free(dev_, ctx, g.a) == STRATA_OK && strata_free(dev_, ctx, g.b) == STRATA_OK &&
                        strata_free(dev_, ctx, g.c) == STRATA_OK;
        if (!ok) {
          errors[t] = strata_last_error_message();
          break;
        }
        strata::reference::GemmSpec spec;
        spec.m = m;
        spec.n = n;
        spec.k = k;
        if (got != strata::reference::Gemm(a.data(), b.data(), nullptr, spec)) {
          errors[t] = "round " + std::to_string(r) + ": wrong product";
        }
      }
      if (strata_context_destroy(dev_, ctx) != STRATA_OK && errors[t].empty()) errors[t] = strata_last_error_message();
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[t], "") << "thread " << t;
  const strata_memory_stats s = Stats(0);
  EXPECT_EQ(s.live_buffers, 0u);
  EXPECT_EQ(s.contexts, 1u);  // the fixture's
}

TEST_F(DriverTest, QuotasInBytesAndAsAFraction) {
  Open(8 * kMiB);
  strata_context_options o{sizeof o, 64 * kKiB, 0, nullptr, 0};
  strata_context small = 0;
  ASSERT_EQ(strata_context_create(dev_, &o, &small), STRATA_OK) << strata_last_error_message();
  strata_buffer a = 0, b = 0;
  ASSERT_EQ(strata_alloc(dev_, small, 40 * kKiB, 0, 0, &a), STRATA_OK);
  const strata_memory_stats before = Stats(small);
  EXPECT_EQ(before.context_quota_bytes, 64 * kKiB);
  EXPECT_EQ(strata_alloc(dev_, small, 40 * kKiB, 0, 0, &b), STRATA_RESOURCE_EXHAUSTED);
  EXPECT_NE(std::string(strata_last_error_message()).find("quota"), std::string::npos) << strata_last_error_message();
  ExpectSameState(before, Stats(small));
  ASSERT_EQ(strata_alloc(dev_, small, 24 * kKiB, 0, 0, &b), STRATA_OK);  // exactly fills it
  ASSERT_EQ(strata_free(dev_, small, a), STRATA_OK);
  ASSERT_EQ(strata_alloc(dev_, small, 40 * kKiB, 0, 0, &a), STRATA_OK) << "freeing returns quota";

  strata_context_options f{sizeof f, 0, 0.25, nullptr, 0};
  strata_context quarter = 0;
  ASSERT_EQ(strata_context_create(dev_, &f, &quarter), STRATA_OK);
  EXPECT_EQ(Stats(quarter).context_quota_bytes, 7 * kMiB / 4);
  strata_context_options bad{sizeof bad, 1, 0.5, nullptr, 0};
  strata_context c = 0;
  EXPECT_EQ(strata_context_create(dev_, &bad, &c), STRATA_INVALID_ARGUMENT);
  bad = {sizeof bad, 1ull << 40, 0, nullptr, 0};
  EXPECT_EQ(strata_context_create(dev_, &bad, &c), STRATA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(strata_last_error_message()).find("quota"), std::string::npos);
}

// The sim backend takes no named context options (API 1.9): any is refused by name, and no context is created.
TEST_F(DriverTest, NamedContextOptionsAreRefusedOnSim) {
  Open(8 * kMiB);
  const uint32_t contexts = Stats(0).contexts;
  const strata_named_value policy[] = {{sizeof(strata_named_value), "policy", STRATA_VALUE_STRING, "torch", 0, 0, 0}};
  strata_context_options o{sizeof o, 0, 0, policy, 1};
  strata_context c = 12345;
  EXPECT_EQ(strata_context_create(dev_, &o, &c), STRATA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(strata_last_error_message()).find("backend 'sim' has no context option 'policy' (valid: none)"),
            std::string::npos)
      << strata_last_error_message();
  EXPECT_EQ(c, 12345u);
  EXPECT_EQ(Stats(0).contexts, contexts);
  o.num_named_options = 0;  // the same struct without them works
  ASSERT_EQ(strata_context_create(dev_, &o, &c), STRATA_OK) << strata_last_error_message();
  EXPECT_EQ(Stats(0).contexts, contexts + 1);
}

TEST_F(DriverTest, AFullHeapIsACapacityOomForAContextWithoutAQuota) {
  // Issue #32: the firmware took the heap's size for the quota of a context without one, so filling the heap
  // was reported as a quota OOM ("cap", "the context's memory quota has no room") for a context with no quota.
  Open(8 * kMiB);
  strata_context ctx = 0;
  ASSERT_EQ(strata_context_create(dev_, nullptr, &ctx), STRATA_OK) << strata_last_error_message();
  const uint64_t heap = Stats(ctx).context_quota_bytes;  // no quota: the heap
  strata_buffer all = 0, more = 0;
  ASSERT_EQ(strata_alloc(dev_, ctx, heap, 0, 0, &all), STRATA_OK) << strata_last_error_message();
  EXPECT_EQ(strata_alloc(dev_, ctx, 4096, 0, 0, &more), STRATA_RESOURCE_EXHAUSTED);
  const std::string message = strata_last_error_message();
  EXPECT_EQ(message.find("quota has no room"), std::string::npos) << message;
  EXPECT_NE(message.find("(capacity)"), std::string::npos) << message;
  strata_oom_info oom{};
  oom.struct_size = sizeof oom;
  ASSERT_EQ(strata_get_last_oom(dev_, &oom), STRATA_OK);
  EXPECT_EQ(oom.kind, STRATA_OOM_CAPACITY) << strata_oom_kind_name(oom.kind);
}

TEST_F(DriverTest, DestroyingAContextFreesItsBuffersAndRetiresItsId) {
  Open(8 * kMiB);
  strata_context c = 0;
  ASSERT_EQ(strata_context_create(dev_, nullptr, &c), STRATA_OK);
  const uint64_t base = Stats().bytes_in_use;
  strata_buffer b = 0;
  for (int i = 0; i < 10; ++i) ASSERT_EQ(strata_alloc(dev_, c, 10000, 0, 0, &b), STRATA_OK);
  EXPECT_EQ(Stats(c).context_buffers, 10u);
  ASSERT_EQ(strata_context_destroy(dev_, c), STRATA_OK);
  EXPECT_EQ(Stats().bytes_in_use, base);
  EXPECT_EQ(strata_free(dev_, c, b), STRATA_NOT_FOUND);
  EXPECT_EQ(strata_context_destroy(dev_, c), STRATA_NOT_FOUND);
  strata_context again = 0;
  ASSERT_EQ(strata_context_create(dev_, nullptr, &again), STRATA_OK);
  EXPECT_NE(again, c) << "a reused slot gets a new id";
}

TEST_F(DriverTest, ManyCommandsWrapTheRings) {
  Open(8 * kMiB);
  for (int round = 0; round < 3; ++round) {
    std::vector<strata_buffer> bufs;
    for (int i = 0; i < 100; ++i) bufs.push_back(Alloc(256 + rng_() % 8192));
    for (strata_buffer b : bufs) ASSERT_EQ(strata_free(dev_, ctx_, b), STRATA_OK);
  }
  const strata_memory_stats s = Stats();
  EXPECT_EQ(s.num_allocs, 300u);
  EXPECT_EQ(s.live_buffers, 0u);
  EXPECT_EQ(s.largest_free_block_bytes, s.bytes_limit);
}

TEST(Driver, TraceOptionWritesAWaveform) {
  const std::string path = ::testing::TempDir() + "strata_driver_trace.fst";
  std::remove(path.c_str());
  strata_open_options o = SmallDevice(8 * kMiB);
  o.trace_path = path.c_str();
  o.pcie_preset = "gen5x16";
  strata_device* d = nullptr;
  ASSERT_EQ(strata_open("sim", &o, &d), STRATA_OK) << strata_last_error_message();
  EXPECT_EQ(strata_synchronize(d), STRATA_OK);
  strata_close(d);
  FILE* f = std::fopen(path.c_str(), "rb");
  ASSERT_NE(f, nullptr) << path;
  std::fseek(f, 0, SEEK_END);
  EXPECT_GT(std::ftell(f), 1000);
  std::fclose(f);
  std::remove(path.c_str());
  o.trace_path = "waves.txt";
  EXPECT_EQ(strata_open("sim", &o, &d), STRATA_INVALID_ARGUMENT);
}

TEST(DriverCpp, RaiiWrapperFreesAndDestroys) {
  const strata_open_options o = SmallDevice(8 * kMiB);
  strata::Device dev("sim", &o);
  {
    strata::Context ctx = dev.CreateContext(kMiB);
    strata::Buffer b = ctx.Alloc(1000);
    std::vector<uint8_t> in(1000, 7), out(1000);
    b.Write(in.data(), in.size());
    b.Read(out.data(), out.size());
    EXPECT_EQ(in, out);
    EXPECT_EQ(dev.MemoryStats().live_buffers, 1u);
    try {
      ctx.Alloc(2 * kMiB);
      ADD_FAILURE() << "no exception";
    } catch (const strata::Error& e) {
      EXPECT_EQ(e.status(), STRATA_RESOURCE_EXHAUSTED);
      EXPECT_NE(std::string(e.what()).find("quota"), std::string::npos);
    }
  }
  const strata_memory_stats s = dev.MemoryStats();
  EXPECT_EQ(s.live_buffers, 0u);
  EXPECT_EQ(s.contexts, 0u);
}

}  // namespace
