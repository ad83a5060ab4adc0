# x0 and the register file: x0 reads 0 after a write by every instruction class, a write to x0 is
# never forwarded (distances 1..4, both operands, also from loads, mul/div and CSR reads), and
# each of x1..x31 holds its own value.
#include "isa_macros.h"

TEST_CODE_BEGIN
  TEST_CASE(2, x14, 0, li x14, -1; add x14, x0, x0)

  # Every instruction class writing x0, then x0 read right away as rs1 and as rs2.
  TEST_CASE(3,  x14, 0, addi x0, x0, 0x555; add x14, x0, x0)
  TEST_CASE(4,  x14, 0, li x1, 0x1234; add x0, x1, x1; add x14, x0, x0)
  TEST_CASE(5,  x14, 0, lui x0, 0xfffff; add x14, x0, x0)
  TEST_CASE(6,  x14, 0, auipc x0, 0x12345; add x14, x0, x0)
  TEST_CASE(7,  x14, 0, li x1, 0x0f0f; slli x0, x1, 4; sub x14, x0, x0)
  TEST_CASE(8,  x14, 0, li x1, 7; li x2, 9; mul x0, x1, x2; or x14, x0, x0)
  TEST_CASE(9,  x14, 0, li x1, 77; li x2, 7; div x0, x1, x2; or x14, x0, x0)
  TEST_CASE(10, x14, 0, li x1, 77; li x2, 0; rem x0, x1, x2; or x14, x0, x0)
  TEST_CASE(11, x14, 0, la x1, isa_x0_data; lw x0, 0(x1); add x14, x0, x0)
  TEST_CASE(12, x14, 0, la x1, isa_x0_data; lbu x0, 1(x1); add x14, x0, x0)
  TEST_CASE(13, x14, 0, jal x0, 1f; 1: add x14, x0, x0)
  TEST_CASE(14, x14, 0, la x1, 1f; jalr x0, 0(x1); 1: add x14, x0, x0)
  TEST_CASE(15, x14, 0, li x1, 0x77; csrw mscratch, x1; csrrs x0, mscratch, x0; add x14, x0, x0)
  TEST_CASE(16, x14, 0, li x1, 0x77; csrrw x0, mscratch, x1; csrr x14, mscratch; addi x14, x14, -0x77; add x14, x14, x0)

  # x0 as the second operand, and in a store, a branch and an address computation.
  TEST_CASE(20, x14, 5, li x14, 5; addi x0, x0, 1; add x14, x14, x0)
  TEST_CASE(21, x14, 0, la x1, isa_x0_data; li x2, -1; sw x2, 4(x1); addi x0, x0, 1; sw x0, 4(x1); lw x14, 4(x1))
  TEST_CASE(22, x14, 1, li x14, 0; addi x0, x0, 1; bnez x0, isa_fail; li x14, 1)
  TEST_CASE(23, x14, 1, li x14, 0; la x1, isa_x0_data; lw x0, 0(x1); bne x0, zero, isa_fail; beq x0, zero, 1f; j isa_fail; 1: li x14, 1)

  # A write to x0 at forwarding distances 1..4, read as rs1 and rs2.
  TEST_CASE(30, x14, 0, li x1, -1; addi x0, x1, 0; add x14, x0, x0)
  TEST_CASE(31, x14, 0, li x1, -1; addi x0, x1, 0; nop; add x14, x0, x0)
  TEST_CASE(32, x14, 0, li x1, -1; addi x0, x1, 0; nop; nop; add x14, x0, x0)
  TEST_CASE(33, x14, 0, li x1, -1; addi x0, x1, 0; nop; nop; nop; add x14, x0, x0)
  TEST_CASE(34, x14, 0, la x1, isa_x0_data; lw x0, 0(x1); nop; add x14, x0, x0)
  TEST_CASE(35, x14, 0, la x1, isa_x0_data; lw x0, 0(x1); nop; nop; add x14, x0, x0)
  TEST_CASE(36, x14, 0, li x1, 5; li x2, 3; mul x0, x1, x2; nop; add x14, x0, x0)
  TEST_CASE(37, x14, 0, li x1, 5; li x2, 3; divu x0, x1, x2; nop; nop; add x14, x0, x0)
  # Several writes to x0 in flight at once.
  TEST_CASE(38, x14, 0, li x1, -1; addi x0, x1, 1; addi x0, x1, 2; addi x0, x1, 3; add x14, x0, x0)

  # Each of x1..x31 (not gp = the test number, nor tp) holds its own value.
  TEST_START(40)
  li x1, 0x01010101
  li x2, 0x02020202
  li x5, 0x05050505
  li x6, 0x06060606
  li x7, 0x07070707
  li x8, 0x08080808
  li x9, 0x09090909
  li x10, 0x10101010
  li x11, 0x11111111
  li x12, 0x12121212
  li x13, 0x13131313
  li x14, 0x14141414
  li x15, 0x15151515
  li x16, 0x16161616
  li x17, 0x17171717
  li x18, 0x18181818
  li x19, 0x19191919
  li x20, 0x20202020
  li x21, 0x21212121
  li x22, 0x22222222
  li x23, 0x23232323
  li x24, 0x24242424
  li x25, 0x25252525
  li x26, 0x26262626
  li x27, 0x27272727
  li x28, 0x28282828
  li x29, 0x29292929
  li x30, 0x30303030
  li x31, 0x31313131
  add x0, x1, x2
  li x4, 0x01010101; bne x1, x4, isa_fail
  li x4, 0x02020202; bne x2, x4, isa_fail
  li x4, 0x05050505; bne x5, x4, isa_fail
  li x4, 0x06060606; bne x6, x4, isa_fail
  li x4, 0x07070707; bne x7, x4, isa_fail
  li x4, 0x08080808; bne x8, x4, isa_fail
  li x4, 0x09090909; bne x9, x4, isa_fail
  li x4, 0x10101010; bne x10, x4, isa_fail
  li x4, 0x11111111; bne x11, x4, isa_fail
  li x4, 0x12121212; bne x12, x4, isa_fail
  li x4, 0x13131313; bne x13, x4, isa_fail
  li x4, 0x14141414; bne x14, x4, isa_fail
  li x4, 0x15151515; bne x15, x4, isa_fail
  li x4, 0x16161616; bne x16, x4, isa_fail
  li x4, 0x17171717; bne x17, x4, isa_fail
  li x4, 0x18181818; bne x18, x4, isa_fail
  li x4, 0x19191919; bne x19, x4, isa_fail
  li x4, 0x20202020; bne x20, x4, isa_fail
  li x4, 0x21212121; bne x21, x4, isa_fail
  li x4, 0x22222222; bne x22, x4, isa_fail
  li x4, 0x23232323; bne x23, x4, isa_fail
  li x4, 0x24242424; bne x24, x4, isa_fail
  li x4, 0x25252525; bne x25, x4, isa_fail
  li x4, 0x26262626; bne x26, x4, isa_fail
  li x4, 0x27272727; bne x27, x4, isa_fail
  li x4, 0x28282828; bne x28, x4, isa_fail
  li x4, 0x29292929; bne x29, x4, isa_fail
  li x4, 0x30303030; bne x30, x4, isa_fail
  li x4, 0x31313131; bne x31, x4, isa_fail
  bnez x0, isa_fail
TEST_CODE_END

TEST_DATA_BEGIN
isa_x0_data: .word 0xdeadbeef, 0
TEST_DATA_END
