# wfi: waits until (mip & mie) != 0, whatever mstatus.MIE says.
#  - with mstatus.MIE = 0 and mie.MTIE = 1, a timer armed in the future wakes the hart: execution
#    continues at the next instruction without a trap, after mtime has reached mtimecmp;
#  - with an interrupt already pending and enabled in mie it does not wait;
#  - an external interrupt (IRQ_SET, MEIE) wakes it too;
#  - with mstatus.MIE = 1 the interrupt is taken and mepc = the instruction after the wfi;
#  - a wfi on a squashed path does not wait.
#include "isa_macros.h"

TEST_CODE_BEGIN
  SET_MTVEC(isa_irq_entry)
  IRQ_REC_RESET

  # Woken by the timer with MIE = 0: no trap, continues after the wfi, mtime >= mtimecmp.
  TEST_START(2)
  li x1, MIE_MTIE
  csrs mie, x1
  csrci mstatus, MSTATUS_MIE
  TIMER_ARM(400)
  mv x18, t4                     /* mtimecmp (low word) */
  li x15, 0
  wfi
  addi x15, x15, 1
  MTIME_READ(x16)
  csrr x17, mip
  CHECK_EQ(x15, 1)
  IRQ_REC_LOAD(x14, IRQ_REC_COUNT)
  CHECK_EQ(x14, 0)
  andi x14, x17, MIP_MTIP
  CHECK_EQ(x14, MIP_MTIP)
  sub x14, x16, x18              /* it waited: mtime - mtimecmp is small and non-negative */
  li x1, 2000
  bgeu x14, x1, isa_fail

  # Already pending (the timer is still expired): no wait.
  TEST_START(3)
  MTIME_READ(x16)
  wfi
  wfi
  MTIME_READ(x17)
  sub x14, x17, x16
  li x1, 200
  bgeu x14, x1, isa_fail
  TIMER_DISARM
  li x1, MIE_MTIE
  csrc mie, x1

  # Woken by a pending external interrupt.
  TEST_START(4)
  li x1, MIE_MEIE
  csrs mie, x1
  CTRL_WRITE(IRQ_ENABLE, STRATA_IRQ_SOFT)
  CTRL_WRITE(IRQ_SET, STRATA_IRQ_SOFT)
  wfi
  csrr x14, mip
  li x1, MIP_MEIP
  and x14, x14, x1
  CHECK_EQ(x14, MIP_MEIP)
  IRQ_REC_LOAD(x14, IRQ_REC_COUNT)
  CHECK_EQ(x14, 0)
  CTRL_WRITE(IRQ_PENDING, STRATA_IRQ_SOFT)
  li x1, MIE_MEIE
  csrc mie, x1

  # With MIE = 1: the interrupt is taken out of the wfi, with mepc = the next instruction.
  TEST_START(5)
  IRQ_REC_RESET
  li x1, MIE_MTIE
  csrs mie, x1
  TIMER_ARM(300)
  li x15, 0
  csrsi mstatus, MSTATUS_MIE
1: wfi
2: addi x15, x15, 1
  csrci mstatus, MSTATUS_MIE
  CHECK_EQ(x15, 1)
  IRQ_REC_LOAD(x14, IRQ_REC_COUNT)
  CHECK_EQ(x14, 1)
  IRQ_REC_LOAD(x14, IRQ_REC_CAUSE)
  CHECK_EQ(x14, CAUSE_M_TIMER_INTR)
  IRQ_REC_LOAD(x14, IRQ_REC_EPC)
  CHECK_EQ_ADDR(x14, 2b)

  # A wfi on a squashed path does not wait (a timer 3000 cycles ahead bounds a wrong wait).
  TEST_START(6)
  IRQ_REC_RESET
  li x1, MIE_MTIE
  csrs mie, x1
  TIMER_ARM(3000)
  mv x18, t4
  j 1f
  wfi
1: beq x0, x0, 2f
  wfi
2: MTIME_READ(x16)
  TIMER_DISARM
  sub x14, x16, x18              /* mtime - mtimecmp must still be negative */
  bgez x14, isa_fail
  IRQ_REC_LOAD(x14, IRQ_REC_COUNT)
  CHECK_EQ(x14, 0)

  csrw mie, zero
  CTRL_WRITE(IRQ_ENABLE, 0)
TEST_CODE_END
ISA_IRQ_SUPPORT
