// SMEM: the control core's scalar memory. Synchronous single-cycle RAM with a read-only
// instruction port and a read/write data port with byte enables. Not reset: contents survive
// reset so a loader can fill it while the core is held.
`include "tpu_assert.svh"

module tpu_smem #(
  parameter int unsigned Bytes = tpu_regmap_pkg::SmemSize
) (
  input  logic        clk_i,
  input  logic [31:0] iaddr_i,     // byte offset into SMEM
  output logic [31:0] irdata_o,
  input  logic        dreq_i,
  input  logic        dwe_i,
  input  logic [31:0] daddr_i,     // byte offset into SMEM
  input  logic [3:0]  dbe_i,
  input  logic [31:0] dwdata_i,
  output logic [31:0] drdata_o
);
  localparam int unsigned Words = Bytes / 4;
  localparam int unsigned Aw = $clog2(Words);

  // The array itself is not traced: dumping 1 MiB every edge would make waveforms useless
  // and slow; the ports show every access.
  /* verilator tracing_off */
  logic [31:0] mem_q [Words];
  /* verilator tracing_on */
  logic [Aw-1:0] iidx, didx;

  assign iidx = iaddr_i[Aw+1:2];
  assign didx = daddr_i[Aw+1:2];

  always_ff @(posedge clk_i) begin
    irdata_o <= mem_q[iidx];
    if (dreq_i) begin
      if (dwe_i) begin
        if (dbe_i[0]) mem_q[didx][7:0] <= dwdata_i[7:0];
        if (dbe_i[1]) mem_q[didx][15:8] <= dwdata_i[15:8];
        if (dbe_i[2]) mem_q[didx][23:16] <= dwdata_i[23:16];
        if (dbe_i[3]) mem_q[didx][31:24] <= dwdata_i[31:24];
      end else begin
        drdata_o <= mem_q[didx];
      end
    end
  end

  logic unused_addr;
  assign unused_addr = ^{iaddr_i[31:Aw+2], iaddr_i[1:0], daddr_i[31:Aw+2], daddr_i[1:0]};

  `ASSERT_INIT(SmemBytesLegal, Bytes >= 1024 && (Bytes & (Bytes - 1)) == 0)
endmodule
