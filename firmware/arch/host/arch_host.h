// The host build's control core, for unit tests: the CSRs firmware reads and writes are a fake register file the
// test controls, wfi calls a hook the test installs (where its model of the device runs: a DMA completes, an
// interrupt is raised), and Exit calls a hook instead of writing tohost. Host only (firmware/arch/host/).
#ifndef STRATA_FW_ARCH_HOST_ARCH_HOST_H_
#define STRATA_FW_ARCH_HOST_ARCH_HOST_H_

#include <stdint.h>

#include <functional>

#include "arch/arch.h"

namespace strata::arch::host {

// The fake CSRs. mcycle/mcycleh (and minstret/minstreth) are one 64-bit counter each, which a read of the low
// word advances by `cycles_per_read`: firmware that times something sees time pass.
struct CsrFile {
  uint32_t mstatus = 0;
  uint32_t mie = 0;
  uint32_t mip = 0;
  uint64_t mcycle = 0;
  uint64_t minstret = 0;
  uint32_t cycles_per_read = 1;
  uint32_t writes = 0;  // CSR writes since the last Reset (a driver that should not touch a CSR did)
};
CsrFile& Csrs();

// Called by every wfi. Without one, wfi is a fatal error (nothing could ever wake the core): the message names it.
using WfiHook = std::function<void()>;
void SetWfiHook(WfiHook hook);
uint64_t WfiCount();  // wfi executed since the last Reset

// Called by Exit(code) (and strata_exit); without one, Exit prints the code and aborts. The hook must not return
// (throw, or longjmp, or exit the process): Exit is [[noreturn]], so it aborts if the hook does return.
using ExitHook = std::function<void(int code)>;
void SetExitHook(ExitHook hook);

// Takes the trap a machine interrupt `cause` would (kIrqMachineTimer, kIrqMachineExternal) through the handler
// SetInterruptHandler installed; false when there is none (the rv32 trap entry would report it and stop).
bool DeliverInterrupt(uint32_t cause);

// Reset state: CSRs zero, no hooks, no handlers, counters zero.
void Reset();

}  // namespace strata::arch::host

#endif  // STRATA_FW_ARCH_HOST_ARCH_HOST_H_
