// The host API end to end on the sim backend: bit-exact copies, data intact across compactions,
// defragment-on-OOM, out-of-memory without losses, and every kind of bad input refused with its precise
// status and no other change.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

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
  EXPECT_EQ(strata_open("cuda", nullptr, &d), STRATA_UNIMPLEMENTED);
  EXPECT_NE(std::string(strata_last_error_message()).find("unknown backend 'cuda'"), std::string::npos);
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
      ADD_FAILURE() << what << ": got " << strata_status_name(got) << " (" << strata_last_error_message()
                    << "), want " << strata_status_name(want) << " with '" << message << "'";
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
  add("write past end", strata_write(dev_, ctx_, mine, 1, buf.data(), 4096), STRATA_OUT_OF_RANGE,
      "outside the buffer");
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
  strata_gemm_args g{};
  g.struct_size = sizeof g;
  add("gemm", strata_gemm(dev_, ctx_, &g), STRATA_UNIMPLEMENTED, "not implemented");
  EXPECT_EQ(out, 0u);

  ExpectSameState(before, Stats(ctx_));
  std::vector<uint8_t> back(4096);
  ASSERT_EQ(strata_read(dev_, ctx_, mine, 0, back.data(), 4096), STRATA_OK);
  EXPECT_EQ(back, data) << "refused writes changed the buffer";
  ASSERT_EQ(strata_read(dev_, other, theirs, 0, back.data(), 4096), STRATA_OK);
  EXPECT_EQ(back, data) << "another context's buffer changed";
  EXPECT_TRUE(std::all_of(buf.begin(), buf.end(), [](uint8_t b) { return b == 0xee; })) << "refused reads wrote host memory";
}

TEST_F(DriverTest, QuotasInBytesAndAsAFraction) {
  Open(8 * kMiB);
  strata_context_options o{sizeof o, 64 * kKiB, 0};
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

  strata_context_options f{sizeof f, 0, 0.25};
  strata_context quarter = 0;
  ASSERT_EQ(strata_context_create(dev_, &f, &quarter), STRATA_OK);
  EXPECT_EQ(Stats(quarter).context_quota_bytes, 7 * kMiB / 4);
  strata_context_options bad{sizeof bad, 1, 0.5};
  strata_context c = 0;
  EXPECT_EQ(strata_context_create(dev_, &bad, &c), STRATA_INVALID_ARGUMENT);
  bad = {sizeof bad, 1ull << 40, 0};
  EXPECT_EQ(strata_context_create(dev_, &bad, &c), STRATA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(strata_last_error_message()).find("quota"), std::string::npos);
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
