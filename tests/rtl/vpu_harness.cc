// Drives the Verilated vector unit (rtl/tpu_vpu.sv) for tests/rtl/vpu_test.py, which holds the reference: reads
// rows from stdin, streams them through the pipeline and writes the result rows to stdout, all as little-endian
// uint32 words.
//   in,  per row:  op, bcast, flags (1 first, 2 last, bits 15:8 idle cycles before the row), mask, a[L], b[L]
//   out, per row:  data[L], mask, flags (1 err, 2 write, 4 last)
//   then:          err_count, cycles, latency (edges from the first row's handshake to its result's), L
// usage: rtl_vpu_harness [STALL_SEED [WAVE.fst]]   STALL_SEED 0 (default): input every cycle, output always ready;
// else a seeded pseudo-random pattern of input gaps and output stalls (the results must not change). WAVE.fst:
// an FST waveform of the run (1 GHz: timestamps in ps, the top scope `strata`; rtl/tpu_vpu.gtkw shows it).
//        rtl_vpu_harness --assert CASE  drives one scripted protocol case (a legal one, or one that breaks a rule
// the unit asserts) and says whether an assertion stopped it, in tests/rtl/assert_test.cc's words.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "Vtpu_vpu.h"
#include "verilated.h"
#include "verilated_fst_c.h"

namespace {

constexpr int kLanes = STRATA_VPU_LANES;

template <typename W>
void SetRow(W& port, const uint32_t* words) {
  for (int i = 0; i < kLanes; ++i) port[i] = words[i];
}

// The scripted cases: each returns true when it ran to its end, false when an assertion stopped it.
bool AssertCase(const char* name, VerilatedContext* ctx, bool* expect_stop) {
  Vtpu_vpu dut(ctx);
  auto tick = [&]() {
    dut.clk_i = 0;
    dut.eval();
    dut.clk_i = 1;
    dut.eval();
    ctx->timeInc(1);
    return !ctx->gotFinish();
  };
  dut.rst_ni = 0;
  dut.in_valid_i = 0;
  dut.out_ready_i = 0;
  tick();
  dut.rst_ni = 1;
  const bool legal = std::strcmp(name, "vpu_rows_legal") == 0;
  const bool no_first = std::strcmp(name, "vpu_row_without_first") == 0;
  const bool op_changed = std::strcmp(name, "vpu_op_changed_while_stalled") == 0;
  const bool dropped = std::strcmp(name, "vpu_valid_dropped") == 0;
  if (!legal && !no_first && !op_changed && !dropped) {
    std::fprintf(stderr,
                 "unknown case %s (vpu_rows_legal, vpu_row_without_first, vpu_op_changed_while_stalled, "
                 "vpu_valid_dropped)\n",
                 name);
    std::exit(2);
  }
  *expect_stop = !legal;
  // A 12-row ADD command into an output not taken for 8 cycles: the pipeline fills (3 rows) and the fourth row
  // waits from cycle 3; at cycle 5 the broken cases change its op or drop its valid.
  dut.in_op_i = 0;
  dut.in_bcast_i = 0;
  int row = 0;
  for (int cycle = 0; cycle < 40; ++cycle) {
    dut.in_valid_i = row < 12;
    dut.in_op_i = 0;
    dut.in_first_i = row == 0 && !no_first;
    dut.in_last_i = row == 11;
    for (int i = 0; i < kLanes; ++i) dut.in_a_i[i] = dut.in_b_i[i] = 0x3F800000u + row;
    dut.out_ready_i = cycle >= 8;
    if (cycle == 5 && op_changed) dut.in_op_i = 2;
    if (cycle == 5 && dropped) dut.in_valid_i = 0;
    dut.eval();
    const bool fire = dut.in_valid_i && dut.in_ready_o;
    if (!tick()) return false;
    row += fire;
  }
  dut.final();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--assert") == 0) {
    auto ctx = std::make_unique<VerilatedContext>();
    ctx->fatalOnError(false);  // an assertion ends the run (gotFinish) instead of aborting the process
    bool expect_stop = false;
    const bool completed = AssertCase(argv[2], ctx.get(), &expect_stop);
    std::printf("%s: %s (expected: %s)\n", argv[2], completed ? "ran to its end" : "stopped by an assertion",
                expect_stop ? "stopped by an assertion" : "ran to its end");
    return completed != expect_stop ? 0 : 1;
  }
  const uint32_t seed = argc > 1 ? static_cast<uint32_t>(std::strtoul(argv[1], nullptr, 0)) : 0;
  const size_t in_words = 4 + 2 * kLanes;
  std::vector<uint32_t> in;
  uint32_t buf[4096];
  size_t got;
  while ((got = std::fread(buf, sizeof(uint32_t), 4096, stdin)) > 0) in.insert(in.end(), buf, buf + got);
  if (in.size() % in_words != 0) {
    std::fprintf(stderr, "rtl_vpu_harness: input is not whole rows of %zu words\n", in_words);
    return 2;
  }
  const size_t rows = in.size() / in_words;
  std::vector<uint32_t> out;
  out.reserve(rows * (kLanes + 2) + 4);

  const char* wave = argc > 2 ? argv[2] : nullptr;
  auto ctx = std::make_unique<VerilatedContext>();
  if (wave) ctx->traceEverOn(true);
  Vtpu_vpu dut(ctx.get(), "strata");
  std::unique_ptr<VerilatedFstC> fst;
  if (wave) {
    fst = std::make_unique<VerilatedFstC>();
    dut.trace(fst.get(), 99);
    fst->open(wave);
  }
  uint32_t rng = seed * 2654435761u + 1;
  auto Coin = [&](uint32_t percent) {
    if (seed == 0) return true;
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng % 100 < percent;
  };
  dut.clk_i = 0;
  dut.rst_ni = 0;
  dut.in_valid_i = 0;
  dut.out_ready_i = 0;
  dut.eval();
  dut.clk_i = 1;
  dut.eval();
  dut.clk_i = 0;
  dut.rst_ni = 1;
  dut.eval();

  size_t next = 0, done = 0;
  uint64_t cycle = 0, first_in = 0, first_out = 0;
  uint32_t idle = rows ? (in[2] >> 8) & 0xFF : 0;  // idle cycles still due before row `next`
  while (done < rows) {
    if (cycle > 300 * rows + 1000) {
      std::fprintf(stderr, "rtl_vpu_harness: %zu of %zu rows came back after %llu cycles\n", done, rows,
                   static_cast<unsigned long long>(cycle));
      return 3;
    }
    // Inputs for this cycle (held while stalled: a row stays offered until taken).
    if (!dut.in_valid_i && next < rows && idle > 0) {
      --idle;
    } else if (!dut.in_valid_i && next < rows && Coin(80)) {
      const uint32_t* r = &in[next * in_words];
      dut.in_valid_i = 1;
      dut.in_op_i = r[0];
      dut.in_bcast_i = r[1];
      dut.in_first_i = r[2] & 1;
      dut.in_last_i = (r[2] >> 1) & 1;
      dut.in_mask_i = r[3];
      SetRow(dut.in_a_i, r + 4);
      SetRow(dut.in_b_i, r + 4 + kLanes);
    }
    dut.out_ready_i = Coin(70);
    dut.eval();
    if (fst) fst->dump(cycle * 1000);  // 1 GHz: timestamps in ps, the rising edge at +500
    const bool in_fire = dut.in_valid_i && dut.in_ready_o;
    const bool out_fire = dut.out_valid_o && dut.out_ready_i;
    if (out_fire) {
      for (int i = 0; i < kLanes; ++i) out.push_back(dut.out_data_o[i]);
      out.push_back(dut.out_mask_o);
      out.push_back(dut.out_err_o | (dut.out_write_o << 1) | (dut.out_last_o << 2));
      if (done == 0) first_out = cycle;
      ++done;
    }
    dut.clk_i = 1;
    dut.eval();
    if (fst) fst->dump(cycle * 1000 + 500);
    dut.clk_i = 0;
    dut.eval();
    if (in_fire) {
      if (next == 0) first_in = cycle;
      ++next;
      dut.in_valid_i = 0;
      if (next < rows) idle = (in[next * in_words + 2] >> 8) & 0xFF;
    }
    ++cycle;
  }
  out.push_back(dut.err_count_o);
  out.push_back(static_cast<uint32_t>(cycle));
  out.push_back(static_cast<uint32_t>(first_out - first_in));
  out.push_back(kLanes);
  std::fwrite(out.data(), sizeof(uint32_t), out.size(), stdout);
  dut.final();
  if (fst) fst->close();
  return 0;
}
