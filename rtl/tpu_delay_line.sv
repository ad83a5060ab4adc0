// Fixed-latency delay line: Depth registers of Width bits in a chain (Depth = 0 is a wire). The
// systolic array uses one per row or column to skew operands and de-skew results. Data lines are
// not reset (their contents are qualified by a separately delayed valid bit); control lines set
// ResetEn so that nothing fires out of reset.
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
  end else begin : gen_regs
    logic [Width-1:0] stage_q [Depth];
    logic [Width-1:0] stage_d [Depth];

    always_comb begin
      stage_d[0] = d_i;
      for (int unsigned s = 1; s < Depth; s++) begin
        stage_d[s] = stage_q[s-1];
      end
    end

    if (ResetEn) begin : gen_reset
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          stage_q <= '{default: '0};
        end else begin
          stage_q <= stage_d;
        end
      end
    end else begin : gen_no_reset
      always_ff @(posedge clk_i) begin
        stage_q <= stage_d;
      end

      logic unused_rst;
      assign unused_rst = rst_ni;
    end

    assign q_o = stage_q[Depth-1];
  end

endmodule
