# mulhu: rd = high 32 bits of unsigned(rs1) * unsigned(rs2).
#include "isa_macros.h"

TEST_CODE_BEGIN
  # Values (edge operands; expected results from the ISA definition).
  TEST_RR_OP(2, mulhu, 0x00000000, 0x00000000, 0x00000000)
  TEST_RR_OP(3, mulhu, 0x00000000, 0x00000001, 0x00000001)
  TEST_RR_OP(4, mulhu, 0x00000000, 0x00000003, 0x00000007)
  TEST_RR_OP(5, mulhu, 0x00000000, 0x00000000, 0xffff8000)
  TEST_RR_OP(6, mulhu, 0x00000000, 0x80000000, 0x00000000)
  TEST_RR_OP(7, mulhu, 0x7fffc000, 0x80000000, 0xffff8000)
  TEST_RR_OP(8, mulhu, 0x0001fefe, 0xaaaaaaab, 0x0002fe7d)
  TEST_RR_OP(9, mulhu, 0x0001fefe, 0x0002fe7d, 0xaaaaaaab)
  TEST_RR_OP(10, mulhu, 0xfe010000, 0xff000000, 0xff000000)
  TEST_RR_OP(11, mulhu, 0xfffffffe, 0xffffffff, 0xffffffff)
  TEST_RR_OP(12, mulhu, 0x00000000, 0xffffffff, 0x00000001)
  TEST_RR_OP(13, mulhu, 0x00000000, 0x00000001, 0xffffffff)
  TEST_RR_OP(14, mulhu, 0x7fffffff, 0x80000000, 0xffffffff)
  TEST_RR_OP(15, mulhu, 0x7fffffff, 0xffffffff, 0x80000000)
  TEST_RR_OP(16, mulhu, 0x40000000, 0x80000000, 0x80000000)
  TEST_RR_OP(17, mulhu, 0x3fffffff, 0x7fffffff, 0x7fffffff)
  TEST_RR_OP(18, mulhu, 0x3fffffff, 0x7fffffff, 0x80000000)
  TEST_RR_OP(19, mulhu, 0x3fffffff, 0x80000000, 0x7fffffff)
  TEST_RR_OP(20, mulhu, 0x7ffffffe, 0x7fffffff, 0xffffffff)
  TEST_RR_OP(21, mulhu, 0x7ffffffe, 0xffffffff, 0x7fffffff)
  TEST_RR_OP(22, mulhu, 0x0b00ea4e, 0x12345678, 0x9abcdef0)
  TEST_RR_OP(23, mulhu, 0x0b00ea4e, 0x9abcdef0, 0x12345678)
  TEST_RR_OP(24, mulhu, 0x00000002, 0xfffffff9, 0x00000003)
  TEST_RR_OP(25, mulhu, 0x00000002, 0x00000003, 0xfffffff9)
  TEST_RR_OP(26, mulhu, 0x00000001, 0x00010000, 0x00010000)
  TEST_RR_OP(27, mulhu, 0x0000ffff, 0xffff0000, 0x00010000)
  TEST_RR_OP(28, mulhu, 0x0000ffff, 0x00010000, 0xffff0000)
  TEST_RR_OP(29, mulhu, 0xfffe0001, 0xffff0000, 0xffff0000)

  # rd equal to a source.
  TEST_RR_SRC1_EQ_DEST(60, mulhu, 0x70000005, 0xfffffff3, 0x7000000b)
  TEST_RR_SRC2_EQ_DEST(61, mulhu, 0x70000005, 0xfffffff4, 0x7000000b)
  TEST_RR_SRC12_EQ_DEST(62, mulhu, 0xffffffe6, 0xfffffff3)

  # Forwarding: result used 1..4 instructions later; operands produced 1..3 instructions before.
  TEST_RR_DEST_BYPASS(63, 0, mulhu, 0x70000005, 0xfffffff3, 0x7000000b)
  TEST_RR_DEST_BYPASS(64, 1, mulhu, 0x70000005, 0xfffffff4, 0x7000000b)
  TEST_RR_DEST_BYPASS(65, 2, mulhu, 0x70000006, 0xfffffff5, 0x7000000b)
  TEST_RR_DEST_BYPASS(66, 3, mulhu, 0x70000006, 0xfffffff6, 0x7000000b)
  TEST_RR_SRC12_BYPASS(67, 0, 0, mulhu, 0x70000005, 0xfffffff3, 0x7000000b)
  TEST_RR_SRC12_BYPASS(68, 0, 1, mulhu, 0x70000006, 0xfffffff3, 0x7000000c)
  TEST_RR_SRC12_BYPASS(69, 0, 2, mulhu, 0x70000007, 0xfffffff3, 0x7000000d)
  TEST_RR_SRC12_BYPASS(70, 1, 0, mulhu, 0x70000005, 0xfffffff4, 0x7000000b)
  TEST_RR_SRC12_BYPASS(71, 1, 1, mulhu, 0x70000006, 0xfffffff4, 0x7000000c)
  TEST_RR_SRC12_BYPASS(72, 2, 0, mulhu, 0x70000006, 0xfffffff5, 0x7000000b)
  TEST_RR_SRC21_BYPASS(73, 0, 0, mulhu, 0x70000005, 0xfffffff3, 0x7000000b)
  TEST_RR_SRC21_BYPASS(74, 0, 1, mulhu, 0x70000006, 0xfffffff3, 0x7000000c)
  TEST_RR_SRC21_BYPASS(75, 0, 2, mulhu, 0x70000007, 0xfffffff3, 0x7000000d)
  TEST_RR_SRC21_BYPASS(76, 1, 0, mulhu, 0x70000004, 0xfffffff2, 0x7000000b)
  TEST_RR_SRC21_BYPASS(77, 1, 1, mulhu, 0x70000005, 0xfffffff2, 0x7000000c)
  TEST_RR_SRC21_BYPASS(78, 2, 0, mulhu, 0x70000004, 0xfffffff1, 0x7000000b)

  # x0 as a source reads 0; as rd it stays 0 and nothing is forwarded from it.
  TEST_RR_ZEROSRC1(79, mulhu, 0x00000000, 0x80000015)
  TEST_RR_ZEROSRC2(80, mulhu, 0x00000000, 0xfffffff0)
  TEST_RR_ZEROSRC12(81, mulhu, 0x00000000)
  TEST_RR_ZERODEST(82, mulhu, 0x00000010, 0x0000001e)
  TEST_RR_ZERODEST(83, mulhu, 0x80000000, 0xffffffff)
TEST_CODE_END
