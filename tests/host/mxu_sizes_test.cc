// Chips of several matrix-unit sizes in one process: the sim backend's option mxu_n opens N = 8, 16 and 32
// side by side (one Verilated class per size, sim/chip_model.h), and the same GEMMs are bit-exact on each.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "named_values.h"
#include "strata/reference_gemm.h"
#include "strata/strata.h"

namespace {

using strata::test_values::Int;

constexpr uint64_t kMiB = 1ull << 20;

// The sizes this build has, from CMake (rtl/ STRATA_MXU_N), among the ones the test wants.
std::vector<int> SizesUnderTest() {
  const std::vector<int> built{STRATA_TEST_MXU_N};
  std::vector<int> sizes;
  for (int n : {8, 16, 32}) {
    for (int b : built) {
      if (b == n) sizes.push_back(n);
    }
  }
  return sizes;
}

// "8, 16, 32": every size this build has (STRATA_TEST_MXU_N, ascending as rtl/ lists them), as the refusal of
// an unbuilt size names them.
std::string BuiltSizesText() {
  std::string text;
  for (int b : std::vector<int>{STRATA_TEST_MXU_N}) text += (text.empty() ? "" : ", ") + std::to_string(b);
  return text;
}

strata_status OpenSim(int64_t mxu_n, strata_device** dev) {
  const strata_named_value named[] = {Int("mxu_n", mxu_n)};
  strata_open_options o{};
  o.struct_size = sizeof o;
  o.hbm_capacity_bytes = 8 * kMiB;
  o.named_options = named;
  o.num_named_options = 1;
  return strata_open("sim", &o, dev);
}

struct Shape {
  uint32_t m, n, k;
  uint32_t flags;
  int32_t mult;
  uint32_t shift;
};

// Shapes around every size under test (multiples of none, of some, of all), int32 and int8 results.
const Shape kShapes[] = {
    {1, 1, 1, 0, 0, 0},
    {7, 13, 5, 0, 0, 0},
    {9, 9, 9, 0, 0, 0},
    {16, 16, 16, 0, 0, 0},
    {17, 33, 31, 0, 0, 0},
    {37, 101, 53, 0, 0, 0},
    {64, 40, 96, STRATA_GEMM_FLAG_ACCUMULATE, 0, 0},
    {33, 20, 70, STRATA_GEMM_FLAG_ACCUMULATE | STRATA_GEMM_FLAG_RELU, 0, 0},
    {33, 20, 70, STRATA_GEMM_FLAG_INT8 | STRATA_GEMM_FLAG_ROUND | STRATA_GEMM_FLAG_RELU, 3, 9},
    {19, 17, 40, STRATA_GEMM_FLAG_INT8, -1000, 16},
};

// Operands of one GEMM and the reference's answer.
struct Case {
  Shape s;
  std::vector<int8_t> a, b;
  std::vector<int32_t> c_in, want;
};

Case MakeCase(const Shape& s, std::mt19937_64& rng) {
  Case c{s, {}, {}, {}, {}};
  auto int8 = [&](size_t n) {
    std::vector<int8_t> v(n);
    for (auto& x : v) x = (rng() & 15) == 0 ? int8_t{-128} : static_cast<int8_t>(rng());
    return v;
  };
  c.a = int8(uint64_t{s.m} * s.k);
  c.b = int8(uint64_t{s.k} * s.n);
  c.c_in.resize(uint64_t{s.m} * s.n);
  for (auto& x : c.c_in) x = static_cast<int32_t>(rng());
  strata::reference::GemmSpec spec;
  spec.m = s.m;
  spec.n = s.n;
  spec.k = s.k;
  spec.relu = (s.flags & STRATA_GEMM_FLAG_RELU) != 0;
  spec.int8 = (s.flags & STRATA_GEMM_FLAG_INT8) != 0;
  spec.round = (s.flags & STRATA_GEMM_FLAG_ROUND) != 0;
  spec.quant_mult = s.mult;
  spec.quant_shift = s.shift;
  c.want = strata::reference::Gemm(c.a.data(), c.b.data(),
                                   (s.flags & STRATA_GEMM_FLAG_ACCUMULATE) ? c.c_in.data() : nullptr, spec);
  return c;
}

// Runs `c` through the C API on `dev`; returns the number of wrong elements (the first few are reported).
uint64_t RunCase(strata_device* dev, strata_context ctx, const Case& c, int mxu_n) {
  const Shape& s = c.s;
  SCOPED_TRACE(testing::Message() << "N=" << mxu_n << " m=" << s.m << " n=" << s.n << " k=" << s.k
                                  << " flags=" << s.flags);
  const bool int8 = (s.flags & STRATA_GEMM_FLAG_INT8) != 0;
  const uint64_t c_bytes = uint64_t{s.m} * s.n * (int8 ? 1 : 4);
  auto upload = [&](const void* data, uint64_t bytes) {
    strata_buffer h = 0;
    EXPECT_EQ(strata_alloc(dev, ctx, bytes, 0, 0, &h), STRATA_OK) << strata_last_error_message();
    EXPECT_EQ(strata_write(dev, ctx, h, 0, data, bytes), STRATA_OK) << strata_last_error_message();
    return h;
  };
  const strata_buffer ha = upload(c.a.data(), c.a.size()), hb = upload(c.b.data(), c.b.size());
  const strata_buffer hc = upload(c.c_in.data(), c_bytes);  // garbage unless ACCUMULATE: must be overwritten
  const strata_gemm_args g{sizeof g, ha, hb, hc, s.m, s.n, s.k, s.flags, s.mult, s.shift, STRATA_DTYPE_INT8};
  uint64_t bad = 0;
  if (strata_gemm(dev, ctx, &g) != STRATA_OK) {
    ADD_FAILURE() << "strata_gemm: " << strata_last_error_message();
    bad = c.want.size();
  } else {
    std::vector<uint8_t> raw(c_bytes);
    EXPECT_EQ(strata_read(dev, ctx, hc, 0, raw.data(), c_bytes), STRATA_OK) << strata_last_error_message();
    for (uint64_t i = 0; i < c.want.size(); ++i) {
      int32_t got;
      if (int8) {
        got = static_cast<int8_t>(raw[i]);
      } else {
        std::memcpy(&got, raw.data() + 4 * i, 4);
      }
      if (got != c.want[i] && bad++ < 5) {
        ADD_FAILURE() << "C[" << i / s.n << "][" << i % s.n << "] = " << got << ", want " << c.want[i];
      }
    }
  }
  for (strata_buffer h : {ha, hb, hc}) EXPECT_EQ(strata_free(dev, ctx, h), STRATA_OK);
  return bad;
}

struct Opened {
  int mxu_n;
  strata_device* dev = nullptr;
  strata_context ctx = 0;
};

class MxuSizes : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int n : SizesUnderTest()) {
      Opened o{n};
      ASSERT_EQ(OpenSim(n, &o.dev), STRATA_OK) << "mxu_n " << n << ": " << strata_last_error_message();
      devices_.push_back(o);
      ASSERT_EQ(strata_context_create(o.dev, nullptr, &devices_.back().ctx), STRATA_OK) << strata_last_error_message();
    }
  }
  void TearDown() override {
    for (const Opened& o : devices_) strata_close(o.dev);
  }
  std::vector<Opened> devices_;  // all open at once
};

TEST_F(MxuSizes, EachDeviceReportsItsArraySize) {
  for (const Opened& o : devices_) {
    strata_device_info info{};
    info.struct_size = sizeof info;
    ASSERT_EQ(strata_get_device_info(o.dev, &info), STRATA_OK) << strata_last_error_message();
    EXPECT_EQ(info.mxu_array_n, static_cast<uint32_t>(o.mxu_n));
  }
}

// The same operands on every size, interleaved: shape by shape, device by device.
TEST_F(MxuSizes, SameGemmsBitExactOnEverySizeInOneProcess) {
  std::mt19937_64 rng(2024);
  for (const Shape& s : kShapes) {
    const Case c = MakeCase(s, rng);
    for (const Opened& o : devices_) EXPECT_EQ(RunCase(o.dev, o.ctx, c, o.mxu_n), 0u);
  }
}

// One thread per device, all running at once.
TEST_F(MxuSizes, SizesRunConcurrentlyOnThreads) {
  std::mt19937_64 rng(77);
  std::vector<Case> cases;
  for (const Shape& s : kShapes) cases.push_back(MakeCase(s, rng));
  std::vector<uint64_t> bad(devices_.size(), 0);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < devices_.size(); ++i) {
    threads.emplace_back([&, i] {
      for (const Case& c : cases) bad[i] += RunCase(devices_[i].dev, devices_[i].ctx, c, devices_[i].mxu_n);
    });
  }
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < devices_.size(); ++i) EXPECT_EQ(bad[i], 0u) << "mxu_n " << devices_[i].mxu_n;
}

TEST(MxuSizesOpen, UnbuiltSizeIsRefusedNamingTheBuiltOnes) {
  for (int64_t n : {int64_t{0}, int64_t{12}, int64_t{-16}, int64_t{1} << 40}) {
    strata_device* dev = nullptr;
    EXPECT_EQ(OpenSim(n, &dev), STRATA_INVALID_ARGUMENT) << n;
    EXPECT_EQ(dev, nullptr);
    const std::string msg = strata_last_error_message();
    EXPECT_NE(msg.find("mxu_n " + std::to_string(n) + ": this build has no chip"), std::string::npos) << msg;
    // The whole built list, in order, as the message spells it: "(built: 8, 16, 32)". (Searching for each
    // size alone would also match the refused value echoed back.)
    EXPECT_NE(msg.find("(built: " + BuiltSizesText() + ")"), std::string::npos) << msg;
  }
}

TEST(MxuSizesOpen, OptionIsListedWithItsDefault) {
  size_t count = 0;
  ASSERT_EQ(strata_get_backend_options("sim", nullptr, 0, &count), STRATA_OK);
  std::vector<strata_option_info> infos(count);
  for (auto& i : infos) i.struct_size = sizeof i;
  ASSERT_EQ(strata_get_backend_options("sim", infos.data(), infos.size(), &count), STRATA_OK);
  bool found = false;
  for (const auto& i : infos) {
    if (std::string(i.name) != "mxu_n") continue;
    found = true;
    EXPECT_EQ(i.type, STRATA_VALUE_INT64);
    EXPECT_STREQ(i.default_value, "16");
  }
  EXPECT_TRUE(found);
}

}  // namespace
