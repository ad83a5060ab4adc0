# auipc: rd = pc + (imm20 << 12), with wrap-around.
#include "isa_macros.h"

TEST_CODE_BEGIN
  # auipc x, 0 reads its own address.
  TEST_CASE_ADDR(2, x14, 1b, 1: auipc x14, 0)
  TEST_CASE_ADDR(3, x14, 1b + 0x1000, 1: auipc x14, 1)
  TEST_CASE_ADDR(4, x14, 1b - 0x1000, 1: auipc x14, 0xfffff)
  TEST_CASE_ADDR(5, x14, 1b + 0x7ff000, 1: auipc x14, 0x7ff)
  # Two in a row differ by 4.
  TEST_CASE(6, x14, 4, auipc x1, 0; auipc x2, 0; sub x14, x2, x1)
  # Large immediates wrap around the address space: pc + 0x80000000 - (pc + 4).
  TEST_CASE(7, x14, 0x7ffffffc, auipc x1, 0x80000; auipc x2, 0; sub x14, x1, x2)
  TEST_CASE(8, x14, 0x7ffff004, auipc x1, 0; auipc x2, 0x7ffff; sub x14, x2, x1)
  TEST_CASE(9, x14, 0x80001004, auipc x1, 0; auipc x2, 0x80001; sub x14, x2, x1)
  # auipc + addi and auipc + jalr: the la/call idioms reach the label.
  TEST_CASE_ADDR(10, x14, isa_auipc_target, 1: auipc x14, %pcrel_hi(isa_auipc_target); addi x14, x14, %pcrel_lo(1b))

  # Forwarding: the result used 1..4 instructions later.
  TEST_CASE_ADDR(20, x6, 1b, 1: auipc x14, 0; addi x6, x14, 0)
  TEST_CASE_ADDR(21, x6, 1b, 1: auipc x14, 0; nop; addi x6, x14, 0)
  TEST_CASE_ADDR(22, x6, 1b, 1: auipc x14, 0; nop; nop; addi x6, x14, 0)
  TEST_CASE_ADDR(23, x6, 1b, 1: auipc x14, 0; nop; nop; nop; addi x6, x14, 0)

  # x0 as destination.
  TEST_CASE(30, x14, 0, auipc x0, 0x80000; add x14, x0, x0)
  TEST_CASE(31, x14, 0, auipc x0, 1; nop; add x14, x0, x0)
TEST_CODE_END

TEST_DATA_BEGIN
isa_auipc_target: .word 0x600dc0de
TEST_DATA_END
