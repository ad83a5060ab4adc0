// ACC memory: int32 accumulator rows of the matrix unit. Port A serves the DMA engine in 64-byte
// lines with byte enables (as tpu_line_ram); the matrix unit has a read port R and a write port W
// of one full result row (N int32 = 4N bytes) each, so an accumulate is a read-modify-write
// stream at one row per cycle. Row r occupies ACC bytes [4N r, 4N (r+1)): for N = 8 a line holds
// two rows, for N = 16 one, for N = 32 a row spans two lines. Read data the next cycle; a read
// and a write of the same row in one cycle: the read sees the old contents (the matrix unit
// forwards). Not reset. A DMA write and a matrix-unit write of the same row in one cycle is a
// collision (asserted against).
`include "tpu_assert.svh"

module tpu_acc_ram #(
  parameter int unsigned Bytes = tpu_regmap_pkg::AccSize,
  parameter int unsigned N = 16
) (
  input  logic            clk_i,
  input  logic            a_req_i,
  input  logic            a_we_i,
  input  logic [31:0]     a_line_i,   // line index
  input  logic [63:0]     a_be_i,
  input  logic [511:0]    a_wdata_i,
  output logic [511:0]    a_rdata_o,
  input  logic            r_req_i,
  input  logic [31:0]     r_row_i,    // row index
  output logic [N*32-1:0] r_rdata_o,
  input  logic            w_req_i,
  input  logic [31:0]     w_row_i,
  input  logic [N*32-1:0] w_wdata_i
);
  localparam int unsigned RowBits = N * 32;
  localparam int unsigned Rows = Bytes / (N * 4);
  localparam int unsigned Rw = $clog2(Rows);
  localparam int unsigned Lines = Bytes / 64;
  localparam int unsigned Lw = $clog2(Lines);

  /* verilator tracing_off */
  logic [RowBits-1:0] mem_q [Rows];
  /* verilator tracing_on */

  function automatic logic [511:0] merge(logic [511:0] old, logic [511:0] val, logic [63:0] be);
    logic [511:0] r;
    for (int i = 0; i < 64; i++) r[i*8 +: 8] = be[i] ? val[i*8 +: 8] : old[i*8 +: 8];
    return r;
  endfunction

  if (RowBits >= 512) begin : gen_row_lines
    // A row is Parts lines; line l is part l % Parts of row l / Parts.
    localparam int unsigned Parts = RowBits / 512;
    localparam int unsigned Pw = (Parts > 1) ? $clog2(Parts) : 1;
    logic [Rw-1:0] a_row;
    logic [Pw-1:0] a_part;
    if (Parts > 1) begin : gen_parts
      assign a_row = a_line_i[Lw-1:Lw-Rw];
      assign a_part = a_line_i[Pw-1:0];
    end else begin : gen_one_part
      assign a_row = a_line_i[Rw-1:0];
      assign a_part = '0;
    end

    always_ff @(posedge clk_i) begin
      if (a_req_i) begin
        if (a_we_i) begin
          mem_q[a_row][32'(a_part)*512 +: 512] <= merge(mem_q[a_row][32'(a_part)*512 +: 512], a_wdata_i, a_be_i);
        end else begin
          a_rdata_o <= mem_q[a_row][32'(a_part)*512 +: 512];
        end
      end
      if (r_req_i) r_rdata_o <= mem_q[r_row_i[Rw-1:0]];
      if (w_req_i) mem_q[w_row_i[Rw-1:0]] <= w_wdata_i;
    end

    `ASSERT_IF(AccRamWriteCollision, !(a_req_i && w_req_i && a_row == w_row_i[Rw-1:0]), a_we_i, clk_i, 1'b1)
  end else begin : gen_line_rows
    // A line holds Per rows; row r is slot r % Per of line r / Per.
    localparam int unsigned Per = 512 / RowBits;
    logic [511:0] a_old, a_new;   // the line as stored (Per rows), and after a port-A write
    always_comb begin
      for (int unsigned s = 0; s < Per; s++) a_old[s*RowBits +: RowBits] = mem_q[Rw'(a_line_i[Lw-1:0] * Per + s)];
      a_new = merge(a_old, a_wdata_i, a_be_i);
    end

    always_ff @(posedge clk_i) begin
      if (a_req_i) begin
        if (a_we_i) begin
          for (int unsigned s = 0; s < Per; s++) begin
            mem_q[Rw'(a_line_i[Lw-1:0] * Per + s)] <= a_new[s*RowBits +: RowBits];
          end
        end else begin
          a_rdata_o <= a_old;
        end
      end
      if (r_req_i) r_rdata_o <= mem_q[r_row_i[Rw-1:0]];
      if (w_req_i) mem_q[w_row_i[Rw-1:0]] <= w_wdata_i;
    end

    `ASSERT_IF(AccRamWriteCollision, !(a_req_i && w_req_i && 32'(w_row_i[Rw-1:0]) / Per == 32'(a_line_i[Lw-1:0])),
               a_we_i, clk_i, 1'b1)
  end

  logic unused_addr;
  assign unused_addr = ^{a_line_i[31:Lw], r_row_i[31:Rw], w_row_i[31:Rw]};

  `ASSERT_INIT(AccRamBytesLegal, Bytes >= 512 && (Bytes & (Bytes - 1)) == 0)
  `ASSERT_INIT(AccRamNLegal, N >= 2 && (N & (N - 1)) == 0)
endmodule
