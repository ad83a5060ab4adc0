// The vector unit's fp32 arithmetic (docs/vector-unit.md): correctly rounded mul, div and sqrt on integer
// significands, the conversions, and exp/log/tanh/logistic as fixed sequences of those steps. The rules are the
// matrix unit's bf16 mode's (tpu_fp_pkg): denormals are zero on input; a result is IEEE binary32's (round to
// nearest, ties to even, overflow to +-inf), then a denormal result becomes a zero of its sign; every NaN result
// is 32'h7FC0_0000. tests/rtl/vpu_reference.py reproduces every function bit for bit and reads its constants from the
// `localparam logic [31:0]` lines below (keep that form).
package tpu_vpu_pkg;

  import tpu_fp_pkg::f32_add;
  import tpu_regmap_pkg::*;

  localparam logic [31:0] F32QNaN = 32'h7FC0_0000;
  localparam logic [31:0] One = 32'h3F80_0000;
  localparam logic [31:0] Two = 32'h4000_0000;

  // exp: 1/ln 2, ln 2 split in a 16-bit head (k * head is exact for |k| < 256) and the rest, the RNE shifter
  // 1.5 * 2^23, the inputs beyond which the result is +inf (x >= 89) or +0 (x <= -104), and 1/n! for n = 0..7.
  localparam logic [31:0] ExpInvLn2 = 32'h3FB8_AA3B;
  localparam logic [31:0] ExpLn2Hi = 32'h3F31_7200;
  localparam logic [31:0] ExpLn2Lo = 32'h35BF_BE8E;
  localparam logic [31:0] ExpShifter = 32'h4B40_0000;
  localparam logic [31:0] ExpHi = 32'h42B2_0000;
  localparam logic [31:0] ExpLo = 32'hC2D0_0000;
  localparam logic [31:0] ExpC0 = 32'h3F80_0000;
  localparam logic [31:0] ExpC1 = 32'h3F80_0000;
  localparam logic [31:0] ExpC2 = 32'h3F00_0000;
  localparam logic [31:0] ExpC3 = 32'h3E2A_AAAB;
  localparam logic [31:0] ExpC4 = 32'h3D2A_AAAB;
  localparam logic [31:0] ExpC5 = 32'h3C08_8889;
  localparam logic [31:0] ExpC6 = 32'h3AB6_0B61;
  localparam logic [31:0] ExpC7 = 32'h3950_0D01;
  // log: the mantissa bound sqrt(2) and the atanh series' odd coefficients 2/3, 2/5, 2/7, 2/9.
  localparam logic [31:0] LogSqrt2 = 32'h3FB5_04F3;
  localparam logic [31:0] LogC3 = 32'h3F2A_AAAB;
  localparam logic [31:0] LogC5 = 32'h3ECC_CCCD;
  localparam logic [31:0] LogC7 = 32'h3E92_4925;
  localparam logic [31:0] LogC9 = 32'h3E63_8E39;
  // tanh: below |x| = 0.625, x + x w P(w) with P fitted (least squares, relative error) to the odd terms 3..11.
  localparam logic [31:0] TanhSmall = 32'h3F20_0000;
  localparam logic [31:0] TanhC3 = 32'hBEAA_AA99;
  localparam logic [31:0] TanhC5 = 32'h3E08_836B;
  localparam logic [31:0] TanhC7 = 32'hBD5C_1991;
  localparam logic [31:0] TanhC9 = 32'h3CA8_F878;
  localparam logic [31:0] TanhC11 = 32'hBBBA_83D6;

  function automatic logic is_nan(logic [31:0] x);
    logic unused_sign;
    unused_sign = x[31];
    return x[30:23] == 8'hFF && x[22:0] != 23'h0;
  endfunction

  function automatic logic is_zero(logic [31:0] x);  // zero or denormal
    logic [23:0] unused_sign_mant;
    unused_sign_mant = {x[31], x[22:0]};
    return x[30:23] == 8'h00;
  endfunction

  // An operand as every arithmetic op reads it: denormals as zeros of their sign, NaNs canonical.
  function automatic logic [31:0] f32_in(logic [31:0] x);
    if (is_zero(x)) return {x[31], 31'h0};
    if (is_nan(x)) return F32QNaN;
    return x;
  endfunction

  // (-1)^s * {sig, guard, sticky} * 2^(e - 127 - 23), sig a 24-bit significand with its leading one at bit 23:
  // the IEEE binary32 result (round to nearest even; +-inf at e >= 255 after rounding), then a denormal result
  // flushed to a zero of its sign. Below the normal range IEEE rounds to the denormal grid (2^-149): of the
  // values there, only those at or above 2^-126 - 2^-150 (e = 0, sig all ones) round to the normal 2^-126.
  function automatic logic [31:0] f32_round_pack(logic s, logic signed [11:0] e, logic [23:0] sig, logic guard,
                                                 logic sticky);
    logic [24:0] r;
    logic signed [11:0] er;
    if (e == 12'sd0 && sig == 24'hFF_FFFF) return {s, 8'h01, 23'h0};
    r = {1'b0, sig} + 25'(guard && (sticky || sig[0]));
    er = e + 12'(r[24]);  // 1.11..1 rounded up to 10.00..0 (its mantissa field is zero either way)
    if (er >= 12'sd255) return {s, 8'hFF, 23'h0};
    if (er <= 12'sd0) return {s, 31'h0};
    return {s, er[7:0], r[24] ? r[23:1] : r[22:0]};
  endfunction

  // tpu_fp_pkg's add, kept as one function in the Verilated model (below) rather than copied into every caller.
  function automatic logic [31:0] f32_addv(logic [31:0] x, logic [31:0] y);
    /*verilator no_inline_task*/
    return f32_add(x, y);
  endfunction

  function automatic logic [31:0] f32_sub(logic [31:0] x, logic [31:0] y);
    return f32_addv(x, {~y[31], y[30:0]});
  endfunction

  // x * y: the 48-bit significand product, rounded once.
  function automatic logic [31:0] f32_mul(logic [31:0] x, logic [31:0] y);
    /*verilator no_inline_task*/
    logic s;
    logic [47:0] p;
    logic signed [11:0] e;
    s = x[31] ^ y[31];
    if (is_nan(x) || is_nan(y)) return F32QNaN;
    if (x[30:23] == 8'hFF) return is_zero(y) ? F32QNaN : {s, 8'hFF, 23'h0};
    if (y[30:23] == 8'hFF) return is_zero(x) ? F32QNaN : {s, 8'hFF, 23'h0};
    if (is_zero(x) || is_zero(y)) return {s, 31'h0};
    p = {24'h0, 1'b1, x[22:0]} * {24'h0, 1'b1, y[22:0]};  // in [2^46, 2^48)
    e = 12'(x[30:23]) + 12'(y[30:23]) - 12'sd127;
    if (p[47]) return f32_round_pack(s, e + 12'sd1, p[47:24], p[23], p[22:0] != 23'h0);
    return f32_round_pack(s, e, p[46:23], p[22], p[21:0] != 22'h0);
  endfunction

  // x / y: the quotient of the significands to 27 bits (integer division: the RTL's long divider), the remainder
  // as the sticky bit, rounded once.
  function automatic logic [31:0] f32_div(logic [31:0] x, logic [31:0] y);
    /*verilator no_inline_task*/
    logic s;
    logic [49:0] num, q, rem;
    logic [22:0] unused_q_hi;  // the quotient is below 2^27
    logic signed [11:0] e;
    s = x[31] ^ y[31];
    if (is_nan(x) || is_nan(y)) return F32QNaN;
    if (x[30:23] == 8'hFF) return y[30:23] == 8'hFF ? F32QNaN : {s, 8'hFF, 23'h0};
    if (y[30:23] == 8'hFF) return {s, 31'h0};
    if (is_zero(y)) return is_zero(x) ? F32QNaN : {s, 8'hFF, 23'h0};
    if (is_zero(x)) return {s, 31'h0};
    num = {1'b1, x[22:0], 26'h0};
    q = num / {26'h0, 1'b1, y[22:0]};  // in (2^25, 2^27)
    rem = num % {26'h0, 1'b1, y[22:0]};
    unused_q_hi = q[49:27];
    e = 12'(x[30:23]) - 12'(y[30:23]) + 12'sd127;
    if (q[26]) return f32_round_pack(s, e, q[26:3], q[2], q[1:0] != 2'h0 || rem != 50'h0);
    return f32_round_pack(s, e - 12'sd1, q[25:2], q[1], q[0] || rem != 50'h0);
  endfunction

  // sqrt(x): the integer square root (one bit per step, as a digit-recurrence unit) of the significand scaled to
  // an even exponent, 26 bits, the remainder as the sticky bit.
  function automatic logic [31:0] f32_sqrt(logic [31:0] x);
    /*verilator no_inline_task*/
    logic odd;
    logic [51:0] rad;
    logic [25:0] r, c;
    logic signed [11:0] ue, ue_even;
    if (is_nan(x)) return F32QNaN;
    if (is_zero(x)) return {x[31], 31'h0};
    if (x[31]) return F32QNaN;
    if (x[30:23] == 8'hFF) return x;
    ue = 12'(x[30:23]) - 12'sd127;
    odd = ue[0];
    ue_even = odd ? ue - 12'sd1 : ue;
    rad = {28'h0, 1'b1, x[22:0]} << (27 + 32'(odd));  // in [2^50, 2^52)
    r = 26'h0;
    for (int i = 25; i >= 0; i--) begin
      c = r | (26'h1 << i);
      if ({26'h0, c} * {26'h0, c} <= rad) r = c;
    end
    return f32_round_pack(1'b0, (ue_even >>> 1) + 12'sd127, r[25:2], r[1],
                          r[0] || {26'h0, r} * {26'h0, r} != rad);
  endfunction

  // Orders fp32 patterns as their values (-0 just below +0): unsigned compare of the keys.
  function automatic logic [31:0] f32_key(logic [31:0] x);
    return x[31] ? ~x : {1'b1, x[30:0]};
  endfunction

  function automatic logic [31:0] f32_max(logic [31:0] x, logic [31:0] y, logic want_min);
    logic [31:0] a, b;
    a = f32_in(x);
    b = f32_in(y);
    if (is_nan(a) || is_nan(b)) return F32QNaN;
    if (want_min) return f32_key(a) <= f32_key(b) ? a : b;
    return f32_key(a) >= f32_key(b) ? a : b;
  endfunction

  // Compare: 0 eq, 1 lt, 2 le; false when either side is NaN, +0 == -0, denormals read as zeros.
  function automatic logic f32_cmp(logic [31:0] x, logic [31:0] y, logic [1:0] which);
    logic [31:0] a, b;
    logic zeros, eq, lt;
    a = f32_in(x);
    b = f32_in(y);
    zeros = is_zero(a) && is_zero(b);
    eq = a == b || zeros;
    lt = f32_key(a) < f32_key(b) && !zeros;
    if (is_nan(a) || is_nan(b)) return 1'b0;
    unique case (which)
      2'd0: return eq;
      2'd1: return lt;
      default: return eq || lt;
    endcase
  endfunction

  function automatic logic [31:0] f32_to_bf16(logic [31:0] x);
    logic [31:0] a, r;
    a = f32_in(x);
    if (is_nan(a)) return 32'h0000_7FC0;
    r = (a + 32'h0000_7FFF + 32'(a[16])) >> 16;  // a carry out of the mantissa lands in the exponent (inf at the top)
    return r;
  endfunction

  // Truncation toward zero, saturating (XLA's convert): NaN -> 0, |x| >= 2^31 -> the limit of its sign.
  function automatic logic [31:0] f32_to_s32(logic [31:0] x);
    logic [31:0] a, mag;
    logic signed [11:0] ue;
    a = f32_in(x);
    ue = 12'(a[30:23]) - 12'sd127;
    if (is_nan(a) || ue < 12'sd0) return 32'h0;
    if (ue >= 12'sd31) return a[31] ? 32'h8000_0000 : 32'h7FFF_FFFF;
    mag = 32'(({40'h0, 1'b1, a[22:0]} << ue[4:0]) >> 23);
    return a[31] ? -mag : mag;
  endfunction

  function automatic logic [31:0] s32_to_f32(logic [31:0] v);
    /*verilator no_inline_task*/
    logic s;
    logic [31:0] mag, norm;
    logic [4:0] lz;
    s = v[31];
    mag = s ? -v : v;  // -2^31 stays 2^31 as an unsigned magnitude
    if (mag == 32'h0) return 32'h0;
    lz = 5'd0;
    for (int i = 0; i < 32; i++) begin
      if (mag[i]) lz = 5'(31 - i);  // the highest set bit assigns last
    end
    norm = mag << lz;
    return f32_round_pack(s, 12'sd158 - 12'(lz), norm[31:8], norm[7], norm[6:0] != 7'h0);
  endfunction

  function automatic logic [31:0] f32_to_s8(logic [31:0] x);
    logic [31:0] v;
    v = f32_to_s32(x);
    if ($signed(v) > 32'sd127) return 32'h0000_007F;
    if ($signed(v) < -32'sd128) return 32'hFFFF_FF80;
    return v;
  endfunction

  function automatic logic [31:0] f32_neg(logic [31:0] x, logic abs_only);
    logic [31:0] a;
    a = f32_in(x);
    if (is_nan(a)) return a;
    return {abs_only ? 1'b0 : ~a[31], a[30:0]};
  endfunction

  // exp(x) = p(r) 2^k (docs/vector-unit.md "Transcendentals"): k = RNE(x / ln 2) by the shifter, r = x - k ln 2
  // in two exact-head steps, p the degree-7 Taylor polynomial by Horner, 2^k added to p's exponent field.
  function automatic logic [31:0] f32_exp(logic [31:0] x_raw);
    /*verilator no_inline_task*/
    logic [31:0] x, t, s, kf, r, p;
    logic signed [11:0] k, e;
    x = f32_in(x_raw);
    if (is_nan(x)) return F32QNaN;
    if (!x[31] && f32_key(x) >= f32_key(ExpHi)) return 32'h7F80_0000;
    if (x[31] && f32_key(x) <= f32_key(ExpLo)) return 32'h0;
    t = f32_mul(x, ExpInvLn2);
    s = f32_addv(t, ExpShifter);
    kf = f32_sub(s, ExpShifter);
    k = 12'(s[22:0]) - 12'(ExpShifter[22:0]);  // s and the shifter share an exponent: |k| < 2^11
    r = f32_sub(f32_sub(x, f32_mul(kf, ExpLn2Hi)), f32_mul(kf, ExpLn2Lo));
    p = ExpC7;
    p = f32_addv(f32_mul(p, r), ExpC6);
    p = f32_addv(f32_mul(p, r), ExpC5);
    p = f32_addv(f32_mul(p, r), ExpC4);
    p = f32_addv(f32_mul(p, r), ExpC3);
    p = f32_addv(f32_mul(p, r), ExpC2);
    p = f32_addv(f32_mul(p, r), ExpC1);
    p = f32_addv(f32_mul(p, r), ExpC0);
    e = 12'(p[30:23]) + k;
    if (e >= 12'sd255) return 32'h7F80_0000;
    if (e <= 12'sd0) return 32'h0;
    return {p[31], e[7:0], p[22:0]};
  endfunction

  // log(x) = e ln 2 + log(m), m in [sqrt(1/2), sqrt(2)); log(m) = 2s + s (w R(w)), s = f / (f + 2), f = m - 1.
  function automatic logic [31:0] f32_log(logic [31:0] x_raw);
    /*verilator no_inline_task*/
    logic [31:0] x, m, f, s, w, rr, logm, ef;
    logic signed [11:0] e;
    x = f32_in(x_raw);
    if (is_nan(x)) return F32QNaN;
    if (is_zero(x)) return 32'hFF80_0000;
    if (x[31]) return F32QNaN;
    if (x == 32'h7F80_0000) return x;
    e = 12'(x[30:23]) - 12'sd127;
    m = {9'h07F, x[22:0]};  // the mantissa as a value in [1, 2)
    if (m > LogSqrt2) begin
      m = {9'h07E, x[22:0]};  // halved
      e = e + 12'sd1;
    end
    f = f32_sub(m, One);
    s = f32_div(f, f32_addv(f, Two));
    w = f32_mul(s, s);
    rr = LogC9;
    rr = f32_addv(f32_mul(rr, w), LogC7);
    rr = f32_addv(f32_mul(rr, w), LogC5);
    rr = f32_addv(f32_mul(rr, w), LogC3);
    logm = f32_addv(f32_mul(s, Two), f32_mul(s, f32_mul(w, rr)));
    ef = s32_to_f32(32'(e));
    return f32_addv(f32_mul(ef, ExpLn2Hi), f32_addv(logm, f32_mul(ef, ExpLn2Lo)));
  endfunction

  // The argument each exp-based op hands the lane's one exp unit: tanh needs exp(2|x|), logistic exp(-x).
  function automatic logic [31:0] f32_tanh_exp_arg(logic [30:0] x_abs);
    return f32_mul({1'b0, x_abs}, Two);
  endfunction

  // tanh(x) given e2 = exp(2|x|): below |x| = 0.625, x + x (w P(w)), w = x x; above,
  // sign(x) (1 - 2 / (e2 + 1)).
  function automatic logic [31:0] f32_tanh(logic [31:0] x_raw, logic [31:0] e2);
    logic [31:0] x, w, p, big;
    x = f32_in(x_raw);
    if (is_nan(x)) return F32QNaN;
    if ({1'b0, x[30:0]} < TanhSmall) begin
      w = f32_mul(x, x);
      p = TanhC11;
      p = f32_addv(f32_mul(p, w), TanhC9);
      p = f32_addv(f32_mul(p, w), TanhC7);
      p = f32_addv(f32_mul(p, w), TanhC5);
      p = f32_addv(f32_mul(p, w), TanhC3);
      return f32_addv(x, f32_mul(x, f32_mul(w, p)));
    end
    big = f32_sub(One, f32_div(Two, f32_addv(e2, One)));
    return {x[31] | big[31], big[30:0]};
  endfunction

  // logistic(x) = 1 / (1 + e), given e = exp(-x).
  function automatic logic [31:0] f32_logistic(logic [31:0] e);
    return f32_div(One, f32_addv(One, e));
  endfunction

  // The op codes the unit knows (rtl/regmap.json's VPU_OP): the unit refuses others, the engine checks them first.
  function automatic logic op_legal(logic [5:0] op);
    unique case (op)
      6'(VpuOpAdd), 6'(VpuOpSub), 6'(VpuOpMul), 6'(VpuOpDiv), 6'(VpuOpMax), 6'(VpuOpMin), 6'(VpuOpCmpEq),
      6'(VpuOpCmpLt), 6'(VpuOpCmpLe), 6'(VpuOpSelect), 6'(VpuOpNeg), 6'(VpuOpAbs), 6'(VpuOpExp), 6'(VpuOpLog),
      6'(VpuOpTanh), 6'(VpuOpLogistic), 6'(VpuOpRsqrt), 6'(VpuOpSqrt), 6'(VpuOpRecip), 6'(VpuOpF32ToBf16),
      6'(VpuOpBf16ToF32), 6'(VpuOpF32ToS32), 6'(VpuOpS32ToF32), 6'(VpuOpF32ToS8), 6'(VpuOpS8ToF32),
      6'(VpuOpRowSum), 6'(VpuOpRowMax), 6'(VpuOpAccSum), 6'(VpuOpAccMax): return 1'b1;
      default: return 1'b0;
    endcase
  endfunction

  // Ops that read b (the binary codes sit below NEG).
  function automatic logic op_binary(logic [5:0] op);
    return op < 6'(VpuOpNeg);
  endfunction

endpackage
