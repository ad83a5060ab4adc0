// Types and encodings of the rv32im control core (opcodes, CSR numbers, decoded-instruction record).
package tpu_core_pkg;

  typedef enum logic [6:0] {
    OpLoad   = 7'b0000011,
    OpMiscMem= 7'b0001111,
    OpImm    = 7'b0010011,
    OpAuipc  = 7'b0010111,
    OpStore  = 7'b0100011,
    OpReg    = 7'b0110011,
    OpLui    = 7'b0110111,
    OpBranch = 7'b1100011,
    OpJalr   = 7'b1100111,
    OpJal    = 7'b1101111,
    OpSystem = 7'b1110011
  } opcode_e;

  typedef enum logic [3:0] {
    AluAdd, AluSub, AluSll, AluSlt, AluSltu, AluXor, AluSrl, AluSra, AluOr, AluAnd, AluPassB
  } alu_op_e;

  typedef enum logic [1:0] { CsrNone, CsrWrite, CsrSet, CsrClear } csr_op_e;

  // Result source of an instruction leaving EX.
  typedef enum logic [1:0] { ResAlu, ResLink, ResCsr, ResMulDiv } res_sel_e;

  localparam logic [11:0] CsrMstatus   = 12'h300;
  localparam logic [11:0] CsrMisa      = 12'h301;
  localparam logic [11:0] CsrMie       = 12'h304;
  localparam logic [11:0] CsrMtvec     = 12'h305;
  localparam logic [11:0] CsrMstatush  = 12'h310;
  localparam logic [11:0] CsrMscratch  = 12'h340;
  localparam logic [11:0] CsrMepc      = 12'h341;
  localparam logic [11:0] CsrMcause    = 12'h342;
  localparam logic [11:0] CsrMtval     = 12'h343;
  localparam logic [11:0] CsrMip       = 12'h344;
  localparam logic [11:0] CsrMcycle    = 12'hB00;
  localparam logic [11:0] CsrMinstret  = 12'hB02;
  localparam logic [11:0] CsrMcycleh   = 12'hB80;
  localparam logic [11:0] CsrMinstreth = 12'hB82;
  localparam logic [11:0] CsrCycle     = 12'hC00;
  localparam logic [11:0] CsrInstret   = 12'hC02;
  localparam logic [11:0] CsrCycleh    = 12'hC80;
  localparam logic [11:0] CsrInstreth  = 12'hC82;
  localparam logic [11:0] CsrMvendorid = 12'hF11;
  localparam logic [11:0] CsrMarchid   = 12'hF12;
  localparam logic [11:0] CsrMimpid    = 12'hF13;
  localparam logic [11:0] CsrMhartid   = 12'hF14;
  localparam logic [11:0] CsrMconfigptr= 12'hF15;
  localparam logic [11:0] CsrMcountinhibit = 12'h320;
  localparam logic [11:0] CsrTselect   = 12'h7A0;
  localparam logic [11:0] CsrTdata1    = 12'h7A1;
  localparam logic [11:0] CsrTdata2    = 12'h7A2;
  localparam logic [11:0] CsrTdata3    = 12'h7A3;
  localparam logic [11:0] CsrTime      = 12'hC01;
  localparam logic [11:0] CsrTimeh     = 12'hC81;

  // misa: MXL=1 (32-bit), extensions I and M.
  localparam logic [31:0] MisaValue = 32'h4000_1100;

  localparam logic [4:0] ExcInstrMisaligned = 5'd0;
  localparam logic [4:0] ExcInstrAccess     = 5'd1;
  localparam logic [4:0] ExcIllegal         = 5'd2;
  localparam logic [4:0] ExcBreakpoint      = 5'd3;
  localparam logic [4:0] ExcLoadMisaligned  = 5'd4;
  localparam logic [4:0] ExcLoadAccess      = 5'd5;
  localparam logic [4:0] ExcStoreMisaligned = 5'd6;
  localparam logic [4:0] ExcStoreAccess     = 5'd7;
  localparam logic [4:0] ExcEcallM          = 5'd11;
  localparam logic [4:0] IrqMTimer          = 5'd7;
  localparam logic [4:0] IrqMExternal       = 5'd11;

  // One decoded instruction as it travels from ID into EX.
  typedef struct packed {
    logic [31:0] pc;
    logic [31:0] instr;
    logic [31:0] imm;
    logic [4:0]  rd;
    logic [4:0]  rs1;
    logic [4:0]  rs2;
    logic        rd_we;
    alu_op_e     alu_op;
    logic        alu_a_pc;    // operand A is the pc (auipc)
    logic        alu_a_zero;  // operand A is zero (lui)
    logic        alu_b_imm;   // operand B is the immediate
    res_sel_e    res_sel;
    logic        is_load;
    logic        is_store;
    logic [1:0]  mem_size;    // 0 byte, 1 half, 2 word
    logic        mem_unsigned;
    logic        is_branch;
    logic [2:0]  br_funct3;
    logic        is_jal;
    logic        is_jalr;
    logic        pred_taken;  // ID already redirected fetch to the branch/jal target
    csr_op_e     csr_op;
    logic        csr_imm;     // rs1 field is a zero-extended immediate
    logic        is_muldiv;
    logic [2:0]  md_funct3;
    logic        is_ecall;
    logic        is_ebreak;
    logic        is_mret;
    logic        is_wfi;
    logic        is_fencei;
    logic        illegal;
    logic        fetch_fault;
  } id_ex_t;

endpackage
