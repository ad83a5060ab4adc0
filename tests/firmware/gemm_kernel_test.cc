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

}  // namespace
}  // namespace strata
