# Counters: mcycle/minstret and their user aliases cycle/instret, and the high halves on RV32.
#  - they advance (and so does time); cycle/instret read the same counters as mcycle/minstret;
#  - instret counts retired instructions exactly: between two reads separated by N instructions
#    the difference is N + 1 (the first read retires too), also when the N instructions include
#    stalls (load-use, mul/div) and taken branches/jumps whose squashed shadow must not count;
#  - cycles >= instructions (a single-issue core retires at most one per cycle);
#  - mcycle/minstret are writable and carry into mcycleh/minstreth.
#include "isa_macros.h"

TEST_CODE_BEGIN
  # mcycle and minstret advance.
  TEST_CASE(2, x14, 1, csrr x1, mcycle; nop; nop; nop; csrr x2, mcycle; sltu x14, x1, x2)
  TEST_CASE(3, x14, 1, csrr x1, minstret; nop; csrr x2, minstret; sltu x14, x1, x2)
  TEST_CASE(4, x14, 1, rdcycle x1; nop; nop; nop; rdcycle x2; sltu x14, x1, x2)
  TEST_CASE(5, x14, 1, rdinstret x1; nop; rdinstret x2; sltu x14, x1, x2)
  # The aliases read the same counters: instret then minstret differ by exactly 1.
  TEST_CASE(6, x14, 1, rdinstret x1; csrr x2, minstret; sub x14, x2, x1)
  TEST_CASE(7, x14, 1, csrr x1, minstret; rdinstret x2; sub x14, x2, x1)
  # cycle then mcycle: at least 1 apart, and close (well under 100 cycles).
  TEST_CASE(8, x14, 1, rdcycle x1; csrr x2, mcycle; sub x3, x2, x1; sltiu x14, x3, 100; snez x4, x3; and x14, x14, x4)

  # Exact instruction counts over straight-line code.
  TEST_CASE(10, x14, 1, rdinstret x1; rdinstret x2; sub x14, x2, x1)
  TEST_CASE(11, x14, 11, rdinstret x1; \
            addi x5, x0, 1; addi x5, x5, 1; addi x5, x5, 1; addi x5, x5, 1; addi x5, x5, 1; \
            addi x5, x5, 1; addi x5, x5, 1; addi x5, x5, 1; addi x5, x5, 1; addi x5, x5, 1; \
            rdinstret x2; sub x14, x2, x1)
  TEST_CASE(12, x14, 11, csrr x1, minstret; \
            nop; nop; nop; nop; nop; nop; nop; nop; nop; nop; \
            csrr x2, minstret; sub x14, x2, x1)
  # With stalls: load-use, mul and div results used at once.
  TEST_CASE(13, x14, 9, la x6, isa_cnt_data; li x7, 3; rdinstret x1; \
            lw x5, 0(x6); add x5, x5, x5; lw x8, 4(x6); sw x8, 8(x6); mul x5, x5, x7; div x5, x5, x7; \
            rem x8, x5, x7; addi x8, x8, 1; \
            rdinstret x2; sub x14, x2, x1)
  # With taken branches and jumps: their shadows are squashed and not counted; a not-taken branch counts.
  TEST_CASE(14, x14, 8, li x5, 1; rdinstret x1; \
            beq x5, x5, 81f; addi x7, x7, 1; addi x7, x7, 1; \
            81: bne x5, x5, isa_fail; jal x0, 82f; addi x7, x7, 1; addi x7, x7, 1; \
            82: la x6, 83f; jalr x0, 0(x6); addi x7, x7, 1; \
            83: nop; \
            rdinstret x2; sub x14, x2, x1)

  # Cycles >= instructions over a block.
  TEST_CASE(20, x14, 0, csrr x1, mcycle; csrr x3, minstret; \
            nop; nop; nop; nop; nop; nop; nop; nop; \
            csrr x2, mcycle; csrr x4, minstret; sub x2, x2, x1; sub x4, x4, x3; sltu x14, x2, x4)

  # time (a read-only shadow of the platform's mtime) advances.
  # (On Strata it counts cycles; elsewhere it may tick more slowly, so wait for a change.)
  TEST_CASE(9, x14, 1, li x3, 100000; rdtime x1; 1: rdtime x2; bne x2, x1, 2f; addi x3, x3, -1; bnez x3, 1b; \
            j isa_fail; 2: sltu x14, x1, x2)

  # High halves: a consistent 64-bit read (hi, lo, hi again); hi is 0 this soon after reset.
  TEST_CASE(30, x14, 0, csrr x1, mcycleh; csrr x2, mcycle; csrr x3, mcycleh; sub x14, x3, x1)
  TEST_CASE(31, x14, 0, csrr x14, minstreth)
  TEST_CASE(32, x14, 0, csrr x14, mcycleh)
  TEST_CASE(33, x14, 0, rdcycleh x14)
  TEST_CASE(34, x14, 0, rdinstreth x14)

  # Writes: mcycle/minstret are read-write in machine mode, and carry into the high halves.
  TEST_START(40)
  li x1, 5
  csrw mcycleh, x1
  li x1, 0xffffff00
  csrw mcycle, x1
  li x5, 200                  /* >= 400 instructions, so >= 400 cycles: past the carry */
1: addi x5, x5, -1
  bnez x5, 1b
  csrr x14, mcycleh
  CHECK_EQ(x14, 6)
  rdcycleh x14
  CHECK_EQ(x14, 6)
  csrr x14, mcycle
  li x2, 0x10000
  sltu x14, x14, x2
  CHECK_EQ(x14, 1)

  TEST_START(41)
  li x1, 7
  csrw minstreth, x1
  li x1, 0xffffffe0           /* 32 instructions before the carry */
  csrw minstret, x1
  nop; nop; nop; nop; nop; nop; nop; nop; nop; nop
  nop; nop; nop; nop; nop; nop; nop; nop; nop; nop
  nop; nop; nop; nop; nop; nop; nop; nop; nop; nop
  nop; nop; nop; nop; nop; nop; nop; nop; nop; nop
  csrr x14, minstreth
  CHECK_EQ(x14, 8)
  rdinstreth x14
  CHECK_EQ(x14, 8)
  csrr x14, minstret
  li x2, 0x100
  sltu x14, x14, x2
  CHECK_EQ(x14, 1)
TEST_CODE_END

TEST_DATA_BEGIN
isa_cnt_data: .word 7, 8, 0, 0
TEST_DATA_END
