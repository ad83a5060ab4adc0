# fence.i: self-modifying code. A store of a new instruction word over an existing one, then
# fence.i, then executing it runs the new instruction: for code not yet run, for code already run
# (possibly cached or prefetched), for the instruction right after the fence.i (already in the
# pipeline), for a partial (halfword) patch, and repeatedly in a loop.
#include "isa_macros.h"

/* addi x14, x0, imm */
#define ADDI_X14(imm) ((((imm) & 0xfff) << 20) | (14 << 7) | 0x13)

TEST_CODE_BEGIN
  # Code not yet executed, with a gap after the fence.i.
  TEST_START(2)
  la x1, 1f
  li x2, ADDI_X14(2)
  sw x2, 0(x1)
  fence.i
  li x14, 0
  nop
1: addi x14, x0, 1
  CHECK_EQ(x14, 2)

  # The instruction right after fence.i, stored right before it.
  TEST_START(3)
  la x1, 1f
  li x2, ADDI_X14(3)
  sw x2, 0(x1)
  fence.i
1: addi x14, x0, 1
  CHECK_EQ(x14, 3)

  # A function already executed, patched and called again, twice.
  TEST_START(4)
  li x14, 0
  jal ra, isa_fi_func
  CHECK_EQ(x14, 1)
  la x8, isa_fi_func
  li x2, ADDI_X14(4)
  sw x2, 0(x8)
  fence.i
  jal ra, isa_fi_func
  CHECK_EQ(x14, 4)
  li x2, ADDI_X14(-5)
  sw x2, 0(x8)
  fence.i
  jal ra, isa_fi_func
  CHECK_EQ(x14, -5)

  # A halfword patch of the immediate (the upper half of addi x14, x0, imm is imm << 4).
  TEST_START(5)
  la x1, 1f
  li x2, 0x7ff << 4
  sh x2, 2(x1)
  fence.i
1: addi x14, x0, 1
  CHECK_EQ(x14, 0x7ff)

  # In a loop: each iteration patches the instruction it runs next with a new immediate.
  TEST_START(6)
  li x15, 0          /* sum */
  li x16, 1          /* i */
  li x17, 6
  la x1, 2f
1: slli x2, x16, 20
  li x3, ADDI_X14(0)
  or x2, x2, x3
  sw x2, 0(x1)
  fence.i
2: addi x14, x0, 0
  add x15, x15, x14
  addi x16, x16, 1
  bne x16, x17, 1b
  CHECK_EQ(x15, 15)   /* 1 + 2 + 3 + 4 + 5 */

  # Patching an instruction into a different opcode (addi -> lui).
  TEST_START(7)
  la x1, 1f
  li x2, (0x12345 << 12) | (14 << 7) | 0x37
  sw x2, 0(x1)
  fence.i
1: addi x14, x0, 1
  CHECK_EQ(x14, 0x12345000)
  j isa_fi_done

  .balign 64
isa_fi_func:
  addi x14, x0, 1
  ret

isa_fi_done:
TEST_CODE_END
