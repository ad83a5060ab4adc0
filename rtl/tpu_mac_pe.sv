// Processing element of the weight-stationary systolic array: one int8 x int8 -> int32 MAC with
// a double-buffered weight. The PE holds two weight banks; one is active, the other (the shadow)
// is written from the column's weight bus while the active one is in use. Which bank an
// activation uses comes from the array's swap wave (bank_i): a swap flips it for that activation
// and every later one, so the swap sweeps the array as a wavefront (no global drain) and no
// weight is ever copied. Activations pass right and partial sums pass down, one register each.
//
// The activation and both weights are int8 values held sign-extended to 32 bits (a_i, a_o and
// the three registers are 32 bits wide; bits 31:8 always equal bit 7). This is for simulation
// speed: Verilator has no cheap sign extension (the C++ it emits for {{24{x[7]}}, x} or
// $signed(x) is 4 to 6 instructions, which the compiler does not fold into one), and extending
// the multiply's two 8-bit operands in every PE every cycle was about a third of the mesh's
// instructions. Held extended, the MAC is a compare, a conditional move (the bank select), a
// multiply, an add and a store (docs/simulation-speed.md). In hardware it costs nothing: every
// upper bit's flop has the same data, enable, clock and reset as the bit-7 flop beside it (or the
// same as the upper bits of the neighbour feeding it), so synthesis merges them into one; the PE
// keeps 8 + 8 + 8 + 32 = 56 distinct flops. The array extends the activation once per row where
// it enters the mesh; the weight is extended when a bank is written.
//
// bf16 mode (fp_i, the mode of the activation arriving now, from the array's mode wave): the activation and the
// weight are bf16 values in the low 16 bits (the array sign-extends those 16 bits, so an int8 held that way is
// unchanged), and the PE computes psum_i + a * w in fp32: the exact product, then one add with round to nearest
// even (tpu_fp_pkg; denormals zero, canonical NaN). Both in the one cycle the int8 MAC takes: the model keeps the
// array's timing in either mode (docs/matrix-unit.md, "bf16 mode"). With 16 significant bits per operand the
// hardware PE keeps 16 + 16 + 16 + 32 flops.
module tpu_mac_pe (
  input  logic        clk_i,
  input  logic        clk_w_i,  // the weight banks' clock: gated, running only for weight writes
  input  logic        rst_ni,
  // Weight load: the bank not in use (!bank_i) <= w_i at the end of a cycle with w_we_i.
  input  logic        w_we_i,
  input  logic [15:0] w_i,  // int8 sign-extended to 16 bits, or bf16
  // The weight bank of the activation arriving now (its anti-diagonal's, from the array).
  input  logic        bank_i,
  // The arriving activation is bf16 (its anti-diagonal's mode, from the array).
  input  logic        fp_i,
  // From the left neighbour (or the skew line): activation (16 bits sign-extended to 32),
  // forwarded a cycle later.
  input  logic [31:0] a_i,
  output logic [31:0] a_o,
  // From the neighbour above (0 in the top row): partial sum, forwarded with a_i * weight added.
  input  logic [31:0] psum_i,
  output logic [31:0] psum_o
);

  logic [31:0] w0_q, w1_q, a_q;  // 16 bits, sign-extended (see the header)
  logic [31:0] psum_q;

  // Next-state expressions are written inside the always_ff blocks, not as _d signals from an
  // always_comb (a deliberate exception to the _d/_q style): the model is built with tracing, so
  // every named combinational signal is kept in memory, and the mesh would pay stores and loads
  // per PE per cycle for them. Here each register is written once, straight from its neighbours'.
  //
  // The weights are reset (an unloaded array multiplies by zero); the activation and partial sum
  // are data, qualified by the array's valid pipeline, and are not.
  always_ff @(posedge clk_w_i or negedge rst_ni) begin
    if (!rst_ni) begin
      w0_q <= '0;
      w1_q <= '0;
    end else if (w_we_i) begin
      // The shadow is the bank this cycle's activation does not use: after a swap in this same
      // cycle, the one that was active until now.
      if (bank_i) w0_q <= {{16{w_i[15]}}, w_i};
      else w1_q <= {{16{w_i[15]}}, w_i};
    end
  end

  // Both operands are int8 sign-extended to 32 bits: the low 32 bits of their product are the
  // exact int8 x int8 product, and the 32-bit add wraps like int32 (a column sums at most
  // N * 2^14, so it cannot overflow for N < 2^17). In bf16 mode the low 16 bits are the bf16 operands.
  //
  // The bf16 branch has two statements on purpose: as one assignment like the int8 branch's, Verilator merges the
  // if into `psum_q <= fp_i ? fp32 : int8` before it inlines the functions, and then evaluates the whole fp32
  // step in every PE every cycle, int8 rows included (the chip's int8 GEMMs ran at a quarter of their speed).
  always_ff @(posedge clk_i) begin : step
    logic [31:0] fp_sum;
    a_q <= a_i;
    if (fp_i) begin
      fp_sum = tpu_fp_pkg::f32_add(psum_i, tpu_fp_pkg::bf16_mul(a_i[15:0], bank_i ? w1_q[15:0] : w0_q[15:0]));
      psum_q <= fp_sum;
    end else begin
      psum_q <= psum_i + a_i * (bank_i ? w1_q : w0_q);
    end
  end

  assign a_o = a_q;
  assign psum_o = psum_q;

endmodule
