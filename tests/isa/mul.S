# mul: rd = low 32 bits of rs1 * rs2 (same for signed and unsigned).
#include "isa_macros.h"

TEST_CODE_BEGIN
  # Values (edge operands; expected results from the ISA definition).
  TEST_RR_OP(2, mul, 0x00000000, 0x00000000, 0x00000000)
  TEST_RR_OP(3, mul, 0x00000001, 0x00000001, 0x00000001)
  TEST_RR_OP(4, mul, 0x00000015, 0x00000003, 0x00000007)
  TEST_RR_OP(5, mul, 0x00000000, 0x00000000, 0xffff8000)
  TEST_RR_OP(6, mul, 0x00000000, 0x80000000, 0x00000000)
  TEST_RR_OP(7, mul, 0x00000000, 0x80000000, 0xffff8000)
  TEST_RR_OP(8, mul, 0x0000ff7f, 0xaaaaaaab, 0x0002fe7d)
  TEST_RR_OP(9, mul, 0x0000ff7f, 0x0002fe7d, 0xaaaaaaab)
  TEST_RR_OP(10, mul, 0x00000000, 0xff000000, 0xff000000)
  TEST_RR_OP(11, mul, 0x00000001, 0xffffffff, 0xffffffff)
  TEST_RR_OP(12, mul, 0xffffffff, 0xffffffff, 0x00000001)
  TEST_RR_OP(13, mul, 0xffffffff, 0x00000001, 0xffffffff)
  TEST_RR_OP(14, mul, 0x80000000, 0x80000000, 0xffffffff)
  TEST_RR_OP(15, mul, 0x00000000, 0x80000000, 0x80000000)
  TEST_RR_OP(16, mul, 0x00000001, 0x7fffffff, 0x7fffffff)
  TEST_RR_OP(17, mul, 0x80000001, 0x7fffffff, 0xffffffff)
  TEST_RR_OP(18, mul, 0x242d2080, 0x12345678, 0x9abcdef0)
  TEST_RR_OP(19, mul, 0xfffe0001, 0x0000ffff, 0x0000ffff)
  TEST_RR_OP(20, mul, 0x00000000, 0x00010000, 0x00010000)
  TEST_RR_OP(21, mul, 0xffffffeb, 0xfffffff9, 0x00000003)

  # rd equal to a source.
  TEST_RR_SRC1_EQ_DEST(60, mul, 0x4fffff71, 0xfffffff3, 0x7000000b)
  TEST_RR_SRC2_EQ_DEST(61, mul, 0xbfffff7c, 0xfffffff4, 0x7000000b)
  TEST_RR_SRC12_EQ_DEST(62, mul, 0x000000a9, 0xfffffff3)

  # Forwarding: result used 1..4 instructions later; operands produced 1..3 instructions before.
  TEST_RR_DEST_BYPASS(63, 0, mul, 0x4fffff71, 0xfffffff3, 0x7000000b)
  TEST_RR_DEST_BYPASS(64, 1, mul, 0xbfffff7c, 0xfffffff4, 0x7000000b)
  TEST_RR_DEST_BYPASS(65, 2, mul, 0x2fffff87, 0xfffffff5, 0x7000000b)
  TEST_RR_DEST_BYPASS(66, 3, mul, 0x9fffff92, 0xfffffff6, 0x7000000b)
  TEST_RR_SRC12_BYPASS(67, 0, 0, mul, 0x4fffff71, 0xfffffff3, 0x7000000b)
  TEST_RR_SRC12_BYPASS(68, 0, 1, mul, 0x4fffff64, 0xfffffff3, 0x7000000c)
  TEST_RR_SRC12_BYPASS(69, 0, 2, mul, 0x4fffff57, 0xfffffff3, 0x7000000d)
  TEST_RR_SRC12_BYPASS(70, 1, 0, mul, 0xbfffff7c, 0xfffffff4, 0x7000000b)
  TEST_RR_SRC12_BYPASS(71, 1, 1, mul, 0xbfffff70, 0xfffffff4, 0x7000000c)
  TEST_RR_SRC12_BYPASS(72, 2, 0, mul, 0x2fffff87, 0xfffffff5, 0x7000000b)
  TEST_RR_SRC21_BYPASS(73, 0, 0, mul, 0x4fffff71, 0xfffffff3, 0x7000000b)
  TEST_RR_SRC21_BYPASS(74, 0, 1, mul, 0x4fffff64, 0xfffffff3, 0x7000000c)
  TEST_RR_SRC21_BYPASS(75, 0, 2, mul, 0x4fffff57, 0xfffffff3, 0x7000000d)
  TEST_RR_SRC21_BYPASS(76, 1, 0, mul, 0xdfffff66, 0xfffffff2, 0x7000000b)
  TEST_RR_SRC21_BYPASS(77, 1, 1, mul, 0xdfffff58, 0xfffffff2, 0x7000000c)
  TEST_RR_SRC21_BYPASS(78, 2, 0, mul, 0x6fffff5b, 0xfffffff1, 0x7000000b)

  # x0 as a source reads 0; as rd it stays 0 and nothing is forwarded from it.
  TEST_RR_ZEROSRC1(79, mul, 0x00000000, 0x80000015)
  TEST_RR_ZEROSRC2(80, mul, 0x00000000, 0xfffffff0)
  TEST_RR_ZEROSRC12(81, mul, 0x00000000)
  TEST_RR_ZERODEST(82, mul, 0x00000010, 0x0000001e)
  TEST_RR_ZERODEST(83, mul, 0x80000000, 0xffffffff)
TEST_CODE_END
