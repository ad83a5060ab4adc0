// The tiled GEMM kernel (firmware/kernels/gemm.cc) on the host over the chip model: arguments refused before any
// register is touched, and for a spread of shapes and array sizes every DMA descriptor stays inside its operand
// (A and B read, C written exactly once, C read only when accumulating) and the unit streams each activation row
// once per (K tile, N tile) pair, the weight-stationary array's arithmetic (docs/matrix-unit.md).
#include <gtest/gtest.h>

#include <tuple>

#include "arch/host/arch_host.h"
#include "drivers/dma.h"
#include "drivers/mxu.h"
#include "hal/mock_mmio.h"
#include "host_device.h"
#include "kernels/gemm.h"
#include "strata/gemm.h"
#include "strata/regmap.h"

namespace strata {
namespace {

using host_model::HostDevice;
using kernels::GemmParams;
using kernels::GemmStats;

uint64_t CeilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

class GemmKernelTest : public ::testing::Test {
 protected:
  void SetUp() override { arch::host::Reset(); }
  void TearDown() override { arch::host::Reset(); }
};

TEST_F(GemmKernelTest, InvalidArgumentsTouchNoRegister) {
  HostDevice device;
  hal::MockMmio boot(&device);
  arch::host::SetWfiHook([&] { ASSERT_TRUE(device.RunUntilWake()); });
  dma::Init();
  mxu::Init();
  GemmParams p;
  p.m = p.n = p.k = 16;
  GemmStats stats;
  hal::MockMmio strict;  // any access is a problem
  EXPECT_EQ(kernels::Gemm(p, nullptr), STRATA_INVALID_ARGUMENT);
  for (int zero = 0; zero < 3; ++zero) {
    GemmParams q = p;
    (zero == 0 ? q.m : zero == 1 ? q.n : q.k) = 0;
    EXPECT_EQ(kernels::Gemm(q, &stats), STRATA_INVALID_ARGUMENT) << "dimension " << zero;
  }
  GemmParams q = p;
  q.int8 = true;
  q.quant_shift = STRATA_GEMM_MAX_QUANT_SHIFT + 1;
  EXPECT_EQ(kernels::Gemm(q, &stats), STRATA_INVALID_ARGUMENT);
  EXPECT_EQ(strict.Problems(), "");
  EXPECT_TRUE(strict.log().empty());
}

// The tiling's VMEM budget is checked at compile time for arrays up to 256 x 256 (kernels/gemm.cc); a larger
// array is refused before any DMA or matrix-unit command.
TEST_F(GemmKernelTest, ArrayBeyondTheTilingIsRefused) {
  HostDevice::Options o;
  o.mxu_n = 512;
  HostDevice device(o);
  hal::MockMmio mmio(&device);
  arch::host::SetWfiHook([&] { ASSERT_TRUE(device.RunUntilWake()); });
  dma::Init();
  mxu::Init();
  ASSERT_EQ(mxu::ArraySize(), 512u);
  GemmParams p;
  p.m = p.n = p.k = 16;
  p.b = p.c_out = 4096;
  GemmStats stats;
  EXPECT_EQ(kernels::Gemm(p, &stats), STRATA_FAILED_PRECONDITION);
  EXPECT_TRUE(device.dma_pushed(0).empty());
  EXPECT_TRUE(device.dma_pushed(1).empty());
  EXPECT_EQ(mxu::LastTicket(), 0u);
}

using Shape = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, bool, bool>;  // N, m, k, n, int8, accumulate

class GemmShapeTest : public ::testing::TestWithParam<Shape> {};

TEST_P(GemmShapeTest, DescriptorsStayInsideTheirOperands) {
  const auto [array_n, m, k, n, int8, accumulate] = GetParam();
  arch::host::Reset();
  HostDevice::Options o;
  o.mxu_n = array_n;
  o.hbm_bytes = 8u << 20;
  HostDevice device(o);
  hal::MockMmio mmio(&device);
  arch::host::SetWfiHook([&] { ASSERT_TRUE(device.RunUntilWake()) << "the kernel waits for nothing"; });
  dma::Init();
  mxu::Init();
  const uint64_t elem = int8 ? 1 : 4;
  GemmParams p;
  p.m = m, p.k = k, p.n = n, p.int8 = int8, p.accumulate = accumulate && !int8;
  p.a = 4096;  // operands apart, with gaps, none at 0
  p.b = (p.a + uint64_t{m} * k + 8191) / 4096 * 4096;
  p.c_in = p.c_out = (p.b + uint64_t{k} * n + 8191) / 4096 * 4096;
  const uint64_t a_end = p.a + uint64_t{m} * k, b_end = p.b + uint64_t{k} * n;
  const uint64_t c_end = p.c_out + uint64_t{m} * n * elem;
  ASSERT_LE(c_end, device.hbm_bytes());
  GemmStats stats;
  ASSERT_EQ(kernels::Gemm(p, &stats), STRATA_OK);
  EXPECT_EQ(device.dma_queued(0) + device.dma_queued(1), 0u) << "returned with DMA in flight";
  EXPECT_EQ(device.mxu_queued(), 0u) << "returned with matrix-unit commands in flight";

  uint64_t c_written = 0, descriptors = 0;
  for (uint32_t q = 0; q < STRATA_DMA_COUNT; ++q) {
    for (const HostDevice::DmaDescriptor& d : device.dma_pushed(q)) {
      ++descriptors;
      const uint32_t src_tier = (d.ctrl & STRATA_DMA_CTRL_SRC_TIER_MASK) >> STRATA_DMA_CTRL_SRC_TIER_LSB;
      const uint32_t dst_tier = (d.ctrl & STRATA_DMA_CTRL_DST_TIER_MASK) >> STRATA_DMA_CTRL_DST_TIER_LSB;
      const uint64_t rows = d.rows;
      if (src_tier == STRATA_DMA_TIER_HBM) {
        const uint64_t last = d.src + (rows - 1) * d.src_stride + d.len;
        const bool in_a = d.src >= p.a && last <= a_end, in_b = d.src >= p.b && last <= b_end;
        const bool in_c = p.accumulate && d.src >= p.c_in && last <= c_end;
        EXPECT_TRUE(in_a || in_b || in_c) << "reads HBM [" << d.src << ", " << last << ")";
      }
      if (dst_tier == STRATA_DMA_TIER_HBM) {
        const uint64_t last = d.dst + (rows - 1) * d.dst_stride + d.len;
        EXPECT_TRUE(d.dst >= p.c_out && last <= c_end) << "writes HBM [" << d.dst << ", " << last << ")";
        c_written += rows * d.len;
      }
    }
  }
  EXPECT_EQ(c_written, uint64_t{m} * n * elem) << "C written exactly once";
  EXPECT_EQ(stats.dma_descriptors, descriptors);
  EXPECT_EQ(mxu::RowsStreamed(), uint64_t{m} * CeilDiv(n, array_n) * CeilDiv(k, array_n));
}

INSTANTIATE_TEST_SUITE_P(Shapes, GemmShapeTest,
                         ::testing::Values(Shape{16, 1, 1, 1, false, false}, Shape{16, 17, 33, 9, false, false},
                                           Shape{16, 64, 256, 64, true, false}, Shape{8, 100, 70, 130, false, true},
                                           Shape{32, 300, 96, 200, true, false}, Shape{16, 600, 40, 16, false, true},
                                           Shape{32, 257, 513, 65, false, false}),
                         [](const ::testing::TestParamInfo<Shape>& i) {
                           const Shape& s = i.param;
                           std::string name = "N";
                           name += std::to_string(std::get<0>(s)) + "_" + std::to_string(std::get<1>(s)) + "x" +
                                   std::to_string(std::get<2>(s)) + "x" + std::to_string(std::get<3>(s));
                           if (std::get<4>(s)) name += "_int8";
                           if (std::get<5>(s)) name += "_acc";
                           return name;
                         });

// bf16 (GemmBf16, docs/matrix-unit.md "bf16 mode"): refused arguments touch nothing, and over a spread of shapes
// (unaligned, several K chunks and blocks) the descriptors read A and B as 2-byte elements and C_in as fp32, write
// C exactly once (fp32, or bf16 with out_bf16), and every matrix-unit command carries the bf16 mode.
TEST_F(GemmKernelTest, Bf16InvalidArgumentsTouchNoRegister) {
  HostDevice device;
  hal::MockMmio boot(&device);
  arch::host::SetWfiHook([&] { ASSERT_TRUE(device.RunUntilWake()); });
  dma::Init();
  mxu::Init();
  GemmParams p;
  p.m = p.n = p.k = 16;
  GemmStats stats;
  hal::MockMmio strict;  // any access is a problem
  EXPECT_EQ(kernels::GemmBf16(p, false, nullptr), STRATA_INVALID_ARGUMENT);
  for (int zero = 0; zero < 3; ++zero) {
    GemmParams q = p;
    (zero == 0 ? q.m : zero == 1 ? q.n : q.k) = 0;
    EXPECT_EQ(kernels::GemmBf16(q, false, &stats), STRATA_INVALID_ARGUMENT) << "dimension " << zero;
  }
  GemmParams q = p;
  q.int8 = true;
  EXPECT_EQ(kernels::GemmBf16(q, false, &stats), STRATA_INVALID_ARGUMENT) << "int8 requantization of fp32";
  q = p;
  q.round = true;
  EXPECT_EQ(kernels::GemmBf16(q, true, &stats), STRATA_INVALID_ARGUMENT) << "round";
  q = p;
  q.quant_shift = STRATA_GEMM_MAX_QUANT_SHIFT + 1;
  EXPECT_EQ(kernels::GemmBf16(q, false, &stats), STRATA_INVALID_ARGUMENT) << "quant shift";
  EXPECT_EQ(strict.Problems(), "");
  EXPECT_TRUE(strict.log().empty());
}

TEST_F(GemmKernelTest, Bf16ArrayBeyondTheTilingIsRefused) {
  HostDevice::Options o;
  o.mxu_n = 256;  // the int8 tiling's largest; bf16 operands fit VMEM up to 128
  HostDevice device(o);
  hal::MockMmio mmio(&device);
  arch::host::SetWfiHook([&] { ASSERT_TRUE(device.RunUntilWake()); });
  dma::Init();
  mxu::Init();
  GemmParams p;
  p.m = p.n = p.k = 16;
  p.b = p.c_out = 4096;
  GemmStats stats;
  EXPECT_EQ(kernels::GemmBf16(p, false, &stats), STRATA_FAILED_PRECONDITION);
  EXPECT_TRUE(device.dma_pushed(0).empty());
  EXPECT_TRUE(device.dma_pushed(1).empty());
  EXPECT_EQ(mxu::LastTicket(), 0u);
}

using Bf16Shape = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, bool, bool, bool>;  // N, m, k, n, out, acc, relu

class GemmBf16ShapeTest : public ::testing::TestWithParam<Bf16Shape> {};

TEST_P(GemmBf16ShapeTest, DescriptorsStayInsideTheirOperandsAndCommandsAreBf16) {
  const auto [array_n, m, k, n, out_bf16, accumulate, relu] = GetParam();
  arch::host::Reset();
  HostDevice::Options o;
  o.mxu_n = array_n;
  o.hbm_bytes = 8u << 20;
  HostDevice device(o);
  hal::MockMmio mmio(&device);
  arch::host::SetWfiHook([&] { ASSERT_TRUE(device.RunUntilWake()) << "the kernel waits for nothing"; });
  dma::Init();
  mxu::Init();
  const uint64_t out_elem = out_bf16 ? 2 : 4;
  GemmParams p;
  p.m = m, p.k = k, p.n = n, p.accumulate = accumulate, p.relu = relu;
  p.a = 4096;
  p.b = (p.a + 2 * uint64_t{m} * k + 8191) / 4096 * 4096;
  p.c_in = (p.b + 2 * uint64_t{k} * n + 8191) / 4096 * 4096;
  p.c_out = (p.c_in + 4 * uint64_t{m} * n + 8191) / 4096 * 4096;
  const uint64_t a_end = p.a + 2 * uint64_t{m} * k, b_end = p.b + 2 * uint64_t{k} * n;
  const uint64_t c_in_end = p.c_in + 4 * uint64_t{m} * n, c_end = p.c_out + uint64_t{m} * n * out_elem;
  ASSERT_LE(c_end, device.hbm_bytes());
  GemmStats stats;
  ASSERT_EQ(kernels::GemmBf16(p, out_bf16, &stats), STRATA_OK);
  EXPECT_EQ(device.dma_queued(0) + device.dma_queued(1), 0u) << "returned with DMA in flight";
  EXPECT_EQ(device.mxu_queued(), 0u) << "returned with matrix-unit commands in flight";

  uint64_t c_written = 0, descriptors = 0;
  for (uint32_t q = 0; q < STRATA_DMA_COUNT; ++q) {
    for (const HostDevice::DmaDescriptor& d : device.dma_pushed(q)) {
      ++descriptors;
      const uint32_t src_tier = (d.ctrl & STRATA_DMA_CTRL_SRC_TIER_MASK) >> STRATA_DMA_CTRL_SRC_TIER_LSB;
      const uint32_t dst_tier = (d.ctrl & STRATA_DMA_CTRL_DST_TIER_MASK) >> STRATA_DMA_CTRL_DST_TIER_LSB;
      const uint64_t rows = d.rows;
      if (src_tier == STRATA_DMA_TIER_HBM) {
        const uint64_t last = d.src + (rows - 1) * d.src_stride + d.len;
        const bool in_a = d.src >= p.a && last <= a_end, in_b = d.src >= p.b && last <= b_end;
        const bool in_c = accumulate && d.src >= p.c_in && last <= c_in_end;
        EXPECT_TRUE(in_a || in_b || in_c) << "reads HBM [" << d.src << ", " << last << ")";
        EXPECT_EQ(d.len % 2, 0u) << "an odd byte count of bf16 elements";
      }
      if (dst_tier == STRATA_DMA_TIER_HBM) {
        const uint64_t last = d.dst + (rows - 1) * d.dst_stride + d.len;
        EXPECT_TRUE(d.dst >= p.c_out && last <= c_end) << "writes HBM [" << d.dst << ", " << last << ")";
        c_written += rows * d.len;
      }
    }
  }
  EXPECT_EQ(c_written, uint64_t{m} * n * out_elem) << "C written exactly once";
  EXPECT_EQ(stats.dma_descriptors, descriptors);
  EXPECT_EQ(mxu::RowsStreamed(), uint64_t{m} * CeilDiv(n, array_n) * CeilDiv(k, array_n));
  uint32_t readouts = 0;
  for (const HostDevice::MxuCommand& c : device.mxu_pushed()) {
    const uint32_t cmd = c.at(STRATA_MXU_CMD);
    EXPECT_NE(cmd & STRATA_MXU_CMD_BF16_MASK, 0u) << "a command without the bf16 mode";
    EXPECT_EQ(cmd & (STRATA_MXU_CMD_INT8_MASK | STRATA_MXU_CMD_ROUND_MASK), 0u);
    const bool readout = ((cmd & STRATA_MXU_CMD_OP_MASK) >> STRATA_MXU_CMD_OP_LSB) == STRATA_MXU_OP_READOUT;
    readouts += readout;
    EXPECT_EQ((cmd & STRATA_MXU_CMD_OUT_BF16_MASK) != 0, readout && out_bf16);
  }
  // fp32 C without ReLU goes from ACC to HBM by DMA: READOUT only for an epilogue.
  EXPECT_EQ(readouts != 0, out_bf16 || relu);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, GemmBf16ShapeTest,
    ::testing::Values(Bf16Shape{16, 1, 1, 1, false, false, false}, Bf16Shape{16, 17, 33, 9, true, false, false},
                      Bf16Shape{16, 64, 300, 64, false, true, false}, Bf16Shape{8, 100, 70, 130, true, true, true},
                      Bf16Shape{32, 300, 96, 200, false, false, true}, Bf16Shape{16, 600, 40, 16, false, true, false},
                      Bf16Shape{128, 130, 257, 129, true, false, false}),
    [](const ::testing::TestParamInfo<Bf16Shape>& i) {
      const Bf16Shape& s = i.param;
      std::string name = "N";
      name += std::to_string(std::get<0>(s)) + "_" + std::to_string(std::get<1>(s)) + "x" +
              std::to_string(std::get<2>(s)) + "x" + std::to_string(std::get<3>(s));
      if (std::get<4>(s)) name += "_out_bf16";
      if (std::get<5>(s)) name += "_acc";
      if (std::get<6>(s)) name += "_relu";
      return name;
    });

}  // namespace
}  // namespace strata
