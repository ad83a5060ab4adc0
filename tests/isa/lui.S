# lui: rd = imm20 << 12; the low 12 bits become zero.
#include "isa_macros.h"

TEST_CODE_BEGIN
  TEST_CASE(2, x14, 0x00000000, li x14, -1; lui x14, 0x00000)
  TEST_CASE(3, x14, 0x00001000, li x14, -1; lui x14, 0x00001)
  TEST_CASE(4, x14, 0xfffff000, lui x14, 0xfffff)
  TEST_CASE(5, x14, 0x7ffff000, lui x14, 0x7ffff)
  TEST_CASE(6, x14, 0x80000000, lui x14, 0x80000)
  TEST_CASE(7, x14, 0x12345000, lui x14, 0x12345)
  # The value is not sign-extended further: an arithmetic shift shows the top bit.
  TEST_CASE(8, x14, 0xfffffc00, lui x14, 0xfffff; srai x14, x14, 2)
  TEST_CASE(9, x14, 0x00000400, lui x14, 0x00001; srai x14, x14, 2)
  TEST_CASE(10, x14, 0xe0000000, lui x14, 0x80000; srai x14, x14, 2)
  # lui + addi builds any constant (the li idiom), including a negative low part.
  TEST_CASE(11, x14, 0x12344fff, lui x14, 0x12345; addi x14, x14, -1)
  TEST_CASE(12, x14, 0x800007ff, lui x14, 0x80000; addi x14, x14, 0x7ff)

  # Forwarding: the result used 1..4 instructions later.
  TEST_CASE(20, x6, 0xabcde000, lui x14, 0xabcde; addi x6, x14, 0)
  TEST_CASE(21, x6, 0xabcdf000, lui x14, 0xabcdf; nop; addi x6, x14, 0)
  TEST_CASE(22, x6, 0xabce0000, lui x14, 0xabce0; nop; nop; addi x6, x14, 0)
  TEST_CASE(23, x6, 0xabce1000, lui x14, 0xabce1; nop; nop; nop; addi x6, x14, 0)
  # Two lui to the same register back to back: the younger wins.
  TEST_CASE(24, x6, 0x22222000, lui x14, 0x11111; lui x14, 0x22222; addi x6, x14, 0)

  # x0 as destination: nothing is written, nothing is forwarded.
  TEST_CASE(30, x14, 0, lui x0, 0x80000; add x14, x0, x0)
  TEST_CASE(31, x14, 0, lui x0, 0xfffff; nop; add x14, x0, x0)
  TEST_CASE(32, x14, 0, lui x0, 0x12345; nop; nop; addi x14, x0, 0)
TEST_CODE_END
