// Strata device top: control core, SMEM, CTRL registers, the HTIF tohost monitor and a host
// port into SMEM (the loader's and, later, the host link's window).
module tpu_top
  import tpu_regmap_pkg::*;
#(
  parameter int unsigned SmemBytes = SmemSize
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  // HTIF: a store to tohost_addr_i (0 disables) ends the run with the stored value.
  input  logic [31:0]        tohost_addr_i,
  output logic               tohost_valid_o,
  output logic [31:0]        tohost_data_o,
  output logic               console_valid_o,
  output logic [7:0]         console_data_o,
  input  logic [NumIrqs-1:0] irq_i,
  // Host port into SMEM; granted when the core's data port is idle. Read data next cycle.
  input  logic               host_req_i,
  input  logic               host_we_i,
  input  logic [31:0]        host_addr_i,   // byte offset into SMEM
  input  logic [3:0]         host_be_i,
  input  logic [31:0]        host_wdata_i,
  output logic               host_gnt_o,
  output logic [31:0]        host_rdata_o,
  output logic [63:0]        instret_o,
  output logic               sleeping_o
);

  logic [31:0] ibus_addr, ibus_rdata;
  logic        dbus_req, dbus_we;
  logic [31:0] dbus_addr, dbus_wdata, dbus_rdata;
  logic [3:0]  dbus_be;
  logic        irq_timer, irq_external;
  logic [63:0] mtime;
  logic        core_smem, core_ctrl, rd_ctrl_q;
  logic        smem_req, smem_we;
  logic [31:0] smem_addr, smem_wdata, smem_rdata, ctrl_rdata;
  logic [3:0]  smem_be;
  logic        tohost_valid_q;
  logic [31:0] tohost_data_q;

  tpu_core #(
    .SmemBase (SmemBase),
    .SmemBytes(SmemBytes),
    .MmioBase (MmioBase),
    .MmioBytes(MmioSize)
  ) u_core (
    .clk_i,
    .rst_ni,
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
  assign core_ctrl = dbus_req && (dbus_addr < SmemBase) && ((dbus_addr - CtrlBase) < CtrlSize);

  always_comb begin
    host_gnt_o = host_req_i && !core_smem;
    smem_req = core_smem || host_gnt_o;
    smem_we = core_smem ? dbus_we : host_we_i;
    smem_addr = core_smem ? dbus_addr - SmemBase : host_addr_i;
    smem_be = core_smem ? dbus_be : host_be_i;
    smem_wdata = core_smem ? dbus_wdata : host_wdata_i;
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

  tpu_ctrl_regs #(.SmemBytes(SmemBytes)) u_ctrl (
    .clk_i,
    .rst_ni,
    .req_i          (core_ctrl),
    .we_i           (dbus_we),
    .addr_i         (dbus_addr[11:0]),
    .be_i           (dbus_be),
    .wdata_i        (dbus_wdata),
    .rdata_o        (ctrl_rdata),
    .irq_i,
    .console_valid_o,
    .console_data_o,
    .irq_timer_o    (irq_timer),
    .mtime_o        (mtime),
    .irq_external_o (irq_external)
  );

  assign dbus_rdata = rd_ctrl_q ? ctrl_rdata : smem_rdata;
  assign host_rdata_o = smem_rdata;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rd_ctrl_q <= 1'b0;
      tohost_valid_q <= 1'b0;
      tohost_data_q <= '0;
    end else begin
      rd_ctrl_q <= core_ctrl;
      tohost_valid_q <= dbus_req && dbus_we && tohost_addr_i != 32'b0 && dbus_addr == tohost_addr_i &&
                        dbus_be == 4'b1111 && dbus_wdata != 32'b0;
      tohost_data_q <= dbus_wdata;
    end
  end

  assign tohost_valid_o = tohost_valid_q;
  assign tohost_data_o = tohost_data_q;

endmodule
