// A program of one's own on the control core: prints over the console, moves int8 matrices to HBM with the
// DMA engine, multiplies them on the matrix unit, checks the product against a plain loop on the core and
// ends the run with pass (main returns 0) or fail (nonzero). Built with strata_add_firmware (docs/firmware.md).
#include <stdint.h>

#include "arch/arch.h"        // cycle counter
#include "drivers/console.h"  // Printf
#include "drivers/dma.h"      // SMEM <-> HBM copies
#include "drivers/mxu.h"      // the matrix unit's size and counters
#include "kernels/gemm.h"     // the tiled int8 GEMM on the matrix unit

namespace {

using strata::console::Printf;
using strata::dma::Tier;

// C[M x N] = A[M x K] . B[K x N]: small, and not multiples of the array size, so the edges are exercised.
constexpr uint32_t kM = 20, kK = 40, kN = 24;
// Where the operands go in HBM (byte addresses; the default HBM is 4 GiB).
constexpr uint64_t kHbmA = 0x0000, kHbmB = 0x1000, kHbmC = 0x2000;

// In SMEM (the program's own memory: .bss is zeroed by the start-up code). 64-byte aligned like a DMA line.
alignas(64) int8_t g_a[kM * kK];
alignas(64) int8_t g_b[kK * kN];
alignas(64) int32_t g_c[kM * kN];    // from the matrix unit
alignas(64) int32_t g_ref[kM * kN];  // from the core

void Fill(int8_t* p, uint32_t n, uint32_t seed) {
  for (uint32_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    p[i] = static_cast<int8_t>(seed >> 24);  // -128..127
  }
}

// One copy on DMA queue 0, waited for; false (with a message) if the engine reported an error.
bool Copy(Tier src_tier, uint64_t src, Tier dst_tier, uint64_t dst, uint32_t bytes) {
  const strata_status s = strata::dma::Copy(0, {src_tier, src, dst_tier, dst, bytes});
  if (s != STRATA_OK) Printf("DMA copy of %u bytes: %s\n", static_cast<unsigned>(bytes), strata_status_name(s));
  return s == STRATA_OK;
}

}  // namespace

int main() {
  strata::dma::Init();
  strata::mxu::Init();
  Printf("matmul: C[%u x %u] = A[%u x %u] . B[%u x %u] on a %ux%u matrix unit\n", kM, kN, kM, kK, kK, kN,
         static_cast<unsigned>(strata::mxu::ArraySize()), static_cast<unsigned>(strata::mxu::ArraySize()));

  Fill(g_a, sizeof g_a, 1);
  Fill(g_b, sizeof g_b, 2);
  // SMEM -> HBM: on-chip sides are byte offsets into their memory, hence SmemOffset.
  uint32_t t0 = strata::arch::ReadCycle32();
  if (!Copy(Tier::kSmem, strata::dma::SmemOffset(g_a), Tier::kHbm, kHbmA, sizeof g_a) ||
      !Copy(Tier::kSmem, strata::dma::SmemOffset(g_b), Tier::kHbm, kHbmB, sizeof g_b)) {
    return 1;
  }
  Printf("DMA      A and B to HBM (%u bytes) in %u cycles\n", static_cast<unsigned>(sizeof g_a + sizeof g_b),
         static_cast<unsigned>(strata::arch::ReadCycle32() - t0));

  strata::kernels::GemmParams p;
  p.a = kHbmA;
  p.b = kHbmB;
  p.c_out = kHbmC;
  p.m = kM;
  p.k = kK;
  p.n = kN;
  strata::kernels::GemmStats stats;
  const uint32_t rows0 = strata::mxu::RowsStreamed();
  t0 = strata::arch::ReadCycle32();
  const strata_status s = strata::kernels::Gemm(p, &stats);
  const uint32_t t1 = strata::arch::ReadCycle32();
  if (s != STRATA_OK) {
    Printf("FAIL: GEMM: %s\n", strata_status_name(s));
    return 1;
  }
  // The window is in the program's cycles (mcycle); a waveform shows it shifted by strata-sim's "first cycle".
  Printf("GEMM     %u MACs in %u cycles (cycles %u..%u): %u matrix-unit commands, %u DMA descriptors, %u rows\n",
         kM * kK * kN, static_cast<unsigned>(stats.cycles), static_cast<unsigned>(t0), static_cast<unsigned>(t1),
         static_cast<unsigned>(stats.mxu_commands), static_cast<unsigned>(stats.dma_descriptors),
         static_cast<unsigned>(strata::mxu::RowsStreamed() - rows0));
  if (!Copy(Tier::kHbm, kHbmC, Tier::kSmem, strata::dma::SmemOffset(g_c), sizeof g_c)) return 1;

  // The same product on the core (rv32im: one mul per MAC).
  t0 = strata::arch::ReadCycle32();
  for (uint32_t i = 0; i < kM; ++i) {
    for (uint32_t j = 0; j < kN; ++j) {
      int32_t sum = 0;
      for (uint32_t k = 0; k < kK; ++k) sum += g_a[i * kK + k] * g_b[k * kN + j];
      g_ref[i * kN + j] = sum;
    }
  }
  Printf("core     the same product in %u cycles\n", static_cast<unsigned>(strata::arch::ReadCycle32() - t0));

  uint32_t mismatches = 0;
  for (uint32_t i = 0; i < kM * kN; ++i) {
    if (g_c[i] != g_ref[i]) {
      if (mismatches < 4) {
        Printf("  C[%u][%u] = %d, expected %d\n", static_cast<unsigned>(i / kN), static_cast<unsigned>(i % kN),
               static_cast<int>(g_c[i]), static_cast<int>(g_ref[i]));
      }
      ++mismatches;
    }
  }
  if (mismatches != 0) {
    Printf("FAIL: %u of %u elements differ\n", static_cast<unsigned>(mismatches), kM * kN);
    return 1;
  }
  Printf("PASS: all %u elements match the core's\n", kM * kN);
  return 0;
}
