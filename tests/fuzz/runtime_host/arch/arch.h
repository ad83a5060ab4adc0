// Host stand-in for firmware/arch/arch.h, for runtime_fuzz only: it comes first on that target's include path,
// so firmware/runtime/runtime.cc compiles unchanged for the host. The cycle counter is a counter, interrupts do
// nothing, and wfi is where the fuzz target's host model takes its turn (defined in runtime_fuzz.cc).
#ifndef STRATA_TESTS_FUZZ_RUNTIME_HOST_ARCH_ARCH_H_
#define STRATA_TESTS_FUZZ_RUNTIME_HOST_ARCH_ARCH_H_

#include <stdint.h>

namespace strata::arch {

uint64_t ReadCycle();
inline uint32_t ReadCycle32() { return static_cast<uint32_t>(ReadCycle()); }
inline void EnableInterrupts() {}
inline void DisableInterrupts() {}
void WaitForInterrupt();

}  // namespace strata::arch

#endif  // STRATA_TESTS_FUZZ_RUNTIME_HOST_ARCH_ARCH_H_
