// M-extension unit: a two-stage pipelined 33x33 multiplier (3 cycles in EX) and a radix-2
// restoring divider (1 set-up + 32 iterations, the last one also fixing signs = 33 cycles;
// division by zero and signed overflow in 2).
module tpu_muldiv (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        start_i,   // EX holds a M instruction that has not started yet
  input  logic [2:0]  funct3_i,
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  output logic        busy_o,    // an operation is in flight
  output logic        done_o,    // result_o is valid this cycle; EX completes the instruction
  output logic [31:0] result_o
);

  typedef enum logic [2:0] { MdIdle, MdMul1, MdMul2, MdDiv, MdDone } md_state_e;

  md_state_e state_q;
  logic [65:0] prod_q;
  logic signed [32:0] mul_a_q, mul_b_q;
  logic [1:0] funct3_q;  // the operation (bit 2, multiply or divide, is in the state)
  logic [31:0] rem_q, quo_q, divisor_q, result_q;
  logic [4:0] count_q;
  logic neg_q_q, neg_r_q;

  logic is_div, div_signed, a_neg, b_neg;
  logic [32:0] rem_shift;
  logic [32:0] rem_sub;
  logic [31:0] rem_next, quo_next;  // one division step

  assign is_div = funct3_i[2];
  assign div_signed = !funct3_i[0];
  assign a_neg = div_signed && a_i[31];
  assign b_neg = div_signed && b_i[31];
  // One quotient bit per cycle: shift the next dividend bit into the partial remainder.
  assign rem_shift = {rem_q, quo_q[31]};
  assign rem_sub = rem_shift - {1'b0, divisor_q};
  assign rem_next = !rem_sub[32] ? rem_sub[31:0] : rem_shift[31:0];
  assign quo_next = {quo_q[30:0], !rem_sub[32]};

  // The result, in the cycle the operation completes (EX takes it combinationally).
  always_comb begin
    done_o = 1'b0;
    result_o = result_q;
    unique case (state_q)
      MdMul2: begin
        done_o = 1'b1;
        result_o = funct3_q[1:0] == 2'b00 ? prod_q[31:0] : prod_q[63:32];
      end
      MdDiv: begin
        if (count_q == 5'd0) begin
          // Last quotient bit: fix the signs on the way out instead of spending a cycle on it.
          done_o = 1'b1;
          if (funct3_q[1]) result_o = neg_r_q ? 32'(-rem_next) : rem_next;
          else result_o = neg_q_q ? 32'(-quo_next) : quo_next;
        end
      end
      MdDone: done_o = 1'b1;
      default: ;
    endcase
  end

  assign busy_o = state_q != MdIdle;

  // The next state is written in the clocked block, not as an always_comb of *_d values: the multiply
  // (33 x 33 bits) and the operands' negations are then evaluated in the simulation only in the cycle
  // that uses them, where a combinational next state computes them in every cycle, the core asleep
  // or not (docs/simulation-speed.md).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= MdIdle;
      prod_q <= '0;
      mul_a_q <= '0;
      mul_b_q <= '0;
      funct3_q <= '0;
      rem_q <= '0;
      quo_q <= '0;
      divisor_q <= '0;
      count_q <= '0;
      neg_q_q <= 1'b0;
      neg_r_q <= 1'b0;
      result_q <= '0;
    end else begin
      unique case (state_q)
        MdIdle: begin
          if (start_i) begin
            funct3_q <= funct3_i[1:0];
            if (!is_div) begin
              // Operand sign extension: MULH signed x signed, MULHSU signed x unsigned, MULHU unsigned.
              mul_a_q <= {funct3_i[1:0] != 2'b11 && a_i[31], a_i};
              mul_b_q <= {funct3_i[1:0] == 2'b01 && b_i[31], b_i};
              state_q <= MdMul1;
            end else if (b_i == 32'b0) begin
              // Division by zero: quotient all ones, remainder the dividend (no trap in RISC-V).
              result_q <= funct3_i[1] ? a_i : 32'hffff_ffff;
              state_q <= MdDone;
            end else if (div_signed && a_i == 32'h8000_0000 && b_i == 32'hffff_ffff) begin
              // Signed overflow: quotient -2^31, remainder 0.
              result_q <= funct3_i[1] ? 32'b0 : 32'h8000_0000;
              state_q <= MdDone;
            end else begin
              rem_q <= 32'b0;
              quo_q <= a_neg ? 32'(-a_i) : a_i;
              divisor_q <= b_neg ? 32'(-b_i) : b_i;
              neg_q_q <= a_neg ^ b_neg;
              neg_r_q <= a_neg;
              count_q <= 5'd31;
              state_q <= MdDiv;
            end
          end
        end
        MdMul1: begin
          prod_q <= 66'(mul_a_q * mul_b_q);
          state_q <= MdMul2;
        end
        MdMul2: state_q <= MdIdle;
        MdDiv: begin
          rem_q <= rem_next;
          quo_q <= quo_next;
          count_q <= count_q - 5'd1;
          if (count_q == 5'd0) state_q <= MdIdle;
        end
        MdDone: state_q <= MdIdle;
        default: state_q <= MdIdle;
      endcase
    end
  end

  logic unused_prod;
  assign unused_prod = ^prod_q[65:64];  // sign bits of the 33x33 product

endmodule
