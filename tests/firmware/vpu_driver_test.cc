// The vector-unit driver (firmware/drivers/vpu.cc) and the vector kernel (firmware/kernels/vector.cc) on the host:
// the command the unit receives at PUSH, the staged-register cache, the driver's checks against the unit's own (the
// host model repeats rtl/tpu_vpu_engine.sv's head checks) over random commands, and the kernel's commands for
// every kind of op: each passes the unit's checks, covers the tensor once, and a column reduction carries its
// running value from tile to tile.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

#include "arch/host/arch_host.h"
#include "drivers/dma.h"
#include "drivers/vpu.h"
#include "hal/mock_mmio.h"
#include "host_device.h"
#include "kernels/vector.h"
#include "strata/regmap.h"
#include "strata/vector_mailbox.h"

namespace strata {
namespace {

using hal::MmioAccess;
using hal::MockMmio;
using host_model::HostDevice;

constexpr uintptr_t Reg(uint32_t offset) { return STRATA_VPU_BASE + offset; }
constexpr uint32_t kLine = vpu::kRowBytes;
constexpr uint64_t kHbmBytes = uint64_t{32} << 20;

std::vector<uint32_t> AllOps() {
  return {
#define STRATA_VPU_CODE(name, value) value,
      STRATA_VPU_OP_LIST(STRATA_VPU_CODE)
#undef STRATA_VPU_CODE
  };
}

class VpuDriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    arch::host::Reset();
    HostDevice::Options o;
    o.hbm_bytes = kHbmBytes;  // room for the kernel tests' tensors
    device_ = std::make_unique<HostDevice>(o);
    mmio_ = std::make_unique<MockMmio>(device_.get());
    arch::host::SetWfiHook([this] { ASSERT_TRUE(device_->RunUntilWake()); });
    ASSERT_EQ(vpu::Init(), STRATA_OK);
  }
  void TearDown() override {
    mmio_.reset();
    arch::host::Reset();
  }

  std::unique_ptr<HostDevice> device_;
  std::unique_ptr<MockMmio> mmio_;
};

TEST_F(VpuDriverTest, InitChecksTheLanesAndClearsTheStagedRegisters) {
  EXPECT_EQ(arch::host::Csrs().mie, 1u << arch::kIrqMachineExternal);
  for (uint32_t offset : {STRATA_VPU_CMD, STRATA_VPU_SRC_A, STRATA_VPU_SRC_B, STRATA_VPU_SRC_M, STRATA_VPU_DST,
                          STRATA_VPU_ROWS, STRATA_VPU_SRC_STRIDE, STRATA_VPU_DST_STRIDE}) {
    bool written = false;
    for (const MmioAccess& a : mmio_->log()) written |= a.write && a.address == Reg(offset) && a.value == 0;
    EXPECT_TRUE(written) << "staged register 0x" << std::hex << offset << " not cleared";
  }
}

TEST_F(VpuDriverTest, TheOpListIsTheRegmapsAndBinaryOpsSitBelowNeg) {
  const std::vector<uint32_t> ops = AllOps();
  EXPECT_EQ(ops.size(), 29u);
  for (uint32_t op = 0; op < 64; ++op) {
    const bool listed = std::find(ops.begin(), ops.end(), op) != ops.end();
    EXPECT_EQ(vpu::IsOp(op), listed) << op;
    EXPECT_EQ(vpu::IsBinary(op), listed && op < STRATA_VPU_OP_NEG) << op;
  }
}

// Random commands, legal and not: the driver accepts exactly those the unit would run (the host model's copy of
// the RTL's head checks), refuses the others with the status the unit's error maps to and touches no register for
// them, and the unit receives every accepted command field for field.
TEST_F(VpuDriverTest, TheDriverAcceptsWhatTheUnitWouldRun) {
  std::mt19937 rng(46);
  const std::vector<uint32_t> ops = AllOps();
  uint32_t accepted = 0, refused = 0;
  for (int i = 0; i < 3000; ++i) {
    vpu::Command c;
    c.op = rng() % 8 == 0 ? rng() % 64 : ops[rng() % ops.size()];
    c.bcast = rng() % 4 == 0 ? rng() % 4 : STRATA_VPU_BCAST_NONE;
    c.rows = rng() % 16 == 0 ? 0 : 1 + rng() % 600;
    const uint32_t lines = STRATA_VMEM_SIZE / kLine;
    auto addr = [&] { return (rng() % lines) * kLine + (rng() % 32 == 0 ? 4 : 0); };
    c.src_a = addr();
    c.src_b = addr();
    c.src_m = addr();
    c.dst = addr();
    c.src_stride = (rng() % 8) * kLine + (rng() % 32 == 0 ? 8 : 0);
    c.dst_stride = (rng() % 8) * kLine;
    HostDevice::VpuCommand as_unit;
    as_unit.regs[STRATA_VPU_CMD / 4] = c.op << STRATA_VPU_CMD_OP_LSB | c.bcast << STRATA_VPU_CMD_BCAST_LSB;
    as_unit.regs[STRATA_VPU_SRC_A / 4] = c.src_a;
    as_unit.regs[STRATA_VPU_SRC_B / 4] = c.src_b;
    as_unit.regs[STRATA_VPU_SRC_M / 4] = c.src_m;
    as_unit.regs[STRATA_VPU_DST / 4] = c.dst;
    as_unit.regs[STRATA_VPU_ROWS / 4] = c.rows;
    as_unit.regs[STRATA_VPU_SRC_STRIDE / 4] = c.src_stride;
    as_unit.regs[STRATA_VPU_DST_STRIDE / 4] = c.dst_stride;
    const uint32_t unit_err = HostDevice::VpuCheck(as_unit);
    mmio_->ClearLog();
    uint32_t ticket = 0;
    const strata_status s = vpu::Submit(c, &ticket);
    if (unit_err == STRATA_VPU_ERR_NONE) {
      ++accepted;
      ASSERT_EQ(s, STRATA_OK) << "command " << i;
      const HostDevice::VpuCommand& got = device_->vpu_pushed().back();
      EXPECT_EQ(got.at(STRATA_VPU_CMD), as_unit.at(STRATA_VPU_CMD) | STRATA_VPU_CMD_IRQ_MASK);
      EXPECT_EQ(got.at(STRATA_VPU_SRC_A), c.src_a);
      if (vpu::IsBinary(c.op)) {
        EXPECT_EQ(got.at(STRATA_VPU_SRC_B), c.src_b);
      }
      if (c.op == STRATA_VPU_OP_SELECT) {
        EXPECT_EQ(got.at(STRATA_VPU_SRC_M), c.src_m);
      }
      EXPECT_EQ(got.at(STRATA_VPU_DST), c.dst);
      EXPECT_EQ(got.at(STRATA_VPU_ROWS), c.rows);
      EXPECT_EQ(got.at(STRATA_VPU_SRC_STRIDE), c.src_stride);
      EXPECT_EQ(got.at(STRATA_VPU_DST_STRIDE), c.dst_stride);
      if (rng() % 4 == 0) {
        EXPECT_EQ(vpu::Wait(ticket), STRATA_OK);
      }
    } else {
      ++refused;
      const strata_status want = unit_err == STRATA_VPU_ERR_SRC_RANGE || unit_err == STRATA_VPU_ERR_DST_RANGE
                                     ? STRATA_OUT_OF_RANGE
                                     : STRATA_INVALID_ARGUMENT;
      EXPECT_EQ(s, want) << "command " << i << ": unit error " << unit_err;
      EXPECT_TRUE(mmio_->log().empty()) << "command " << i;
    }
  }
  EXPECT_GT(accepted, 500u);
  EXPECT_GT(refused, 500u);
  EXPECT_EQ(vpu::Wait(vpu::LastTicket()), STRATA_OK);
  EXPECT_EQ(device_->vpu_queued(), 0u);
  EXPECT_EQ(device_->irq_enable() & STRATA_IRQ_VPU, 0u);
}

TEST_F(VpuDriverTest, OnlyChangedStagedRegistersAreWritten) {
  vpu::Command c;
  c.op = STRATA_VPU_OP_EXP;
  c.src_a = 4 * kLine;
  c.dst = 8 * kLine;
  c.rows = 5;
  uint32_t ticket = 0;
  ASSERT_EQ(vpu::Submit(c, &ticket), STRATA_OK);
  mmio_->ClearLog();
  ASSERT_EQ(vpu::Submit(c, &ticket), STRATA_OK);
  const std::vector<MmioAccess> repeat = {
      {false, Reg(STRATA_VPU_STATUS), 1u << STRATA_VPU_STATUS_BUSY_LSB | 1u << STRATA_VPU_STATUS_PENDING_LSB},
      {true, Reg(STRATA_VPU_PUSH), 1}};
  EXPECT_EQ(mmio_->log(), repeat);
  mmio_->ClearLog();
  c.dst = 16 * kLine;
  ASSERT_EQ(vpu::Submit(c, &ticket), STRATA_OK);
  const std::vector<MmioAccess> new_dst = {
      {false, Reg(STRATA_VPU_STATUS), 1u << STRATA_VPU_STATUS_BUSY_LSB | 2u << STRATA_VPU_STATUS_PENDING_LSB},
      {true, Reg(STRATA_VPU_DST), 16 * kLine},
      {true, Reg(STRATA_VPU_PUSH), 1}};
  EXPECT_EQ(mmio_->log(), new_dst);
  EXPECT_EQ(vpu::Wait(ticket), STRATA_OK);
  EXPECT_EQ(vpu::RowsDone(), 15u);
}

TEST_F(VpuDriverTest, SubmitSleepsWhileTheQueueIsFull) {
  vpu::Command c;
  c.op = STRATA_VPU_OP_NEG;
  uint32_t ticket = 0;
  for (uint32_t i = 0; i < 3 * STRATA_VPU_QUEUE_DEPTH; ++i) {
    ASSERT_EQ(vpu::Submit(c, &ticket), STRATA_OK);
    EXPECT_LE(device_->vpu_queued(), STRATA_VPU_QUEUE_DEPTH);
  }
  EXPECT_GT(arch::host::WfiCount(), 0u);
  EXPECT_EQ(vpu::Wait(ticket), STRATA_OK);
  EXPECT_TRUE(vpu::IsDone(ticket));
  EXPECT_EQ(vpu::Wait(ticket + 1), STRATA_INVALID_ARGUMENT) << "a ticket never handed out";
}

// ---- the kernel ----

class VectorKernelTest : public VpuDriverTest {
 protected:
  void SetUp() override {
    VpuDriverTest::SetUp();
    dma::Init();
  }
  // Runs the kernel and checks every command the unit received.
  kernels::VectorStats Run(const kernels::VectorParams& p) {
    kernels::VectorStats st;
    EXPECT_EQ(kernels::Vector(p, &st), STRATA_OK);
    EXPECT_EQ(device_->vpu_queued(), 0u);
    EXPECT_EQ(st.vpu_commands, device_->vpu_pushed().size());
    for (const HostDevice::VpuCommand& c : device_->vpu_pushed()) {
      EXPECT_EQ(HostDevice::VpuCheck(c), STRATA_VPU_ERR_NONE);
    }
    return st;
  }
  uint32_t TotalRows(uint32_t op) const {
    uint32_t rows = 0;
    for (const HostDevice::VpuCommand& c : device_->vpu_pushed()) {
      if ((c.at(STRATA_VPU_CMD) & STRATA_VPU_CMD_OP_MASK) >> STRATA_VPU_CMD_OP_LSB == op) rows += c.at(STRATA_VPU_ROWS);
    }
    return rows;
  }
};

TEST_F(VectorKernelTest, ElementwiseOpsCoverTheTensorOnce) {
  for (uint32_t chunks : {1u, 3u, 64u, 256u}) {
    for (uint32_t rows : {1u, 7u, 300u}) {
      for (uint32_t bcast : {STRATA_VPU_BCAST_NONE, STRATA_VPU_BCAST_SCALAR, STRATA_VPU_BCAST_ROW}) {
        TearDown();  // a fresh device per case
        SetUp();
        kernels::VectorParams p;
        p.op = STRATA_VPU_OP_ADD;
        p.bcast = bcast;
        p.rows = rows;
        p.chunks = chunks;
        p.b = 8 << 20;
        p.out = 16 << 20;
        const kernels::VectorStats st = Run(p);
        EXPECT_EQ(TotalRows(p.op), rows * chunks) << rows << "x" << chunks << " bcast " << bcast;
        EXPECT_GE(st.tile_rows, 1u);
      }
    }
  }
}

TEST_F(VectorKernelTest, RowReductionsAccumulateEachRowThenFoldIt) {
  kernels::VectorParams p;
  p.op = STRATA_VPU_OP_ROW_MAX;
  p.rows = 300;
  p.chunks = 64;
  p.out = 1 << 20;
  const kernels::VectorStats st = Run(p);
  EXPECT_EQ(TotalRows(STRATA_VPU_OP_ACC_MAX), p.rows * p.chunks);
  EXPECT_EQ(TotalRows(STRATA_VPU_OP_ROW_MAX), p.rows);
  EXPECT_LT(st.tile_rows, p.rows) << "several tiles";
}

// Softmax, per tile: ACC_MAX per row, ROW_MAX, SUB per row, EXP, ACC_SUM per row, ROW_SUM, DIV per row.
TEST_F(VectorKernelTest, SoftmaxRunsItsSevenStepsOverEveryRow) {
  kernels::VectorParams p;
  p.op = STRATA_VECTOR_OP_SOFTMAX;
  p.rows = 100;
  p.chunks = 64;
  p.out = 16 << 20;
  const kernels::VectorStats st = Run(p);
  EXPECT_LT(st.tile_rows, p.rows) << "several tiles";
  for (uint32_t op :
       {STRATA_VPU_OP_ACC_MAX, STRATA_VPU_OP_SUB, STRATA_VPU_OP_EXP, STRATA_VPU_OP_ACC_SUM, STRATA_VPU_OP_DIV}) {
    EXPECT_EQ(TotalRows(op), p.rows * p.chunks) << "op " << op;
  }
  EXPECT_EQ(TotalRows(STRATA_VPU_OP_ROW_MAX), p.rows);
  EXPECT_EQ(TotalRows(STRATA_VPU_OP_ROW_SUM), p.rows);
}

// A column reduction over several tiles: tile t > 0's command for chunk column j starts at the row where tile
// t - 1's command for column j left its running value; the last tile's commands write the result area.
TEST_F(VectorKernelTest, ColumnReductionsCarryTheRunningValueAcrossTiles) {
  kernels::VectorParams p;
  p.op = STRATA_VPU_OP_ACC_SUM;
  p.rows = 2000;
  p.chunks = 40;
  p.out = 16 << 20;
  const kernels::VectorStats st = Run(p);
  const uint32_t tiles = (p.rows + st.tile_rows - 1) / st.tile_rows;
  ASSERT_GT(tiles, 2u);
  const auto& cmds = device_->vpu_pushed();
  ASSERT_EQ(cmds.size(), tiles * p.chunks);
  EXPECT_EQ(TotalRows(p.op), p.chunks * (p.rows + tiles - 1))
      << "each column: every row once, a carried row per tile after the first";
  std::set<uint32_t> results;
  for (uint32_t t = 0; t < tiles; ++t) {
    for (uint32_t j = 0; j < p.chunks; ++j) {
      const HostDevice::VpuCommand& c = cmds[t * p.chunks + j];
      EXPECT_EQ(c.at(STRATA_VPU_DST_STRIDE), 0u);
      EXPECT_EQ(c.at(STRATA_VPU_SRC_STRIDE), p.chunks * kLine);
      if (t > 0) {
        EXPECT_EQ(c.at(STRATA_VPU_SRC_A), cmds[(t - 1) * p.chunks + j].at(STRATA_VPU_DST)) << t << " " << j;
      }
      if (t + 1 == tiles) results.insert(c.at(STRATA_VPU_DST));
    }
  }
  EXPECT_EQ(results.size(), p.chunks);
}

TEST_F(VectorKernelTest, BadParametersAreRefusedBeforeAnyCommand) {
  kernels::VectorStats st;
  kernels::VectorParams p;
  p.rows = 4;
  p.chunks = 1;
  for (auto change : std::vector<void (*)(kernels::VectorParams&)>{
           [](kernels::VectorParams& q) { q.op = 10; }, [](kernels::VectorParams& q) { q.rows = 0; },
           [](kernels::VectorParams& q) { q.chunks = 0; },
           [](kernels::VectorParams& q) { q.chunks = kernels::VectorMaxChunks() + 1; },
           [](kernels::VectorParams& q) { q.bcast = 3; },
           [](kernels::VectorParams& q) { q.op = STRATA_VPU_OP_EXP, q.bcast = STRATA_VPU_BCAST_ROW; }}) {
    kernels::VectorParams q = p;
    change(q);
    EXPECT_EQ(kernels::Vector(q, &st), STRATA_INVALID_ARGUMENT);
  }
  EXPECT_TRUE(device_->vpu_pushed().empty());
  EXPECT_TRUE(device_->dma_pushed(0).empty());
}

}  // namespace
}  // namespace strata
