// Drives the Verilated fp_units_wrap (rtl/tpu_fp_pkg.sv's bf16 product and fp32 add) from stdin for
// tests/rtl/fp_units_test.py, which holds the reference: each input line "A B X Y" (hex: two bf16, two fp32)
// prints "MUL ADD MAC CVT" (hex): a * b, x + y and x + a * b (fp32) and x rounded to bf16 as the RTL computes them.
#include <cinttypes>
#include <cstdio>

#include "Vfp_units_wrap.h"

int main() {
  Vfp_units_wrap dut;
  unsigned a = 0, b = 0, x = 0, y = 0;
  while (std::scanf("%x %x %x %x", &a, &b, &x, &y) == 4) {
    dut.a_i = static_cast<uint16_t>(a);
    dut.b_i = static_cast<uint16_t>(b);
    dut.x_i = x;
    dut.y_i = y;
    dut.eval();
    std::printf("%08" PRIx32 " %08" PRIx32 " %08" PRIx32 " %04x\n", dut.mul_o, dut.add_o, dut.mac_o,
                static_cast<unsigned>(dut.cvt_o));
  }
  dut.final();
  return 0;
}
