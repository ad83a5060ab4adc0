// The matrix unit's bf16 arithmetic (docs/matrix-unit.md, "bf16 mode"): the exact bf16 x bf16 -> fp32 product and
// the fp32 add with round-to-nearest-even that each processing element applies in bf16 mode. Both are
// combinational. Denormals are zero on input and flushed to a zero of their sign on output (a TPU has no
// subnormals); every NaN result is the canonical quiet NaN 32'h7FC0_0000; overflow gives +-inf. The NumPy
// reference of the same rules is tests/rtl/bf16_reference.py; tests/rtl/fp_units_test.py checks these functions
// against it bit for bit.
package tpu_fp_pkg;

  localparam logic [31:0] F32QNaN = 32'h7FC0_0000;

  // a x b, both bf16 (sign, 8 exponent bits, 7 mantissa bits). The 8 x 8 significand product has at most 16 bits,
  // so it fits fp32's 24 without rounding: only the exponent range can be left (|p| >= 2^128: inf; |p| < 2^-126:
  // a zero of the product's sign).
  function automatic logic [31:0] bf16_mul(logic [15:0] a, logic [15:0] b);
    logic        s, a_zero, b_zero, a_inf, b_inf, a_nan, b_nan;
    logic [15:0] sig;
    logic [22:0] mant;
    logic [9:0]  e;  // biased exponent of the product, two's complement (-126 .. 382 before the range checks)
    s = a[15] ^ b[15];
    a_zero = a[14:7] == 8'h00;  // zero or denormal
    b_zero = b[14:7] == 8'h00;
    a_inf = a[14:7] == 8'hFF && a[6:0] == 7'h00;
    b_inf = b[14:7] == 8'hFF && b[6:0] == 7'h00;
    a_nan = a[14:7] == 8'hFF && a[6:0] != 7'h00;
    b_nan = b[14:7] == 8'hFF && b[6:0] != 7'h00;
    sig = {8'h00, 1'b1, a[6:0]} * {8'h00, 1'b1, b[6:0]};  // in [2^14, 2^16)
    e = 10'(a[14:7]) + 10'(b[14:7]) - 10'd127 + 10'(sig[15]);
    mant = sig[15] ? {sig[14:0], 8'h00} : {sig[13:0], 9'h000};
    if (a_nan || b_nan || (a_inf && b_zero) || (b_inf && a_zero)) return F32QNaN;
    if (a_inf || b_inf) return {s, 8'hFF, 23'h0};
    if (a_zero || b_zero) return {s, 31'h0};
    if ($signed(e) >= $signed(10'd255)) return {s, 8'hFF, 23'h0};
    if ($signed(e) <= $signed(10'd0)) return {s, 31'h0};
    return {s, e[7:0], mant};
  endfunction

  // x + y, both fp32, rounded to nearest, ties to even. The larger magnitude's significand and the smaller's,
  // aligned to it, are added with three extra bits below the last place (guard, round, and a sticky bit that
  // ORs everything shifted out): enough for a correctly rounded sum whichever way the result normalizes.
  function automatic logic [31:0] f32_add(logic [31:0] x, logic [31:0] y);
    logic        x_zero, y_zero, x_inf, y_inf, x_nan, y_nan, swap, s, sub;
    logic [31:0] op_hi;  // the operand of larger magnitude
    logic [30:0] op_lo;  // the other one's magnitude
    logic [7:0]  d;
    logic [26:0] m_hi, m_lo;  // 24-bit significand, then guard, round, sticky
    logic [53:0] wide;
    logic [27:0] sum;
    logic [26:0] norm;
    logic [4:0]  lz;
    logic [24:0] rounded;
    logic [22:0] mant;
    logic [9:0]  e;  // biased result exponent, two's complement
    x_zero = x[30:23] == 8'h00;  // zero or denormal
    y_zero = y[30:23] == 8'h00;
    x_inf = x[30:23] == 8'hFF && x[22:0] == 23'h0;
    y_inf = y[30:23] == 8'hFF && y[22:0] == 23'h0;
    x_nan = x[30:23] == 8'hFF && x[22:0] != 23'h0;
    y_nan = y[30:23] == 8'hFF && y[22:0] != 23'h0;
    if (x_nan || y_nan || (x_inf && y_inf && x[31] != y[31])) return F32QNaN;
    if (x_inf) return x;
    if (y_inf) return y;
    if (x_zero && y_zero) return {x[31] & y[31], 31'h0};
    if (y_zero) return x;
    if (x_zero) return y;
    swap = y[30:0] > x[30:0];  // order by magnitude: exponent and mantissa compare as one unsigned field
    op_hi = swap ? y : x;
    op_lo = swap ? x[30:0] : y[30:0];
    s = op_hi[31];
    sub = x[31] != y[31];
    d = op_hi[30:23] - op_lo[30:23];
    m_hi = {1'b1, op_hi[22:0], 3'b000};
    wide = {1'b1, op_lo[22:0], 3'b000, 27'h0} >> (d > 8'd27 ? 8'd27 : d);
    m_lo = {wide[53:28], wide[27] | (wide[26:0] != 27'h0)};
    sum = sub ? {1'b0, m_hi} - {1'b0, m_lo} : {1'b0, m_hi} + {1'b0, m_lo};
    if (sum == 28'h0) return 32'h0;  // exact cancellation: +0 under round to nearest
    e = 10'(op_hi[30:23]);
    if (sum[27]) begin
      norm = {sum[27:2], sum[1] | sum[0]};
      e = e + 10'd1;
    end else begin
      lz = 5'd0;
      for (int i = 0; i <= 26; i++) begin
        if (sum[i]) lz = 5'(26 - i);  // the highest set bit assigns last
      end
      norm = sum[26:0] << lz;
      e = e - 10'(lz);
    end
    rounded = {1'b0, norm[26:3]} + 25'(norm[2] && (norm[1] || norm[0] || norm[3]));
    // 1.11..1 rounded up to 10.00..0: one more shift (the mantissa field is zero either way).
    mant = rounded[24] ? rounded[23:1] : rounded[22:0];
    e = e + 10'(rounded[24]);
    if ($signed(e) >= $signed(10'd255)) return {s, 8'hFF, 23'h0};
    if ($signed(e) <= $signed(10'd0)) return {s, 31'h0};
    return {s, e[7:0], mant};
  endfunction

  // fp32 -> bf16 with round to nearest, ties to even (the READOUT's OUT_BF16; bf16_reference.F32ToBf16): a denormal
  // input reads as a zero of its sign, a carry out of the largest finite values gives +-inf, and a NaN becomes the
  // canonical 16'h7FC0.
  function automatic logic [15:0] f32_to_bf16(logic [31:0] x);
    if (x[30:23] == 8'hFF && x[22:0] != '0) return 16'h7FC0;
    if (x[30:23] == 8'h00) return {x[31], 15'h0};
    // No carry out of bit 31: the largest non-NaN pattern, 32'hFF80_0000, is far below 2^32 - 2^15.
    return 16'((x + 32'h7FFF + 32'(x[16])) >> 16);
  endfunction

endpackage
