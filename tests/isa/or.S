# or: rd = rs1 | rs2.
#include "isa_macros.h"

TEST_CODE_BEGIN
  # Values (edge operands; expected results from the ISA definition).
  TEST_RR_OP(2, or, 0xff0fff0f, 0xff00ff00, 0x0f0f0f0f)
  TEST_RR_OP(3, or, 0xfff0fff0, 0x0ff00ff0, 0xf0f0f0f0)
  TEST_RR_OP(4, or, 0x0fff0fff, 0x00ff00ff, 0x0f0f0f0f)
  TEST_RR_OP(5, or, 0xf0fff0ff, 0xf00ff00f, 0xf0f0f0f0)
  TEST_RR_OP(6, or, 0x00000000, 0x00000000, 0x00000000)
  TEST_RR_OP(7, or, 0xffffffff, 0xffffffff, 0x00000000)
  TEST_RR_OP(8, or, 0xffffffff, 0x00000000, 0xffffffff)
  TEST_RR_OP(9, or, 0xffffffff, 0xffffffff, 0xffffffff)
  TEST_RR_OP(10, or, 0x80000001, 0x80000000, 0x00000001)
  TEST_RR_OP(11, or, 0xffffffff, 0x12345678, 0xffffffff)

  # rd equal to a source.
  TEST_RR_SRC1_EQ_DEST(60, or, 0x0000000f, 0x0000000d, 0x0000000b)
  TEST_RR_SRC2_EQ_DEST(61, or, 0x0000000f, 0x0000000e, 0x0000000b)
  TEST_RR_SRC12_EQ_DEST(62, or, 0x0000000d, 0x0000000d)

  # Forwarding: result used 1..4 instructions later; operands produced 1..3 instructions before.
  TEST_RR_DEST_BYPASS(63, 0, or, 0x0000000f, 0x0000000d, 0x0000000b)
  TEST_RR_DEST_BYPASS(64, 1, or, 0x0000000f, 0x0000000e, 0x0000000b)
  TEST_RR_DEST_BYPASS(65, 2, or, 0x0000000f, 0x0000000f, 0x0000000b)
  TEST_RR_DEST_BYPASS(66, 3, or, 0x0000001b, 0x00000010, 0x0000000b)
  TEST_RR_SRC12_BYPASS(67, 0, 0, or, 0x0000000f, 0x0000000d, 0x0000000b)
  TEST_RR_SRC12_BYPASS(68, 0, 1, or, 0x0000000d, 0x0000000d, 0x0000000c)
  TEST_RR_SRC12_BYPASS(69, 0, 2, or, 0x0000000d, 0x0000000d, 0x0000000d)
  TEST_RR_SRC12_BYPASS(70, 1, 0, or, 0x0000000f, 0x0000000e, 0x0000000b)
  TEST_RR_SRC12_BYPASS(71, 1, 1, or, 0x0000000e, 0x0000000e, 0x0000000c)
  TEST_RR_SRC12_BYPASS(72, 2, 0, or, 0x0000000f, 0x0000000f, 0x0000000b)
  TEST_RR_SRC21_BYPASS(73, 0, 0, or, 0x0000000f, 0x0000000d, 0x0000000b)
  TEST_RR_SRC21_BYPASS(74, 0, 1, or, 0x0000000d, 0x0000000d, 0x0000000c)
  TEST_RR_SRC21_BYPASS(75, 0, 2, or, 0x0000000d, 0x0000000d, 0x0000000d)
  TEST_RR_SRC21_BYPASS(76, 1, 0, or, 0x0000000f, 0x0000000c, 0x0000000b)
  TEST_RR_SRC21_BYPASS(77, 1, 1, or, 0x0000000c, 0x0000000c, 0x0000000c)
  TEST_RR_SRC21_BYPASS(78, 2, 0, or, 0x0000000b, 0x0000000b, 0x0000000b)

  # x0 as a source reads 0; as rd it stays 0 and nothing is forwarded from it.
  TEST_RR_ZEROSRC1(79, or, 0x80000015, 0x80000015)
  TEST_RR_ZEROSRC2(80, or, 0xfffffff0, 0xfffffff0)
  TEST_RR_ZEROSRC12(81, or, 0x00000000)
  TEST_RR_ZERODEST(82, or, 0x00000010, 0x0000001e)
  TEST_RR_ZERODEST(83, or, 0x80000000, 0xffffffff)
TEST_CODE_END
