// Assertion macros in the manner of lowRISC's prim_assert.sv: every RTL check is written through
// these, so it reads as one line, names itself and reports where it is. Verilator checks them with
// --assert (the chip's build, the RTL unit tests); a failing concurrent or immediate check prints
//   %Error: FILE:LINE: Assertion failed in TOP.<scope>.<Name>: [ASSERT FAILED] <Name> (FILE:LINE)
// and stops the simulation ($error, which Verilator makes fatal unless the context says otherwise).
//
//   `ASSERT(Name, prop, clk = clk_i, rst_n = rst_ni)        prop holds at every clock edge out of reset
//   `ASSERT_NEVER(Name, prop, clk = clk_i, rst_n = rst_ni)  prop never holds
//   `ASSERT_KNOWN(Name, sig, clk = clk_i, rst_n = rst_ni)   sig has no X or Z bit (for 4-state
//                                                           simulators: a 2-state Verilated model folds it away)
//   `ASSERT_INIT(Name, prop)                                 at time 0: parameter legality ($fatal)
//
// Concurrent properties may use what Verilator 5.006 implements: |-> and |=>, $past, $stable,
// $rose, $fell, $onehot, $onehot0, $isunknown, disable iff. Each property costs a few operations
// per evaluated clock edge (and a register per $past/$stable operand) in the Verilated model: keep
// operands narrow (issue [J], docs/simulation-speed.md).
`ifndef TPU_ASSERT_SVH
`define TPU_ASSERT_SVH

`define TPU_ASSERT_STRINGIFY(__x) `"__x`"

`define ASSERT(__name, __prop, __clk = clk_i, __rst_n = rst_ni) \
  __name: assert property (@(posedge __clk) disable iff (!(__rst_n)) (__prop)) \
    else $error("[ASSERT FAILED] %s (%s:%0d)", `TPU_ASSERT_STRINGIFY(__name), `__FILE__, `__LINE__);

`define ASSERT_NEVER(__name, __prop, __clk = clk_i, __rst_n = rst_ni) \
  `ASSERT(__name, !(__prop), __clk, __rst_n)

`define ASSERT_KNOWN(__name, __sig, __clk = clk_i, __rst_n = rst_ni) \
  `ASSERT(__name, !$isunknown(__sig), __clk, __rst_n)

`define ASSERT_INIT(__name, __prop) \
  initial begin : __name \
    assert (__prop) \
      else $fatal(1, "[ASSERT FAILED] %s (%s:%0d)", `TPU_ASSERT_STRINGIFY(__name), `__FILE__, `__LINE__); \
  end

`endif  // TPU_ASSERT_SVH
