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

#if defined(__riscv)

#define STRATA_CSR_READ(csr)                   \
  ({                                           \
    uint32_t v_;                               \
    asm volatile("csrr %0, " #csr : "=r"(v_)); \
    v_;                                        \
  })
#define STRATA_CSR_WRITE(csr, v) asm volatile("csrw " #csr ", %0" ::"r"(v))
#define STRATA_CSR_SET(csr, v) asm volatile("csrs " #csr ", %0" ::"r"(v))
#define STRATA_CSR_CLEAR(csr, v) asm volatile("csrc " #csr ", %0" ::"r"(v))

inline void WaitForInterrupt() { asm volatile("wfi"); }

#else  // host: the CSRs are a fake register file and wfi is a test hook (arch/host/arch_host.h)

namespace host {
// The CSRs firmware names (their RISC-V numbers); another name does not compile on the host.
enum class Csr : uint32_t {
  mstatus = 0x300,
  mie = 0x304,
  mip = 0x344,
  mcycle = 0xb00,
  minstret = 0xb02,
  mcycleh = 0xb80,
  minstreth = 0xb82,
};
uint32_t CsrRead(Csr csr);
void CsrWrite(Csr csr, uint32_t value);
}  // namespace host

#define STRATA_CSR_READ(csr) ::strata::arch::host::CsrRead(::strata::arch::host::Csr::csr)
#define STRATA_CSR_WRITE(csr, v) ::strata::arch::host::CsrWrite(::strata::arch::host::Csr::csr, (v))
#define STRATA_CSR_SET(csr, v) \
  ::strata::arch::host::CsrWrite(::strata::arch::host::Csr::csr, STRATA_CSR_READ(csr) | (v))
#define STRATA_CSR_CLEAR(csr, v) \
  ::strata::arch::host::CsrWrite(::strata::arch::host::Csr::csr, STRATA_CSR_READ(csr) & ~(v))

// Calls the hook a test installed (arch::host::SetWfiHook): where the test's model of the device runs.
void WaitForInterrupt();

#endif

// A 64-bit counter (mcycle, minstret), read as high, low, high again until the high word holds still.
#define STRATA_CSR_READ64(csr)                \
  ({                                          \
    uint32_t hi_, lo_, hi2_;                  \
    do {                                      \
      hi_ = STRATA_CSR_READ(csr##h);          \
      lo_ = STRATA_CSR_READ(csr);             \
      hi2_ = STRATA_CSR_READ(csr##h);         \
    } while (hi_ != hi2_);                    \
    (static_cast<uint64_t>(hi_) << 32) | lo_; \
  })

inline uint64_t ReadCycle() { return STRATA_CSR_READ64(mcycle); }
inline uint32_t ReadCycle32() { return STRATA_CSR_READ(mcycle); }
inline uint64_t ReadInstret() { return STRATA_CSR_READ64(minstret); }

inline void EnableInterrupts() { STRATA_CSR_SET(mstatus, kMstatusMie); }
inline void DisableInterrupts() { STRATA_CSR_CLEAR(mstatus, kMstatusMie); }

// Handler for one machine interrupt cause (7 timer, 11 external). nullptr removes it.
using InterruptHandler = void (*)(TrapFrame* frame);
void SetInterruptHandler(uint32_t cause, InterruptHandler handler);

// Ends the simulation through tohost: code 0 is success. Never returns.
[[noreturn]] void Exit(int code);

}  // namespace strata::arch

extern "C" [[noreturn]] void strata_exit(int code);

#endif  // STRATA_FW_ARCH_ARCH_H_
