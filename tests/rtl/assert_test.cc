// Shows the RTL's assertions (rtl/tpu_assert.svh) firing: drives tpu_dma's bridge ports,
// tpu_line_ram's ports and tpu_systolic_array's weight ports directly, once with legal stimulus
// and once per deliberately broken one.
// usage: rtl_assert_test SCENARIO
// Each scenario expects the simulation either to run to its end (legal stimulus) or to be stopped
// by an assertion, whose message Verilator prints ("Assertion failed in TOP.<module>.<Name>");
// the exit status is 0 when that expectation holds, 1 when it does not, 2 on bad usage. CTest
// checks the assertion's name in the output as well (tests/rtl/CMakeLists.txt).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>

#include "Vtpu_dma.h"
#include "Vtpu_line_ram.h"
#include "Vtpu_line_ram_bad_size.h"
#include "Vtpu_systolic_array.h"
#include "strata/regmap.h"
#include "verilated.h"

namespace {

// Runs `dut` one clock cycle at a time until `cycles` have passed or an assertion stops it.
template <class Dut>
class Bench {
 public:
  explicit Bench(VerilatedContext* ctx) : ctx_(ctx), dut_(std::make_unique<Dut>(ctx)) {}
  Dut& dut() { return *dut_; }
  // One rising edge with the inputs as set; false once an assertion has stopped the simulation.
  bool Tick() {
    if (ctx_->gotFinish()) return false;
    dut_->clk_i = 0;
    dut_->eval();
    dut_->clk_i = 1;
    dut_->eval();
    ctx_->timeInc(1);
    ++cycle_;
    return !ctx_->gotFinish();
  }
  uint64_t cycle() const { return cycle_; }
  ~Bench() { dut_->final(); }

 private:
  VerilatedContext* ctx_;
  std::unique_ptr<Dut> dut_;
  uint64_t cycle_ = 0;
};

// ------------------------------------------------------------------ tpu_dma's READ beats
// A beat to SMEM is written word by word through the SMEM port, so the DMA holds rd_ready_o low
// for the 16 words of a full line: the bridge must then hold the next beat (valid and payload).
enum class RdMisstep { kNone, kDropValid, kChangeAddr };

void SetBeat(Vtpu_dma& d, bool valid, uint32_t addr) {
  d.rd_valid_i = valid;
  d.rd_tier_i = STRATA_DMA_TIER_SMEM;
  d.rd_addr_i = addr;
  d.rd_be_i = ~0ull;
  for (int w = 0; w < 16; ++w) d.rd_data_i[w] = addr + static_cast<uint32_t>(w);
}

void ResetDma(Bench<Vtpu_dma>& b) {
  Vtpu_dma& d = b.dut();
  d.rst_ni = 0;
  d.hbm_capacity_i = 1ull << 22;
  d.smem_gnt_i = 1;
  d.cmd_ready_i = 1;
  d.wr_ready_i = 1;
  b.Tick();
  d.rst_ni = 1;
  b.Tick();
}

// Returns false when an assertion stopped the run.
bool RunDmaBeats(VerilatedContext* ctx, RdMisstep misstep) {
  Bench<Vtpu_dma> b(ctx);
  Vtpu_dma& d = b.dut();
  ResetDma(b);
  SetBeat(d, true, 0x100);
  if (!b.Tick()) return false;  // the first beat is taken: the writer is busy for 16 cycles
  SetBeat(d, true, 0x140);
  int stalled = 0, smem_writes = 0;
  for (int i = 0; i < 40; ++i) {
    const bool taken = d.rd_valid_i && d.rd_ready_o;
    if (!d.rd_ready_o) ++stalled;
    if (d.smem_req_o && d.smem_we_o) ++smem_writes;
    if (stalled == 2 && misstep == RdMisstep::kDropValid) SetBeat(d, false, 0x140);  // withdrawn while stalled
    if (stalled == 2 && misstep == RdMisstep::kChangeAddr) SetBeat(d, true, 0x180);  // replaced while stalled
    if (!b.Tick()) return false;
    if (taken) SetBeat(d, false, 0);
  }
  std::printf("dma beats: %d cycles stalled, %d SMEM word writes\n", stalled, smem_writes);
  if (stalled < 15 || smem_writes != 32) {
    std::printf("FAIL: the stall path was not exercised as planned\n");
    std::exit(1);
  }
  return true;
}

// A completion for a queue that has no command outstanding.
bool RunDmaDoneWithoutCommand(VerilatedContext* ctx) {
  Bench<Vtpu_dma> b(ctx);
  Vtpu_dma& d = b.dut();
  ResetDma(b);
  d.done_valid_i = 1;
  d.done_tag_i = 0;
  if (!b.Tick()) return false;
  d.done_valid_i = 0;
  return b.Tick();
}

// ------------------------------------------------------------------ tpu_line_ram
template <class Ram>
bool RunRamWrites(VerilatedContext* ctx, uint32_t a_line, uint32_t b_line) {
  Bench<Ram> b(ctx);
  Ram& r = b.dut();
  r.a_req_i = r.b_req_i = 1;
  r.a_we_i = r.b_we_i = 1;
  r.a_be_i = r.b_be_i = ~0ull;
  r.a_line_i = a_line;
  r.b_line_i = b_line;
  if (!b.Tick()) return false;
  r.a_req_i = r.b_req_i = 0;
  return b.Tick();
}

// ------------------------------------------------------------------ tpu_systolic_array (N = 4)
// Tile 0 loaded (N rows) and swapped in the cycle after its first row, then a second swap: legal only
// with a tile of its own, so with load_second a second tile is loaded before it.
bool RunArraySwaps(VerilatedContext* ctx, bool load_second) {
  constexpr int kN = 4;
  Bench<Vtpu_systolic_array> b(ctx);
  Vtpu_systolic_array& a = b.dut();
  a.rst_ni = 0;
  if (!b.Tick()) return false;
  a.rst_ni = 1;
  auto push_tile = [&](bool swap_after_first) {
    for (int k = 0; k < kN; ++k) {
      a.w_valid_i = 1;
      a.w_row_i = 0x01020304u * static_cast<uint32_t>(k + 1);
      a.w_swap_i = swap_after_first && k == 1;
      if (!b.Tick()) return false;
    }
    a.w_valid_i = 0;
    a.w_swap_i = 0;
    return true;
  };
  if (!push_tile(true)) return false;
  if (load_second && !push_tile(false)) return false;
  for (int i = 0; i < 3; ++i) {  // the second swap, then quiet cycles
    a.w_swap_i = i == 0;
    if (!b.Tick()) return false;
  }
  return true;
}

// A bf16 tile with bf16 rows, then an int8 tile with int8 rows (legal); or the second tile's rows pushed as bf16
// (SystolicArrayRowModeMatchesTile), or the first tile's third row loaded as int8 (SystolicArrayTileModeConstant).
enum class ModeMisstep { kNone, kRowMode, kTileMode };
bool RunArrayModes(VerilatedContext* ctx, ModeMisstep misstep) {
  constexpr int kN = 4;
  Bench<Vtpu_systolic_array> b(ctx);
  Vtpu_systolic_array& a = b.dut();
  a.rst_ni = 0;
  if (!b.Tick()) return false;
  a.rst_ni = 1;
  auto load = [&](bool fp, bool flip_third) {
    for (int k = 0; k < kN; ++k) {
      a.w_valid_i = 1;
      a.w_fp_i = fp != (flip_third && k == 2);
      a.w_row_i = 0x80402010u;
      a.w_hi_i = 0x3F3FBF3Fu;  // bf16 around +-1
      if (!b.Tick()) return false;
    }
    a.w_valid_i = 0;
    a.w_fp_i = 0;
    return true;
  };
  auto stream = [&](bool fp) {
    for (int r = 0; r < kN; ++r) {
      a.a_valid_i = 1;
      a.a_fp_i = fp;
      a.w_swap_i = r == 0;
      a.a_row_i = 0x01020304u * static_cast<uint32_t>(r + 1);
      a.a_hi_i = 0x40C03F80u;
      if (!b.Tick()) return false;
    }
    a.a_valid_i = 0;
    a.a_fp_i = 0;
    a.w_swap_i = 0;
    return true;
  };
  if (!load(true, misstep == ModeMisstep::kTileMode) || !stream(true)) return false;
  if (!load(false, false) || !stream(misstep == ModeMisstep::kRowMode)) return false;
  for (int i = 0; i < 2 * kN + 2; ++i) {
    if (!b.Tick()) return false;
  }
  return true;
}

struct Scenario {
  const char* name;
  bool expect_stop;  // an assertion must stop it
  std::function<bool(VerilatedContext*)> run;
};

const Scenario kScenarios[] = {
    {"dma_rd_legal", false, [](VerilatedContext* c) { return RunDmaBeats(c, RdMisstep::kNone); }},
    {"dma_rd_valid_dropped", true, [](VerilatedContext* c) { return RunDmaBeats(c, RdMisstep::kDropValid); }},
    {"dma_rd_payload_changed", true, [](VerilatedContext* c) { return RunDmaBeats(c, RdMisstep::kChangeAddr); }},
    {"dma_done_without_command", true, RunDmaDoneWithoutCommand},
    {"ram_writes_legal", false, [](VerilatedContext* c) { return RunRamWrites<Vtpu_line_ram>(c, 3, 4); }},
    {"ram_write_collision", true, [](VerilatedContext* c) { return RunRamWrites<Vtpu_line_ram>(c, 5, 5); }},
    // tpu_line_ram verilated with Bytes = 192 (not a power of two): parameter legality at time 0.
    {"ram_bad_size", true, [](VerilatedContext* c) { return RunRamWrites<Vtpu_line_ram_bad_size>(c, 0, 1); }},
    {"array_swaps_legal", false, [](VerilatedContext* c) { return RunArraySwaps(c, true); }},
    // A second swap with no tile loaded since the first (the banks would bring back the reset tile).
    {"array_swap_without_tile", true, [](VerilatedContext* c) { return RunArraySwaps(c, false); }},
    {"array_modes_legal", false, [](VerilatedContext* c) { return RunArrayModes(c, ModeMisstep::kNone); }},
    // bf16 rows meeting an int8 tile; a tile whose rows change mode.
    {"array_row_mode_mismatch", true, [](VerilatedContext* c) { return RunArrayModes(c, ModeMisstep::kRowMode); }},
    {"array_tile_mode_mixed", true, [](VerilatedContext* c) { return RunArrayModes(c, ModeMisstep::kTileMode); }},
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s SCENARIO\nscenarios:", argv[0]);
    for (const Scenario& s : kScenarios) std::fprintf(stderr, " %s", s.name);
    std::fprintf(stderr, "\n");
    return 2;
  }
  for (const Scenario& s : kScenarios) {
    if (std::strcmp(argv[1], s.name) != 0) continue;
    auto ctx = std::make_unique<VerilatedContext>();
    ctx->fatalOnError(false);  // an assertion ends the run (gotFinish) instead of aborting the process
    const bool completed = s.run(ctx.get());
    std::printf("%s: %s (expected: %s)\n", s.name, completed ? "ran to its end" : "stopped by an assertion",
                s.expect_stop ? "stopped by an assertion" : "ran to its end");
    return completed != s.expect_stop ? 0 : 1;
  }
  std::fprintf(stderr, "unknown scenario %s\n", argv[1]);
  return 2;
}
