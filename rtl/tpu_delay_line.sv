// Fixed-latency delay line: d_i comes out Depth cycles later (Depth = 0 is a wire). The
// systolic array uses one per row or column to skew operands and de-skew results. Data lines are
// not reset (their contents are qualified by a separately delayed valid bit); control lines set
// ResetEn so that nothing fires out of reset.
//
// For Depth >= 2 the line is a ring of Depth slots with one pointer rather than a chain of Depth
// registers: each cycle writes one slot and reads one, so simulation cost no longer grows with
// the depth (a shift chain copies every stage every cycle; the array's skew and de-skew lines
// hold about N^2 / 2 stages each). Cycle behaviour is the same as the chain's.
module tpu_delay_line #(
  parameter int unsigned Width   = 8,
  parameter int unsigned Depth   = 1,
  parameter bit          ResetEn = 1'b0
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic [Width-1:0] d_i,
  output logic [Width-1:0] q_o    // d_i from Depth cycles ago
);

  if (Depth == 0) begin : gen_wire
    assign q_o = d_i;

    logic unused_clk_rst;
    assign unused_clk_rst = ^{clk_i, rst_ni};
  end else if (Depth == 1) begin : gen_reg
    logic [Width-1:0] stage_q;

    if (ResetEn) begin : gen_reset
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          stage_q <= '0;
        end else begin
          stage_q <= d_i;
        end
      end
    end else begin : gen_no_reset
      always_ff @(posedge clk_i) begin
        stage_q <= d_i;
      end

      logic unused_rst;
      assign unused_rst = rst_ni;
    end

    assign q_o = stage_q;
  end else begin : gen_ring
    localparam int unsigned PtrW = $clog2(Depth);

    // ptr_q: the slot written this cycle; it holds the value written Depth cycles ago.
    logic [Width-1:0] slot_q [Depth];
    logic [PtrW-1:0]  ptr_q, ptr_d;

    assign ptr_d = (32'(ptr_q) == Depth - 1) ? '0 : ptr_q + 1'b1;
    assign q_o = slot_q[ptr_q];

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        ptr_q <= '0;
      end else begin
        ptr_q <= ptr_d;
      end
    end

    if (ResetEn) begin : gen_reset
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          slot_q <= '{default: '0};
        end else begin
          slot_q[ptr_q] <= d_i;
        end
      end
    end else begin : gen_no_reset
      always_ff @(posedge clk_i) begin
        slot_q[ptr_q] <= d_i;
      end
    end
  end

endmodule
