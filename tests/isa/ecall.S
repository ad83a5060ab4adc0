# ecall: mcause 11 (environment call from M-mode), mepc = the ecall, mtval = 0; the handler adds 4
# to mepc and mret resumes after the ecall. Trap entry sets MPIE = old MIE, MIE = 0, MPP = 3;
# mret sets MIE = MPIE, MPIE = 1, and jumps to mepc (also outside a trap). Precise: what comes
# before completes, what comes after (in the pipeline shadow) does not run. No trap on a squashed
# path. Registers are preserved.
#include "isa_macros.h"

TEST_CODE_BEGIN
  # Trap and return to mepc + 4: the next instruction runs exactly once.
  TEST_START(2)
  li x15, 0
  li x1, -1
  csrw mtval, x1
  TRAP_EXPECT_SKIP
85: ecall
  addi x15, x15, 1
  CHECK_EQ(x15, 1)
  CHECK_TRAP_COUNT(1)
  CHECK_TRAP_CAUSE(CAUSE_ECALL_M)
  CHECK_TRAP_EPC(85b)
  CHECK_TRAP_TVAL(0)
  csrr x14, mcause
  CHECK_EQ(x14, CAUSE_ECALL_M)
  csrr x14, mepc
  CHECK_EQ_ADDR(x14, 85b + 4)

  # Precise: a store before the ecall is done, instructions and a store after it are not.
  TEST_START(3)
  la x8, isa_ecall_data
  sw x0, 0(x8)
  sw x0, 4(x8)
  li x9, 0x11
  li x15, 0
  TRAP_EXPECT(86f)
  sw x9, 0(x8)
85: ecall
  addi x15, x15, 1
  sw x9, 4(x8)
  addi x15, x15, 2
86: CHECK_TRAP_COUNT(1)
  CHECK_TRAP_EPC(85b)
  CHECK_EQ(x15, 0)
  lw x14, 0(x8)
  CHECK_EQ(x14, 0x11)
  lw x14, 4(x8)
  CHECK_EQ(x14, 0)

  # MIE = 1, MPIE = 0 before: the handler sees MIE = 0, MPIE = 1, MPP = 3; after mret MIE = 1, MPIE = 1.
  # (mie = 0, so no interrupt can be taken meanwhile.)
  TEST_START(4)
  csrw mie, x0
  li x1, MSTATUS_MPIE
  csrc mstatus, x1
  csrsi mstatus, MSTATUS_MIE
  TRAP_EXPECT_SKIP
  ecall
  csrr x15, mstatus
  csrci mstatus, MSTATUS_MIE
  CHECK_TRAP_COUNT(1)
  TRAP_REC_LOAD(x14, TRAP_REC_STATUS)
  li x1, MSTATUS_MPP | MSTATUS_MPIE | MSTATUS_MIE
  and x14, x14, x1
  CHECK_EQ(x14, MSTATUS_MPP | MSTATUS_MPIE)
  and x14, x15, x1
  CHECK_EQ(x14, MSTATUS_MPP | MSTATUS_MPIE | MSTATUS_MIE)

  # MIE = 0, MPIE = 1 before: the handler sees MIE = 0, MPIE = 0; after mret MIE = 0, MPIE = 1.
  TEST_START(5)
  li x1, MSTATUS_MPIE
  csrs mstatus, x1
  csrci mstatus, MSTATUS_MIE
  TRAP_EXPECT_SKIP
  ecall
  csrr x15, mstatus
  CHECK_TRAP_COUNT(1)
  TRAP_REC_LOAD(x14, TRAP_REC_STATUS)
  li x1, MSTATUS_MPP | MSTATUS_MPIE | MSTATUS_MIE
  and x14, x14, x1
  CHECK_EQ(x14, MSTATUS_MPP)
  and x14, x15, x1
  CHECK_EQ(x14, MSTATUS_MPP | MSTATUS_MPIE)

  # mret outside a trap: jumps to mepc, MIE = MPIE, MPIE = 1; its shadow does not run.
  TEST_START(6)
  li x15, 0
  la x1, 1f
  csrw mepc, x1
  li x1, MSTATUS_MPIE
  csrc mstatus, x1
  csrci mstatus, MSTATUS_MIE
  mret
  addi x15, x15, 1
  addi x15, x15, 2
  j isa_fail
1: csrr x14, mstatus
  li x1, MSTATUS_MPIE | MSTATUS_MIE
  and x14, x14, x1
  CHECK_EQ(x14, MSTATUS_MPIE)
  CHECK_EQ(x15, 0)

  TEST_START(7)
  csrw mie, x0
  la x1, 1f
  csrw mepc, x1
  li x1, MSTATUS_MPIE
  csrs mstatus, x1
  mret
  j isa_fail
1: csrr x14, mstatus
  csrci mstatus, MSTATUS_MIE
  li x1, MSTATUS_MPIE | MSTATUS_MIE
  and x14, x14, x1
  CHECK_EQ(x14, MSTATUS_MPIE | MSTATUS_MIE)

  # mret right after a csrw mepc uses the new mepc.
  TEST_START(8)
  la x1, 1f
  csrw mepc, x1
  mret
  j isa_fail
1: nop

  # Two ecalls back to back.
  TEST_START(9)
  li x15, 0
  TRAP_EXPECT_SKIP
  ecall
  TRAP_EXPECT_SKIP
85: ecall
  addi x15, x15, 1
  CHECK_EQ(x15, 1)
  CHECK_TRAP_COUNT(1)
  CHECK_TRAP_EPC(85b)

  # Registers survive the trap (the handler only clobbers tp).
  TEST_START(10)
  li x15, 0x15151515
  li x16, 0x16161616
  li x31, 0x31313131
  li x10, 0x10101010
  TRAP_EXPECT_SKIP
  ecall
  li x14, 0x31313131
  bne x31, x14, isa_fail       /* first: CHECK_EQ uses x31 */
  CHECK_EQ(x10, 0x10101010)
  CHECK_EQ(x15, 0x15151515)
  CHECK_EQ(x16, 0x16161616)

  # An ecall on a squashed path does not trap.
  TEST_START(11)
  TRAP_EXPECT(isa_fail)
  j 1f
  ecall
1: beq x0, x0, 2f
  ecall
2: CHECK_NO_TRAP
TEST_CODE_END

TEST_DATA_BEGIN
isa_ecall_data: .word 0, 0
TEST_DATA_END
