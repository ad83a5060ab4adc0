// Test wrapper: the matrix unit's bf16 arithmetic (rtl/tpu_fp_pkg.sv) on ports, for tests/rtl/fp_units_test.py
// through fp_units_harness.cc: the product of two bf16, the sum of two fp32, the PE's step x + a * b, and the
// READOUT's fp32 -> bf16 rounding of x (OUT_BF16).
module fp_units_wrap (
  input  logic [15:0] a_i,
  input  logic [15:0] b_i,
  input  logic [31:0] x_i,
  input  logic [31:0] y_i,
  output logic [31:0] mul_o,
  output logic [31:0] add_o,
  output logic [31:0] mac_o,
  output logic [15:0] cvt_o
);
  assign mul_o = tpu_fp_pkg::bf16_mul(a_i, b_i);
  assign add_o = tpu_fp_pkg::f32_add(x_i, y_i);
  assign mac_o = tpu_fp_pkg::f32_add(x_i, tpu_fp_pkg::bf16_mul(a_i, b_i));
  assign cvt_o = tpu_fp_pkg::f32_to_bf16(x_i);
endmodule
