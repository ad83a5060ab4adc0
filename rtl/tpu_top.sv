// Strata device top: control core, SMEM, CTRL registers, the DMA engine with VMEM and ACC, the
// matrix unit (MXU) on VMEM port B and the ACC row ports, the vector unit (VPU) on VMEM port B where the MXU
// leaves it free, the
// HTIF tohost monitor, a host port into the device address space (SMEM and registers: the
// host link's BAR and the ELF loader's path) and the memory-side channels to the HBM bridge.
module tpu_top
  import tpu_regmap_pkg::*;
#(
  parameter int unsigned SmemBytes = SmemSize,
  parameter int unsigned VmemBytes = VmemSize,
  parameter int unsigned AccBytes = AccSize,
  parameter int unsigned MxuN = 16               // systolic array size (N x N); a power of two
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               core_rst_ni,   // holds only the control core in reset (loading, host-only use)
  // Keeps the clocks of the DMA, the matrix unit and the line memories running while those blocks are idle
  // (the gates change when Verilator evaluates them, not what they do: the simulator's fast paths off).
  input  logic               gate_bypass_i,
  // HTIF: a store to tohost_addr_i (0 disables) ends the run with the stored value.
  input  logic [31:0]        tohost_addr_i,
  output logic               tohost_valid_o,
  output logic [31:0]        tohost_data_o,
  output logic               console_valid_o,
  output logic [7:0]         console_data_o,
  input  logic [NumIrqs-1:0] irq_i,
  // Host port: word accesses to SMEM or MMIO registers by device address; served when the
  // core does not use that path this cycle (host_gnt_o); read data the next cycle.
  input  logic               host_req_i,
  input  logic               host_we_i,
  input  logic [31:0]        host_addr_i,
  input  logic [3:0]         host_be_i,
  input  logic [31:0]        host_wdata_i,
  output logic               host_gnt_o,
  output logic [31:0]        host_rdata_o,
  output logic [63:0]        instret_o,
  output logic               sleeping_o,
  // Quiescent: the core sleeps in wfi, the DMA is quiet and the matrix unit quiet and settled (its
  // clock gate's hold run out), so with the inputs held, no state but the free-running counters
  // (mcycle, CTRL cycle and mtime, the matrix unit's starved count) changes at the next edge. A simulator may then skip evaluating the
  // chip and advance those counters instead (sim/device.cc), up to the timer's compare value.
  output logic               quiescent_o,
  // The matrix unit has a command queued or in flight (not quiet): for timelines (sim/run_timeline.h).
  output logic               mxu_busy_o,
  // HBM-side bridge (see tpu_dma).
  input  logic [63:0]        hbm_capacity_i,
  output logic               mem_cmd_valid_o,
  input  logic               mem_cmd_ready_i,
  output logic [1:0]         mem_cmd_op_o,
  output logic               mem_cmd_tag_o,
  output logic [63:0]        mem_cmd_src_o,
  output logic [63:0]        mem_cmd_dst_o,
  output logic [31:0]        mem_cmd_len_o,
  output logic [1:0]         mem_cmd_chip_tier_o,
  input  logic               mem_rd_valid_i,
  output logic               mem_rd_ready_o,
  input  logic [1:0]         mem_rd_tier_i,
  input  logic [31:0]        mem_rd_addr_i,
  input  logic [63:0]        mem_rd_be_i,
  input  logic [511:0]       mem_rd_data_i,
  output logic               mem_wr_valid_o,
  input  logic               mem_wr_ready_i,
  output logic               mem_wr_tag_o,
  output logic [63:0]        mem_wr_be_o,
  output logic [511:0]       mem_wr_data_o,
  input  logic               mem_done_valid_i,
  input  logic               mem_done_tag_i
);

  logic [31:0] ibus_addr, ibus_rdata;
  logic        dbus_req, dbus_we;
  logic [31:0] dbus_addr, dbus_wdata, dbus_rdata;
  logic [3:0]  dbus_be;
  logic        irq_timer, irq_external, dma_irq;
  logic [63:0] mtime;
  logic        core_smem, core_mmio, host_smem, host_mmio;
  logic        smem_req, smem_we;
  logic [31:0] smem_addr, smem_wdata, smem_rdata;
  logic [3:0]  smem_be;
  logic        dma_smem_req, dma_smem_we, dma_smem_gnt;
  logic [31:0] dma_smem_addr, dma_smem_wdata;
  logic [3:0]  dma_smem_be;
  logic        reg_req, reg_we;
  logic [31:0] reg_addr, reg_wdata, ctrl_rdata, dma_rdata, mxu_rdata, vpu_rdata, dev_rdata;
  logic [3:0]  reg_be;
  logic        reg_ctrl, reg_dma, reg_mxu, reg_vpu;
  logic        core_rd_mmio_q, host_rd_mmio_q, rd_dma_q, rd_mxu_q, rd_vpu_q;
  logic        mxu_irq, dma_quiet, mxu_quiet, vpu_irq, vpu_quiet;
  logic        vpu_vmem_req, vpu_vmem_we, vpu_vmem_gnt, port_b_req, port_b_we;
  logic [31:0] vpu_vmem_line, port_b_line;
  logic [63:0] port_b_be;
  logic [511:0] vpu_vmem_wdata, port_b_wdata;
  logic        clk_vpu, vpu_gate_busy, vpu_clk_en, vpu_gate_steady, unused_vpu_settled;
  logic        mxu_vmem_req, mxu_vmem_we, mxu_acc_r_req, mxu_acc_w_req;
  logic [31:0] mxu_vmem_line, mxu_acc_r_row, mxu_acc_w_row;
  logic [63:0] mxu_vmem_be;
  logic [511:0] mxu_vmem_wdata, mxu_vmem_rdata;
  logic [MxuN*32-1:0] mxu_acc_rdata, mxu_acc_wdata;
  logic        tohost_valid_q;
  logic [31:0] tohost_data_q;
  logic [63:0] hbm_cap_q;  // the DMA's range checks read it: registered, so they stay off the input path
  logic        clk_dma, clk_mxu, clk_mem, dma_idle, dma_gate_busy, mxu_gate_busy, dma_clk_en, mxu_clk_en;
  logic        dma_gate_steady, mxu_gate_steady, mxu_array_steady, mxu_settled, unused_dma_settled;
  // Every clock gate's flops (the DMA's, the matrix unit's, and the array's mesh and weight-path gates)
  // keep their values at the next falling edge (read by the simulator: sim/verilated_chip.h).
  logic        gates_steady /*verilator public_flat_rd*/;
  logic        vmem_req, vmem_we, acc_req, acc_we;
  logic [31:0] vmem_line, acc_line;
  logic [63:0] vmem_be, acc_be;
  logic [511:0] vmem_wdata, vmem_rdata, acc_wdata, acc_rdata;
  logic [NumIrqs-1:0] irq_lines;
  logic        core_rst_n;

  assign core_rst_n = rst_ni && core_rst_ni;

  tpu_core #(
    .BootAddr (SmemBase),  // the reset vector: the image's entry at the base of SMEM (elf_loader checks it)
    .SmemBase (SmemBase),
    .SmemBytes(SmemBytes),
    .MmioBase (MmioBase),
    .MmioBytes(MmioSize)
  ) u_core (
    .clk_i,
    .rst_ni        (core_rst_n),
    .ibus_addr_o   (ibus_addr),
    .ibus_rdata_i  (ibus_rdata),
    .dbus_req_o    (dbus_req),
    .dbus_we_o     (dbus_we),
    .dbus_addr_o   (dbus_addr),
    .dbus_be_o     (dbus_be),
    .dbus_wdata_o  (dbus_wdata),
    .dbus_rdata_i  (dbus_rdata),
    .irq_timer_i   (irq_timer),
    .irq_external_i(irq_external),
    .mtime_i       (mtime),
    .instret_o,
    .sleeping_o
  );

  // The core only issues requests to SMEM or MMIO (others trap as access faults in EX).
  assign core_smem = dbus_req && (dbus_addr >= SmemBase);
  assign core_mmio = dbus_req && (dbus_addr < SmemBase);
  assign host_smem = host_req_i && (host_addr_i - SmemBase) < SmemBytes;
  assign host_mmio = host_req_i && (host_addr_i - MmioBase) < MmioSize;

  // SMEM data port: core first, then DMA, then host. The DMA's grant is kept apart from the host's
  // (which depends on the host port's inputs), so that the DMA's logic stays out of Verilator's
  // input-combinational region.
  assign dma_smem_gnt = dma_smem_req && !core_smem;
  always_comb begin
    host_gnt_o = 1'b0;
    if (host_smem) host_gnt_o = !core_smem && !dma_smem_req;
    if (host_mmio) host_gnt_o = !core_mmio;
    if (host_req_i && !host_smem && !host_mmio) host_gnt_o = 1'b1;  // unmapped: dropped, reads 0
    smem_req = core_smem || dma_smem_gnt || (host_smem && host_gnt_o);
    if (core_smem) begin
      smem_we = dbus_we;
      smem_addr = dbus_addr - SmemBase;
      smem_be = dbus_be;
      smem_wdata = dbus_wdata;
    end else if (dma_smem_req) begin
      smem_we = dma_smem_we;
      smem_addr = dma_smem_addr;
      smem_be = dma_smem_be;
      smem_wdata = dma_smem_wdata;
    end else begin
      smem_we = host_we_i;
      smem_addr = host_addr_i - SmemBase;
      smem_be = host_be_i;
      smem_wdata = host_wdata_i;
    end
  end

  tpu_smem #(.Bytes(SmemBytes)) u_smem (
    .clk_i,
    .iaddr_i (ibus_addr - SmemBase),
    .irdata_o(ibus_rdata),
    .dreq_i  (smem_req),
    .dwe_i   (smem_we),
    .daddr_i (smem_addr),
    .dbe_i   (smem_be),
    .dwdata_i(smem_wdata),
    .drdata_o(smem_rdata)
  );

  // Register path: core first, then host.
  always_comb begin
    reg_req = core_mmio || (host_mmio && host_gnt_o);
    reg_we = core_mmio ? dbus_we : host_we_i;
    reg_addr = core_mmio ? dbus_addr : host_addr_i;
    reg_be = core_mmio ? dbus_be : host_be_i;
    reg_wdata = core_mmio ? dbus_wdata : host_wdata_i;
    reg_ctrl = reg_req && (reg_addr - CtrlBase) < CtrlSize;
    reg_dma = reg_req && (reg_addr - DmaBase) < DmaSize;
    reg_mxu = reg_req && (reg_addr - MxuBase) < MxuSize;
    reg_vpu = reg_req && (reg_addr - VpuBase) < VpuSize;
  end

  always_comb begin
    irq_lines = irq_i;
    irq_lines[IrqDma] = irq_i[IrqDma] | dma_irq;
    irq_lines[IrqMxu] = irq_i[IrqMxu] | mxu_irq;
    irq_lines[IrqVpu] = irq_i[IrqVpu] | vpu_irq;
  end

  tpu_ctrl_regs #(.SmemBytes(SmemBytes)) u_ctrl (
    .clk_i,
    .rst_ni,
    .req_i          (reg_ctrl),
    .we_i           (reg_we),
    .addr_i         (reg_addr[11:0]),
    .be_i           (reg_be),
    .wdata_i        (reg_wdata),
    .rdata_o        (ctrl_rdata),
    .irq_i          (irq_lines),
    .console_valid_o,
    .console_data_o,
    .irq_timer_o    (irq_timer),
    .mtime_o        (mtime),
    .irq_external_o (irq_external)
  );

  // ------------------------------------------------------------------ clock gates
  // The DMA engine, the matrix unit (its mesh has a gate of its own inside) and the line memories they
  // share are idle for most of a run's cycles: with their clocks gated, Verilator evaluates them only
  // when they have work (docs/simulation-speed.md, "Idle blocks on gated clocks"). A block is busy while
  // it is not idle or a register access is addressed to it (the register bus settles before the falling
  // edge, when the gates sample their enables). The DMA is idle only with nothing issued, so the bridge
  // never drives it while its clock is stopped. The matrix unit's clock runs on for MxuSettle cycles
  // after it goes quiet: its tag delay line (2N slots) and the two result stages after it load every
  // cycle, and settle on their idle values within that time. The memories change only at a request of
  // the DMA or the matrix unit, which each makes only while its own clock runs.
  localparam int unsigned MxuSettle = 2 * MxuN + 8;

  assign dma_gate_busy = !dma_idle || reg_dma;
  assign mxu_gate_busy = !mxu_quiet || reg_mxu;
  // The vector unit's registers load only while a command runs (its pipeline drains before it goes quiet), so its
  // gate closes as soon as it is quiet: an idle VPU costs no evaluation and no cycle.
  assign vpu_gate_busy = !vpu_quiet || reg_vpu;

  tpu_clock_gate u_dma_gate (
    .clk_i,
    .rst_ni,
    .busy_i   (dma_gate_busy),
    .bypass_i (gate_bypass_i),
    .clk_o    (clk_dma),
    .en_o     (dma_clk_en),
    .steady_o (dma_gate_steady),
    .settled_o(unused_dma_settled)
  );

  tpu_clock_gate #(.Hold(MxuSettle)) u_mxu_gate (
    .clk_i,
    .rst_ni,
    .busy_i   (mxu_gate_busy),
    .bypass_i (gate_bypass_i),
    .clk_o    (clk_mxu),
    .en_o     (mxu_clk_en),
    .steady_o (mxu_gate_steady),
    .settled_o(mxu_settled)
  );

  tpu_clock_gate u_vpu_gate (
    .clk_i,
    .rst_ni,
    .busy_i   (vpu_gate_busy),
    .bypass_i (gate_bypass_i),
    .clk_o    (clk_vpu),
    .en_o     (vpu_clk_en),
    .steady_o (vpu_gate_steady),
    .settled_o(unused_vpu_settled)
  );

  assign clk_mem = clk_i & (dma_clk_en | mxu_clk_en | vpu_clk_en);
  assign gates_steady = dma_gate_steady && mxu_gate_steady && mxu_array_steady && vpu_gate_steady;

  tpu_dma #(
    .VmemBytes(VmemBytes),
    .AccBytes (AccBytes),
    .SmemBytes(SmemBytes)
  ) u_dma (
    .clk_i          (clk_dma),
    .rst_ni,
    .reg_req_i      (reg_dma),
    .reg_we_i       (reg_we),
    .reg_addr_i     (reg_addr[11:0]),
    .reg_wdata_i    (reg_wdata),
    .reg_rdata_o    (dma_rdata),
    .hbm_capacity_i (hbm_cap_q),
    .irq_o          (dma_irq),
    .quiet_o        (dma_quiet),
    .idle_o         (dma_idle),
    .cmd_valid_o    (mem_cmd_valid_o),
    .cmd_ready_i    (mem_cmd_ready_i),
    .cmd_op_o       (mem_cmd_op_o),
    .cmd_tag_o      (mem_cmd_tag_o),
    .cmd_src_o      (mem_cmd_src_o),
    .cmd_dst_o      (mem_cmd_dst_o),
    .cmd_len_o      (mem_cmd_len_o),
    .cmd_chip_tier_o(mem_cmd_chip_tier_o),
    .rd_valid_i     (mem_rd_valid_i),
    .rd_ready_o     (mem_rd_ready_o),
    .rd_tier_i      (mem_rd_tier_i),
    .rd_addr_i      (mem_rd_addr_i),
    .rd_be_i        (mem_rd_be_i),
    .rd_data_i      (mem_rd_data_i),
    .wr_valid_o     (mem_wr_valid_o),
    .wr_ready_i     (mem_wr_ready_i),
    .wr_tag_o       (mem_wr_tag_o),
    .wr_be_o        (mem_wr_be_o),
    .wr_data_o      (mem_wr_data_o),
    .done_valid_i   (mem_done_valid_i),
    .done_tag_i     (mem_done_tag_i),
    .vmem_req_o     (vmem_req),
    .vmem_we_o      (vmem_we),
    .vmem_line_o    (vmem_line),
    .vmem_be_o      (vmem_be),
    .vmem_wdata_o   (vmem_wdata),
    .vmem_rdata_i   (vmem_rdata),
    .acc_req_o      (acc_req),
    .acc_we_o       (acc_we),
    .acc_line_o     (acc_line),
    .acc_be_o       (acc_be),
    .acc_wdata_o    (acc_wdata),
    .acc_rdata_i    (acc_rdata),
    .smem_req_o     (dma_smem_req),
    .smem_we_o      (dma_smem_we),
    .smem_addr_o    (dma_smem_addr),
    .smem_be_o      (dma_smem_be),
    .smem_wdata_o   (dma_smem_wdata),
    .smem_gnt_i     (dma_smem_gnt),
    .smem_rdata_i   (smem_rdata)
  );

  tpu_mxu #(
    .N        (MxuN),
    .VmemBytes(VmemBytes),
    .AccBytes (AccBytes)
  ) u_mxu (
    .clk_i        (clk_mxu),
    .clk_free_i   (clk_i),
    .rst_ni,
    .reg_req_i    (reg_mxu),
    .reg_we_i     (reg_we),
    .reg_addr_i   (reg_addr[11:0]),
    .reg_wdata_i  (reg_wdata),
    .reg_rdata_o  (mxu_rdata),
    .irq_o        (mxu_irq),
    .quiet_o      (mxu_quiet),
    .array_gates_steady_o(mxu_array_steady),
    .vmem_req_o   (mxu_vmem_req),
    .vmem_we_o    (mxu_vmem_we),
    .vmem_line_o  (mxu_vmem_line),
    .vmem_be_o    (mxu_vmem_be),
    .vmem_wdata_o (mxu_vmem_wdata),
    .vmem_rdata_i (mxu_vmem_rdata),
    .acc_r_req_o  (mxu_acc_r_req),
    .acc_r_row_o  (mxu_acc_r_row),
    .acc_r_rdata_i(mxu_acc_rdata),
    .acc_w_req_o  (mxu_acc_w_req),
    .acc_w_row_o  (mxu_acc_w_row),
    .acc_w_wdata_o(mxu_acc_wdata)
  );

  tpu_vpu_engine #(.VmemBytes(VmemBytes)) u_vpu (
    .clk_i       (clk_vpu),
    .rst_ni,
    .reg_req_i   (reg_vpu),
    .reg_we_i    (reg_we),
    .reg_addr_i  (reg_addr[11:0]),
    .reg_wdata_i (reg_wdata),
    .reg_rdata_o (vpu_rdata),
    .irq_o       (vpu_irq),
    .quiet_o     (vpu_quiet),
    .vmem_req_o  (vpu_vmem_req),
    .vmem_we_o   (vpu_vmem_we),
    .vmem_line_o (vpu_vmem_line),
    .vmem_wdata_o(vpu_vmem_wdata),
    .vmem_gnt_i  (vpu_vmem_gnt),
    .vmem_rdata_i(mxu_vmem_rdata)
  );

  // VMEM port B: the matrix unit's whenever it requests it (its timing never depends on the VPU), the vector
  // unit's in the other cycles. Both read the port's data the cycle after their own granted read.
  assign vpu_vmem_gnt = !mxu_vmem_req;
  always_comb begin
    port_b_req = mxu_vmem_req;
    port_b_we = mxu_vmem_we;
    port_b_line = mxu_vmem_line;
    port_b_be = mxu_vmem_be;
    port_b_wdata = mxu_vmem_wdata;
    if (!mxu_vmem_req && vpu_vmem_req) begin
      port_b_req = 1'b1;
      port_b_we = vpu_vmem_we;
      port_b_line = vpu_vmem_line;
      port_b_be = '1;
      port_b_wdata = vpu_vmem_wdata;
    end
  end

  // VMEM: port A is the DMA's, port B the matrix unit's and the vector unit's.
  tpu_line_ram #(.Bytes(VmemBytes)) u_vmem (
    .clk_i    (clk_mem),
    .a_req_i  (vmem_req),
    .a_we_i   (vmem_we),
    .a_line_i (vmem_line),
    .a_be_i   (vmem_be),
    .a_wdata_i(vmem_wdata),
    .a_rdata_o(vmem_rdata),
    .b_req_i  (port_b_req),
    .b_we_i   (port_b_we),
    .b_line_i (port_b_line),
    .b_be_i   (port_b_be),
    .b_wdata_i(port_b_wdata),
    .b_rdata_o(mxu_vmem_rdata)
  );

  // ACC: lines for the DMA, whole result rows (read and write) for the matrix unit.
  tpu_acc_ram #(.Bytes(AccBytes), .N(MxuN)) u_acc (
    .clk_i    (clk_mem),
    .a_req_i  (acc_req),
    .a_we_i   (acc_we),
    .a_line_i (acc_line),
    .a_be_i   (acc_be),
    .a_wdata_i(acc_wdata),
    .a_rdata_o(acc_rdata),
    .r_req_i  (mxu_acc_r_req),
    .r_row_i  (mxu_acc_r_row),
    .r_rdata_o(mxu_acc_rdata),
    .w_req_i  (mxu_acc_w_req),
    .w_row_i  (mxu_acc_w_row),
    .w_wdata_i(mxu_acc_wdata)
  );

  assign dev_rdata = rd_dma_q ? dma_rdata : (rd_mxu_q ? mxu_rdata : (rd_vpu_q ? vpu_rdata : ctrl_rdata));
  assign dbus_rdata = core_rd_mmio_q ? dev_rdata : smem_rdata;
  assign host_rdata_o = host_rd_mmio_q ? dev_rdata : smem_rdata;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      core_rd_mmio_q <= 1'b0;
      host_rd_mmio_q <= 1'b0;
      rd_dma_q <= 1'b0;
      rd_mxu_q <= 1'b0;
      rd_vpu_q <= 1'b0;
      tohost_valid_q <= 1'b0;
      tohost_data_q <= '0;
      hbm_cap_q <= '0;
    end else begin
      core_rd_mmio_q <= core_mmio;
      host_rd_mmio_q <= host_mmio && host_gnt_o;
      rd_dma_q <= reg_dma;
      rd_mxu_q <= reg_mxu;
      rd_vpu_q <= reg_vpu;
      tohost_valid_q <= dbus_req && dbus_we && tohost_addr_i != 32'b0 && dbus_addr == tohost_addr_i &&
                        dbus_be == 4'b1111 && dbus_wdata != 32'b0;
      tohost_data_q <= dbus_wdata;
      hbm_cap_q <= hbm_capacity_i;
    end
  end

  assign tohost_valid_o = tohost_valid_q;
  assign tohost_data_o = tohost_data_q;
  // mxu_settled: its pipelines' data registers hold their idle values too (see "clock gates").
  assign quiescent_o = sleeping_o && dma_quiet && mxu_settled && vpu_quiet && !tohost_valid_q;
  assign mxu_busy_o = !mxu_quiet;

endmodule
