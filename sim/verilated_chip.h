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
                        &top_->tohost_valid_o, &top_->tohost_data_o, &top_->instret_o, &top_->sleeping_o});
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

 private:
  std::unique_ptr<VTop> top_;
};

}  // namespace strata::sim

#endif  // STRATA_SIM_VERILATED_CHIP_H_
