// The matrix unit's requantization of one int32 result to int8 (MXU command flag INT8):
// sat8((x * mult [+ 2^(shift-1) when rounding]) >>> shift), as host/reference/strata/reference_gemm.h's
// Requantize states it. A package of its own so that its unit test (tests/rtl/requant_test.cc) checks the
// very function tpu_mxu's readout uses.
package tpu_requant_pkg;
  import tpu_regmap_pkg::MxuQuantShiftShiftWidth;

  // In 64 bits: the product is exact there (|x * mult| <= 2^62), and the rounding term is added after the
  // shift as the product's bit shift-1 (floor((p + 2^(s-1)) / 2^s) = floor(p / 2^s) + p[s-1]), where it
  // cannot overflow (shift 63 with rounding would, before the shift). The same values as a 66-bit sum, in
  // machine words: a simulator does no wide arithmetic for it (docs/simulation-speed.md, "The readout's
  // requantization in 64 bits").
  function automatic logic [7:0] requant(logic [31:0] x, logic [31:0] mult, logic [MxuQuantShiftShiftWidth-1:0] shift,
                                         logic round);
    logic signed [63:0] p;
    logic signed [63:0] y;
    p = $signed({{32{x[31]}}, x}) * $signed({{32{mult[31]}}, mult});
    y = p >>> shift;
    if (round && shift != '0) y = y + $signed({63'b0, p[shift-1'b1]});
    if (y > 64'sd127) return 8'h7f;
    if (y < -64'sd128) return 8'h80;
    return y[7:0];
  endfunction

endpackage
