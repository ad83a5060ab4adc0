// Descriptor DMA engine. Each queue takes descriptors (source, destination, bytes per row, rows,
// strides, tiers) through its register set, checks them against the tiers' sizes, and turns them
// into one memory command per row for the HBM-side bridge:
//   READ  HBM -> on-chip: the bridge returns 64-byte line beats that this engine writes into
//         VMEM, ACC or SMEM;
//   WRITE on-chip -> HBM: this engine reads on-chip lines and streams them to the bridge;
//   COPY  HBM -> HBM: the bridge moves the bytes itself (memmove semantics within a row); rows
//         are issued last-to-first when the destination lies above the source, so an
//         overlapping 1-D or equal-stride 2-D move is correct.
// A descriptor that fails its checks completes with an error code and issues nothing. Queues run
// concurrently; one completion interrupt pulse per finished descriptor that asked for one.
`include "tpu_assert.svh"

module tpu_dma
  import tpu_regmap_pkg::*;
#(
  parameter int unsigned VmemBytes = VmemSize,
  parameter int unsigned AccBytes = AccSize,
  parameter int unsigned SmemBytes = SmemSize,
  parameter int unsigned FifoDepth = DmaQueueDepth,
  parameter int unsigned MaxOutstanding = 15
) (
  input  logic         clk_i,
  input  logic         rst_ni,
  // Register access (32-bit words; read data the cycle after the request).
  input  logic         reg_req_i,
  input  logic         reg_we_i,
  input  logic [11:0]  reg_addr_i,
  input  logic [31:0]  reg_wdata_i,
  output logic [31:0]  reg_rdata_o,
  input  logic [63:0]  hbm_capacity_i,  // registered by the owner: keeps the range checks off the input path
  output logic         irq_o,
  output logic         quiet_o,   // nothing changes next edge unless an input does (see tpu_top)
  output logic         idle_o,    // nothing changes next edge unless the register bus is used
  // Commands to the HBM-side bridge.
  output logic         cmd_valid_o,
  input  logic         cmd_ready_i,
  output logic [1:0]   cmd_op_o,        // 0 READ, 1 WRITE, 2 COPY
  output logic         cmd_tag_o,       // queue
  output logic [63:0]  cmd_src_o,       // READ/COPY: HBM address; WRITE: on-chip byte address
  output logic [63:0]  cmd_dst_o,       // READ: on-chip byte address; WRITE/COPY: HBM address
  output logic [31:0]  cmd_len_o,
  output logic [1:0]   cmd_chip_tier_o, // on-chip tier of a READ or WRITE
  // Line beats from the bridge (READ data), already aligned to on-chip lines.
  input  logic         rd_valid_i,
  output logic         rd_ready_o,
  input  logic [1:0]   rd_tier_i,
  input  logic [31:0]  rd_addr_i,       // on-chip byte address of the line (64-byte aligned)
  input  logic [63:0]  rd_be_i,
  input  logic [511:0] rd_data_i,
  // Line beats to the bridge (WRITE data), in on-chip line order per queue.
  output logic         wr_valid_o,
  input  logic         wr_ready_i,
  output logic         wr_tag_o,
  output logic [63:0]  wr_be_o,
  output logic [511:0] wr_data_o,
  // A command finished (all its bytes are in place).
  input  logic         done_valid_i,
  input  logic         done_tag_i,
  // On-chip memories.
  output logic         vmem_req_o,
  output logic         vmem_we_o,
  output logic [31:0]  vmem_line_o,
  output logic [63:0]  vmem_be_o,
  output logic [511:0] vmem_wdata_o,
  input  logic [511:0] vmem_rdata_i,
  output logic         acc_req_o,
  output logic         acc_we_o,
  output logic [31:0]  acc_line_o,
  output logic [63:0]  acc_be_o,
  output logic [511:0] acc_wdata_o,
  input  logic [511:0] acc_rdata_i,
  output logic         smem_req_o,
  output logic         smem_we_o,
  output logic [31:0]  smem_addr_o,     // byte offset, word aligned
  output logic [3:0]   smem_be_o,
  output logic [31:0]  smem_wdata_o,
  input  logic         smem_gnt_i,
  input  logic [31:0]  smem_rdata_i
);

  localparam int unsigned NumQ = DmaCount;
  // SMEM is reached one 32-bit word at a time: a line is LineWords words, word w is bits
  // [w WordBits +: WordBits] with byte enables [w WordBytes +: WordBytes].
  localparam int unsigned WordBytes = 4, WordBits = 8 * WordBytes, LineWords = DmaLineBytes / WordBytes;
  localparam int unsigned Fw = $clog2(FifoDepth);
  localparam logic [1:0] OpRead = 2'(BridgeOpRead), OpWrite = 2'(BridgeOpWrite), OpCopy = 2'(BridgeOpCopy);
  localparam logic [1:0] TierHbm = 2'(DmaTierHbm), TierVmem = 2'(DmaTierVmem), TierAcc = 2'(DmaTierAcc),
                         TierSmem = 2'(DmaTierSmem);

  typedef struct packed {
    logic [63:0] src;
    logic [63:0] dst;
    logic [31:0] len;
    logic [31:0] rows;
    logic [31:0] src_stride;
    logic [31:0] dst_stride;
    logic [DmaCtrlSrcTierWidth-1:0] src_tier;
    logic [DmaCtrlDstTierWidth-1:0] dst_tier;
    logic        irq;
  } desc_t;

  localparam desc_t StageReset = '{rows: 32'd1, default: '0};

  typedef enum logic [2:0] { QIdle, QCheck, QIssue, QStream, QDrain, QFinish } q_state_e;

  // ------------------------------------------------------------------ per-queue state
  desc_t       stage_q [NumQ];   // the queues' staging registers (written in gen_queue's clocked block)
  desc_t       head [NumQ];
  logic [Fw:0] count_q [NumQ];   // descriptors waiting
  logic        full [NumQ], pop [NumQ];
  q_state_e    st_q [NumQ];       // the queues' state machines (gen_queue)
  desc_t       cur_q [NumQ];
  logic [31:0] rows_left_q [NumQ];
  logic [63:0] row_src_q [NumQ], row_dst_q [NumQ];
  logic        reverse_q [NumQ];
  logic [4:0]  outst_q [NumQ];
  logic [7:0]  err_q [NumQ];
  logic [7:0]  last_err_q [NumQ];
  logic [31:0] done_cnt_q [NumQ], err_cnt_q [NumQ];
  logic        push [NumQ], push_full [NumQ], want_cmd [NumQ], grant [NumQ], cmd_fire [NumQ];
  logic [7:0]  check_err [NumQ];
  logic [1:0]  op [NumQ];
  logic        irq_q;
  logic        rr_q;

  // ------------------------------------------------------------------ register reads
  // The read decode is written in the clocked block below (rdata_q), not as an always_comb rdata_d, and
  // so are the staging registers' write decodes (gen_queue): the register bus depends on the host port's
  // inputs, so Verilator would evaluate such combinational decodes twice every cycle (with the inputs
  // and with the state) where a clocked block runs once, at the rising edge, and is a branch when the bus
  // is idle. About a tenth of a busy chip's evaluation with the matrix unit's (docs/simulation-speed.md).
  logic [31:0] rdata_q;
  logic        reg_q_sel;
  logic [5:0]  reg_off;
  assign reg_q_sel = reg_addr_i[6];  // DmaStride = 0x40 and two queues
  assign reg_off = reg_addr_i[5:0];

  function automatic logic [31:0] read_reg(logic in_range, logic [5:0] off, desc_t stage, q_state_e st,
                                           logic [Fw:0] count, logic [7:0] last_err, logic [31:0] done_cnt,
                                           logic [31:0] err_cnt);
    logic [31:0] v;
    v = 32'b0;
    if (in_range) begin
      unique case (12'(off))
        DmaSrcLoOffset: v = stage.src[31:0];
        DmaSrcHiOffset: v = stage.src[63:32];
        DmaDstLoOffset: v = stage.dst[31:0];
        DmaDstHiOffset: v = stage.dst[63:32];
        DmaLenOffset: v = stage.len;
        DmaRowsOffset: v = stage.rows;
        DmaSrcStrideOffset: v = stage.src_stride;
        DmaDstStrideOffset: v = stage.dst_stride;
        DmaCtrlOffset: begin
          v[DmaCtrlSrcTierLsb +: DmaCtrlSrcTierWidth] = stage.src_tier;
          v[DmaCtrlDstTierLsb +: DmaCtrlDstTierWidth] = stage.dst_tier;
          v[DmaCtrlIrqLsb] = stage.irq;
        end
        DmaStatusOffset: begin
          v[DmaStatusBusyLsb] = st != QIdle || count != '0;
          v[DmaStatusPendingLsb +: DmaStatusPendingWidth] = DmaStatusPendingWidth'(count);
          v[DmaStatusLastErrLsb +: DmaStatusLastErrWidth] = last_err;
        end
        DmaDoneOffset: v = done_cnt;
        DmaErrorsOffset: v = err_cnt;
        default: v = 32'b0;
      endcase
    end
    return v;
  endfunction
  assign reg_rdata_o = rdata_q;

  // ------------------------------------------------------------------ streamer (WRITE rows)
  // Reads on-chip lines of one row at a time into a two-entry buffer and offers them to the bridge.
  logic        s_busy_q, s_tag_q;
  logic [1:0]  s_tier_q;
  logic [31:0] s_start_q, s_end_q;                          // [start, end) on-chip bytes
  logic [31:0] s_next_line_q;                              // next line to fetch (byte address)
  logic [3:0]  s_word_q;                                   // SMEM word within the line
  logic        s_inflight_q;                               // a read was issued last cycle
  logic [31:0] s_inflight_line_q;
  logic [3:0]  s_inflight_word_q;
  logic [511:0] s_gather_q;                               // SMEM words of the line so far
  logic [511:0] s_buf_data_q [2];
  logic [63:0] s_buf_be_q [2];
  logic [1:0]  s_buf_count_q;
  logic        s_buf_head_q;
  logic        s_fetch_done, s_issue, s_start, s_pop, s_row_done, s_line_done;
  logic        s_buf_wr;                                   // the buffer entry a done line goes to
  logic        s_start_q_sel;
  logic [1:0]  s_reserved;

  // ------------------------------------------------------------------ writer (READ beats)
  logic        w_valid_q;
  logic [1:0]  w_tier_q;
  logic [31:0] w_addr_q;
  logic [63:0] w_be_q;
  logic [511:0] w_data_q;
  logic [3:0]  w_word_q;
  logic        w_smem_req, w_last_word;
  logic [3:0]  w_next_word;
  logic        w_found;

  // `line` with 32-bit word `word` replaced by `data`.
  function automatic logic [511:0] with_word(logic [511:0] line, logic [3:0] word, logic [31:0] data);
    logic [511:0] l;
    l = line;
    l[word*WordBits +: WordBits] = data;
    return l;
  endfunction

  // Bytes of line `line` that fall in [start, end).
  function automatic logic [63:0] line_mask(logic [31:0] line, logic [31:0] start, logic [31:0] fin);
    logic [63:0] m;
    for (int i = 0; i < 64; i++) m[i] = (line + 32'(i) >= start) && (line + 32'(i) < fin);
    return m;
  endfunction

  function automatic logic [63:0] tier_size(logic [1:0] tier, logic [63:0] hbm_cap);
    unique case (tier)
      TierHbm: return hbm_cap;
      TierVmem: return 64'(VmemBytes);
      TierAcc: return 64'(AccBytes);
      default: return 64'(SmemBytes);
    endcase
  endfunction

  // base + (rows - 1) * stride + len <= size, without overflow (66-bit arithmetic).
  function automatic logic fits(logic [63:0] base, logic [31:0] rows, logic [31:0] stride, logic [31:0] len,
                                logic [63:0] size);
    logic [65:0] last;
    last = 66'(base) + 66'({32'b0, rows - 32'd1} * {32'b0, stride}) + 66'(len);
    return last <= 66'(size);
  endfunction

  // ------------------------------------------------------------------ queues
  for (genvar q = 0; q < NumQ; q++) begin : gen_queue
    logic reg_hit;
    assign reg_hit = reg_req_i && reg_we_i && reg_q_sel == 1'(q) && reg_addr_i < 12'(DmaCount * DmaStride);
    assign push[q] = reg_hit && 12'(reg_off) == DmaPushOffset;
    assign push_full[q] = push[q] && full[q];
    assign pop[q] = st_q[q] == QIdle && count_q[q] != '0;

    tpu_cmd_queue #(
      .T    (desc_t),
      .Depth(FifoDepth)
    ) u_queue (
      .clk_i,
      .rst_ni,
      .stage_i  (stage_q[q]),
      .push_i   (push[q]),
      .full_o   (full[q]),
      .pop_i    (pop[q]),
      .head_o   (head[q]),
      .count_o  (count_q[q])
    );
    assign op[q] = cur_q[q].src_tier == TierHbm ? (cur_q[q].dst_tier == TierHbm ? OpCopy : OpRead) : OpWrite;

    // Only evaluated while the queue is checking (cheap to simulate the rest of the time).
    always_comb begin
      check_err[q] = 8'(DmaErrNone);
      if (st_q[q] != QCheck) begin
        check_err[q] = 8'(DmaErrNone);
      end else if (cur_q[q].len == 32'b0 || cur_q[q].rows == 32'b0) begin
        check_err[q] = 8'(DmaErrZero);
      end else if (cur_q[q].src_tier != TierHbm && cur_q[q].dst_tier != TierHbm) begin
        check_err[q] = 8'(DmaErrTiers);
      end else if (!fits(cur_q[q].src, cur_q[q].rows, cur_q[q].src_stride, cur_q[q].len,
                         tier_size(cur_q[q].src_tier, hbm_capacity_i))) begin
        check_err[q] = 8'(DmaErrSrcRange);
      end else if (!fits(cur_q[q].dst, cur_q[q].rows, cur_q[q].dst_stride, cur_q[q].len,
                         tier_size(cur_q[q].dst_tier, hbm_capacity_i))) begin
        check_err[q] = 8'(DmaErrDstRange);
      end
    end

    // A WRITE row needs the (single) streamer; rows of other kinds only need a command slot.
    assign want_cmd[q] = st_q[q] == QIssue && outst_q[q] < 5'(MaxOutstanding) &&
                         (op[q] != OpWrite || !s_busy_q);
    assign cmd_fire[q] = grant[q] && cmd_ready_i;

    // The staging register: the register writes decoded in the clocked block (see "register reads").
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        stage_q[q] <= StageReset;
      end else if (reg_hit) begin
        unique case (12'(reg_off))
          DmaSrcLoOffset: stage_q[q].src[31:0] <= reg_wdata_i;
          DmaSrcHiOffset: stage_q[q].src[63:32] <= reg_wdata_i;
          DmaDstLoOffset: stage_q[q].dst[31:0] <= reg_wdata_i;
          DmaDstHiOffset: stage_q[q].dst[63:32] <= reg_wdata_i;
          DmaLenOffset: stage_q[q].len <= reg_wdata_i;
          DmaRowsOffset: stage_q[q].rows <= reg_wdata_i;
          DmaSrcStrideOffset: stage_q[q].src_stride <= reg_wdata_i;
          DmaDstStrideOffset: stage_q[q].dst_stride <= reg_wdata_i;
          DmaCtrlOffset: begin
            stage_q[q].src_tier <= reg_wdata_i[DmaCtrlSrcTierLsb +: DmaCtrlSrcTierWidth];
            stage_q[q].dst_tier <= reg_wdata_i[DmaCtrlDstTierLsb +: DmaCtrlDstTierWidth];
            stage_q[q].irq <= reg_wdata_i[DmaCtrlIrqLsb];
          end
          default: ;
        endcase
      end
    end

    // The queue's state machine, its next state written in the clocked block (not as always_comb *_d):
    // it depends on the bridge's inputs (cmd_ready_i, done_valid_i) and on the register bus, so a
    // combinational next state would be evaluated twice every cycle (see "register reads").
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        st_q[q] <= QIdle;
        cur_q[q] <= '0;
        rows_left_q[q] <= '0;
        row_src_q[q] <= '0;
        row_dst_q[q] <= '0;
        reverse_q[q] <= 1'b0;
        outst_q[q] <= '0;
        err_q[q] <= '0;
        last_err_q[q] <= '0;
        done_cnt_q[q] <= '0;
        err_cnt_q[q] <= '0;
      end else begin
        outst_q[q] <= outst_q[q] + 5'(cmd_fire[q]) - 5'(done_valid_i && done_tag_i == 1'(q));

        // Counters: a finished command, and a push into a full queue (an error of its own); both may
        // come in one cycle, and the finished command's error is the one kept as the last.
        if (st_q[q] == QFinish) begin
          done_cnt_q[q] <= done_cnt_q[q] + 32'd1 + 32'(push_full[q]);
          err_cnt_q[q] <= err_cnt_q[q] + 32'(err_q[q] != 8'(DmaErrNone)) + 32'(push_full[q]);
          last_err_q[q] <= err_q[q];
        end else if (push_full[q]) begin
          done_cnt_q[q] <= done_cnt_q[q] + 32'd1;
          err_cnt_q[q] <= err_cnt_q[q] + 32'd1;
          last_err_q[q] <= 8'(DmaErrQueueFull);
        end

        unique case (st_q[q])
          QIdle: begin
            if (pop[q]) begin
              cur_q[q] <= head[q];
              st_q[q] <= QCheck;
            end
          end
          QCheck: begin
            err_q[q] <= check_err[q];
            rows_left_q[q] <= cur_q[q].rows;
            // COPY with the destination above the source: last row first (memmove order).
            reverse_q[q] <= op[q] == OpCopy && cur_q[q].dst > cur_q[q].src;
            if (op[q] == OpCopy && cur_q[q].dst > cur_q[q].src) begin
              row_src_q[q] <= cur_q[q].src + {32'b0, cur_q[q].rows - 32'd1} * {32'b0, cur_q[q].src_stride};
              row_dst_q[q] <= cur_q[q].dst + {32'b0, cur_q[q].rows - 32'd1} * {32'b0, cur_q[q].dst_stride};
            end else begin
              row_src_q[q] <= cur_q[q].src;
              row_dst_q[q] <= cur_q[q].dst;
            end
            st_q[q] <= check_err[q] != 8'(DmaErrNone) ? QFinish : QIssue;
          end
          QIssue: begin
            if (cmd_fire[q]) begin
              rows_left_q[q] <= rows_left_q[q] - 32'd1;
              row_src_q[q] <= reverse_q[q] ? row_src_q[q] - 64'(cur_q[q].src_stride)
                                           : row_src_q[q] + 64'(cur_q[q].src_stride);
              row_dst_q[q] <= reverse_q[q] ? row_dst_q[q] - 64'(cur_q[q].dst_stride)
                                           : row_dst_q[q] + 64'(cur_q[q].dst_stride);
              if (op[q] == OpWrite) st_q[q] <= QStream;
              else if (rows_left_q[q] == 32'd1) st_q[q] <= QDrain;
            end
          end
          QStream: begin
            if (s_row_done) st_q[q] <= rows_left_q[q] == 32'd0 ? QDrain : QIssue;
          end
          QDrain: begin
            if (outst_q[q] == 5'd0) st_q[q] <= QFinish;
          end
          QFinish: st_q[q] <= QIdle;
          default: st_q[q] <= QIdle;
        endcase
      end
    end
  end

  // ------------------------------------------------------------------ command port (round robin)
  // The grant depends on this block's state only; rr_q's update, which depends on cmd_ready_i, is in the
  // clocked block at the end (see there).
  always_comb begin
    grant[0] = want_cmd[0] && (!want_cmd[1] || !rr_q);
    grant[1] = want_cmd[1] && !grant[0];
  end

  always_comb begin
    logic g;
    g = grant[1];
    cmd_valid_o = grant[0] || grant[1];
    cmd_tag_o = g;
    cmd_op_o = op[g];
    cmd_src_o = row_src_q[g];
    cmd_dst_o = row_dst_q[g];
    cmd_len_o = cur_q[g].len;
    cmd_chip_tier_o = op[g] == OpRead ? cur_q[g].dst_tier : cur_q[g].src_tier;
  end

  // ------------------------------------------------------------------ streamer
  assign s_start_q_sel = cmd_fire[1];
  assign s_start = (cmd_fire[0] && op[0] == OpWrite) || (cmd_fire[1] && op[1] == OpWrite);
  assign s_fetch_done = s_next_line_q >= s_end_q;
  assign s_line_done = s_inflight_q && (s_tier_q != TierSmem || s_inflight_word_q == 4'(LineWords - 1));
  assign s_reserved = s_buf_count_q + 2'(s_line_done);
  assign s_buf_wr = s_buf_head_q ^ s_buf_count_q[0];

  // The next line (or SMEM word) is fetched when there will be room for it. The streamer's next state
  // is in the clocked block below.
  always_comb begin
    s_issue = 1'b0;
    if (s_busy_q && !s_fetch_done && s_reserved < 2'd2) begin
      unique case (s_tier_q)
        TierVmem: s_issue = !(w_valid_q && w_tier_q == TierVmem);
        TierAcc: s_issue = !(w_valid_q && w_tier_q == TierAcc);
        default: s_issue = !w_smem_req && smem_gnt_i;
      endcase
    end
  end

  // The bridge takes the oldest buffered line; the row is done when that was its last.
  assign s_pop = s_buf_count_q != 2'd0 && wr_ready_i;
  assign s_row_done = s_pop && s_buf_count_q == 2'd1 && s_fetch_done && !s_inflight_q;

  assign wr_valid_o = s_buf_count_q != 2'd0;
  assign wr_tag_o = s_tag_q;
  assign wr_be_o = s_buf_be_q[s_buf_head_q];
  assign wr_data_o = s_buf_data_q[s_buf_head_q];

  // ------------------------------------------------------------------ writer
  // VMEM/ACC beats take one cycle (the writer has priority on those ports); SMEM beats are
  // written word by word through the shared SMEM data port.
  always_comb begin
    w_found = 1'b0;
    w_next_word = w_word_q;
    w_last_word = 1'b1;
    if (w_valid_q && w_tier_q == TierSmem) begin
      for (int i = LineWords - 1; i >= 0; i--) begin
        if (4'(i) >= w_word_q && |w_be_q[i*WordBytes +: WordBytes]) begin
          w_found = 1'b1;
          w_next_word = 4'(i);
        end
      end
      for (int i = 0; i < LineWords; i++) begin
        if (4'(i) > w_next_word && |w_be_q[i*WordBytes +: WordBytes]) w_last_word = 1'b0;
      end
    end
  end
  assign w_smem_req = w_valid_q && w_tier_q == TierSmem && w_found;

  assign rd_ready_o = !w_valid_q || w_tier_q != TierSmem;

  // ------------------------------------------------------------------ memory ports
  always_comb begin
    vmem_req_o = 1'b0;
    vmem_we_o = 1'b0;
    vmem_line_o = s_next_line_q >> 6;
    vmem_be_o = w_be_q;
    vmem_wdata_o = w_data_q;
    acc_req_o = 1'b0;
    acc_we_o = 1'b0;
    acc_line_o = s_next_line_q >> 6;
    acc_be_o = w_be_q;
    acc_wdata_o = w_data_q;
    if (w_valid_q && w_tier_q == TierVmem) begin
      vmem_req_o = 1'b1;
      vmem_we_o = 1'b1;
      vmem_line_o = w_addr_q >> 6;
    end else if (s_issue && s_tier_q == TierVmem) begin
      vmem_req_o = 1'b1;
    end
    if (w_valid_q && w_tier_q == TierAcc) begin
      acc_req_o = 1'b1;
      acc_we_o = 1'b1;
      acc_line_o = w_addr_q >> 6;
    end else if (s_issue && s_tier_q == TierAcc) begin
      acc_req_o = 1'b1;
    end
    if (w_smem_req) begin
      smem_req_o = 1'b1;
      smem_we_o = 1'b1;
      smem_addr_o = w_addr_q + {26'b0, w_next_word, 2'b00};
      smem_be_o = w_be_q[w_next_word*WordBytes +: WordBytes];
      smem_wdata_o = w_data_q[w_next_word*WordBits +: WordBits];
    end else begin
      smem_req_o = s_busy_q && !s_fetch_done && s_reserved < 2'd2 && s_tier_q == TierSmem;
      smem_we_o = 1'b0;
      smem_addr_o = s_next_line_q + {26'b0, s_word_q, 2'b00};
      smem_be_o = 4'b1111;
      smem_wdata_o = 32'b0;
    end
  end

  // ------------------------------------------------------------------ interrupt
  assign irq_o = irq_q;

  // Quiet: every queue is empty, or waits for the bridge (all its rows issued, or at the
  // outstanding limit), no command is offered, the streamer and the beat writer are empty and no
  // interrupt is being raised. Then only an input (a register access, a beat, a completion) can
  // change this block's state.
  always_comb begin
    quiet_o = !cmd_valid_o && !s_busy_q && s_buf_count_q == '0 && !s_inflight_q && !w_valid_q && !irq_q;
    for (int q = 0; q < NumQ; q++) begin
      if (!((st_q[q] == QIdle && count_q[q] == '0) || (st_q[q] == QDrain && outst_q[q] != '0) ||
            (st_q[q] == QIssue && !want_cmd[q]))) begin
        quiet_o = 1'b0;
      end
    end
  end

  // Idle: both queues empty and idle, nothing issued or outstanding, the streamer and the beat writer
  // empty, no interrupt being raised. Then the bridge has nothing to send, and only a register access
  // changes this block's state (its clock gate, tpu_top).
  always_comb begin
    idle_o = !s_busy_q && s_buf_count_q == '0 && !s_inflight_q && !w_valid_q && !irq_q;
    for (int q = 0; q < NumQ; q++) begin
      if (st_q[q] != QIdle || count_q[q] != '0) idle_o = 1'b0;
    end
  end

  // The rest of the state. Next state that depends on the bridge's inputs (cmd_ready_i, wr_ready_i,
  // rd_valid_i) or on the register bus (a push) is written here, in the clocked block, rather than as
  // always_comb *_d (a deliberate exception to the _d/_q style, as in the queues' state machines above):
  // combinational logic that depends on the chip's inputs is evaluated at every evaluation of the
  // Verilated model, even while this block's clock is gated off, where a clocked block runs only at this
  // block's rising edges (docs/simulation-speed.md).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rdata_q <= '0;
      irq_q <= 1'b0;
      rr_q <= 1'b0;
      s_busy_q <= 1'b0;
      s_tag_q <= 1'b0;
      s_tier_q <= '0;
      s_start_q <= '0;
      s_end_q <= '0;
      s_next_line_q <= '0;
      s_word_q <= '0;
      s_inflight_q <= 1'b0;
      s_inflight_line_q <= '0;
      s_inflight_word_q <= '0;
      s_buf_count_q <= '0;
      s_buf_head_q <= 1'b0;
      w_valid_q <= 1'b0;
      w_tier_q <= '0;
      w_addr_q <= '0;
      w_word_q <= '0;
    end else begin
      if (reg_req_i && !reg_we_i) begin
        rdata_q <= read_reg(reg_addr_i < 12'(DmaCount * DmaStride), reg_off, stage_q[reg_q_sel], st_q[reg_q_sel],
                            count_q[reg_q_sel], last_err_q[reg_q_sel], done_cnt_q[reg_q_sel], err_cnt_q[reg_q_sel]);
      end
      // One completion interrupt pulse per finished descriptor that asked for one, or per push into a
      // full queue whose staged descriptor asks for one.
      irq_q <= 1'b0;
      for (int q = 0; q < NumQ; q++) begin
        if ((st_q[q] == QFinish && cur_q[q].irq) || (push_full[q] && stage_q[q].irq)) irq_q <= 1'b1;
      end
      if (cmd_fire[0]) rr_q <= 1'b1;
      if (cmd_fire[1]) rr_q <= 1'b0;

      // Streamer: a WRITE row's command starts it; each cycle the line (or SMEM word) read last cycle
      // arrives (s_line_done: the buffer entry is written below), the bridge may take the oldest
      // buffered line, and the next fetch is issued when there will be room (s_issue).
      s_inflight_q <= s_issue;
      if (s_issue) begin
        s_inflight_line_q <= s_next_line_q;
        s_inflight_word_q <= s_word_q;
      end
      s_buf_count_q <= s_buf_count_q + 2'(s_line_done) - 2'(s_pop);
      if (s_pop) s_buf_head_q <= !s_buf_head_q;
      if (s_start) begin  // never with s_issue: a WRITE row waits for the streamer to be free
        s_busy_q <= 1'b1;
        s_tag_q <= s_start_q_sel;
        s_tier_q <= cmd_chip_tier_o;
        s_start_q <= cmd_src_o[31:0];
        s_end_q <= cmd_src_o[31:0] + cmd_len_o;
        s_next_line_q <= {cmd_src_o[31:6], 6'b0};
        s_word_q <= 4'd0;
      end else begin
        if (s_row_done) s_busy_q <= 1'b0;
        if (s_issue && s_tier_q == TierSmem) begin
          s_word_q <= s_word_q + 4'd1;
          if (s_word_q == 4'(LineWords - 1)) s_next_line_q <= s_next_line_q + DmaLineBytes;
        end else if (s_issue) begin
          s_next_line_q <= s_next_line_q + DmaLineBytes;
        end
      end

      // Writer: a READ beat is taken when the writer is free (rd_ready_o); a VMEM or ACC beat is written in
      // one cycle, an SMEM beat word by word (the words its byte enables touch) through the shared port.
      if (rd_valid_i && rd_ready_o) begin
        w_valid_q <= 1'b1;
        w_tier_q <= rd_tier_i;
        w_addr_q <= rd_addr_i;
        w_word_q <= 4'd0;
      end else if (w_valid_q) begin
        if (w_tier_q != TierSmem || !w_found || (w_smem_req && smem_gnt_i && w_last_word)) begin
          w_valid_q <= 1'b0;
        end else if (w_smem_req && smem_gnt_i) begin
          w_word_q <= w_next_word + 4'd1;
        end
      end
    end
  end

  // Wide data registers carry no control meaning: no reset. They are written in place here
  // rather than through _d copies from an always_comb (a deliberate exception to the _d/_q style):
  // their enables depend on the bridge's inputs, so a 512-bit "_d = _q" default would be copied
  // on every evaluation of the inputs, several times per cycle in the Verilated model.
  always_ff @(posedge clk_i) begin
    if (s_inflight_q && s_tier_q == TierSmem) s_gather_q[s_inflight_word_q*WordBits +: WordBits] <= smem_rdata_i;
    if (s_line_done) begin
      s_buf_data_q[s_buf_wr] <= s_tier_q == TierSmem ? with_word(s_gather_q, s_inflight_word_q, smem_rdata_i)
                              : s_tier_q == TierVmem ? vmem_rdata_i : acc_rdata_i;
      s_buf_be_q[s_buf_wr] <= line_mask(s_inflight_line_q, s_start_q, s_end_q);
    end
    if (rd_valid_i && rd_ready_o) begin
      w_be_q <= rd_be_i;
      w_data_q <= rd_data_i;
    end
  end

  // ------------------------------------------------------------------ assertions
  // Valid/ready on the bridge ports: a source holds valid and its payload until the sink takes it.
  // Payloads as compared (each is copied every cycle): the command's addresses by their low 32 bits
  // (a change of queue or row shows in tag, op or those bits), the write beat without its 512 data
  // bits (they come from the buffer entry wr_tag_o/wr_be_o come from).
  `ASSERT_HELD(DmaCmdHeld, cmd_valid_o, cmd_ready_i,
               ({cmd_tag_o, cmd_op_o, cmd_chip_tier_o, cmd_len_o, cmd_src_o[31:0], cmd_dst_o[31:0]}))
  `ASSERT_HELD(DmaWrHeld, wr_valid_o, wr_ready_i, ({wr_tag_o, wr_be_o}))
  // The bridge's read beats (this engine is the sink): what the bridge must do.
  `ASSERT_HELD(DmaRdHeld, rd_valid_i, rd_ready_o, ({rd_tier_i, rd_addr_i, rd_be_i}))
  `ASSERT_IF(DmaRdOnChipLine, rd_tier_i != TierHbm && rd_addr_i % DmaLineBytes == 0, rd_valid_i)
  // One streamer: a WRITE row starts it only when it is free (want_cmd waits for it). (The
  // arbiter's grants are one-hot by construction, grant[1] = want_cmd[1] && !grant[0]: not checked.)
  `ASSERT_IF(DmaStreamerStartBusy, !s_start, s_busy_q)
  // Each queue is in a state q_state_e names (QIdle..QFinish are 0..5) with no more commands
  // outstanding than allowed: one check for both (each check costs every evaluated cycle).
  `ASSERT(DmaQueueStateLegal, st_q[0] <= QFinish && st_q[1] <= QFinish &&
                              outst_q[0] <= 5'(MaxOutstanding) && outst_q[1] <= 5'(MaxOutstanding))
  // The bridge completes only commands it took: a completion for a queue with none outstanding
  // would wrap its counter and finish a descriptor early.
  `ASSERT_IF(DmaDoneWithoutCommand, outst_q[done_tag_i] != '0, done_valid_i)

  `ASSERT_INIT(DmaLineIs512Bits, DmaLineBytes == 64 && LineWords == 16)  // the ports' [511:0], 4-bit word counters
  `ASSERT_INIT(DmaTwoQueues, NumQ == 2 && DmaStride == 12'h040)  // reg_q_sel decodes two queues 0x40 apart
  `ASSERT_INIT(DmaFifoDepthLegal, FifoDepth >= 1 && (FifoDepth & (FifoDepth - 1)) == 0 &&
                                  FifoDepth < (1 << DmaStatusPendingWidth))  // STATUS.PENDING holds the count
  `ASSERT_INIT(DmaMaxOutstandingLegal, MaxOutstanding >= 1 && MaxOutstanding <= 30)  // 5-bit counters

endmodule
