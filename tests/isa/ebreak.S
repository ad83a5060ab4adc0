# ebreak: mcause 3 (breakpoint), mepc = the ebreak, mtval = its address (pc); the handler adds 4
# to mepc and mret resumes after the ebreak. Trap entry sets MPIE = old MIE, MIE = 0, MPP = 3;
# mret sets MIE = MPIE, MPIE = 1, and jumps to mepc (also outside a trap). Precise: what comes
# before completes, what comes after (in the pipeline shadow) does not run. No trap on a squashed
# path. Registers are preserved.
#include "isa_macros.h"

#define TRAP_INST ebreak
#define TRAP_CAUSE CAUSE_BREAKPOINT
#define CHECK_TRAP_TVAL_OF(label) CHECK_TRAP_TVAL_ADDR(label)
#include "trap_return.inc"
