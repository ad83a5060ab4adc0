# Illegal instructions: mcause 2, mepc = the instruction, mtval = the instruction bits, rd not
# written, the instruction before it completes and the one after it does not run. An illegal word
# on a squashed wrong path (after a taken branch or jump) must not trap.
#include "isa_macros.h"

TEST_CODE_BEGIN
  # Defined-illegal and unimplemented-extension encodings.
  TEST_ILLEGAL(2, .word 0x00000000)   /* all zero: defined illegal */
  TEST_ILLEGAL(3, .word 0xffffffff)   /* all ones: defined illegal */
  TEST_ILLEGAL(4, .word 0x0000870b)   /* custom-0 opcode, rd = x14 */
  TEST_ILLEGAL(5, .word 0x00004501)   /* low bits 01: a 16-bit (C) encoding, no C extension */
  TEST_ILLEGAL(6, .word 0x1000a72f)   /* lr.w x14: no A extension */
  TEST_ILLEGAL(7, .word 0x0000a087)   /* flw: no F extension */
  TEST_ILLEGAL(8, .word 0x002080d3)   /* fadd.s: no F extension */
  TEST_ILLEGAL(9, .word 0x0020873b)   /* addw x14: RV64 only */
  TEST_ILLEGAL(10, .word 0x0010871b)  /* addiw x14: RV64 only */
  TEST_ILLEGAL(11, .word 0x10200073)  /* sret: no S-mode */
  TEST_ILLEGAL(12, .word 0x00200073)  /* uret: no user-mode traps */
  TEST_ILLEGAL(13, .word 0x0000b703)  /* ld x14: RV64 only */
  TEST_ILLEGAL(14, .word 0x0000e703)  /* lwu x14: RV64 only */
  TEST_ILLEGAL(15, .word 0x0020b023)  /* sd: RV64 only */
  TEST_ILLEGAL(16, .word 0x02009713)  /* slli x14, x1, 32: shamt[5] = 1 is RV64 only */

  # Reserved encodings inside implemented major opcodes (the ISA leaves these reserved; this core
  # decodes them as illegal rather than executing something).
  TEST_ILLEGAL(20, .word 0x40209733)  /* OP funct7 0x20 with funct3 sll */
  TEST_ILLEGAL(21, .word 0x04208733)  /* OP funct7 0x02 */
  TEST_ILLEGAL(22, .word 0x2050d713)  /* OP-IMM shift-right with funct7 0x10 */
  TEST_ILLEGAL(23, .word 0x40509713)  /* OP-IMM slli with funct7 0x20 */
  TEST_ILLEGAL(24, .word 0x0020a063)  /* BRANCH funct3 2 */
  TEST_ILLEGAL(25, .word 0x0020b063)  /* BRANCH funct3 3 */
  TEST_ILLEGAL(26, .word 0x0000f703)  /* LOAD funct3 7 */
  TEST_ILLEGAL(27, .word 0x0020c023)  /* STORE funct3 4 */
  TEST_ILLEGAL(28, .word 0x00009767)  /* JALR funct3 1 */
  TEST_ILLEGAL(29, .word 0x0000200f)  /* MISC-MEM funct3 2 */
  TEST_ILLEGAL(30, .word 0xc0004773)  /* SYSTEM funct3 4 */
  TEST_ILLEGAL(31, .word 0x00300073)  /* SYSTEM funct3 0, funct12 3 */

  # Precise: the instruction before the illegal one completes, the ones after it do not run.
  TEST_START(40)
  li x15, 1
  li x16, 0
  la x8, isa_ill_data
  sw x0, 0(x8)
  li x9, 0x77
  TRAP_EXPECT(86f)
  sw x9, 0(x8)
  addi x15, x15, 1
85: .word 0
  addi x15, x15, 0x10
  sw x15, 0(x8)
  addi x16, x16, 1
86: CHECK_TRAP_COUNT(1)
  CHECK_TRAP_EPC(85b)
  CHECK_EQ(x15, 2)
  CHECK_EQ(x16, 0)
  lw x14, 0(x8)
  CHECK_EQ(x14, 0x77)

  # Illegal words on a squashed path after a taken branch, jal and jalr never trap.
  TEST_START(41)
  TRAP_EXPECT(isa_fail)
  beq x0, x0, 1f
  .word 0x00000000
  .word 0xffffffff
1: jal x0, 2f
  .word 0x00000000
  .word 0x0000870b
2: la x8, 3f
  jalr x0, 0(x8)
  .word 0xffffffff
  .word 0x00000000
3: bne x0, x0, isa_fail
  j 4f
  .word 0
4: CHECK_NO_TRAP

  # Trap and return twice in a row (the handler state is re-armed correctly).
  TEST_ILLEGAL(42, .word 0x00000000)
  TEST_ILLEGAL(43, .word 0x00000000)
TEST_CODE_END

TEST_DATA_BEGIN
isa_ill_data: .word 0
TEST_DATA_END
