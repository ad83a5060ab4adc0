// The device runtime: serves the host's command rings (strata/protocol.h) on the control core.
#ifndef STRATA_FW_RUNTIME_RUNTIME_H_
#define STRATA_FW_RUNTIME_RUNTIME_H_

namespace strata::runtime {

// Probes HBM, lays out heap and staging slots, publishes the ring header (state READY) and serves
// commands forever, asleep in wfi whenever there is nothing to do.
[[noreturn]] void Run();

}  // namespace strata::runtime

#endif  // STRATA_FW_RUNTIME_RUNTIME_H_
