// RV32IM machine-mode control core: five stages (IF address, ID, EX, MEM, WB) over synchronous
// SMEM ports. EX is the commit point: every trap, CSR write, store and redirect happens there,
// so traps are precise. JAL and backward branches are predicted taken in ID; full forwarding
// from MEM (including load data) and WB means no load-use stall. Misaligned loads and stores
// to SMEM are done in hardware (one extra EX cycle when they cross a word); misaligned MMIO
// accesses trap.
module tpu_core
  import tpu_core_pkg::*;
#(
  // Defaults: the memory map of rtl/regmap.json (tpu_top passes the same values).
  parameter logic [31:0] BootAddr = tpu_regmap_pkg::SmemBase,
  parameter logic [31:0] SmemBase = tpu_regmap_pkg::SmemBase,
  parameter int unsigned SmemBytes = tpu_regmap_pkg::SmemSize,
  parameter logic [31:0] MmioBase = tpu_regmap_pkg::MmioBase,
  parameter int unsigned MmioBytes = tpu_regmap_pkg::MmioSize
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  // Instruction port: address now, data next cycle.
  output logic [31:0] ibus_addr_o,
  input  logic [31:0] ibus_rdata_i,
  // Data port: request now, read data next cycle.
  output logic        dbus_req_o,
  output logic        dbus_we_o,
  output logic [31:0] dbus_addr_o,
  output logic [3:0]  dbus_be_o,
  output logic [31:0] dbus_wdata_o,
  input  logic [31:0] dbus_rdata_i,
  // Interrupt lines (level).
  input  logic        irq_timer_i,
  input  logic        irq_external_i,
  input  logic [63:0] mtime_i,
  // Observation.
  output logic [63:0] instret_o,
  output logic        sleeping_o     // a wfi is waiting in EX
);

  // ---------------------------------------------------------------- IF / ID
  logic [31:0] fetch_pc_q, fetch_pc_d, fetch_addr;
  logic        id_valid_q;
  logic        fetch_fault_q, fetch_fault_d;
  id_ex_t      id_dec;
  logic        id_redirect;
  logic [31:0] id_target;

  // ---------------------------------------------------------------- EX
  id_ex_t      ex_q, ex_d;
  logic        ex_valid_q, ex_valid_d;
  logic [31:0] ex_rs1_q, ex_rs1_d, ex_rs2_q, ex_rs2_d;
  logic [31:0] rs1_fwd, rs2_fwd, alu_a, alu_b, alu_res;
  logic        br_taken, ex_stall, ex_commit, ex_redirect, take_irq, ex_exc;
  logic [4:0]  ex_exc_cause;
  logic [31:0] ex_exc_tval, ex_target, ex_result, mem_addr, jump_target, csr_wdata;
  logic        mem_misaligned, mem_in_smem, mem_in_mmio, jump_taken;
  logic        mem_cross, split_first, split_q, split_d;
  logic [31:0] mem_last;
  logic [7:0]  mem_mask;
  logic [63:0] store_lanes;
  logic [31:0] split_lo_q;
  logic        mem_split_q;
  logic        csr_write, csr_illegal;
  logic [31:0] csr_rdata, trap_vector, mepc;
  logic        irq_take, wfi_wake;
  logic [4:0]  irq_cause;
  logic        md_busy, md_done, md_start;
  logic [31:0] md_result;
  logic [4:0]  trap_cause;
  logic [31:0] trap_tval;

  // ---------------------------------------------------------------- MEM / WB
  logic        mem_valid_q, mem_rd_we_q, mem_is_load_q, mem_unsigned_q;
  logic [4:0]  mem_rd_q;
  logic [1:0]  mem_size_q, mem_off_q;
  logic [31:0] mem_result_q, mem_result, load_data;
  logic        wb_valid_q, wb_rd_we_q;
  logic [4:0]  wb_rd_q;
  logic [31:0] wb_data_q;

  logic [31:0] regs_q [32];
  logic [31:0] id_rs1, id_rs2;

  // ================================================================ IF / ID
  // The instruction in ID is the SMEM output for fetch_pc_q; the next address goes out now.
  function automatic logic in_range(logic [31:0] a, logic [31:0] base, int unsigned bytes);
    return (a >= base) && ((a - base) < bytes);
  endfunction

  tpu_decoder u_decoder (
    .pc_i         (fetch_pc_q),
    .instr_i      (ibus_rdata_i),
    .fetch_fault_i(fetch_fault_q),
    .dec_o        (id_dec)
  );

  always_comb begin
    id_redirect = 1'b0;
    id_target = fetch_pc_q + id_dec.imm;
    if (id_valid_q && !id_dec.illegal && !id_dec.fetch_fault) begin
      id_redirect = id_dec.is_jal || (id_dec.is_branch && id_dec.imm[31]);
    end
  end

  always_comb begin
    if (ex_redirect) fetch_addr = ex_target;
    else if (ex_stall) fetch_addr = fetch_pc_q;
    else if (id_valid_q && id_redirect) fetch_addr = id_target;
    else fetch_addr = id_valid_q ? fetch_pc_q + 32'd4 : BootAddr;
    fetch_pc_d = fetch_addr;
    fetch_fault_d = !in_range(fetch_addr, SmemBase, SmemBytes);
  end
  assign ibus_addr_o = fetch_addr;

  // Register file reads in ID, with the WB write bypassed.
  always_comb begin
    id_rs1 = regs_q[id_dec.rs1];
    id_rs2 = regs_q[id_dec.rs2];
    if (wb_valid_q && wb_rd_we_q && wb_rd_q != 5'd0) begin
      if (wb_rd_q == id_dec.rs1) id_rs1 = wb_data_q;
      if (wb_rd_q == id_dec.rs2) id_rs2 = wb_data_q;
    end
    if (id_dec.rs1 == 5'd0) id_rs1 = 32'b0;
    if (id_dec.rs2 == 5'd0) id_rs2 = 32'b0;
  end

  // ID -> EX. A stalled EX keeps its instruction; a redirect from EX kills the one in ID.
  always_comb begin
    ex_d = ex_q;
    ex_valid_d = ex_valid_q;
    // While EX waits, keep its operands current so nothing depends on a producer leaving MEM/WB.
    ex_rs1_d = rs1_fwd;
    ex_rs2_d = rs2_fwd;
    if (!ex_stall) begin
      ex_d = id_dec;
      ex_d.pred_taken = id_redirect;
      ex_valid_d = id_valid_q && !ex_redirect;
      ex_rs1_d = id_rs1;
      ex_rs2_d = id_rs2;
    end
  end

  // ================================================================ EX
  always_comb begin
    rs1_fwd = ex_rs1_q;
    rs2_fwd = ex_rs2_q;
    if (wb_valid_q && wb_rd_we_q && wb_rd_q != 5'd0) begin
      if (wb_rd_q == ex_q.rs1) rs1_fwd = wb_data_q;
      if (wb_rd_q == ex_q.rs2) rs2_fwd = wb_data_q;
    end
    if (mem_valid_q && mem_rd_we_q && mem_rd_q != 5'd0) begin
      if (mem_rd_q == ex_q.rs1) rs1_fwd = mem_result;
      if (mem_rd_q == ex_q.rs2) rs2_fwd = mem_result;
    end
  end

  assign alu_a = ex_q.alu_a_zero ? 32'b0 : (ex_q.alu_a_pc ? ex_q.pc : rs1_fwd);
  assign alu_b = ex_q.alu_b_imm ? ex_q.imm : rs2_fwd;

  always_comb begin
    unique case (ex_q.alu_op)
      AluAdd: alu_res = alu_a + alu_b;
      AluSub: alu_res = alu_a - alu_b;
      AluSll: alu_res = alu_a << alu_b[4:0];
      AluSlt: alu_res = {31'b0, $signed(alu_a) < $signed(alu_b)};
      AluSltu: alu_res = {31'b0, alu_a < alu_b};
      AluXor: alu_res = alu_a ^ alu_b;
      AluSrl: alu_res = alu_a >> alu_b[4:0];
      AluSra: alu_res = $unsigned($signed(alu_a) >>> alu_b[4:0]);
      AluOr: alu_res = alu_a | alu_b;
      AluAnd: alu_res = alu_a & alu_b;
      default: alu_res = alu_b;
    endcase
  end

  always_comb begin
    unique case (ex_q.br_funct3)
      3'b000: br_taken = rs1_fwd == rs2_fwd;
      3'b001: br_taken = rs1_fwd != rs2_fwd;
      3'b100: br_taken = $signed(rs1_fwd) < $signed(rs2_fwd);
      3'b101: br_taken = $signed(rs1_fwd) >= $signed(rs2_fwd);
      3'b110: br_taken = rs1_fwd < rs2_fwd;
      3'b111: br_taken = rs1_fwd >= rs2_fwd;
      default: br_taken = 1'b0;
    endcase
  end

  assign jump_taken = ex_q.is_jal || ex_q.is_jalr || (ex_q.is_branch && br_taken);
  assign jump_target = ex_q.is_jalr ? ((rs1_fwd + ex_q.imm) & ~32'd1) : ex_q.pc + ex_q.imm;
  assign mem_addr = rs1_fwd + ex_q.imm;
  assign mem_misaligned = (ex_q.mem_size == 2'd1 && mem_addr[0]) || (ex_q.mem_size == 2'd2 && mem_addr[1:0] != 2'b0);
  // Byte lanes the access touches across this word and the next.
  assign mem_mask = (ex_q.mem_size == 2'd0 ? 8'b0000_0001 : ex_q.mem_size == 2'd1 ? 8'b0000_0011 : 8'b0000_1111)
                    << mem_addr[1:0];
  assign mem_cross = |mem_mask[7:4];
  assign mem_last = mem_addr + (ex_q.mem_size == 2'd0 ? 32'd0 : ex_q.mem_size == 2'd1 ? 32'd1 : 32'd3);
  // Both ends must lie in SMEM (an access may straddle its end).
  assign mem_in_smem = in_range(mem_addr, SmemBase, SmemBytes) && in_range(mem_last, SmemBase, SmemBytes);
  assign store_lanes = {32'b0, rs2_fwd} << {mem_addr[1:0], 3'b000};
  assign mem_in_mmio = in_range(mem_addr, MmioBase, MmioBytes);

  // CSR instruction operands: csrrs/csrrc with rs1 = x0 (or uimm = 0) do not write.
  assign csr_wdata = ex_q.csr_imm ? ex_q.imm : rs1_fwd;
  assign csr_write = ex_q.csr_op == CsrWrite || ex_q.rs1 != 5'd0;

  // Synchronous exceptions in priority order.
  always_comb begin
    ex_exc = 1'b1;
    ex_exc_cause = ExcIllegal;
    ex_exc_tval = 32'b0;
    if (ex_q.fetch_fault) begin
      ex_exc_cause = ExcInstrAccess;
      ex_exc_tval = ex_q.pc;
    end else if (ex_q.illegal || (ex_q.csr_op != CsrNone && csr_illegal)) begin
      ex_exc_cause = ExcIllegal;
      ex_exc_tval = ex_q.instr;
    end else if (ex_q.is_ecall) begin
      ex_exc_cause = ExcEcallM;
    end else if (ex_q.is_ebreak) begin
      ex_exc_cause = ExcBreakpoint;
      ex_exc_tval = ex_q.pc;
    end else if (jump_taken && jump_target[1]) begin
      ex_exc_cause = ExcInstrMisaligned;
      ex_exc_tval = jump_target;
    end else if ((ex_q.is_load || ex_q.is_store) && mem_misaligned && mem_in_mmio) begin
      ex_exc_cause = ex_q.is_load ? ExcLoadMisaligned : ExcStoreMisaligned;
      ex_exc_tval = mem_addr;
    end else if ((ex_q.is_load || ex_q.is_store) && !mem_in_smem && !mem_in_mmio) begin
      ex_exc_cause = ex_q.is_load ? ExcLoadAccess : ExcStoreAccess;
      ex_exc_tval = mem_addr;
    end else begin
      ex_exc = 1'b0;
    end
  end

  // Interrupts are taken on the instruction in EX before it does anything (never mid-divide).
  // A wfi first completes (so mepc points past it), then the interrupt is taken.
  assign take_irq = ex_valid_q && !md_busy && irq_take && !ex_q.is_wfi && !split_q;
  assign md_start = ex_valid_q && ex_q.is_muldiv && !md_busy && !take_irq;
  // A word-crossing access spends its first EX cycle on the lower word.
  assign split_first = ex_valid_q && !take_irq && !ex_exc && (ex_q.is_load || ex_q.is_store) && mem_cross && !split_q;
  assign split_d = split_first;
  assign ex_stall = ex_valid_q && !take_irq && !ex_exc &&
                    ((ex_q.is_muldiv && !md_done) || (ex_q.is_wfi && !wfi_wake) || split_first);
  assign ex_commit = ex_valid_q && !ex_stall && !take_irq && !ex_exc;

  assign trap_cause = take_irq ? irq_cause : ex_exc_cause;
  assign trap_tval = take_irq ? 32'b0 : ex_exc_tval;

  always_comb begin
    ex_redirect = 1'b0;
    ex_target = ex_q.pc + 32'd4;
    if (ex_valid_q && (take_irq || ex_exc)) begin
      ex_redirect = 1'b1;
      ex_target = trap_vector;
    end else if (ex_commit) begin
      if (ex_q.is_mret) begin
        ex_redirect = 1'b1;
        ex_target = mepc;
      end else if (ex_q.is_fencei) begin
        ex_redirect = 1'b1;
      end else if (jump_taken != ex_q.pred_taken || ex_q.is_jalr) begin
        ex_redirect = 1'b1;
        ex_target = jump_taken ? jump_target : ex_q.pc + 32'd4;
      end
    end
  end

  tpu_csr u_csr (
    .clk_i,
    .rst_ni,
    .addr_i        (ex_q.instr[31:20]),
    .op_i          (ex_q.csr_op),
    .write_i       (csr_write),
    .wdata_i       (csr_wdata),
    .access_i      (ex_commit && ex_q.csr_op != CsrNone),
    .rdata_o       (csr_rdata),
    .illegal_o     (csr_illegal),
    .trap_i        (ex_valid_q && (take_irq || ex_exc)),
    .trap_irq_i    (take_irq),
    .trap_cause_i  (trap_cause),
    .trap_pc_i     (ex_q.pc),
    .trap_tval_i   (trap_tval),
    .mret_i        (ex_commit && ex_q.is_mret),
    .retire_i      (ex_commit),
    .trap_vector_o (trap_vector),
    .mepc_o        (mepc),
    .irq_timer_i,
    .irq_external_i,
    .mtime_i,
    .irq_take_o    (irq_take),
    .irq_cause_o   (irq_cause),
    .wfi_wake_o    (wfi_wake),
    .instret_o
  );

  tpu_muldiv u_muldiv (
    .clk_i,
    .rst_ni,
    .start_i (md_start),
    .funct3_i(ex_q.md_funct3),
    .a_i     (rs1_fwd),
    .b_i     (rs2_fwd),
    .busy_o  (md_busy),
    .done_o  (md_done),
    .result_o(md_result)
  );

  always_comb begin
    unique case (ex_q.res_sel)
      ResLink: ex_result = ex_q.pc + 32'd4;
      ResCsr: ex_result = csr_rdata;
      ResMulDiv: ex_result = md_result;
      default: ex_result = alu_res;
    endcase
  end

  // Data port: only a committing load or store reaches memory (a word-crossing one sends its
  // lower word in the cycle before it commits, once its checks have passed).
  always_comb begin
    dbus_req_o = (ex_commit || split_first) && (ex_q.is_load || ex_q.is_store);
    dbus_we_o = ex_q.is_store;
    if (split_q) begin
      dbus_addr_o = {mem_addr[31:2], 2'b00} + 32'd4;
      dbus_be_o = mem_mask[7:4];
      dbus_wdata_o = store_lanes[63:32];
    end else begin
      dbus_addr_o = {mem_addr[31:2], 2'b00};
      dbus_be_o = mem_mask[3:0];
      dbus_wdata_o = store_lanes[31:0];
    end
  end

  assign sleeping_o = ex_valid_q && ex_q.is_wfi && !wfi_wake;

  // ================================================================ MEM
  always_comb begin
    logic [31:0] shifted;
    logic [63:0] both;
    both = mem_split_q ? {dbus_rdata_i, split_lo_q} : {32'b0, dbus_rdata_i};
    shifted = 32'(both >> {mem_off_q, 3'b000});
    unique case (mem_size_q)
      2'd0: load_data = {{24{!mem_unsigned_q && shifted[7]}}, shifted[7:0]};
      2'd1: load_data = {{16{!mem_unsigned_q && shifted[15]}}, shifted[15:0]};
      default: load_data = shifted;
    endcase
    mem_result = mem_is_load_q ? load_data : mem_result_q;
  end

  // ================================================================ registers
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fetch_pc_q <= BootAddr;
      fetch_fault_q <= 1'b0;
      id_valid_q <= 1'b0;
      ex_q <= '0;
      ex_valid_q <= 1'b0;
      ex_rs1_q <= '0;
      ex_rs2_q <= '0;
      mem_valid_q <= 1'b0;
      mem_rd_we_q <= 1'b0;
      mem_is_load_q <= 1'b0;
      mem_unsigned_q <= 1'b0;
      mem_rd_q <= '0;
      mem_size_q <= '0;
      mem_off_q <= '0;
      mem_result_q <= '0;
      split_q <= 1'b0;
      split_lo_q <= '0;
      mem_split_q <= 1'b0;
      wb_valid_q <= 1'b0;
      wb_rd_we_q <= 1'b0;
      wb_rd_q <= '0;
      wb_data_q <= '0;
    end else begin
      fetch_pc_q <= fetch_pc_d;
      fetch_fault_q <= fetch_fault_d;
      id_valid_q <= 1'b1;
      ex_q <= ex_d;
      ex_valid_q <= ex_valid_d;
      ex_rs1_q <= ex_rs1_d;
      ex_rs2_q <= ex_rs2_d;
      mem_valid_q <= ex_commit;
      mem_rd_we_q <= ex_commit && ex_q.rd_we;
      mem_is_load_q <= ex_q.is_load;
      mem_unsigned_q <= ex_q.mem_unsigned;
      mem_rd_q <= ex_q.rd;
      mem_size_q <= ex_q.mem_size;
      mem_off_q <= mem_addr[1:0];
      mem_result_q <= ex_result;
      split_q <= split_d;
      if (split_q) split_lo_q <= dbus_rdata_i;  // the lower word, requested last cycle
      mem_split_q <= split_q;
      wb_valid_q <= mem_valid_q;
      wb_rd_we_q <= mem_rd_we_q;
      wb_rd_q <= mem_rd_q;
      wb_data_q <= mem_result;
    end
  end

  // The register file has no reset (x0 is never written and always reads zero).
  always_ff @(posedge clk_i) begin
    if (wb_valid_q && wb_rd_we_q && wb_rd_q != 5'd0) regs_q[wb_rd_q] <= wb_data_q;
  end

endmodule
