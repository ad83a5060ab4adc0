// Interrupts as wake-up events: the one sleep idiom of the DMA and matrix-unit drivers and the runtime.
//
// mstatus.MIE stays off, so no trap is taken: wfi wakes on a pending, enabled source whatever MIE says. A waiter
// clears its sources' pending bits, re-checks its condition and only then executes wfi; an event between the check
// and the wfi leaves its bit pending, so wfi returns at once and no wake-up is lost.
#ifndef STRATA_FW_DRIVERS_IRQ_H_
#define STRATA_FW_DRIVERS_IRQ_H_

#include <stdint.h>

#include "arch/arch.h"
#include "hal/mmio.h"
#include "strata/regmap.h"

namespace strata::irq {

inline constexpr hal::MmioRegion kCtrl(STRATA_CTRL_BASE);

// One step of the idiom over `sources` (enabled by the caller): clears their pending bits, then sleeps unless
// ready() holds. The caller re-checks after it returns (a wake-up may be for another source).
template <typename Ready>
inline void ClearThenSleepUnless(uint32_t sources, Ready ready) {
  kCtrl.Write32(STRATA_CTRL_IRQ_PENDING, sources);
  if (!ready()) arch::WaitForInterrupt();
}

// Sleeps until ready() holds, woken by `source` (one of STRATA_IRQ_*), which is enabled only while sleeping so it
// never interrupts other code; mstatus.MIE is off meanwhile and restored after.
template <typename Ready>
inline void SleepUntil(uint32_t source, Ready ready) {
  if (ready()) return;
  const bool interrupts_on = (STRATA_CSR_READ(mstatus) & arch::kMstatusMie) != 0;
  arch::DisableInterrupts();
  kCtrl.Write32(STRATA_CTRL_IRQ_ENABLE, kCtrl.Read32(STRATA_CTRL_IRQ_ENABLE) | source);
  // ClearThenSleepUnless's steps, spelled out: GCC lays a loop around the call out differently, and the drivers'
  // code (the rv32 images' cycle counts) stays what it was.
  for (;;) {
    kCtrl.Write32(STRATA_CTRL_IRQ_PENDING, source);
    if (ready()) break;
    arch::WaitForInterrupt();
  }
  kCtrl.Write32(STRATA_CTRL_IRQ_ENABLE, kCtrl.Read32(STRATA_CTRL_IRQ_ENABLE) & ~source);
  if (interrupts_on) arch::EnableInterrupts();
}

}  // namespace strata::irq

#endif  // STRATA_FW_DRIVERS_IRQ_H_
