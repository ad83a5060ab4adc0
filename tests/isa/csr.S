# Zicsr on the machine-mode CSRs: csrrw/csrrs/csrrc and the immediate forms on mscratch (old value
# returned, new value written), rs1 = x0 / uimm = 0 forms do not write (so they may read read-only
# CSRs without trapping), rd = x0 forms, rd == rs1, identification CSRs (misa, mhartid, and the
# other mandatory machine CSRs read without a trap),
# mstatus (MPP reads 3, MIE/MPIE writable), WARL/WLRL registers (mepc, mtvec, mcause, mtval,
# mie), and mip reading 0 with no interrupt source active.
#include "isa_macros.h"

TEST_CODE_BEGIN
  # csrw / csrr.
  TEST_CASE(2, x14, 0xdeadbeef, li x1, 0xdeadbeef; csrw mscratch, x1; csrr x14, mscratch)
  TEST_CASE(3, x14, 0x00000000, csrw mscratch, x0; csrr x14, mscratch)
  # csrrw returns the old value and writes the new one.
  TEST_CASE(4, x14, 0x00000000, li x1, 0x12345678; csrrw x14, mscratch, x1)
  TEST_CASE(5, x14, 0x12345678, csrr x14, mscratch)
  # csrrs sets bits, csrrc clears bits; both return the old value.
  TEST_CASE(6, x14, 0x12345678, li x1, 0x0f0000f0; csrrs x14, mscratch, x1)
  TEST_CASE(7, x14, 0x1f3456f8, csrr x14, mscratch)
  TEST_CASE(8, x14, 0x1f3456f8, li x1, 0x10300608; csrrc x14, mscratch, x1)
  TEST_CASE(9, x14, 0x0f0450f0, csrr x14, mscratch)
  # Immediate forms: uimm is 5 bits, zero-extended.
  TEST_CASE(10, x14, 0x0f0450f0, csrrwi x14, mscratch, 0x1f)
  TEST_CASE(11, x14, 0x0000001f, csrr x14, mscratch)
  TEST_CASE(12, x14, 0x0000001f, csrrci x14, mscratch, 0x15)
  TEST_CASE(13, x14, 0x0000000a, csrr x14, mscratch)
  TEST_CASE(14, x14, 0x0000000a, csrrsi x14, mscratch, 0x11)
  TEST_CASE(15, x14, 0x0000001b, csrr x14, mscratch)
  TEST_CASE(16, x14, 0x0000001b, csrrwi x14, mscratch, 0)
  TEST_CASE(17, x14, 0x00000000, csrr x14, mscratch)
  # rs1 = x0 / uimm = 0: read only, the CSR keeps its value.
  TEST_CASE(18, x14, 0x89abcdef, li x1, 0x89abcdef; csrw mscratch, x1; csrrs x14, mscratch, x0; csrrc x0, mscratch, x0; \
            csrrsi x0, mscratch, 0; csrrci x0, mscratch, 0; csrr x14, mscratch)
  # rd = x0 (csrw/csrs/csrc/csrwi/csrsi/csrci) still writes.
  TEST_CASE(19, x14, 0x0000ffff, li x1, 0x0000ffff; csrrw x0, mscratch, x1; csrr x14, mscratch)
  TEST_CASE(20, x14, 0xf000ffff, li x1, 0xf0000000; csrrs x0, mscratch, x1; csrr x14, mscratch)
  TEST_CASE(21, x14, 0xf000f0f0, li x1, 0x00000f0f; csrrc x0, mscratch, x1; csrr x14, mscratch)
  TEST_CASE(22, x14, 0x00000007, csrrwi x0, mscratch, 7; csrr x14, mscratch)
  TEST_CASE(23, x14, 0x0000000f, csrrsi x0, mscratch, 8; csrr x14, mscratch)
  TEST_CASE(24, x14, 0x0000000c, csrrci x0, mscratch, 3; csrr x14, mscratch)
  # rd == rs1: a swap.
  TEST_CASE(25, x1, 0x0000000c, li x1, 0x55aa; csrrw x1, mscratch, x1)
  TEST_CASE(26, x14, 0x000055aa, csrr x14, mscratch)
  # Back to back: write then read, read then write.
  TEST_CASE(27, x14, 0x00000003, csrwi mscratch, 1; csrwi mscratch, 2; csrwi mscratch, 3; csrr x14, mscratch)
  TEST_CASE(28, x14, 0x00000003, csrrwi x14, mscratch, 4; csrrwi x0, mscratch, 5)

  # Read-only identification CSRs read without a trap through every non-writing form.
  TEST_CASE(40, x14, 0x40001100, li x14, -1; csrr x14, misa)
  TEST_CASE(41, x14, 0x00000000, li x14, -1; csrr x14, mhartid)
  TEST_CASE(42, x14, 0x00000000, li x14, -1; csrrc x14, mhartid, x0)
  TEST_CASE(43, x14, 0x00000000, li x14, -1; csrrsi x14, mhartid, 0)
  TEST_CASE(44, x14, 0x00000000, li x14, -1; csrrci x14, mhartid, 0)
  TEST_CASE(45, x14, 1, li x14, 0; csrrs x15, cycle, x0; csrrs x16, instret, x0; csrrsi x17, cycle, 0; csrrci x18, instret, 0; li x14, 1)
  # CSRs every machine-mode implementation has (their values may be 0): reading them does not
  # trap. mvendorid, marchid, mimpid, mconfigptr (0xf15), mstatush (RV32), mhpmcounter3/h,
  # mhpmevent3.
  TEST_CASE(46, x14, 1, li x14, 0; csrr x15, mvendorid; csrr x15, marchid; csrr x15, mimpid; \
            csrr x15, 0xf15; csrr x15, 0x310; csrr x15, 0xb03; csrr x15, 0xb83; csrr x15, 0x323; li x14, 1)
  # mstatush reads 0 (little-endian M-mode: MBE = 0).
  TEST_CASE(47, x14, 0, li x14, -1; csrr x14, 0x310)

  # mstatus: MPP is hard-wired to machine mode (reads 3 whatever is written); MIE and MPIE
  # read back what was written.
  TEST_CASE(50, x14, MSTATUS_MPP, csrr x14, mstatus; li x1, MSTATUS_MPP; and x14, x14, x1)
  TEST_CASE(51, x14, MSTATUS_MPP, csrc mstatus, x1; csrr x14, mstatus; li x1, MSTATUS_MPP; and x14, x14, x1)
  TEST_CASE(52, x14, MSTATUS_MPP, csrw mstatus, x0; csrr x14, mstatus; li x1, MSTATUS_MPP; and x14, x14, x1)
  TEST_CASE(53, x14, MSTATUS_MPP, li x1, 0x00000800; csrw mstatus, x1; csrr x14, mstatus; li x1, MSTATUS_MPP; and x14, x14, x1)
  TEST_CASE(54, x14, MSTATUS_MPIE, li x1, MSTATUS_MPIE; csrs mstatus, x1; csrr x14, mstatus; li x1, MSTATUS_MPIE | MSTATUS_MIE; and x14, x14, x1)
  TEST_CASE(55, x14, MSTATUS_MPIE | MSTATUS_MIE, csrsi mstatus, MSTATUS_MIE; csrr x14, mstatus; li x1, MSTATUS_MPIE | MSTATUS_MIE; and x14, x14, x1)
  TEST_CASE(56, x14, 0, li x1, MSTATUS_MPIE | MSTATUS_MIE; csrc mstatus, x1; csrr x14, mstatus; and x14, x14, x1)

  # mepc: bits 1:0 read as 0 (IALIGN = 32).
  TEST_CASE(60, x14, 0x80001234, li x1, 0x80001234; csrw mepc, x1; csrr x14, mepc)
  TEST_CASE(61, x14, 0x80001230, li x1, 0x80001233; csrw mepc, x1; csrr x14, mepc)
  TEST_CASE(62, x14, 0x80001230, li x1, 0x80001232; csrw mepc, x1; csrr x14, mepc)
  # mtvec: a 64-byte-aligned base with mode 0 reads back.
  TEST_CASE(63, x14, 0x80000400, csrr x15, mtvec; li x1, 0x80000400; csrw mtvec, x1; csrr x14, mtvec; csrw mtvec, x15)
  # mcause holds exception and interrupt codes; mtval holds any value.
  TEST_CASE(64, x14, 0x0000000b, li x1, 0x0000000b; csrw mcause, x1; csrr x14, mcause)
  TEST_CASE(65, x14, 0x80000007, li x1, 0x80000007; csrw mcause, x1; csrr x14, mcause)
  TEST_CASE(66, x14, 0x12345678, li x1, 0x12345678; csrw mtval, x1; csrr x14, mtval)
  TEST_CASE(67, x14, 0x80000000, li x1, 0x80000000; csrw mtval, x1; csrr x14, mtval)
  # mie: exactly MSIE, MTIE and MEIE are writable (interrupts stay disabled by mstatus.MIE = 0).
  TEST_CASE(68, x14, MIE_MSIE | MIE_MTIE | MIE_MEIE, li x1, -1; csrw mie, x1; csrr x14, mie)
  TEST_CASE(69, x14, MIE_MTIE, li x1, MIE_MSIE | MIE_MEIE; csrc mie, x1; csrr x14, mie)
  TEST_CASE(70, x14, 0, csrw mie, x0; csrr x14, mie)
  # mip: no interrupt source is active after reset (MTIMECMP resets to all ones, IRQ_PENDING to 0).
  TEST_CASE(71, x14, 0, li x14, -1; csrr x14, mip)
TEST_CODE_END
