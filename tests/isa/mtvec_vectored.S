# mtvec vectored mode (MODE = 1): exceptions go to BASE, an interrupt with cause c goes to
# BASE + 4*c (machine timer: BASE + 28, machine external: BASE + 44). mtvec reads back with its
# mode bits. Back in direct mode (MODE = 0) everything goes to BASE.
#include "isa_macros.h"

/* Vector table entries: record the entry number, then the common part. */
#define VEC_ENTRY(n) \
  csrw mscratch, t0; \
  li t0, n; \
  j isa_vec_common

TEST_CODE_BEGIN
  IRQ_REC_RESET
  CTRL_WRITE(IRQ_ENABLE, STRATA_IRQ_SOFT)

  # mtvec holds BASE | 1.
  TEST_START(2)
  la x1, isa_vec_table
  ori x1, x1, 1
  csrw mtvec, x1
  csrr x14, mtvec
  CHECK_EQ_REG(x14, x1)

  # Exceptions go to BASE (entry 0) in vectored mode: ecall, illegal instruction.
  TEST_START(3)
  IRQ_REC_RESET
85: ecall
  IRQ_REC_LOAD(x14, IRQ_REC_COUNT)
  CHECK_EQ(x14, 1)
  IRQ_REC_LOAD(x14, IRQ_REC_LOG)        /* entry number */
  CHECK_EQ(x14, 0)
  IRQ_REC_LOAD(x14, IRQ_REC_CAUSE)
  CHECK_EQ(x14, CAUSE_ECALL_M)
  IRQ_REC_LOAD(x14, IRQ_REC_EPC)
  CHECK_EQ_ADDR(x14, 85b)

  TEST_START(4)
  IRQ_REC_RESET
  .word 0
  IRQ_REC_LOAD(x14, IRQ_REC_LOG)
  CHECK_EQ(x14, 0)
  IRQ_REC_LOAD(x14, IRQ_REC_CAUSE)
  CHECK_EQ(x14, CAUSE_ILLEGAL_INSN)

  # The machine timer interrupt goes to BASE + 28 (entry 7).
  TEST_START(5)
  IRQ_REC_RESET
  li x1, MIE_MTIE
  csrs mie, x1
  TIMER_EXPIRE
  csrsi mstatus, MSTATUS_MIE
  IRQ_WAIT(1, 1000)
  csrci mstatus, MSTATUS_MIE
  IRQ_REC_LOAD(x14, IRQ_REC_COUNT)
  CHECK_EQ(x14, 1)
  IRQ_REC_LOAD(x14, IRQ_REC_LOG)
  CHECK_EQ(x14, 7)
  IRQ_REC_LOAD(x14, IRQ_REC_CAUSE)
  CHECK_EQ(x14, CAUSE_M_TIMER_INTR)
  li x1, MIE_MTIE
  csrc mie, x1

  # The machine external interrupt goes to BASE + 44 (entry 11).
  TEST_START(6)
  IRQ_REC_RESET
  li x1, MIE_MEIE
  csrs mie, x1
  CTRL_WRITE(IRQ_SET, STRATA_IRQ_SOFT)
  csrsi mstatus, MSTATUS_MIE
  IRQ_WAIT(1, 1000)
  csrci mstatus, MSTATUS_MIE
  IRQ_REC_LOAD(x14, IRQ_REC_COUNT)
  CHECK_EQ(x14, 1)
  IRQ_REC_LOAD(x14, IRQ_REC_LOG)
  CHECK_EQ(x14, 11)
  IRQ_REC_LOAD(x14, IRQ_REC_CAUSE)
  CHECK_EQ(x14, CAUSE_M_EXT_INTR)
  li x1, MIE_MEIE
  csrc mie, x1

  # Direct mode with the same base: the timer interrupt now goes to BASE (entry 0).
  TEST_START(7)
  la x1, isa_vec_table
  csrw mtvec, x1
  csrr x14, mtvec
  CHECK_EQ_REG(x14, x1)
  IRQ_REC_RESET
  li x1, MIE_MTIE
  csrs mie, x1
  TIMER_EXPIRE
  csrsi mstatus, MSTATUS_MIE
  IRQ_WAIT(1, 1000)
  csrci mstatus, MSTATUS_MIE
  IRQ_REC_LOAD(x14, IRQ_REC_LOG)
  CHECK_EQ(x14, 0)
  IRQ_REC_LOAD(x14, IRQ_REC_CAUSE)
  CHECK_EQ(x14, CAUSE_M_TIMER_INTR)

  csrw mie, zero
  CTRL_WRITE(IRQ_ENABLE, 0)
  SET_MTVEC(isa_trap_entry)
  j isa_vec_done

  # The table: 16 entries of 4 bytes, BASE aligned to 256 bytes. Each entry is one jump.
  .balign 256
isa_vec_table:
  j isa_vec_0
  j isa_vec_1
  j isa_vec_2
  j isa_vec_3
  j isa_vec_4
  j isa_vec_5
  j isa_vec_6
  j isa_vec_7
  j isa_vec_8
  j isa_vec_9
  j isa_vec_10
  j isa_vec_11
  j isa_vec_12
  j isa_vec_13
  j isa_vec_14
  j isa_vec_15
isa_vec_0:  VEC_ENTRY(0)
isa_vec_1:  VEC_ENTRY(1)
isa_vec_2:  VEC_ENTRY(2)
isa_vec_3:  VEC_ENTRY(3)
isa_vec_4:  VEC_ENTRY(4)
isa_vec_5:  VEC_ENTRY(5)
isa_vec_6:  VEC_ENTRY(6)
isa_vec_7:  VEC_ENTRY(7)
isa_vec_8:  VEC_ENTRY(8)
isa_vec_9:  VEC_ENTRY(9)
isa_vec_10: VEC_ENTRY(10)
isa_vec_11: VEC_ENTRY(11)
isa_vec_12: VEC_ENTRY(12)
isa_vec_13: VEC_ENTRY(13)
isa_vec_14: VEC_ENTRY(14)
isa_vec_15: VEC_ENTRY(15)

  /* t0 = entry number (original t0 in mscratch). Records entry (in the log slot of this trap),
   * cause and epc; exceptions resume at mepc + 4; the timer is disarmed, IRQ_PENDING cleared. */
isa_vec_common:
  la tp, isa_irq_rec
  sw t1, IRQ_REC_SAVE(tp)
  lw t1, IRQ_REC_COUNT(tp)
  slli t1, t1, 2
  andi t1, t1, 12
  add t1, t1, tp
  sw t0, IRQ_REC_LOG(t1)
  lw t1, IRQ_REC_COUNT(tp)
  addi t1, t1, 1
  sw t1, IRQ_REC_COUNT(tp)
  li t0, 64
  bgeu t1, t0, isa_fail
  csrr t1, mcause
  sw t1, IRQ_REC_CAUSE(tp)
  csrr t1, mepc
  sw t1, IRQ_REC_EPC(tp)
  csrr t1, mcause
  bltz t1, 1f
  csrr t1, mepc                  /* exception: skip the instruction */
  addi t1, t1, 4
  csrw mepc, t1
  j 2f
1: li t0, STRATA_CTRL_BASE       /* interrupt: silence both sources */
  li t1, -1
  sw t1, STRATA_CTRL_MTIMECMP_HI(t0)
  sw t1, STRATA_CTRL_MTIMECMP_LO(t0)
  li t1, STRATA_IRQ_SOFT
  sw t1, STRATA_CTRL_IRQ_PENDING(t0)
  lw t1, STRATA_CTRL_IRQ_PENDING(t0)
2: la tp, isa_irq_rec
  lw t1, IRQ_REC_SAVE(tp)
  csrr t0, mscratch
  mret

isa_vec_done:
TEST_CODE_END
ISA_IRQ_SUPPORT
