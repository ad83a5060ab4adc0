// Command queue: the register-programmed front end shared by the DMA queues and the matrix unit.
// Software writes a command's fields into the owner's staging register (stage_i; the fields are the
// owner's type T, decoded by the owner from its register writes), then PUSH copies the staged command
// into a FIFO of Depth entries; the owner takes commands from the head in order. The staging register
// keeps its value after a push, so a run of similar commands only rewrites the fields that change.
// A push into a full queue is dropped (full_o tells the owner, which counts it as an error); a pop of
// an empty queue is not allowed.
`include "tpu_assert.svh"

module tpu_cmd_queue #(
  parameter type         T     = logic [31:0],
  parameter int unsigned Depth = 4
) (
  input  logic                    clk_i,
  input  logic                    rst_ni,
  input  T                        stage_i,     // the owner's staging register
  input  logic                    push_i,      // queue the staged command (dropped when full)
  output logic                    full_o,
  input  logic                    pop_i,       // remove the head (only when count_o != 0)
  output T                        head_o,
  output logic [$clog2(Depth):0]  count_o
);

  localparam int unsigned Pw = (Depth > 1) ? $clog2(Depth) : 1;

  T                   fifo_q [Depth];
  logic [Pw-1:0]      rptr_q, wptr_q;
  logic [$clog2(Depth):0] count_q;
  logic               push_ok;

  assign full_o = 32'(count_q) == Depth;
  assign push_ok = push_i && !full_o;
  assign head_o = fifo_q[rptr_q];
  assign count_o = count_q;

  // The next state is written in the clocked block, not as always_comb *_d: a push comes from the
  // register bus, which depends on the host port's inputs, so Verilator would evaluate a combinational
  // next state at every evaluation, whether or not the owner's clock ticks (docs/simulation-speed.md).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rptr_q <= '0;
      wptr_q <= '0;
      count_q <= '0;
    end else begin
      if (push_ok) wptr_q <= (32'(wptr_q) == Depth - 1) ? '0 : wptr_q + 1'b1;
      if (pop_i) rptr_q <= (32'(rptr_q) == Depth - 1) ? '0 : rptr_q + 1'b1;
      if (push_ok != pop_i) count_q <= push_ok ? count_q + 1'b1 : count_q - 1'b1;
    end
  end

  // The FIFO holds data only (no reset needed).
  always_ff @(posedge clk_i) begin
    if (push_ok) fifo_q[wptr_q] <= stage_i;
  end

  // The owner pops only a command that is there. (The count cannot pass Depth: a push into a full
  // queue is dropped above; not checked, each check costs every evaluated cycle.)
  `ASSERT_IF(CmdQueuePopEmpty, count_q != '0, pop_i)
  `ASSERT_INIT(CmdQueueDepthLegal, Depth >= 1)

endmodule
