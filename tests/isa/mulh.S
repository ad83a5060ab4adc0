# mulh: rd = high 32 bits of signed(rs1) * signed(rs2), all sign combinations.
#include "isa_macros.h"

TEST_CODE_BEGIN
  # Values (edge operands; expected results from the ISA definition).
  TEST_RR_OP(2, mulh, 0x00000000, 0x00000000, 0x00000000)
  TEST_RR_OP(3, mulh, 0x00000000, 0x00000001, 0x00000001)
  TEST_RR_OP(4, mulh, 0x00000000, 0x00000003, 0x00000007)
  TEST_RR_OP(5, mulh, 0x00000000, 0x00000000, 0xffff8000)
  TEST_RR_OP(6, mulh, 0x00000000, 0x80000000, 0x00000000)
  TEST_RR_OP(7, mulh, 0x00004000, 0x80000000, 0xffff8000)
  TEST_RR_OP(8, mulh, 0xffff0081, 0xaaaaaaab, 0x0002fe7d)
  TEST_RR_OP(9, mulh, 0xffff0081, 0x0002fe7d, 0xaaaaaaab)
  TEST_RR_OP(10, mulh, 0x00010000, 0xff000000, 0xff000000)
  TEST_RR_OP(11, mulh, 0x00000000, 0xffffffff, 0xffffffff)
  TEST_RR_OP(12, mulh, 0xffffffff, 0xffffffff, 0x00000001)
  TEST_RR_OP(13, mulh, 0xffffffff, 0x00000001, 0xffffffff)
  TEST_RR_OP(14, mulh, 0x00000000, 0x80000000, 0xffffffff)
  TEST_RR_OP(15, mulh, 0x00000000, 0xffffffff, 0x80000000)
  TEST_RR_OP(16, mulh, 0x40000000, 0x80000000, 0x80000000)
  TEST_RR_OP(17, mulh, 0x3fffffff, 0x7fffffff, 0x7fffffff)
  TEST_RR_OP(18, mulh, 0xc0000000, 0x7fffffff, 0x80000000)
  TEST_RR_OP(19, mulh, 0xc0000000, 0x80000000, 0x7fffffff)
  TEST_RR_OP(20, mulh, 0xffffffff, 0x7fffffff, 0xffffffff)
  TEST_RR_OP(21, mulh, 0xffffffff, 0xffffffff, 0x7fffffff)
  TEST_RR_OP(22, mulh, 0xf8cc93d6, 0x12345678, 0x9abcdef0)
  TEST_RR_OP(23, mulh, 0xf8cc93d6, 0x9abcdef0, 0x12345678)
  TEST_RR_OP(24, mulh, 0xffffffff, 0xfffffff9, 0x00000003)
  TEST_RR_OP(25, mulh, 0xffffffff, 0x00000003, 0xfffffff9)
  TEST_RR_OP(26, mulh, 0x00000001, 0x00010000, 0x00010000)
  TEST_RR_OP(27, mulh, 0xffffffff, 0xffff0000, 0x00010000)
  TEST_RR_OP(28, mulh, 0xffffffff, 0x00010000, 0xffff0000)
  TEST_RR_OP(29, mulh, 0x00000001, 0xffff0000, 0xffff0000)

  # rd equal to a source.
  TEST_RR_SRC1_EQ_DEST(60, mulh, 0xfffffffa, 0xfffffff3, 0x7000000b)
  TEST_RR_SRC2_EQ_DEST(61, mulh, 0xfffffffa, 0xfffffff4, 0x7000000b)
  TEST_RR_SRC12_EQ_DEST(62, mulh, 0x00000000, 0xfffffff3)

  # Forwarding: result used 1..4 instructions later; operands produced 1..3 instructions before.
  TEST_RR_DEST_BYPASS(63, 0, mulh, 0xfffffffa, 0xfffffff3, 0x7000000b)
  TEST_RR_DEST_BYPASS(64, 1, mulh, 0xfffffffa, 0xfffffff4, 0x7000000b)
  TEST_RR_DEST_BYPASS(65, 2, mulh, 0xfffffffb, 0xfffffff5, 0x7000000b)
  TEST_RR_DEST_BYPASS(66, 3, mulh, 0xfffffffb, 0xfffffff6, 0x7000000b)
  TEST_RR_SRC12_BYPASS(67, 0, 0, mulh, 0xfffffffa, 0xfffffff3, 0x7000000b)
  TEST_RR_SRC12_BYPASS(68, 0, 1, mulh, 0xfffffffa, 0xfffffff3, 0x7000000c)
  TEST_RR_SRC12_BYPASS(69, 0, 2, mulh, 0xfffffffa, 0xfffffff3, 0x7000000d)
  TEST_RR_SRC12_BYPASS(70, 1, 0, mulh, 0xfffffffa, 0xfffffff4, 0x7000000b)
  TEST_RR_SRC12_BYPASS(71, 1, 1, mulh, 0xfffffffa, 0xfffffff4, 0x7000000c)
  TEST_RR_SRC12_BYPASS(72, 2, 0, mulh, 0xfffffffb, 0xfffffff5, 0x7000000b)
  TEST_RR_SRC21_BYPASS(73, 0, 0, mulh, 0xfffffffa, 0xfffffff3, 0x7000000b)
  TEST_RR_SRC21_BYPASS(74, 0, 1, mulh, 0xfffffffa, 0xfffffff3, 0x7000000c)
  TEST_RR_SRC21_BYPASS(75, 0, 2, mulh, 0xfffffffa, 0xfffffff3, 0x7000000d)
  TEST_RR_SRC21_BYPASS(76, 1, 0, mulh, 0xfffffff9, 0xfffffff2, 0x7000000b)
  TEST_RR_SRC21_BYPASS(77, 1, 1, mulh, 0xfffffff9, 0xfffffff2, 0x7000000c)
  TEST_RR_SRC21_BYPASS(78, 2, 0, mulh, 0xfffffff9, 0xfffffff1, 0x7000000b)

  # x0 as a source reads 0; as rd it stays 0 and nothing is forwarded from it.
  TEST_RR_ZEROSRC1(79, mulh, 0x00000000, 0x80000015)
  TEST_RR_ZEROSRC2(80, mulh, 0x00000000, 0xfffffff0)
  TEST_RR_ZEROSRC12(81, mulh, 0x00000000)
  TEST_RR_ZERODEST(82, mulh, 0x00000010, 0x0000001e)
  TEST_RR_ZERODEST(83, mulh, 0x80000000, 0xffffffff)
TEST_CODE_END
