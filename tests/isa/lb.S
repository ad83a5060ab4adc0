# lb: load a byte, sign-extended.
# Every aligned offset in 16 bytes of data, positive, negative and extreme (+2047/-2048)
# immediates, rd == base, the loaded value used 1..4 instructions
# later (0 = load-use hazard), the base register produced just before, x0 as rd.
#include "isa_macros.h"

TEST_CODE_BEGIN
  # Every aligned offset.
  TEST_LD_OP(2, lb, 0xffffff81, 0, isa_ld_data)
  TEST_LD_OP(3, lb, 0x0000007f, 1, isa_ld_data)
  TEST_LD_OP(4, lb, 0x00000000, 2, isa_ld_data)
  TEST_LD_OP(5, lb, 0xffffffff, 3, isa_ld_data)
  TEST_LD_OP(6, lb, 0x00000012, 4, isa_ld_data)
  TEST_LD_OP(7, lb, 0xffffff80, 5, isa_ld_data)
  TEST_LD_OP(8, lb, 0xfffffffe, 6, isa_ld_data)
  TEST_LD_OP(9, lb, 0x00000034, 7, isa_ld_data)
  TEST_LD_OP(10, lb, 0xffffffef, 8, isa_ld_data)
  TEST_LD_OP(11, lb, 0xffffffbe, 9, isa_ld_data)
  TEST_LD_OP(12, lb, 0xffffffad, 10, isa_ld_data)
  TEST_LD_OP(13, lb, 0xffffffde, 11, isa_ld_data)
  TEST_LD_OP(14, lb, 0x00000001, 12, isa_ld_data)
  TEST_LD_OP(15, lb, 0x00000070, 13, isa_ld_data)
  TEST_LD_OP(16, lb, 0xffffff80, 14, isa_ld_data)
  TEST_LD_OP(17, lb, 0x00000000, 15, isa_ld_data)

  # Negative offsets from the end, and the extreme immediates.
  TEST_LD_OP(20, lb, 0x00000000, -1, isa_ld_end)
  TEST_LD_OP(21, lb, 0xffffffde, -5, isa_ld_end)
  TEST_LD_OP(22, lb, 0x00000034, -9, isa_ld_end)
  TEST_LD_OP(23, lb, 0x00000000, 2047, isa_ld_data + 15 - 2047)
  TEST_LD_OP(24, lb, 0xffffff81, -2048, isa_ld_data + 2048)
  TEST_LD_OP(25, lb, 0x00000012, 0x7fc, isa_ld_data + 4 - 0x7fc)

  # rd == base register.
  TEST_CASE(30, x1, 0x00000012, la x1, isa_ld_data; lb x1, 4(x1))

  # The loaded value used 1..4 instructions later (0 nops = load-use hazard).
  TEST_LD_DEST_BYPASS(40, 0, lb, 0x0000007f, 1, isa_ld_data)
  TEST_LD_DEST_BYPASS(41, 1, lb, 0x00000012, 4, isa_ld_data)
  TEST_LD_DEST_BYPASS(42, 2, lb, 0x00000034, 7, isa_ld_data)
  TEST_LD_DEST_BYPASS(43, 3, lb, 0xffffffad, 10, isa_ld_data)
  # Load-use into both sources of an ALU op, and into a store (data and address).
  TEST_CASE(44, x14, 0x0000007f, la x1, isa_ld_data; lb x2, 1(x1); lb x3, 15(x1); add x14, x2, x3)
  TEST_CASE(45, x14, 0x000000fe, la x1, isa_ld_data; lb x2, 1(x1); add x14, x2, x2)
  TEST_CASE(46, x14, 0x0000007f, la x1, isa_ld_data; la x5, isa_ld_scratch; lb x2, 1(x1); sw x2, 0(x5); lw x14, 0(x5))
  TEST_CASE(47, x14, 0x0000abcd, la x1, isa_ld_ptr; li x2, 0xabcd; lw x5, 0(x1); sw x2, 0(x5); lw x14, 0(x5))
  # Load-use into a branch.
  TEST_CASE(48, x14, 1, li x14, 0; la x1, isa_ld_data; li x2, 0x0000007f; lb x3, 1(x1); bne x3, x2, isa_fail; li x14, 1)

  # The base register produced 1..3 instructions before the load.
  TEST_LD_SRC1_BYPASS(50, 0, lb, 0x00000000, 2, isa_ld_data)
  TEST_LD_SRC1_BYPASS(51, 1, lb, 0x00000034, 7, isa_ld_data)
  TEST_LD_SRC1_BYPASS(52, 2, lb, 0x00000001, 12, isa_ld_data)

  # x0 as rd: the load happens, nothing is written or forwarded.
  TEST_CASE(60, x14, 0, la x1, isa_ld_data; lb x0, 15(x1); add x14, x0, x0)
  TEST_CASE(61, x14, 0, la x1, isa_ld_data; lb x0, 0(x1); nop; addi x14, x0, 0)
TEST_CODE_END

TEST_DATA_BEGIN
  .balign 16
  # 16 bytes of mixed signs: words 0xff007f81 0x34fe8012 0xdeadbeef 0x00807001.
isa_ld_data:
  .byte 0x81, 0x7f, 0x00, 0xff, 0x12, 0x80, 0xfe, 0x34
  .byte 0xef, 0xbe, 0xad, 0xde, 0x01, 0x70, 0x80, 0x00
isa_ld_end:
isa_ld_ptr: .word isa_ld_scratch
isa_ld_scratch: .word 0
TEST_DATA_END
