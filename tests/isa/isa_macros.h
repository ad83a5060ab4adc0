/* Strata ISA test macros (RV32IM, machine mode only).
 *
 * Every tests/isa/NAME.S is one self-contained image, linked at 0x8000_0000 with no C runtime:
 *
 *   #include "isa_macros.h"
 *   TEST_CODE_BEGIN             // _start in .text.init: zero the registers, install the trap vector
 *     TEST_RR_OP(2, add, 3, 1, 2)
 *     ...
 *   TEST_CODE_END               // jumps to the pass path; emits pass/fail, the trap handler, tohost
 *   TEST_DATA_BEGIN             // optional
 *     ...                       // the test's data (.data)
 *   TEST_DATA_END
 *
 * Ending a run (HTIF): the test stores to its own `tohost` word: 1 on success, (testnum << 1) | 1
 * on failure. Test numbers are 1..254 (checked at assembly time); 255 reports a failure that
 * happened before the first test or with a corrupted test number, so a failure can never read
 * as success however the simulator truncates the exit code. Before ending, the failure paths
 * print a line to the CTRL console (CONSOLE_TX): "isa: FAIL test N got X want Y", or
 * "isa: unexpected trap in test N mcause X mepc Y mtval Z".
 *
 * Register conventions:
 *   gp  (x3)   current test number (TESTNUM); never use it in a test body
 *   tp  (x4)   clobbered by the trap handler at any trap
 *   t2  (x7)   the expected value in TEST_CASE
 *   t6  (x31)  the value under test, copied by TEST_CASE just before the comparison
 *   x1, x2     operands in the instruction macros; x14 (a4) the result; x6 (t1) bypass copies
 *   t0, t1     scratch in the TRAP_* macros
 *
 * Traps: the common handler records mcause/mepc/mtval/mstatus into isa_trap_rec and resumes where the
 * test asked (TRAP_EXPECT(label) or TRAP_EXPECT_SKIP for "mepc + 4"); the arming is one-shot.
 * A trap while nothing is armed is a failure. Tests that need another handler (interrupts,
 * vectored mode) install it with SET_MTVEC and restore with SET_MTVEC(isa_trap_entry).
 */
#ifndef STRATA_ISA_MACROS_H_
#define STRATA_ISA_MACROS_H_

#include "strata/regmap.h"

/* The toolchain is configured with -march=rv32im; under ISA spec 20191213 the CSR instructions
 * and fence.i belong to Zicsr/Zifencei, which the Strata core implements. No relaxation: gp is
 * the test number here, never the global pointer, so no access may become gp-relative. */
  .option arch, +zicsr, +zifencei
  .option norelax

#define TESTNUM gp

/* Architectural constants. */
#define MSTATUS_MIE   0x00000008
#define MSTATUS_MPIE  0x00000080
#define MSTATUS_MPP   0x00001800
#define MIP_MSIP      (1 << 3)
#define MIP_MTIP      (1 << 7)
#define MIP_MEIP      (1 << 11)
#define MIE_MSIE      MIP_MSIP
#define MIE_MTIE      MIP_MTIP
#define MIE_MEIE      MIP_MEIP
#define MCAUSE_INTR   0x80000000
#define CAUSE_MISALIGNED_FETCH  0
#define CAUSE_FETCH_ACCESS      1
#define CAUSE_ILLEGAL_INSN      2
#define CAUSE_BREAKPOINT        3
#define CAUSE_MISALIGNED_LOAD   4
#define CAUSE_LOAD_ACCESS       5
#define CAUSE_MISALIGNED_STORE  6
#define CAUSE_STORE_ACCESS      7
#define CAUSE_ECALL_M           11
#define CAUSE_M_SOFT_INTR       (MCAUSE_INTR | 3)
#define CAUSE_M_TIMER_INTR      (MCAUSE_INTR | 7)
#define CAUSE_M_EXT_INTR        (MCAUSE_INTR | 11)

/* isa_trap_rec layout (words). */
#define TRAP_REC_CAUSE  0
#define TRAP_REC_EPC    4
#define TRAP_REC_TVAL   8
#define TRAP_REC_COUNT  12
#define TRAP_REC_RESUME 16
#define TRAP_REC_STATUS 20   /* mstatus as the handler saw it */

/* ---------------------------------------------------------------------------------------------
 * Start-up and ending.
 * ------------------------------------------------------------------------------------------- */

#define ISA_ZERO_XREGS \
  li x1, 0;  li x2, 0;  li x3, 0;  li x4, 0;  li x5, 0;  li x6, 0;  li x7, 0;  li x8, 0; \
  li x9, 0;  li x10, 0; li x11, 0; li x12, 0; li x13, 0; li x14, 0; li x15, 0; li x16, 0; \
  li x17, 0; li x18, 0; li x19, 0; li x20, 0; li x21, 0; li x22, 0; li x23, 0; li x24, 0; \
  li x25, 0; li x26, 0; li x27, 0; li x28, 0; li x29, 0; li x30, 0; li x31, 0

#define TEST_CODE_BEGIN \
  .section .text.init, "ax", @progbits; \
  .globl _start; \
_start: \
  ISA_ZERO_XREGS; \
  la t0, isa_trap_entry; \
  csrw mtvec, t0; \
  csrw mie, zero; \
  csrci mstatus, MSTATUS_MIE; \
  li t0, 0; \
  li TESTNUM, 0;

/* Ends the test body (success if reached) and emits the shared code and the HTIF mailbox. */
#define TEST_CODE_END \
  j isa_pass; \
  ISA_COMMON_CODE; \
  ISA_COMMON_DATA; \
  ISA_TOHOST

#define TEST_DATA_BEGIN \
  .section .data, "aw", @progbits; \
  .balign 64;

#define TEST_DATA_END \
  .balign 4;

/* The trap record and the failure messages (emitted by TEST_CODE_END). */
#define ISA_COMMON_DATA \
  .section .data, "aw", @progbits; \
  .balign 64; \
  .globl isa_trap_rec; \
isa_trap_rec: \
  .word 0, 0, 0, 0, 0, 0; \
isa_msg_fail:    .asciz "isa: FAIL test "; \
isa_msg_got:     .asciz " got "; \
isa_msg_want:    .asciz " want "; \
isa_msg_trap:    .asciz "isa: unexpected trap in test "; \
isa_msg_mcause:  .asciz " mcause "; \
isa_msg_mepc:    .asciz " mepc "; \
isa_msg_mtval:   .asciz " mtval "; \
  .balign 4;

#define ISA_TOHOST \
  .section .tohost, "aw", @progbits; \
  .balign 64; \
  .globl tohost; \
tohost: .dword 0; \
  .balign 64; \
  .globl fromhost; \
fromhost: .dword 0; \
  .balign 64;

/* Shared code. The console routines use only a0, a1, t0, t1, t3, t4 and return through ra; the failure
 * paths never return, so they may clobber anything. */
#define ISA_COMMON_CODE \
isa_pass: \
  fence; \
  la t0, tohost; \
  sw zero, 4(t0); \
  li t1, 1; \
  sw t1, 0(t0); \
1: j 1b; \
  \
  /* A TEST_CASE mismatch: t6 holds the value under test, t2 the expected one. */ \
isa_fail_cmp: \
  la t0, isa_hard_fail; csrw mtvec, t0; \
  mv s10, t6; mv s11, t2; \
  la a1, isa_msg_fail; jal ra, isa_puts; \
  mv a0, TESTNUM; jal ra, isa_putdec; \
  la a1, isa_msg_got; jal ra, isa_puts; \
  mv a0, s10; jal ra, isa_puthex; \
  la a1, isa_msg_want; jal ra, isa_puts; \
  mv a0, s11; jal ra, isa_puthex; \
  li a0, '\n'; jal ra, isa_putc; \
  j isa_hard_fail; \
  \
  /* Any other failure (a wrong branch, a missing trap). */ \
isa_fail: \
  la t0, isa_hard_fail; csrw mtvec, t0; \
  la a1, isa_msg_fail; jal ra, isa_puts; \
  mv a0, TESTNUM; jal ra, isa_putdec; \
  li a0, '\n'; jal ra, isa_putc; \
  j isa_hard_fail; \
  \
  /* Writes (TESTNUM << 1) | 1 to tohost; TESTNUM outside 1..254 reports 255. Also the trap \
   * vector while failing, so a fault on the failure path still ends the run. */ \
  .balign 64; \
isa_hard_fail: \
  mv t0, TESTNUM; \
  addi t0, t0, -1; \
  li t1, 254; \
  bltu t0, t1, 1f; \
  li t0, 254; \
1: addi t0, t0, 1; \
  slli t0, t0, 1; \
  ori t0, t0, 1; \
  la t1, tohost; \
  sw zero, 4(t1); \
  sw t0, 0(t1); \
2: j 2b; \
  \
  /* The common trap vector (direct mode). */ \
  .balign 64; \
  .globl isa_trap_entry; \
isa_trap_entry: \
  csrw mscratch, t0; \
  la t0, isa_trap_rec; \
  csrr tp, mcause; sw tp, TRAP_REC_CAUSE(t0); \
  csrr tp, mepc;   sw tp, TRAP_REC_EPC(t0); \
  csrr tp, mtval;  sw tp, TRAP_REC_TVAL(t0); \
  csrr tp, mstatus; sw tp, TRAP_REC_STATUS(t0); \
  lw tp, TRAP_REC_COUNT(t0); addi tp, tp, 1; sw tp, TRAP_REC_COUNT(t0); \
  lw tp, TRAP_REC_RESUME(t0); \
  beqz tp, isa_unexpected_trap; \
  sw zero, TRAP_REC_RESUME(t0); \
  addi tp, tp, -1; \
  bnez tp, 1f; \
  csrr tp, mepc; addi tp, tp, 4; csrw mepc, tp; \
  j 2f; \
1: addi tp, tp, 1; \
  csrw mepc, tp; \
2: csrr t0, mscratch; \
  mret; \
  \
isa_unexpected_trap: \
  la t0, isa_hard_fail; csrw mtvec, t0; \
  la a1, isa_msg_trap; jal ra, isa_puts; \
  mv a0, TESTNUM; jal ra, isa_putdec; \
  la a1, isa_msg_mcause; jal ra, isa_puts; \
  csrr a0, mcause; jal ra, isa_puthex; \
  la a1, isa_msg_mepc; jal ra, isa_puts; \
  csrr a0, mepc; jal ra, isa_puthex; \
  la a1, isa_msg_mtval; jal ra, isa_puts; \
  csrr a0, mtval; jal ra, isa_puthex; \
  li a0, '\n'; jal ra, isa_putc; \
  j isa_hard_fail; \
  \
  /* isa_putc: a0 = character. */ \
isa_putc: \
  li t0, STRATA_CTRL_BASE; \
  sw a0, STRATA_CTRL_CONSOLE_TX(t0); \
  ret; \
  /* isa_puts: a1 = NUL-terminated string. */ \
isa_puts: \
  li t0, STRATA_CTRL_BASE; \
1: lbu t1, 0(a1); \
  beqz t1, 2f; \
  sw t1, STRATA_CTRL_CONSOLE_TX(t0); \
  addi a1, a1, 1; \
  j 1b; \
2: ret; \
  /* isa_puthex: a0 = value, printed as 0x%08x. */ \
isa_puthex: \
  li t0, STRATA_CTRL_BASE; \
  li t1, '0'; sw t1, STRATA_CTRL_CONSOLE_TX(t0); \
  li t1, 'x'; sw t1, STRATA_CTRL_CONSOLE_TX(t0); \
  li t3, 8; \
1: srli t1, a0, 28; \
  slli a0, a0, 4; \
  addi t1, t1, '0'; \
  li a1, '9'; \
  ble t1, a1, 2f; \
  addi t1, t1, 'a' - '0' - 10; \
2: sw t1, STRATA_CTRL_CONSOLE_TX(t0); \
  addi t3, t3, -1; \
  bnez t3, 1b; \
  ret; \
  /* isa_putdec: a0 = 0..999, printed in decimal without M-extension instructions. */ \
isa_putdec: \
  li t0, STRATA_CTRL_BASE; \
  li t4, 0; \
  li t1, '0'; li t3, 100; \
1: bltu a0, t3, 2f; sub a0, a0, t3; addi t1, t1, 1; j 1b; \
2: li a1, '0'; beq t1, a1, 3f; \
  sw t1, STRATA_CTRL_CONSOLE_TX(t0); li t4, 1; \
3: li t1, '0'; li t3, 10; \
4: bltu a0, t3, 5f; sub a0, a0, t3; addi t1, t1, 1; j 4b; \
5: bnez t4, 6f; li a1, '0'; beq t1, a1, 7f; \
6: sw t1, STRATA_CTRL_CONSOLE_TX(t0); \
7: addi t1, a0, '0'; \
  sw t1, STRATA_CTRL_CONSOLE_TX(t0); \
  ret;

/* ---------------------------------------------------------------------------------------------
 * The basic test case: run `code`, then compare `testreg` with `correctval`.
 * ------------------------------------------------------------------------------------------- */

#define ISA_NOPS_0
#define ISA_NOPS_1 nop;
#define ISA_NOPS_2 nop; nop;
#define ISA_NOPS_3 nop; nop; nop;
#define ISA_NOPS_4 nop; nop; nop; nop;
#define ISA_NOPS_5 nop; nop; nop; nop; nop;
#define ISA_NOPS(n) ISA_NOPS_ ## n

#define TEST_START(testnum) \
test_ ## testnum: \
  .if ((testnum) < 1) || ((testnum) > 254); .error "test numbers are 1..254"; .endif; \
  li TESTNUM, testnum;

/* Compare without starting a new test (the failure reports the current test number). */
#define CHECK_EQ(testreg, correctval) \
  li t2, correctval; \
  mv t6, testreg; \
  bne t6, t2, isa_fail_cmp;

#define CHECK_EQ_ADDR(testreg, label) \
  la t2, label; \
  mv t6, testreg; \
  bne t6, t2, isa_fail_cmp;

#define CHECK_EQ_REG(testreg, refreg) \
  mv t2, refreg; \
  mv t6, testreg; \
  bne t6, t2, isa_fail_cmp;

#define TEST_CASE(testnum, testreg, correctval, code...) \
  TEST_START(testnum) \
  code; \
  CHECK_EQ(testreg, correctval)

/* As TEST_CASE, but the expected value is an address (a label expression). */
#define TEST_CASE_ADDR(testnum, testreg, label, code...) \
  TEST_START(testnum) \
  code; \
  CHECK_EQ_ADDR(testreg, label)

/* Compare two registers after running `code`. */
#define TEST_CASE_REGS(testnum, testreg, refreg, code...) \
  TEST_START(testnum) \
  code; \
  CHECK_EQ_REG(testreg, refreg)

/* ---------------------------------------------------------------------------------------------
 * Register-register operations: rd = x14, rs1 = x1, rs2 = x2 unless stated.
 * ------------------------------------------------------------------------------------------- */

#define TEST_RR_OP(testnum, inst, result, val1, val2) \
  TEST_CASE(testnum, x14, result, li x1, val1; li x2, val2; inst x14, x1, x2)

#define TEST_RR_SRC1_EQ_DEST(testnum, inst, result, val1, val2) \
  TEST_CASE(testnum, x1, result, li x1, val1; li x2, val2; inst x1, x1, x2)

#define TEST_RR_SRC2_EQ_DEST(testnum, inst, result, val1, val2) \
  TEST_CASE(testnum, x2, result, li x1, val1; li x2, val2; inst x2, x1, x2)

#define TEST_RR_SRC12_EQ_DEST(testnum, inst, result, val1) \
  TEST_CASE(testnum, x1, result, li x1, val1; inst x1, x1, x1)

/* x0 as a source reads zero; as a destination nothing is written and nothing is forwarded. */
#define TEST_RR_ZEROSRC1(testnum, inst, result, val) \
  TEST_CASE(testnum, x2, result, li x1, val; inst x2, x0, x1)

#define TEST_RR_ZEROSRC2(testnum, inst, result, val) \
  TEST_CASE(testnum, x2, result, li x1, val; inst x2, x1, x0)

#define TEST_RR_ZEROSRC12(testnum, inst, result) \
  TEST_CASE(testnum, x1, result, li x1, -1; inst x1, x0, x0)

#define TEST_RR_ZERODEST(testnum, inst, val1, val2) \
  TEST_CASE(testnum, x14, 0, li x1, val1; li x2, val2; inst x0, x1, x2; add x14, x0, x0)

/* The result consumed after `nops` independent instructions (forwarding distance nops + 1). */
#define TEST_RR_DEST_BYPASS(testnum, nops, inst, result, val1, val2) \
  TEST_CASE(testnum, x6, result, li x1, val1; li x2, val2; inst x14, x1, x2; ISA_NOPS(nops) addi x6, x14, 0)

/* Operands produced shortly before use: x1 first, then x2. */
#define TEST_RR_SRC12_BYPASS(testnum, nops1, nops2, inst, result, val1, val2) \
  TEST_CASE(testnum, x14, result, li x1, val1; ISA_NOPS(nops1) li x2, val2; ISA_NOPS(nops2) inst x14, x1, x2)

/* Operands produced shortly before use: x2 first, then x1. */
#define TEST_RR_SRC21_BYPASS(testnum, nops1, nops2, inst, result, val1, val2) \
  TEST_CASE(testnum, x14, result, li x2, val2; ISA_NOPS(nops1) li x1, val1; ISA_NOPS(nops2) inst x14, x1, x2)

/* ---------------------------------------------------------------------------------------------
 * Register-immediate operations.
 * ------------------------------------------------------------------------------------------- */

#define TEST_IMM_OP(testnum, inst, result, val1, imm) \
  TEST_CASE(testnum, x14, result, li x1, val1; inst x14, x1, imm)

#define TEST_IMM_SRC1_EQ_DEST(testnum, inst, result, val1, imm) \
  TEST_CASE(testnum, x1, result, li x1, val1; inst x1, x1, imm)

#define TEST_IMM_ZEROSRC1(testnum, inst, result, imm) \
  TEST_CASE(testnum, x1, result, li x1, -1; inst x1, x0, imm)

#define TEST_IMM_ZERODEST(testnum, inst, val1, imm) \
  TEST_CASE(testnum, x14, 0, li x1, val1; inst x0, x1, imm; add x14, x0, x0)

#define TEST_IMM_DEST_BYPASS(testnum, nops, inst, result, val1, imm) \
  TEST_CASE(testnum, x6, result, li x1, val1; inst x14, x1, imm; ISA_NOPS(nops) addi x6, x14, 0)

#define TEST_IMM_SRC1_BYPASS(testnum, nops, inst, result, val1, imm) \
  TEST_CASE(testnum, x14, result, li x1, val1; ISA_NOPS(nops) inst x14, x1, imm)

/* ---------------------------------------------------------------------------------------------
 * Loads and stores. base is a data label; x1 holds it.
 * ------------------------------------------------------------------------------------------- */

#define TEST_LD_OP(testnum, inst, result, offset, base) \
  TEST_CASE(testnum, x14, result, la x1, base; inst x14, offset(x1))

/* Load-use: the loaded value consumed after `nops` instructions (0 = the load-use hazard). */
#define TEST_LD_DEST_BYPASS(testnum, nops, inst, result, offset, base) \
  TEST_CASE(testnum, x6, result, la x1, base; inst x14, offset(x1); ISA_NOPS(nops) addi x6, x14, 0)

/* The base register produced just before the load. */
#define TEST_LD_SRC1_BYPASS(testnum, nops, inst, result, offset, base) \
  TEST_CASE(testnum, x14, result, la x1, base; ISA_NOPS(nops) inst x14, offset(x1))

/* Store then load back immediately (store-to-load forwarding, or its absence, must be right). */
#define TEST_ST_OP(testnum, load_inst, store_inst, result, offset, base) \
  TEST_CASE(testnum, x14, result, la x1, base; li x2, result; store_inst x2, offset(x1); load_inst x14, offset(x1))

/* As TEST_ST_OP with `nops` instructions between the store and the load. */
#define TEST_ST_LD_GAP(testnum, nops, load_inst, store_inst, result, offset, base) \
  TEST_CASE(testnum, x14, result, la x1, base; li x2, result; store_inst x2, offset(x1); ISA_NOPS(nops) load_inst x14, offset(x1))

/* Store data (x2) and base (x1) produced just before the store, in both orders. */
#define TEST_ST_SRC12_BYPASS(testnum, nops1, nops2, load_inst, store_inst, result, offset, base) \
  TEST_CASE(testnum, x14, result, li x2, result; ISA_NOPS(nops1) la x1, base; ISA_NOPS(nops2) store_inst x2, offset(x1); load_inst x14, offset(x1))

#define TEST_ST_SRC21_BYPASS(testnum, nops1, nops2, load_inst, store_inst, result, offset, base) \
  TEST_CASE(testnum, x14, result, la x1, base; ISA_NOPS(nops1) li x2, result; ISA_NOPS(nops2) store_inst x2, offset(x1); load_inst x14, offset(x1))

/* A narrow store changes only its own bytes: fill the aligned word at `base` with `fill`,
 * store `val` at offset(base), then the whole word must read `word`. */
#define TEST_ST_MERGE(testnum, store_inst, fill, val, offset, word, base) \
  TEST_CASE(testnum, x14, word, la x1, base; li x2, fill; sw x2, 0(x1); li x2, val; store_inst x2, offset(x1); lw x14, 0(x1))

/* ---------------------------------------------------------------------------------------------
 * Branches. x14 accumulates which paths ran; instructions in a taken branch's shadow add bits
 * that make the result wrong if they are not squashed.
 * ------------------------------------------------------------------------------------------- */

/* Taken forward, then taken backward. */
#define TEST_BR2_OP_TAKEN(testnum, inst, val1, val2) \
  TEST_CASE(testnum, x14, 3, \
    li x14, 0; li x1, val1; li x2, val2; \
    inst x1, x2, 82f; \
    addi x14, x14, 0x10; addi x14, x14, 0x20; j isa_fail; \
  81: addi x14, x14, 2; j 83f; \
    addi x14, x14, 0x40; j isa_fail; \
  82: addi x14, x14, 1; \
    inst x1, x2, 81b; \
    addi x14, x14, 0x80; addi x14, x14, 0x100; j isa_fail; \
  83: )

/* Not taken forward, then not taken backward. */
#define TEST_BR2_OP_NOTTAKEN(testnum, inst, val1, val2) \
  TEST_CASE(testnum, x14, 3, \
    li x14, 0; li x1, val1; li x2, val2; \
    inst x1, x2, 81f; \
    addi x14, x14, 1; j 82f; \
  81: j isa_fail; \
  82: inst x1, x2, 81b; \
    addi x14, x14, 2)

/* Taken forward and backward over about 4 KiB (offsets with bit 11 set, near the +-4 KiB limit). */
#define TEST_BR2_FAR_TAKEN(testnum, inst, val1, val2) \
  TEST_CASE(testnum, x14, 3, \
    li x14, 0; li x1, val1; li x2, val2; \
    inst x1, x2, 82f; \
    j isa_fail; \
  81: addi x14, x14, 2; j 83f; \
    .skip 0xfe8; \
  82: addi x14, x14, 1; \
    inst x1, x2, 81b; \
    j isa_fail; \
  83: )

/* The pc after a branch is right: auipc at the taken target, and after a not-taken backward
 * branch (which the core may predict taken), reads its own address. */
#define TEST_BR2_TAKEN_PC(testnum, inst, val1, val2) \
  TEST_CASE(testnum, x14, 1, \
    li x1, val1; li x2, val2; \
    inst x1, x2, 81f; \
    j isa_fail; \
  81: auipc x15, 0; \
    la x16, 81b; \
    sub x14, x15, x16; \
    seqz x14, x14)

#define TEST_BR2_BACK_NOTTAKEN_PC(testnum, inst, val1, val2) \
  TEST_CASE(testnum, x14, 1, \
    li x1, val1; li x2, val2; \
    j 82f; \
  81: j isa_fail; \
  82: inst x1, x2, 81b; \
  83: auipc x15, 0; \
    la x16, 83b; \
    sub x14, x15, x16; \
    seqz x14, x14)

/* Any register pair (x0, the same register twice); `taken` is 0 or 1. */
#define TEST_BR_REGS(testnum, inst, taken, rs1, rs2, val1, val2) \
  TEST_CASE(testnum, x14, taken, \
    li x14, 0; li x1, val1; li x2, val2; \
    inst rs1, rs2, 81f; \
    j 82f; \
  81: li x14, 1; \
  82: )

/* Operands produced just before the branch; `taken` is 0 or 1. */
#define TEST_BR2_SRC12_BYPASS(testnum, nops1, nops2, inst, taken, val1, val2) \
  TEST_CASE(testnum, x14, taken, \
    li x14, 0; li x1, val1; ISA_NOPS(nops1) li x2, val2; ISA_NOPS(nops2) \
    inst x1, x2, 81f; \
    j 82f; \
  81: li x14, 1; \
  82: )

#define TEST_BR2_SRC21_BYPASS(testnum, nops1, nops2, inst, taken, val1, val2) \
  TEST_CASE(testnum, x14, taken, \
    li x14, 0; li x2, val2; ISA_NOPS(nops1) li x1, val1; ISA_NOPS(nops2) \
    inst x1, x2, 81f; \
    j 82f; \
  81: li x14, 1; \
  82: )

/* ---------------------------------------------------------------------------------------------
 * Traps.
 * ------------------------------------------------------------------------------------------- */

#define SET_MTVEC(label) \
  la t0, label; \
  csrw mtvec, t0;

/* The next trap records mcause/mepc/mtval and resumes at `label` (one-shot). */
#define TRAP_EXPECT(label) \
  la t0, label; \
  la t1, isa_trap_rec; \
  sw t0, TRAP_REC_RESUME(t1); \
  li t0, -1; \
  sw t0, TRAP_REC_CAUSE(t1); \
  sw t0, TRAP_REC_EPC(t1); \
  sw t0, TRAP_REC_TVAL(t1); \
  sw zero, TRAP_REC_COUNT(t1);

/* The next trap records mcause/mepc/mtval and resumes at mepc + 4 (one-shot). */
#define TRAP_EXPECT_SKIP \
  la t1, isa_trap_rec; \
  li t0, 1; \
  sw t0, TRAP_REC_RESUME(t1); \
  li t0, -1; \
  sw t0, TRAP_REC_CAUSE(t1); \
  sw t0, TRAP_REC_EPC(t1); \
  sw t0, TRAP_REC_TVAL(t1); \
  sw zero, TRAP_REC_COUNT(t1);

/* Disarm (after a trap that may not have happened). */
#define TRAP_DISARM \
  la t1, isa_trap_rec; \
  sw zero, TRAP_REC_RESUME(t1);

#define TRAP_REC_LOAD(reg, field) \
  la reg, isa_trap_rec; \
  lw reg, field(reg);

/* Checks on the last recorded trap. */
#define TEST_TRAP_CAUSE(testnum, cause) \
  TEST_CASE(testnum, x14, cause, TRAP_REC_LOAD(x14, TRAP_REC_CAUSE))
#define TEST_TRAP_EPC(testnum, label) \
  TEST_CASE_ADDR(testnum, x14, label, TRAP_REC_LOAD(x14, TRAP_REC_EPC))
#define TEST_TRAP_TVAL(testnum, value) \
  TEST_CASE(testnum, x14, value, TRAP_REC_LOAD(x14, TRAP_REC_TVAL))
#define TEST_TRAP_TVAL_ADDR(testnum, label) \
  TEST_CASE_ADDR(testnum, x14, label, TRAP_REC_LOAD(x14, TRAP_REC_TVAL))
#define TEST_TRAP_COUNT(testnum, count) \
  TEST_CASE(testnum, x14, count, TRAP_REC_LOAD(x14, TRAP_REC_COUNT))

/* Checks on the last recorded trap, within the current test. */
#define CHECK_TRAP_CAUSE(cause)  TRAP_REC_LOAD(x14, TRAP_REC_CAUSE) CHECK_EQ(x14, cause)
#define CHECK_TRAP_EPC(label)    TRAP_REC_LOAD(x14, TRAP_REC_EPC) CHECK_EQ_ADDR(x14, label)
#define CHECK_TRAP_TVAL(value)   TRAP_REC_LOAD(x14, TRAP_REC_TVAL) CHECK_EQ(x14, value)
#define CHECK_TRAP_TVAL_ADDR(label) TRAP_REC_LOAD(x14, TRAP_REC_TVAL) CHECK_EQ_ADDR(x14, label)
#define CHECK_TRAP_COUNT(count)  TRAP_REC_LOAD(x14, TRAP_REC_COUNT) CHECK_EQ(x14, count)
#define CHECK_NO_TRAP            TRAP_DISARM CHECK_TRAP_COUNT(0)

/* One instruction (sequence) that must trap with `cause` at its first instruction: checks
 * mcause and mepc, then continues after it. */
#define TEST_EXCEPTION(testnum, cause, insn...) \
  TEST_START(testnum) \
  TRAP_EXPECT(86f); \
85: insn; \
  j isa_fail; \
86: \
  CHECK_TRAP_COUNT(1) \
  CHECK_TRAP_CAUSE(cause) \
  CHECK_TRAP_EPC(85b)

/* An instruction (or .word) that must raise an illegal-instruction exception: mcause 2,
 * mepc = the instruction, mtval = its bits (read back from memory), rd (x14) unchanged.
 * Continues after it. */
#define TEST_ILLEGAL(testnum, insn...) \
  TEST_START(testnum) \
  li x14, 0x5a5a5a5a; \
  TRAP_EXPECT(86f); \
85: insn; \
  j isa_fail; \
86: \
  CHECK_EQ(x14, 0x5a5a5a5a) \
  CHECK_TRAP_COUNT(1) \
  CHECK_TRAP_CAUSE(CAUSE_ILLEGAL_INSN) \
  CHECK_TRAP_EPC(85b) \
  la x1, 85b; \
  lw x1, 0(x1); \
  TRAP_REC_LOAD(x14, TRAP_REC_TVAL) \
  CHECK_EQ_REG(x14, x1)

/* ---------------------------------------------------------------------------------------------
 * Strata CTRL block: machine timer and interrupt controller (clobber t0, t1, t3, t4).
 * ------------------------------------------------------------------------------------------- */

#define CTRL_REG(name) STRATA_CTRL_ ## name

/* mtimecmp = mtime + delta (64-bit, read consistently). Writes LO = all ones first so no
 * transient compare value can fire. */
#define TIMER_ARM(delta) \
  li t0, STRATA_CTRL_BASE; \
87: lw t3, CTRL_REG(MTIME_HI)(t0); \
  lw t1, CTRL_REG(MTIME_LO)(t0); \
  lw t4, CTRL_REG(MTIME_HI)(t0); \
  bne t3, t4, 87b; \
  li t4, delta; \
  add t4, t1, t4; \
  sltu t1, t4, t1; \
  add t3, t3, t1; \
  li t1, -1; \
  sw t1, CTRL_REG(MTIMECMP_LO)(t0); \
  sw t3, CTRL_REG(MTIMECMP_HI)(t0); \
  sw t4, CTRL_REG(MTIMECMP_LO)(t0); \
  lw t1, CTRL_REG(MTIMECMP_LO)(t0);

/* mtimecmp = 0: MTIP is set from now on. */
#define TIMER_EXPIRE \
  li t0, STRATA_CTRL_BASE; \
  sw zero, CTRL_REG(MTIMECMP_HI)(t0); \
  sw zero, CTRL_REG(MTIMECMP_LO)(t0); \
  lw t1, CTRL_REG(MTIMECMP_LO)(t0);

/* mtimecmp = all ones (its reset value): MTIP clear. The read-back orders the write before
 * whatever follows. */
#define TIMER_DISARM \
  li t0, STRATA_CTRL_BASE; \
  li t1, -1; \
  sw t1, CTRL_REG(MTIMECMP_HI)(t0); \
  sw t1, CTRL_REG(MTIMECMP_LO)(t0); \
  lw t1, CTRL_REG(MTIMECMP_LO)(t0);

/* reg = MTIME_LO. */
#define MTIME_READ(reg) \
  li reg, STRATA_CTRL_BASE; \
  lw reg, CTRL_REG(MTIME_LO)(reg);

/* Write `value` to a CTRL register (and read it back to order the write). */
#define CTRL_WRITE(name, value) \
  li t0, STRATA_CTRL_BASE; \
  li t1, value; \
  sw t1, CTRL_REG(name)(t0); \
  lw t1, CTRL_REG(ID)(t0);

#define CTRL_READ(reg, name) \
  li reg, STRATA_CTRL_BASE; \
  lw reg, CTRL_REG(name)(reg);

/* ---------------------------------------------------------------------------------------------
 * Interrupt tests: ISA_IRQ_SUPPORT (placed after TEST_CODE_END) emits isa_irq_entry, a direct-mode
 * handler that records each trap into isa_irq_rec and services the source: the machine timer
 * interrupt disarms the timer, the external interrupt clears IRQ_PENDING & IRQ_ENABLE; any
 * exception or other cause fails the test, as do 256 interrupts without a reset (a storm).
 * It clobbers only tp.
 * ------------------------------------------------------------------------------------------- */

#define IRQ_REC_COUNT   0
#define IRQ_REC_CAUSE   4    /* of the last interrupt */
#define IRQ_REC_EPC     8
#define IRQ_REC_MIP     12   /* mip at handler entry */
#define IRQ_REC_STATUS  16   /* mstatus at handler entry */
#define IRQ_REC_MTIME   20   /* MTIME_LO at handler entry */
#define IRQ_REC_PENDING 24   /* IRQ_PENDING at handler entry */
#define IRQ_REC_LOG     28   /* mcause of the first four interrupts */
#define IRQ_REC_SAVE    44

#define ISA_IRQ_SUPPORT \
  .section .text.init, "ax", @progbits; \
  .balign 64; \
  .globl isa_irq_entry; \
isa_irq_entry: \
  csrw mscratch, t0; \
  la t0, isa_irq_rec; \
  sw t1, IRQ_REC_SAVE(t0); \
  sw t3, IRQ_REC_SAVE + 4(t0); \
  csrr tp, mcause;  sw tp, IRQ_REC_CAUSE(t0); \
  csrr tp, mepc;    sw tp, IRQ_REC_EPC(t0); \
  csrr tp, mip;     sw tp, IRQ_REC_MIP(t0); \
  csrr tp, mstatus; sw tp, IRQ_REC_STATUS(t0); \
  li t1, STRATA_CTRL_BASE; \
  lw tp, CTRL_REG(MTIME_LO)(t1);    sw tp, IRQ_REC_MTIME(t0); \
  lw tp, CTRL_REG(IRQ_PENDING)(t1); sw tp, IRQ_REC_PENDING(t0); \
  lw tp, IRQ_REC_COUNT(t0); \
  li t1, 4; \
  bgeu tp, t1, 1f; \
  slli t1, tp, 2; \
  add t1, t1, t0; \
  csrr t3, mcause; \
  sw t3, IRQ_REC_LOG(t1); \
1: addi tp, tp, 1; \
  sw tp, IRQ_REC_COUNT(t0); \
  li t1, 256; \
  bgeu tp, t1, isa_fail; \
  /* Handlers do arithmetic too: a divide and a multiply here must give their own results, */ \
  /* also when the interrupt arrived while the interrupted code had one in flight. */ \
  li tp, 1000; li t1, 7; divu t3, tp, t1; \
  li t1, 142; bne t3, t1, isa_fail; \
  mul t3, tp, t1; li t1, 142000; bne t3, t1, isa_fail; \
  csrr tp, mcause; \
  bgez tp, isa_unexpected_trap; \
  slli tp, tp, 1; \
  srli tp, tp, 1; \
  li t1, 7; \
  beq tp, t1, 2f; \
  li t1, 11; \
  beq tp, t1, 3f; \
  j isa_unexpected_trap; \
2: li t1, STRATA_CTRL_BASE; \
  li tp, -1; \
  sw tp, CTRL_REG(MTIMECMP_HI)(t1); \
  sw tp, CTRL_REG(MTIMECMP_LO)(t1); \
  lw tp, CTRL_REG(MTIMECMP_LO)(t1); \
  j 4f; \
3: li t1, STRATA_CTRL_BASE; \
  lw tp, CTRL_REG(IRQ_PENDING)(t1); \
  lw t3, CTRL_REG(IRQ_ENABLE)(t1); \
  and tp, tp, t3; \
  sw tp, CTRL_REG(IRQ_PENDING)(t1); \
  lw tp, CTRL_REG(IRQ_PENDING)(t1); \
4: lw t1, IRQ_REC_SAVE(t0); \
  lw t3, IRQ_REC_SAVE + 4(t0); \
  csrr t0, mscratch; \
  mret; \
  \
  .section .data, "aw", @progbits; \
  .balign 64; \
  .globl isa_irq_rec; \
isa_irq_rec: \
  .fill 16, 4, 0;

/* Reset the interrupt record (count and log 0, cause -1). */
#define IRQ_REC_RESET \
  la t0, isa_irq_rec; \
  sw zero, IRQ_REC_COUNT(t0); \
  li t1, -1; \
  sw t1, IRQ_REC_CAUSE(t0); \
  sw t1, IRQ_REC_EPC(t0); \
  sw zero, IRQ_REC_LOG(t0); \
  sw zero, IRQ_REC_LOG + 4(t0); \
  sw zero, IRQ_REC_LOG + 8(t0); \
  sw zero, IRQ_REC_LOG + 12(t0);

#define IRQ_REC_LOAD(reg, field) \
  la reg, isa_irq_rec; \
  lw reg, field(reg);

/* Spin until at least n interrupts were recorded; fail after `iters` iterations. */
#define IRQ_WAIT(n, iters) \
  la t0, isa_irq_rec; \
  li t1, iters; \
  li t3, n; \
88: lw t4, IRQ_REC_COUNT(t0); \
  bgeu t4, t3, 89f; \
  addi t1, t1, -1; \
  bnez t1, 88b; \
  j isa_fail; \
89:

/* Spin for `iters` iterations (about 3 instructions each). */
#define SPIN(iters) \
  li t1, iters; \
88: addi t1, t1, -1; \
  bnez t1, 88b;

#endif  /* STRATA_ISA_MACROS_H_ */
