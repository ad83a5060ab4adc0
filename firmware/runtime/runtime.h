// The device runtime: serves the host's command rings (strata/protocol.h) on the control core.
#ifndef STRATA_FW_RUNTIME_RUNTIME_H_
#define STRATA_FW_RUNTIME_RUNTIME_H_

#if !defined(__riscv)
#include "strata/protocol.h"
#endif

#ifndef STRATA_RUNTIME_FP
#define STRATA_RUNTIME_FP 0  // 1 in runtime_fp.elf's build (and the host tests of it): the bf16 GEMM too
#endif

namespace strata::runtime {

// Probes HBM, lays out heap and staging slots, publishes the ring header (state READY) and serves
// commands forever, asleep in wfi whenever there is nothing to do.
[[noreturn]] void Run();

#if !defined(__riscv)
// Host builds only (tests, fuzzing): puts this file's state back where a device reset leaves its .bss, so a host
// process can boot the runtime again (Run() is left by an exception from the test's wfi hook), and says where the
// rings are (on the device the host finds them through the header; its 32-bit addresses cannot hold a host pointer).
struct HostView {
  volatile strata_rt_header* header;
  volatile strata_cmd* sq;
  volatile strata_cpl* cq;
  volatile strata_rt_stats* stats;
};
HostView ResetForHost();
#endif

}  // namespace strata::runtime

#endif  // STRATA_FW_RUNTIME_RUNTIME_H_
