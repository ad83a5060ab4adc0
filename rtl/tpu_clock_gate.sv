// Clock gate for a block that is often idle (the DMA engine, the matrix unit, the line memories).
//
// The enable is sampled on the falling edge, as a latch-based integrated clock gate samples it while
// the clock is low, so clk_o has no glitch and rises with clk_i. The owner raises busy_i whenever the
// block's state could change at the next rising edge: busy_i depends only on the block's state and on
// signals that settle before the falling edge (the register bus), never on the chip's late inputs (the
// HBM bridge's handshakes; a block that waits for those keeps busy_i high). The gate then stays open
// Hold more rising edges after busy_i falls, for blocks whose data registers load every cycle (a
// pipeline's stages, a delay line's slots): once they have settled on their idle values, closing the
// gate changes no value any register of the block holds, only whether a simulator evaluates it
// (docs/simulation-speed.md, "Idle blocks on gated clocks"). A delay line's ring pointer is the one
// exception: it stops where the ungated one would go round slots that all hold the same value.
//
// steady_o: the next falling edge leaves the gate's flop as it is, so a simulator may apply that edge
// without evaluating the chip (sim/verilated_chip.h). settled_o: the block is idle and its registers
// have settled, so that only an input changes them (part of tpu_top's quiescent_o).
module tpu_clock_gate #(
  parameter int unsigned Hold = 0
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic busy_i,
  input  logic bypass_i,  // keep the clock running (the simulator's fast paths off)
  output logic clk_o,
  output logic en_o,      // the gate is open for the next rising edge
  output logic steady_o,
  output logic settled_o  // busy_i has been low for the last Hold cycles and is low now
);

  logic en_q /*verilator public_flat_rd*/;  // read by the simulator to count the cycles a gate saves
  logic en_d;

  if (Hold == 0) begin : gen_no_hold
    assign en_d = busy_i || bypass_i;
    assign settled_o = !busy_i;
  end else begin : gen_hold
    // idle_q: cycles in a row without busy_i, saturating at Hold. Counted at the rising edge of the
    // ungated clock (busy_i then has the value the falling edge sampled), so that the falling-edge flop
    // changes only where the gate opens or closes (steady_o) and is a branch when saturated.
    localparam int unsigned Hw = $clog2(Hold + 1);
    logic [Hw-1:0] idle_q;

    assign en_d = busy_i || bypass_i || idle_q != Hw'(Hold);
    assign settled_o = !busy_i && idle_q == Hw'(Hold);

    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        idle_q <= '0;
      end else if (busy_i) begin
        idle_q <= '0;
      end else if (idle_q != Hw'(Hold)) begin
        idle_q <= idle_q + 1'b1;
      end
    end
  end

  always_ff @(negedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      en_q <= 1'b1;  // open in reset and for Hold cycles after it
    end else begin
      en_q <= en_d;
    end
  end

  assign steady_o = en_d == en_q;
  assign clk_o = clk_i & en_q;
  assign en_o = en_q;

endmodule
