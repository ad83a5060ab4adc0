// Matrix-unit row fetcher: streams `rows` rows of RowBytes bytes (N int8 by default; the bf16 fetchers use 2N) from
// VMEM, row r at byte address
// addr + r * stride, out of 64-byte line reads. For N <= 64 a line holds 64/N row slots and the
// fetcher keeps the last line it read, so rows that share a line (a packed tile: stride N) cost
// one read per line; for N > 64 a row is N/64 consecutive lines, read one per cycle. A row leaves
// in the cycle its last line arrives (row_valid_o); the consumer takes every row (no
// back-pressure). Line reads go through a request/grant port to VMEM port B (read data the cycle
// after a grant). Addresses must be row-slot aligned (checked by the caller).
`include "tpu_assert.svh"

module tpu_mxu_fetch #(
  parameter int unsigned N = 16,
  parameter int unsigned RowBytes = N
) (
  input  logic           clk_i,
  input  logic           rst_ni,
  input  logic           start_i,     // load addr/stride/rows and begin (only when idle)
  input  logic [31:0]    addr_i,
  input  logic [31:0]    stride_i,
  input  logic [31:0]    rows_i,      // >= 1
  output logic           busy_o,      // rows remain to be delivered
  output logic           req_o,       // line read request
  output logic [31:0]    line_o,
  input  logic           gnt_i,
  input  logic [511:0]   rdata_i,     // the line granted in the previous cycle
  output logic           row_valid_o,
  output logic [RowBytes*8-1:0] row_o
);
  logic [31:0] addr_q, addr_d, stride_q, stride_d, left_q, left_d;

  assign busy_o = left_q != '0;

  if (RowBytes <= 64) begin : gen_slots
    localparam int unsigned Slots = 64 / RowBytes;
    localparam int unsigned Sw = (Slots > 1) ? $clog2(Slots) : 1;
    localparam int unsigned Nw = $clog2(RowBytes);

    logic [511:0] buf_q, buf_d, cur_line;
    logic [25:0]  buf_tag_q, buf_tag_d, pend_tag_q, pend_tag_d, cur_tag, need_tag;
    logic         buf_valid_q, buf_valid_d, pend_q, pend_d, cur_valid, emit;
    logic [31:0]  next_addr, need_left;
    logic [Sw-1:0] slot;

    // The freshest line: the one arriving now, else the buffered one.
    always_comb begin
      cur_line = pend_q ? rdata_i : buf_q;
      cur_tag = pend_q ? pend_tag_q : buf_tag_q;
      cur_valid = pend_q || buf_valid_q;
    end

    always_comb begin
      addr_d = addr_q;
      stride_d = stride_q;
      left_d = left_q;
      buf_d = buf_q;
      buf_tag_d = buf_tag_q;
      buf_valid_d = buf_valid_q;
      emit = 1'b0;
      row_o = '0;
      slot = '0;
      if (pend_q) begin
        buf_d = rdata_i;
        buf_tag_d = pend_tag_q;
        buf_valid_d = 1'b1;
      end
      if (left_q != '0 && cur_valid && cur_tag == addr_q[31:6]) begin
        emit = 1'b1;
        if (Slots > 1) slot = Sw'(addr_q[5:0] >> Nw);
        row_o = cur_line[32'(slot) * RowBytes * 8 +: RowBytes * 8];
        addr_d = addr_q + stride_q;
        left_d = left_q - 1'b1;
      end
      // Request the line of the next row still to come unless it is already at hand.
      next_addr = emit ? addr_q + stride_q : addr_q;
      need_left = emit ? left_q - 1'b1 : left_q;
      need_tag = next_addr[31:6];
      req_o = need_left != '0 && !(cur_valid && cur_tag == need_tag);
      if (start_i) begin
        addr_d = addr_i;
        stride_d = stride_i;
        left_d = rows_i;
        buf_valid_d = 1'b0;  // VMEM may have changed since the last command
      end
      line_o = {6'b0, need_tag};
    end

    assign row_valid_o = emit;

    logic unused_offset;
    assign unused_offset = ^next_addr[5:0];

    // Kept apart from the block above: the grant depends on this block's request.
    always_comb begin
      pend_d = req_o && gnt_i;
      pend_tag_d = pend_d ? need_tag : pend_tag_q;
    end

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        addr_q <= '0;
        stride_q <= '0;
        left_q <= '0;
        buf_valid_q <= 1'b0;
        pend_q <= 1'b0;
        buf_tag_q <= '0;
        pend_tag_q <= '0;
      end else begin
        addr_q <= addr_d;
        stride_q <= stride_d;
        left_q <= left_d;
        buf_valid_q <= buf_valid_d;
        pend_q <= pend_d;
        buf_tag_q <= buf_tag_d;
        pend_tag_q <= pend_tag_d;
      end
    end

    always_ff @(posedge clk_i) begin
      buf_q <= buf_d;
    end
  end else begin : gen_lines
    // N > 64: a row is Parts consecutive lines, requested one per cycle and collected; the next
    // row's requests start when this row is complete (Parts + 1 cycles per row: N = 128 is a
    // build-size check, not a throughput configuration).
    localparam int unsigned Parts = RowBytes / 64;
    localparam int unsigned Pw = $clog2(Parts);
    logic [Pw-1:0]  part_q, part_d, got_q, got_d;
    logic           pend_q, pend_d, asked_q, asked_d, last_got;
    logic [RowBytes*8-1:0] acc_q, acc_d;

    always_comb begin
      addr_d = addr_q;
      stride_d = stride_q;
      left_d = left_q;
      got_d = got_q;
      acc_d = acc_q;
      last_got = 1'b0;
      if (pend_q) begin
        acc_d[32'(got_q) * 512 +: 512] = rdata_i;
        got_d = got_q + 1'b1;
        if (32'(got_q) == Parts - 1) begin
          last_got = 1'b1;
          addr_d = addr_q + stride_q;
          left_d = left_q - 1'b1;
        end
      end
      row_o = acc_d;
      req_o = left_q != '0 && !asked_q;
      line_o = {6'b0, addr_q[31:6]} + 32'(part_q);
      if (start_i) begin
        addr_d = addr_i;
        stride_d = stride_i;
        left_d = rows_i;
        got_d = '0;
      end
    end

    // Kept apart from the block above: the grant depends on this block's request.
    always_comb begin
      pend_d = req_o && gnt_i;
      part_d = pend_d ? part_q + 1'b1 : part_q;
      asked_d = asked_q;
      if (last_got) asked_d = 1'b0;
      if (pend_d && 32'(part_q) == Parts - 1) asked_d = 1'b1;
      if (start_i) begin
        part_d = '0;
        asked_d = 1'b0;
      end
    end

    assign row_valid_o = last_got;

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        addr_q <= '0;
        stride_q <= '0;
        left_q <= '0;
        part_q <= '0;
        got_q <= '0;
        pend_q <= 1'b0;
        asked_q <= 1'b0;
      end else begin
        addr_q <= addr_d;
        stride_q <= stride_d;
        left_q <= left_d;
        part_q <= part_d;
        got_q <= got_d;
        pend_q <= pend_d;
        asked_q <= asked_d;
      end
    end

    always_ff @(posedge clk_i) begin
      acc_q <= acc_d;
    end
  end

  // A start reloads the walk: only when the previous command's rows are all delivered.
  `ASSERT_IF(MxuFetchStartBusy, !busy_o, start_i)
  `ASSERT_INIT(MxuFetchNLegal, N >= 2 && (N & (N - 1)) == 0)
  `ASSERT_INIT(MxuFetchRowBytesLegal, RowBytes == N || RowBytes == 2 * N)
endmodule
