// The Verilated Strata device (core, SMEM, registers) with clocking, loading and FST tracing.
// Kept free of SystemC headers: Verilator's headers change behaviour when SystemC is visible.
#ifndef STRATA_SIM_DEVICE_H_
#define STRATA_SIM_DEVICE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "chip_model.h"
#include "elf_loader.h"
#include "hbm/hbm_config.h"

class VerilatedContext;
class VerilatedFstC;

namespace strata::hbm {
class HbmModel;
}

namespace strata::sim {

class HbmBridge;

struct TraceOptions {
  std::string path;  // empty: no waveform; *.fst, or *.vcd (converted with GTKWave's fst2vcd)
  uint64_t start = 0;
  uint64_t end = UINT64_MAX;
  int depth = 0;  // hierarchy levels; 0 = all
};

// The chip (Verilated RTL) with its HBM stack (cycle-level model) behind the DMA bridge.
class Device {
 public:
  static constexpr int kDefaultMxuN = 16;
  // The chip with an mxu_n x mxu_n matrix unit; throws std::invalid_argument (naming the built
  // sizes, BuiltMxuSizesText()) when this build has no such chip.
  Device(const TraceOptions& trace, const hbm::HbmConfig& hbm, int mxu_n = kDefaultMxuN);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  // One full clock cycle (falling then rising edge). A quiescent cycle (see set_fast_forward) is not
  // evaluated: the HBM model, the bridge and the cycle hooks advance; the chip's free-running
  // counters catch up before it is next evaluated.
  void Tick();

  // Quiescent-cycle skipping (on by default; STRATA_SIM_FAST_FORWARD=0 in the environment turns
  // it off for every Device a process creates). A cycle is skipped when the chip said quiescent
  // (tpu_top's quiescent_o: the core sleeps in wfi, the DMA and matrix unit wait) after each of the
  // last kQuietCyclesBeforeSkip evaluated cycles, no input changed since, the bridge has no beat or
  // completion to hand over, the timer does not fire at this edge, and the cycle lies outside the
  // waveform's window. Off, it also keeps the clocks of the idle DMA, matrix unit and line memories
  // running (tpu_top's gate_bypass_i). Every cycle count is the same either way (tests/sim:
  // fast_forward.*); only wall time changes.
  void set_fast_forward(bool on);
  // Cycles not evaluated so far (a figure for benchmarks).
  uint64_t skipped_cycles() const { return skipped_total_; }
  // Falling edges of evaluated cycles applied without an evaluation (ChipModel::FallingEdge), so far.
  uint64_t elided_falling_edges() const { return elided_total_; }
  // Evaluated cycles whose rising edge did not clock the DMA engine / the matrix unit, so far (tpu_top's
  // clock gates: idle blocks cost no evaluation; none with the fast paths off).
  uint64_t dma_gated_cycles() const { return dma_gated_total_; }
  uint64_t mxu_gated_cycles() const { return mxu_gated_total_; }
  static constexpr uint32_t kQuietCyclesBeforeSkip = 8;
  // Holds the core in reset for a few cycles and writes every segment into SMEM through the
  // host port; the core starts at the reset vector on the next Tick().
  void ResetAndLoad(const ElfImage& image);
  // Resets the chip and keeps the control core held in reset (for loading, and for tests that
  // drive the device through the host port only).
  void HoldInReset();

  // Host port: one 32-bit access by device address (SMEM or registers). Ticks the clock until
  // the device grants the access (the core has priority), then once more for read data.
  void HostWrite32(uint32_t address, uint32_t value, uint8_t byte_enable = 0xf);
  uint32_t HostRead32(uint32_t address);

  // Outputs sampled after the last rising edge.
  bool console_valid() const { return chip_->console_valid(); }
  char console_char() const { return chip_->console_char(); }
  bool tohost_valid() const { return chip_->tohost_valid(); }
  uint32_t tohost_value() const { return chip_->tohost_value(); }
  uint64_t instret() const { return chip_->instret(); }
  bool sleeping() const { return chip_->sleeping(); }
  bool mxu_busy() const { return chip_->mxu_busy(); }
  void set_irq(uint32_t lines);
  int mxu_n() const { return chip_->mxu_n(); }

  // Models that must act every cycle (before the rising edge) register here; returns an id.
  int AddCycleHook(std::function<void()> hook);
  void RemoveCycleHook(int id);

  uint64_t edges() const { return cycle_; }
  hbm::HbmModel& hbm() { return *hbm_; }
  HbmBridge& bridge() { return *bridge_; }
  // Finishes the waveform file (also done by the destructor); returns false if a conversion failed.
  bool CloseTrace();
  // Moves the waveform's window to cycles [start, end) (for a window found while running, such as the one
  // that follows a workload's first GEMM). Cycles already past are not recorded after the fact. A window
  // that has ended is final: its file is then finished in the background (compressing the recorded
  // changes, which FST does at the end, overlaps the rest of the run), and a later window records nothing.
  void set_trace_window(uint64_t start, uint64_t end);

 private:
  uint32_t HostAccess(bool write, uint32_t address, uint32_t value, uint8_t byte_enable);
  bool Recording() const;  // this cycle lies in the waveform's window
  // The window's last cycle is recorded: closes the waveform in trace_finisher_ (the model does not use
  // the trace object between dumps, and no dump follows).
  void FinishTraceInBackground();
  bool CanSkipCycle() const;
  // Before the chip is evaluated or its inputs change: advance its counters over skipped cycles.
  void CatchUp();

  TraceOptions trace_opts_;
  std::unique_ptr<VerilatedContext> context_;
  std::unique_ptr<ChipModel> chip_;
  std::unique_ptr<VerilatedFstC> trace_;
  std::thread trace_finisher_;   // closes the trace once the window has ended: see FinishTraceInBackground
  bool trace_finished_ = false;  // the window has ended: nothing more is recorded
  std::string trace_fst_path_;
  std::unique_ptr<hbm::HbmModel> hbm_;
  std::unique_ptr<HbmBridge> bridge_;
  std::vector<std::function<void()>> hooks_;
  uint64_t cycle_ = 0;
  bool fast_forward_ = true;
  uint32_t quiet_run_ = 0;        // consecutive evaluated cycles that ended quiescent with idle inputs
  bool inputs_changed_ = false;   // since the last evaluated cycle (host port, interrupts, resets)
  uint64_t skipped_pending_ = 0;  // skipped cycles the chip's counters do not reflect yet
  uint64_t skipped_total_ = 0;
  uint64_t elided_total_ = 0;
  uint64_t dma_gated_total_ = 0;
  uint64_t mxu_gated_total_ = 0;
};

}  // namespace strata::sim

#endif  // STRATA_SIM_DEVICE_H_
