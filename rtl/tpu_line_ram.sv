// Two-port on-chip memory of 64-byte lines with byte enables (VMEM and ACC). Port A serves the
// DMA engine, port B the matrix unit; each takes one line per cycle, read data the next cycle.
// Not reset. A write and a read of the same line in one cycle on different ports: the read sees
// the old contents (read-before-write), as a synchronous dual-port SRAM would.
`include "tpu_assert.svh"

module tpu_line_ram #(
  parameter int unsigned Bytes = tpu_regmap_pkg::VmemSize  // VMEM's; tpu_top passes it
) (
  input  logic         clk_i,
  input  logic         a_req_i,
  input  logic         a_we_i,
  input  logic [31:0]  a_line_i,   // line index
  input  logic [63:0]  a_be_i,
  input  logic [511:0] a_wdata_i,
  output logic [511:0] a_rdata_o,
  input  logic         b_req_i,
  input  logic         b_we_i,
  input  logic [31:0]  b_line_i,
  input  logic [63:0]  b_be_i,
  input  logic [511:0] b_wdata_i,
  output logic [511:0] b_rdata_o
);
  localparam int unsigned Lines = Bytes / 64;
  localparam int unsigned Aw = $clog2(Lines);

  /* verilator tracing_off */
  logic [511:0] mem_q [Lines];
  /* verilator tracing_on */

  function automatic logic [511:0] merge(logic [511:0] old, logic [511:0] val, logic [63:0] be);
    logic [511:0] r;
    for (int i = 0; i < 64; i++) r[i*8 +: 8] = be[i] ? val[i*8 +: 8] : old[i*8 +: 8];
    return r;
  endfunction

  always_ff @(posedge clk_i) begin
    if (a_req_i) begin
      if (a_we_i) mem_q[a_line_i[Aw-1:0]] <= merge(mem_q[a_line_i[Aw-1:0]], a_wdata_i, a_be_i);
      else a_rdata_o <= mem_q[a_line_i[Aw-1:0]];
    end
    if (b_req_i) begin
      if (b_we_i) mem_q[b_line_i[Aw-1:0]] <= merge(mem_q[b_line_i[Aw-1:0]], b_wdata_i, b_be_i);
      else b_rdata_o <= mem_q[b_line_i[Aw-1:0]];
    end
  end

  logic unused_line;
  assign unused_line = ^{a_line_i[31:Aw], b_line_i[31:Aw]};

  // Two writes to one line in one cycle: which one lands is the simulator's choice, not the
  // hardware's (a real dual-port SRAM corrupts the line). The owners must never do it.
  // Enabled by port B's write strobe (the matrix unit's READOUT in the chip: rare, so cheap).
  `ASSERT_IF(LineRamWriteCollision, !(b_req_i && a_req_i && a_we_i && a_line_i[Aw-1:0] == b_line_i[Aw-1:0]),
             b_we_i, clk_i, 1'b1)
  `ASSERT_INIT(LineRamBytesLegal, Bytes >= 128 && (Bytes & (Bytes - 1)) == 0)
endmodule
