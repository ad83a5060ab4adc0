// The Strata platform: the Verilated device (core, SMEM, registers) clocked inside a SystemC
// module, with HTIF end-of-run, console capture and scoped FST/VCD tracing.
//
// Accuracy boundary: the RTL is evaluated on every clock edge (cycle-exact for everything in
// rtl/). SystemC time advances in quanta of `quantum_cycles` (temporal decoupling, as in
// TLM-2.0 loosely-timed models): other SystemC processes observe the device only at quantum
// boundaries. Models ticked every cycle (Device::AddCycleHook, the HBM bridge) stay cycle-exact.
#ifndef STRATA_SIM_PLATFORM_H_
#define STRATA_SIM_PLATFORM_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <systemc>

#include "device.h"
#include "elf_loader.h"

namespace strata::sim {

struct PlatformConfig {
  uint64_t max_cycles = 200'000'000;
  TraceOptions trace;
  hbm::HbmConfig hbm = hbm::HbmConfig::Hbm2(4ull << 30);
  int mxu_n = Device::kDefaultMxuN;  // the matrix unit's size: one of BuiltMxuSizes()
  uint32_t quantum_cycles = 1024;
  bool progress = false;              // a progress line on stderr every few seconds of wall time
  bool fast_forward = true;           // skip quiescent cycles (Device::set_fast_forward); same cycles either way
  std::function<void(char)> console;  // default: stdout
};

enum class RunOutcome { kPass, kFail, kTimeout, kBadTohost, kError };

struct RunResult {
  RunOutcome outcome = RunOutcome::kError;
  uint32_t tohost = 0;     // the raw value stored to tohost
  uint32_t fail_code = 0;  // tohost >> 1 for a failure
  uint64_t cycles = 0;     // cycles after reset was released
  // The device cycle at which reset was released (after the ELF was written through the host port): the
  // firmware's first cycle. Waveform time is the device cycle in ns, and --trace-start/--trace-end count
  // device cycles, so a waveform shows the run from this time on.
  uint64_t start_cycle = 0;
  uint64_t instret = 0;
  uint64_t skipped_cycles = 0;        // cycles not evaluated (quiescent; Device::set_fast_forward)
  uint64_t elided_falling_edges = 0;  // evaluated cycles whose falling edge needed no evaluation
  uint64_t dma_gated_cycles = 0;      // evaluated cycles that did not clock the idle DMA engine
  uint64_t mxu_gated_cycles = 0;      // ... the idle matrix unit
  double wall_seconds = 0;
  std::string error;
};

class Platform : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Platform);
  Platform(const sc_core::sc_module_name& name, const PlatformConfig& config);
  ~Platform() override;

  // Loads a validated image (see LoadElf); call before sc_start().
  void SetImage(const ElfImage& image) { image_ = image; }
  // Runs the simulation to the end (sc_start) and returns what happened.
  RunResult Run();

  Device& device() { return device_; }

 private:
  void Main();  // SC_THREAD

  PlatformConfig config_;
  ElfImage image_;
  Device device_;
  uint64_t run_cycles_ = 0;  // cycles since reset was released
  RunResult result_;
};

}  // namespace strata::sim

#endif  // STRATA_SIM_PLATFORM_H_
