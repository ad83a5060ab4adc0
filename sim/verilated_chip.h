// VerilatedChip<VTop>: the ChipModel over one Verilated tpu_top class (Vtpu_top_nN). Included
// only by the generated per-size sources (chip_nN.cc, written by file(CONFIGURE) in sim/CMakeLists.txt),
// each with its own VTop.
#ifndef STRATA_SIM_VERILATED_CHIP_H_
#define STRATA_SIM_VERILATED_CHIP_H_

#include <verilated.h>
#include <verilated_fst_c.h>

#include <memory>

#include "chip_model.h"
#include "hbm_bridge_ports.h"

namespace strata::sim {

template <class VTop>
class VerilatedChip final : public ChipModel {
 public:
  VerilatedChip(int mxu_n, VerilatedContext* context, const char* name)
      : ChipModel(mxu_n), top_(std::make_unique<VTop>(context, name)) {
    // The pointers below read the ports without a call; Outputs' pointer types pin the ports' C types (a port
    // of another width would not convert).
    set_outputs(Outputs{&top_->host_gnt_o, &top_->host_rdata_o, &top_->console_valid_o, &top_->console_data_o,
                        &top_->tohost_valid_o, &top_->tohost_data_o, &top_->instret_o, &top_->sleeping_o,
                        &top_->quiescent_o, &top_->mxu_busy_o, &top_->rootp->tpu_top__DOT__u_dma_gate__DOT__en_q,
                        &top_->rootp->tpu_top__DOT__u_mxu_gate__DOT__en_q});
  }

  // A falling-edge evaluation runs Verilator's input-combinational region (its inputs unchanged since
  // the rising edge's evaluation, so it recomputes the values it already holds) and the blocks on the
  // falling edge: the clock gates of the DMA, the matrix unit, the vector unit (tpu_top, tpu_clock_gate), the mesh
  // (tpu_systolic_array: mesh_en_q <= busy || busy_prev_q, busy_prev_q <= busy) and the weight path
  // (w_en_q <= w_busy); its only other effect is every gated clock (clk_x = clk_i & en) going low.
  // When the gates' flops keep their values (tpu_top's gates_steady, fed by every gate's own
  // steadiness), that is all it does, so the edge is applied by writing what the evaluation would
  // leave: the clock nets low and Verilator's edge-detection copies of them (its __Vtrigrprev members,
  // read by the next evaluation to find the rising edges). About a tenth of a busy chip's evaluation
  // (docs/simulation-speed.md). The names are Verilator 5.006's: a Verilator that names them otherwise fails to compile
  // here, and one that keeps more edge-detection state would compile but evaluate differently, which the
  // sim.fast_forward.* tests (every workload with the fast paths on and off, the same reports required) would show.
  bool FallingEdge(bool may_elide) override {
    auto* r = top_->rootp;
    if (may_elide && !inputs_written_ && top_->clk_i && top_->rst_ni && r->tpu_top__DOT__gates_steady) {
      // Each clock net low, with Verilator's edge-detection copy of it.
      auto low = [](CData& net, CData& seen) { net = seen = 0; };
      low(top_->clk_i, r->__Vtrigrprev__TOP__clk_i);
      low(r->tpu_top__DOT__clk_dma, r->__Vtrigrprev__TOP__tpu_top__DOT__clk_dma);
      low(r->tpu_top__DOT__clk_mxu, r->__Vtrigrprev__TOP__tpu_top__DOT__clk_mxu);
      low(r->tpu_top__DOT__clk_vpu, r->__Vtrigrprev__TOP__tpu_top__DOT__clk_vpu);
      low(r->tpu_top__DOT__clk_mem, r->__Vtrigrprev__TOP__tpu_top__DOT__clk_mem);
      low(r->tpu_top__DOT__u_mxu__DOT__u_array__DOT__clk_mesh,
          r->__Vtrigrprev__TOP__tpu_top__DOT__u_mxu__DOT__u_array__DOT__clk_mesh);
      low(r->tpu_top__DOT__u_mxu__DOT__u_array__DOT__clk_w,
          r->__Vtrigrprev__TOP__tpu_top__DOT__u_mxu__DOT__u_array__DOT__clk_w);
      return true;
    }
    top_->clk_i = 0;
    top_->eval();
    inputs_written_ = false;
    return false;
  }
  void RisingEdge(HbmBridge& bridge) override {
    bridge.BeforeRisingEdge(*top_);
    top_->clk_i = 1;
    top_->eval();
    inputs_written_ = false;
  }
  void SetReset(bool rst_n, bool core_rst_n) override {
    top_->rst_ni = rst_n;
    top_->core_rst_ni = core_rst_n;
    inputs_written_ = true;
  }
  void SetIrq(uint32_t lines) override {
    top_->irq_i = lines;
    inputs_written_ = true;
  }
  void SetTohostAddress(uint32_t address) override {
    top_->tohost_addr_i = address;
    inputs_written_ = true;
  }
  void SetGateBypass(bool bypass) override {
    top_->gate_bypass_i = bypass;
    inputs_written_ = true;
  }
  void SetHbmCapacity(uint64_t bytes) override {
    top_->hbm_capacity_i = bytes;
    inputs_written_ = true;
  }
  void SetHostRequest(const HostPortRequest& r) override {
    inputs_written_ = true;
    top_->host_req_i = r.valid;
    top_->host_we_i = r.write;
    top_->host_addr_i = r.address;
    top_->host_be_i = r.byte_enable & 0xf;
    top_->host_wdata_i = r.write_data;
  }
  void AttachTrace(VerilatedFstC* trace, int levels) override { top_->trace(trace, levels); }
  void Final() override { top_->final(); }

  // The counters are public_flat_rd in the RTL (tpu_csr, tpu_ctrl_regs, tpu_mxu), so Verilator keeps
  // them as named members. mcycle's next value (mcycle_d = mcycle_q + 1) was computed by the last
  // evaluation and is what the next rising edge stores, so it advances too; cycle_q, mtime_q and
  // starved_q have no separate next value (their clocked blocks add).
  // (public_flat_rw would have Verilator recompute every reader after a write, but it does so by moving
  // those readers into the input-combinational region evaluated twice every cycle: 15% more work per
  // cycle for the whole chip, quiescent or not.)
  void AdvanceFreeRunningCounters(uint64_t cycles) override {
    auto* r = top_->rootp;
    inputs_written_ = true;  // state written outside an evaluation: the next falling edge evaluates
    r->tpu_top__DOT__u_core__DOT__u_csr__DOT__mcycle_q += cycles;
    r->tpu_top__DOT__u_core__DOT__u_csr__DOT__mcycle_d += cycles;
    r->tpu_top__DOT__u_ctrl__DOT__cycle_q += cycles;
    r->tpu_top__DOT__u_ctrl__DOT__mtime_q += cycles;
    r->tpu_top__DOT__u_mxu__DOT__starved_q += static_cast<uint32_t>(cycles);
  }
  uint64_t CyclesUntilTimer() const override {
    const auto* r = top_->rootp;
    const uint64_t now = r->tpu_top__DOT__u_ctrl__DOT__mtime_q, at = r->tpu_top__DOT__u_ctrl__DOT__mtimecmp_q;
    return now < at ? at - now : UINT64_MAX;
  }

 private:
  std::unique_ptr<VTop> top_;
  bool inputs_written_ = true;  // an input (or a counter) was written since the last evaluation
};

}  // namespace strata::sim

#endif  // STRATA_SIM_VERILATED_CHIP_H_
