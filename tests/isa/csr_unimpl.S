# CSR accesses that must raise an illegal-instruction exception (mcause 2, mepc = the instruction,
# mtval = its bits, rd unchanged):
#  - any access to a CSR number the core does not implement, by each of the six CSR instructions;
#  - an attempted write to a read-only CSR number (bits 11:10 == 3): csrrw/csrrwi always write
#    (also with rd = x0 or rs1 = x0), csrrs/csrrc write when rs1 is not x0 even if its value is 0,
#    csrrsi/csrrci when uimm is not 0.
# The non-writing forms on read-only CSRs succeed (see csr.S); a CSR access on a squashed path
# never traps.
#include "isa_macros.h"

TEST_CODE_BEGIN
  # Unimplemented CSR numbers.
  TEST_ILLEGAL(2, csrr x14, 0x7c0)              /* custom machine read/write */
  TEST_ILLEGAL(3, csrr x14, satp)               /* 0x180: no S-mode */
  TEST_ILLEGAL(4, csrr x14, sstatus)            /* 0x100 */
  TEST_ILLEGAL(5, csrr x14, stvec)              /* 0x105 */
  TEST_ILLEGAL(6, csrr x14, 0x800)              /* custom user read/write */
  TEST_ILLEGAL(7, csrr x14, 0xfff)              /* unallocated, read-only number */
  TEST_ILLEGAL(8, csrr x14, 0x5c0)              /* custom supervisor */
  # Each instruction form on an unimplemented CSR.
  TEST_ILLEGAL(10, li x1, 1; 85: csrrw x14, 0x7c0, x1)
  TEST_ILLEGAL(11, li x1, 1; 85: csrrs x14, 0x7c0, x1)
  TEST_ILLEGAL(12, li x1, 1; 85: csrrc x14, 0x7c0, x1)
  TEST_ILLEGAL(13, csrrwi x14, 0x7c0, 1)
  TEST_ILLEGAL(14, csrrsi x14, 0x7c0, 1)
  TEST_ILLEGAL(15, csrrci x14, 0x7c0, 1)
  TEST_ILLEGAL(16, csrrsi x14, 0x7c0, 0)
  TEST_ILLEGAL(17, csrrw x0, 0x7c0, x0)
  TEST_ILLEGAL(18, csrrw x0, satp, x0)

  # Writes to read-only CSR numbers.
  TEST_ILLEGAL(20, li x1, 5; 85: csrw cycle, x1)             /* csrrw x0, cycle, x1 */
  TEST_ILLEGAL(21, csrrw x14, cycle, x0)                     /* csrrw writes even from x0 */
  TEST_ILLEGAL(22, csrrw x0, instret, x0)
  TEST_ILLEGAL(23, li x1, 0; 85: csrrs x14, cycle, x1)       /* rs1 != x0 with value 0 still writes */
  TEST_ILLEGAL(24, li x1, 0; 85: csrrc x14, instret, x1)
  TEST_ILLEGAL(25, csrrsi x14, cycle, 1)
  TEST_ILLEGAL(26, csrrci x14, instret, 4)
  TEST_ILLEGAL(27, csrrwi x14, cycle, 0)                     /* csrrwi writes even with uimm 0 */
  TEST_ILLEGAL(28, li x1, 1; 85: csrrw x14, mhartid, x1)
  TEST_ILLEGAL(29, li x1, 0; 85: csrrs x14, mhartid, x1)
  TEST_ILLEGAL(30, csrrsi x14, mhartid, 1)
  TEST_ILLEGAL(31, csrrwi x0, mhartid, 0)
  TEST_ILLEGAL(32, csrrw x14, cycleh, x0)
  TEST_ILLEGAL(33, csrrs x14, instreth, x14)

  # The rejected write changed nothing: mhartid still reads 0, the counters still advance.
  TEST_CASE(40, x14, 0, csrr x14, mhartid)
  TEST_CASE(41, x14, 1, rdinstret x1; nop; rdinstret x2; sub x14, x2, x1; addi x14, x14, -1)

  # CSR accesses on a squashed path never trap.
  TEST_START(50)
  TRAP_EXPECT(isa_fail)
  j 1f
  csrr x14, 0x7c0
  csrw cycle, x1
1: beq x0, x0, 2f
  csrrwi x0, mhartid, 1
2: CHECK_NO_TRAP
TEST_CODE_END
