# xori: rd = rs1 ^ sext(imm12); xori rd, rs, -1 is not.
#include "isa_macros.h"

TEST_CODE_BEGIN
  # Values (edge operands and immediates; expected results from the ISA definition).
  TEST_IMM_OP(2, xori, 0xff00f00f, 0x00ff0f00, -241)
  TEST_IMM_OP(3, xori, 0x0ff00f00, 0x0ff00ff0, 240)
  TEST_IMM_OP(4, xori, 0x00ff0ff0, 0x00ff08ff, 1807)
  TEST_IMM_OP(5, xori, 0xf00ff0ff, 0xf00ff00f, 240)
  TEST_IMM_OP(6, xori, 0xff00f80f, 0xff00ff00, 1807)
  TEST_IMM_OP(7, xori, 0x00ff000f, 0xff00ff00, -241)
  TEST_IMM_OP(8, xori, 0xffffffff, 0x00000000, -1)
  TEST_IMM_OP(9, xori, 0xedcba987, 0x12345678, -1)
  TEST_IMM_OP(10, xori, 0x12345678, 0x12345678, 0)
  TEST_IMM_OP(11, xori, 0xffffffff, 0xffffffff, 0)
  TEST_IMM_OP(12, xori, 0x000007ff, 0xffffffff, -2048)
  TEST_IMM_OP(13, xori, 0xfffff800, 0x00000000, -2048)
  TEST_IMM_OP(14, xori, 0x12345187, 0x12345678, 2047)
  TEST_IMM_OP(15, xori, 0xfffff7ff, 0xfffff000, 2047)
  TEST_IMM_OP(16, xori, 0x7ffff800, 0x80000000, -2048)
  TEST_IMM_OP(17, xori, 0xaaaaafff, 0xaaaaaaaa, 1365)

  # rd == rs1, forwarding distances 1..4, x0 as source and destination.
  TEST_IMM_SRC1_EQ_DEST(60, xori, 0x00000006, 0x0000000d, 11)
  TEST_IMM_DEST_BYPASS(61, 0, xori, 0x00000006, 0x0000000d, 11)
  TEST_IMM_DEST_BYPASS(62, 1, xori, 0x00000005, 0x0000000e, 11)
  TEST_IMM_DEST_BYPASS(63, 2, xori, 0x00000004, 0x0000000f, 11)
  TEST_IMM_DEST_BYPASS(64, 3, xori, 0x0000001b, 0x00000010, 11)
  TEST_IMM_SRC1_BYPASS(65, 0, xori, 0x00000006, 0x0000000d, 11)
  TEST_IMM_SRC1_BYPASS(66, 1, xori, 0x00000002, 0x0000000e, 12)
  TEST_IMM_SRC1_BYPASS(67, 2, xori, 0x00000002, 0x0000000f, 13)
  TEST_IMM_ZEROSRC1(68, xori, 0xfffff800, -2048)
  TEST_IMM_ZEROSRC1(69, xori, 0x000007ff, 2047)
  TEST_IMM_ZERODEST(70, xori, 0x00000021, 50)
  TEST_IMM_ZERODEST(71, xori, 0xffffffff, -1)
TEST_CODE_END
