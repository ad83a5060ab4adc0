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

  logic [63:0] mtimecmp_d;
  // cycle_q and mtime_q are free-running; the simulator advances them (and mtime_d) over the cycles
  // it does not evaluate (tpu_top's quiescent_o) and stops skipping before mtime_q reaches mtimecmp_q.
  logic [63:0] cycle_q /*verilator public_flat_rd*/;
  logic [63:0] mtime_q /*verilator public_flat_rd*/;
  logic [63:0] mtime_d /*verilator public_flat_rd*/;
  logic [63:0] mtimecmp_q /*verilator public_flat_rd*/;
  logic [NumIrqs-1:0] pending_q, pending_d, enable_q, enable_d;
  logic [31:0] doorbell_q, doorbell_d;
  logic [31:0] rdata_d, rdata_q;
  logic console_valid_d, console_valid_q;
  logic [7:0] console_data_d, console_data_q;
  logic wr, rd;
  logic [31:0] wmask;

  assign wr = req_i && we_i;
  assign rd = req_i && !we_i;
  assign wmask = {{8{be_i[3]}}, {8{be_i[2]}}, {8{be_i[1]}}, {8{be_i[0]}}};

  function automatic logic [31:0] merge(logic [31:0] old, logic [31:0] val, logic [31:0] mask);
    return (old & ~mask) | (val & mask);
  endfunction

  always_comb begin
    mtime_d = mtime_q + 64'd1;
    mtimecmp_d = mtimecmp_q;
    pending_d = pending_q | irq_i;
    enable_d = enable_q;
    console_valid_d = 1'b0;
    console_data_d = console_data_q;
    rdata_d = rdata_q;
    doorbell_d = doorbell_q;

    if (wr) begin
      unique case (addr_i)
        CtrlConsoleTxOffset: begin
          console_valid_d = be_i[0];
          console_data_d = wdata_i[7:0];
        end
        CtrlMtimeLoOffset: mtime_d[31:0] = merge(mtime_q[31:0], wdata_i, wmask);
        CtrlMtimeHiOffset: mtime_d[63:32] = merge(mtime_q[63:32], wdata_i, wmask);
        CtrlMtimecmpLoOffset: mtimecmp_d[31:0] = merge(mtimecmp_q[31:0], wdata_i, wmask);
        CtrlMtimecmpHiOffset: mtimecmp_d[63:32] = merge(mtimecmp_q[63:32], wdata_i, wmask);
        CtrlIrqPendingOffset: pending_d = (pending_q & ~wdata_i[NumIrqs-1:0]) | irq_i;
        CtrlIrqEnableOffset: enable_d = wdata_i[NumIrqs-1:0];
        CtrlIrqSetOffset: pending_d = pending_q | irq_i | wdata_i[NumIrqs-1:0];
        CtrlDoorbellOffset: begin
          doorbell_d = merge(doorbell_q, wdata_i, wmask);
          pending_d[IrqDoorbell] = 1'b1;
        end
        default: ;
      endcase
    end

    if (rd) begin
      unique case (addr_i)
        CtrlIdOffset: rdata_d = CtrlIdReset;
        CtrlVersionOffset: rdata_d = RegmapVersion;
        CtrlSmemSizeOffset: rdata_d = SmemBytes;
        CtrlCycleLoOffset: rdata_d = cycle_q[31:0];
        CtrlCycleHiOffset: rdata_d = cycle_q[63:32];
        CtrlMtimeLoOffset: rdata_d = mtime_q[31:0];
        CtrlMtimeHiOffset: rdata_d = mtime_q[63:32];
        CtrlMtimecmpLoOffset: rdata_d = mtimecmp_q[31:0];
        CtrlMtimecmpHiOffset: rdata_d = mtimecmp_q[63:32];
        CtrlIrqPendingOffset: rdata_d = 32'(pending_q);
        CtrlIrqEnableOffset: rdata_d = 32'(enable_q);
        CtrlDoorbellOffset: rdata_d = doorbell_q;
        default: rdata_d = 32'b0;
      endcase
    end
  end

  assign rdata_o = rdata_q;
  assign console_valid_o = console_valid_q;
  assign console_data_o = console_data_q;
  assign irq_timer_o = mtime_q >= mtimecmp_q;
  assign mtime_o = mtime_q;
  assign irq_external_o = |(pending_q & enable_q);

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
      mtime_q <= mtime_d;
      mtimecmp_q <= mtimecmp_d;
      pending_q <= pending_d;
      enable_q <= enable_d;
      doorbell_q <= doorbell_d;
      rdata_q <= rdata_d;
      console_valid_q <= console_valid_d;
      console_data_q <= console_data_d;
    end
  end

endmodule
