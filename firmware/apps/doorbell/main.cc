// Doorbell echo: sleeps until the host rings, then answers through an SMEM mailbox. The host
// writes a request (a, b) into `g_mailbox`, rings with a sequence number; the firmware writes
// a + b and the sequence number back. Sequence 0 ends the run.
#include <stdint.h>

#include "arch/arch.h"
#include "hal/mmio.h"
#include "strata/regmap.h"

namespace {

constexpr strata::hal::MmioRegion kCtrl(STRATA_CTRL_BASE);

}  // namespace

// Found by the host through the ELF symbol table.
extern "C" {
volatile uint32_t g_mailbox[4];  // [0] a, [1] b, [2] a + b, [3] sequence answered
}

int main() {
  kCtrl.Write32(STRATA_CTRL_IRQ_ENABLE, STRATA_IRQ_DOORBELL);
  STRATA_CSR_SET(mie, 1u << strata::arch::kIrqMachineExternal);
  uint32_t answered = 0;
  for (;;) {
    // Interrupts off: the doorbell is a wake-up event (see drivers/dma.cc for the pattern).
    kCtrl.Write32(STRATA_CTRL_IRQ_PENDING, STRATA_IRQ_DOORBELL);
    const uint32_t seq = kCtrl.Read32(STRATA_CTRL_DOORBELL);
    if (seq != answered) {
      if (seq == 0) return 0;
      g_mailbox[2] = g_mailbox[0] + g_mailbox[1];
      g_mailbox[3] = seq;
      answered = seq;
      continue;
    }
    strata::arch::WaitForInterrupt();
  }
}
