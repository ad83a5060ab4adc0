// Test wrapper: tpu_requant_pkg::requant (the matrix unit's int8 requantization) on ports, for
// tests/rtl/requant_test.cc.
module requant_wrap
  import tpu_regmap_pkg::MxuQuantShiftShiftWidth;
(
  input  logic [31:0]                        x_i,
  input  logic [31:0]                        mult_i,
  input  logic [MxuQuantShiftShiftWidth-1:0] shift_i,
  input  logic                               round_i,
  output logic [7:0]                         y_o
);
  assign y_o = tpu_requant_pkg::requant(x_i, mult_i, shift_i, round_i);
endmodule
