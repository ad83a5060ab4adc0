# Misaligned accesses (the core has no misaligned support and no C extension):
#  - lw/lh/lhu/sw/sh at misaligned addresses trap: mcause 4 (load) / 6 (store), mtval = the
#    address, mepc = the access; the load's rd is not written and its dependants do not run; the
#    store writes nothing. The address may be misaligned through the base or the offset.
#  - lb/sb at any address and lh/sh at 2 mod 4 do not trap.
#  - a taken jump or branch to a target with bit 1 set traps: mcause 0, mtval = the target,
#    mepc = the jump/branch, and the link register is not written. A not-taken branch with such
#    a target does not trap.
#include "isa_macros.h"

#define SENTINEL 0x5a5a5a5a

/* A load at isa_mis_data + off (off = base misalignment + imm) must trap. */
#define TEST_MIS_LOAD(testnum, inst, boff, imm) \
  TEST_START(testnum) \
  la x1, isa_mis_data + (boff); \
  li x14, SENTINEL; \
  li x15, 0; \
  TRAP_EXPECT(86f); \
85: inst x14, imm(x1); \
  addi x15, x14, 1; \
  j isa_fail; \
86: \
  CHECK_EQ(x14, SENTINEL) \
  CHECK_EQ(x15, 0) \
  CHECK_TRAP_COUNT(1) \
  CHECK_TRAP_CAUSE(CAUSE_MISALIGNED_LOAD) \
  CHECK_TRAP_EPC(85b) \
  CHECK_TRAP_TVAL_ADDR(isa_mis_data + (boff) + (imm))

/* A store at isa_mis_buf + off must trap and leave both words of the buffer unchanged. */
#define TEST_MIS_STORE(testnum, inst, boff, imm) \
  TEST_START(testnum) \
  la x1, isa_mis_buf; \
  li x2, 0x11111111; sw x2, 0(x1); \
  li x2, 0x22222222; sw x2, 4(x1); \
  la x1, isa_mis_buf + (boff); \
  li x2, -1; \
  TRAP_EXPECT(86f); \
85: inst x2, imm(x1); \
  j isa_fail; \
86: \
  CHECK_TRAP_COUNT(1) \
  CHECK_TRAP_CAUSE(CAUSE_MISALIGNED_STORE) \
  CHECK_TRAP_EPC(85b) \
  CHECK_TRAP_TVAL_ADDR(isa_mis_buf + (boff) + (imm)) \
  la x1, isa_mis_buf; \
  lw x14, 0(x1); \
  CHECK_EQ(x14, 0x11111111) \
  lw x14, 4(x1); \
  CHECK_EQ(x14, 0x22222222)

TEST_CODE_BEGIN
  # Loads.
  TEST_MIS_LOAD(2, lw, 1, 0)
  TEST_MIS_LOAD(3, lw, 2, 0)
  TEST_MIS_LOAD(4, lw, 3, 0)
  TEST_MIS_LOAD(5, lw, 0, 1)
  TEST_MIS_LOAD(6, lw, 0, 6)
  TEST_MIS_LOAD(7, lw, 4, -1)
  TEST_MIS_LOAD(8, lw, 2, 4)
  TEST_MIS_LOAD(9, lh, 1, 0)
  TEST_MIS_LOAD(10, lh, 3, 0)
  TEST_MIS_LOAD(11, lh, 0, 5)
  TEST_MIS_LOAD(12, lhu, 1, 0)
  TEST_MIS_LOAD(13, lhu, 0, 7)
  TEST_MIS_LOAD(14, lhu, 2, 1)

  # Stores.
  TEST_MIS_STORE(20, sw, 1, 0)
  TEST_MIS_STORE(21, sw, 2, 0)
  TEST_MIS_STORE(22, sw, 3, 0)
  TEST_MIS_STORE(23, sw, 0, 1)
  TEST_MIS_STORE(24, sw, 4, -2)
  TEST_MIS_STORE(25, sh, 1, 0)
  TEST_MIS_STORE(26, sh, 3, 0)
  TEST_MIS_STORE(27, sh, 0, 5)
  TEST_MIS_STORE(28, sh, 2, 1)

  # Aligned narrow accesses at every legal offset do not trap.
  TEST_START(30)
  TRAP_EXPECT(isa_fail)
  la x1, isa_mis_data
  lb x14, 1(x1)
  lbu x14, 3(x1)
  lh x14, 2(x1)
  lhu x14, 6(x1)
  la x1, isa_mis_buf
  sb x0, 1(x1)
  sb x0, 3(x1)
  sh x0, 2(x1)
  sh x0, 6(x1)
  CHECK_NO_TRAP

  # jalr: bit 1 of the target set (rs1 + imm; bit 0 is cleared first). No link written.
  TEST_START(40)
  li x15, SENTINEL
  la x1, 2f
  TRAP_EXPECT(86f)
85: jalr x15, 2(x1)
  j isa_fail
2: j isa_fail
  j isa_fail
86: CHECK_EQ(x15, SENTINEL)
  CHECK_TRAP_COUNT(1)
  CHECK_TRAP_CAUSE(CAUSE_MISALIGNED_FETCH)
  CHECK_TRAP_EPC(85b)
  CHECK_TRAP_TVAL_ADDR(2b + 2)

  TEST_START(41)
  li x15, SENTINEL
  la x1, 2f + 3
  TRAP_EXPECT(86f)
85: jalr x15, 0(x1)
  j isa_fail
2: j isa_fail
  j isa_fail
86: CHECK_EQ(x15, SENTINEL)
  CHECK_TRAP_COUNT(1)
  CHECK_TRAP_CAUSE(CAUSE_MISALIGNED_FETCH)
  CHECK_TRAP_EPC(85b)
  CHECK_TRAP_TVAL_ADDR(2b + 2)

  # jalr with rd == rs1: rs1 keeps its value.
  TEST_START(42)
  la x1, 2f + 2
  mv x15, x1
  TRAP_EXPECT(86f)
85: jalr x1, 0(x1)
  j isa_fail
2: j isa_fail
  j isa_fail
86: CHECK_EQ_REG(x1, x15)
  CHECK_TRAP_COUNT(1)
  CHECK_TRAP_CAUSE(CAUSE_MISALIGNED_FETCH)
  CHECK_TRAP_EPC(85b)

  # jal to a target 2 mod 4, forward and backward.
  TEST_START(43)
  li x15, SENTINEL
  TRAP_EXPECT(86f)
85: jal x15, 2f + 2
  j isa_fail
2: j isa_fail
  j isa_fail
86: CHECK_EQ(x15, SENTINEL)
  CHECK_TRAP_COUNT(1)
  CHECK_TRAP_CAUSE(CAUSE_MISALIGNED_FETCH)
  CHECK_TRAP_EPC(85b)
  CHECK_TRAP_TVAL_ADDR(2b + 2)

  TEST_START(44)
  li x15, SENTINEL
  j 3f
2: j isa_fail
  j isa_fail
3: TRAP_EXPECT(86f)
85: jal x15, 2b + 2
  j isa_fail
86: CHECK_EQ(x15, SENTINEL)
  CHECK_TRAP_COUNT(1)
  CHECK_TRAP_CAUSE(CAUSE_MISALIGNED_FETCH)
  CHECK_TRAP_EPC(85b)
  CHECK_TRAP_TVAL_ADDR(2b + 2)

  # A taken branch to a target 2 mod 4 traps (forward and backward).
  TEST_START(45)
  li x1, 3
  TRAP_EXPECT(86f)
85: beq x1, x1, 2f + 2
  j isa_fail
2: j isa_fail
  j isa_fail
86: CHECK_TRAP_COUNT(1)
  CHECK_TRAP_CAUSE(CAUSE_MISALIGNED_FETCH)
  CHECK_TRAP_EPC(85b)
  CHECK_TRAP_TVAL_ADDR(2b + 2)

  TEST_START(46)
  li x1, 3
  li x2, 4
  j 3f
2: j isa_fail
  j isa_fail
3: TRAP_EXPECT(86f)
85: bltu x1, x2, 2b + 2
  j isa_fail
86: CHECK_TRAP_COUNT(1)
  CHECK_TRAP_CAUSE(CAUSE_MISALIGNED_FETCH)
  CHECK_TRAP_EPC(85b)
  CHECK_TRAP_TVAL_ADDR(2b + 2)

  # Not-taken branches to a target 2 mod 4 do not trap.
  TEST_START(47)
  li x1, 3
  li x2, 4
  TRAP_EXPECT(isa_fail)
  bne x1, x1, 2f + 2
  beq x1, x2, 2f + 2
  bge x1, x2, 2f + 2
  bltu x2, x1, 2f + 2
  j 3f
2: j isa_fail
  j isa_fail
3: CHECK_NO_TRAP

  # Backward (so possibly predicted taken) but not taken, to a target 2 mod 4: no trap.
  TEST_START(49)
  li x1, 3
  j 3f
2: j isa_fail
  j isa_fail
3: TRAP_EXPECT(isa_fail)
  beq x1, x0, 2b + 2
  bne x1, x1, 2b + 2
  blt x1, x1, 2b + 2
  CHECK_NO_TRAP

  # A misaligned load or jump on a squashed path does not trap.
  TEST_START(48)
  la x1, isa_mis_data
  la x2, 2f + 2
  TRAP_EXPECT(isa_fail)
  j 1f
  lw x14, 1(x1)
  jalr x0, 0(x2)
1: beq x0, x0, 3f
  sw x0, 2(x1)
  j 2f + 2
2: j isa_fail
  j isa_fail
3: CHECK_NO_TRAP
TEST_CODE_END

TEST_DATA_BEGIN
  .balign 16
isa_mis_data: .word 0x03020100, 0x07060504, 0x0b0a0908, 0x0f0e0d0c
isa_mis_buf: .word 0, 0, 0, 0
TEST_DATA_END
