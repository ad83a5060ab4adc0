# jalr: t = (rs1 + sext(imm)) & ~1; rd = pc + 4; pc = t. Link value, bit 0 cleared,
# offsets, rd == rs1 (the old rs1 is the target), x0 as rd, rs1 forwarded from an ALU op or a
# load just before (load-use), the link consumed right away, call/return.
#include "isa_macros.h"

TEST_CODE_BEGIN
  # Forward, offset 0; ra = address of the jalr + 4; the shadow never runs.
  TEST_START(2)
  li x14, 0
  la x1, 2f
1: jalr ra, 0(x1)
  addi x14, x14, 1
  addi x14, x14, 2
  j isa_fail
2: CHECK_EQ_ADDR(ra, 1b + 4)
  CHECK_EQ(x14, 0)

  # Positive and negative offsets.
  TEST_START(3)
  la x1, 2f - 8
1: jalr x15, 8(x1)
  j isa_fail
2: CHECK_EQ_ADDR(x15, 1b + 4)

  TEST_START(4)
  la x1, 2f + 12
1: jalr x15, -12(x1)
  j isa_fail
2: CHECK_EQ_ADDR(x15, 1b + 4)

  # Largest offsets.
  TEST_START(5)
  la x1, 2f - 2046
1: jalr x15, 2046(x1)
  j isa_fail
2: CHECK_EQ_ADDR(x15, 1b + 4)

  TEST_START(6)
  la x1, 2f + 2048
1: jalr x15, -2048(x1)
  j isa_fail
2: CHECK_EQ_ADDR(x15, 1b + 4)

  # Bit 0 of the sum is cleared: odd rs1, odd offset, odd both (rs1 + imm odd).
  TEST_START(7)
  la x1, 2f + 1
1: jalr x15, 0(x1)
  j isa_fail
2: CHECK_EQ_ADDR(x15, 1b + 4)

  TEST_START(8)
  la x1, 2f
1: jalr x15, 1(x1)
  j isa_fail
2: CHECK_EQ_ADDR(x15, 1b + 4)

  TEST_START(9)
  la x1, 2f + 3
1: jalr x15, -2(x1)
  j isa_fail
2: CHECK_EQ_ADDR(x15, 1b + 4)

  TEST_START(10)
  la x1, 2f - 2047
1: jalr x15, 2047(x1)
  j isa_fail
2: CHECK_EQ_ADDR(x15, 1b + 4)

  # rd == rs1: the target comes from the old value, then rd gets the link.
  TEST_START(11)
  la x1, 2f
1: jalr x1, 0(x1)
  j isa_fail
2: CHECK_EQ_ADDR(x1, 1b + 4)

  # rd = x0: a plain indirect jump, nothing written or forwarded.
  TEST_START(12)
  la x1, 2f
  jalr x0, 0(x1)
  j isa_fail
2: add x14, x0, x0
  CHECK_EQ(x14, 0)

  # rs1 produced 1, 2, 3 instructions before the jalr.
  TEST_START(13)
  la x1, 2f
  nop
1: jalr x15, 0(x1)
  j isa_fail
2: CHECK_EQ_ADDR(x15, 1b + 4)

  TEST_START(14)
  la x1, 2f
  nop
  nop
1: jalr x15, 0(x1)
  j isa_fail
2: CHECK_EQ_ADDR(x15, 1b + 4)

  # rs1 loaded right before the jalr (load-use into the jump), then one apart.
  TEST_START(15)
  la x2, isa_jalr_ptr15
  lw x1, 0(x2)
1: jalr x15, 0(x1)
  j isa_fail
isa_jalr_t15:
  CHECK_EQ_ADDR(x15, 1b + 4)

  TEST_START(16)
  la x2, isa_jalr_ptr16
  lw x1, 0(x2)
  nop
1: jalr x15, 0(x1)
  j isa_fail
isa_jalr_t16:
  CHECK_EQ_ADDR(x15, 1b + 4)

  # The link consumed by the first instruction at the target.
  TEST_START(17)
  la x1, 2f
1: jalr x14, 0(x1)
  j isa_fail
2: addi x6, x14, 0
  CHECK_EQ_ADDR(x6, 1b + 4)

  # Backward.
  TEST_START(18)
  li x14, 0
  j 2f
1: addi x14, x14, 1
  j 3f
2: la x1, 1b
4: jalr x15, 0(x1)
  j isa_fail
3: CHECK_EQ(x14, 1)
  CHECK_EQ_ADDR(x15, 4b + 4)

  # Call with jal, return with jalr through ra; and call through jalr.
  TEST_START(19)
  li x14, 0
1: jal ra, isa_jalr_func
  CHECK_EQ(x14, 1)
  CHECK_EQ_ADDR(ra, 1b + 4)
  TEST_START(20)
  la x5, isa_jalr_func
1: jalr ra, 0(x5)
  CHECK_EQ(x14, 2)
  CHECK_EQ_ADDR(ra, 1b + 4)

  # Bit 0 is really cleared: the instruction at the target reads its own, aligned, pc.
  TEST_START(21)
  la x1, 2f + 1
  jalr x15, 0(x1)
  j isa_fail
2: auipc x14, 0
  CHECK_EQ_ADDR(x14, 2b)

  TEST_START(22)
  la x1, 2f
  jalr x15, 1(x1)
  j isa_fail
2: auipc x14, 0
  addi x6, x14, 4
  auipc x7, 0
  CHECK_EQ_ADDR(x14, 2b)
  CHECK_EQ_REG(x7, x6)
  j isa_jalr_done

isa_jalr_func:
  addi x14, x14, 1
  jalr x0, 0(ra)
  j isa_fail

isa_jalr_done:
TEST_CODE_END

TEST_DATA_BEGIN
isa_jalr_ptr15: .word isa_jalr_t15
isa_jalr_ptr16: .word isa_jalr_t16
TEST_DATA_END
