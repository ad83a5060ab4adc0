// The vector unit in the Verilated chip, driven through the host port (core in reset): refused commands complete
// with their VPU_ERR code, count in ERRORS and leave VMEM as it was; a push into a full queue is dropped and
// counted; a good command writes exactly its rows and raises the counters.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "device.h"
#include "dma_client.h"
#include "hbm/hbm_model.h"
#include "strata/regmap.h"

namespace strata::sim {
namespace {

constexpr uint32_t kLine = STRATA_DMA_LINE_BYTES;
constexpr uint64_t kScratch = 8 << 20;  // HBM: VMEM's image goes in at 0 and comes back here

class VpuHarness {
 public:
  VpuHarness() : device_(TraceOptions{}, hbm::HbmConfig::Hbm2(64ull << 20)), dma_(device_) { device_.HoldInReset(); }

  uint32_t Reg(uint32_t offset) { return device_.HostRead32(STRATA_VPU_BASE + offset); }
  void SetReg(uint32_t offset, uint32_t v) { device_.HostWrite32(STRATA_VPU_BASE + offset, v); }
  uint32_t LastError() {
    return (Reg(STRATA_VPU_STATUS) & STRATA_VPU_STATUS_LAST_ERR_MASK) >> STRATA_VPU_STATUS_LAST_ERR_LSB;
  }
  struct Cmd {
    uint32_t op, bcast = 0, a = 0, b = 0, m = 0, dst = 0, rows = 1, sstride = kLine, dstride = kLine;
  };
  void Push(const Cmd& c) {
    SetReg(STRATA_VPU_CMD, c.op << STRATA_VPU_CMD_OP_LSB | c.bcast << STRATA_VPU_CMD_BCAST_LSB);
    SetReg(STRATA_VPU_SRC_A, c.a);
    SetReg(STRATA_VPU_SRC_B, c.b);
    SetReg(STRATA_VPU_SRC_M, c.m);
    SetReg(STRATA_VPU_DST, c.dst);
    SetReg(STRATA_VPU_ROWS, c.rows);
    SetReg(STRATA_VPU_SRC_STRIDE, c.sstride);
    SetReg(STRATA_VPU_DST_STRIDE, c.dstride);
    SetReg(STRATA_VPU_PUSH, 1);
  }
  bool WaitDone(uint32_t done, uint64_t max_cycles = 2'000'000) {
    const uint64_t start = device_.edges();
    while (Reg(STRATA_VPU_DONE) < done) {
      for (int i = 0; i < 16; ++i) device_.Tick();
      if (device_.edges() - start >= max_cycles) return false;
    }
    return true;
  }
  // VMEM through DMA: HBM [0, VMEM) -> VMEM, and VMEM -> HBM scratch.
  void Fill(const std::vector<uint8_t>& image) {
    ASSERT_TRUE(device_.hbm().WriteDebug(0, image.data(), image.size()));
    Dma(DmaDescriptor{STRATA_DMA_TIER_HBM, STRATA_DMA_TIER_VMEM, 0, 0, static_cast<uint32_t>(image.size())});
  }
  std::vector<uint8_t> Vmem() {
    Dma(DmaDescriptor{STRATA_DMA_TIER_VMEM, STRATA_DMA_TIER_HBM, 0, kScratch, STRATA_VMEM_SIZE});
    std::vector<uint8_t> v(STRATA_VMEM_SIZE);
    EXPECT_TRUE(device_.hbm().ReadDebug(kScratch, v.data(), v.size()));
    return v;
  }

 private:
  void Dma(const DmaDescriptor& d) {
    const uint32_t before = dma_.Reg(0, STRATA_DMA_DONE);
    dma_.Push(0, d);
    ASSERT_TRUE(dma_.WaitDone(0, before + 1));
    ASSERT_EQ(dma_.LastError(0), STRATA_DMA_ERR_NONE);
  }
  Device device_;
  DmaClient dma_;
};

std::vector<uint8_t> Pattern() {
  // fp32 values 1..2 (normal, positive) so NEG's result is the sign bit flipped.
  std::vector<uint8_t> v(STRATA_VMEM_SIZE);
  std::mt19937 rng(46);
  for (size_t i = 0; i < v.size(); i += 4) {
    const uint32_t bits = 0x3F800000u | (rng() & 0x7FFFFFu);
    std::memcpy(&v[i], &bits, 4);
  }
  return v;
}

TEST(Vpu, RefusedCommandsCompleteWithTheirErrorAndWriteNothing) {
  VpuHarness h;
  const std::vector<uint8_t> image = Pattern();
  h.Fill(image);
  EXPECT_EQ((h.Reg(STRATA_VPU_CONFIG) & STRATA_VPU_CONFIG_LANES_MASK) >> STRATA_VPU_CONFIG_LANES_LSB, kLine / 4);
  using C = VpuHarness::Cmd;
  const uint32_t top = STRATA_VMEM_SIZE;
  const struct {
    const char* what;
    C cmd;
    uint32_t err;
  } cases[] = {
      {"not an op", C{10}, STRATA_VPU_ERR_OP},
      {"op 63", C{63}, STRATA_VPU_ERR_OP},
      {"broadcast mode 3", C{STRATA_VPU_OP_ADD, 3}, STRATA_VPU_ERR_BCAST},
      {"broadcast on a unary op", C{STRATA_VPU_OP_EXP, STRATA_VPU_BCAST_ROW}, STRATA_VPU_ERR_BCAST},
      {"zero rows", C{STRATA_VPU_OP_NEG, 0, 0, 0, 0, 0, 0}, STRATA_VPU_ERR_ZERO},
      {"misaligned a", C{STRATA_VPU_OP_NEG, 0, 4}, STRATA_VPU_ERR_ALIGN},
      {"misaligned b", C{STRATA_VPU_OP_ADD, 0, 0, 32}, STRATA_VPU_ERR_ALIGN},
      {"misaligned stride", C{STRATA_VPU_OP_NEG, 0, 0, 0, 0, 0, 2, 8}, STRATA_VPU_ERR_ALIGN},
      {"a past VMEM", C{STRATA_VPU_OP_NEG, 0, top - kLine, 0, 0, 0, 2}, STRATA_VPU_ERR_SRC_RANGE},
      {"b past VMEM", C{STRATA_VPU_OP_ADD, 0, 0, top - kLine, 0, 0, 2}, STRATA_VPU_ERR_SRC_RANGE},
      {"mask past VMEM", C{STRATA_VPU_OP_SELECT, 0, 0, 0, top}, STRATA_VPU_ERR_SRC_RANGE},
      {"dst past VMEM", C{STRATA_VPU_OP_NEG, 0, 0, 0, 0, top - kLine, 3}, STRATA_VPU_ERR_DST_RANGE},
      {"rows x stride wraps", C{STRATA_VPU_OP_NEG, 0, 0, 0, 0, 0, 0x10000, 0x10000 * kLine}, STRATA_VPU_ERR_SRC_RANGE},
  };
  uint32_t done = h.Reg(STRATA_VPU_DONE), errors = h.Reg(STRATA_VPU_ERRORS);
  const uint32_t rows_done = h.Reg(STRATA_VPU_ROWS_DONE);
  for (const auto& c : cases) {
    h.Push(c.cmd);
    ASSERT_TRUE(h.WaitDone(++done)) << c.what;
    EXPECT_EQ(h.Reg(STRATA_VPU_ERRORS), ++errors) << c.what;
    EXPECT_EQ(h.LastError(), c.err) << c.what;
  }
  EXPECT_EQ(h.Reg(STRATA_VPU_ROWS_DONE), rows_done);
  EXPECT_EQ(h.Vmem(), image) << "a refused command wrote VMEM";
}

TEST(Vpu, AGoodCommandWritesExactlyItsRows) {
  VpuHarness h;
  const std::vector<uint8_t> image = Pattern();
  h.Fill(image);
  // NEG of 5 rows from line 10 (every other line) into line 100 onwards (every third).
  h.Push(VpuHarness::Cmd{STRATA_VPU_OP_NEG, 0, 10 * kLine, 0, 0, 100 * kLine, 5, 2 * kLine, 3 * kLine});
  ASSERT_TRUE(h.WaitDone(1));
  EXPECT_EQ(h.Reg(STRATA_VPU_ERRORS), 0u);
  EXPECT_EQ(h.Reg(STRATA_VPU_ROWS_DONE), 5u);
  EXPECT_GT(h.Reg(STRATA_VPU_BUSY_CYCLES), 5u);
  std::vector<uint8_t> want = image;
  for (uint32_t r = 0; r < 5; ++r) {
    for (uint32_t i = 0; i < kLine; i += 4) {
      uint32_t bits = 0;
      std::memcpy(&bits, &image[(10 + 2 * r) * kLine + i], 4);
      bits ^= 0x80000000u;
      std::memcpy(&want[(100 + 3 * r) * kLine + i], &bits, 4);
    }
  }
  EXPECT_EQ(h.Vmem(), want);
}

// Long commands pushed back to back: one runs, VPU_QUEUE_DEPTH wait, the rest are dropped and counted.
TEST(Vpu, APushIntoAFullQueueIsDroppedAndCounted) {
  VpuHarness h;
  constexpr uint32_t kPushes = STRATA_VPU_QUEUE_DEPTH + 4;
  for (uint32_t i = 0; i < kPushes; ++i) {
    h.Push(VpuHarness::Cmd{STRATA_VPU_OP_EXP, 0, 0, 0, 0, 0, 2000});
  }
  const uint32_t accepted = 1 + STRATA_VPU_QUEUE_DEPTH;
  EXPECT_EQ(h.Reg(STRATA_VPU_ERRORS), kPushes - accepted);
  EXPECT_EQ(h.LastError(), STRATA_VPU_ERR_QUEUE_FULL);
  ASSERT_TRUE(h.WaitDone(accepted));
  EXPECT_EQ(h.Reg(STRATA_VPU_DONE), accepted);
  EXPECT_EQ(h.Reg(STRATA_VPU_ROWS_DONE), accepted * 2000);
}

}  // namespace
}  // namespace strata::sim
