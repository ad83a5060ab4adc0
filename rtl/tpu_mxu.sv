// Matrix unit: a command queue in front of the N x N weight-stationary systolic array, between
// VMEM (operands, port B) and ACC (int32 accumulators, the MXU's read and write ports).
// Commands (staged in the MXU registers, queued by PUSH, dispatched in order):
//   LOAD_WEIGHTS  N weight rows (W[k] = N int8 at VMEM src + k N; rows >= ROWS load as zeros)
//                 into the array's shadow weights. It may run while an earlier MATMUL streams:
//                 it starts once that MATMUL has pushed its first row (the swap), and steals
//                 N*N/64 VMEM line reads from the activation stream.
//   MATMUL        ROWS activation rows (VMEM src + r SRC_STRIDE, N int8 each) through the array;
//                 result row r (N int32) goes to ACC row dst/4N + r, overwriting or (ACCUMULATE)
//                 adding to it (read-modify-write, one row per cycle, with forwarding). The
//                 first row swaps in weights loaded since the previous MATMUL, so back-to-back
//                 LOAD/MATMUL pairs stream without draining the array.
//                 With K_ROWS = K > 0 the command walks a whole K chunk itself: for each of the
//                 ceil(K/N) K tiles t it runs LOAD_WEIGHTS (W_SRC + t W_STRIDE, min(N, K - tN)
//                 rows) and MATMUL (SRC + t N, accumulating for t > 0) — the same sub-commands,
//                 overlapped the same way, without the control core issuing each one.
//   READOUT       ROWS ACC rows (src, 4N bytes each) -> optional ReLU -> int32 rows (4N bytes)
//                 or, with INT8, requantized int8 rows (N bytes: x * QUANT_MULT, optionally
//                 rounded half up, arithmetic shift right QUANT_SHIFT, saturated to -128..127)
//                 into VMEM at dst. A barrier: it waits for every earlier command, and later
//                 commands wait for it.
// CMD.BF16 (bf16 mode, per command): LOAD_WEIGHTS and MATMUL read bf16 rows of 2N bytes (element i
// at bytes 2i, 2i+1, little-endian; a packed weight tile is N rows 2N bytes apart, a K-walking
// MATMUL's tile t starts at SRC + 2N t), the array multiplies exactly and adds in fp32 (RNE), and a
// MATMUL's result rows are fp32 bit patterns, written to ACC or added onto it with one fp32 RNE add
// per element (tpu_fp_pkg). In a K-walking MATMUL the activation lanes of a tile's rows beyond its
// valid weight rows enter as +0, as in bf16_reference.Gemm. READOUT with BF16 reads ACC as fp32:
// ReLU maps a set sign bit to +0, OUT_BF16 writes bf16 rows (2N bytes, RNE) instead of fp32 rows.
// A command with bad arguments completes with an error code and does nothing. DONE counts
// completed commands in queue order (a LOAD that finishes under an earlier MATMUL completes
// after it); a command with CMD.IRQ raises the MXU interrupt when it completes.
// See docs/matrix-unit.md.
`include "tpu_assert.svh"

module tpu_mxu
  import tpu_regmap_pkg::*;
#(
  parameter int unsigned N = 16,
  parameter int unsigned VmemBytes = VmemSize,
  parameter int unsigned AccBytes = AccSize,
  parameter int unsigned QueueDepth = MxuQueueDepth,
  parameter int unsigned Inflight = MxuInflight
) (
  input  logic            clk_i,       // gated while the unit is idle (tpu_top)
  input  logic            clk_free_i,  // the ungated clock: the starved-cycle count counts idle cycles too
  input  logic            rst_ni,
  // Register access (32-bit words; read data the cycle after the request).
  input  logic            reg_req_i,
  input  logic            reg_we_i,
  input  logic [11:0]     reg_addr_i,
  input  logic [31:0]     reg_wdata_i,
  output logic [31:0]     reg_rdata_o,
  output logic            irq_o,
  output logic            quiet_o,  // nothing to do: no command waiting or in flight (see tpu_top)
  output logic            array_gates_steady_o,  // the array's clock gates keep their flops (see tpu_top)
  // VMEM port B (64-byte lines).
  output logic            vmem_req_o,
  output logic            vmem_we_o,
  output logic [31:0]     vmem_line_o,
  output logic [63:0]     vmem_be_o,
  output logic [511:0]    vmem_wdata_o,
  input  logic [511:0]    vmem_rdata_i,
  // ACC row ports (one row = N int32).
  output logic            acc_r_req_o,
  output logic [31:0]     acc_r_row_o,
  input  logic [N*32-1:0] acc_r_rdata_i,
  output logic            acc_w_req_o,
  output logic [31:0]     acc_w_row_o,
  output logic [N*32-1:0] acc_w_wdata_o
);

  localparam int unsigned RowAlign = mxu_row_align(N);      // VMEM alignment of an int8 row (regmap rule)
  localparam int unsigned RowAlignFp = mxu_row_align(2 * N);  // of a bf16 row
  localparam int unsigned AccRows = AccBytes / (4 * N);
  localparam int unsigned ArW = $clog2(AccRows);
  localparam int unsigned Qw = $clog2(QueueDepth);
  localparam int unsigned Iw = $clog2(Inflight);
  localparam int unsigned Latency = 2 * N;
  localparam logic [1:0] OpLoad = 2'(MxuOpLoadWeights), OpMatmul = 2'(MxuOpMatmul), OpReadout = 2'(MxuOpReadout);

  typedef struct packed {
    logic [MxuCmdOpWidth-1:0] op;
    logic        accumulate;
    logic        relu;
    logic        int8;
    logic        round;
    logic        irq;
    logic        bf16;
    logic        out_bf16;
    logic [31:0] src;
    logic [31:0] dst;
    logic [31:0] rows;
    logic [31:0] stride;
    logic [31:0] mult;
    logic [MxuQuantShiftShiftWidth-1:0] shift;
    logic [31:0] wsrc;
    logic [31:0] wstride;
    logic [31:0] krows;
  } cmd_t;

  // Completion kinds in the retire queue.
  typedef enum logic [1:0] { KindNow = 2'd0, KindLoad = 2'd1, KindMatmul = 2'd2, KindReadout = 2'd3 } kind_e;

  typedef struct packed {
    logic           last;
    logic           accumulate;
    logic           fp;
    logic [ArW-1:0] row;
  } tag_t;

  // ------------------------------------------------------------------ registers and queue
  localparam cmd_t StageReset = '{op: 2'b0, accumulate: 1'b0, relu: 1'b0, int8: 1'b0, round: 1'b0, irq: 1'b0,
                                  bf16: 1'b0, out_bf16: 1'b0,
                                  src: '0, dst: '0, rows: MxuRowsReset, stride: '0, mult: MxuQuantMultReset,
                                  shift: '0, wsrc: '0, wstride: '0, krows: '0};
  cmd_t            stage_q;           // the staging register (see "register writes and reads")
  logic [Qw:0]     count_q;           // commands waiting (the queue's count)
  logic            queue_full;
  logic [31:0]     done_q, done_d, err_cnt_q, err_cnt_d, rows_streamed_q, rows_streamed_d;
  // Counts every cycle with no command waiting, idle ones too, so it runs on the ungated clock: the
  // simulator advances it over the cycles it does not evaluate (tpu_top's quiescent_o).
  logic [31:0]     starved_q /*verilator public_flat_rd*/;
  logic [7:0]      last_err_q, last_err_d;
  logic [31:0]     rdata_q;
  logic            push, pop;
  cmd_t            head;
  logic [11:0]     reg_off;

  assign reg_off = reg_addr_i;
  assign push = reg_req_i && reg_we_i && reg_off == MxuPushOffset;

  tpu_cmd_queue #(
    .T    (cmd_t),
    .Depth(QueueDepth)
  ) u_queue (
    .clk_i,
    .rst_ni,
    .stage_i  (stage_q),
    .push_i   (push),
    .full_o   (queue_full),
    .pop_i    (pop),
    .head_o   (head),
    .count_o  (count_q)
  );

  // ------------------------------------------------------------------ register writes and reads
  // The staging register's write decode and the read decode are written in clocked blocks (here and
  // rdata_q below), not as always_comb stage_d / rdata_d: the register bus depends on the host port's
  // inputs, so Verilator would evaluate such combinational decodes twice every cycle (with the inputs
  // and with the state) where a clocked block runs once, at the rising edge, and is a branch when the
  // bus is idle (docs/simulation-speed.md).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      stage_q <= StageReset;
    end else if (reg_req_i && reg_we_i) begin
      unique case (reg_off)
        MxuCmdOffset: begin
          stage_q.op <= reg_wdata_i[MxuCmdOpLsb +: MxuCmdOpWidth];
          stage_q.accumulate <= reg_wdata_i[MxuCmdAccumulateLsb];
          stage_q.relu <= reg_wdata_i[MxuCmdReluLsb];
          stage_q.int8 <= reg_wdata_i[MxuCmdInt8Lsb];
          stage_q.round <= reg_wdata_i[MxuCmdRoundLsb];
          stage_q.irq <= reg_wdata_i[MxuCmdIrqLsb];
          stage_q.bf16 <= reg_wdata_i[MxuCmdBf16Lsb];
          stage_q.out_bf16 <= reg_wdata_i[MxuCmdOutBf16Lsb];
        end
        MxuSrcOffset: stage_q.src <= reg_wdata_i;
        MxuDstOffset: stage_q.dst <= reg_wdata_i;
        MxuRowsOffset: stage_q.rows <= reg_wdata_i;
        MxuSrcStrideOffset: stage_q.stride <= reg_wdata_i;
        MxuQuantMultOffset: stage_q.mult <= reg_wdata_i;
        MxuQuantShiftOffset: stage_q.shift <= reg_wdata_i[MxuQuantShiftShiftLsb +: MxuQuantShiftShiftWidth];
        MxuWSrcOffset: stage_q.wsrc <= reg_wdata_i;
        MxuWStrideOffset: stage_q.wstride <= reg_wdata_i;
        MxuKRowsOffset: stage_q.krows <= reg_wdata_i;
        default: ;
      endcase
    end
  end

  logic [31:0] status;
  logic        unit_busy;
  logic [Iw:0] rcount_q, rcount_d;

  assign unit_busy = count_q != '0 || rcount_q != '0;
  always_comb begin
    status = '0;
    status[MxuStatusBusyLsb] = unit_busy;
    status[MxuStatusPendingLsb +: MxuStatusPendingWidth] = MxuStatusPendingWidth'(count_q);
    status[MxuStatusLastErrLsb +: MxuStatusLastErrWidth] = last_err_q;
  end

  function automatic logic [31:0] read_reg(logic [11:0] off, cmd_t stage, logic [31:0] status_v, logic [31:0] done,
                                           logic [31:0] err_cnt, logic [31:0] rows_streamed, logic [31:0] starved);
    logic [31:0] v;
    v = '0;
    unique case (off)
      MxuCmdOffset: begin
        v[MxuCmdOpLsb +: MxuCmdOpWidth] = stage.op;
        v[MxuCmdAccumulateLsb] = stage.accumulate;
        v[MxuCmdReluLsb] = stage.relu;
        v[MxuCmdInt8Lsb] = stage.int8;
        v[MxuCmdRoundLsb] = stage.round;
        v[MxuCmdIrqLsb] = stage.irq;
        v[MxuCmdBf16Lsb] = stage.bf16;
        v[MxuCmdOutBf16Lsb] = stage.out_bf16;
      end
      MxuSrcOffset: v = stage.src;
      MxuDstOffset: v = stage.dst;
      MxuRowsOffset: v = stage.rows;
      MxuSrcStrideOffset: v = stage.stride;
      MxuQuantMultOffset: v = stage.mult;
      MxuQuantShiftOffset: v = 32'(stage.shift);
      MxuStatusOffset: v = status_v;
      MxuDoneOffset: v = done;
      MxuErrorsOffset: v = err_cnt;
      MxuConfigOffset: v[MxuConfigNLsb +: MxuConfigNWidth] = MxuConfigNWidth'(N);
      MxuRowsStreamedOffset: v = rows_streamed;
      MxuWSrcOffset: v = stage.wsrc;
      MxuWStrideOffset: v = stage.wstride;
      MxuKRowsOffset: v = stage.krows;
      MxuStarvedCyclesOffset: v = starved;
      default: ;
    endcase
    return v;
  endfunction
  assign reg_rdata_o = rdata_q;

  // ------------------------------------------------------------------ argument checks (queue head)
  logic [7:0]  head_err;
  logic [63:0] src_end, dst_end, wsrc_end;
  logic [31:0] out_bytes, rows_m1, ktiles_m1, in_row, in_align;
  logic        head_fused;   // a MATMUL that walks K tiles itself (K_ROWS > 0)

  assign head_fused = head.op == OpMatmul && head.krows != '0;

  always_comb begin
    head_err = 8'(MxuErrNone);
    src_end = '0;
    dst_end = '0;
    wsrc_end = '0;
    rows_m1 = '0;
    ktiles_m1 = (head.krows - 32'd1) >> $clog2(N);
    out_bytes = head.int8 ? 32'(N) : (head.out_bf16 ? 32'(2 * N) : 32'(4 * N));
    // An operand row: N int8 or N bf16.
    in_row = head.bf16 ? 32'(2 * N) : 32'(N);
    in_align = head.bf16 ? 32'(RowAlignFp) : 32'(RowAlign);
    unique case (head.op)
      OpLoad: begin
        src_end = 64'(head.src) + 64'(N) * 64'(in_row);
        if (head.rows == '0 || head.rows > 32'(N)) head_err = 8'(MxuErrZero);
        else if (head.src % in_align != 0) head_err = 8'(MxuErrAlign);
        else if (src_end > 64'(VmemBytes)) head_err = 8'(MxuErrSrcRange);
      end
      OpMatmul: begin
        rows_m1 = head.rows - 32'd1;
        src_end = 64'(head.src) + 64'(rows_m1) * 64'(head.stride) + 64'(in_row);
        dst_end = 64'(head.dst) + 64'(head.rows) * 64'(4 * N);
        if (head_fused) begin
          src_end = src_end + 64'(ktiles_m1) * 64'(in_row);
          wsrc_end = 64'(head.wsrc) + 64'(ktiles_m1) * 64'(head.wstride) + 64'(N) * 64'(in_row);
        end
        if (head.rows == '0) head_err = 8'(MxuErrZero);
        else if (head.src % in_align != 0 || head.stride % in_align != 0 || head.dst % (4 * N) != 0 ||
                 (head_fused && (head.wsrc % in_align != 0 || head.wstride % in_align != 0))) begin
          head_err = 8'(MxuErrAlign);
        end else if (src_end > 64'(VmemBytes) || wsrc_end > 64'(VmemBytes)) head_err = 8'(MxuErrSrcRange);
        else if (dst_end > 64'(AccBytes)) head_err = 8'(MxuErrDstRange);
      end
      OpReadout: begin
        src_end = 64'(head.src) + 64'(head.rows) * 64'(4 * N);
        dst_end = 64'(head.dst) + 64'(head.rows) * 64'(out_bytes);
        if ((head.int8 && head.bf16) || (head.out_bf16 && !head.bf16)) head_err = 8'(MxuErrOp);
        else if (head.rows == '0) head_err = 8'(MxuErrZero);
        else if (head.src % (4 * N) != 0 || head.dst % mxu_row_align(out_bytes) != 0) begin
          head_err = 8'(MxuErrAlign);
        end else if (src_end > 64'(AccBytes)) head_err = 8'(MxuErrSrcRange);
        else if (dst_end > 64'(VmemBytes)) head_err = 8'(MxuErrDstRange);
      end
      default: head_err = 8'(MxuErrOp);
    endcase
  end

  // ------------------------------------------------------------------ engines' state
  // Weight engine.
  logic [$clog2(N+1)-1:0] w_left_q, w_left_d, w_zero_q, w_zero_d;  // pushes left; of which zero rows
  logic        shadow_full_q, shadow_full_d;  // loaded weights not yet swapped in
  logic        w_start, w_push, w_fetch_busy, w_fetch_row_valid, w_req, w_gnt, ld_done;
  logic [31:0] w_line;
  logic [N*8-1:0] w_fetch_row, w_row, w_hi;
  // bf16 weights: a fetcher of 2N-byte rows beside the int8 one (only one of the two runs at a time).
  logic        w_fp_q, w_fp_d, w8_busy, w8_valid, w8_req, wf_busy, wf_valid, wf_req;
  logic [31:0] w8_line, wf_line;
  logic [N*8-1:0] w8_row;
  logic [N*16-1:0] wf_row;
  // Activation engine.
  logic [31:0] a_left_q, a_left_d;
  logic [ArW-1:0] a_row_q, a_row_d;
  logic        a_accumulate_q, a_accumulate_d, a_swap_q, a_swap_d, a_final_q, a_final_d;
  logic        a_start, a_push, a_fetch_busy, a_req, a_gnt;
  logic [31:0] a_line;
  logic [N*8-1:0] a_row, a_hi;
  // bf16 activations: likewise a second fetcher; lanes at or beyond a K tile's valid rows enter as +0.
  logic        a_fp_q, a_fp_d, a8_busy, a8_valid, a8_req, af_busy, af_valid, af_req;
  logic [31:0] a8_line, af_line;
  logic [N*8-1:0] a8_row;
  logic [N*16-1:0] af_row;
  logic [N-1:0] a_lanes_q, a_lanes_d;
  tag_t        a_tag, c_tag;
  // Readout engine.
  typedef enum logic [1:0] { RoIdle, RoRead, RoCapture, RoWrite } ro_state_e;
  ro_state_e   ro_q, ro_d;
  cmd_t        ro_cmd_q, ro_cmd_d;
  logic [31:0] ro_left_q, ro_left_d, ro_src_row_q, ro_src_row_d, ro_dst_q, ro_dst_d;
  logic [3:0]  ro_beat_q, ro_beat_d;
  localparam int unsigned OutW = (N * 32 > 512) ? N * 32 : 512;
  logic [N*32-1:0] ro_acc_q, ro_acc_d;
  logic [OutW-1:0] ro_out;
  logic [N*32-1:0] ro_x;    // after ReLU
  logic        ro_start, ro_done;
  // Retire queue.
  kind_e       rq_kind_q [Inflight];
  logic        rq_irq_q [Inflight];
  logic [Iw-1:0] rq_rptr_q, rq_rptr_d, rq_wptr_q, rq_wptr_d;
  logic [Iw:0] ld_cnt_q, ld_cnt_d, mm_cnt_q, mm_cnt_d, ro_cnt_q, ro_cnt_d;
  logic        retire, irq_d, irq_q, mm_done;
  kind_e       disp_kind;

  // ------------------------------------------------------------------ dispatch
  // A fused MATMUL (K_ROWS > 0) stays at the head while it expands into LOAD/MATMUL sub-commands,
  // one K tile at a time (x_*: the expansion's state); it leaves the queue with its last MATMUL.
  logic        x_busy_q, x_busy_d, x_matmul_q, x_matmul_d;  // expanding; next sub-command is the MATMUL
  logic [31:0] x_wsrc_q, x_wsrc_d, x_asrc_q, x_asrc_d, x_krem_q, x_krem_d;
  logic [31:0] cur_wsrc, cur_asrc, cur_krem, cur_wrows;
  logic        cur_last, sub_load, sub_matmul;
  logic        can_go, go;
  logic [31:0] w_addr, w_rows, a_addr;
  logic        a_acc, a_final;

  always_comb begin
    cur_wsrc = x_busy_q ? x_wsrc_q : head.wsrc;
    cur_asrc = x_busy_q ? x_asrc_q : head.src;
    cur_krem = x_busy_q ? x_krem_q : head.krows;
    cur_wrows = (cur_krem > 32'(N)) ? 32'(N) : cur_krem;
    cur_last = cur_krem <= 32'(N);
  end

  always_comb begin
    can_go = 1'b0;
    disp_kind = KindNow;
    sub_load = 1'b0;
    sub_matmul = 1'b0;
    if (count_q != '0 && 32'(rcount_q) < Inflight && ro_q == RoIdle) begin
      if (head_err != 8'(MxuErrNone)) begin
        can_go = 1'b1;
      end else begin
        unique case (head.op)
          OpLoad: begin
            can_go = w_left_q == '0 && !a_swap_q;
            disp_kind = KindLoad;
            sub_load = can_go;
          end
          OpMatmul: begin
            disp_kind = KindMatmul;
            if (head_fused && !x_matmul_q) begin
              sub_load = w_left_q == '0 && !a_swap_q;
            end else begin
              sub_matmul = w_left_q == '0 && a_left_q == '0;
              can_go = sub_matmul && (!head_fused || cur_last);
            end
          end
          default: begin  // OpReadout: a barrier
            can_go = rcount_q == '0;
            disp_kind = KindReadout;
          end
        endcase
      end
    end
  end
  assign pop = can_go;
  assign go = head_err == 8'(MxuErrNone);
  assign w_start = go && sub_load;
  assign a_start = go && sub_matmul;
  assign ro_start = pop && go && head.op == OpReadout;

  // The operands of the sub-command being started.
  always_comb begin
    w_addr = head_fused ? cur_wsrc : head.src;
    w_rows = head_fused ? cur_wrows : head.rows;
    a_addr = head_fused ? cur_asrc : head.src;
    a_acc = head.accumulate || (head_fused && x_busy_q && cur_asrc != head.src);
    a_final = !head_fused || cur_last;
  end

  always_comb begin
    x_busy_d = x_busy_q;
    x_matmul_d = x_matmul_q;
    x_wsrc_d = x_wsrc_q;
    x_asrc_d = x_asrc_q;
    x_krem_d = x_krem_q;
    if (head_fused && go) begin
      if (w_start) begin
        x_busy_d = 1'b1;
        x_matmul_d = 1'b1;
        x_wsrc_d = cur_wsrc;
        x_asrc_d = cur_asrc;
        x_krem_d = cur_krem;
      end
      if (a_start) begin
        x_matmul_d = 1'b0;
        x_wsrc_d = cur_wsrc + head.wstride;
        x_asrc_d = cur_asrc + in_row;
        x_krem_d = cur_krem - 32'(N);
        if (cur_last) x_busy_d = 1'b0;
      end
    end
  end

  always_comb begin
    err_cnt_d = err_cnt_q;
    last_err_d = last_err_q;
    if (pop && head_err != 8'(MxuErrNone)) begin
      err_cnt_d = err_cnt_d + 1'b1;
      last_err_d = head_err;
    end
    if (push && queue_full) begin
      err_cnt_d = err_cnt_d + 1'b1;
      last_err_d = 8'(MxuErrQueueFull);
    end
  end

  // ------------------------------------------------------------------ VMEM port B
  // READOUT owns the port while it runs; otherwise weight reads first (a few lines per tile),
  // then activation reads.
  logic        ro_we;
  logic [31:0] ro_line;
  logic [63:0] ro_be;
  logic [511:0] ro_wdata;

  always_comb begin
    w_gnt = w_req;
    a_gnt = a_req && !w_req;
    vmem_req_o = w_req || a_req || ro_we;
    vmem_we_o = ro_we;
    vmem_line_o = ro_we ? ro_line : (w_req ? w_line : a_line);
    vmem_be_o = ro_be;
    vmem_wdata_o = ro_wdata;
  end

  // ------------------------------------------------------------------ weight engine
  tpu_mxu_fetch #(.N(N)) u_w_fetch (
    .clk_i,
    .rst_ni,
    .start_i    (w_start && !head.bf16),
    .addr_i     (w_addr),
    .stride_i   (32'(N)),
    .rows_i     (w_rows),
    .busy_o     (w8_busy),
    .req_o      (w8_req),
    .line_o     (w8_line),
    .gnt_i      (w_gnt),
    .rdata_i    (vmem_rdata_i),
    .row_valid_o(w8_valid),
    .row_o      (w8_row)
  );

  tpu_mxu_fetch #(.N(N), .RowBytes(2 * N)) u_w_fetch_fp (
    .clk_i,
    .rst_ni,
    .start_i    (w_start && head.bf16),
    .addr_i     (w_addr),
    .stride_i   (32'(2 * N)),
    .rows_i     (w_rows),
    .busy_o     (wf_busy),
    .req_o      (wf_req),
    .line_o     (wf_line),
    .gnt_i      (w_gnt),
    .rdata_i    (vmem_rdata_i),
    .row_valid_o(wf_valid),
    .row_o      (wf_row)
  );

  // A bf16 row's element i is bytes 2i (low) and 2i + 1 (high): the array takes them as two byte rows.
  always_comb begin
    w_fetch_busy = w8_busy || wf_busy;
    w_req = w8_req || wf_req;
    w_line = wf_req ? wf_line : w8_line;
    w_fetch_row_valid = w8_valid || wf_valid;
    w_fetch_row = w8_row;
    w_hi = '0;
    if (w_fp_q) begin
      for (int unsigned i = 0; i < N; i++) begin
        w_fetch_row[8*i +: 8] = wf_row[16*i +: 8];
        w_hi[8*i +: 8] = wf_row[16*i+8 +: 8];
      end
    end
    w_fp_d = w_start ? head.bf16 : w_fp_q;
  end

  always_comb begin
    w_left_d = w_left_q;
    w_zero_d = w_zero_q;
    // Fetched rows first, then the zero rows.
    w_push = (w_left_q != '0) && (w_left_q == w_zero_q ? 1'b1 : w_fetch_row_valid);
    w_row = (w_left_q == w_zero_q) ? '0 : w_fetch_row;  // (w_hi is ignored for those rows' zeros below)
    if (w_push) begin
      w_left_d = w_left_q - 1'b1;
      if (w_left_q == w_zero_q) w_zero_d = w_zero_q - 1'b1;
    end
    ld_done = w_push && w_left_q == 1;
    if (w_start) begin
      w_left_d = ($clog2(N+1))'(N);
      w_zero_d = ($clog2(N+1))'(32'(N) - w_rows);
    end
  end

  // ------------------------------------------------------------------ activation engine
  tpu_mxu_fetch #(.N(N)) u_a_fetch (
    .clk_i,
    .rst_ni,
    .start_i    (a_start && !head.bf16),
    .addr_i     (a_addr),
    .stride_i   (head.stride),
    .rows_i     (head.rows),
    .busy_o     (a8_busy),
    .req_o      (a8_req),
    .line_o     (a8_line),
    .gnt_i      (a_gnt),
    .rdata_i    (vmem_rdata_i),
    .row_valid_o(a8_valid),
    .row_o      (a8_row)
  );

  tpu_mxu_fetch #(.N(N), .RowBytes(2 * N)) u_a_fetch_fp (
    .clk_i,
    .rst_ni,
    .start_i    (a_start && head.bf16),
    .addr_i     (a_addr),
    .stride_i   (head.stride),
    .rows_i     (head.rows),
    .busy_o     (af_busy),
    .req_o      (af_req),
    .line_o     (af_line),
    .gnt_i      (a_gnt),
    .rdata_i    (vmem_rdata_i),
    .row_valid_o(af_valid),
    .row_o      (af_row)
  );

  always_comb begin
    a_fetch_busy = a8_busy || af_busy;
    a_req = a8_req || af_req;
    a_line = af_req ? af_line : a8_line;
    a_push = a8_valid || af_valid;
    a_row = a8_row;
    a_hi = '0;
    if (a_fp_q) begin
      for (int unsigned i = 0; i < N; i++) begin
        a_row[8*i +: 8] = a_lanes_q[i] ? af_row[16*i +: 8] : 8'h00;
        a_hi[8*i +: 8] = a_lanes_q[i] ? af_row[16*i+8 +: 8] : 8'h00;
      end
    end
    a_fp_d = a_fp_q;
    a_lanes_d = a_lanes_q;
    if (a_start) begin
      a_fp_d = head.bf16;
      for (int unsigned i = 0; i < N; i++) a_lanes_d[i] = !head_fused || 32'(i) < cur_wrows;
    end
  end

  always_comb begin
    a_left_d = a_left_q;
    a_row_d = a_row_q;
    a_accumulate_d = a_accumulate_q;
    a_final_d = a_final_q;
    a_swap_d = a_swap_q;
    shadow_full_d = shadow_full_q;
    if (ld_done) shadow_full_d = 1'b1;
    if (a_push) begin
      a_left_d = a_left_q - 1'b1;
      a_row_d = a_row_q + 1'b1;
      if (a_swap_q) begin
        a_swap_d = 1'b0;
        shadow_full_d = 1'b0;
      end
    end
    if (a_start) begin
      a_left_d = head.rows;
      a_row_d = ArW'(head.dst / (4 * N));
      a_accumulate_d = a_acc;
      a_final_d = a_final;
      a_swap_d = shadow_full_q;
    end
    a_tag.last = a_left_q == 1 && a_final_q;
    a_tag.accumulate = a_accumulate_q;
    a_tag.fp = a_fp_q;
    a_tag.row = a_row_q;
    rows_streamed_d = rows_streamed_q + 32'(a_push);
  end

  // ------------------------------------------------------------------ the array
  logic c_valid;
  logic array_busy;
  logic [N*32-1:0] c_row;
  logic [$clog2(N)-1:0] unused_w_idx;

  tpu_systolic_array #(.N(N)) u_array (
    .clk_i,
    .rst_ni,
    .w_valid_i  (w_push),
    .w_row_i    (w_row),
    .w_fp_i     (w_fp_q),
    .w_hi_i     ((w_left_q == w_zero_q) ? '0 : w_hi),
    .w_row_idx_o(unused_w_idx),
    .w_swap_i   (a_push && a_swap_q),
    .a_valid_i  (a_push),
    .a_row_i    (a_row),
    .a_fp_i     (a_fp_q),
    .a_hi_i     (a_hi),
    .c_valid_o  (c_valid),
    .c_row_o    (c_row),
    .busy_o     (array_busy),
    .gates_steady_o(array_gates_steady_o)
  );

  // Each row's destination travels beside the array with the same latency.
  tpu_delay_line #(
    .Width($bits(tag_t)),
    .Depth(Latency),
    .ResetEn(1'b0)
  ) u_tag (
    .clk_i,
    .rst_ni,
    .d_i(a_tag),
    .q_o(c_tag)
  );

  // ------------------------------------------------------------------ ACC read-modify-write
  // Stage 1 (result cycle): read the old row if accumulating. Stage 2: add and write. A row
  // written in the cycle of its own stage-1 read is forwarded.
  logic            s1_valid_q;
  tag_t            s1_tag_q;
  logic [N*32-1:0] s1_row_q, sum;
  logic            wr_valid_q;
  logic [ArW-1:0]  wr_row_q;
  logic [N*32-1:0] wr_data_q;
  logic [N*32-1:0] base;

  always_comb begin
    sum = s1_row_q;
    base = '0;
    if (s1_valid_q && s1_tag_q.accumulate) begin
      base = (wr_valid_q && wr_row_q == s1_tag_q.row) ? wr_data_q : acc_r_rdata_i;
      if (s1_tag_q.fp) begin
        // bf16 mode: the ACC value plus the tile's column sum, one fp32 RNE add (bf16_reference.Gemm's order).
        for (int unsigned j = 0; j < N; j++) begin
          sum[32*j +: 32] = tpu_fp_pkg::f32_add(base[32*j +: 32], s1_row_q[32*j +: 32]);
        end
      end else begin
        for (int unsigned j = 0; j < N; j++) sum[32*j +: 32] = s1_row_q[32*j +: 32] + base[32*j +: 32];
      end
    end
    mm_done = s1_valid_q && s1_tag_q.last;
  end

  assign acc_w_req_o = s1_valid_q;
  assign acc_w_row_o = 32'(s1_tag_q.row);
  assign acc_w_wdata_o = sum;

  // ------------------------------------------------------------------ readout engine
  localparam int unsigned Bw = 4;  // ro_beat_q
  // Beats of an output row: an int32 row is 4N bytes, 64 per beat (an int8 row needs fewer).
  localparam int unsigned RowBeats = (4 * N > 64) ? 4 * N / 64 : 1;

  logic [31:0] out_row_bytes, ro_beats;
  always_comb begin
    ro_d = ro_q;
    ro_cmd_d = ro_cmd_q;
    ro_left_d = ro_left_q;
    ro_src_row_d = ro_src_row_q;
    ro_dst_d = ro_dst_q;
    ro_beat_d = ro_beat_q;
    ro_acc_d = ro_acc_q;
    ro_done = 1'b0;
    ro_we = 1'b0;
    ro_line = '0;
    ro_be = '0;
    ro_wdata = '0;
    ro_out = '0;
    ro_x = '0;
    out_row_bytes = ro_cmd_q.int8 ? 32'(N) : (ro_cmd_q.out_bf16 ? 32'(2 * N) : 32'(4 * N));
    ro_beats = (out_row_bytes > 64) ? out_row_bytes / 64 : 32'd1;
    unique case (ro_q)
      RoIdle: begin
        if (ro_start) begin
          ro_cmd_d = head;
          ro_left_d = head.rows;
          ro_src_row_d = head.src / (4 * N);
          ro_dst_d = head.dst;
          ro_d = RoRead;
        end
      end
      RoRead: ro_d = RoCapture;   // ACC read issued below
      RoCapture: begin
        ro_acc_d = acc_r_rdata_i;
        ro_beat_d = '0;
        ro_d = RoWrite;
      end
      RoWrite: begin
        for (int unsigned j = 0; j < N; j++) begin
          ro_x[32*j +: 32] = (ro_cmd_q.relu && ro_acc_q[32*j+31]) ? 32'b0 : ro_acc_q[32*j +: 32];
          if (ro_cmd_q.int8) begin
            ro_out[8*j +: 8] = tpu_requant_pkg::requant(ro_x[32*j +: 32], ro_cmd_q.mult, ro_cmd_q.shift, ro_cmd_q.round);
          end else if (ro_cmd_q.out_bf16) begin
            ro_out[16*j +: 16] = tpu_fp_pkg::f32_to_bf16(ro_x[32*j +: 32]);
          end else begin
            ro_out[32*j +: 32] = ro_x[32*j +: 32];
          end
        end
        ro_we = 1'b1;
        ro_line = (ro_dst_q >> 6) + 32'(ro_beat_q);
        if (out_row_bytes >= 64) begin
          ro_wdata = ro_out[32'(ro_beat_q) * 512 +: 512];
          ro_be = '1;
        end else begin
          ro_wdata = ro_out[511:0] << (8 * ro_dst_q[5:0]);
          ro_be = ((64'd1 << out_row_bytes) - 64'd1) << ro_dst_q[5:0];
        end
        ro_beat_d = ro_beat_q + 1'b1;
        if (32'(ro_beat_q) == ro_beats - 1) begin
          ro_dst_d = ro_dst_q + out_row_bytes;
          ro_src_row_d = ro_src_row_q + 1'b1;
          ro_left_d = ro_left_q - 1'b1;
          ro_d = RoRead;
          if (ro_left_q == 1) begin
            ro_done = 1'b1;
            ro_d = RoIdle;
          end
        end
      end
      default: ro_d = RoIdle;
    endcase
  end

  // The ACC read port: the accumulate stream, or the readout (never at the same time).
  always_comb begin
    acc_r_req_o = c_valid && c_tag.accumulate;
    acc_r_row_o = 32'(c_tag.row);
    if (ro_q == RoRead) begin
      acc_r_req_o = 1'b1;
      acc_r_row_o = ro_src_row_q;
    end
  end

  // ------------------------------------------------------------------ retire queue
  always_comb begin
    rq_rptr_d = rq_rptr_q;
    rq_wptr_d = rq_wptr_q;
    rcount_d = rcount_q;
    ld_cnt_d = ld_cnt_q + (Iw+1)'(ld_done);
    mm_cnt_d = mm_cnt_q + (Iw+1)'(mm_done);
    ro_cnt_d = ro_cnt_q + (Iw+1)'(ro_done);
    retire = 1'b0;
    if (rcount_q != '0) begin
      unique case (rq_kind_q[rq_rptr_q])
        KindLoad: retire = ld_cnt_q != '0;
        KindMatmul: retire = mm_cnt_q != '0;
        KindReadout: retire = ro_cnt_q != '0;
        default: retire = 1'b1;
      endcase
    end
    irq_d = 1'b0;
    done_d = done_q;
    if (retire) begin
      unique case (rq_kind_q[rq_rptr_q])
        KindLoad: ld_cnt_d = ld_cnt_d - 1'b1;
        KindMatmul: mm_cnt_d = mm_cnt_d - 1'b1;
        KindReadout: ro_cnt_d = ro_cnt_d - 1'b1;
        default: ;
      endcase
      rq_rptr_d = (32'(rq_rptr_q) == Inflight - 1) ? '0 : rq_rptr_q + 1'b1;
      rcount_d = rcount_d - 1'b1;
      done_d = done_q + 1'b1;
      irq_d = rq_irq_q[rq_rptr_q];
    end
    if (pop) begin
      rq_wptr_d = (32'(rq_wptr_q) == Inflight - 1) ? '0 : rq_wptr_q + 1'b1;
      rcount_d = rcount_d + 1'b1;
    end
  end
  assign irq_o = irq_q;
  // On the ungated clock (see its declaration); its increment is written here, not as a starved_d, so that
  // the simulator has only the register to advance.
  always_ff @(posedge clk_free_i or negedge rst_ni) begin
    if (!rst_ni) begin
      starved_q <= '0;
    end else begin
      starved_q <= starved_q + 32'(count_q == '0 && !a_push);
    end
  end

  // Idle but for starved_q: no command queued or in flight, readout, fetchers and array empty.
  assign quiet_o = !unit_busy && ro_q == RoIdle && !w_fetch_busy && !a_fetch_busy && !array_busy && !irq_q;

  // ------------------------------------------------------------------ state
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      done_q <= '0;
      err_cnt_q <= '0;
      rows_streamed_q <= '0;
      x_busy_q <= 1'b0;
      x_matmul_q <= 1'b0;
      x_wsrc_q <= '0;
      x_asrc_q <= '0;
      x_krem_q <= '0;
      a_final_q <= 1'b0;
      last_err_q <= '0;
      rdata_q <= '0;
      w_left_q <= '0;
      w_zero_q <= '0;
      shadow_full_q <= 1'b0;
      a_left_q <= '0;
      a_row_q <= '0;
      a_accumulate_q <= 1'b0;
      a_swap_q <= 1'b0;
      a_fp_q <= 1'b0;
      a_lanes_q <= '0;
      w_fp_q <= 1'b0;
      s1_valid_q <= 1'b0;
      wr_valid_q <= 1'b0;
      ro_q <= RoIdle;
      ro_left_q <= '0;
      ro_src_row_q <= '0;
      ro_dst_q <= '0;
      ro_beat_q <= '0;
      rq_rptr_q <= '0;
      rq_wptr_q <= '0;
      rcount_q <= '0;
      ld_cnt_q <= '0;
      mm_cnt_q <= '0;
      ro_cnt_q <= '0;
      irq_q <= 1'b0;
    end else begin
      done_q <= done_d;
      err_cnt_q <= err_cnt_d;
      rows_streamed_q <= rows_streamed_d;
      x_busy_q <= x_busy_d;
      x_matmul_q <= x_matmul_d;
      x_wsrc_q <= x_wsrc_d;
      x_asrc_q <= x_asrc_d;
      x_krem_q <= x_krem_d;
      a_final_q <= a_final_d;
      last_err_q <= last_err_d;
      if (reg_req_i && !reg_we_i) rdata_q <= read_reg(reg_off, stage_q, status, done_q, err_cnt_q, rows_streamed_q, starved_q);
      w_left_q <= w_left_d;
      w_zero_q <= w_zero_d;
      shadow_full_q <= shadow_full_d;
      a_left_q <= a_left_d;
      a_row_q <= a_row_d;
      a_accumulate_q <= a_accumulate_d;
      a_swap_q <= a_swap_d;
      a_fp_q <= a_fp_d;
      a_lanes_q <= a_lanes_d;
      w_fp_q <= w_fp_d;
      s1_valid_q <= c_valid;
      wr_valid_q <= s1_valid_q;
      ro_q <= ro_d;
      ro_left_q <= ro_left_d;
      ro_src_row_q <= ro_src_row_d;
      ro_dst_q <= ro_dst_d;
      ro_beat_q <= ro_beat_d;
      rq_rptr_q <= rq_rptr_d;
      rq_wptr_q <= rq_wptr_d;
      rcount_q <= rcount_d;
      ld_cnt_q <= ld_cnt_d;
      mm_cnt_q <= mm_cnt_d;
      ro_cnt_q <= ro_cnt_d;
      irq_q <= irq_d;
    end
  end

  // Data registers (no reset: qualified by the valid bits above).
  always_ff @(posedge clk_i) begin
    if (pop) begin
      rq_kind_q[rq_wptr_q] <= (head_err != 8'(MxuErrNone)) ? KindNow : disp_kind;
      rq_irq_q[rq_wptr_q] <= head.irq;
    end
    s1_tag_q <= c_tag;
    s1_row_q <= c_row;
    wr_row_q <= s1_tag_q.row;
    wr_data_q <= sum;
    ro_cmd_q <= ro_cmd_d;
    ro_acc_q <= ro_acc_d;
  end

  logic unused;
  assign unused = ^{unused_w_idx, src_end[63:32] != '0,
                    dst_end[63:32] != '0, wsrc_end[63:32] != '0, ro_cmd_q.accumulate, ro_cmd_q.op, ro_cmd_q.irq, ro_cmd_q.bf16,
                    ro_cmd_q.src, ro_cmd_q.dst, ro_cmd_q.rows, ro_cmd_q.stride, ro_cmd_q.wsrc, ro_cmd_q.wstride,
                    ro_cmd_q.krows};

  // ------------------------------------------------------------------ assertions
  // VMEM port B is read-only to the fetchers: only the readout engine writes it, in RoWrite, and
  // then no fetcher reads (their grant does not look at ro_we: a read there would get a wrong line).
  `ASSERT_IF(MxuVmemWriteOnlyInReadout, ro_q == RoWrite && !w_req && !a_req, vmem_we_o)
  // The ACC read port serves the accumulate stream or the readout, never both in one cycle.
  `ASSERT_IF(MxuAccReadPortShared, !(c_valid && c_tag.accumulate), ro_q == RoRead)
  // Shadow weights: a LOAD never overwrites weights a started MATMUL is yet to swap in, and a swap
  // takes loaded weights.
  `ASSERT_IF(MxuLoadOverPendingSwap, !w_start, a_swap_q)
  `ASSERT_IF(MxuSwapLoadedWeights, !a_push || shadow_full_q, a_swap_q)
  // A fused MATMUL stays at the queue's head while it expands into K tiles.
  `ASSERT_IF(MxuFusedHeadHeld, count_q != '0 && head_fused, x_busy_q)
  `ASSERT(MxuRetireCountInRange, 32'(rcount_q) <= Inflight)

  `ASSERT_INIT(MxuNLegal, N >= 2 && (N & (N - 1)) == 0)
  `ASSERT_INIT(MxuAccHoldsTwoRows, 4 * N * 2 <= AccBytes)
  `ASSERT_INIT(MxuReadoutBeatCounterWide, Bw >= $clog2(RowBeats + 1))
  `ASSERT_INIT(MxuQueueDepthLegal, QueueDepth >= 1 && QueueDepth < (1 << MxuStatusPendingWidth))
  `ASSERT_INIT(MxuInflightLegal, Inflight >= 2)  // the retire pointers are at least one bit

endmodule
