# bltu: branch if rs1 < rs2, unsigned. Forward and backward, taken and not taken; instructions in the
# shadow of a taken branch must be squashed; x0 and rs1 == rs2 operands; operands
# forwarded into the branch; a far (~4 KiB) offset.
#include "isa_macros.h"

TEST_CODE_BEGIN
  # Values: taken forward+backward, or not taken forward+backward.
  TEST_BR2_OP_NOTTAKEN(2, bltu, 0x00000000, 0x00000000)
  TEST_BR2_OP_NOTTAKEN(3, bltu, 0x00000001, 0x00000001)
  TEST_BR2_OP_NOTTAKEN(4, bltu, 0xffffffff, 0xffffffff)
  TEST_BR2_OP_TAKEN(5, bltu, 0x00000000, 0x00000001)
  TEST_BR2_OP_NOTTAKEN(6, bltu, 0x00000001, 0x00000000)
  TEST_BR2_OP_NOTTAKEN(7, bltu, 0xffffffff, 0x00000001)
  TEST_BR2_OP_TAKEN(8, bltu, 0x00000001, 0xffffffff)
  TEST_BR2_OP_TAKEN(9, bltu, 0xfffffffe, 0xffffffff)
  TEST_BR2_OP_NOTTAKEN(10, bltu, 0xffffffff, 0xfffffffe)
  TEST_BR2_OP_TAKEN(11, bltu, 0x7fffffff, 0x80000000)
  TEST_BR2_OP_NOTTAKEN(12, bltu, 0x80000000, 0x7fffffff)
  TEST_BR2_OP_NOTTAKEN(13, bltu, 0x80000000, 0x80000000)
  TEST_BR2_OP_NOTTAKEN(14, bltu, 0x7fffffff, 0x7fffffff)
  TEST_BR2_OP_NOTTAKEN(15, bltu, 0xffffffff, 0x00000000)
  TEST_BR2_OP_TAKEN(16, bltu, 0x00000000, 0xffffffff)
  TEST_BR2_OP_TAKEN(17, bltu, 0x12345678, 0x12345679)
  TEST_BR2_OP_NOTTAKEN(18, bltu, 0x80000001, 0x00000001)
  TEST_BR2_OP_TAKEN(19, bltu, 0x00000001, 0x80000001)

  # x0 operands (x1 = val1, x2 = val2) and the same register twice.
  TEST_BR_REGS(30, bltu, 0, x0, x0, 0x00000005, 0x00000005)
  TEST_BR_REGS(31, bltu, 0, x1, x0, 0x00000000, 0x00000007)
  TEST_BR_REGS(32, bltu, 0, x1, x0, 0x00000001, 0x00000007)
  TEST_BR_REGS(33, bltu, 0, x1, x0, 0xffffffff, 0x00000007)
  TEST_BR_REGS(34, bltu, 0, x0, x2, 0x00000007, 0x00000000)
  TEST_BR_REGS(35, bltu, 1, x0, x2, 0x00000007, 0x00000001)
  TEST_BR_REGS(36, bltu, 1, x0, x2, 0x00000007, 0xffffffff)
  TEST_BR_REGS(37, bltu, 0, x1, x1, 0x80000000, 0x00000003)
  TEST_BR_REGS(38, bltu, 0, x2, x2, 0x00000003, 0xffffffff)

  # Operands produced 1..3 instructions before the branch.
  TEST_BR2_SRC12_BYPASS(50, 0, 0, bltu, 1, 0x00000001, 0x80000001)
  TEST_BR2_SRC12_BYPASS(51, 0, 1, bltu, 1, 0x00000001, 0x80000001)
  TEST_BR2_SRC12_BYPASS(52, 0, 2, bltu, 1, 0x00000001, 0x80000001)
  TEST_BR2_SRC12_BYPASS(53, 1, 0, bltu, 1, 0x00000001, 0x80000001)
  TEST_BR2_SRC12_BYPASS(54, 1, 1, bltu, 1, 0x00000001, 0x80000001)
  TEST_BR2_SRC12_BYPASS(55, 2, 0, bltu, 1, 0x00000001, 0x80000001)
  TEST_BR2_SRC21_BYPASS(56, 0, 0, bltu, 1, 0x00000001, 0x80000001)
  TEST_BR2_SRC21_BYPASS(57, 0, 1, bltu, 1, 0x00000001, 0x80000001)
  TEST_BR2_SRC21_BYPASS(58, 0, 2, bltu, 1, 0x00000001, 0x80000001)
  TEST_BR2_SRC21_BYPASS(59, 1, 0, bltu, 1, 0x00000001, 0x80000001)
  TEST_BR2_SRC21_BYPASS(60, 1, 1, bltu, 1, 0x00000001, 0x80000001)
  TEST_BR2_SRC21_BYPASS(61, 2, 0, bltu, 1, 0x00000001, 0x80000001)
  TEST_BR2_SRC12_BYPASS(62, 0, 0, bltu, 0, 0x80000001, 0x00000001)
  TEST_BR2_SRC12_BYPASS(63, 0, 1, bltu, 0, 0x80000001, 0x00000001)
  TEST_BR2_SRC12_BYPASS(64, 0, 2, bltu, 0, 0x80000001, 0x00000001)
  TEST_BR2_SRC12_BYPASS(65, 1, 0, bltu, 0, 0x80000001, 0x00000001)
  TEST_BR2_SRC12_BYPASS(66, 1, 1, bltu, 0, 0x80000001, 0x00000001)
  TEST_BR2_SRC12_BYPASS(67, 2, 0, bltu, 0, 0x80000001, 0x00000001)
  TEST_BR2_SRC21_BYPASS(68, 0, 0, bltu, 0, 0x80000001, 0x00000001)
  TEST_BR2_SRC21_BYPASS(69, 0, 1, bltu, 0, 0x80000001, 0x00000001)
  TEST_BR2_SRC21_BYPASS(70, 0, 2, bltu, 0, 0x80000001, 0x00000001)
  TEST_BR2_SRC21_BYPASS(71, 1, 0, bltu, 0, 0x80000001, 0x00000001)
  TEST_BR2_SRC21_BYPASS(72, 1, 1, bltu, 0, 0x80000001, 0x00000001)
  TEST_BR2_SRC21_BYPASS(73, 2, 0, bltu, 0, 0x80000001, 0x00000001)

  # Far offsets (bit 11 and up, near the +-4 KiB limit), both directions.
  TEST_BR2_FAR_TAKEN(80, bltu, 0x00000001, 0x80000001)

  # The pc after a taken branch and after a not-taken backward branch.
  TEST_BR2_TAKEN_PC(81, bltu, 0x00000001, 0x80000001)
  TEST_BR2_BACK_NOTTAKEN_PC(82, bltu, 0x80000001, 0x00000001)
TEST_CODE_END
