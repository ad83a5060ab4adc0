// The host build's control core (arch/host/arch_host.h): fake CSRs, wfi and Exit through test hooks, the
// interrupt handlers SetInterruptHandler installs. Replaces arch.cc, crt0.S and trap.S on the host.
#include "arch/host/arch_host.h"

#include <stdio.h>
#include <stdlib.h>

#include <utility>

namespace strata::arch {
namespace {
host::CsrFile g_csrs;
host::WfiHook g_wfi_hook;
host::ExitHook g_exit_hook;
uint64_t g_wfi_count = 0;
InterruptHandler g_timer_handler = nullptr;
InterruptHandler g_external_handler = nullptr;
// The 64-bit counters: a read of the low word advances them; a write sets one half.
uint32_t ReadLowAndAdvance(uint64_t& counter) {
  const uint32_t lo = static_cast<uint32_t>(counter);
  counter += g_csrs.cycles_per_read;
  return lo;
}
void SetHalf(uint64_t& counter, bool high, uint32_t value) {
  counter = high ? (counter & 0xffffffffu) | (uint64_t{value} << 32) : (counter & ~uint64_t{0xffffffffu}) | value;
}
}  // namespace

namespace host {

CsrFile& Csrs() { return g_csrs; }

uint32_t CsrRead(Csr csr) {
  switch (csr) {
    case Csr::mstatus:
      return g_csrs.mstatus;
    case Csr::mie:
      return g_csrs.mie;
    case Csr::mip:
      return g_csrs.mip;
    case Csr::mcycle:
      return ReadLowAndAdvance(g_csrs.mcycle);
    case Csr::mcycleh:
      return static_cast<uint32_t>(g_csrs.mcycle >> 32);
    case Csr::minstret:
      return ReadLowAndAdvance(g_csrs.minstret);
    case Csr::minstreth:
      return static_cast<uint32_t>(g_csrs.minstret >> 32);
  }
  return 0;
}

void CsrWrite(Csr csr, uint32_t value) {
  ++g_csrs.writes;
  switch (csr) {
    case Csr::mstatus:
      g_csrs.mstatus = value;
      break;
    case Csr::mie:
      g_csrs.mie = value;
      break;
    case Csr::mip:
      g_csrs.mip = value;
      break;
    case Csr::mcycle:
    case Csr::mcycleh:
      SetHalf(g_csrs.mcycle, csr == Csr::mcycleh, value);
      break;
    case Csr::minstret:
    case Csr::minstreth:
      SetHalf(g_csrs.minstret, csr == Csr::minstreth, value);
      break;
  }
}

void SetWfiHook(WfiHook hook) { g_wfi_hook = std::move(hook); }
uint64_t WfiCount() { return g_wfi_count; }
void SetExitHook(ExitHook hook) { g_exit_hook = std::move(hook); }

bool DeliverInterrupt(uint32_t cause) {
  const InterruptHandler h = cause == kIrqMachineTimer      ? g_timer_handler
                             : cause == kIrqMachineExternal ? g_external_handler
                                                            : nullptr;
  if (h == nullptr) return false;
  TrapFrame frame{};
  frame.mcause = kMcauseInterrupt | cause;
  h(&frame);
  return true;
}

void Reset() {
  g_csrs = CsrFile{};
  g_wfi_hook = nullptr;
  g_exit_hook = nullptr;
  g_wfi_count = 0;
  g_timer_handler = nullptr;
  g_external_handler = nullptr;
}

}  // namespace host

void WaitForInterrupt() {
  ++g_wfi_count;
  if (!g_wfi_hook) {
    fprintf(stderr, "arch (host): wfi with no hook installed: nothing could wake the core\n");
    abort();
  }
  g_wfi_hook();
}

void SetInterruptHandler(uint32_t cause, InterruptHandler handler) {
  if (cause == kIrqMachineTimer) g_timer_handler = handler;
  if (cause == kIrqMachineExternal) g_external_handler = handler;
}

void Exit(int code) {
  if (g_exit_hook) g_exit_hook(code);
  fprintf(stderr, "arch (host): Exit(%d)%s\n", code, g_exit_hook ? ": the exit hook returned" : "");
  abort();
}

}  // namespace strata::arch

extern "C" [[noreturn]] void strata_exit(int code) { strata::arch::Exit(code); }
