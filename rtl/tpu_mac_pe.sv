// Processing element of the weight-stationary systolic array: one int8 x int8 -> int32 MAC with
// a double-buffered weight. The shadow weight is written from the column's weight bus while the
// active weight is in use; a swap tag travelling with the activation makes the shadow weight
// active for that activation and every later one, so the swap sweeps the array as a wavefront
// (no global drain). Activations pass right and partial sums pass down, one register each.
//
// The activation and both weights are int8 values held sign-extended to 32 bits (a_i, a_o and
// the three registers are 32 bits wide; bits 31:8 always equal bit 7). This is for simulation
// speed: Verilator has no cheap sign extension (the C++ it emits for {{24{x[7]}}, x} or
// $signed(x) is 4 to 6 instructions, which the compiler does not fold into one), and extending
// the multiply's two 8-bit operands in every PE every cycle was about a third of the mesh's
// instructions. Held extended, the MAC is a compare, a conditional move (the weight select, a
// branch before), a multiply, an add and a store: the array alone (N = 16, new rows and weights
// every cycle, callgrind) went from 40 to 25 host instructions per PE per cycle, a 256^3 GEMM on
// the whole chip from 14.9 k to 12.1 k per cycle, and a 1024^3 GEMM's time by about 5%, with the
// same cycles and results (docs/simulation-speed.md). In hardware it costs nothing: every upper bit's
// flop has the same data, enable, clock and reset as the bit-7 flop beside it (or the same as
// the upper bits of the neighbour feeding it), so synthesis merges them into one; the PE keeps
// 8 + 8 + 8 + 1 + 32 = 57 distinct flops. The array extends the activation once per row where it
// enters the mesh; the weight is extended when the shadow register is written.
module tpu_mac_pe (
  input  logic        clk_i,
  input  logic        rst_ni,
  // Weight load: shadow weight <= w_i at the end of a cycle with w_we_i.
  input  logic        w_we_i,
  input  logic [7:0]  w_i,
  // From the left neighbour (or the skew line): activation (int8, sign-extended to 32 bits) and
  // swap tag, forwarded a cycle later.
  input  logic [31:0] a_i,
  input  logic        swap_i,
  output logic [31:0] a_o,
  output logic        swap_o,
  // From the neighbour above (0 in the top row): partial sum, forwarded with a_i * weight added.
  input  logic [31:0] psum_i,
  output logic [31:0] psum_o
);

  logic [31:0] w_shadow_q, w_active_q, a_q;  // int8, sign-extended (see the header)
  logic        swap_q;
  logic [31:0] psum_q;

  // Next-state expressions are written inside the always_ff blocks, not as _d signals from an
  // always_comb (a deliberate exception to the _d/_q style): the model is built with tracing, so
  // every named combinational signal is kept in memory, and the mesh would pay six stores and
  // loads per PE per cycle for them (about a third of the simulation time at N = 16). Here each
  // register is written once, straight from its neighbours' registers.
  //
  // Weights and the swap tag are reset (an unloaded array multiplies by zero); the activation and
  // partial sum are data, qualified by the array's valid pipeline, and are not.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      w_shadow_q <= '0;
      w_active_q <= '0;
      swap_q <= 1'b0;
    end else begin
      if (w_we_i) w_shadow_q <= {{24{w_i[7]}}, w_i};
      // The swap takes effect for the activation it travels with (see psum_q below).
      if (swap_i) w_active_q <= w_shadow_q;
      swap_q <= swap_i;
    end
  end

  // Both operands are int8 sign-extended to 32 bits: the low 32 bits of their product are the
  // exact int8 x int8 product, and the 32-bit add wraps like int32 (a column sums at most
  // N * 2^14, so it cannot overflow for N < 2^17). The weight is the shadow one when the swap
  // arrives with a_i.
  always_ff @(posedge clk_i) begin
    a_q <= a_i;
    psum_q <= psum_i + a_i * (swap_i ? w_shadow_q : w_active_q);
  end

  assign a_o = a_q;
  assign swap_o = swap_q;
  assign psum_o = psum_q;

endmodule
