// ChipModel: one Verilated Strata chip of some matrix-unit size, behind the few calls Device makes.
// Kept free of Verilator and SystemC headers (see device.h); verilated_chip.h implements it.
//
// The interface is coarse on purpose: a clock cycle is two virtual calls (FallingEdge, then
// RisingEdge, which drives the HBM bridge's ports inline), and the outputs Device samples every
// cycle are read through pointers into the model, with no call at all.
#ifndef STRATA_SIM_CHIP_MODEL_H_
#define STRATA_SIM_CHIP_MODEL_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

class VerilatedContext;
class VerilatedFstC;

namespace strata::sim {

class HbmBridge;

// One 32-bit access on the chip's host port (SMEM or registers by device address).
struct HostPortRequest {
  bool valid = false;
  bool write = false;
  uint32_t address = 0;  // word aligned
  uint8_t byte_enable = 0;
  uint32_t write_data = 0;
};

class ChipModel {
 public:
  virtual ~ChipModel() = default;
  ChipModel(const ChipModel&) = delete;
  ChipModel& operator=(const ChipModel&) = delete;

  // The matrix unit is mxu_n x mxu_n int8 MACs (tpu_top's MxuN).
  int mxu_n() const { return mxu_n_; }

  // Clock low, evaluate. With `may_elide`, a falling edge that can change nothing but the clock nets is
  // applied without an evaluation: no input was written since the last one, and the only logic on the
  // falling edge (the matrix unit's mesh clock gate) keeps its value. The clock nets and the
  // simulator's edge detection are then set as the evaluation would have left them.
  // Returns whether the edge was applied without an evaluation.
  virtual bool FallingEdge(bool may_elide) = 0;
  // Between the edges: the HBM bridge samples the DMA's outputs and drives its inputs
  // (HbmBridge::BeforeRisingEdge, inlined for this chip's class); then clock high, evaluate.
  virtual void RisingEdge(HbmBridge& bridge) = 0;

  // Active-low resets of the chip and of its control core.
  virtual void SetReset(bool rst_n, bool core_rst_n) = 0;
  virtual void SetIrq(uint32_t lines) = 0;
  virtual void SetTohostAddress(uint32_t address) = 0;
  virtual void SetHbmCapacity(uint64_t bytes) = 0;
  // Keeps the clocks of the idle DMA, matrix unit and line memories running (tpu_top's gate_bypass_i):
  // the same cycles either way, only more evaluation (the fast paths off).
  virtual void SetGateBypass(bool bypass) = 0;
  virtual void SetHostRequest(const HostPortRequest& request) = 0;

  // Records the chip's signals into `trace` (opened by the caller afterwards), `levels` deep.
  virtual void AttachTrace(VerilatedFstC* trace, int levels) = 0;
  // Runs the RTL's final blocks (once, before destruction).
  virtual void Final() = 0;

  // Quiescent cycles (tpu_top's quiescent_o): the chip was not evaluated for `cycles` cycles;
  // advance its free-running counters (mcycle, CTRL cycle and mtime, the matrix unit's starved
  // count) as those edges would have.
  virtual void AdvanceFreeRunningCounters(uint64_t cycles) = 0;
  // Edges until the machine timer fires (mtime reaches mtimecmp); UINT64_MAX if it already has.
  virtual uint64_t CyclesUntilTimer() const = 0;

  // Outputs as of the last evaluation.
  bool host_granted() const { return *out_.host_gnt != 0; }  // combinational: valid after FallingEdge(false)
  uint32_t host_read_data() const { return *out_.host_rdata; }
  bool console_valid() const { return *out_.console_valid != 0; }
  char console_char() const { return static_cast<char>(*out_.console_data); }
  bool tohost_valid() const { return *out_.tohost_valid != 0; }
  uint32_t tohost_value() const { return *out_.tohost_data; }
  uint64_t instret() const { return *out_.instret; }
  bool sleeping() const { return *out_.sleeping != 0; }
  // With the inputs held, nothing but the free-running counters changes at the next edge.
  bool quiescent() const { return *out_.quiescent != 0; }
  // The matrix unit has a command queued or in flight.
  bool mxu_busy() const { return *out_.mxu_busy != 0; }
  // Whether the last rising edge clocked the DMA engine / the matrix unit (tpu_top's clock gates; both
  // always with SetGateBypass(true)).
  bool dma_clocked() const { return *out_.dma_clock_on != 0; }
  bool mxu_clocked() const { return *out_.mxu_clock_on != 0; }

 protected:
  // Where the Verilated model keeps its output ports (stable for the model's life).
  struct Outputs {
    const uint8_t* host_gnt;
    const uint32_t* host_rdata;
    const uint8_t* console_valid;
    const uint8_t* console_data;
    const uint8_t* tohost_valid;
    const uint32_t* tohost_data;
    const uint64_t* instret;
    const uint8_t* sleeping;
    const uint8_t* quiescent;
    const uint8_t* mxu_busy;
    const uint8_t* dma_clock_on;  // the gates' enables (internal signals, public_flat_rd in the RTL)
    const uint8_t* mxu_clock_on;
  };
  explicit ChipModel(int mxu_n) : mxu_n_(mxu_n) {}
  void set_outputs(const Outputs& out) { out_ = out; }

 private:
  int mxu_n_;
  Outputs out_{};
};

// The chip with an mxu_n x mxu_n matrix unit, its scopes named under `name` (the waveform root),
// or null when this build has no such size (rtl/CMakeLists.txt, STRATA_MXU_N). Set
// Verilated::threadContextp(context) first: the model registers its scopes through it.
std::unique_ptr<ChipModel> MakeChipModel(int mxu_n, VerilatedContext* context, const char* name);
// The sizes this build has, ascending (8 16 32 by default).
const std::vector<int>& BuiltMxuSizes();
// "8, 16, 32": for messages that refuse a size.
std::string BuiltMxuSizesText();
// Whether this build has a chip with an n x n matrix unit (one of BuiltMxuSizes()).
bool IsBuiltMxuSize(int64_t n);

}  // namespace strata::sim

#endif  // STRATA_SIM_CHIP_MODEL_H_
