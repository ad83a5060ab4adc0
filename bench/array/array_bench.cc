// The systolic array alone: how fast the model evaluates the mesh, apart from the rest of the chip.
//
// Drives tpu_systolic_array (N = 16, the chip's Verilator and C++ options) as the matrix unit does in
// a GEMM: an activation row every cycle and a new weight tile every --tile-rows cycles, its N rows
// pushed while the stream runs and swapped in --swap-delay cycles after its first row (1, the default,
// is the earliest the timing rule allows; N, after its last row). Prints one JSON line:
// simulated cycles per wall second and the wall time per PE and cycle. With --check every result row
// is compared with a plain reference GEMM row (the timing then includes the reference).
//
// Usage: strata-bench-array [--cycles N] [--tile-rows M] [--swap-delay D] [--seed S] [--check]
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Vtpu_systolic_array.h"
#include "json_lines.h"
#include "strata/reference_gemm.h"
#include "tool_cli.h"
#include "verilated.h"

namespace {

constexpr int kN = 16;  // the chip's default MxuN; the CMake target verilates the array at it
using Row8 = std::array<int8_t, kN>;
using Tile = std::array<int8_t, kN * kN>;  // W[k][j] at k * N + j

template <typename Port>
void PutRow(Port& port, const Row8& v) {
  for (int w = 0; w < kN / 4; ++w) port[w] = 0;
  for (int i = 0; i < kN; ++i) port[i / 4] |= uint32_t{static_cast<uint8_t>(v[i])} << (8 * (i % 4));
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t cycles = 2000000, tile_rows = 256, swap_delay = 1, seed = 1;
  bool check = false;
  CLI::App app{
      "Runs the systolic array alone (N = 16) on a stream of one activation row per cycle, with a new\n"
      "weight tile every --tile-rows rows, and prints its simulated cycles per second as a JSON line.",
      "strata-bench-array"};
  strata::cli::Setup(app, "strata-bench-array [--cycles N] [--tile-rows M] [--swap-delay D] [--seed S] [--check]",
                     "Exit status: 0 done, 1 a mismatch with --check, 2 bad arguments.");
  const auto count = [](uint64_t min, uint64_t* out) {
    return [min, out](const std::string& v) { return strata::cli::TakeCount(v, min, UINT64_MAX, out); };
  };
  strata::cli::AddTaken(app, "--cycles", "N", count(1, &cycles), "simulated cycles (default 2000000)");
  strata::cli::AddTaken(app, "--tile-rows", "M", count(kN + 1, &tile_rows),
                        "activation rows per weight tile, >= 17 (default 256)");
  strata::cli::AddTaken(app, "--swap-delay", "D", count(1, &swap_delay),
                        "a tile is swapped in D cycles after its first row, 1..M (default 1)");
  strata::cli::AddTaken(app, "--seed", "S", count(0, &seed), "operand seed (default 1)");
  app.add_flag("--check", check, "compare every result row with a reference GEMM row (exit 1 on a mismatch)");
  if (const int rc = strata::cli::Parse(app, argc, argv); rc != strata::cli::kContinue) return rc;
  if (swap_delay > tile_rows) return strata::cli::Usage(app.get_name(), "--swap-delay: at most --tile-rows");

  auto ctx = std::make_unique<VerilatedContext>();
  auto top = std::make_unique<Vtpu_systolic_array>(ctx.get());
  std::mt19937_64 rng(seed);
  auto random_row = [&] {
    Row8 r;
    const uint64_t bits[2] = {rng(), rng()};
    std::memcpy(r.data(), bits, kN);
    return r;
  };

  top->clk_i = 0;
  top->rst_ni = 0;
  top->eval();
  top->rst_ni = 1;
  top->eval();

  // Tile m's rows are pushed in cycles mP .. mP + N - 1 (row k in mP + k; P = --tile-rows) and it is
  // swapped in with the activation row of cycle s = mP + D (D = --swap-delay): legal, as row k lands in
  // t_k <= s + k - 1 for D >= 1 and the next tile starts at (m + 1)P >= s. The weight port and the swap
  // wave overlap the stream as in a GEMM.
  const uint64_t p = tile_rows;
  Tile loading{}, active{};                   // the tile being pushed, the tile in use (the reset weights are zero)
  std::deque<std::vector<int32_t>> expected;  // reference rows (strata::reference::Gemm) in flight, oldest first
  strata::reference::GemmSpec row_spec;
  row_spec.m = 1;
  row_spec.k = kN;
  row_spec.n = kN;
  uint64_t mismatches = 0, rows_out = 0;

  const auto t0 = std::chrono::steady_clock::now();
  for (uint64_t t = 0; t < cycles; ++t) {
    const uint64_t phase = t % p;
    const bool swap = t >= swap_delay && (t - swap_delay) % p == 0;
    if (swap) active = loading;  // before a new tile replaces it: with D = P both come in one cycle
    if (phase == 0) {
      for (int k = 0; k < kN; ++k) {
        const Row8 r = random_row();
        std::memcpy(&loading[k * kN], r.data(), kN);
      }
    }
    const bool push_w = phase < static_cast<uint64_t>(kN);
    top->w_valid_i = push_w;
    Row8 w{};
    if (push_w) std::memcpy(w.data(), &loading[phase * kN], kN);
    PutRow(top->w_row_i, w);
    top->w_swap_i = swap;
    const Row8 a = random_row();
    top->a_valid_i = 1;
    PutRow(top->a_row_i, a);
    if (check) expected.push_back(strata::reference::Gemm(a.data(), active.data(), nullptr, row_spec));
    top->clk_i = 1;
    top->eval();
    if (top->c_valid_o) {
      ++rows_out;
      if (check) {
        for (int j = 0; j < kN; ++j) mismatches += top->c_row_o[j] != static_cast<uint32_t>(expected.front()[j]);
        expected.pop_front();
      }
    }
    top->clk_i = 0;
    top->eval();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  top->final();

  strata::tool::Json line;
  line["bench"] = "array_speed";
  line["n"] = kN;
  line["cycles"] = cycles;
  line["tile_rows"] = tile_rows;
  line["swap_delay"] = swap_delay;
  line["rows_out"] = rows_out;
  if (check) line["mismatched_values"] = mismatches;
  line["wall_seconds"] = strata::tool::JsonRound(seconds, 3);
  line["cycles_per_second"] = std::llround(static_cast<double>(cycles) / seconds);
  line["ns_per_pe_cycle"] = strata::tool::JsonRound(seconds * 1e9 / static_cast<double>(cycles) / (kN * kN), 3);
  strata::tool::PrintJsonLine(line);
  return mismatches == 0 ? 0 : 1;
}
