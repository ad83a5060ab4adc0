# bgeu: branch if rs1 >= rs2, unsigned. Forward and backward, taken and not taken; instructions in the
# shadow of a taken branch must be squashed; x0 and rs1 == rs2 operands; operands
# forwarded into the branch; a far (~4 KiB) offset.
#include "isa_macros.h"

TEST_CODE_BEGIN
  # Values: taken forward+backward, or not taken forward+backward.
  TEST_BR2_OP_TAKEN(2, bgeu, 0x00000000, 0x00000000)
  TEST_BR2_OP_TAKEN(3, bgeu, 0x00000001, 0x00000001)
  TEST_BR2_OP_TAKEN(4, bgeu, 0xffffffff, 0xffffffff)
  TEST_BR2_OP_NOTTAKEN(5, bgeu, 0x00000000, 0x00000001)
  TEST_BR2_OP_TAKEN(6, bgeu, 0x00000001, 0x00000000)
  TEST_BR2_OP_TAKEN(7, bgeu, 0xffffffff, 0x00000001)
  TEST_BR2_OP_NOTTAKEN(8, bgeu, 0x00000001, 0xffffffff)
  TEST_BR2_OP_NOTTAKEN(9, bgeu, 0xfffffffe, 0xffffffff)
  TEST_BR2_OP_TAKEN(10, bgeu, 0xffffffff, 0xfffffffe)
  TEST_BR2_OP_NOTTAKEN(11, bgeu, 0x7fffffff, 0x80000000)
  TEST_BR2_OP_TAKEN(12, bgeu, 0x80000000, 0x7fffffff)
  TEST_BR2_OP_TAKEN(13, bgeu, 0x80000000, 0x80000000)
  TEST_BR2_OP_TAKEN(14, bgeu, 0x7fffffff, 0x7fffffff)
  TEST_BR2_OP_TAKEN(15, bgeu, 0xffffffff, 0x00000000)
  TEST_BR2_OP_NOTTAKEN(16, bgeu, 0x00000000, 0xffffffff)
  TEST_BR2_OP_NOTTAKEN(17, bgeu, 0x12345678, 0x12345679)
  TEST_BR2_OP_TAKEN(18, bgeu, 0x80000001, 0x00000001)
  TEST_BR2_OP_NOTTAKEN(19, bgeu, 0x00000001, 0x80000001)

  # x0 operands (x1 = val1, x2 = val2) and the same register twice.
  TEST_BR_REGS(30, bgeu, 1, x0, x0, 0x00000005, 0x00000005)
  TEST_BR_REGS(31, bgeu, 1, x1, x0, 0x00000000, 0x00000007)
  TEST_BR_REGS(32, bgeu, 1, x1, x0, 0x00000001, 0x00000007)
  TEST_BR_REGS(33, bgeu, 1, x1, x0, 0xffffffff, 0x00000007)
  TEST_BR_REGS(34, bgeu, 1, x0, x2, 0x00000007, 0x00000000)
  TEST_BR_REGS(35, bgeu, 0, x0, x2, 0x00000007, 0x00000001)
  TEST_BR_REGS(36, bgeu, 0, x0, x2, 0x00000007, 0xffffffff)
  TEST_BR_REGS(37, bgeu, 1, x1, x1, 0x80000000, 0x00000003)
  TEST_BR_REGS(38, bgeu, 1, x2, x2, 0x00000003, 0xffffffff)

  # Operands produced 1..3 instructions before the branch.
  TEST_BR2_SRC12_BYPASS(50, 0, 0, bgeu, 1, 0x80000001, 0x00000001)
  TEST_BR2_SRC12_BYPASS(51, 0, 1, bgeu, 1, 0x80000001, 0x00000001)
  TEST_BR2_SRC12_BYPASS(52, 0, 2, bgeu, 1, 0x80000001, 0x00000001)
  TEST_BR2_SRC12_BYPASS(53, 1, 0, bgeu, 1, 0x80000001, 0x00000001)
  TEST_BR2_SRC12_BYPASS(54, 1, 1, bgeu, 1, 0x80000001, 0x00000001)
  TEST_BR2_SRC12_BYPASS(55, 2, 0, bgeu, 1, 0x80000001, 0x00000001)
  TEST_BR2_SRC21_BYPASS(56, 0, 0, bgeu, 1, 0x80000001, 0x00000001)
  TEST_BR2_SRC21_BYPASS(57, 0, 1, bgeu, 1, 0x80000001, 0x00000001)
  TEST_BR2_SRC21_BYPASS(58, 0, 2, bgeu, 1, 0x80000001, 0x00000001)
  TEST_BR2_SRC21_BYPASS(59, 1, 0, bgeu, 1, 0x80000001, 0x00000001)
  TEST_BR2_SRC21_BYPASS(60, 1, 1, bgeu, 1, 0x80000001, 0x00000001)
  TEST_BR2_SRC21_BYPASS(61, 2, 0, bgeu, 1, 0x80000001, 0x00000001)
  TEST_BR2_SRC12_BYPASS(62, 0, 0, bgeu, 0, 0x00000001, 0x80000001)
  TEST_BR2_SRC12_BYPASS(63, 0, 1, bgeu, 0, 0x00000001, 0x80000001)
  TEST_BR2_SRC12_BYPASS(64, 0, 2, bgeu, 0, 0x00000001, 0x80000001)
  TEST_BR2_SRC12_BYPASS(65, 1, 0, bgeu, 0, 0x00000001, 0x80000001)
  TEST_BR2_SRC12_BYPASS(66, 1, 1, bgeu, 0, 0x00000001, 0x80000001)
  TEST_BR2_SRC12_BYPASS(67, 2, 0, bgeu, 0, 0x00000001, 0x80000001)
  TEST_BR2_SRC21_BYPASS(68, 0, 0, bgeu, 0, 0x00000001, 0x80000001)
  TEST_BR2_SRC21_BYPASS(69, 0, 1, bgeu, 0, 0x00000001, 0x80000001)
  TEST_BR2_SRC21_BYPASS(70, 0, 2, bgeu, 0, 0x00000001, 0x80000001)
  TEST_BR2_SRC21_BYPASS(71, 1, 0, bgeu, 0, 0x00000001, 0x80000001)
  TEST_BR2_SRC21_BYPASS(72, 1, 1, bgeu, 0, 0x00000001, 0x80000001)
  TEST_BR2_SRC21_BYPASS(73, 2, 0, bgeu, 0, 0x00000001, 0x80000001)

  # Far offsets (bit 11 and up, near the +-4 KiB limit), both directions.
  TEST_BR2_FAR_TAKEN(80, bgeu, 0x80000001, 0x00000001)

  # The pc after a taken branch and after a not-taken backward branch.
  TEST_BR2_TAKEN_PC(81, bgeu, 0x80000001, 0x00000001)
  TEST_BR2_BACK_NOTTAKEN_PC(82, bgeu, 0x00000001, 0x80000001)
TEST_CODE_END
