// Machine-mode CSR file: status, trap state, interrupt enables/pending and the 64-bit counters.
module tpu_csr
  import tpu_core_pkg::*;
(
  input  logic        clk_i,
  input  logic        rst_ni,
  // CSR instruction in EX (read is combinational; the write happens when access_i commits).
  input  logic [11:0] addr_i,
  input  csr_op_e     op_i,
  input  logic        write_i,       // the instruction writes (csrrs/c with rs1 = x0 do not)
  input  logic [31:0] wdata_i,
  input  logic        access_i,      // commit a CSR instruction this cycle
  output logic [31:0] rdata_o,
  output logic        illegal_o,     // addr_i unimplemented, or a write to a read-only CSR
  // Trap entry and return.
  input  logic        trap_i,
  input  logic        trap_irq_i,
  input  logic [4:0]  trap_cause_i,
  input  logic [31:0] trap_pc_i,
  input  logic [31:0] trap_tval_i,
  input  logic        mret_i,
  input  logic        retire_i,
  output logic [31:0] trap_vector_o, // where a trap with trap_cause_i/trap_irq_i goes
  output logic [31:0] mepc_o,
  // Interrupts.
  input  logic        irq_timer_i,
  input  logic        irq_external_i,
  input  logic [63:0] mtime_i,       // the CTRL block's machine timer, shadowed by time/timeh
  output logic        irq_take_o,    // an enabled interrupt is pending and mstatus.MIE is set
  output logic [4:0]  irq_cause_o,
  output logic        wfi_wake_o,    // (mip & mie) != 0, regardless of mstatus.MIE
  output logic [63:0] instret_o
);

  logic mie_q, mie_d, mpie_q, mpie_d;          // mstatus.MIE, mstatus.MPIE
  logic [31:0] mtvec_q, mtvec_d;
  logic [31:0] mscratch_q, mscratch_d;
  logic [31:0] mepc_q, mepc_d;
  logic [31:0] mcause_q, mcause_d;
  logic [31:0] mtval_q, mtval_d;
  logic msie_en_q, msie_en_d, mtie_q, mtie_d, meie_q, meie_d;
  logic [63:0] minstret_q, minstret_d;
  // Free-running; the simulator advances it (and the next value, which Verilator keeps from the last
  // evaluation) over the cycles it does not evaluate (tpu_top's quiescent_o).
  logic [63:0] mcycle_q /*verilator public_flat_rd*/;
  logic [63:0] mcycle_d /*verilator public_flat_rd*/;

  logic [31:0] mstatus, mie_reg, mip, wval;
  logic known, read_only;

  assign mstatus = {19'b0, 2'b11, 3'b0, mpie_q, 3'b0, mie_q, 3'b0};  // MPP reads 3 (M only)
  assign mie_reg = {20'b0, meie_q, 3'b0, mtie_q, 3'b0, msie_en_q, 3'b0};
  assign mip = {20'b0, irq_external_i, 3'b0, irq_timer_i, 7'b0};

  always_comb begin
    known = 1'b1;
    rdata_o = 32'b0;
    unique case (addr_i)
      CsrMstatus: rdata_o = mstatus;
      CsrMisa: rdata_o = MisaValue;
      CsrMie: rdata_o = mie_reg;
      CsrMtvec: rdata_o = mtvec_q;
      CsrMstatush: rdata_o = 32'b0;
      CsrMscratch: rdata_o = mscratch_q;
      CsrMepc: rdata_o = mepc_q;
      CsrMcause: rdata_o = mcause_q;
      CsrMtval: rdata_o = mtval_q;
      CsrMip: rdata_o = mip;
      CsrMcycle, CsrCycle: rdata_o = mcycle_q[31:0];
      CsrMcycleh, CsrCycleh: rdata_o = mcycle_q[63:32];
      CsrMinstret, CsrInstret: rdata_o = minstret_q[31:0];
      CsrMinstreth, CsrInstreth: rdata_o = minstret_q[63:32];
      CsrTime: rdata_o = mtime_i[31:0];
      CsrTimeh: rdata_o = mtime_i[63:32];
      CsrMvendorid, CsrMarchid, CsrMimpid, CsrMhartid, CsrMconfigptr, CsrMcountinhibit: rdata_o = 32'b0;
      // Debug triggers (Sdtrig) are not implemented: tselect/tdata1-3 read 0 and ignore writes,
      // which is how software discovers there are no triggers (tdata1.type = 0).
      CsrTselect, CsrTdata1, CsrTdata2, CsrTdata3: rdata_o = 32'b0;
      default: begin
        // Hardware performance counters 3..31 and their event selectors exist but count
        // nothing (the spec allows them to be read-only zero); other CSRs are unimplemented.
        known = (addr_i[11:5] == 7'b1011000 || addr_i[11:5] == 7'b1011100 ||   // mhpmcounter3..31[h]
                 addr_i[11:5] == 7'b1100000 || addr_i[11:5] == 7'b1100100 ||   // hpmcounter3..31[h]
                 addr_i[11:5] == 7'b0011001) &&                                // mhpmevent3..31
                addr_i[4:0] >= 5'd3;
      end
    endcase
  end

  assign read_only = addr_i[11:10] == 2'b11;
  assign illegal_o = !known || (read_only && write_i);

  always_comb begin
    unique case (op_i)
      CsrWrite: wval = wdata_i;
      CsrSet: wval = rdata_o | wdata_i;
      CsrClear: wval = rdata_o & ~wdata_i;
      default: wval = rdata_o;
    endcase
  end

  always_comb begin
    mie_d = mie_q;
    mpie_d = mpie_q;
    mtvec_d = mtvec_q;
    mscratch_d = mscratch_q;
    mepc_d = mepc_q;
    mcause_d = mcause_q;
    mtval_d = mtval_q;
    msie_en_d = msie_en_q;
    mtie_d = mtie_q;
    meie_d = meie_q;
    mcycle_d = mcycle_q + 64'd1;
    minstret_d = minstret_q + {63'b0, retire_i};

    if (access_i && write_i) begin
      unique case (addr_i)
        CsrMstatus: begin
          mie_d = wval[3];
          mpie_d = wval[7];
        end
        CsrMie: begin
          msie_en_d = wval[3];
          mtie_d = wval[7];
          meie_d = wval[11];
        end
        CsrMtvec: mtvec_d = {wval[31:2], 1'b0, wval[0]};  // modes 0 (direct) and 1 (vectored)
        CsrMscratch: mscratch_d = wval;
        CsrMepc: mepc_d = {wval[31:2], 2'b00};
        CsrMcause: mcause_d = wval;
        CsrMtval: mtval_d = wval;
        CsrMcycle: mcycle_d = {mcycle_q[63:32], wval};
        CsrMcycleh: mcycle_d = {wval, mcycle_q[31:0]};
        CsrMinstret: minstret_d = {minstret_q[63:32], wval};
        CsrMinstreth: minstret_d = {wval, minstret_q[31:0]};
        default: ;
      endcase
    end

    if (trap_i) begin
      mepc_d = {trap_pc_i[31:2], 2'b00};
      mcause_d = {trap_irq_i, 26'b0, trap_cause_i};
      mtval_d = trap_tval_i;
      mpie_d = mie_q;
      mie_d = 1'b0;
    end else if (mret_i) begin
      mie_d = mpie_q;
      mpie_d = 1'b1;
    end
  end

  assign trap_vector_o = (mtvec_q[0] && trap_irq_i) ? {mtvec_q[31:2], 2'b00} + {25'b0, trap_cause_i, 2'b00}
                                                   : {mtvec_q[31:2], 2'b00};
  assign mepc_o = mepc_q;
  assign wfi_wake_o = |(mip & mie_reg);
  assign irq_take_o = mie_q && wfi_wake_o;
  assign irq_cause_o = (irq_external_i && meie_q) ? IrqMExternal : IrqMTimer;
  assign instret_o = minstret_q;

  logic unused_trap_pc;
  assign unused_trap_pc = ^trap_pc_i[1:0];  // mepc is word aligned (no compressed instructions)

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mie_q <= 1'b0;
      mpie_q <= 1'b0;
      mtvec_q <= '0;
      mscratch_q <= '0;
      mepc_q <= '0;
      mcause_q <= '0;
      mtval_q <= '0;
      msie_en_q <= 1'b0;
      mtie_q <= 1'b0;
      meie_q <= 1'b0;
      mcycle_q <= '0;
      minstret_q <= '0;
    end else begin
      mie_q <= mie_d;
      mpie_q <= mpie_d;
      mtvec_q <= mtvec_d;
      mscratch_q <= mscratch_d;
      mepc_q <= mepc_d;
      mcause_q <= mcause_d;
      mtval_q <= mtval_d;
      msie_en_q <= msie_en_d;
      mtie_q <= mtie_d;
      meie_q <= meie_d;
      mcycle_q <= mcycle_d;
      minstret_q <= minstret_d;
    end
  end

endmodule
