# sh: store the low halfword of rs2 (2-byte aligned).
# Every aligned offset, read back at once (store-to-load forwarding) and
# after 1..3 instructions; only the stored bytes change; positive, negative and extreme
# offsets; store data and base produced just before the store; x0 as data; a load from
# another address right after a store is not affected.
#include "isa_macros.h"

TEST_CODE_BEGIN
  # Store, then load back immediately with the signed and unsigned load of the same width.
  TEST_ST_OP(2, lh, sh, 0xffffaaaa, 0, isa_st_data)
  TEST_ST_OP(3, lhu, sh, 0x00000000, 0, isa_st_data)
  TEST_ST_OP(4, lh, sh, 0x00007fff, 2, isa_st_data)
  TEST_ST_OP(5, lhu, sh, 0x00008000, 2, isa_st_data)
  TEST_ST_OP(6, lh, sh, 0xffffbeef, 4, isa_st_data)
  TEST_ST_OP(7, lhu, sh, 0x00001234, 4, isa_st_data)
  TEST_ST_OP(8, lh, sh, 0xffffaaaa, 6, isa_st_data)
  TEST_ST_OP(9, lhu, sh, 0x00000000, 6, isa_st_data)

  # Only the stored bytes change (the rest of the word keeps its fill); upper bits of rs2 are ignored.
  TEST_ST_MERGE(30, sh, 0x11223344, 0xcafebeef, 0, 0x1122beef, isa_st_data)
  TEST_ST_MERGE(31, sh, 0x11223344, 0xc8fcbced, 2, 0xbced3344, isa_st_data)
  TEST_ST_MERGE(32, sh, 0xeeddccbb, 0x00000000, 0, 0xeedd0000, isa_st_data)
  TEST_ST_MERGE(33, sh, 0xeeddccbb, 0x00000000, 2, 0x0000ccbb, isa_st_data)
  # A word store, then a narrower store into it, then each part read back (merging).
  TEST_CASE(34, x14, 0x00001122, la x1, isa_st_data; li x2, 0x11223344; li x3, 0xa5a5a5a5; sw x2, 0(x1); sh x3, 0(x1); lhu x14, 2(x1))
  TEST_CASE(35, x14, 0x00003344, la x1, isa_st_data; li x2, 0x11223344; li x3, 0xa5a5a5a5; sw x2, 0(x1); sh x3, 2(x1); lhu x14, 0(x1))

  # Load back after 1..3 other instructions.
  TEST_ST_LD_GAP(50, 1, lhu, sh, 0x00005678, 2, isa_st_data)
  TEST_ST_LD_GAP(51, 2, lhu, sh, 0x0000def0, 4, isa_st_data)
  TEST_ST_LD_GAP(52, 3, lhu, sh, 0x00002d3c, 6, isa_st_data)

  # Negative and extreme offsets.
  TEST_ST_OP(60, lhu, sh, 0x0000c33c, -2, isa_st_data + 16)
  TEST_ST_OP(61, lhu, sh, 0x0000c33d, -16, isa_st_data + 16)
  TEST_ST_OP(62, lhu, sh, 0x0000c33e, 2047 - 1, isa_st_data + 2 - (2047 - 1))
  TEST_ST_OP(63, lhu, sh, 0x0000c33f, -2048, isa_st_data + 2048)

  # Store data and base produced 1..3 instructions before the store.
  TEST_ST_SRC12_BYPASS(70, 0, 0, lhu, sh, 0x0000c0d0, 4, isa_st_data)
  TEST_ST_SRC12_BYPASS(71, 0, 1, lhu, sh, 0x0000c1d0, 6, isa_st_data)
  TEST_ST_SRC12_BYPASS(72, 0, 2, lhu, sh, 0x0000c2d0, 0, isa_st_data)
  TEST_ST_SRC12_BYPASS(73, 1, 0, lhu, sh, 0x0000c1d1, 2, isa_st_data)
  TEST_ST_SRC12_BYPASS(74, 1, 1, lhu, sh, 0x0000c2d1, 4, isa_st_data)
  TEST_ST_SRC12_BYPASS(75, 2, 0, lhu, sh, 0x0000c2d2, 6, isa_st_data)
  TEST_ST_SRC21_BYPASS(76, 0, 0, lhu, sh, 0x00000b0a, 0, isa_st_data)
  TEST_ST_SRC21_BYPASS(77, 0, 1, lhu, sh, 0x00000c0a, 2, isa_st_data)
  TEST_ST_SRC21_BYPASS(78, 0, 2, lhu, sh, 0x00000d0a, 4, isa_st_data)
  TEST_ST_SRC21_BYPASS(79, 1, 0, lhu, sh, 0x00000c0b, 6, isa_st_data)
  TEST_ST_SRC21_BYPASS(80, 1, 1, lhu, sh, 0x00000d0b, 0, isa_st_data)
  TEST_ST_SRC21_BYPASS(81, 2, 0, lhu, sh, 0x00000d0c, 2, isa_st_data)
  # The stored value produced by a load right before the store.
  TEST_CASE(82, x14, 0x000000ef, la x1, isa_st_const; la x5, isa_st_data; lbu x2, 0(x1); sh x2, 0(x5); lhu x14, 0(x5))

  # x0 as store data writes zeros.
  TEST_CASE(90, x14, 0, la x1, isa_st_data; li x2, -1; sw x2, 8(x1); sh x0, 8(x1); lhu x14, 8(x1))

  # A load from another address right after a store reads that address, not the store data
  # (also when the addresses differ only in bit 10);
  # two stores to one address back to back: the younger wins.
  TEST_CASE(100, x14, 0x5a5a5aef, la x1, isa_st_data; la x5, isa_st_const; li x2, -1; sh x2, 0(x1); lw x14, 0(x5))
  TEST_CASE(101, x14, 0x5a5a5aef, la x1, isa_st_data; li x2, -1; sh x2, 0(x1); lw x14, 1024(x1))
  TEST_CASE(102, x14, 0x00002222, la x1, isa_st_data; li x2, 0x00001111; li x3, 0x00002222; sh x2, 4(x1); sh x3, 4(x1); lhu x14, 4(x1))
TEST_CODE_END

TEST_DATA_BEGIN
  .balign 16
isa_st_data: .fill 256, 4, 0
  # 1024 bytes past isa_st_data: a word that no store touches.
isa_st_far: .word 0x5a5a5aef
isa_st_const: .word 0x5a5a5aef
TEST_DATA_END
