# Misaligned accesses (no C extension; misaligned data accesses to SMEM are done in hardware):
#  - lw/lh/lhu/sw/sh at any SMEM address work, including accesses that cross a word boundary
#    (loads sign/zero-extend across it; stores write exactly their bytes); a dependant reads
#    the result at once.
#  - a misaligned access to MMIO traps: mcause 4 (load) / 6 (store), mtval = the address,
#    mepc = the access; the load's rd is not written and the store writes nothing.
#  - a taken jump or branch to a target with bit 1 set traps: mcause 0, mtval = the target,
#    mepc = the jump/branch, and the link register is not written. A not-taken branch with such
#    a target does not trap.
#include "isa_macros.h"

#define SENTINEL 0x5a5a5a5a

/* A load at isa_mis_data + off returns the little-endian bytes there (byte i is i * 0x11). */
#define TEST_MA_LOAD(testnum, inst, off, expected) \
  TEST_START(testnum) \
  TRAP_EXPECT(isa_fail); \
  la x1, isa_mis_data; \
  inst x14, off(x1); \
  addi x15, x14, 0; \
  CHECK_EQ(x14, expected) \
  CHECK_EQ(x15, expected) \
  CHECK_NO_TRAP

/* A store at isa_mis_buf + off writes only its bytes into the two words there. */
#define TEST_MA_STORE(testnum, inst, off, w0, w1) \
  TEST_START(testnum) \
  TRAP_EXPECT(isa_fail); \
  la x1, isa_mis_buf; \
  li x2, 0x11111111; sw x2, 0(x1); \
  li x2, 0x22222222; sw x2, 4(x1); \
  li x2, 0xaabbccdd; \
  inst x2, off(x1); \
  lw x14, 0(x1); \
  CHECK_EQ(x14, w0) \
  lw x14, 4(x1); \
  CHECK_EQ(x14, w1) \
  CHECK_NO_TRAP

/* A misaligned load from the CTRL registers traps. */
#define TEST_MMIO_MIS_LOAD(testnum, inst, off) \
  TEST_START(testnum) \
  li x1, STRATA_CTRL_BASE; \
  li x14, SENTINEL; \
  TRAP_EXPECT(86f); \
85: inst x14, off(x1); \
  j isa_fail; \
86: \
  CHECK_EQ(x14, SENTINEL) \
  CHECK_TRAP_COUNT(1) \
  CHECK_TRAP_CAUSE(CAUSE_MISALIGNED_LOAD) \
  CHECK_TRAP_EPC(85b) \
  CHECK_TRAP_TVAL_ADDR(STRATA_CTRL_BASE + (off))

TEST_CODE_BEGIN
  # Loads within a word and across word boundaries.
  TEST_MA_LOAD(2, lw, 1, 0x44332211)
  TEST_MA_LOAD(3, lw, 2, 0x55443322)
  TEST_MA_LOAD(4, lw, 3, 0x66554433)
  TEST_MA_LOAD(5, lw, 5, 0x88776655)
  TEST_MA_LOAD(6, lw, 6, 0x99887766)
  TEST_MA_LOAD(7, lw, 7, 0xaa998877)
  TEST_MA_LOAD(8, lh, 1, 0x00002211)
  TEST_MA_LOAD(9, lh, 3, 0x00004433)
  TEST_MA_LOAD(10, lh, 7, 0xffff8877)
  TEST_MA_LOAD(11, lhu, 7, 0x00008877)
  TEST_MA_LOAD(12, lh, 5, 0x00006655)
  TEST_MA_LOAD(13, lhu, 13, 0x0000eedd)
  TEST_MA_LOAD(14, lh, 11, 0xffffccbb)

  # Stores within a word and across word boundaries.
  TEST_MA_STORE(20, sw, 1, 0xbbccdd11, 0x222222aa)
  TEST_MA_STORE(21, sw, 2, 0xccdd1111, 0x2222aabb)
  TEST_MA_STORE(22, sw, 3, 0xdd111111, 0x22aabbcc)
  TEST_MA_STORE(23, sh, 1, 0x11ccdd11, 0x22222222)
  TEST_MA_STORE(24, sh, 3, 0xdd111111, 0x222222cc)
  TEST_MA_STORE(25, sw, 5, 0x11111111, 0xbbccdd22)

  # Misaligned register accesses trap; a misaligned store writes nothing.
  TEST_MMIO_MIS_LOAD(26, lw, STRATA_CTRL_ID + 1)
  TEST_MMIO_MIS_LOAD(27, lh, STRATA_CTRL_ID + 3)
  TEST_MMIO_MIS_LOAD(28, lhu, STRATA_CTRL_ID + 1)
  TEST_START(29)
  li x1, STRATA_CTRL_BASE
  li x2, -1
  TRAP_EXPECT(86f)
85: sw x2, STRATA_CTRL_IRQ_ENABLE + 2(x1)
  j isa_fail
86: CHECK_TRAP_COUNT(1)
  CHECK_TRAP_CAUSE(CAUSE_MISALIGNED_STORE)
  CHECK_TRAP_EPC(85b)
  CHECK_TRAP_TVAL_ADDR(STRATA_CTRL_BASE + STRATA_CTRL_IRQ_ENABLE + 2)
  lw x14, STRATA_CTRL_IRQ_ENABLE(x1)
  CHECK_EQ(x14, 0)

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
isa_mis_data: .word 0x33221100, 0x77665544, 0xbbaa9988, 0xffeeddcc
isa_mis_buf: .word 0, 0, 0, 0
TEST_DATA_END
