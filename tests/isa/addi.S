# addi: rd = rs1 + sext(imm12).
#include "isa_macros.h"

TEST_CODE_BEGIN
  # Values (edge operands and immediates; expected results from the ISA definition).
  TEST_IMM_OP(2, addi, 0x00000000, 0x00000000, 0)
  TEST_IMM_OP(3, addi, 0x00000002, 0x00000001, 1)
  TEST_IMM_OP(4, addi, 0x0000000a, 0x00000003, 7)
  TEST_IMM_OP(5, addi, 0xfffff800, 0x00000000, -2048)
  TEST_IMM_OP(6, addi, 0x80000000, 0x80000000, 0)
  TEST_IMM_OP(7, addi, 0x7ffff800, 0x80000000, -2048)
  TEST_IMM_OP(8, addi, 0x000007ff, 0x00000000, 2047)
  TEST_IMM_OP(9, addi, 0x7fffffff, 0x7fffffff, 0)
  TEST_IMM_OP(10, addi, 0x800007fe, 0x7fffffff, 2047)
  TEST_IMM_OP(11, addi, 0x800007ff, 0x80000000, 2047)
  TEST_IMM_OP(12, addi, 0x7ffff7ff, 0x7fffffff, -2048)
  TEST_IMM_OP(13, addi, 0xffffffff, 0x00000000, -1)
  TEST_IMM_OP(14, addi, 0x00000000, 0xffffffff, 1)
  TEST_IMM_OP(15, addi, 0xfffffffe, 0xffffffff, -1)
  TEST_IMM_OP(16, addi, 0x80000000, 0x7fffffff, 1)
  TEST_IMM_OP(17, addi, 0x7fffffff, 0x80000000, -1)
  TEST_IMM_OP(18, addi, 0x12345000, 0x12345678, -1656)
  TEST_IMM_OP(19, addi, 0xfffff000, 0xfffff800, -2048)
  TEST_IMM_OP(20, addi, 0x00000000, 0x00000005, -5)

  # rd == rs1, forwarding distances 1..4, x0 as source and destination.
  TEST_IMM_SRC1_EQ_DEST(60, addi, 0x00000018, 0x0000000d, 11)
  TEST_IMM_DEST_BYPASS(61, 0, addi, 0x00000018, 0x0000000d, 11)
  TEST_IMM_DEST_BYPASS(62, 1, addi, 0x00000019, 0x0000000e, 11)
  TEST_IMM_DEST_BYPASS(63, 2, addi, 0x0000001a, 0x0000000f, 11)
  TEST_IMM_DEST_BYPASS(64, 3, addi, 0x0000001b, 0x00000010, 11)
  TEST_IMM_SRC1_BYPASS(65, 0, addi, 0x00000018, 0x0000000d, 11)
  TEST_IMM_SRC1_BYPASS(66, 1, addi, 0x0000001a, 0x0000000e, 12)
  TEST_IMM_SRC1_BYPASS(67, 2, addi, 0x0000001c, 0x0000000f, 13)
  TEST_IMM_ZEROSRC1(68, addi, 0xfffff800, -2048)
  TEST_IMM_ZEROSRC1(69, addi, 0x000007ff, 2047)
  TEST_IMM_ZERODEST(70, addi, 0x00000021, 50)
  TEST_IMM_ZERODEST(71, addi, 0xffffffff, -1)
TEST_CODE_END
