// The host control core (firmware/arch/host) and the one interrupt-sleep idiom every waiter uses
// (firmware/drivers/irq.h), against the register map and the RISC-V privileged spec's mstatus.MIE.
#include "arch/host/arch_host.h"

#include <gtest/gtest.h>

#include <vector>

#include "arch/arch.h"
#include "drivers/irq.h"
#include "hal/mock_mmio.h"
#include "strata/regmap.h"

namespace strata {
namespace {

using arch::host::Csrs;
using hal::MockMmio;

constexpr uintptr_t kIrqEnable = STRATA_CTRL_BASE + STRATA_CTRL_IRQ_ENABLE;
constexpr uintptr_t kIrqPending = STRATA_CTRL_BASE + STRATA_CTRL_IRQ_PENDING;

class ArchHostTest : public ::testing::Test {
 protected:
  void SetUp() override { arch::host::Reset(); }
  void TearDown() override { arch::host::Reset(); }
};

TEST_F(ArchHostTest, CsrMacrosReachTheFakeRegisterFile) {
  STRATA_CSR_WRITE(mie, 0x880u);
  EXPECT_EQ(Csrs().mie, 0x880u);
  STRATA_CSR_SET(mie, 1u << arch::kIrqMachineExternal);
  STRATA_CSR_CLEAR(mie, 1u << arch::kIrqMachineTimer);
  EXPECT_EQ(Csrs().mie, 0x800u);
  EXPECT_EQ(STRATA_CSR_READ(mie), 0x800u);
  arch::EnableInterrupts();
  EXPECT_EQ(Csrs().mstatus, arch::kMstatusMie);
  arch::DisableInterrupts();
  EXPECT_EQ(Csrs().mstatus, 0u);
}

// The 64-bit counter reads stay consistent across a carry out of the low word, for several step sizes.
TEST_F(ArchHostTest, ReadCycleIsMonotonicAcrossTheLowWordCarry) {
  for (uint32_t step : {1u, 3u, 1000u, 0x10000u}) {
    Csrs().mcycle = 0xffffffffull - 5 * step;
    Csrs().cycles_per_read = step;
    uint64_t last = arch::ReadCycle();
    for (int i = 0; i < 20; ++i) {
      const uint64_t now = arch::ReadCycle();
      EXPECT_GT(now, last) << "step " << step;
      EXPECT_LE(now - last, 4ull * step) << "step " << step;
      last = now;
    }
    EXPECT_GT(last, 0xffffffffull) << "the test never crossed the carry";
  }
}

TEST_F(ArchHostTest, WfiCallsTheHookAndInterruptsReachTheirHandler) {
  int calls = 0;
  arch::host::SetWfiHook([&] { ++calls; });
  arch::WaitForInterrupt();
  arch::WaitForInterrupt();
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(arch::host::WfiCount(), 2u);

  static uint32_t seen_cause = 0;
  EXPECT_FALSE(arch::host::DeliverInterrupt(arch::kIrqMachineTimer));  // no handler: unhandled
  arch::SetInterruptHandler(arch::kIrqMachineTimer,
                            [](arch::TrapFrame* f) { seen_cause = f->mcause & ~arch::kMcauseInterrupt; });
  EXPECT_TRUE(arch::host::DeliverInterrupt(arch::kIrqMachineTimer));
  EXPECT_EQ(seen_cause, arch::kIrqMachineTimer);
  EXPECT_FALSE(arch::host::DeliverInterrupt(arch::kIrqMachineExternal));
}

TEST_F(ArchHostTest, ExitGoesToTheHook) {
  struct Exited {
    int code;
  };
  arch::host::SetExitHook([](int code) { throw Exited{code}; });
  for (int code : {0, 1, 7}) {
    try {
      arch::Exit(code);
    } catch (const Exited& e) {
      EXPECT_EQ(e.code, code);
    }
  }
}

TEST_F(ArchHostTest, WfiWithoutAHookIsFatal) { EXPECT_DEATH(arch::WaitForInterrupt(), "wfi with no hook installed"); }

// irq::SleepUntil: the source enabled only while sleeping, its pending bit cleared before every check, wfi only
// after a failed check, MIE off while asleep and restored after. `wakes` = checks that fail before ready().
TEST_F(ArchHostTest, SleepUntilFollowsTheWakeUpIdiom) {
  for (const uint32_t source : {STRATA_IRQ_DMA, STRATA_IRQ_MXU, STRATA_IRQ_DOORBELL}) {
    for (const int fails : {0, 1, 3}) {
      for (const bool mie_on : {false, true}) {
        arch::host::Reset();
        Csrs().mstatus = mie_on ? arch::kMstatusMie : 0;
        const uint32_t other = STRATA_IRQ_SOFT;  // an enabled source that must stay enabled
        MockMmio mmio;
        int checks = 0, wfis = 0;
        arch::host::SetWfiHook([&] {
          EXPECT_EQ(Csrs().mstatus & arch::kMstatusMie, 0u) << "asleep with MIE on";
          ++wfis;
        });
        // The first check (before any register access) fails; then the idiom proper.
        mmio.ExpectRead(kIrqEnable, other);
        mmio.ExpectWrite(kIrqEnable, other | source);
        for (int i = 0; i < fails; ++i) mmio.ExpectWrite(kIrqPending, source);
        mmio.ExpectWrite(kIrqPending, source);
        mmio.ExpectRead(kIrqEnable, other | source);
        mmio.ExpectWrite(kIrqEnable, other);
        irq::SleepUntil(source, [&] { return checks++ > fails; });
        EXPECT_EQ(mmio.Problems(), "") << "source " << source << " fails " << fails;
        EXPECT_EQ(wfis, fails);
        EXPECT_EQ(checks, fails + 2);
        EXPECT_EQ(Csrs().mstatus & arch::kMstatusMie, mie_on ? arch::kMstatusMie : 0u);
      }
    }
  }
}

TEST_F(ArchHostTest, SleepUntilReadyAtOnceTouchesNothing) {
  MockMmio mmio;
  arch::host::SetWfiHook([] { FAIL() << "slept"; });
  irq::SleepUntil(STRATA_IRQ_DMA, [] { return true; });
  EXPECT_TRUE(mmio.log().empty());
  EXPECT_EQ(Csrs().writes, 0u);
}

}  // namespace
}  // namespace strata
