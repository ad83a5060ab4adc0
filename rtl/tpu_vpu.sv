// Vector unit: Lanes fp32 lanes, one row (Lanes x 32 bits) in and one row out per cycle when unstalled, three
// pipeline stages (docs/vector-unit.md):
//   stage 1  the row is checked (op and broadcast legal) and its b operand formed: as given (VPU_BCAST_NONE), or
//            the command's first b row (ROW) or that row's lane 0 in every lane (SCALAR), latched at the row
//            marked first;
//   stage 2  every lane computes its elementwise result (tpu_vpu_lane: arithmetic, compare, select, convert,
//            exp/log/tanh/logistic/rsqrt/sqrt/reciprocal);
//   stage 3  ROW_SUM / ROW_MAX fold the row by a pairwise tree (level by level: v[i] = v[2i] op v[2i+1]) into
//            every lane; ACC_SUM / ACC_MAX fold it into the running accumulator row (reset to -0 / -inf at the
//            command's first row), which is the output; other ops pass.
// A row accepted at a rising edge is on the outputs after the second edge after it: out_valid_o can be taken
// at the third. A row with an unknown op, an unknown broadcast mode, or a broadcast on an op without a b operand
// goes through with err set and write clear (the integration writes nothing for it), and its command (first ..
// last) counts once in err_count_o. Commands are rows from first to last; the caller keeps them whole.
`include "tpu_assert.svh"

module tpu_vpu
  import tpu_regmap_pkg::*;
#(
  parameter int unsigned Lanes = 16
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  // One row per handshake.
  input  logic                  in_valid_i,
  output logic                  in_ready_o,
  input  logic [5:0]            in_op_i,      // VPU_OP
  input  logic [1:0]            in_bcast_i,   // VPU_BCAST
  input  logic                  in_first_i,   // the command's first row (latches a broadcast b, resets ACC_*)
  input  logic                  in_last_i,    // the command's last row
  input  logic [Lanes*32-1:0]   in_a_i,
  input  logic [Lanes*32-1:0]   in_b_i,
  input  logic [Lanes-1:0]      in_mask_i,    // SELECT: lane l takes a where bit l is set
  // One result row per handshake, in order.
  output logic                  out_valid_o,
  input  logic                  out_ready_i,
  output logic [Lanes*32-1:0]   out_data_o,
  output logic [Lanes-1:0]      out_mask_o,   // CMP_*: lane l's comparison; 0 for other ops
  output logic                  out_err_o,    // the row was refused (its op or broadcast mode)
  output logic                  out_write_o,  // the row is to be written (!err)
  output logic                  out_last_o,
  output logic [31:0]           err_count_o   // illegal commands so far
);

  localparam int unsigned Levels = $clog2(Lanes);

  // ---------------------------------------------------------------- handshake: the pipeline moves as a whole
  logic adv;
  logic s1_valid_q, s2_valid_q, out_valid_q;
  assign adv = !out_valid_q || out_ready_i;
  assign in_ready_o = adv;

  // ---------------------------------------------------------------- stage 1: check, broadcast
  logic                 in_err;
  logic [Lanes*32-1:0]  bcast_row_d, bcast_row_q, b_row;
  logic [31:0]          b_scalar;
  logic                 in_cmd_d, in_cmd_q;  // inside a command: a row without first may come
  logic [5:0]           s1_op_q;
  logic                 s1_err_q, s1_first_q, s1_last_q;
  logic [Lanes*32-1:0]  s1_a_q, s1_b_q, s1_b_d;
  logic [Lanes-1:0]     s1_mask_q;

  assign in_err = !tpu_vpu_pkg::op_legal(in_op_i) || in_bcast_i > 2'(VpuBcastRow) ||
                  (in_bcast_i != 2'(VpuBcastNone) && !tpu_vpu_pkg::op_binary(in_op_i));
  assign b_row = in_first_i ? in_b_i : bcast_row_q;
  assign b_scalar = b_row[31:0];
  always_comb begin
    s1_b_d = in_b_i;
    if (in_bcast_i == 2'(VpuBcastRow)) s1_b_d = b_row;
    if (in_bcast_i == 2'(VpuBcastScalar)) s1_b_d = {Lanes{b_scalar}};
    in_cmd_d = in_cmd_q;
    bcast_row_d = bcast_row_q;
    if (in_valid_i && adv) begin
      in_cmd_d = !in_last_i;
      if (in_first_i) bcast_row_d = in_b_i;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_valid_q <= 1'b0;
      in_cmd_q <= 1'b0;
    end else begin
      in_cmd_q <= in_cmd_d;
      if (adv) s1_valid_q <= in_valid_i;
    end
  end

  always_ff @(posedge clk_i) begin
    if (adv && in_valid_i) begin
      s1_op_q <= in_op_i;
      s1_err_q <= in_err;
      s1_first_q <= in_first_i;
      s1_last_q <= in_last_i;
      s1_a_q <= in_a_i;
      s1_b_q <= s1_b_d;
      s1_mask_q <= in_mask_i;
    end
    bcast_row_q <= bcast_row_d;
  end

  // ---------------------------------------------------------------- stage 2: the lanes
  logic [Lanes*32-1:0]  lane_r;
  logic [Lanes-1:0]     lane_mask;
  logic [5:0]           s2_op_q;
  logic                 s2_err_q, s2_first_q, s2_last_q;
  logic [Lanes*32-1:0]  s2_r_d, s2_r_q;
  logic [Lanes-1:0]     s2_mask_d, s2_mask_q;

  for (genvar l = 0; l < Lanes; l++) begin : gen_lane
    tpu_vpu_lane u_lane (
      .op_i  (s1_op_q),
      .a_i   (s1_a_q[l*32 +: 32]),
      .b_i   (s1_b_q[l*32 +: 32]),
      .sel_i (s1_mask_q[l]),
      .r_o   (lane_r[l*32 +: 32]),
      .mask_o(lane_mask[l])
    );
  end

  // A refused row leaves stage 2 as zeros.
  assign s2_r_d = s1_err_q ? '0 : lane_r;
  assign s2_mask_d = s1_err_q ? '0 : lane_mask;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) s2_valid_q <= 1'b0;
    else if (adv) s2_valid_q <= s1_valid_q;
  end

  always_ff @(posedge clk_i) begin
    if (adv && s1_valid_q) begin
      s2_op_q <= s1_op_q;
      s2_err_q <= s1_err_q;
      s2_first_q <= s1_first_q;
      s2_last_q <= s1_last_q;
      s2_r_q <= s2_r_d;
      s2_mask_q <= s2_mask_d;
    end
  end

  // ---------------------------------------------------------------- stage 3: reductions
  logic                 row_op, acc_op, acc_we, row_max, acc_max;
  logic [31:0]          tree [Levels+1][Lanes];  // level v holds Lanes >> v values
  logic [Lanes*32-1:0]  acc_d, acc_q, acc_in, out_data_d, out_data_q;
  logic [Lanes-1:0]     out_mask_q;
  logic                 out_err_q, out_last_q;
  logic                 cmd_err_d, cmd_err_q;
  logic [31:0]          err_count_d, err_count_q;

  assign row_op = s2_op_q == 6'(VpuOpRowSum) || s2_op_q == 6'(VpuOpRowMax);
  assign acc_op = s2_op_q == 6'(VpuOpAccSum) || s2_op_q == 6'(VpuOpAccMax);
  assign acc_we = acc_op && !s2_err_q;  // a refused row leaves the accumulator as it was
  assign row_max = s2_op_q == 6'(VpuOpRowMax);
  assign acc_max = s2_op_q == 6'(VpuOpAccMax);

  // The tree and the accumulator's adders work only for their ops (operand isolation, as the lanes' exp unit).
  always_comb begin
    for (int v = 0; v <= Levels; v++) begin
      for (int i = 0; i < Lanes; i++) tree[v][i] = 32'h0;
    end
    if (row_op) begin
      for (int i = 0; i < Lanes; i++) tree[0][i] = s2_r_q[i*32 +: 32];
      for (int v = 1; v <= Levels; v++) begin
        for (int i = 0; i < (Lanes >> v); i++) begin
          tree[v][i] = row_max ? tpu_vpu_pkg::f32_max(tree[v-1][2*i], tree[v-1][2*i+1], 1'b0)
                               : tpu_vpu_pkg::f32_addv(tree[v-1][2*i], tree[v-1][2*i+1]);
        end
      end
    end
  end

  always_comb begin
    acc_in = s2_first_q ? {Lanes{acc_max ? 32'hFF80_0000 : 32'h8000_0000}} : acc_q;
    acc_d = acc_q;
    for (int i = 0; i < Lanes; i++) begin
      if (acc_op) begin
        acc_d[i*32 +: 32] = acc_max ? tpu_vpu_pkg::f32_max(acc_in[i*32 +: 32], s2_r_q[i*32 +: 32], 1'b0)
                                    : tpu_vpu_pkg::f32_addv(acc_in[i*32 +: 32], s2_r_q[i*32 +: 32]);
      end
    end
    out_data_d = s2_r_q;
    if (!s2_err_q) begin
      unique case (s2_op_q)
        6'(VpuOpRowSum), 6'(VpuOpRowMax): out_data_d = {Lanes{tree[Levels][0]}};
        6'(VpuOpAccSum), 6'(VpuOpAccMax): out_data_d = acc_d;
        default: ;
      endcase
    end
    cmd_err_d = cmd_err_q;
    err_count_d = err_count_q;
    if (adv && s2_valid_q) begin
      cmd_err_d = (s2_first_q ? 1'b0 : cmd_err_q) | s2_err_q;
      if (s2_last_q) begin
        if (cmd_err_d) err_count_d = err_count_q + 32'd1;
        cmd_err_d = 1'b0;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      out_valid_q <= 1'b0;
      cmd_err_q <= 1'b0;
      err_count_q <= 32'h0;
    end else begin
      if (adv) out_valid_q <= s2_valid_q;
      cmd_err_q <= cmd_err_d;
      err_count_q <= err_count_d;
    end
  end

  always_ff @(posedge clk_i) begin
    if (adv && s2_valid_q) begin
      out_data_q <= out_data_d;
      out_mask_q <= s2_mask_q;
      out_err_q <= s2_err_q;
      out_last_q <= s2_last_q;
      if (acc_we) acc_q <= acc_d;
    end
  end

  assign out_valid_o = out_valid_q;
  assign out_data_o = out_data_q;
  assign out_mask_o = out_mask_q;
  assign out_err_o = out_err_q;
  assign out_write_o = !out_err_q;
  assign out_last_o = out_last_q;
  assign err_count_o = err_count_q;

  // ---------------------------------------------------------------- assertions
  `ASSERT_INIT(VpuLanesLegal, Lanes >= 2 && (Lanes & (Lanes - 1)) == 0)
  `ASSERT_HELD(VpuInHeld, in_valid_i, in_ready_o, {in_op_i, in_bcast_i, in_first_i, in_last_i})
  `ASSERT_KNOWN(VpuOutValidKnown, out_valid_o)
  `ASSERT_IF(VpuOutKnown, !$isunknown({out_data_o, out_mask_o, out_err_o, out_last_o}), out_valid_o)
  // A row without first continues a command: its broadcast row and accumulator belong to that command.
  `ASSERT_IF(VpuRowInCommand, in_first_i || in_cmd_q, in_valid_i && in_ready_o)
  // Only checked ops reach the lanes' results (an illegal one leaves stage 2 as zeros with err set).
  `ASSERT_IF(VpuLaneOpLegal, s1_err_q || tpu_vpu_pkg::op_legal(s1_op_q), s1_valid_q && adv)

endmodule
