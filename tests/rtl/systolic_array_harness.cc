// Drives the Verilated tpu_systolic_array cycle by cycle from stdin for tests/rtl/systolic_array_bf16_test.py,
// which holds the schedule and the reference. Each input line is one cycle:
//   A_VALID A_FP A_LO A_HI W_VALID W_FP W_LO W_HI SWAP
// (flags 0/1; each row N bytes as 2N hex digits, byte i first). For every cycle whose c_valid_o is high the
// harness prints "CYCLE C0 C1 ... C(N-1)" (cycle = the input line's index, counted from 0; results as 8 hex
// digits). The first line of output is "N <array size>".
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "Vtpu_systolic_array.h"
#include "verilated.h"

#ifndef STRATA_MXU_N
#error "STRATA_MXU_N (the array size the model was verilated with) must be defined"
#endif

namespace {

constexpr int kN = STRATA_MXU_N;

std::vector<uint8_t> Bytes(const std::string& hex) {
  std::vector<uint8_t> v(kN, 0);
  for (int i = 0; i < kN && 2 * i + 1 < static_cast<int>(hex.size()); ++i) {
    v[i] = static_cast<uint8_t>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
  }
  return v;
}

// N = 8 makes the row ports 64-bit (QData); larger N makes them VlWide.
void Put(QData& port, const std::vector<uint8_t>& v) {
  port = 0;
  for (int i = 0; i < kN; ++i) port |= uint64_t{v[i]} << (8 * i);
}
template <std::size_t W>
void Put(VlWide<W>& port, const std::vector<uint8_t>& v) {
  for (std::size_t w = 0; w < W; ++w) port.at(w) = 0;
  for (int i = 0; i < kN; ++i) port.at(i / 4) |= uint32_t{v[i]} << (8 * (i % 4));
}

}  // namespace

int main() {
  auto ctx = std::make_unique<VerilatedContext>();
  ctx->randReset(0);
  auto top = std::make_unique<Vtpu_systolic_array>(ctx.get());
  auto clock = [&] {
    top->clk_i = 1;
    top->eval();
    top->clk_i = 0;
    top->eval();
  };
  top->clk_i = 0;
  top->rst_ni = 0;
  top->eval();
  clock();
  clock();
  top->rst_ni = 1;
  top->eval();
  std::printf("N %d\n", kN);

  int a_valid = 0, a_fp = 0, w_valid = 0, w_fp = 0, swap = 0;
  std::string a_lo, a_hi, w_lo, w_hi;
  for (uint64_t cycle = 0; std::cin >> a_valid >> a_fp >> a_lo >> a_hi >> w_valid >> w_fp >> w_lo >> w_hi >> swap;
       ++cycle) {
    top->a_valid_i = a_valid;
    top->a_fp_i = a_fp;
    Put(top->a_row_i, Bytes(a_lo));
    Put(top->a_hi_i, Bytes(a_hi));
    top->w_valid_i = w_valid;
    top->w_fp_i = w_fp;
    Put(top->w_row_i, Bytes(w_lo));
    Put(top->w_hi_i, Bytes(w_hi));
    top->w_swap_i = swap;
    top->eval();
    if (top->c_valid_o) {
      std::printf("%llu", static_cast<unsigned long long>(cycle));
      for (int j = 0; j < kN; ++j) std::printf(" %08x", top->c_row_o.at(j));
      std::printf("\n");
    }
    clock();
    if (ctx->gotFinish()) return 1;  // an assertion stopped the run
  }
  top->final();
  return 0;
}
