// Test wrapper: the matrix unit's bf16 arithmetic (rtl/tpu_fp_pkg.sv) on ports, for tests/rtl/fp_units_test.py
// through fp_units_harness.cc: the product of two bf16, the sum of two fp32, and the PE's step x + a * b.
module fp_units_wrap (
  input  logic [15:0] a_i,
  input  logic [15:0] b_i,
  input  logic [31:0] x_i,
  input  logic [31:0] y_i,
  output logic [31:0] mul_o,
  output logic [31:0] add_o,
  output logic [31:0] mac_o
);
  assign mul_o = tpu_fp_pkg::bf16_mul(a_i, b_i);
  assign add_o = tpu_fp_pkg::f32_add(x_i, y_i);
  assign mac_o = tpu_fp_pkg::f32_add(x_i, tpu_fp_pkg::bf16_mul(a_i, b_i));
endmodule
