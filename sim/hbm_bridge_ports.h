// HbmBridge::BeforeRisingEdge for a Verilated tpu_top class: the DMA's memory ports, read and
// driven inline (no call per port); the rest of the cycle's work is HbmBridge::AdvanceHbm().
#ifndef STRATA_SIM_HBM_BRIDGE_PORTS_H_
#define STRATA_SIM_HBM_BRIDGE_PORTS_H_

#include <cstdint>

#include "hbm_bridge.h"

namespace strata::sim {

template <class Top>
void HbmBridge::BeforeRisingEdge(Top& top) {
  // Row commands.
  top.mem_cmd_ready_i = 0;
  if (top.mem_cmd_valid_o && commands_.size() < kMaxCommands) {
    top.mem_cmd_ready_i = 1;
    AcceptCommand(top.mem_cmd_op_o, top.mem_cmd_tag_o, top.mem_cmd_src_o, top.mem_cmd_dst_o, top.mem_cmd_len_o,
                  top.mem_cmd_chip_tier_o);
  }

  // WRITE beats: they belong to the oldest WRITE of their queue that still expects bytes.
  top.mem_wr_ready_i = 0;
  if (top.mem_wr_valid_o && to_submit_.size() < max_queued_) {
    if (Command* c = FindWriteTarget(top.mem_wr_tag_o)) {
      top.mem_wr_ready_i = 1;
      uint8_t data[64];
      for (unsigned i = 0; i < 64; ++i) data[i] = static_cast<uint8_t>(top.mem_wr_data_o[i / 4] >> (8 * (i % 4)));
      AcceptWriteBeat(*c, top.mem_wr_be_o, data);
    }
  }

  // READ beats to the RTL, one per cycle.
  top.mem_rd_valid_i = 0;
  if (!beats_.empty()) {
    const Beat& b = beats_.front();
    top.mem_rd_valid_i = 1;
    top.mem_rd_tier_i = b.tier;
    top.mem_rd_addr_i = b.addr;
    top.mem_rd_be_i = b.be;
    for (unsigned w = 0; w < 16; ++w) {
      top.mem_rd_data_i[w] = uint32_t{b.data[4 * w]} | uint32_t{b.data[4 * w + 1]} << 8 |
                             uint32_t{b.data[4 * w + 2]} << 16 | uint32_t{b.data[4 * w + 3]} << 24;
    }
    if (top.mem_rd_ready_o) BeatDelivered();
  }

  // One completion per cycle.
  top.mem_done_valid_i = 0;
  if (!done_.empty()) {
    top.mem_done_valid_i = 1;
    top.mem_done_tag_i = done_.front();
    done_.pop_front();
  }
  ports_active_ = top.mem_cmd_ready_i || top.mem_wr_ready_i || top.mem_rd_valid_i || top.mem_done_valid_i;

  AdvanceHbm();
}

}  // namespace strata::sim

#endif  // STRATA_SIM_HBM_BRIDGE_PORTS_H_
