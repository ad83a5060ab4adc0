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

  md_state_e state_q, state_d;
  logic [65:0] prod_q, prod_d;
  logic signed [32:0] mul_a_q, mul_a_d, mul_b_q, mul_b_d;
  logic [2:0] funct3_q, funct3_d;
  logic [31:0] rem_q, rem_d, quo_q, quo_d, divisor_q, divisor_d, result_q, result_d;
  logic [4:0] count_q, count_d;
  logic neg_q_q, neg_q_d, neg_r_q, neg_r_d;

  logic is_div, div_signed, a_neg, b_neg;
  logic [31:0] a_abs, b_abs;
  logic [32:0] rem_shift;
  logic [32:0] rem_sub;
  logic [65:0] mul_full;

  assign is_div = funct3_i[2];
  assign div_signed = !funct3_i[0];
  assign a_neg = div_signed && a_i[31];
  assign b_neg = div_signed && b_i[31];
  assign a_abs = a_neg ? 32'(-a_i) : a_i;
  assign b_abs = b_neg ? 32'(-b_i) : b_i;
  assign rem_shift = {rem_q, quo_q[31]};
  assign rem_sub = rem_shift - {1'b0, divisor_q};
  assign mul_full = 66'(mul_a_q * mul_b_q);

  always_comb begin
    state_d = state_q;
    prod_d = prod_q;
    mul_a_d = mul_a_q;
    mul_b_d = mul_b_q;
    funct3_d = funct3_q;
    rem_d = rem_q;
    quo_d = quo_q;
    divisor_d = divisor_q;
    count_d = count_q;
    neg_q_d = neg_q_q;
    neg_r_d = neg_r_q;
    result_d = result_q;
    done_o = 1'b0;
    result_o = result_q;

    unique case (state_q)
      MdIdle: begin
        if (start_i) begin
          funct3_d = funct3_i;
          if (!is_div) begin
            // Operand sign extension: MULH signed x signed, MULHSU signed x unsigned, MULHU unsigned.
            mul_a_d = {funct3_i[1:0] != 2'b11 && a_i[31], a_i};
            mul_b_d = {funct3_i[1:0] == 2'b01 && b_i[31], b_i};
            state_d = MdMul1;
          end else if (b_i == 32'b0) begin
            // Division by zero: quotient all ones, remainder the dividend (no trap in RISC-V).
            result_d = funct3_i[1] ? a_i : 32'hffff_ffff;
            state_d = MdDone;
          end else if (div_signed && a_i == 32'h8000_0000 && b_i == 32'hffff_ffff) begin
            // Signed overflow: quotient -2^31, remainder 0.
            result_d = funct3_i[1] ? 32'b0 : 32'h8000_0000;
            state_d = MdDone;
          end else begin
            rem_d = 32'b0;
            quo_d = a_abs;
            divisor_d = b_abs;
            neg_q_d = a_neg ^ b_neg;
            neg_r_d = a_neg;
            count_d = 5'd31;
            state_d = MdDiv;
          end
        end
      end
      MdMul1: begin
        prod_d = mul_full;
        state_d = MdMul2;
      end
      MdMul2: begin
        done_o = 1'b1;
        result_o = funct3_q[1:0] == 2'b00 ? prod_q[31:0] : prod_q[63:32];
        state_d = MdIdle;
      end
      MdDiv: begin
        // One quotient bit per cycle: shift the next dividend bit into the partial remainder.
        if (!rem_sub[32]) begin
          rem_d = rem_sub[31:0];
          quo_d = {quo_q[30:0], 1'b1};
        end else begin
          rem_d = rem_shift[31:0];
          quo_d = {quo_q[30:0], 1'b0};
        end
        count_d = count_q - 5'd1;
        if (count_q == 5'd0) begin
          // Last quotient bit: fix the signs on the way out instead of spending a cycle on it.
          done_o = 1'b1;
          if (funct3_q[1]) result_o = neg_r_q ? 32'(-rem_d) : rem_d;
          else result_o = neg_q_q ? 32'(-quo_d) : quo_d;
          state_d = MdIdle;
        end
      end
      MdDone: begin
        done_o = 1'b1;
        result_o = result_q;
        state_d = MdIdle;
      end
      default: state_d = MdIdle;
    endcase
  end

  assign busy_o = state_q != MdIdle;

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
      state_q <= state_d;
      prod_q <= prod_d;
      mul_a_q <= mul_a_d;
      mul_b_q <= mul_b_d;
      funct3_q <= funct3_d;
      rem_q <= rem_d;
      quo_q <= quo_d;
      divisor_q <= divisor_d;
      count_q <= count_d;
      neg_q_q <= neg_q_d;
      neg_r_q <= neg_r_d;
      result_q <= result_d;
    end
  end

  logic unused_prod;
  assign unused_prod = ^prod_q[65:64];  // sign bits of the 33x33 product

endmodule
