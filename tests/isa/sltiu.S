# sltiu: rd = (unsigned) rs1 < sext(imm12) (the immediate is sign-extended, then compared unsigned); sltiu rd, rs, 1 is seqz.
#include "isa_macros.h"

TEST_CODE_BEGIN
  # Values (edge operands and immediates; expected results from the ISA definition).
  TEST_IMM_OP(2, sltiu, 0x00000000, 0x00000000, 0)
  TEST_IMM_OP(3, sltiu, 0x00000000, 0x00000001, 1)
  TEST_IMM_OP(4, sltiu, 0x00000001, 0x00000003, 7)
  TEST_IMM_OP(5, sltiu, 0x00000000, 0x00000007, 3)
  TEST_IMM_OP(6, sltiu, 0x00000001, 0x00000000, -2048)
  TEST_IMM_OP(7, sltiu, 0x00000000, 0x80000000, 0)
  TEST_IMM_OP(8, sltiu, 0x00000001, 0x80000000, -2048)
  TEST_IMM_OP(9, sltiu, 0x00000001, 0x00000000, 2047)
  TEST_IMM_OP(10, sltiu, 0x00000000, 0x7fffffff, 0)
  TEST_IMM_OP(11, sltiu, 0x00000000, 0x7fffffff, 2047)
  TEST_IMM_OP(12, sltiu, 0x00000000, 0x80000000, 2047)
  TEST_IMM_OP(13, sltiu, 0x00000001, 0x7fffffff, -2048)
  TEST_IMM_OP(14, sltiu, 0x00000001, 0x00000000, -1)
  TEST_IMM_OP(15, sltiu, 0x00000000, 0xffffffff, 1)
  TEST_IMM_OP(16, sltiu, 0x00000000, 0xffffffff, -1)
  TEST_IMM_OP(17, sltiu, 0x00000001, 0xfffffffe, -1)
  TEST_IMM_OP(18, sltiu, 0x00000001, 0xfffff7ff, -2048)
  TEST_IMM_OP(19, sltiu, 0x00000000, 0xfffff800, -2048)
  TEST_IMM_OP(20, sltiu, 0x00000000, 0xfffff801, -2048)
  TEST_IMM_OP(21, sltiu, 0x00000000, 0x000007ff, 2047)
  TEST_IMM_OP(22, sltiu, 0x00000000, 0x00000800, 2047)
  TEST_IMM_OP(23, sltiu, 0x00000001, 0x00000000, 1)
  TEST_IMM_OP(24, sltiu, 0x00000000, 0x00000001, 1)
  TEST_IMM_OP(25, sltiu, 0x00000000, 0x00000002, 1)

  # rd == rs1, forwarding distances 1..4, x0 as source and destination.
  TEST_IMM_SRC1_EQ_DEST(60, sltiu, 0x00000001, 0x00000003, 11)
  TEST_IMM_DEST_BYPASS(61, 0, sltiu, 0x00000001, 0x00000003, 11)
  TEST_IMM_DEST_BYPASS(62, 1, sltiu, 0x00000001, 0x00000004, 11)
  TEST_IMM_DEST_BYPASS(63, 2, sltiu, 0x00000001, 0x00000005, 11)
  TEST_IMM_DEST_BYPASS(64, 3, sltiu, 0x00000001, 0x00000006, 11)
  TEST_IMM_SRC1_BYPASS(65, 0, sltiu, 0x00000001, 0x00000003, 11)
  TEST_IMM_SRC1_BYPASS(66, 1, sltiu, 0x00000001, 0x00000004, 12)
  TEST_IMM_SRC1_BYPASS(67, 2, sltiu, 0x00000001, 0x00000005, 13)
  TEST_IMM_ZEROSRC1(68, sltiu, 0x00000001, -2048)
  TEST_IMM_ZEROSRC1(69, sltiu, 0x00000001, 2047)
  TEST_IMM_ZERODEST(70, sltiu, 0x00000021, 50)
  TEST_IMM_ZERODEST(71, sltiu, 0xffffffff, -1)
TEST_CODE_END
