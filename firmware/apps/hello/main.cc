// First firmware program: identifies the device, exercises M-extension arithmetic and a timer
// interrupt, and prints what it measured.
#include <stdint.h>

#include "arch/arch.h"
#include "drivers/console.h"
#include "hal/mmio.h"
#include "strata/regmap.h"

namespace {

using strata::console::Printf;
constexpr strata::hal::MmioRegion kCtrl(STRATA_CTRL_BASE);

volatile uint32_t g_timer_ticks = 0;

void OnTimer(strata::arch::TrapFrame*) {
  g_timer_ticks = g_timer_ticks + 1;
  kCtrl.Write32(STRATA_CTRL_MTIMECMP_HI, 0xffffffffu);  // one-shot: disarm
}

// A small integer workload with data-dependent branches (a checksum over a Collatz walk).
uint32_t Collatz(uint32_t n) {
  uint32_t steps = 0;
  while (n != 1) {
    n = (n & 1) ? 3 * n + 1 : n / 2;
    ++steps;
  }
  return steps;
}

}  // namespace

int main() {
  const uint32_t id = kCtrl.Read32(STRATA_CTRL_ID);
  Printf("Strata control core up: id=0x%08x regmap v%u, SMEM %u KiB\n", id, kCtrl.Read32(STRATA_CTRL_VERSION),
         kCtrl.Read32(STRATA_CTRL_SMEM_SIZE) / 1024);
  if (id != STRATA_CTRL_ID_RESET) {
    Printf("FAIL: unexpected device id\n");
    return 1;
  }

  const uint64_t c0 = strata::arch::ReadCycle();
  const uint64_t i0 = strata::arch::ReadInstret();
  uint32_t total = 0;
  for (uint32_t n = 1; n <= 200; ++n) total += Collatz(n);
  const uint64_t cycles = strata::arch::ReadCycle() - c0;
  const uint64_t insns = strata::arch::ReadInstret() - i0;
  Printf("collatz(1..200) total steps %u in %llu cycles, %llu instructions\n", total,
         static_cast<unsigned long long>(cycles), static_cast<unsigned long long>(insns));
  if (total != 8418) {  // reference value computed on the host
    Printf("FAIL: collatz checksum %u != 8418\n", total);
    return 1;
  }

  // Arm the machine timer 500 cycles ahead and sleep until it fires.
  strata::arch::SetInterruptHandler(strata::arch::kIrqMachineTimer, OnTimer);
  const uint32_t now = kCtrl.Read32(STRATA_CTRL_MTIME_LO);
  kCtrl.Write32(STRATA_CTRL_MTIMECMP_HI, 0xffffffffu);
  kCtrl.Write32(STRATA_CTRL_MTIMECMP_LO, now + 500);
  kCtrl.Write32(STRATA_CTRL_MTIMECMP_HI, kCtrl.Read32(STRATA_CTRL_MTIME_HI));
  STRATA_CSR_SET(mie, 1u << strata::arch::kIrqMachineTimer);
  strata::arch::EnableInterrupts();
  while (g_timer_ticks == 0) strata::arch::WaitForInterrupt();
  const uint32_t woke = kCtrl.Read32(STRATA_CTRL_MTIME_LO);
  Printf("timer interrupt after %u cycles of wfi\n", woke - now);
  Printf("PASS\n");
  return 0;
}
