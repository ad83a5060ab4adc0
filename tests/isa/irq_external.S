# External interrupt through the CTRL interrupt controller (mip.MEIP = |(IRQ_PENDING & IRQ_ENABLE)):
#  - IRQ_SET raises pending bits, IRQ_PENDING shows them and is write-1-to-clear (zeros ignored);
#  - MEIP follows PENDING & ENABLE and is visible in mip while mstatus.MIE = 0 or mie.MEIE = 0,
#    without a trap;
#  - with mie.MEIE (bit 11) and mstatus.MIE the interrupt is taken: mcause 0x8000000b, the
#    handler clears IRQ_PENDING, mret resumes; also when raised with interrupts already enabled;
#  - only enabled sources count; with both external and timer interrupts pending the external
#    one is taken first (priority MEI > MTI).
#include "isa_macros.h"

#define SOFT STRATA_IRQ_SOFT
#define MXU  STRATA_IRQ_MXU

TEST_CODE_BEGIN
  SET_MTVEC(isa_irq_entry)
  IRQ_REC_RESET

  # Reset state: nothing pending or enabled; MEIP clear.
  TEST_CASE(2, x14, 0, CTRL_READ(x14, IRQ_PENDING))
  TEST_CASE(3, x14, 0, CTRL_READ(x14, IRQ_ENABLE))
  TEST_CASE(4, x14, 0, csrr x14, mip; li x1, MIP_MEIP; and x14, x14, x1)
  # IRQ_ENABLE reads back.
  TEST_CASE(5, x14, SOFT, CTRL_WRITE(IRQ_ENABLE, SOFT); CTRL_READ(x14, IRQ_ENABLE))

  # Raised with mstatus.MIE = 0 and mie.MEIE = 1: pending and MEIP visible, no trap.
  TEST_START(6)
  li x1, MIE_MEIE
  csrs mie, x1
  CTRL_WRITE(IRQ_SET, SOFT)
  CTRL_READ(x14, IRQ_PENDING)
  CHECK_EQ(x14, SOFT)
  SPIN(50)
  csrr x14, mip
  li x1, MIP_MEIP
  and x14, x14, x1
  CHECK_EQ(x14, MIP_MEIP)
  IRQ_REC_LOAD(x14, IRQ_REC_COUNT)
  CHECK_EQ(x14, 0)

  # rw1c: writing 0 and writing 1 to a bit that is not pending change nothing.
  TEST_CASE(7, x14, SOFT, CTRL_WRITE(IRQ_PENDING, 0); CTRL_READ(x14, IRQ_PENDING))
  TEST_CASE(8, x14, SOFT, CTRL_WRITE(IRQ_PENDING, STRATA_IRQ_DOORBELL); CTRL_READ(x14, IRQ_PENDING))
  # Writing 1 clears: PENDING and MEIP drop.
  TEST_CASE(9, x14, 0, CTRL_WRITE(IRQ_PENDING, SOFT); CTRL_READ(x14, IRQ_PENDING))
  TEST_CASE(10, x14, 0, csrr x14, mip; li x1, MIP_MEIP; and x14, x14, x1)

  # Only enabled sources drive MEIP: pending but not enabled gives MEIP = 0.
  TEST_START(11)
  CTRL_WRITE(IRQ_SET, SOFT)
  CTRL_WRITE(IRQ_ENABLE, 0)
  csrr x14, mip
  li x1, MIP_MEIP
  and x14, x14, x1
  CHECK_EQ(x14, 0)
  CTRL_READ(x14, IRQ_PENDING)
  CHECK_EQ(x14, SOFT)
  CTRL_WRITE(IRQ_ENABLE, SOFT)
  csrr x14, mip
  li x1, MIP_MEIP
  and x14, x14, x1
  CHECK_EQ(x14, MIP_MEIP)

  # mstatus.MIE = 1 but mie.MEIE = 0: no trap.
  TEST_START(12)
  li x1, MIE_MEIE
  csrc mie, x1
  csrsi mstatus, MSTATUS_MIE
  SPIN(50)
  IRQ_REC_LOAD(x14, IRQ_REC_COUNT)
  CHECK_EQ(x14, 0)

  # Setting mie.MEIE with MIE = 1 and the source pending: taken within a few instructions.
  TEST_START(13)
  li x15, 0
  li x1, MIE_MEIE
  csrs mie, x1
1: addi x15, x15, 1
  addi x15, x15, 1
  addi x15, x15, 1
  addi x15, x15, 1
  addi x15, x15, 1
  addi x15, x15, 1
  addi x15, x15, 1
  addi x15, x15, 1
2: csrr x16, mstatus
  csrci mstatus, MSTATUS_MIE
  CHECK_EQ(x15, 8)
  IRQ_REC_LOAD(x14, IRQ_REC_COUNT)
  CHECK_EQ(x14, 1)
  IRQ_REC_LOAD(x14, IRQ_REC_CAUSE)
  CHECK_EQ(x14, CAUSE_M_EXT_INTR)
  IRQ_REC_LOAD(x14, IRQ_REC_EPC)
  la x1, 1b
  la x2, 2b
  bltu x14, x1, isa_fail
  bgeu x14, x2, isa_fail
  IRQ_REC_LOAD(x14, IRQ_REC_MIP)
  li x1, MIP_MEIP
  and x14, x14, x1
  CHECK_EQ(x14, MIP_MEIP)
  IRQ_REC_LOAD(x14, IRQ_REC_PENDING)
  CHECK_EQ(x14, SOFT)
  # The handler cleared the source; mret restored MIE.
  CTRL_READ(x14, IRQ_PENDING)
  CHECK_EQ(x14, 0)
  andi x14, x16, MSTATUS_MIE
  CHECK_EQ(x14, MSTATUS_MIE)
  csrr x14, mip
  li x1, MIP_MEIP
  and x14, x14, x1
  CHECK_EQ(x14, 0)

  # Raised while everything is enabled: taken right after the IRQ_SET store.
  TEST_START(14)
  IRQ_REC_RESET
  csrsi mstatus, MSTATUS_MIE
  li x8, STRATA_CTRL_BASE
  li x9, SOFT
  li x15, 0
  sw x9, STRATA_CTRL_IRQ_SET(x8)
1: addi x15, x15, 1
  addi x15, x15, 1
  addi x15, x15, 1
  addi x15, x15, 1
  addi x15, x15, 1
  addi x15, x15, 1
  addi x15, x15, 1
  addi x15, x15, 1
2: csrci mstatus, MSTATUS_MIE
  CHECK_EQ(x15, 8)
  IRQ_REC_LOAD(x14, IRQ_REC_COUNT)
  CHECK_EQ(x14, 1)
  IRQ_REC_LOAD(x14, IRQ_REC_CAUSE)
  CHECK_EQ(x14, CAUSE_M_EXT_INTR)
  IRQ_REC_LOAD(x14, IRQ_REC_EPC)
  la x1, 1b
  la x2, 2b
  bltu x14, x1, isa_fail
  bgeu x14, x2, isa_fail

  # Several sources pending, one enabled: the handler clears the enabled one; the other stays
  # pending but cannot interrupt.
  TEST_START(15)
  IRQ_REC_RESET
  CTRL_WRITE(IRQ_SET, SOFT | MXU)
  CTRL_READ(x14, IRQ_PENDING)
  CHECK_EQ(x14, SOFT | MXU)
  csrsi mstatus, MSTATUS_MIE
  SPIN(50)
  csrci mstatus, MSTATUS_MIE
  IRQ_REC_LOAD(x14, IRQ_REC_COUNT)
  CHECK_EQ(x14, 1)
  CTRL_READ(x14, IRQ_PENDING)
  CHECK_EQ(x14, MXU)
  csrr x14, mip
  li x1, MIP_MEIP
  and x14, x14, x1
  CHECK_EQ(x14, 0)
  CTRL_WRITE(IRQ_PENDING, MXU)
  CTRL_READ(x14, IRQ_PENDING)
  CHECK_EQ(x14, 0)

  # Priority: external and timer both pending when MIE is set: the external interrupt first.
  TEST_START(16)
  IRQ_REC_RESET
  li x1, MIE_MEIE | MIE_MTIE
  csrs mie, x1
  CTRL_WRITE(IRQ_SET, SOFT)
  TIMER_EXPIRE
  csrr x14, mip
  li x1, MIP_MEIP | MIP_MTIP
  and x14, x14, x1
  CHECK_EQ(x14, MIP_MEIP | MIP_MTIP)
  csrsi mstatus, MSTATUS_MIE
  IRQ_WAIT(2, 1000)
  csrci mstatus, MSTATUS_MIE
  IRQ_REC_LOAD(x14, IRQ_REC_COUNT)
  CHECK_EQ(x14, 2)
  IRQ_REC_LOAD(x14, IRQ_REC_LOG)
  CHECK_EQ(x14, CAUSE_M_EXT_INTR)
  IRQ_REC_LOAD(x14, IRQ_REC_LOG + 4)
  CHECK_EQ(x14, CAUSE_M_TIMER_INTR)

  csrw mie, zero
  CTRL_WRITE(IRQ_ENABLE, 0)
TEST_CODE_END
ISA_IRQ_SUPPORT
