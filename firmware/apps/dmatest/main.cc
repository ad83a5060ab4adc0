// DMA driver on the model: moves data between SMEM, HBM, VMEM and ACC with interrupts and
// checks every byte; an out-of-range descriptor must fail and leave its destination untouched.
#include <stdint.h>

#include "arch/arch.h"
#include "drivers/console.h"
#include "drivers/dma.h"
#include "lib/mem.h"

namespace {

using strata::console::Printf;
using strata::dma::Descriptor;
using strata::dma::SmemOffset;
using strata::dma::Tier;

alignas(64) uint8_t g_a[4096];
alignas(64) uint8_t g_b[4096];
int g_failures = 0;

void Check(bool ok, const char* what) {
  if (!ok) {
    ++g_failures;
    Printf("FAIL: %s\n", what);
  }
}

void Fill(uint8_t* p, uint32_t n, uint32_t seed) {
  for (uint32_t i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    p[i] = static_cast<uint8_t>(seed >> 24);
  }
}

uint32_t Timed(const char* what, uint32_t queue, const Descriptor& d) {
  const uint32_t c0 = strata::arch::ReadCycle32();
  const strata_status s = strata::dma::Copy(queue, d);
  const uint32_t cycles = strata::arch::ReadCycle32() - c0;
  Printf("  %-28s %5u bytes x %u rows: %5u cycles (%s)\n", what, static_cast<unsigned>(d.len),
         static_cast<unsigned>(d.rows), static_cast<unsigned>(cycles), strata_status_name(s));
  Check(s == STRATA_OK, what);
  return cycles;
}

}  // namespace

int main() {
  strata::dma::Init();
  constexpr uint64_t kHbm = 0x10000000;  // 256 MiB into HBM
  Printf("dmatest: SMEM <-> HBM <-> VMEM/ACC with completion interrupts\n");

  Fill(g_a, sizeof g_a, 1);
  Timed("SMEM -> HBM", 0, {Tier::kSmem, SmemOffset(g_a), Tier::kHbm, kHbm, 4096});
  Timed("HBM -> HBM (overlap, up)", 0, {Tier::kHbm, kHbm, Tier::kHbm, kHbm + 100, 4096});
  Timed("HBM -> SMEM", 1, {Tier::kHbm, kHbm + 100, Tier::kSmem, SmemOffset(g_b), 4096});
  Check(memcmp(g_a, g_b, 4096) == 0, "overlapping move up");

  Timed("HBM -> HBM (overlap, down)", 1, {Tier::kHbm, kHbm + 100, Tier::kHbm, kHbm + 37, 4096});
  memset(g_b, 0, sizeof g_b);
  Timed("HBM -> SMEM", 0, {Tier::kHbm, kHbm + 37, Tier::kSmem, SmemOffset(g_b), 4096});
  Check(memcmp(g_a, g_b, 4096) == 0, "overlapping move down");

  // Through VMEM as a 2-D tile: 32 rows of 17 bytes into 64-byte VMEM lines and back.
  Timed("HBM -> VMEM (2-D)", 0, {Tier::kHbm, kHbm + 37, Tier::kVmem, 128, 17, 32, 17, 64});
  Timed("VMEM -> HBM (2-D)", 1, {Tier::kVmem, 128, Tier::kHbm, kHbm + 65536, 17, 32, 64, 17});
  memset(g_b, 0, sizeof g_b);
  Timed("HBM -> SMEM", 0, {Tier::kHbm, kHbm + 65536, Tier::kSmem, SmemOffset(g_b), 17 * 32});
  Check(memcmp(g_a, g_b, 17 * 32) == 0, "VMEM 2-D round trip");

  // ACC read-out path.
  Timed("HBM -> ACC", 1, {Tier::kHbm, kHbm + 37, Tier::kAcc, 4096, 2048});
  Timed("ACC -> HBM", 0, {Tier::kAcc, 4096, Tier::kHbm, kHbm + 131072, 2048});
  memset(g_b, 0, sizeof g_b);
  Timed("HBM -> SMEM", 1, {Tier::kHbm, kHbm + 131072, Tier::kSmem, SmemOffset(g_b), 2048});
  Check(memcmp(g_a, g_b, 2048) == 0, "ACC round trip");

  // Both queues at once.
  uint32_t t0 = 0, t1 = 0;
  memset(g_b, 0, sizeof g_b);
  Check(strata::dma::Submit(0, {Tier::kSmem, SmemOffset(g_a), Tier::kHbm, kHbm + 200000, 2048}, &t0) == STRATA_OK,
        "submit q0");
  Check(
      strata::dma::Submit(1, {Tier::kSmem, SmemOffset(g_a + 2048), Tier::kHbm, kHbm + 202048, 2048}, &t1) == STRATA_OK,
      "submit q1");
  Check(strata::dma::Wait(0, t0) == STRATA_OK && strata::dma::Wait(1, t1) == STRATA_OK, "concurrent queues");
  Timed("HBM -> SMEM", 0, {Tier::kHbm, kHbm + 200000, Tier::kSmem, SmemOffset(g_b), 4096});
  Check(memcmp(g_a, g_b, 4096) == 0, "concurrent queues data");

  // Bad descriptors: a clear status, nothing written.
  memset(g_b, 0x5a, sizeof g_b);
  const strata_status bad = strata::dma::Copy(0, {Tier::kHbm, 0xffffffff00ull, Tier::kSmem, SmemOffset(g_b), 64});
  Printf("  out-of-range source: %s\n", strata_status_name(bad));
  Check(bad == STRATA_OUT_OF_RANGE, "out-of-range source is OUT_OF_RANGE");
  const strata_status bad2 = strata::dma::Copy(1, {Tier::kHbm, kHbm, Tier::kVmem, STRATA_VMEM_SIZE - 32, 64});
  Check(bad2 == STRATA_OUT_OF_RANGE, "VMEM overflow is OUT_OF_RANGE");
  const strata_status bad3 = strata::dma::Copy(1, {Tier::kVmem, 0, Tier::kAcc, 0, 64});
  Check(bad3 == STRATA_INVALID_ARGUMENT, "on-chip to on-chip is INVALID_ARGUMENT");
  bool untouched = true;
  for (uint32_t i = 0; i < sizeof g_b; ++i) untouched &= g_b[i] == 0x5a;
  Check(untouched, "failed descriptor wrote nothing");
  Check(strata::dma::Copy(0, {Tier::kSmem, SmemOffset(g_a), Tier::kHbm, kHbm, 64}) == STRATA_OK,
        "queue works after an error");

  Printf("dmatest: %d failures\n", g_failures);
  return g_failures == 0 ? 0 : 1;
}
