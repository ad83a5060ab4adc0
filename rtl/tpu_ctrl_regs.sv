// CTRL register block (offsets from the generated tpu_regmap_pkg): identity, console, cycle
// counter, machine timer, the host doorbell and a small interrupt controller feeding mip.MEIP.
module tpu_ctrl_regs
  import tpu_regmap_pkg::*;
#(
  parameter int unsigned SmemBytes = SmemSize
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic                req_i,
  input  logic                we_i,
  input  logic [11:0]         addr_i,
  input  logic [3:0]          be_i,
  input  logic [31:0]         wdata_i,
  output logic [31:0]         rdata_o,   // valid the cycle after a read request
  input  logic [NumIrqs-1:0]  irq_i,     // hardware sources; a high cycle sets the pending bit
  output logic                console_valid_o,
  output logic [7:0]          console_data_o,
  output logic                irq_timer_o,
  output logic [63:0]         mtime_o,
  output logic                irq_external_o
);

  // cycle_q and mtime_q are free-running; the simulator advances them over the cycles
  // it does not evaluate (tpu_top's quiescent_o) and stops skipping before mtime_q reaches mtimecmp_q.
  logic [63:0] cycle_q /*verilator public_flat_rd*/;
  logic [63:0] mtime_q /*verilator public_flat_rd*/;
  logic [63:0] mtimecmp_q /*verilator public_flat_rd*/;
  logic [NumIrqs-1:0] pending_q, enable_q;
  logic [31:0] doorbell_q;
  logic [31:0] rdata_q;
  logic console_valid_q;
  logic [7:0] console_data_q;
  logic wr, rd;
  logic [31:0] wmask;

  assign wr = req_i && we_i;
  assign rd = req_i && !we_i;
  assign wmask = {{8{be_i[3]}}, {8{be_i[2]}}, {8{be_i[1]}}, {8{be_i[0]}}};

  function automatic logic [31:0] merge(logic [31:0] old, logic [31:0] val, logic [31:0] mask);
    return (old & ~mask) | (val & mask);
  endfunction

  assign rdata_o = rdata_q;
  assign console_valid_o = console_valid_q;
  assign console_data_o = console_data_q;
  assign irq_timer_o = mtime_q >= mtimecmp_q;
  assign mtime_o = mtime_q;
  assign irq_external_o = |(pending_q & enable_q);

  // The register writes and reads are decoded in the clocked block, not as an always_comb of *_d
  // values: the register bus depends on the host port's inputs, so a combinational decode would be
  // evaluated twice every cycle (docs/simulation-speed.md). A write to part of a register replaces
  // those bits of the value the block assigned first (the last nonblocking assignment wins).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cycle_q <= '0;
      mtime_q <= '0;
      mtimecmp_q <= {CtrlMtimecmpHiReset, CtrlMtimecmpLoReset};
      pending_q <= '0;
      enable_q <= '0;
      doorbell_q <= '0;
      rdata_q <= '0;
      console_valid_q <= 1'b0;
      console_data_q <= '0;
    end else begin
      cycle_q <= cycle_q + 64'd1;
      mtime_q <= mtime_q + 64'd1;
      pending_q <= pending_q | irq_i;
      console_valid_q <= 1'b0;
      if (wr) begin
        unique case (addr_i)
          CtrlConsoleTxOffset: begin
            console_valid_q <= be_i[0];
            console_data_q <= wdata_i[7:0];
          end
          CtrlMtimeLoOffset: mtime_q[31:0] <= merge(mtime_q[31:0], wdata_i, wmask);
          CtrlMtimeHiOffset: mtime_q[63:32] <= merge(mtime_q[63:32], wdata_i, wmask);
          CtrlMtimecmpLoOffset: mtimecmp_q[31:0] <= merge(mtimecmp_q[31:0], wdata_i, wmask);
          CtrlMtimecmpHiOffset: mtimecmp_q[63:32] <= merge(mtimecmp_q[63:32], wdata_i, wmask);
          CtrlIrqPendingOffset: pending_q <= (pending_q & ~wdata_i[NumIrqs-1:0]) | irq_i;
          CtrlIrqEnableOffset: enable_q <= wdata_i[NumIrqs-1:0];
          CtrlIrqSetOffset: pending_q <= pending_q | irq_i | wdata_i[NumIrqs-1:0];
          CtrlDoorbellOffset: begin
            doorbell_q <= merge(doorbell_q, wdata_i, wmask);
            pending_q[IrqDoorbell] <= 1'b1;
          end
          default: ;
        endcase
      end
      if (rd) begin
        unique case (addr_i)
          CtrlIdOffset: rdata_q <= CtrlIdReset;
          CtrlVersionOffset: rdata_q <= RegmapVersion;
          CtrlSmemSizeOffset: rdata_q <= SmemBytes;
          CtrlCycleLoOffset: rdata_q <= cycle_q[31:0];
          CtrlCycleHiOffset: rdata_q <= cycle_q[63:32];
          CtrlMtimeLoOffset: rdata_q <= mtime_q[31:0];
          CtrlMtimeHiOffset: rdata_q <= mtime_q[63:32];
          CtrlMtimecmpLoOffset: rdata_q <= mtimecmp_q[31:0];
          CtrlMtimecmpHiOffset: rdata_q <= mtimecmp_q[63:32];
          CtrlIrqPendingOffset: rdata_q <= 32'(pending_q);
          CtrlIrqEnableOffset: rdata_q <= 32'(enable_q);
          CtrlDoorbellOffset: rdata_q <= doorbell_q;
          default: rdata_q <= 32'b0;
        endcase
      end
    end
  end

endmodule
