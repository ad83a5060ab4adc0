# sb: store the low byte of rs2.
# Every aligned offset, read back at once (store-to-load forwarding) and
# after 1..3 instructions; only the stored bytes change; positive, negative and extreme
# offsets; store data and base produced just before the store; x0 as data; a load from
# another address right after a store is not affected.
#include "isa_macros.h"

TEST_CODE_BEGIN
  # Store, then load back immediately with the signed and unsigned load of the same width.
  TEST_ST_OP(2, lb, sb, 0xffffffaa, 0, isa_st_data)
  TEST_ST_OP(3, lbu, sb, 0x00000000, 0, isa_st_data)
  TEST_ST_OP(4, lb, sb, 0x0000007f, 1, isa_st_data)
  TEST_ST_OP(5, lbu, sb, 0x00000080, 1, isa_st_data)
  TEST_ST_OP(6, lb, sb, 0xffffffaa, 2, isa_st_data)
  TEST_ST_OP(7, lbu, sb, 0x00000000, 2, isa_st_data)
  TEST_ST_OP(8, lb, sb, 0x0000007f, 3, isa_st_data)
  TEST_ST_OP(9, lbu, sb, 0x00000080, 3, isa_st_data)
  TEST_ST_OP(10, lb, sb, 0xffffffaa, 4, isa_st_data)
  TEST_ST_OP(11, lbu, sb, 0x00000000, 4, isa_st_data)
  TEST_ST_OP(12, lb, sb, 0x0000007f, 5, isa_st_data)
  TEST_ST_OP(13, lbu, sb, 0x00000080, 5, isa_st_data)
  TEST_ST_OP(14, lb, sb, 0xffffffaa, 6, isa_st_data)
  TEST_ST_OP(15, lbu, sb, 0x00000000, 6, isa_st_data)
  TEST_ST_OP(16, lb, sb, 0x0000007f, 7, isa_st_data)
  TEST_ST_OP(17, lbu, sb, 0x00000080, 7, isa_st_data)

  # Only the stored bytes change (the rest of the word keeps its fill); upper bits of rs2 are ignored.
  TEST_ST_MERGE(30, sb, 0x11223344, 0xcafebeef, 0, 0x112233ef, isa_st_data)
  TEST_ST_MERGE(31, sb, 0x11223344, 0xcbffbfee, 1, 0x1122ee44, isa_st_data)
  TEST_ST_MERGE(32, sb, 0x11223344, 0xc8fcbced, 2, 0x11ed3344, isa_st_data)
  TEST_ST_MERGE(33, sb, 0x11223344, 0xc9fdbdec, 3, 0xec223344, isa_st_data)
  TEST_ST_MERGE(34, sb, 0xeeddccbb, 0x00000000, 0, 0xeeddcc00, isa_st_data)
  TEST_ST_MERGE(35, sb, 0xeeddccbb, 0x00000000, 1, 0xeedd00bb, isa_st_data)
  TEST_ST_MERGE(36, sb, 0xeeddccbb, 0x00000000, 2, 0xee00ccbb, isa_st_data)
  TEST_ST_MERGE(37, sb, 0xeeddccbb, 0x00000000, 3, 0x00ddccbb, isa_st_data)
  # A word store, then a narrower store into it, then each part read back (merging).
  TEST_CASE(38, x14, 0x00000033, la x1, isa_st_data; li x2, 0x11223344; li x3, 0xa5a5a5a5; sw x2, 0(x1); sb x3, 0(x1); lbu x14, 1(x1))
  TEST_CASE(39, x14, 0x00000022, la x1, isa_st_data; li x2, 0x11223344; li x3, 0xa5a5a5a5; sw x2, 0(x1); sb x3, 1(x1); lbu x14, 2(x1))
  TEST_CASE(40, x14, 0x00000011, la x1, isa_st_data; li x2, 0x11223344; li x3, 0xa5a5a5a5; sw x2, 0(x1); sb x3, 2(x1); lbu x14, 3(x1))
  TEST_CASE(41, x14, 0x00000044, la x1, isa_st_data; li x2, 0x11223344; li x3, 0xa5a5a5a5; sw x2, 0(x1); sb x3, 3(x1); lbu x14, 0(x1))

  # Load back after 1..3 other instructions.
  TEST_ST_LD_GAP(50, 1, lbu, sb, 0x00000078, 1, isa_st_data)
  TEST_ST_LD_GAP(51, 2, lbu, sb, 0x000000f0, 2, isa_st_data)
  TEST_ST_LD_GAP(52, 3, lbu, sb, 0x0000003c, 3, isa_st_data)

  # Negative and extreme offsets.
  TEST_ST_OP(60, lbu, sb, 0x0000003c, -1, isa_st_data + 16)
  TEST_ST_OP(61, lbu, sb, 0x0000003d, -16, isa_st_data + 16)
  TEST_ST_OP(62, lbu, sb, 0x0000003e, 2047 - 0, isa_st_data + 1 - (2047 - 0))
  TEST_ST_OP(63, lbu, sb, 0x0000003f, -2048, isa_st_data + 2048)

  # Store data and base produced 1..3 instructions before the store.
  TEST_ST_SRC12_BYPASS(70, 0, 0, lbu, sb, 0x000000d0, 2, isa_st_data)
  TEST_ST_SRC12_BYPASS(71, 0, 1, lbu, sb, 0x000000d0, 3, isa_st_data)
  TEST_ST_SRC12_BYPASS(72, 0, 2, lbu, sb, 0x000000d0, 0, isa_st_data)
  TEST_ST_SRC12_BYPASS(73, 1, 0, lbu, sb, 0x000000d1, 1, isa_st_data)
  TEST_ST_SRC12_BYPASS(74, 1, 1, lbu, sb, 0x000000d1, 2, isa_st_data)
  TEST_ST_SRC12_BYPASS(75, 2, 0, lbu, sb, 0x000000d2, 3, isa_st_data)
  TEST_ST_SRC21_BYPASS(76, 0, 0, lbu, sb, 0x0000000a, 0, isa_st_data)
  TEST_ST_SRC21_BYPASS(77, 0, 1, lbu, sb, 0x0000000a, 1, isa_st_data)
  TEST_ST_SRC21_BYPASS(78, 0, 2, lbu, sb, 0x0000000a, 2, isa_st_data)
  TEST_ST_SRC21_BYPASS(79, 1, 0, lbu, sb, 0x0000000b, 3, isa_st_data)
  TEST_ST_SRC21_BYPASS(80, 1, 1, lbu, sb, 0x0000000b, 0, isa_st_data)
  TEST_ST_SRC21_BYPASS(81, 2, 0, lbu, sb, 0x0000000c, 1, isa_st_data)
  # The stored value produced by a load right before the store.
  TEST_CASE(82, x14, 0x000000ef, la x1, isa_st_const; la x5, isa_st_data; lbu x2, 0(x1); sb x2, 0(x5); lbu x14, 0(x5))

  # x0 as store data writes zeros.
  TEST_CASE(90, x14, 0, la x1, isa_st_data; li x2, -1; sw x2, 8(x1); sb x0, 8(x1); lbu x14, 8(x1))

  # A load from another address right after a store reads that address, not the store data
  # (also when the addresses differ only in bit 10);
  # two stores to one address back to back: the younger wins.
  TEST_CASE(100, x14, 0x5a5a5aef, la x1, isa_st_data; la x5, isa_st_const; li x2, -1; sb x2, 0(x1); lw x14, 0(x5))
  TEST_CASE(101, x14, 0x5a5a5aef, la x1, isa_st_data; li x2, -1; sb x2, 0(x1); lw x14, 1024(x1))
  TEST_CASE(102, x14, 0x00000022, la x1, isa_st_data; li x2, 0x00000011; li x3, 0x00000022; sb x2, 4(x1); sb x3, 4(x1); lbu x14, 4(x1))
TEST_CODE_END

TEST_DATA_BEGIN
  .balign 16
isa_st_data: .fill 256, 4, 0
  # 1024 bytes past isa_st_data: a word that no store touches.
isa_st_far: .word 0x5a5a5aef
isa_st_const: .word 0x5a5a5aef
TEST_DATA_END
