# ecall: mcause 11 (environment call from M-mode), mepc = the ecall, mtval = 0; the handler adds 4
# to mepc and mret resumes after the ecall. Trap entry sets MPIE = old MIE, MIE = 0, MPP = 3;
# mret sets MIE = MPIE, MPIE = 1, and jumps to mepc (also outside a trap). Precise: what comes
# before completes, what comes after (in the pipeline shadow) does not run. No trap on a squashed
# path. Registers are preserved.
#include "isa_macros.h"

#define TRAP_INST ecall
#define TRAP_CAUSE CAUSE_ECALL_M
#define CHECK_TRAP_TVAL_OF(label) CHECK_TRAP_TVAL(0)
#include "trap_return.inc"
