# Data hazards: read-after-write through every forwarding distance 1..4 from ALU ops, loads,
# mul and div (both operands, both at once from different stages), long dependency chains, the
# youngest of several in-flight writers winning, write-after-write between a long-latency op
# (div, load) and a younger short one, and loaded/computed values feeding addresses, store data,
# branches and jumps.
#include "isa_macros.h"

TEST_CODE_BEGIN
  # ALU producer, distances 1..4, into rs1 / rs2.
  TEST_CASE(2, x6, 0x10, li x1, 8; addi x5, x1, 0; add x6, x5, x1)
  TEST_CASE(3, x6, 0x11, li x1, 8; addi x5, x1, 1; nop; add x6, x1, x5)
  TEST_CASE(4, x6, 0x12, li x1, 8; addi x5, x1, 2; nop; nop; add x6, x5, x1)
  TEST_CASE(5, x6, 0x13, li x1, 8; addi x5, x1, 3; nop; nop; nop; add x6, x1, x5)
  TEST_CASE(6, x6, 0x14, li x1, 8; addi x5, x1, 4; nop; nop; nop; nop; add x6, x5, x1)

  # Both operands from different distances at once: (1,2) (2,1) (1,3) (3,1) (2,3) (1,4).
  TEST_CASE(10, x6, 0x300, li x1, 0x100; li x2, 0x200; add x6, x2, x1)
  TEST_CASE(11, x6, 0x301, li x2, 0x201; li x1, 0x100; add x6, x2, x1)
  TEST_CASE(12, x6, 0x302, li x1, 0x100; li x2, 0x202; nop; add x6, x1, x2)
  TEST_CASE(13, x6, 0x303, li x2, 0x203; nop; li x1, 0x100; add x6, x1, x2)
  TEST_CASE(14, x6, 0x304, li x1, 0x100; nop; li x2, 0x204; nop; nop; add x6, x1, x2)
  TEST_CASE(15, x6, 0x305, li x1, 0x100; li x2, 0x205; nop; nop; nop; sub x6, x2, x1; addi x6, x6, 0x200)

  # The youngest writer wins when several are in flight.
  TEST_CASE(20, x6, 3, li x5, 1; li x5, 2; li x5, 3; add x6, x5, x0)
  TEST_CASE(21, x6, 3, li x5, 1; li x5, 2; nop; li x5, 3; nop; add x6, x0, x5)
  TEST_CASE(22, x6, 2, la x1, isa_hz_data; lw x5, 0(x1); li x5, 2; add x6, x5, x0)
  TEST_CASE(23, x6, 0x11, la x1, isa_hz_data; li x5, 2; lw x5, 4(x1); add x6, x5, x0)
  TEST_CASE(24, x6, 9, li x1, 100; li x2, 7; div x5, x1, x2; li x5, 9; add x6, x5, x0)
  TEST_CASE(25, x6, 14, li x1, 100; li x2, 7; li x5, 9; div x5, x1, x2; add x6, x5, x0)
  TEST_CASE(26, x6, 5, li x1, 100; li x2, 7; mul x5, x1, x2; addi x5, x0, 5; add x6, x5, x0)
  TEST_CASE(27, x6, 5, li x1, 100; li x2, 7; div x5, x1, x2; nop; addi x5, x0, 5; mv x6, x5)

  # Long dependent chain (each result used by the next instruction): fibonacci-like.
  TEST_START(30)
  li x5, 1
  li x6, 1
  add x7, x5, x6
  add x8, x6, x7
  add x9, x7, x8
  add x10, x8, x9
  add x11, x9, x10
  add x12, x10, x11
  add x13, x11, x12
  add x14, x12, x13
  add x15, x13, x14
  add x16, x14, x15
  CHECK_EQ(x16, 144)
  CHECK_EQ(x15, 89)

  # Loads: load-use at distances 1..4 into rs1 and rs2.
  TEST_CASE(40, x6, 0x22, la x1, isa_hz_data; lw x5, 4(x1); add x6, x5, x5)
  TEST_CASE(41, x6, 0x12, la x1, isa_hz_data; lw x5, 4(x1); nop; addi x6, x5, 1)
  TEST_CASE(42, x6, 0x13, la x1, isa_hz_data; lw x5, 4(x1); nop; nop; addi x6, x5, 2)
  TEST_CASE(43, x6, 0x14, la x1, isa_hz_data; lw x5, 4(x1); nop; nop; nop; addi x6, x5, 3)
  TEST_CASE(44, x6, 0x15, li x2, 4; la x1, isa_hz_data; lw x5, 4(x1); add x6, x2, x5)
  # Two loads, second feeding from the first (pointer chase), then use.
  TEST_CASE(45, x6, 0x600d, la x1, isa_hz_ptr; lw x5, 0(x1); lw x6, 0(x5))
  TEST_CASE(46, x6, 0x600e, la x1, isa_hz_ptr; lw x5, 0(x1); lw x6, 0(x5); addi x6, x6, 1)
  # Load result as store data and as store address back to back.
  TEST_CASE(47, x6, 0x11, la x1, isa_hz_data; la x2, isa_hz_buf; lw x5, 4(x1); sw x5, 0(x2); lw x6, 0(x2))
  TEST_CASE(48, x6, 0x77, la x1, isa_hz_ptr2; li x2, 0x77; lw x5, 0(x1); sw x2, 4(x5); lw x6, 4(x5))
  # Load-use into a branch and into jalr.
  TEST_CASE(49, x6, 1, li x6, 0; la x1, isa_hz_data; lw x5, 4(x1); addi x2, x0, 0x11; bne x5, x2, isa_fail; li x6, 1)
  TEST_CASE(50, x6, 1, li x6, 0; la x1, isa_hz_jt; lw x5, 0(x1); jalr x0, 0(x5); j isa_fail; isa_hz_target: li x6, 1)
  # Back-to-back loads both used by the next instruction.
  TEST_CASE(51, x6, 0x22, la x1, isa_hz_data; lw x5, 4(x1); lw x7, 4(x1); add x6, x5, x7)

  # mul: result at distances 1..4; chained; feeding mul from a load.
  TEST_CASE(60, x6, 42, li x1, 6; li x2, 7; mul x5, x1, x2; mv x6, x5)
  TEST_CASE(61, x6, 43, li x1, 6; li x2, 7; mul x5, x1, x2; nop; addi x6, x5, 1)
  TEST_CASE(62, x6, 44, li x1, 6; li x2, 7; mul x5, x1, x2; nop; nop; addi x6, x5, 2)
  TEST_CASE(63, x6, 45, li x1, 6; li x2, 7; mul x5, x1, x2; nop; nop; nop; addi x6, x5, 3)
  TEST_CASE(64, x6, 5040, li x1, 1; li x2, 2; mul x5, x1, x2; addi x2, x2, 1; mul x5, x5, x2; addi x2, x2, 1; \
            mul x5, x5, x2; addi x2, x2, 1; mul x5, x5, x2; addi x2, x2, 1; mul x5, x5, x2; addi x2, x2, 1; \
            mul x5, x5, x2; mv x6, x5)
  TEST_CASE(65, x6, 0x121, la x1, isa_hz_data; lw x5, 4(x1); mul x6, x5, x5)
  TEST_CASE(66, x6, 0xfffffffe, li x1, -1; li x2, -1; mulhu x5, x1, x2; mulh x7, x1, x2; sub x6, x5, x7; addi x6, x6, 0)

  # div/rem: result at distances 1..4; chains of divides; divide feeding a load address.
  TEST_CASE(70, x6, 14, li x1, 100; li x2, 7; div x5, x1, x2; mv x6, x5)
  TEST_CASE(71, x6, 3, li x1, 100; li x2, 7; rem x5, x1, x2; nop; addi x6, x5, 1)
  TEST_CASE(72, x6, 16, li x1, 100; li x2, 7; divu x5, x1, x2; nop; nop; addi x6, x5, 2)
  TEST_CASE(73, x6, 5, li x1, 100; li x2, 7; remu x5, x1, x2; nop; nop; nop; addi x6, x5, 3)
  TEST_CASE(74, x6, 1, li x1, 1000; li x2, 3; div x5, x1, x2; div x5, x5, x2; div x5, x5, x2; div x5, x5, x2; \
            div x5, x5, x2; div x6, x5, x2)
  TEST_CASE(75, x6, 1, li x1, 1000; li x2, 7; rem x5, x1, x2; div x6, x2, x5; addi x6, x6, 0)
  TEST_CASE(76, x6, 0x11, la x1, isa_hz_data; li x2, 2; li x7, 8; divu x5, x7, x2; add x5, x5, x1; lw x6, 0(x5))
  TEST_CASE(77, x6, 7, li x1, 100; li x2, 14; div x5, x1, x2; mul x6, x5, x0; add x6, x6, x5)
  # div followed by independent work, then a use; div into a branch.
  TEST_CASE(78, x6, 1, li x1, -100; li x2, 7; div x5, x1, x2; li x7, 1; li x8, 2; li x9, -14; bne x5, x9, isa_fail; mv x6, x7)
  TEST_CASE(79, x6, 1, li x6, 0; li x1, 12; li x2, 4; div x5, x1, x2; li x7, 3; bne x5, x7, isa_fail; li x6, 1)
  # A mul and a div both in flight, then both used.
  TEST_CASE(80, x6, 0x2b, li x1, 6; li x2, 7; mul x5, x1, x2; div x7, x2, x2; add x6, x5, x7)
  TEST_CASE(81, x6, 0x2b, li x1, 6; li x2, 7; div x7, x2, x2; mul x5, x1, x2; add x6, x5, x7)

  # CSR read results and CSR write sources forwarded.
  TEST_CASE(90, x6, 0x1235, li x1, 0x1234; csrw mscratch, x1; csrr x5, mscratch; addi x6, x5, 1)
  TEST_CASE(91, x6, 0x4321, li x1, 0x4321; csrrw x0, mscratch, x1; csrrw x6, mscratch, x0)
  TEST_CASE(92, x6, 0x99, la x1, isa_hz_data; lw x5, 8(x1); csrw mscratch, x5; csrr x6, mscratch)
  TEST_CASE(93, x6, 15, li x1, 3; li x2, 5; mul x5, x1, x2; csrw mscratch, x5; csrr x6, mscratch)
TEST_CODE_END

TEST_DATA_BEGIN
isa_hz_data: .word 0x11, 0x11, 0x99, 0
isa_hz_ptr: .word isa_hz_val
isa_hz_val: .word 0x600d
isa_hz_ptr2: .word isa_hz_buf
isa_hz_jt: .word isa_hz_target
isa_hz_buf: .word 0, 0, 0, 0
TEST_DATA_END
