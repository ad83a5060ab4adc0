// Control-core architecture services: CSR access, interrupts, traps and ending the run.
#ifndef STRATA_FW_ARCH_ARCH_H_
#define STRATA_FW_ARCH_ARCH_H_

#include <stdint.h>

namespace strata::arch {

// Layout matches arch/trap.S.
struct TrapFrame {
  uint32_t ra, t0, t1, t2, a0, a1, a2, a3, a4, a5, a6, a7, t3, t4, t5, t6;
  uint32_t mepc, mcause, mtval;
  uint32_t pad;
};
static_assert(sizeof(TrapFrame) == 80, "TrapFrame must match arch/trap.S");

constexpr uint32_t kMcauseInterrupt = 0x80000000u;
constexpr uint32_t kIrqMachineTimer = 7;
constexpr uint32_t kIrqMachineExternal = 11;
constexpr uint32_t kMstatusMie = 1u << 3;

#define STRATA_CSR_READ(csr)                   \
  ({                                           \
    uint32_t v_;                               \
    asm volatile("csrr %0, " #csr : "=r"(v_)); \
    v_;                                        \
  })
#define STRATA_CSR_WRITE(csr, v) asm volatile("csrw " #csr ", %0" ::"r"(v))
#define STRATA_CSR_SET(csr, v) asm volatile("csrs " #csr ", %0" ::"r"(v))
#define STRATA_CSR_CLEAR(csr, v) asm volatile("csrc " #csr ", %0" ::"r"(v))

inline uint64_t ReadCycle() {
  uint32_t hi, lo, hi2;
  do {
    asm volatile("csrr %0, mcycleh" : "=r"(hi));
    asm volatile("csrr %0, mcycle" : "=r"(lo));
    asm volatile("csrr %0, mcycleh" : "=r"(hi2));
  } while (hi != hi2);
  return (static_cast<uint64_t>(hi) << 32) | lo;
}
inline uint32_t ReadCycle32() { return STRATA_CSR_READ(mcycle); }
inline uint64_t ReadInstret() {
  uint32_t hi, lo, hi2;
  do {
    asm volatile("csrr %0, minstreth" : "=r"(hi));
    asm volatile("csrr %0, minstret" : "=r"(lo));
    asm volatile("csrr %0, minstreth" : "=r"(hi2));
  } while (hi != hi2);
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

inline void EnableInterrupts() { STRATA_CSR_SET(mstatus, kMstatusMie); }
inline void DisableInterrupts() { STRATA_CSR_CLEAR(mstatus, kMstatusMie); }
inline void WaitForInterrupt() { asm volatile("wfi"); }

// Handler for one machine interrupt cause (7 timer, 11 external). nullptr removes it.
using InterruptHandler = void (*)(TrapFrame* frame);
void SetInterruptHandler(uint32_t cause, InterruptHandler handler);

// Ends the simulation through tohost: code 0 is success. Never returns.
[[noreturn]] void Exit(int code);

}  // namespace strata::arch

extern "C" [[noreturn]] void strata_exit(int code);

#endif  // STRATA_FW_ARCH_ARCH_H_
