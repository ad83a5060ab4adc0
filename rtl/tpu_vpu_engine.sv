// Vector-unit engine: the VPU register block, its command queue and the sequencer that streams a command's rows
// from VMEM through tpu_vpu and writes the results back to VMEM (docs/vector-unit.md, "In the chip").
// Commands (staged in the VPU registers, queued by PUSH, run one at a time in order) are checked at the queue's
// head: an unknown op or broadcast mode, zero rows, a misaligned address or stride, or a source or destination
// that reaches outside VMEM completes the command with its VPU_ERR code, counts it in ERRORS and writes nothing.
// A row of Lanes = 16 fp32 is one 64-byte VMEM line. The engine shares VMEM port B with the matrix unit, which
// always has it: the engine takes the port only in a cycle where the matrix unit does not request it (gnt_i), so
// the matrix unit's timing is the same with or without the VPU, and the VPU waits (STALL_CYCLES) instead. Each
// row costs one port cycle per line read (a; b unless broadcast after the first row; the mask for SELECT) and one
// for its result line: 2 cycles a row unary, 3 binary, 4 SELECT, with the port to itself.
`include "tpu_assert.svh"

module tpu_vpu_engine
  import tpu_regmap_pkg::*;
#(
  parameter int unsigned VmemBytes = VmemSize
) (
  input  logic          clk_i,
  input  logic          rst_ni,
  input  logic          reg_req_i,
  input  logic          reg_we_i,
  input  logic [11:0]   reg_addr_i,
  input  logic [31:0]   reg_wdata_i,
  output logic [31:0]   reg_rdata_o,
  output logic          irq_o,
  output logic          quiet_o,     // nothing queued or in flight, no interrupt pending
  // VMEM port B, granted when the matrix unit leaves it free; read data the cycle after a granted read.
  output logic          vmem_req_o,
  output logic          vmem_we_o,
  output logic [31:0]   vmem_line_o,
  output logic [511:0]  vmem_wdata_o,
  input  logic          vmem_gnt_i,
  input  logic [511:0]  vmem_rdata_i
);

  localparam int unsigned Lanes = DmaLineBytes / 4;
  localparam int unsigned LineBytes = DmaLineBytes;

  typedef struct packed {
    logic [5:0]  op;
    logic [1:0]  bcast;
    logic        irq;
    logic [31:0] src_a;
    logic [31:0] src_b;
    logic [31:0] src_m;
    logic [31:0] dst;
    logic [31:0] rows;
    logic [31:0] sstride;
    logic [31:0] dstride;
  } cmd_t;

  localparam cmd_t StageReset = '{op: '0, bcast: '0, irq: 1'b0, src_a: '0, src_b: '0, src_m: '0, dst: '0,
                                  rows: VpuRowsReset, sstride: VpuSrcStrideReset, dstride: VpuDstStrideReset};
  localparam int unsigned Qw = $clog2(VpuQueueDepth);

  // ------------------------------------------------------------------ registers and queue
  cmd_t         stage_q, head, cur_q;
  logic [Qw:0]  count_q;
  logic         queue_full, push, pop;
  logic [31:0]  rdata_q;
  logic [31:0]  done_q, err_cnt_q, rows_done_q, busy_cycles_q, stall_cycles_q;
  logic [7:0]   last_err_q;

  assign push = reg_req_i && reg_we_i && reg_addr_i == VpuPushOffset;

  tpu_cmd_queue #(
    .T    (cmd_t),
    .Depth(VpuQueueDepth)
  ) u_queue (
    .clk_i,
    .rst_ni,
    .stage_i(stage_q),
    .push_i (push),
    .full_o (queue_full),
    .pop_i  (pop),
    .head_o (head),
    .count_o(count_q)
  );

  // Staging writes in a clocked block, as the matrix unit's (the register bus depends on the host port's inputs).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      stage_q <= StageReset;
    end else if (reg_req_i && reg_we_i) begin
      unique case (reg_addr_i)
        VpuCmdOffset: begin
          stage_q.op <= reg_wdata_i[VpuCmdOpLsb +: VpuCmdOpWidth];
          stage_q.bcast <= reg_wdata_i[VpuCmdBcastLsb +: VpuCmdBcastWidth];
          stage_q.irq <= reg_wdata_i[VpuCmdIrqLsb];
        end
        VpuSrcAOffset: stage_q.src_a <= reg_wdata_i;
        VpuSrcBOffset: stage_q.src_b <= reg_wdata_i;
        VpuSrcMOffset: stage_q.src_m <= reg_wdata_i;
        VpuDstOffset: stage_q.dst <= reg_wdata_i;
        VpuRowsOffset: stage_q.rows <= reg_wdata_i;
        VpuSrcStrideOffset: stage_q.sstride <= reg_wdata_i;
        VpuDstStrideOffset: stage_q.dstride <= reg_wdata_i;
        default: ;
      endcase
    end
  end

  // ------------------------------------------------------------------ the check at the head
  logic [7:0]  head_err;
  logic        head_binary, head_select;
  logic [63:0] src_span, a_end, b_end, m_end, dst_end;
  logic [31:0] rows_m1;

  assign head_binary = tpu_vpu_pkg::op_binary(head.op);
  assign head_select = head.op == 6'(VpuOpSelect);
  assign rows_m1 = head.rows - 32'd1;
  always_comb begin
    src_span = 64'(rows_m1) * 64'(head.sstride) + 64'(LineBytes);
    a_end = 64'(head.src_a) + src_span;
    // With a broadcast mode only b's first row is read.
    b_end = 64'(head.src_b) + (head.bcast == 2'(VpuBcastNone) ? src_span : 64'(LineBytes));
    m_end = 64'(head.src_m) + src_span;
    dst_end = 64'(head.dst) + 64'(rows_m1) * 64'(head.dstride) + 64'(LineBytes);
    head_err = 8'(VpuErrNone);
    if (!tpu_vpu_pkg::op_legal(head.op)) head_err = 8'(VpuErrOp);
    else if (head.bcast > 2'(VpuBcastRow) || (head.bcast != 2'(VpuBcastNone) && !head_binary))
      head_err = 8'(VpuErrBcast);
    else if (head.rows == '0) head_err = 8'(VpuErrZero);
    else if ((head.src_a | (head_binary ? head.src_b : '0) | (head_select ? head.src_m : '0) | head.dst |
              head.sstride | head.dstride) % LineBytes != 0)
      head_err = 8'(VpuErrAlign);
    else if (a_end > 64'(VmemBytes) || (head_binary && b_end > 64'(VmemBytes)) ||
             (head_select && m_end > 64'(VmemBytes)))
      head_err = 8'(VpuErrSrcRange);
    else if (dst_end > 64'(VmemBytes)) head_err = 8'(VpuErrDstRange);
  end

  // ------------------------------------------------------------------ the sequencer
  // Reads: for each row the lines a, then b (binary ops; with a broadcast mode only at the first row), then the
  // mask (SELECT), into one row buffer; the row enters the unit when its last line has arrived. A read for the
  // next row starts only once the buffered row enters the unit in that cycle or the buffer is empty, so a line
  // never lands on a row still waiting. A result row leaves the unit into a write buffer, which writes it to VMEM
  // when granted; writes go before reads.
  // The grant comes from the matrix unit's request, which changes in every cycle the matrix unit runs, and the
  // simulator evaluates every combinational block that reads it in each of those cycles, VPU idle or not. So only
  // the two grant gates (rd_go, wr_go) read it; what a granted access changes is written in the clocked block
  // below, from next-state values that hold whether or not the grant comes (docs/simulation-speed.md).
  typedef enum logic [1:0] {
    KindA = 2'd0,
    KindB = 2'd1,
    KindM = 2'd2
  } kind_e;

  logic         run_q, start, refused;
  logic [31:0]  f_left_q, p_left_q, p_left_d;                 // rows whose reads remain / rows to push
  logic [31:0]  fa_q, fb_q, fm_q, wa_q;                       // next line addresses
  kind_e        phase_q;
  logic         f_first_q, p_first_q, p_first_d;
  logic         rd_valid_q, rd_last_q;
  kind_e        rd_kind_q;
  logic         row_q, row_d;                                 // a whole row sits in the buffers
  logic [Lanes*32-1:0] a_buf_q, b_buf_q, wb_data_q;
  logic [Lanes-1:0]    m_buf_q, rd_mask;
  logic         wb_valid_q, wb_write_q, wb_last_q, wb_drain, wb_done;
  logic         cur_binary, cur_select, need_b, rd_req, rd_go, wr_req, wr_go, in_push, out_take, irq_q;
  logic [31:0]  rd_addr;
  kind_e        next_kind;
  logic         next_row_done;

  // the unit
  logic                vpu_in_ready, vpu_out_valid, vpu_out_err, vpu_out_write, vpu_out_last;
  logic [Lanes*32-1:0] vpu_out_data;
  logic [Lanes-1:0]    unused_out_mask;
  logic [31:0]         vpu_err_count;

  assign cur_binary = tpu_vpu_pkg::op_binary(cur_q.op);
  assign cur_select = cur_q.op == 6'(VpuOpSelect);
  assign need_b = cur_binary && (cur_q.bcast == 2'(VpuBcastNone) || f_first_q);

  for (genvar l = 0; l < Lanes; l++) begin : gen_mask
    assign rd_mask[l] = vmem_rdata_i[l*32 +: 31] != '0;  // a nonzero fp32 (+-0 is false)
  end

  assign start = !run_q && count_q != '0 && head_err == 8'(VpuErrNone);
  assign refused = !run_q && count_q != '0 && head_err != 8'(VpuErrNone);
  assign pop = start || refused;
  assign wr_req = wb_valid_q && wb_write_q;
  assign out_take = vpu_out_valid && !wb_valid_q;
  assign in_push = row_q && vpu_in_ready;
  assign rd_req = run_q && f_left_q != '0 && !wr_req && (!row_q || in_push) && !(rd_valid_q && rd_last_q);
  // The grant gates: the only logic that reads the grant (see above).
  assign rd_go = rd_req && vmem_gnt_i;
  assign wr_go = wr_req && vmem_gnt_i;
  // The write buffer empties when its row is written, at once for a row the unit refused (nothing to write).
  assign wb_drain = wb_valid_q && (!wb_write_q || wr_go);
  assign wb_done = wb_drain && wb_last_q;

  always_comb begin
    unique case (phase_q)
      KindA: rd_addr = fa_q;
      KindB: rd_addr = fb_q;
      default: rd_addr = fm_q;
    endcase
    // The kind after phase_q within the row, or the row's end.
    next_kind = KindA;
    next_row_done = 1'b1;
    if (phase_q == KindA && need_b) begin
      next_kind = KindB;
      next_row_done = 1'b0;
    end else if (phase_q != KindM && cur_select) begin
      next_kind = KindM;
      next_row_done = 1'b0;
    end
  end

  assign vmem_req_o = wr_req || rd_req;
  assign vmem_we_o = wr_req;
  assign vmem_line_o = (wr_req ? wa_q : rd_addr) / LineBytes;
  assign vmem_wdata_o = wb_data_q;

  always_comb begin
    row_d = row_q;
    p_left_d = p_left_q;
    p_first_d = p_first_q;
    if (rd_valid_q && rd_last_q) row_d = 1'b1;
    else if (in_push) row_d = 1'b0;
    if (start) begin
      p_left_d = head.rows;
      p_first_d = 1'b1;
    end else if (in_push) begin
      p_left_d = p_left_q - 32'd1;
      p_first_d = 1'b0;
    end
  end

  // ------------------------------------------------------------------ register reads
  logic [31:0] status;
  always_comb begin
    status = '0;
    status[VpuStatusBusyLsb] = run_q;
    status[VpuStatusPendingLsb +: VpuStatusPendingWidth] = VpuStatusPendingWidth'(count_q);
    status[VpuStatusLastErrLsb +: VpuStatusLastErrWidth] = last_err_q;
  end

  function automatic logic [31:0] read_reg(logic [11:0] off, cmd_t stage, logic [31:0] status_v,
                                           logic [31:0] done, logic [31:0] errs, logic [31:0] rows_done,
                                           logic [31:0] busy_cycles, logic [31:0] stall_cycles);
    logic [31:0] v;
    v = '0;
    unique case (off)
      VpuCmdOffset: begin
        v[VpuCmdOpLsb +: VpuCmdOpWidth] = stage.op;
        v[VpuCmdBcastLsb +: VpuCmdBcastWidth] = stage.bcast;
        v[VpuCmdIrqLsb] = stage.irq;
      end
      VpuSrcAOffset: v = stage.src_a;
      VpuSrcBOffset: v = stage.src_b;
      VpuSrcMOffset: v = stage.src_m;
      VpuDstOffset: v = stage.dst;
      VpuRowsOffset: v = stage.rows;
      VpuSrcStrideOffset: v = stage.sstride;
      VpuDstStrideOffset: v = stage.dstride;
      VpuStatusOffset: v = status_v;
      VpuDoneOffset: v = done;
      VpuErrorsOffset: v = errs;
      VpuConfigOffset: v[VpuConfigLanesLsb +: VpuConfigLanesWidth] = VpuConfigLanesWidth'(Lanes);
      VpuRowsDoneOffset: v = rows_done;
      VpuBusyCyclesOffset: v = busy_cycles;
      VpuStallCyclesOffset: v = stall_cycles;
      default: v = '0;
    endcase
    return v;
  endfunction

  // ------------------------------------------------------------------ state
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      run_q <= 1'b0;
      f_left_q <= '0;
      p_left_q <= '0;
      phase_q <= KindA;
      f_first_q <= 1'b0;
      p_first_q <= 1'b0;
      rd_valid_q <= 1'b0;
      rd_last_q <= 1'b0;
      rd_kind_q <= KindA;
      row_q <= 1'b0;
      wb_valid_q <= 1'b0;
      wb_write_q <= 1'b0;
      wb_last_q <= 1'b0;
      irq_q <= 1'b0;
      done_q <= '0;
      err_cnt_q <= '0;
      last_err_q <= '0;
      rows_done_q <= '0;
      busy_cycles_q <= '0;
      stall_cycles_q <= '0;
      rdata_q <= '0;
    end else begin
      // A command starts, or a refused one completes; a running one completes when its last row is written.
      if (start) run_q <= 1'b1;
      else if (wb_done) run_q <= 1'b0;
      done_q <= done_q + 32'(refused || wb_done);
      irq_q <= (refused && head.irq) || (wb_done && cur_q.irq);
      // Errors: a refused command, or a push into a full queue (counted here rather than in next-state logic:
      // the push comes from the register bus, which changes with the control core's every access).
      err_cnt_q <= err_cnt_q + 32'(refused) + 32'(push && queue_full);
      if (push && queue_full) last_err_q <= 8'(VpuErrQueueFull);
      else if (refused) last_err_q <= head_err;
      // Fetch: set up at the start, advanced by each granted read.
      if (start) begin
        f_left_q <= head.rows;
        phase_q <= KindA;
        f_first_q <= 1'b1;
      end else if (rd_go) begin
        phase_q <= next_kind;
        if (next_row_done) begin
          f_left_q <= f_left_q - 32'd1;
          f_first_q <= 1'b0;
        end
      end
      rd_valid_q <= rd_go;
      rd_last_q <= rd_go && next_row_done;
      rd_kind_q <= phase_q;
      row_q <= row_d;
      p_left_q <= p_left_d;
      p_first_q <= p_first_d;
      // The write buffer: filled from the unit's output when empty, emptied by its write.
      if (out_take) begin
        wb_valid_q <= 1'b1;
        wb_write_q <= vpu_out_write;
        wb_last_q <= vpu_out_last;
      end else if (wb_drain) begin
        wb_valid_q <= 1'b0;
      end
      rows_done_q <= rows_done_q + 32'(wb_drain && wb_write_q);
      busy_cycles_q <= busy_cycles_q + 32'(run_q);
      stall_cycles_q <= stall_cycles_q + 32'((wr_req || rd_req) && !vmem_gnt_i);
      if (reg_req_i && !reg_we_i) begin
        rdata_q <= read_reg(reg_addr_i, stage_q, status, done_q, err_cnt_q, rows_done_q, busy_cycles_q,
                            stall_cycles_q);
      end
    end
  end

  // Data registers: no reset (loaded before they are read).
  always_ff @(posedge clk_i) begin
    if (start) begin
      cur_q <= head;
      fa_q <= head.src_a;
      fb_q <= head.src_b;
      fm_q <= head.src_m;
    end else if (rd_go && next_row_done) begin
      fa_q <= fa_q + cur_q.sstride;
      fb_q <= fb_q + cur_q.sstride;
      fm_q <= fm_q + cur_q.sstride;
    end
    if (start) wa_q <= head.dst;
    else if (wb_drain) wa_q <= wa_q + cur_q.dstride;
    if (out_take) wb_data_q <= vpu_out_data;
    if (rd_valid_q) begin
      unique case (rd_kind_q)
        KindA: a_buf_q <= vmem_rdata_i;
        KindB: b_buf_q <= vmem_rdata_i;
        default: m_buf_q <= rd_mask;
      endcase
    end
  end

  assign reg_rdata_o = rdata_q;
  assign irq_o = irq_q;
  assign quiet_o = !run_q && count_q == '0 && !irq_q;

  tpu_vpu #(.Lanes(Lanes)) u_vpu (
    .clk_i,
    .rst_ni,
    .in_valid_i (row_q),
    .in_ready_o (vpu_in_ready),
    .in_op_i    (cur_q.op),
    .in_bcast_i (cur_q.bcast),
    .in_first_i (p_first_q),
    .in_last_i  (p_left_q == 32'd1),
    .in_a_i     (a_buf_q),
    .in_b_i     (b_buf_q),
    .in_mask_i  (m_buf_q),
    .out_valid_o(vpu_out_valid),
    .out_ready_i(out_take),
    .out_data_o (vpu_out_data),
    .out_mask_o (unused_out_mask),
    .out_err_o  (vpu_out_err),
    .out_write_o(vpu_out_write),
    .out_last_o (vpu_out_last),
    .err_count_o(vpu_err_count)
  );

  logic unused_sig;
  // The command's addresses and rows were taken into the fetch and write counters at its start.
  assign unused_sig = ^{unused_out_mask, vpu_err_count, VmemBytes, cur_q.src_a, cur_q.src_b, cur_q.src_m, cur_q.dst,
                        cur_q.rows};

  // ------------------------------------------------------------------ assertions
  `ASSERT_INIT(VpuEngineLineLanes, Lanes * 4 == LineBytes && (VmemBytes % LineBytes) == 0)
  // The head's checks refuse every command the unit would refuse: its own check never fires behind them.
  `ASSERT_IF(VpuEngineNoUnitErr, !vpu_out_err, vpu_out_valid)
  // A row enters the unit only while a command runs, and no more rows than it has.
  `ASSERT_IF(VpuEngineRowInCommand, run_q && p_left_q != '0, row_q)
  // A line arrives only into a free row buffer (the next row's reads wait for the buffered row to enter the unit).
  `ASSERT_IF(VpuEngineNoOverwrite, !row_q, rd_valid_q)
  // Every line written is inside VMEM (the range check at the head guarantees it).
  `ASSERT_IF(VpuEngineWriteInRange, 64'(wa_q) + 64'(LineBytes) <= 64'(VmemBytes), wr_req)
  `ASSERT_KNOWN(VpuEngineReqKnown, vmem_req_o)

endmodule
