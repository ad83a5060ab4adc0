# sw: store a word (4-byte aligned).
# Every aligned offset, read back at once (store-to-load forwarding) and
# after 1..3 instructions; only the stored bytes change; positive, negative and extreme
# offsets; store data and base produced just before the store; x0 as data; a load from
# another address right after a store is not affected.
#include "isa_macros.h"

TEST_CODE_BEGIN
  # Store, then load back immediately with the signed and unsigned load of the same width.
  TEST_ST_OP(2, lw, sw, 0xaaaa5555, 0, isa_st_data)
  TEST_ST_OP(3, lw, sw, 0x00000000, 4, isa_st_data)

  # Only the stored bytes change (the rest of the word keeps its fill); upper bits of rs2 are ignored.
  TEST_ST_MERGE(30, sw, 0x11223344, 0xcafebeef, 0, 0xcafebeef, isa_st_data)
  TEST_ST_MERGE(31, sw, 0xeeddccbb, 0x00000000, 0, 0x00000000, isa_st_data)

  # Load back after 1..3 other instructions.
  TEST_ST_LD_GAP(50, 1, lw, sw, 0x12345678, 4, isa_st_data)
  TEST_ST_LD_GAP(51, 2, lw, sw, 0x9abcdef0, 0, isa_st_data)
  TEST_ST_LD_GAP(52, 3, lw, sw, 0x0f1e2d3c, 4, isa_st_data)

  # Negative and extreme offsets.
  TEST_ST_OP(60, lw, sw, 0x5aa5c33c, -4, isa_st_data + 16)
  TEST_ST_OP(61, lw, sw, 0x5aa5c33d, -16, isa_st_data + 16)
  TEST_ST_OP(62, lw, sw, 0x5aa5c33e, 2047 - 3, isa_st_data + 4 - (2047 - 3))
  TEST_ST_OP(63, lw, sw, 0x5aa5c33f, -2048, isa_st_data + 2048)

  # Store data and base produced 1..3 instructions before the store.
  TEST_ST_SRC12_BYPASS(70, 0, 0, lw, sw, 0xa0b0c0d0, 8, isa_st_data)
  TEST_ST_SRC12_BYPASS(71, 0, 1, lw, sw, 0xa0c0c1d0, 12, isa_st_data)
  TEST_ST_SRC12_BYPASS(72, 0, 2, lw, sw, 0xa0d0c2d0, 0, isa_st_data)
  TEST_ST_SRC12_BYPASS(73, 1, 0, lw, sw, 0xa0b0c1d1, 4, isa_st_data)
  TEST_ST_SRC12_BYPASS(74, 1, 1, lw, sw, 0xa0c0c2d1, 8, isa_st_data)
  TEST_ST_SRC12_BYPASS(75, 2, 0, lw, sw, 0xa0b0c2d2, 12, isa_st_data)
  TEST_ST_SRC21_BYPASS(76, 0, 0, lw, sw, 0x0d0c0b0a, 0, isa_st_data)
  TEST_ST_SRC21_BYPASS(77, 0, 1, lw, sw, 0x0d1c0c0a, 4, isa_st_data)
  TEST_ST_SRC21_BYPASS(78, 0, 2, lw, sw, 0x0d2c0d0a, 8, isa_st_data)
  TEST_ST_SRC21_BYPASS(79, 1, 0, lw, sw, 0x0d0c0c0b, 12, isa_st_data)
  TEST_ST_SRC21_BYPASS(80, 1, 1, lw, sw, 0x0d1c0d0b, 0, isa_st_data)
  TEST_ST_SRC21_BYPASS(81, 2, 0, lw, sw, 0x0d0c0d0c, 4, isa_st_data)
  # The stored value produced by a load right before the store.
  TEST_CASE(82, x14, 0x000000ef, la x1, isa_st_const; la x5, isa_st_data; lbu x2, 0(x1); sw x2, 0(x5); lw x14, 0(x5))

  # x0 as store data writes zeros.
  TEST_CASE(90, x14, 0, la x1, isa_st_data; li x2, -1; sw x2, 8(x1); sw x0, 8(x1); lw x14, 8(x1))

  # A load from another address right after a store reads that address, not the store data
  # (also when the addresses differ only in bit 10);
  # two stores to one address back to back: the younger wins.
  TEST_CASE(100, x14, 0x5a5a5aef, la x1, isa_st_data; la x5, isa_st_const; li x2, -1; sw x2, 0(x1); lw x14, 0(x5))
  TEST_CASE(101, x14, 0x5a5a5aef, la x1, isa_st_data; li x2, -1; sw x2, 0(x1); lw x14, 1024(x1))
  TEST_CASE(102, x14, 0x00002222, la x1, isa_st_data; li x2, 0x00001111; li x3, 0x00002222; sw x2, 4(x1); sw x3, 4(x1); lw x14, 4(x1))
TEST_CODE_END

TEST_DATA_BEGIN
  .balign 16
isa_st_data: .fill 256, 4, 0
  # 1024 bytes past isa_st_data: a word that no store touches.
isa_st_far: .word 0x5a5a5aef
isa_st_const: .word 0x5a5a5aef
TEST_DATA_END
