# Machine timer interrupt (CTRL block MTIME/MTIMECMP; mip.MTIP = mtime >= mtimecmp):
#  - MTIP clear after reset and right after arming a compare value in the future;
#  - with mie.MTIE and mstatus.MIE set, the interrupt arrives once mtime reaches mtimecmp:
#    mcause 0x80000007, mip.MTIP set in the handler, mepc inside the interrupted code, the
#    handler runs with MIE = 0, MPIE = 1, MPP = 3, and mret restores MIE = 1; the handler disarms
#    the timer by writing MTIMECMP_HI/LO = 0xffffffff, after which MTIP reads 0;
#  - not taken while mstatus.MIE = 0 or mie.MTIE = 0 (MTIP still visible in mip); taken within a
#    few instructions once both are set;
#  - precise: a computation with mul/div/loads/stores interrupted many times gives the right result
#    (and the handler's own divide and multiply are right);
#  - the compare is 64 bits wide (mtime carrying into MTIME_HI);
#  - the time/timeh CSRs read mtime.
#include "isa_macros.h"

TEST_CODE_BEGIN
  SET_MTVEC(isa_irq_entry)
  IRQ_REC_RESET

  # No timer interrupt pending after reset (MTIMECMP resets to all ones).
  TEST_CASE(2, x14, 0, csrr x14, mip; andi x14, x14, MIP_MTIP)
  # Armed 500 cycles ahead: not pending yet.
  TEST_START(3)
  TIMER_ARM(500)
  mv x18, t4                          /* mtimecmp (low word) */
  csrr x14, mip
  andi x14, x14, MIP_MTIP
  CHECK_EQ(x14, 0)

  # Enable and wait: the interrupt arrives once.
  TEST_START(4)
  li x1, MIE_MTIE
  csrs mie, x1
  csrsi mstatus, MSTATUS_MIE
isa_t4_spin:
  IRQ_WAIT(1, 20000)
isa_t4_spin_end:
  csrr x15, mstatus
  csrr x16, mip
  csrci mstatus, MSTATUS_MIE
  IRQ_REC_LOAD(x14, IRQ_REC_COUNT)
  CHECK_EQ(x14, 1)
  IRQ_REC_LOAD(x14, IRQ_REC_CAUSE)
  CHECK_EQ(x14, CAUSE_M_TIMER_INTR)
  IRQ_REC_LOAD(x14, IRQ_REC_MIP)
  andi x14, x14, MIP_MTIP
  CHECK_EQ(x14, MIP_MTIP)
  # mepc inside the spin loop.
  IRQ_REC_LOAD(x14, IRQ_REC_EPC)
  la x1, isa_t4_spin
  la x2, isa_t4_spin_end
  bltu x14, x1, isa_fail
  bgeu x14, x2, isa_fail
  # The handler ran with MIE = 0, MPIE = 1, MPP = 3; mret restored MIE = 1.
  IRQ_REC_LOAD(x14, IRQ_REC_STATUS)
  li x1, MSTATUS_MPP | MSTATUS_MPIE | MSTATUS_MIE
  and x14, x14, x1
  CHECK_EQ(x14, MSTATUS_MPP | MSTATUS_MPIE)
  andi x14, x15, MSTATUS_MIE
  CHECK_EQ(x14, MSTATUS_MIE)
  # The handler disarmed the timer: MTIP reads 0.
  andi x14, x16, MIP_MTIP
  CHECK_EQ(x14, 0)
  # It did not come early: mtime at the handler >= mtimecmp, and not very late (< 2000 cycles).
  IRQ_REC_LOAD(x14, IRQ_REC_MTIME)
  sub x14, x14, x18
  li x1, 2000
  bgeu x14, x1, isa_fail

  # Not taken while mstatus.MIE = 0, though pending and enabled in mie; MTIP visible.
  TEST_START(5)
  IRQ_REC_RESET
  TIMER_EXPIRE
  li x1, MIE_MTIE
  csrs mie, x1
  SPIN(200)
  csrr x14, mip
  andi x14, x14, MIP_MTIP
  CHECK_EQ(x14, MIP_MTIP)
  IRQ_REC_LOAD(x14, IRQ_REC_COUNT)
  CHECK_EQ(x14, 0)

  # Not taken while mie.MTIE = 0, though mstatus.MIE = 1.
  TEST_START(6)
  li x1, MIE_MTIE
  csrc mie, x1
  csrsi mstatus, MSTATUS_MIE
  SPIN(200)
  csrci mstatus, MSTATUS_MIE
  IRQ_REC_LOAD(x14, IRQ_REC_COUNT)
  CHECK_EQ(x14, 0)

  # Taken within a few instructions of enabling (pending all along).
  TEST_START(7)
  li x1, MIE_MTIE
  csrs mie, x1
  li x15, 0
  csrsi mstatus, MSTATUS_MIE
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
  IRQ_REC_LOAD(x14, IRQ_REC_EPC)
  la x1, 1b
  la x2, 2b
  bltu x14, x1, isa_fail
  bgeu x14, x2, isa_fail
  csrr x14, mip
  andi x14, x14, MIP_MTIP
  CHECK_EQ(x14, 0)

  # Precise interrupts: 40 iterations of mul/div/rem/load/store work, each re-arming the timer
  # 10..46 cycles ahead so interrupts land at many different points; the result must match the
  # uninterrupted computation (acc 0xe48b4c5f, sum 0x334, x 0x99103859).
  TEST_START(8)
  IRQ_REC_RESET
  la x8, isa_t8_buf
  sw zero, 0(x8)
  li x20, 1                      /* i */
  li x21, 41
  li x22, 0x12345678             /* acc */
  li x23, 0x9e3779b9             /* x */
  li x24, 0x01000193
  li x25, 0                      /* sum of delays so far, for the re-arm distance */
  csrsi mstatus, MSTATUS_MIE
1: addi x25, x25, 7
  andi x26, x25, 31
  addi x26, x26, 10
  li t0, STRATA_CTRL_BASE
  li t1, -1
  sw t1, CTRL_REG(MTIMECMP_LO)(t0)
  sw zero, CTRL_REG(MTIMECMP_HI)(t0)
  lw t1, CTRL_REG(MTIME_LO)(t0)
  add t1, t1, x26
  sw t1, CTRL_REG(MTIMECMP_LO)(t0)
  lw x9, 0(x8)                   /* buf += i */
  add x9, x9, x20
  sw x9, 0(x8)
  mul x10, x20, x20              /* q = i*i + 3 */
  addi x10, x10, 3
  divu x11, x22, x10
  remu x12, x22, x10
  xor x22, x22, x11
  add x22, x22, x12
  mul x23, x23, x24
  add x22, x22, x23
  addi x20, x20, 1
  bne x20, x21, 1b
  csrci mstatus, MSTATUS_MIE
  TIMER_DISARM
  CHECK_EQ(x22, 0xe48b4c5f)
  lw x14, 0(x8)
  CHECK_EQ(x14, 0x334)
  CHECK_EQ(x23, 0x99103859)
  IRQ_REC_LOAD(x14, IRQ_REC_COUNT)
  beqz x14, isa_fail             /* some interrupts did happen */

  # The timer is 64 bits wide: mtimecmp = 2^32 does not fire while mtime < 2^32; once mtime
  # (set just below 2^32) carries into MTIME_HI, it does.
  TEST_START(9)
  csrw mie, zero
  li x8, STRATA_CTRL_BASE
  li x1, -1
  sw x1, STRATA_CTRL_MTIMECMP_LO(x8)
  li x1, 1
  sw x1, STRATA_CTRL_MTIMECMP_HI(x8)
  sw zero, STRATA_CTRL_MTIMECMP_LO(x8)
  lw x1, STRATA_CTRL_MTIMECMP_LO(x8)
  csrr x14, mip
  andi x14, x14, MIP_MTIP
  CHECK_EQ(x14, 0)
  li x1, 0xffffff00
  sw x1, STRATA_CTRL_MTIME_LO(x8)
  sw zero, STRATA_CTRL_MTIME_HI(x8)
  csrr x14, mip
  andi x14, x14, MIP_MTIP
  CHECK_EQ(x14, 0)
  SPIN(300)
  lw x14, STRATA_CTRL_MTIME_HI(x8)
  CHECK_EQ(x14, 1)
  csrr x14, mip
  andi x14, x14, MIP_MTIP
  CHECK_EQ(x14, MIP_MTIP)
  TIMER_DISARM
  li x8, STRATA_CTRL_BASE
  sw zero, STRATA_CTRL_MTIME_LO(x8)
  sw zero, STRATA_CTRL_MTIME_HI(x8)
  csrr x14, mip
  andi x14, x14, MIP_MTIP
  CHECK_EQ(x14, 0)

  # The time/timeh CSRs read the CTRL block's mtime: MTIME_LO then rdtime are close.
  TEST_START(10)
  li x8, STRATA_CTRL_BASE
  lw x1, STRATA_CTRL_MTIME_LO(x8)
  rdtime x2
  rdtimeh x3
  sub x14, x2, x1
  li x1, 50
  bgeu x14, x1, isa_fail
  lw x4, STRATA_CTRL_MTIME_HI(x8)
  CHECK_EQ_REG(x3, x4)

  csrw mie, zero
TEST_CODE_END
ISA_IRQ_SUPPORT

TEST_DATA_BEGIN
isa_t8_buf: .word 0
TEST_DATA_END
