// One lane of the vector unit (tpu_vpu): the elementwise result of op on fp32 a, b (and the select mask bit),
// combinational. The lane has one exp unit, shared by exp, tanh (exp(2|a|)) and logistic (exp(-a)).
// Arithmetic and its rules: rtl/tpu_vpu_pkg.sv; op codes: rtl/regmap.json (VPU_OP).
module tpu_vpu_lane
  import tpu_regmap_pkg::*;
  import tpu_vpu_pkg::*;
(
  input  logic [5:0]  op_i,
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  input  logic        sel_i,   // SELECT: take a
  output logic [31:0] r_o,
  output logic        mask_o   // CMP_*: the comparison's truth
);
  // One Verilated class for all lanes (not a copy of this logic per lane in the parent): Lanes times less code.
  /* verilator no_inline_module */

  logic [31:0] exp_r;

  // The exp unit works only for the ops that use it (operand isolation: in silicon its inputs would hold still;
  // in the Verilated model the other ops skip its evaluation).
  always_comb begin
    unique case (op_i)
      6'(VpuOpExp): exp_r = f32_exp(a_i);
      6'(VpuOpTanh): exp_r = f32_exp(f32_tanh_exp_arg(a_i[30:0]));
      6'(VpuOpLogistic): exp_r = f32_exp(f32_neg(a_i, 1'b0));
      default: exp_r = 32'h0;
    endcase
  end

  always_comb begin
    r_o = 32'h0;
    mask_o = 1'b0;
    unique case (op_i)
      6'(VpuOpAdd): r_o = f32_addv(a_i, b_i);
      6'(VpuOpSub): r_o = f32_sub(a_i, b_i);
      6'(VpuOpMul): r_o = f32_mul(a_i, b_i);
      6'(VpuOpDiv): r_o = f32_div(a_i, b_i);
      6'(VpuOpMax): r_o = f32_max(a_i, b_i, 1'b0);
      6'(VpuOpMin): r_o = f32_max(a_i, b_i, 1'b1);
      6'(VpuOpCmpEq), 6'(VpuOpCmpLt), 6'(VpuOpCmpLe): begin
        mask_o = f32_cmp(a_i, b_i, op_i == 6'(VpuOpCmpEq) ? 2'd0 : op_i == 6'(VpuOpCmpLt) ? 2'd1 : 2'd2);
        r_o = mask_o ? One : 32'h0;
      end
      6'(VpuOpSelect): r_o = sel_i ? a_i : b_i;
      6'(VpuOpNeg): r_o = f32_neg(a_i, 1'b0);
      6'(VpuOpAbs): r_o = f32_neg(a_i, 1'b1);
      6'(VpuOpExp): r_o = exp_r;
      6'(VpuOpLog): r_o = f32_log(a_i);
      6'(VpuOpTanh): r_o = f32_tanh(a_i, exp_r);
      6'(VpuOpLogistic): r_o = f32_logistic(exp_r);
      6'(VpuOpRsqrt): r_o = f32_div(One, f32_sqrt(a_i));
      6'(VpuOpSqrt): r_o = f32_sqrt(a_i);
      6'(VpuOpRecip): r_o = f32_div(One, a_i);
      6'(VpuOpF32ToBf16): r_o = f32_to_bf16(a_i);
      6'(VpuOpBf16ToF32): r_o = f32_in({a_i[15:0], 16'h0});
      6'(VpuOpF32ToS32): r_o = f32_to_s32(a_i);
      6'(VpuOpS32ToF32): r_o = s32_to_f32(a_i);
      6'(VpuOpF32ToS8): r_o = f32_to_s8(a_i);
      6'(VpuOpS8ToF32): r_o = s32_to_f32({{24{a_i[7]}}, a_i[7:0]});
      default: r_o = a_i;  // the reductions take the row as it is (tpu_vpu's last stage reduces it)
    endcase
  end

endmodule
