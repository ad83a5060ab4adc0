// Weight-stationary N x N systolic array of int8 x int8 -> int32 MACs (the matrix unit's datapath).
// PE(i,j) holds W[i][j]; for each input row a (N int8) the array outputs c = a . W (N int32),
// c[j] = sum_i a[i] * W[i][j]. Activations enter skewed (row i delayed i cycles) and move right,
// partial sums move down, and the bottom edge is de-skewed (column j delayed N-1-j cycles), so the
// caller sees unskewed rows at both ends:
//   - a row pushed in cycle t (a_valid_i) comes out in cycle t + Latency, Latency = 2N (c_valid_o):
//     1 input register + 2(N-1) cycles of wavefront from PE(0,0) to PE(N-1,N-1) + 1 PE register.
//     Back-to-back rows come out back to back (one row per cycle, no bubbles).
//   - weights: each w_valid_i cycle writes one row of N int8 into the shadow weights, rows 0, 1,
//     ..., N-1, 0, 1, ... in push order (w_row_idx_o is the row the next push writes). A row
//     pushed in cycle t is written into column j at the end of cycle t + 1 + j, in step with the
//     activation wavefront.
//   - w_swap_i in cycle s makes the shadow weights active for the row pushed in cycle s (if any)
//     and every later row; rows pushed before s keep the old weights. The swap travels with the
//     activations, so no drain is needed. Legal weight-row timing: row k of a tile may be pushed
//     in cycle t_k iff s_prev + k <= t_k <= s + k - 1, where s_prev is the swap activating the
//     previous tile and s the swap activating this one. Pushing N consecutive rows from cycle L
//     is legal iff s_prev <= L < s: a load may start in the cycle of the previous swap, and its
//     swap may come as early as the cycle after its first row.
//   - Every swap activates a tile of its own: one whose first row was pushed after the previous
//     swap's tile (at the latest in the swap's cycle). The weights are two banks and a swap flips
//     them, so a swap with no new tile would bring back the tile before (SystolicArraySwapHasTile).
//   - bf16 mode, per row: a row pushed with a_fp_i is N bf16 values (a[i] = {a_hi_i[8i +: 8], a_row_i[8i +: 8]})
//     and every PE it meets computes psum + a * w in fp32 (tpu_fp_pkg: exact product, one RNE add), each column
//     starting from -0, so c[j] = (((-0 + a[0]W[0][j]) + a[1]W[1][j]) + ...) + a[N-1]W[N-1][j] as fp32 bits. The
//     mode travels with the row, so int8 and bf16 rows stream back to back with the same timing. Its weights are
//     a tile loaded with w_fp_i (W[k][j] = {w_hi_i[8j +: 8], w_row_i[8j +: 8]}); a row meets a tile of its own
//     mode (SystolicArrayRowModeMatchesTile). Without a_fp_i / w_fp_i the array is the int8 array, cycle for cycle.
// There is no back-pressure: the consumer takes every valid output row. See docs/systolic-array.md.
`include "tpu_assert.svh"

module tpu_systolic_array #(
  parameter int unsigned N = 16
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  // Weight load into the shadow registers: one row (N int8, W[k][j] in bits [8j +: 8]) per cycle.
  input  logic                 w_valid_i,
  input  logic [N*8-1:0]       w_row_i,
  // bf16 weight row: w_row_i holds the low bytes, w_hi_i the high bytes (ignored for an int8 row).
  input  logic                 w_fp_i,
  input  logic [N*8-1:0]       w_hi_i,
  output logic [$clog2(N)-1:0] w_row_idx_o,
  // Make the shadow weights active from the row pushed in this cycle on.
  input  logic                 w_swap_i,
  // Activations: one row of A (N int8, a[i] in bits [8i +: 8]) per cycle.
  input  logic                 a_valid_i,
  input  logic [N*8-1:0]       a_row_i,
  // bf16 activation row: a_row_i holds the low bytes, a_hi_i the high bytes (ignored for an int8 row).
  input  logic                 a_fp_i,
  input  logic [N*8-1:0]       a_hi_i,
  // Results: one row of A . W (N int32, c[j] in bits [32j +: 32]), Latency cycles after its input.
  output logic                 c_valid_o,
  output logic [N*32-1:0]      c_row_o,
  // Some earlier input has not yet taken full effect (row in flight, weight write or swap in
  // flight); low means the array is quiescent.
  output logic                 busy_o,
  // The next falling edge leaves the array's clock-gate flops (the mesh's and the weight path's) as
  // they are, like tpu_clock_gate's steady_o: part of tpu_top's gates_steady, which lets a simulator
  // apply that edge without evaluating the chip (sim/verilated_chip.h).
  output logic                 gates_steady_o
);

  localparam int unsigned Latency = 2 * N;
  localparam int unsigned IdxW = $clog2(N);
  localparam int unsigned BusyW = $clog2(2 * N);

  // The mesh's gated clock (see "mesh clock gate").
  logic mesh_en_q;
  logic busy_prev_q;
  logic clk_mesh;
  logic clk_w;  // the weight path's gated clock (see "weight clock gate")

  // ---------------------------------------------------------------- input register
  // Every input is registered before it reaches the mesh: it costs one cycle of latency, isolates
  // the caller's timing, and keeps the whole mesh out of Verilator's input-change evaluation
  // (nothing in the mesh depends combinationally on a port): about a third less eval time.
  logic            a_valid_q, w_valid_q, w_swap_q;
  logic            a_fp_q, w_fp_q;
  logic [N*8-1:0]  a_row_q, w_row_q, a_hi_q, w_hi_q;
  logic [IdxW-1:0] w_idx_q;          // the shadow row that w_row_q goes to
  logic [IdxW-1:0] w_cnt_q, w_cnt_d; // the shadow row the next push goes to

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      a_valid_q <= 1'b0;
      w_valid_q <= 1'b0;
      w_swap_q <= 1'b0;
      w_cnt_q <= '0;
    end else begin
      a_valid_q <= a_valid_i;
      w_valid_q <= w_valid_i;
      w_swap_q <= w_swap_i;
      w_cnt_q <= w_cnt_d;
    end
  end

  always_ff @(posedge clk_i) begin
    a_row_q <= a_row_i;
    w_row_q <= w_row_i;
    a_fp_q <= a_fp_i;
    w_fp_q <= w_fp_i;
    a_hi_q <= a_hi_i;
    w_hi_q <= w_hi_i;
    w_idx_q <= w_cnt_q;
  end

  always_comb begin
    w_cnt_d = w_cnt_q;
    if (w_valid_i) begin
      w_cnt_d = (32'(w_cnt_q) == N - 1) ? '0 : w_cnt_q + 1'b1;
    end
  end

  assign w_row_idx_o = w_cnt_q;

  // ---------------------------------------------------------------- weight-load control
  logic [N-1:0]     w_sel;            // one-hot PE row written by this cycle's push
  logic [N-1:0]     w_sel_col [N];    // w_sel delayed by j cycles, for column j
  logic [N-1:0]     w_sel_q [N-1];    // stage d: the push of d + 1 cycles ago
  logic [N-1:0]     w_sel_d [N-1];

  always_comb begin
    for (int unsigned i = 0; i < N; i++) begin
      w_sel[i] = w_valid_q && (32'(w_idx_q) == i);
    end
    w_sel_d[0] = w_sel;
    for (int unsigned d = 1; d < N - 1; d++) begin
      w_sel_d[d] = w_sel_q[d-1];
    end
  end

  // On the weight path's clock, with the weight bytes' skew lines and the banks they write: only
  // the cycles of a load evaluate them.
  always_ff @(posedge clk_w or negedge rst_ni) begin
    if (!rst_ni) begin
      w_sel_q <= '{default: '0};
    end else begin
      w_sel_q <= w_sel_d;
    end
  end

  // ---------------------------------------------------------------- busy
  // An input pushed in cycle t is in the input register in cycle t+1; the counter then covers the
  // cycles until it has taken effect: the row's result is out in cycle t+2N, the weight row is in
  // the last column by the end of cycle t+N, the swap reaches PE(N-1,N-1) in cycle t+2N-1.
  logic [BusyW-1:0] busy_cnt_q, busy_cnt_d;

  always_comb begin
    busy_cnt_d = (busy_cnt_q != '0) ? busy_cnt_q - 1'b1 : '0;
    if (w_valid_q && BusyW'(N - 1) > busy_cnt_d) busy_cnt_d = BusyW'(N - 1);
    if (w_swap_q && BusyW'(2 * N - 2) > busy_cnt_d) busy_cnt_d = BusyW'(2 * N - 2);
    if (a_valid_q) busy_cnt_d = BusyW'(Latency - 1);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      busy_cnt_q <= '0;
    end else begin
      busy_cnt_q <= busy_cnt_d;
    end
  end

  assign busy_o = a_valid_q || w_valid_q || w_swap_q || busy_cnt_q != '0;

  // ---------------------------------------------------------------- mesh clock gate
  // The mesh only needs its clock while something is in flight. The enable is sampled on the
  // falling edge (a glitch-free gate, as a latch-based ICG would do) and held one cycle past
  // busy for margin. An idle mesh then costs no simulation time: Verilator evaluates the mesh
  // only when its clock ticks. Behaviour is unchanged: an idle mesh only carries invalid data.

  always_ff @(negedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mesh_en_q <= 1'b0;
      busy_prev_q <= 1'b0;
    end else begin
      mesh_en_q <= busy_o || busy_prev_q;
      busy_prev_q <= busy_o;
    end
  end

  assign clk_mesh = clk_i & mesh_en_q;

  // ---------------------------------------------------------------- weight clock gate
  // The weight path (the banks, the write selects w_sel_q and the weight bytes' skew lines) changes
  // only at the edges that end a cycle in which a pushed row is in the input register or still
  // being written (column j writes the row pushed j cycles before), so it has a gate of its own,
  // open for exactly those edges: w_wr_sr_q[d] says the row pushed d + 2 cycles ago is still being
  // written (w_sel_q[d] != 0). Between loads the path holds its values and nothing it holds is
  // read (a skew line's slots are read only j cycles after a write, and the gate stays open that
  // long), so the gate changes no value the array computes. For the model it takes the weight-write
  // test out of every PE's evaluation in the cycles without a write, 89-97% of a GEMM's
  // (docs/simulation-speed.md, "The weight path on its own clock").
  logic [N-2:0] w_wr_sr_q;
  logic [N-1:0] w_wr_sr_d;
  logic         w_busy;
  logic         w_en_q;

  always_ff @(posedge clk_w or negedge rst_ni) begin
    if (!rst_ni) begin
      w_wr_sr_q <= '0;
    end else begin
      w_wr_sr_q <= w_wr_sr_d[N-2:0];
    end
  end

  assign w_wr_sr_d = {w_wr_sr_q, w_valid_q};
  assign w_busy = w_wr_sr_d != '0;  // a row in the input register or still being written

  always_ff @(negedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      w_en_q <= 1'b0;
    end else begin
      w_en_q <= w_busy;
    end
  end

  assign clk_w = clk_i & w_en_q;

  // Both gates' falling-edge flops would load what they hold (see the port).
  assign gates_steady_o = busy_prev_q == busy_o && mesh_en_q == (busy_o || busy_prev_q) && w_en_q == w_busy;

  // ---------------------------------------------------------------- mesh
  // split_var lets Verilator treat every element as its own signal and fold the PE-to-PE wires
  // into the PE registers (about 15% less work per cycle than copying through whole arrays).
  // a_mesh[i][j]: activation entering PE(i,j) from the left (a 16-bit value sign-extended to 32 bits: an int8
  // sign-extended, or a bf16's bits; see tpu_mac_pe); psum_mesh[i][j]: partial sum entering PE(i,j) from above.
  logic [31:0] a_mesh    [N][N+1] /*verilator split_var*/;
  logic [31:0] psum_mesh [N+1][N] /*verilator split_var*/;
  logic [15:0] w_col     [N];       // weight on column j's bus (int8 sign-extended to 16 bits, or bf16)

  // ---------------------------------------------------------------- swap wave
  // A swap pushed in cycle s reaches PE(i,j) in cycle s + 1 + i + j, with the row pushed in s:
  // every PE of anti-diagonal d = i + j sees it in the same cycle. So the swap tag, which a
  // physical array forwards PE to PE with the activations (the same timing), is one register per
  // anti-diagonal here, and so is the bank select it flips: the N copies of a diagonal would hold
  // the same value in every cycle, and one is what synthesis keeps of equivalent flops. For the
  // model this is the difference between a per-PE tag copy plus a conditional weight copy in
  // every PE every cycle, and nothing (docs/simulation-speed.md, "The swap as a wave of bank
  // selects"). swap_diag[d]: the tag reaching diagonal d now; bank_q[d]: the bank in use there;
  // bank_eff[d]: the bank of the activation arriving there now (flipped by the tag it brings).
  // Packed, so that the wave moves as one shift and one XOR a cycle.
  logic [2*N-3:0] swap_sr_q;
  logic [2*N-2:0] bank_q, swap_diag, bank_eff;

  always_ff @(posedge clk_mesh or negedge rst_ni) begin
    if (!rst_ni) begin
      swap_sr_q <= '0;
      bank_q <= '0;
    end else begin
      swap_sr_q <= swap_diag[2*N-3:0];
      bank_q <= bank_eff;
    end
  end

  assign swap_diag = {swap_sr_q, w_swap_q};
  assign bank_eff = bank_q ^ swap_diag;

  // Tiles whose first row was pushed and that no swap has activated yet (saturating; a legal
  // schedule has at most one), for SystolicArraySwapHasTile.
  logic [1:0] tiles_q;
  logic       tile_start;
  assign tile_start = w_valid_q && w_idx_q == '0;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      tiles_q <= '0;
    end else if (tile_start != w_swap_q) begin
      if (tile_start && tiles_q != '1) tiles_q <= tiles_q + 1'b1;
      if (w_swap_q && tiles_q != '0) tiles_q <= tiles_q - 1'b1;
    end
  end

  // The bf16 mode travels the same way: fp_diag[d] is the mode of the row arriving at diagonal d now. An idle
  // diagonal may hold a stale mode; it only meets invalid data.
  logic [2*N-3:0] fp_sr_q;
  logic [2*N-2:0] fp_diag;

  always_ff @(posedge clk_mesh or negedge rst_ni) begin
    if (!rst_ni) begin
      fp_sr_q <= '0;
    end else begin
      fp_sr_q <= fp_diag[2*N-3:0];
    end
  end

  assign fp_diag = {fp_sr_q, a_valid_q && a_fp_q};

  // The mode of the shadow tile (set by its first row) and of the active one (set by the swap), for
  // SystolicArrayRowModeMatchesTile and SystolicArrayTileModeConstant.
  logic shadow_fp_q, active_fp_q, active_fp_d, row_tile_fp;
  always_comb begin
    active_fp_d = active_fp_q;
    if (w_swap_q) active_fp_d = (tiles_q == '0 && tile_start) ? w_fp_q : shadow_fp_q;
  end
  assign row_tile_fp = active_fp_d;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      shadow_fp_q <= 1'b0;
      active_fp_q <= 1'b0;
    end else begin
      if (tile_start) shadow_fp_q <= w_fp_q;
      active_fp_q <= active_fp_d;
    end
  end

  for (genvar i = 0; i < N; i++) begin : gen_row
    // Input skew: row i of the activations is delayed i cycles. Invalid rows enter as zeros so
    // idle cycles keep the mesh quiet in waveforms. 16 bits: a bf16, or an int8 sign-extended.
    logic [15:0] skew_in, skew_out;
    assign skew_in = !a_valid_q ? 16'h0000 :
                     {a_fp_q ? a_hi_q[8*i +: 8] : {8{a_row_q[8*i+7]}}, a_row_q[8*i +: 8]};

    tpu_delay_line #(
      .Width(16),
      .Depth(i),
      .ResetEn(1'b1)
    ) u_a_skew (
      .clk_i (clk_mesh),
      .rst_ni,
      .d_i(skew_in),
      .q_o(skew_out)
    );

    assign a_mesh[i][0] = {{16{skew_out[15]}}, skew_out};

    for (genvar j = 0; j < N; j++) begin : gen_col
      tpu_mac_pe u_pe (
        .clk_i (clk_mesh),
        .clk_w_i(clk_w),
        .rst_ni,
        .w_we_i(w_sel_col[j][i]),
        .w_i(w_col[j]),
        .bank_i(bank_eff[i+j]),
        .fp_i(fp_diag[i+j]),
        .a_i(a_mesh[i][j]),
        .a_o(a_mesh[i][j+1]),
        .psum_i(psum_mesh[i][j]),
        .psum_o(psum_mesh[i+1][j])
      );
    end

    // What leaves the right edge is not used.
    logic unused_right;
    assign unused_right = ^a_mesh[i][N];
  end

  for (genvar j = 0; j < N; j++) begin : gen_column
    // A column starts from 0 (int8) or -0 (bf16: the identity of the fp32 add, so the first product passes as it is).
    assign psum_mesh[0][j] = {fp_diag[j], 31'h0};

    // Weight skew: column j's byte (and its row select) arrives j cycles after the push, in step
    // with the swap wavefront, so a load can overlap the previous tile's last rows.
    if (j == 0) begin : gen_sel_now
      assign w_sel_col[j] = w_sel;
    end else begin : gen_sel_delayed
      assign w_sel_col[j] = w_sel_q[j-1];
    end

    tpu_delay_line #(
      .Width(16),
      .Depth(j),
      .ResetEn(1'b0)
    ) u_w_skew (
      .clk_i (clk_w),
      .rst_ni,
      .d_i({w_fp_q ? w_hi_q[8*j +: 8] : {8{w_row_q[8*j+7]}}, w_row_q[8*j +: 8]}),
      .q_o(w_col[j])
    );

    // Output de-skew: column j's sum leaves the bottom row in cycle t + N + 1 + j; delay N-1-j.
    tpu_delay_line #(
      .Width(32),
      .Depth(N - 1 - j),
      .ResetEn(1'b0)
    ) u_c_deskew (
      .clk_i (clk_mesh),
      .rst_ni,
      .d_i(psum_mesh[N][j]),
      .q_o(c_row_o[32*j +: 32])
    );
  end

  // ---------------------------------------------------------------- output valid
  tpu_delay_line #(
    .Width(1),
    .Depth(Latency - 1),
    .ResetEn(1'b1)
  ) u_c_valid (
    .clk_i (clk_mesh),
    .rst_ni,
    .d_i(a_valid_q),
    .q_o(c_valid_o)
  );

  // A swap activates a tile of its own (see the header): one started since the last swap, or now.
  `ASSERT_IF(SystolicArraySwapHasTile, tiles_q != '0 || tile_start, w_swap_q)
  // A row meets weights of its own mode (the tile active for it, after this cycle's swap), and a tile's rows all
  // have the mode of its first.
  `ASSERT_IF(SystolicArrayRowModeMatchesTile, a_fp_q == row_tile_fp, a_valid_q)
  `ASSERT_IF(SystolicArrayTileModeConstant, w_fp_q == shadow_fp_q, w_valid_q && !tile_start)
  `ASSERT_INIT(SystolicArrayNLegal, N >= 2)

endmodule
