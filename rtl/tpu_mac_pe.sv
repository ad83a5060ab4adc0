// Processing element of the weight-stationary systolic array: one int8 x int8 -> int32 MAC with
// a double-buffered weight. The shadow weight is written from the column's weight bus while the
// active weight is in use; a swap tag travelling with the activation makes the shadow weight
// active for that activation and every later one, so the swap sweeps the array as a wavefront
// (no global drain). Activations pass right and partial sums pass down, one register each.
module tpu_mac_pe (
  input  logic        clk_i,
  input  logic        rst_ni,
  // Weight load: shadow weight <= w_i at the end of a cycle with w_we_i.
  input  logic        w_we_i,
  input  logic [7:0]  w_i,
  // From the left neighbour (or the skew line): activation and swap tag, forwarded a cycle later.
  input  logic [7:0]  a_i,
  input  logic        swap_i,
  output logic [7:0]  a_o,
  output logic        swap_o,
  // From the neighbour above (0 in the top row): partial sum, forwarded with a_i * weight added.
  input  logic [31:0] psum_i,
  output logic [31:0] psum_o
);

  logic [7:0]  w_shadow_q, w_shadow_d, w_active_q, w_active_d, w_eff;
  logic [7:0]  a_q;
  logic        swap_q;
  logic [31:0] psum_q, psum_d, a_ext, w_ext;

  always_comb begin
    w_shadow_d = w_we_i ? w_i : w_shadow_q;
    // The swap takes effect for the activation it travels with.
    w_eff = swap_i ? w_shadow_q : w_active_q;
    w_active_d = w_eff;
    // Sign-extend both operands to 32 bits: the low 32 bits of the product are the exact int8 x
    // int8 product, and the 32-bit add wraps like int32 (a column sums at most N * 2^14, so it
    // cannot overflow for N < 2^17).
    a_ext = {{24{a_i[7]}}, a_i};
    w_ext = {{24{w_eff[7]}}, w_eff};
    psum_d = psum_i + a_ext * w_ext;
  end

  // Weights and the swap tag are reset (an unloaded array multiplies by zero); the activation and
  // partial sum are data, qualified by the array's valid pipeline, and are not.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      w_shadow_q <= '0;
      w_active_q <= '0;
      swap_q <= 1'b0;
    end else begin
      w_shadow_q <= w_shadow_d;
      w_active_q <= w_active_d;
      swap_q <= swap_i;
    end
  end

  always_ff @(posedge clk_i) begin
    a_q <= a_i;
    psum_q <= psum_d;
  end

  assign a_o = a_q;
  assign swap_o = swap_q;
  assign psum_o = psum_q;

endmodule
