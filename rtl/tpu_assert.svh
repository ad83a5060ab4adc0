// Assertion macros in the manner of lowRISC's prim_assert.sv: every RTL check is written through
// these, so it reads as one line, names itself and reports where it is. Verilator checks them with
// --assert (the chip's build, the RTL unit tests); a failing check prints
//   %Error: FILE:LINE: Assertion failed in TOP.<scope>.<Name>: [ASSERT FAILED] <Name> ... (FILE:LINE)
// and stops the simulation ($error, which Verilator makes fatal unless the context says otherwise).
//
//   `ASSERT(Name, prop, clk = clk_i, rst_n = rst_ni)            prop holds at every rising edge out of reset
//   `ASSERT_NEVER(Name, prop, clk = clk_i, rst_n = rst_ni)      prop never holds
//   `ASSERT_IF(Name, prop, enable, clk = clk_i, rst_n = rst_ni) enable |-> prop; enable is tested first and
//                                                               alone: make it one rarely set bit (cheapest)
//   `ASSERT_KNOWN(Name, sig, clk = clk_i, rst_n = rst_ni)       sig has no X or Z bit (for 4-state
//                                                               simulators: a 2-state model folds it away)
//   `ASSERT_HELD(Name, valid, ready, payload, clk = clk_i, rst_n = rst_ni)
//        valid/ready: after an edge with valid && !ready, valid is still up and payload unchanged
//   `ASSERT_INIT(Name, prop)                                     at time 0: parameter legality ($fatal)
//
// Cost (issue [J]: every evaluated cycle pays for every check): these are immediate assertions in
// clocked blocks, not `assert property`, because Verilator 5.006 keeps a sampled copy of every
// operand of a concurrent assertion and refreshes all of them at every eval() (twice a simulated
// cycle in sim/); and `assert` runs only once the property has failed (`if (!prop) assert (prop)`):
// every assert statement is guarded with a load of the context's assertOn flag, which was most of a
// passing check's cost. A passing check is then its property's few operations per
// rising edge, or with ASSERT_IF one test of its enable (Verilator keeps the nested ifs); ASSERT_HELD
// tests its stall bit and copies the payload in stalled cycles only (keep payloads narrow).
// (And 5.006 fails internally, V3Unknown, on an element of an unpacked array inside
// `assert property`; immediate assertions have no such limit.)
`ifndef TPU_ASSERT_SVH
`define TPU_ASSERT_SVH

`define TPU_ASSERT_STRINGIFY(__x) `"__x`"

`define ASSERT(__name, __prop, __clk = clk_i, __rst_n = rst_ni) \
  always_ff @(posedge __clk) begin : __name \
    if (__rst_n && !(__prop)) begin \
      assert (__prop) \
        else $error("[ASSERT FAILED] %s (%s:%0d)", `TPU_ASSERT_STRINGIFY(__name), `__FILE__, `__LINE__); \
    end \
  end

`define ASSERT_NEVER(__name, __prop, __clk = clk_i, __rst_n = rst_ni) \
  `ASSERT(__name, !(__prop), __clk, __rst_n)

`define ASSERT_IF(__name, __prop, __enable, __clk = clk_i, __rst_n = rst_ni) \
  always_ff @(posedge __clk) begin : __name \
    if (__enable) begin \
      if (__rst_n && !(__prop)) begin \
        assert (__prop) \
          else $error("[ASSERT FAILED] %s (%s:%0d)", `TPU_ASSERT_STRINGIFY(__name), `__FILE__, `__LINE__); \
      end \
    end \
  end

`define ASSERT_KNOWN(__name, __sig, __clk = clk_i, __rst_n = rst_ni) \
  `ASSERT(__name, !$isunknown(__sig), __clk, __rst_n)

`define ASSERT_HELD(__name, __valid, __ready, __payload, __clk = clk_i, __rst_n = rst_ni) \
  logic __name``_stalled_q; \
  logic [$bits(__payload)-1:0] __name``_payload_q; \
  always_ff @(posedge __clk) begin : __name \
    if (__rst_n && __name``_stalled_q) begin \
      assert (__valid) \
        else $error("[ASSERT FAILED] %s: valid dropped before ready (%s:%0d)", `TPU_ASSERT_STRINGIFY(__name), \
                    `__FILE__, `__LINE__); \
      assert (__payload == __name``_payload_q) \
        else $error("[ASSERT FAILED] %s: payload changed while stalled (%s:%0d)", `TPU_ASSERT_STRINGIFY(__name), \
                    `__FILE__, `__LINE__); \
    end \
    __name``_stalled_q <= __rst_n && __valid && !__ready; \
    if (__valid && !__ready) __name``_payload_q <= __payload; \
  end

`define ASSERT_INIT(__name, __prop) \
  initial begin : __name \
    assert (__prop) \
      else $fatal(1, "[ASSERT FAILED] %s (%s:%0d)", `TPU_ASSERT_STRINGIFY(__name), `__FILE__, `__LINE__); \
  end

`endif  // TPU_ASSERT_SVH
