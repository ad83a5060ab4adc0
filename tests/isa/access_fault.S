# Access faults: nothing is mapped at address 0 (SMEM is at 0x8000_0000, MMIO at 0x1000_0000).
#  - loads: mcause 5, mtval = the address, mepc = the load, rd not written, dependants do not run;
#  - stores: mcause 7, mtval = the address, mepc = the store;
#  - a jump to an unmapped address: mcause 1 with mepc = the target (the fetch faults, not the
#    jump); the jump itself completed, so its link register is written;
#  - a taken branch or jal to an address below SMEM faults at the target; not taken, nothing;
#  - a faulting access on a squashed path does not trap.
#include "isa_macros.h"

#define SENTINEL 0x5a5a5a5a

#define TEST_LOAD_FAULT(testnum, inst, base, imm) \
  TEST_START(testnum) \
  li x1, base; \
  li x14, SENTINEL; \
  li x15, 0; \
  TRAP_EXPECT(86f); \
85: inst x14, imm(x1); \
  addi x15, x14, 1; \
  j isa_fail; \
86: \
  CHECK_EQ(x14, SENTINEL) \
  CHECK_EQ(x15, 0) \
  CHECK_TRAP_COUNT(1) \
  CHECK_TRAP_CAUSE(CAUSE_LOAD_ACCESS) \
  CHECK_TRAP_EPC(85b) \
  CHECK_TRAP_TVAL((base) + (imm))

#define TEST_STORE_FAULT(testnum, inst, base, imm) \
  TEST_START(testnum) \
  li x1, base; \
  li x2, -1; \
  TRAP_EXPECT(86f); \
85: inst x2, imm(x1); \
  j isa_fail; \
86: \
  CHECK_TRAP_COUNT(1) \
  CHECK_TRAP_CAUSE(CAUSE_STORE_ACCESS) \
  CHECK_TRAP_EPC(85b) \
  CHECK_TRAP_TVAL((base) + (imm))

TEST_CODE_BEGIN
  # Branches and a jal near the start of SMEM whose targets (about 4 KiB back) are below SMEM.
  # Not taken (though backward, so possibly predicted taken): no trap.
  TEST_START(50)
  li x1, 1
  TRAP_EXPECT(isa_fail)
  beq x1, x0, . - 0xff0
  bne x1, x1, . - 0xff0
  bltu x1, x0, . - 0xff0
  CHECK_NO_TRAP
  # Taken: the fetch at the target faults (mcause 1, mepc = the target).
  TEST_START(51)
  TRAP_EXPECT(86f)
85: beq x0, x0, . - 0xff0
  j isa_fail
86: CHECK_TRAP_COUNT(1)
  CHECK_TRAP_CAUSE(CAUSE_FETCH_ACCESS)
  CHECK_TRAP_EPC(85b - 0xff0)
  TEST_START(52)
  li x15, 0
  TRAP_EXPECT(86f)
85: jal x15, . - 0xff0
  j isa_fail
86: CHECK_EQ_ADDR(x15, 85b + 4)
  CHECK_TRAP_COUNT(1)
  CHECK_TRAP_CAUSE(CAUSE_FETCH_ACCESS)
  CHECK_TRAP_EPC(85b - 0xff0)

  TEST_LOAD_FAULT(2, lw, 0, 0)
  TEST_LOAD_FAULT(3, lw, 0, 8)
  TEST_LOAD_FAULT(4, lw, 0x100, -0xf8)
  TEST_LOAD_FAULT(5, lb, 0, 3)
  TEST_LOAD_FAULT(6, lbu, 0, 5)
  TEST_LOAD_FAULT(7, lh, 0, 6)
  TEST_LOAD_FAULT(8, lhu, 0, 2)

  TEST_STORE_FAULT(10, sw, 0, 0)
  TEST_STORE_FAULT(11, sw, 0, 12)
  TEST_STORE_FAULT(12, sh, 0, 2)
  TEST_STORE_FAULT(13, sb, 0, 7)
  TEST_STORE_FAULT(14, sb, 0x100, -0xff)

  # Jump to address 0: the fetch faults at the target; the link is written.
  TEST_START(20)
  li x15, SENTINEL
  TRAP_EXPECT(86f)
85: jalr x15, 0(x0)
  j isa_fail
86: CHECK_EQ_ADDR(x15, 85b + 4)
  CHECK_TRAP_COUNT(1)
  CHECK_TRAP_CAUSE(CAUSE_FETCH_ACCESS)
  TRAP_REC_LOAD(x14, TRAP_REC_EPC)
  CHECK_EQ(x14, 0)
  CHECK_TRAP_TVAL(0)

  TEST_START(21)
  li x1, 0x40
  TRAP_EXPECT(86f)
85: jalr x15, 8(x1)
  j isa_fail
86: CHECK_EQ_ADDR(x15, 85b + 4)
  CHECK_TRAP_COUNT(1)
  CHECK_TRAP_CAUSE(CAUSE_FETCH_ACCESS)
  TRAP_REC_LOAD(x14, TRAP_REC_EPC)
  CHECK_EQ(x14, 0x48)

  # A store before a faulting load completes; a store after it does not happen.
  TEST_START(30)
  la x8, isa_af_buf
  sw x0, 0(x8)
  sw x0, 4(x8)
  li x9, 0x33
  TRAP_EXPECT(86f)
  sw x9, 0(x8)
85: lw x14, 0(x0)
  sw x9, 4(x8)
  j isa_fail
86: CHECK_TRAP_EPC(85b)
  lw x14, 0(x8)
  CHECK_EQ(x14, 0x33)
  lw x14, 4(x8)
  CHECK_EQ(x14, 0)

  # Faulting accesses and a jump to 0 on a squashed path do not trap.
  TEST_START(31)
  TRAP_EXPECT(isa_fail)
  j 1f
  lw x14, 0(x0)
  sw x0, 0(x0)
1: beq x0, x0, 2f
  jalr x0, 0(x0)
2: CHECK_NO_TRAP
TEST_CODE_END

TEST_DATA_BEGIN
isa_af_buf: .word 0, 0
TEST_DATA_END
