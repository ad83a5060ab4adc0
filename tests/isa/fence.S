# fence: a memory ordering no-op on this single-hart core. Every form executes without a trap and
# changes no register; the reserved rd/rs1 fields are ignored (as the base ISA requires); a store
# before a fence is seen by a load after it; fence inside a forwarding chain.
#include "isa_macros.h"

TEST_CODE_BEGIN
  # All the forms, executed back to back; x14 unchanged.
  TEST_CASE(2, x14, 0x1234, li x14, 0x1234; \
    fence; fence rw, rw; fence r, r; fence w, w; fence r, w; fence w, r; fence i, o; fence o, i; \
    fence iorw, iorw; fence io, io; fence.tso; \
    .word 0x0100000f /* pause (fence w, 0) */; \
    .word 0x0000000f /* fence 0, 0 */)

  # rd and rs1 fields non-zero (reserved: must be ignored): fence iorw, iorw with rd = x14, rs1 = x1.
  TEST_CASE(3, x14, 0x5678, li x14, 0x5678; li x1, 0x7ff; .word 0x0ff0870f; nop)
  # And the same for fence.tso's encoding with rd = x14, rs1 = x2.
  TEST_CASE(4, x14, 0x9abc, li x14, 0x9abc; li x2, 0x7ff; .word 0x8331070f; nop)

  # Store, fence, load.
  TEST_CASE(5, x14, 0xcafef00d, la x1, isa_fence_data; li x2, 0xcafef00d; sw x2, 0(x1); fence; lw x14, 0(x1))
  TEST_CASE(6, x14, 0x000000aa, la x1, isa_fence_data; li x2, 0xaa; sb x2, 5(x1); fence rw, rw; lbu x14, 5(x1))

  # Forwarding across fences.
  TEST_CASE(7, x6, 42, li x14, 40; fence; addi x6, x14, 2)
  TEST_CASE(8, x6, 43, la x1, isa_fence_data; li x2, 41; sw x2, 8(x1); lw x14, 8(x1); fence; addi x6, x14, 2)
  TEST_CASE(9, x6, 44, li x14, 42; fence; fence; fence; addi x6, x14, 2)
TEST_CODE_END

TEST_DATA_BEGIN
isa_fence_data: .word 0, 0, 0, 0
TEST_DATA_END
