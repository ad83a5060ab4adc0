// Decodes one RV32IM instruction into the control record that EX consumes; flags illegal encodings.
module tpu_decoder
  import tpu_core_pkg::*;
(
  input  logic [31:0] pc_i,
  input  logic [31:0] instr_i,
  input  logic        fetch_fault_i,
  output id_ex_t      dec_o
);

  logic [6:0] opcode;
  logic [2:0] funct3;
  logic [6:0] funct7;
  logic [31:0] imm_i, imm_s, imm_b, imm_u, imm_j;

  assign opcode = instr_i[6:0];
  assign funct3 = instr_i[14:12];
  assign funct7 = instr_i[31:25];
  assign imm_i = {{20{instr_i[31]}}, instr_i[31:20]};
  assign imm_s = {{20{instr_i[31]}}, instr_i[31:25], instr_i[11:7]};
  assign imm_b = {{19{instr_i[31]}}, instr_i[31], instr_i[7], instr_i[30:25], instr_i[11:8], 1'b0};
  assign imm_u = {instr_i[31:12], 12'b0};
  assign imm_j = {{11{instr_i[31]}}, instr_i[31], instr_i[19:12], instr_i[20], instr_i[30:21], 1'b0};

  always_comb begin
    dec_o = '0;
    dec_o.pc = pc_i;
    dec_o.instr = instr_i;
    dec_o.rd = instr_i[11:7];
    dec_o.rs1 = instr_i[19:15];
    dec_o.rs2 = instr_i[24:20];
    dec_o.alu_op = AluAdd;
    dec_o.res_sel = ResAlu;
    dec_o.csr_op = CsrNone;
    dec_o.br_funct3 = funct3;
    dec_o.md_funct3 = funct3;
    dec_o.fetch_fault = fetch_fault_i;
    dec_o.illegal = 1'b0;

    unique case (opcode)
      OpLui: begin
        dec_o.rd_we = 1'b1;
        dec_o.alu_a_zero = 1'b1;
        dec_o.alu_b_imm = 1'b1;
        dec_o.imm = imm_u;
      end
      OpAuipc: begin
        dec_o.rd_we = 1'b1;
        dec_o.alu_a_pc = 1'b1;
        dec_o.alu_b_imm = 1'b1;
        dec_o.imm = imm_u;
      end
      OpJal: begin
        dec_o.rd_we = 1'b1;
        dec_o.is_jal = 1'b1;
        dec_o.res_sel = ResLink;
        dec_o.imm = imm_j;
      end
      OpJalr: begin
        dec_o.rd_we = 1'b1;
        dec_o.is_jalr = 1'b1;
        dec_o.res_sel = ResLink;
        dec_o.imm = imm_i;
        dec_o.illegal = funct3 != 3'b000;
      end
      OpBranch: begin
        dec_o.is_branch = 1'b1;
        dec_o.imm = imm_b;
        dec_o.illegal = funct3 == 3'b010 || funct3 == 3'b011;
      end
      OpLoad: begin
        dec_o.rd_we = 1'b1;
        dec_o.is_load = 1'b1;
        dec_o.alu_b_imm = 1'b1;
        dec_o.imm = imm_i;
        dec_o.mem_size = funct3[1:0];
        dec_o.mem_unsigned = funct3[2];
        dec_o.illegal = funct3 == 3'b011 || funct3 == 3'b110 || funct3 == 3'b111;
      end
      OpStore: begin
        dec_o.is_store = 1'b1;
        dec_o.alu_b_imm = 1'b1;
        dec_o.imm = imm_s;
        dec_o.mem_size = funct3[1:0];
        dec_o.illegal = funct3[2] || funct3[1:0] == 2'b11;
      end
      OpImm: begin
        dec_o.rd_we = 1'b1;
        dec_o.alu_b_imm = 1'b1;
        dec_o.imm = imm_i;
        unique case (funct3)
          3'b000: dec_o.alu_op = AluAdd;
          3'b010: dec_o.alu_op = AluSlt;
          3'b011: dec_o.alu_op = AluSltu;
          3'b100: dec_o.alu_op = AluXor;
          3'b110: dec_o.alu_op = AluOr;
          3'b111: dec_o.alu_op = AluAnd;
          3'b001: begin
            dec_o.alu_op = AluSll;
            dec_o.illegal = funct7 != 7'b0000000;
          end
          3'b101: begin
            dec_o.alu_op = funct7[5] ? AluSra : AluSrl;
            dec_o.illegal = funct7 != 7'b0000000 && funct7 != 7'b0100000;
          end
          default: dec_o.illegal = 1'b1;
        endcase
      end
      OpReg: begin
        dec_o.rd_we = 1'b1;
        if (funct7 == 7'b0000001) begin
          dec_o.is_muldiv = 1'b1;
          dec_o.res_sel = ResMulDiv;
        end else if (funct7 == 7'b0000000) begin
          unique case (funct3)
            3'b000: dec_o.alu_op = AluAdd;
            3'b001: dec_o.alu_op = AluSll;
            3'b010: dec_o.alu_op = AluSlt;
            3'b011: dec_o.alu_op = AluSltu;
            3'b100: dec_o.alu_op = AluXor;
            3'b101: dec_o.alu_op = AluSrl;
            3'b110: dec_o.alu_op = AluOr;
            3'b111: dec_o.alu_op = AluAnd;
            default: dec_o.illegal = 1'b1;
          endcase
        end else if (funct7 == 7'b0100000 && (funct3 == 3'b000 || funct3 == 3'b101)) begin
          dec_o.alu_op = funct3 == 3'b000 ? AluSub : AluSra;
        end else begin
          dec_o.illegal = 1'b1;
        end
      end
      OpMiscMem: begin
        // fence is a no-op on this single-hart, in-order core; fence.i flushes fetch.
        dec_o.is_fencei = funct3 == 3'b001;
        dec_o.illegal = funct3 != 3'b000 && funct3 != 3'b001;
      end
      OpSystem: begin
        if (funct3 == 3'b000) begin
          unique case (instr_i)
            32'h0000_0073: dec_o.is_ecall = 1'b1;
            32'h0010_0073: dec_o.is_ebreak = 1'b1;
            32'h3020_0073: dec_o.is_mret = 1'b1;
            32'h1050_0073: dec_o.is_wfi = 1'b1;
            default: dec_o.illegal = 1'b1;
          endcase
        end else if (funct3 == 3'b100) begin
          dec_o.illegal = 1'b1;
        end else begin
          dec_o.rd_we = 1'b1;
          dec_o.res_sel = ResCsr;
          dec_o.csr_imm = funct3[2];
          dec_o.imm = {27'b0, instr_i[19:15]};
          unique case (funct3[1:0])
            2'b01: dec_o.csr_op = CsrWrite;
            2'b10: dec_o.csr_op = CsrSet;
            default: dec_o.csr_op = CsrClear;
          endcase
        end
      end
      default: dec_o.illegal = 1'b1;
    endcase
    // Low two bits must be 11 (no compressed instructions).
    if (instr_i[1:0] != 2'b11) dec_o.illegal = 1'b1;
    if (dec_o.illegal || fetch_fault_i) begin
      dec_o.rd_we = 1'b0;
      dec_o.is_load = 1'b0;
      dec_o.is_store = 1'b0;
      dec_o.is_branch = 1'b0;
      dec_o.is_jal = 1'b0;
      dec_o.is_jalr = 1'b0;
      dec_o.is_muldiv = 1'b0;
      dec_o.csr_op = CsrNone;
      dec_o.is_fencei = 1'b0;
    end
  end

endmodule
