# jal: rd = pc + 4, pc = pc + offset. Link value, forward and backward, shadow squashed,
# x0 as rd (plain jump), the link consumed right away, far offsets, call/return.
#include "isa_macros.h"

TEST_CODE_BEGIN
  # Forward: ra = address of the jal + 4; the two instructions after it never run.
  TEST_START(2)
  li x14, 0
  li ra, 0
1: jal ra, 2f
  addi x14, x14, 1
  addi x14, x14, 2
  j isa_fail
2: CHECK_EQ_ADDR(ra, 1b + 4)
  CHECK_EQ(x14, 0)

  # The link consumed by the first instruction at the target (forwarding).
  TEST_START(3)
1: jal x14, 2f
  j isa_fail
2: addi x6, x14, 0
  CHECK_EQ_ADDR(x6, 1b + 4)

  # Backward.
  TEST_START(4)
  li x14, 0
  j 2f
1: addi x14, x14, 1
  j 3f
2: jal x15, 1b
  j isa_fail
3: CHECK_EQ(x14, 1)
  CHECK_EQ_ADDR(x15, 2b + 4)

  # rd = x0 (j): no link is written and none is forwarded.
  TEST_START(5)
  jal x0, 1f
  j isa_fail
1: add x14, x0, x0
  CHECK_EQ(x14, 0)

  # The destination overwrites an older value of the same register (and x31 works as rd).
  TEST_START(6)
  li x31, 0x5555
1: jal x31, 2f
  j isa_fail
2: mv x14, x31
  CHECK_EQ_ADDR(x14, 1b + 4)

  # Offset +4: the target is the next instruction, which is also the link.
  TEST_START(7)
1: jal x14, 2f
2: CHECK_EQ_ADDR(x14, 1b + 4)

  # A jal whose target is another jal.
  TEST_START(8)
  li x14, 0
1: jal x15, 2f
  j isa_fail
2: jal x16, 3f
  j isa_fail
3: CHECK_EQ_ADDR(x15, 1b + 4)
  CHECK_EQ_ADDR(x16, 2b + 4)

  # Call and return through ra.
  TEST_START(9)
  li x14, 0
1: jal ra, isa_jal_func
  addi x14, x14, 4
  CHECK_EQ(x14, 5)
  CHECK_EQ_ADDR(ra, 1b + 4)

  # Far offsets (bits 11..16 of the immediate), forward and back.
  TEST_START(10)
  li x14, 0
1: jal x15, 3f
  j isa_fail
2: addi x14, x14, 2
  j 4f
  .skip 0x10800
3: addi x14, x14, 1
  jal x16, 2b
  j isa_fail
4: CHECK_EQ(x14, 3)
  CHECK_EQ_ADDR(x15, 1b + 4)
  CHECK_EQ_ADDR(x16, 3b + 8)

  # The pc after the jump is the target (auipc there reads it).
  TEST_START(11)
  jal x0, 2f
  j isa_fail
2: auipc x14, 0
  CHECK_EQ_ADDR(x14, 2b)
  j isa_jal_done

isa_jal_func:
  addi x14, x14, 1
  jalr x0, 0(ra)
  j isa_fail

isa_jal_done:
TEST_CODE_END
