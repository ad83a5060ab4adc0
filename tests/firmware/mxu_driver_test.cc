// The matrix-unit driver (firmware/drivers/mxu.cc) on the host: the command the unit receives at PUSH for every
// op (fields the op reads, from strata/regmap.h), the staged-register cache (only changed registers are written),
// arguments refused before any register is touched, and unit errors mapped to statuses as mxu.h documents.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "arch/host/arch_host.h"
#include "drivers/mxu.h"
#include "hal/mock_mmio.h"
#include "host_device.h"
#include "strata/gemm.h"
#include "strata/regmap.h"

namespace strata {
namespace {

using hal::MmioAccess;
using hal::MockMmio;
using host_model::HostDevice;
using mxu::Command;
using mxu::Op;

constexpr uintptr_t Reg(uint32_t offset) { return STRATA_MXU_BASE + offset; }

class MxuDriverTest : public ::testing::TestWithParam<uint32_t> {
 protected:
  void SetUp() override {
    arch::host::Reset();
    HostDevice::Options o;
    o.mxu_n = GetParam();
    device_ = std::make_unique<HostDevice>(o);
    mmio_ = std::make_unique<MockMmio>(device_.get());
    arch::host::SetWfiHook([this] { ASSERT_TRUE(device_->RunUntilWake()); });
    mxu::Init();
  }
  void TearDown() override {
    mmio_.reset();
    arch::host::Reset();
  }
  uint32_t n() const { return GetParam(); }

  std::unique_ptr<HostDevice> device_;
  std::unique_ptr<MockMmio> mmio_;
};

TEST_P(MxuDriverTest, InitReadsTheArraySizeAndClearsTheStagedRegisters) {
  EXPECT_EQ(mxu::ArraySize(), n());
  EXPECT_EQ(arch::host::Csrs().mie, 1u << arch::kIrqMachineExternal);
  for (uint32_t offset :
       {STRATA_MXU_CMD, STRATA_MXU_SRC, STRATA_MXU_DST, STRATA_MXU_ROWS, STRATA_MXU_SRC_STRIDE, STRATA_MXU_QUANT_MULT,
        STRATA_MXU_QUANT_SHIFT, STRATA_MXU_W_SRC, STRATA_MXU_W_STRIDE, STRATA_MXU_K_ROWS}) {
    bool written = false;
    for (const MmioAccess& a : mmio_->log()) written |= a.write && a.address == Reg(offset) && a.value == 0;
    EXPECT_TRUE(written) << "staged register 0x" << std::hex << offset << " not cleared";
  }
}

// Random valid commands of every op: what the unit latched at PUSH is the command, field by field.
TEST_P(MxuDriverTest, TheUnitReceivesEachCommandAsGiven) {
  std::mt19937 rng(GetParam());
  const uint32_t row = n(), acc_row = 4 * n();  // multiples of these are aligned whatever the unit's rule
  uint32_t last = 0;
  for (int i = 0; i < 200; ++i) {
    Command c{static_cast<Op>(STRATA_MXU_OP_LOAD_WEIGHTS + rng() % 3)};
    c.src = (rng() % 512) * row;
    c.rows = 1 + rng() % n();
    c.accumulate = rng() % 2;
    c.relu = rng() % 2;
    c.int8 = rng() % 2;
    c.round = rng() % 2;
    if (c.op == Op::kMatmul) {
      c.rows = 1 + rng() % 512;
      c.src_stride = (rng() % 8) * row;
      c.dst = (rng() % 256) * acc_row;
      if (rng() % 2) {
        c.k_rows = 1 + rng() % 1024;
        c.w_src = (rng() % 512) * row;
        c.w_stride = (rng() % 64) * row;
      }
    }
    if (c.op == Op::kReadout) {
      c.src = (rng() % 256) * acc_row;
      c.dst = (rng() % 512) * row;
      c.rows = 1 + rng() % 512;
      c.quant_mult = static_cast<int32_t>(rng());
      c.quant_shift = rng() % (STRATA_GEMM_MAX_QUANT_SHIFT + 1);
    }
    uint32_t ticket = 0;
    ASSERT_EQ(mxu::Submit(c, &ticket), STRATA_OK) << "command " << i;
    EXPECT_EQ(ticket, ++last);
    const HostDevice::MxuCommand& got = device_->mxu_pushed().back();
    const uint32_t cmd = (static_cast<uint32_t>(c.op) << STRATA_MXU_CMD_OP_LSB) |
                         (c.accumulate ? STRATA_MXU_CMD_ACCUMULATE_MASK : 0) | (c.relu ? STRATA_MXU_CMD_RELU_MASK : 0) |
                         (c.int8 ? STRATA_MXU_CMD_INT8_MASK : 0) | (c.round ? STRATA_MXU_CMD_ROUND_MASK : 0) |
                         STRATA_MXU_CMD_IRQ_MASK;
    EXPECT_EQ(got.at(STRATA_MXU_CMD), cmd) << "command " << i;
    EXPECT_EQ(got.at(STRATA_MXU_SRC), c.src);
    EXPECT_EQ(got.at(STRATA_MXU_ROWS), c.rows);
    if (c.op != Op::kLoadWeights) {
      EXPECT_EQ(got.at(STRATA_MXU_DST), c.dst);
    }
    if (c.op == Op::kMatmul) {
      EXPECT_EQ(got.at(STRATA_MXU_SRC_STRIDE), c.src_stride);
      EXPECT_EQ(got.at(STRATA_MXU_K_ROWS), c.k_rows);
      if (c.k_rows != 0) {
        EXPECT_EQ(got.at(STRATA_MXU_W_SRC), c.w_src);
        EXPECT_EQ(got.at(STRATA_MXU_W_STRIDE), c.w_stride);
      }
    }
    if (c.op == Op::kReadout) {
      EXPECT_EQ(got.at(STRATA_MXU_QUANT_MULT), static_cast<uint32_t>(c.quant_mult));
      EXPECT_EQ(got.at(STRATA_MXU_QUANT_SHIFT), c.quant_shift);
    }
    if (rng() % 4 == 0) {
      EXPECT_EQ(mxu::Wait(ticket), STRATA_OK);
    }
  }
  EXPECT_EQ(mxu::Wait(mxu::LastTicket()), STRATA_OK);
  EXPECT_EQ(device_->mxu_queued(), 0u);
  EXPECT_EQ(device_->irq_enable() & STRATA_IRQ_MXU, 0u);
}

// The exact accesses: a repeated command writes only PUSH; one that differs in SRC writes SRC, then PUSH.
TEST_P(MxuDriverTest, OnlyChangedStagedRegistersAreWritten) {
  uint32_t ticket = 0;
  ASSERT_EQ(mxu::Matmul(n(), n(), 7, 4 * n(), false, &ticket), STRATA_OK);
  mmio_->ClearLog();
  ASSERT_EQ(mxu::Matmul(n(), n(), 7, 4 * n(), false, &ticket), STRATA_OK);
  const std::vector<MmioAccess> repeat = {
      {false, Reg(STRATA_MXU_STATUS), 1u << STRATA_MXU_STATUS_BUSY_LSB | 1u << STRATA_MXU_STATUS_PENDING_LSB},
      {true, Reg(STRATA_MXU_PUSH), 1}};
  EXPECT_EQ(mmio_->log(), repeat);
  mmio_->ClearLog();
  ASSERT_EQ(mxu::Matmul(3 * n(), n(), 7, 4 * n(), false, &ticket), STRATA_OK);
  const std::vector<MmioAccess> new_src = {
      {false, Reg(STRATA_MXU_STATUS), 1u << STRATA_MXU_STATUS_BUSY_LSB | 2u << STRATA_MXU_STATUS_PENDING_LSB},
      {true, Reg(STRATA_MXU_SRC), 3 * n()},
      {true, Reg(STRATA_MXU_PUSH), 1}};
  EXPECT_EQ(mmio_->log(), new_src);
  EXPECT_EQ(mxu::Wait(ticket), STRATA_OK);
}

// More commands than the queue holds: Submit sleeps for room and never overflows the unit's queue.
TEST_P(MxuDriverTest, SubmitSleepsWhileTheQueueIsFull) {
  uint32_t ticket = 0;
  for (uint32_t i = 0; i < 3 * STRATA_MXU_QUEUE_DEPTH; ++i) {
    ASSERT_EQ(mxu::LoadWeights(0, n(), &ticket), STRATA_OK);
    EXPECT_LE(device_->mxu_queued(), STRATA_MXU_QUEUE_DEPTH);
  }
  EXPECT_EQ(arch::host::WfiCount(), 2 * STRATA_MXU_QUEUE_DEPTH);
  EXPECT_EQ(mxu::Wait(ticket), STRATA_OK);
  EXPECT_TRUE(mxu::IsDone(ticket));
}

TEST_P(MxuDriverTest, InvalidArgumentsTouchNoRegister) {
  std::vector<std::pair<const char*, Command>> cases;
  auto add = [&](const char* what, Op op, auto&& change) {
    Command c{op};
    c.rows = 1;
    change(c);
    cases.push_back({what, c});
  };
  for (Op op : {Op::kLoadWeights, Op::kMatmul, Op::kReadout}) {
    add("zero rows", op, [](Command& c) { c.rows = 0; });
    add("quant shift too large", op, [](Command& c) { c.quant_shift = STRATA_GEMM_MAX_QUANT_SHIFT + 1; });
  }
  add("not an op", static_cast<Op>(0), [](Command&) {});
  add("LOAD_WEIGHTS of more than N rows", Op::kLoadWeights, [&](Command& c) { c.rows = n() + 1; });
  add("LOAD_WEIGHTS from a misaligned row", Op::kLoadWeights, [](Command& c) { c.src = 1; });
  add("MATMUL from a misaligned row", Op::kMatmul, [](Command& c) { c.src = 1; });
  add("MATMUL with a misaligned stride", Op::kMatmul, [](Command& c) { c.src_stride = 1; });
  add("MATMUL into a misaligned ACC row", Op::kMatmul, [](Command& c) { c.dst = 4; });
  add("MATMUL with misaligned weights", Op::kMatmul, [](Command& c) { c.k_rows = 1, c.w_src = 1; });
  add("MATMUL with a misaligned weight stride", Op::kMatmul, [](Command& c) { c.k_rows = 1, c.w_stride = 1; });
  add("READOUT from a misaligned ACC row", Op::kReadout, [](Command& c) { c.src = 4; });
  uint32_t ticket = 0;
  const uint32_t last = mxu::LastTicket();
  mmio_->ClearLog();
  for (const auto& [what, c] : cases) {
    EXPECT_EQ(mxu::Submit(c, &ticket), STRATA_INVALID_ARGUMENT) << what;
  }
  EXPECT_EQ(mxu::Submit(Command{Op::kLoadWeights}, nullptr), STRATA_INVALID_ARGUMENT) << "null ticket";
  EXPECT_EQ(mxu::MatmulK(0, 0, 1, 0, 0, 0, 0, false, &ticket), STRATA_INVALID_ARGUMENT) << "MatmulK with K = 0";
  EXPECT_EQ(mxu::Wait(last + 1), STRATA_INVALID_ARGUMENT) << "a ticket never handed out";
  EXPECT_EQ(mxu::LastTicket(), last);
  EXPECT_TRUE(mmio_->log().empty());
}

// bf16 mode (SubmitMode): the mode bits reach CMD beside the op's own, operands are rows of 2N bytes (their
// alignment is MXU_ROW_ALIGN(2N)), and an inconsistent mode is refused before any register is touched.
TEST_P(MxuDriverTest, SubmitModeSendsBf16Commands) {
  const uint32_t row = 2 * n(), acc_row = 4 * n();
  std::mt19937 rng(GetParam() + 100);
  for (int i = 0; i < 100; ++i) {
    Command c{static_cast<Op>(STRATA_MXU_OP_LOAD_WEIGHTS + rng() % 3)};
    c.src = (rng() % 512) * row;
    c.rows = 1 + rng() % n();
    c.accumulate = rng() % 2;
    c.relu = rng() % 2;
    uint32_t mode = mxu::kModeBf16;
    if (c.op == Op::kMatmul) {
      c.rows = 1 + rng() % 512;
      c.src_stride = (rng() % 8) * row;
      c.dst = (rng() % 256) * acc_row;
      c.k_rows = rng() % 2 ? 1 + rng() % 1024 : 0;
      c.w_src = (rng() % 512) * row;
      c.w_stride = (rng() % 64) * row;
    }
    if (c.op == Op::kReadout) {
      c.src = (rng() % 256) * acc_row;
      c.dst = (rng() % 512) * row;
      if (rng() % 2) mode |= mxu::kModeOutBf16;
    }
    uint32_t ticket = 0;
    ASSERT_EQ(mxu::SubmitMode(c, mode, &ticket), STRATA_OK) << "command " << i;
    const uint32_t cmd = (static_cast<uint32_t>(c.op) << STRATA_MXU_CMD_OP_LSB) |
                         (c.accumulate ? STRATA_MXU_CMD_ACCUMULATE_MASK : 0) | (c.relu ? STRATA_MXU_CMD_RELU_MASK : 0) |
                         STRATA_MXU_CMD_BF16_MASK |
                         ((mode & mxu::kModeOutBf16) != 0 ? STRATA_MXU_CMD_OUT_BF16_MASK : 0) | STRATA_MXU_CMD_IRQ_MASK;
    const HostDevice::MxuCommand& got = device_->mxu_pushed().back();
    EXPECT_EQ(got.at(STRATA_MXU_CMD), cmd) << "command " << i;
    EXPECT_EQ(got.at(STRATA_MXU_SRC), c.src);
    EXPECT_EQ(got.at(STRATA_MXU_ROWS), c.rows);
  }
  // Mode 0 is a plain int8 command, as Submit sends it.
  uint32_t ticket = 0;
  ASSERT_EQ(mxu::SubmitMode(Command{Op::kLoadWeights}, 0, &ticket), STRATA_OK);
  EXPECT_EQ(device_->mxu_pushed().back().at(STRATA_MXU_CMD),
            (STRATA_MXU_OP_LOAD_WEIGHTS << STRATA_MXU_CMD_OP_LSB) | STRATA_MXU_CMD_IRQ_MASK);
  EXPECT_EQ(mxu::Wait(mxu::LastTicket()), STRATA_OK);
}

TEST_P(MxuDriverTest, SubmitModeRefusesInconsistentModesAndTouchesNoRegister) {
  struct Case {
    const char* what;
    Command c;
    uint32_t mode;
  };
  std::vector<Case> cases;
  auto add = [&](const char* what, Op op, uint32_t mode, auto&& change) {
    Command c{op};
    change(c);
    cases.push_back({what, c, mode});
  };
  const uint32_t bf16 = mxu::kModeBf16, out = mxu::kModeOutBf16;
  add("an unknown mode bit", Op::kLoadWeights, bf16 | (out << 1), [](Command&) {});
  add("an IRQ bit as mode", Op::kLoadWeights, STRATA_MXU_CMD_IRQ_MASK, [](Command&) {});
  add("INT8 with BF16", Op::kReadout, bf16, [](Command& c) { c.int8 = true; });
  add("ROUND with BF16", Op::kReadout, bf16, [](Command& c) { c.round = true; });
  add("OUT_BF16 without BF16", Op::kReadout, out, [](Command&) {});
  add("OUT_BF16 on a MATMUL", Op::kMatmul, bf16 | out, [](Command&) {});
  add("OUT_BF16 on a LOAD_WEIGHTS", Op::kLoadWeights, bf16 | out, [](Command&) {});
  add("zero rows", Op::kMatmul, bf16, [](Command& c) { c.rows = 0; });
  if (STRATA_MXU_ROW_ALIGN(n()) < STRATA_MXU_ROW_ALIGN(2 * n())) {
    // Aligned for an int8 row, not for a bf16 one.
    const uint32_t half = STRATA_MXU_ROW_ALIGN(n());
    add("bf16 LOAD_WEIGHTS from an int8-aligned row", Op::kLoadWeights, bf16, [&](Command& c) { c.src = half; });
    add("bf16 MATMUL from an int8-aligned row", Op::kMatmul, bf16, [&](Command& c) { c.src = half; });
    add("bf16 MATMUL with an int8-aligned stride", Op::kMatmul, bf16, [&](Command& c) { c.src_stride = half; });
    add("bf16 MATMUL with int8-aligned weights", Op::kMatmul, bf16, [&](Command& c) { c.k_rows = 1, c.w_src = half; });
    add("bf16 MATMUL with an int8-aligned weight stride", Op::kMatmul, bf16,
        [&](Command& c) { c.k_rows = 1, c.w_stride = half; });
  }
  uint32_t ticket = 0;
  const uint32_t last = mxu::LastTicket();
  mmio_->ClearLog();
  for (const Case& k : cases) {
    EXPECT_EQ(mxu::SubmitMode(k.c, k.mode, &ticket), STRATA_INVALID_ARGUMENT) << k.what;
  }
  EXPECT_EQ(mxu::SubmitMode(Command{Op::kLoadWeights}, bf16, nullptr), STRATA_INVALID_ARGUMENT) << "null ticket";
  EXPECT_EQ(mxu::LastTicket(), last);
  EXPECT_TRUE(mmio_->log().empty());
}

// Wait reports an error the unit counted since the previous Wait, once; OK when nothing new was counted.
TEST_P(MxuDriverTest, WaitMapsUnitErrorsToStatuses) {
  const std::pair<uint32_t, strata_status> cases[] = {{STRATA_MXU_ERR_SRC_RANGE, STRATA_OUT_OF_RANGE},
                                                      {STRATA_MXU_ERR_DST_RANGE, STRATA_OUT_OF_RANGE},
                                                      {STRATA_MXU_ERR_QUEUE_FULL, STRATA_RESOURCE_EXHAUSTED},
                                                      {STRATA_MXU_ERR_OP, STRATA_INVALID_ARGUMENT},
                                                      {STRATA_MXU_ERR_ZERO, STRATA_INVALID_ARGUMENT},
                                                      {STRATA_MXU_ERR_ALIGN, STRATA_INVALID_ARGUMENT},
                                                      {STRATA_MXU_ERR_NONE, STRATA_INTERNAL}};
  uint32_t ticket = 0;
  ASSERT_EQ(mxu::LoadWeights(0, 1, &ticket), STRATA_OK);
  uint32_t errors = 0;
  for (const auto& [err, want] : cases) {
    MockMmio mmio;  // strict, on top of the chip model's double
    mmio.ExpectRead(Reg(STRATA_MXU_DONE), ticket);
    mmio.ExpectRead(Reg(STRATA_MXU_ERRORS), ++errors);
    mmio.ExpectRead(Reg(STRATA_MXU_STATUS), err << STRATA_MXU_STATUS_LAST_ERR_LSB);
    EXPECT_EQ(mxu::Wait(ticket), want) << "MXU_ERR " << err;
    mmio.ExpectRead(Reg(STRATA_MXU_DONE), ticket);
    mmio.ExpectRead(Reg(STRATA_MXU_ERRORS), errors);
    EXPECT_EQ(mxu::Wait(ticket), STRATA_OK);
    EXPECT_EQ(mmio.Problems(), "");
  }
}

INSTANTIATE_TEST_SUITE_P(ArraySizes, MxuDriverTest, ::testing::Values(8u, 16u, 32u),
                         [](const ::testing::TestParamInfo<uint32_t>& i) {
                           std::string name = "N";
                           return name += std::to_string(i.param);
                         });

}  // namespace
}  // namespace strata
