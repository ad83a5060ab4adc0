# andi: rd = rs1 & sext(imm12).
#include "isa_macros.h"

TEST_CODE_BEGIN
  # Values (edge operands and immediates; expected results from the ISA definition).
  TEST_IMM_OP(2, andi, 0x00ff0f00, 0x00ff0f00, -241)
  TEST_IMM_OP(3, andi, 0x000000f0, 0x0ff00ff0, 240)
  TEST_IMM_OP(4, andi, 0x0000000f, 0x00ff08ff, 1807)
  TEST_IMM_OP(5, andi, 0x00000000, 0xf00ff00f, 240)
  TEST_IMM_OP(6, andi, 0x00000700, 0xff00ff00, 1807)
  TEST_IMM_OP(7, andi, 0xff00ff00, 0xff00ff00, -241)
  TEST_IMM_OP(8, andi, 0x00000000, 0x00000000, -1)
  TEST_IMM_OP(9, andi, 0x12345678, 0x12345678, -1)
  TEST_IMM_OP(10, andi, 0x00000000, 0x12345678, 0)
  TEST_IMM_OP(11, andi, 0x00000000, 0xffffffff, 0)
  TEST_IMM_OP(12, andi, 0xfffff800, 0xffffffff, -2048)
  TEST_IMM_OP(13, andi, 0x00000000, 0x00000000, -2048)
  TEST_IMM_OP(14, andi, 0x00000678, 0x12345678, 2047)
  TEST_IMM_OP(15, andi, 0x00000000, 0xfffff000, 2047)
  TEST_IMM_OP(16, andi, 0x80000000, 0x80000000, -2048)
  TEST_IMM_OP(17, andi, 0x00000000, 0xaaaaaaaa, 1365)

  # rd == rs1, forwarding distances 1..4, x0 as source and destination.
  TEST_IMM_SRC1_EQ_DEST(60, andi, 0x00000009, 0x0000000d, 11)
  TEST_IMM_DEST_BYPASS(61, 0, andi, 0x00000009, 0x0000000d, 11)
  TEST_IMM_DEST_BYPASS(62, 1, andi, 0x0000000a, 0x0000000e, 11)
  TEST_IMM_DEST_BYPASS(63, 2, andi, 0x0000000b, 0x0000000f, 11)
  TEST_IMM_DEST_BYPASS(64, 3, andi, 0x00000000, 0x00000010, 11)
  TEST_IMM_SRC1_BYPASS(65, 0, andi, 0x00000009, 0x0000000d, 11)
  TEST_IMM_SRC1_BYPASS(66, 1, andi, 0x0000000c, 0x0000000e, 12)
  TEST_IMM_SRC1_BYPASS(67, 2, andi, 0x0000000d, 0x0000000f, 13)
  TEST_IMM_ZEROSRC1(68, andi, 0x00000000, -2048)
  TEST_IMM_ZEROSRC1(69, andi, 0x00000000, 2047)
  TEST_IMM_ZERODEST(70, andi, 0x00000021, 50)
  TEST_IMM_ZERODEST(71, andi, 0xffffffff, -1)
TEST_CODE_END
