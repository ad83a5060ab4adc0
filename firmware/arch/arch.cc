// Trap dispatch and end-of-run for the control core.
#include "arch/arch.h"

#include "drivers/console.h"

extern "C" volatile uint64_t tohost;

namespace strata::arch {
namespace {
InterruptHandler g_timer_handler = nullptr;
InterruptHandler g_external_handler = nullptr;
}  // namespace

void SetInterruptHandler(uint32_t cause, InterruptHandler handler) {
  if (cause == kIrqMachineTimer) g_timer_handler = handler;
  if (cause == kIrqMachineExternal) g_external_handler = handler;
}

void Exit(int code) {
  const uint32_t v = code == 0 ? 1u : ((static_cast<uint32_t>(code) << 1) | 1u);
  tohost = v;
  for (;;) WaitForInterrupt();
}

}  // namespace strata::arch

using strata::arch::TrapFrame;

extern "C" [[noreturn]] void strata_exit(int code) { strata::arch::Exit(code); }

extern "C" void strata_trap(TrapFrame* frame) {
  using namespace strata::arch;
  if (frame->mcause & kMcauseInterrupt) {
    const uint32_t cause = frame->mcause & ~kMcauseInterrupt;
    InterruptHandler h = cause == kIrqMachineTimer      ? g_timer_handler
                         : cause == kIrqMachineExternal ? g_external_handler
                                                        : nullptr;
    if (h != nullptr) {
      h(frame);
      return;
    }
  }
  // An exception or an interrupt nobody handles is a firmware bug: report and stop.
  strata::console::Printf("\n*** unhandled trap: mcause=0x%08x mepc=0x%08x mtval=0x%08x\n",
                          static_cast<unsigned>(frame->mcause), static_cast<unsigned>(frame->mepc),
                          static_cast<unsigned>(frame->mtval));
  Exit(3);
}
