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
                        &top_->quiescent_o, &top_->mxu_busy_o});
  }

  void FallingEdge() override {
    top_->clk_i = 0;
    top_->eval();
  }
  void RisingEdge(HbmBridge& bridge) override {
    bridge.BeforeRisingEdge(*top_);
    top_->clk_i = 1;
    top_->eval();
  }
  void SetReset(bool rst_n, bool core_rst_n) override {
    top_->rst_ni = rst_n;
    top_->core_rst_ni = core_rst_n;
  }
  void SetIrq(uint32_t lines) override { top_->irq_i = lines; }
  void SetTohostAddress(uint32_t address) override { top_->tohost_addr_i = address; }
  void SetHbmCapacity(uint64_t bytes) override { top_->hbm_capacity_i = bytes; }
  void SetHostRequest(const HostPortRequest& r) override {
    top_->host_req_i = r.valid;
    top_->host_we_i = r.write;
    top_->host_addr_i = r.address;
    top_->host_be_i = r.byte_enable & 0xf;
    top_->host_wdata_i = r.write_data;
  }
  void AttachTrace(VerilatedFstC* trace, int levels) override { top_->trace(trace, levels); }
  void Final() override { top_->final(); }

  // The counters are public_flat_rd in the RTL (tpu_csr, tpu_ctrl_regs, tpu_mxu), so Verilator keeps
  // them as named members. Their next values (x_d = x_q + 1) were computed by the last evaluation and
  // are what the next rising edge stores, so they advance too; cycle_q has no separate next value.
  // (public_flat_rw would have Verilator recompute every reader after a write, but it does so by moving
  // those readers into the input-combinational region evaluated twice every cycle: 15% more work per
  // cycle for the whole chip, quiescent or not.)
  void AdvanceFreeRunningCounters(uint64_t cycles) override {
    auto* r = top_->rootp;
    r->tpu_top__DOT__u_core__DOT__u_csr__DOT__mcycle_q += cycles;
    r->tpu_top__DOT__u_core__DOT__u_csr__DOT__mcycle_d += cycles;
    r->tpu_top__DOT__u_ctrl__DOT__cycle_q += cycles;
    r->tpu_top__DOT__u_ctrl__DOT__mtime_q += cycles;
    r->tpu_top__DOT__u_ctrl__DOT__mtime_d += cycles;
    r->tpu_top__DOT__u_mxu__DOT__starved_q += static_cast<uint32_t>(cycles);
    r->tpu_top__DOT__u_mxu__DOT__starved_d += static_cast<uint32_t>(cycles);
  }
  uint64_t CyclesUntilTimer() const override {
    const auto* r = top_->rootp;
    const uint64_t now = r->tpu_top__DOT__u_ctrl__DOT__mtime_q, at = r->tpu_top__DOT__u_ctrl__DOT__mtimecmp_q;
    return now < at ? at - now : UINT64_MAX;
  }

 private:
  std::unique_ptr<VTop> top_;
};

}  // namespace strata::sim

#endif  // STRATA_SIM_VERILATED_CHIP_H_
