// Verilator unit test of tpu_systolic_array (built once per N): bit-exact rows against a plain C++
// reference GEMM, the exact output cycle of every row, streaming and weight double-buffering.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "Vtpu_systolic_array.h"
#include "verilated.h"

#ifndef STRATA_MXU_N
#error "STRATA_MXU_N (the array size the model was verilated with) must be defined"
#endif

namespace {

constexpr int kN = STRATA_MXU_N;
// The documented latency (docs/systolic-array.md): a row pushed in cycle t comes out in cycle
// t + 2N = 1 input register + 2(N-1) cycles of wavefront from PE(0,0) to PE(N-1,N-1) + 1 PE
// register. Every check below uses this formula, not anything read from the RTL.
constexpr uint64_t kLatency = 2 * kN;

using Row8 = std::array<int8_t, kN>;
using Row32 = std::array<int32_t, kN>;
using Tile = std::array<Row8, kN>;  // W[k][j]: k = the activation index (PE row), j = column

// ---------------------------------------------------------------- reference
// Plain GEMM C = A . W, row by row, with int32 wrap-around (cannot trigger for int8 and N <= 2^17,
// but the array's accumulator is specified as wrapping).
Row32 ReferenceGemmRow(const Row8& a, const Tile& w) {
  Row32 c{};
  for (int j = 0; j < kN; ++j) {
    int64_t acc = 0;
    for (int k = 0; k < kN; ++k) acc += int64_t{a[k]} * int64_t{w[k][j]};
    c[j] = static_cast<int32_t>(static_cast<uint32_t>(acc));
  }
  return c;
}

// ---------------------------------------------------------------- ports
// N = 8 makes the int8 row ports 64-bit (QData); larger N makes them VlWide.
void PutRow(QData& port, const Row8& v) {
  port = 0;
  for (int i = 0; i < kN; ++i) port |= uint64_t{static_cast<uint8_t>(v[i])} << (8 * i);
}
template <std::size_t W>
void PutRow(VlWide<W>& port, const Row8& v) {
  for (std::size_t w = 0; w < W; ++w) port.at(w) = 0;
  for (int i = 0; i < kN; ++i) port.at(i / 4) |= uint32_t{static_cast<uint8_t>(v[i])} << (8 * (i % 4));
}
template <std::size_t W>
Row32 GetRow(const VlWide<W>& port) {
  static_assert(W == kN, "c_row_o is N 32-bit words");
  Row32 c{};
  for (int j = 0; j < kN; ++j) c[j] = static_cast<int32_t>(port.at(j));
  return c;
}

std::string RowString(const Row32& r) {
  std::ostringstream os;
  for (int j = 0; j < kN; ++j) os << (j ? " " : "") << r[j];
  return os.str();
}

// ---------------------------------------------------------------- stimulus
struct CycleIn {
  bool a_valid = false;
  Row8 a{};
  bool w_valid = false;
  Row8 w{};
  bool swap = false;
};

// A cycle-by-cycle input schedule plus what the interface contract says it must produce. Tiles
// are loaded in order (N pushes each, row 0 first); swap m activates tile m.
class Schedule {
 public:
  CycleIn& At(uint64_t t) {
    if (t >= cycles_.size()) cycles_.resize(t + 1);
    return cycles_[t];
  }
  void Act(uint64_t t, const Row8& a) {
    CycleIn& c = At(t);
    EXPECT_FALSE(c.a_valid) << "test bug: two rows in cycle " << t;
    c.a_valid = true;
    c.a = a;
  }
  void Swap(uint64_t t) {
    At(t).swap = true;
    swaps_.push_back(t);
  }
  // Row k of `w` pushed in cycle times[k].
  void LoadTile(const Tile& w, const std::vector<uint64_t>& times) {
    ASSERT_EQ(times.size(), static_cast<size_t>(kN));
    for (int k = 0; k < kN; ++k) {
      CycleIn& c = At(times[k]);
      EXPECT_FALSE(c.w_valid) << "test bug: two weight rows in cycle " << times[k];
      c.w_valid = true;
      c.w = w[k];
    }
    tiles_.push_back(w);
    push_times_.push_back(times);
  }
  void LoadTileAt(const Tile& w, uint64_t start) {
    std::vector<uint64_t> times(kN);
    for (int k = 0; k < kN; ++k) times[k] = start + k;
    LoadTile(w, times);
  }

  // The documented timing rule: row k of tile m in cycle t_k with s_{m-1} + k <= t_k <= s_m + k - 1,
  // and tiles pushed one after another. Returns "" if the schedule obeys it.
  std::string Violation() const {
    uint64_t last_push = 0;
    bool any_push = false;
    for (size_t m = 0; m < tiles_.size(); ++m) {
      for (int k = 0; k < kN; ++k) {
        const uint64_t t = push_times_[m][k];
        std::ostringstream os;
        os << "tile " << m << " row " << k << " pushed in cycle " << t;
        if (any_push && t <= last_push) return os.str() + ": not after the previous push";
        if (m > 0 && m - 1 < swaps_.size() && t < swaps_[m - 1] + k) {
          return os.str() + ", before s_prev + k = " + std::to_string(swaps_[m - 1] + k);
        }
        if (m < swaps_.size() && t + 1 > swaps_[m] + k) {
          return os.str() + ", after s + k - 1 = " + std::to_string(swaps_[m] + k - 1);
        }
        last_push = t;
        any_push = true;
      }
    }
    if (swaps_.size() > tiles_.size()) return "more swaps than loaded tiles";
    return "";
  }

  const std::vector<CycleIn>& cycles() const { return cycles_; }
  const std::vector<uint64_t>& swaps() const { return swaps_; }
  const std::vector<Tile>& tiles() const { return tiles_; }

 private:
  std::vector<CycleIn> cycles_;
  std::vector<uint64_t> swaps_;
  std::vector<Tile> tiles_;
  std::vector<std::vector<uint64_t>> push_times_;
};

// ---------------------------------------------------------------- runner
struct RunResult {
  int mismatches = 0;                // cycles where any checked output differed
  std::string first_mismatch;        // description of the first few
  std::vector<uint64_t> in_cycles;   // cycles with a_valid_i
  std::vector<uint64_t> out_cycles;  // cycles with c_valid_o
};

class Dut {
 public:
  Dut() : ctx_(std::make_unique<VerilatedContext>()) {
    ctx_->randReset(0);
    top_ = std::make_unique<Vtpu_systolic_array>(ctx_.get());
    top_->clk_i = 0;
    top_->rst_ni = 0;
    Idle();
    top_->eval();
    for (int i = 0; i < 2; ++i) Clock();
    top_->rst_ni = 1;
    top_->eval();
  }
  ~Dut() { top_->final(); }

  void Apply(const CycleIn& in) {
    top_->a_valid_i = in.a_valid;
    PutRow(top_->a_row_i, in.a);
    top_->w_valid_i = in.w_valid;
    PutRow(top_->w_row_i, in.w);
    top_->w_swap_i = in.swap;
    top_->eval();
  }
  void Idle() { Apply(CycleIn{}); }
  void Clock() {
    top_->clk_i = 1;
    top_->eval();
    top_->clk_i = 0;
    top_->eval();
  }
  Vtpu_systolic_array& top() { return *top_; }

 private:
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vtpu_systolic_array> top_;
};

// Runs the schedule on a freshly reset array and checks every cycle against the contract: rows
// out exactly kLatency cycles after they went in and equal to A . W of the tile active for them,
// c_valid_o nowhere else, busy_o and w_row_idx_o as documented.
RunResult RunSchedule(const Schedule& s) {
  const std::vector<CycleIn>& in = s.cycles();
  const uint64_t end = in.size() + kLatency + 4;

  // Expected outputs from the contract.
  std::vector<bool> exp_valid(end, false), exp_busy(end, false);
  std::vector<Row32> exp_row(end);
  std::vector<unsigned> exp_idx(end, 0);
  Tile zero{};
  const Tile* active = &zero;  // weights are reset to zero
  size_t next_swap = 0;
  unsigned pushes = 0;
  for (uint64_t t = 0; t < end; ++t) {
    exp_idx[t] = pushes % kN;
    if (t >= in.size()) continue;
    const CycleIn& c = in[t];
    if (c.swap) active = &s.tiles().at(next_swap++);
    if (c.w_valid) ++pushes;
    auto mark_busy = [&](uint64_t n) {
      for (uint64_t x = t + 1; x <= t + n && x < end; ++x) exp_busy[x] = true;
    };
    if (c.a_valid) {
      exp_valid[t + kLatency] = true;
      exp_row[t + kLatency] = ReferenceGemmRow(c.a, *active);
      mark_busy(kLatency);
    }
    if (c.w_valid) mark_busy(kN);       // written into the last column at the end of t + N
    if (c.swap) mark_busy(2 * kN - 1);  // reaches PE(N-1,N-1) in cycle t + 2N - 1
  }

  RunResult r;
  Dut dut;
  auto& top = dut.top();
  auto fail = [&](uint64_t t, const std::string& what) {
    if (r.mismatches++ < 5) r.first_mismatch += "cycle " + std::to_string(t) + ": " + what + "\n";
  };
  for (uint64_t t = 0; t < end; ++t) {
    if (t < in.size()) {
      dut.Apply(in[t]);
      if (in[t].a_valid) r.in_cycles.push_back(t);
    } else {
      dut.Idle();
    }
    // All outputs are registered: they belong to cycle t regardless of this cycle's inputs.
    const bool valid = top.c_valid_o;
    if (valid) r.out_cycles.push_back(t);
    if (valid != exp_valid[t]) {
      fail(t, std::string("c_valid_o = ") + (valid ? "1" : "0") + ", expected " + (exp_valid[t] ? "1" : "0"));
    } else if (valid) {
      const Row32 got = GetRow(top.c_row_o);
      if (got != exp_row[t]) {
        fail(t, "c_row_o = [" + RowString(got) + "], expected [" + RowString(exp_row[t]) + "]");
      }
    }
    if (static_cast<bool>(top.busy_o) != exp_busy[t]) {
      fail(t, std::string("busy_o = ") + (top.busy_o ? "1" : "0"));
    }
    if (top.w_row_idx_o != exp_idx[t]) {
      fail(t, "w_row_idx_o = " + std::to_string(top.w_row_idx_o) + ", expected " + std::to_string(exp_idx[t]));
    }
    dut.Clock();
  }
  return r;
}

// ---------------------------------------------------------------- random values
class Values {
 public:
  explicit Values(uint32_t seed) : rng_(seed) {}
  // Uniform int8 with the corner values (-128, -1, 0, 1, 127) over-represented.
  int8_t Int8() {
    static constexpr int8_t kCorners[] = {-128, 127, -128, 127, -1, 0, 1};
    if (rng_() % 4 == 0) return kCorners[rng_() % std::size(kCorners)];
    return static_cast<int8_t>(static_cast<int>(rng_() % 256) - 128);
  }
  Row8 Row() {
    Row8 r;
    for (auto& v : r) v = Int8();
    return r;
  }
  Tile RandomTile() {
    Tile w;
    for (auto& row : w) row = Row();
    return w;
  }
  uint32_t Below(uint32_t n) { return rng_() % n; }

 private:
  std::mt19937 rng_;
};

Tile Filled(int8_t v) {
  Tile w;
  for (auto& row : w) row.fill(v);
  return w;
}
Row8 FilledRow(int8_t v) {
  Row8 r;
  r.fill(v);
  return r;
}

#define EXPECT_CLEAN(r) EXPECT_EQ((r).mismatches, 0) << (r).first_mismatch

// ---------------------------------------------------------------- tests

TEST(SystolicArray, ResetStateIsQuietAndWeightsAreZero) {
  Schedule s;
  Values v(1);
  // No load, no swap: the active weights are the reset zeros.
  for (uint64_t t = 3; t < 3 + kN; ++t) s.Act(t, v.Row());
  const RunResult r = RunSchedule(s);
  EXPECT_CLEAN(r);
  ASSERT_EQ(r.out_cycles.size(), static_cast<size_t>(kN));
}

// One row through an otherwise idle array: the measured input-to-output distance is the formula.
TEST(SystolicArray, SingleRowLatencyIs2N) {
  Schedule s;
  Values v(2);
  s.LoadTileAt(v.RandomTile(), 0);
  s.Swap(kN);
  s.Act(kN + 5, v.Row());
  const RunResult r = RunSchedule(s);
  EXPECT_CLEAN(r);
  ASSERT_EQ(r.out_cycles.size(), 1u);
  EXPECT_EQ(r.out_cycles[0] - r.in_cycles[0], uint64_t{2 * kN});
}

// A full tile: N back-to-back rows produce N back-to-back results starting exactly at
// first_input + 2N, so a tile takes 3N cycles from its first input to its last output + 1.
TEST(SystolicArray, TileWavefrontTiming) {
  Schedule s;
  Values v(3);
  s.LoadTileAt(v.RandomTile(), 0);
  const uint64_t first = kN;
  s.Swap(first);
  for (int m = 0; m < kN; ++m) s.Act(first + m, v.Row());
  const RunResult r = RunSchedule(s);
  EXPECT_CLEAN(r);
  ASSERT_EQ(r.out_cycles.size(), static_cast<size_t>(kN));
  EXPECT_EQ(r.out_cycles.front(), first + 2 * kN);
  EXPECT_EQ(r.out_cycles.back(), first + 3 * kN - 1);
}

TEST(SystolicArray, ExtremeValuesAreBitExact) {
  Schedule s;
  const std::vector<std::pair<int8_t, int8_t>> cases = {{-128, -128}, {-128, 127}, {127, -128},
                                                        {127, 127},   {-1, -128},  {0, -128}};
  uint64_t t = 0;
  for (const auto& [w, a] : cases) {
    // Load during the previous tile's stream, swap, then stream N rows of the corner value and
    // N rows mixing it with its opposite.
    s.LoadTileAt(Filled(w), t);
    t += kN;
    s.Swap(t);
    for (int m = 0; m < kN; ++m) s.Act(t++, FilledRow(a));
    for (int m = 0; m < kN; ++m) {
      Row8 row;
      for (int i = 0; i < kN; ++i) row[i] = ((i + m) % 2) ? a : static_cast<int8_t>(-1 - a);
      s.Act(t++, row);
    }
    t -= kN;  // the next load overlaps the mixed rows
  }
  ASSERT_EQ(s.Violation(), "");
  const RunResult r = RunSchedule(s);
  EXPECT_CLEAN(r);
}

// 8N rows on consecutive cycles come out on consecutive cycles: one row per cycle, no bubbles.
TEST(SystolicArray, BackToBackStreamingOneRowPerCycle) {
  Schedule s;
  Values v(4);
  s.LoadTileAt(v.RandomTile(), 0);
  s.Swap(kN);
  const int rows = 8 * kN;
  for (int m = 0; m < rows; ++m) s.Act(kN + m, v.Row());
  const RunResult r = RunSchedule(s);
  EXPECT_CLEAN(r);
  ASSERT_EQ(r.out_cycles.size(), static_cast<size_t>(rows));
  EXPECT_EQ(r.out_cycles.back() - r.out_cycles.front(), static_cast<uint64_t>(rows - 1));
}

TEST(SystolicArray, RandomBubblesKeepExactTiming) {
  Schedule s;
  Values v(5);
  s.LoadTileAt(v.RandomTile(), 0);
  s.Swap(kN);
  for (uint64_t t = kN; t < kN + 6 * kN; ++t) {
    if (v.Below(3) != 0) s.Act(t, v.Row());
  }
  const RunResult r = RunSchedule(s);
  EXPECT_CLEAN(r);
}

// Double buffering with the load as early as allowed: tile m+1's rows are pushed from the very
// cycle tile m is swapped in, while tile m streams; the swaps sit between two streams with no gap.
// Total: the last of R rows comes out at first_input + R - 1 + 2N: no stall cycle anywhere.
TEST(SystolicArray, DoubleBufferedTilesStreamWithoutStalls) {
  Schedule s;
  Values v(6);
  s.LoadTileAt(v.RandomTile(), 0);
  uint64_t t = kN;
  const uint64_t first = t;
  const int lengths[] = {kN, 2 * kN, kN + 3, 3 * kN, kN};
  int rows = 0;
  for (size_t m = 0; m < std::size(lengths); ++m) {
    s.Swap(t);
    if (m + 1 < std::size(lengths)) s.LoadTileAt(v.RandomTile(), t);  // earliest: s_prev
    for (int i = 0; i < lengths[m]; ++i, ++rows) s.Act(t++, v.Row());
  }
  ASSERT_EQ(s.Violation(), "");
  const RunResult r = RunSchedule(s);
  EXPECT_CLEAN(r);
  ASSERT_EQ(r.out_cycles.size(), static_cast<size_t>(rows));
  EXPECT_EQ(r.out_cycles.front(), first + kLatency);
  EXPECT_EQ(r.out_cycles.back(), first + rows - 1 + kLatency);
}

// The other edge of the window: each tile is swapped in the cycle after its first weight row, its
// remaining rows being pushed while it already streams. With N-row streams the weight port and
// the activation port are both busy every cycle.
TEST(SystolicArray, SwapRightAfterFirstWeightRow) {
  Schedule s;
  Values v(7);
  const int tiles = 5;
  int rows = 0;
  for (int m = 0; m < tiles; ++m) {
    const uint64_t load = static_cast<uint64_t>(m) * kN;
    s.LoadTileAt(v.RandomTile(), load);
    s.Swap(load + 1);
    for (int i = 0; i < kN; ++i, ++rows) s.Act(load + 1 + i, v.Row());
  }
  ASSERT_EQ(s.Violation(), "");
  const RunResult r = RunSchedule(s);
  EXPECT_CLEAN(r);
  ASSERT_EQ(r.out_cycles.size(), static_cast<size_t>(rows));
  EXPECT_EQ(r.out_cycles.back() - r.out_cycles.front(), static_cast<uint64_t>(rows - 1));
}

// The window is exact, not conservative: one cycle outside it on either side corrupts a result.
TEST(SystolicArray, TimingWindowIsTight) {
  Values v(8);
  {  // Tile 1's row k pushed at s_0 + k - 1: it overwrites a shadow weight one cycle before the
     // swap wavefront of tile 0 copies it, so tile 0's rows see some of tile 1's weights.
    Schedule s;
    const uint64_t s0 = kN + 2;
    s.LoadTileAt(v.RandomTile(), 0);
    s.Swap(s0);
    for (int i = 0; i < 2 * kN; ++i) s.Act(s0 + i, v.Row());
    s.LoadTileAt(v.RandomTile(), s0 - 1);
    s.Swap(s0 + 2 * kN);
    for (int i = 0; i < kN; ++i) s.Act(s0 + 2 * kN + i, v.Row());
    EXPECT_NE(s.Violation(), "");
    EXPECT_GT(RunSchedule(s).mismatches, 0);
  }
  {  // Swap in the same cycle as the first weight row: PE(0,0) reads its shadow a cycle early.
    Schedule s;
    s.LoadTileAt(v.RandomTile(), 0);
    s.Swap(kN);
    s.LoadTileAt(v.RandomTile(), 2 * kN);
    s.Swap(2 * kN);
    for (int i = 0; i < 2 * kN; ++i) s.Act(kN + i, v.Row());
    EXPECT_NE(s.Violation(), "");
    EXPECT_GT(RunSchedule(s).mismatches, 0);
  }
}

// Random streams, gaps, swaps with and without rows, and weight rows pushed at random legal cycles
// (not necessarily consecutive) anywhere in their window.
TEST(SystolicArray, RandomLegalSchedules) {
  for (uint32_t seed = 100; seed < 106; ++seed) {
    Values v(seed);
    Schedule s;
    uint64_t t = 0;
    uint64_t prev_swap = 0;
    uint64_t last_push = 0;
    bool have_swap = false;
    for (int m = 0; m < 8; ++m) {
      // Push the N rows at random legal cycles: t_k >= s_prev + k and after the previous push.
      std::vector<uint64_t> times(kN);
      uint64_t p = std::max<uint64_t>(have_swap ? prev_swap : 0, m ? last_push + 1 : 0);
      p += v.Below(3);
      for (int k = 0; k < kN; ++k) {
        if (have_swap) p = std::max<uint64_t>(p, prev_swap + k);
        times[k] = p;
        p += 1 + (v.Below(4) == 0 ? v.Below(3) : 0);
      }
      last_push = times[kN - 1];
      s.LoadTile(v.RandomTile(), times);
      // The swap may come once every row k satisfies t_k <= s + k - 1.
      uint64_t earliest = 0;
      for (int k = 0; k < kN; ++k) earliest = std::max<uint64_t>(earliest, times[k] + 1 - k);
      uint64_t swap = std::max<uint64_t>(earliest, t) + (v.Below(3) == 0 ? v.Below(kN) : 0);
      // Rows of the old tile until the swap (with random gaps), then the swap.
      for (; t < swap; ++t) {
        if (have_swap && v.Below(5) != 0) s.Act(t, v.Row());
      }
      s.Swap(swap);
      prev_swap = swap;
      have_swap = true;
      // Sometimes a swap with no row in its cycle.
      const int len = v.Below(3 * kN);
      for (int i = 0; i < len; ++i, ++t) {
        if (v.Below(6) != 0) s.Act(t, v.Row());
      }
    }
    for (int i = 0; i < kN; ++i) s.Act(t++, v.Row());
    ASSERT_EQ(s.Violation(), "") << "seed " << seed;
    const RunResult r = RunSchedule(s);
    EXPECT_EQ(r.mismatches, 0) << "seed " << seed << "\n" << r.first_mismatch;
  }
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  std::printf("tpu_systolic_array N = %d, latency 2N = %d\n", kN, static_cast<int>(kLatency));
  return RUN_ALL_TESTS();
}
