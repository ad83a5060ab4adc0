// Matrix unit in bf16 mode on the model, through its registers (not the driver, which refuses bad commands
// itself): bf16 LOAD_WEIGHTS / MATMUL / READOUT give exact known results (fp32 and bf16 rows, ReLU, a K-walking
// MATMUL accumulating onto fp32 ACC), and every malformed bf16 command completes with its error code and
// changes nothing in ACC or VMEM (docs/matrix-unit.md, "bf16 mode").
#include <stdint.h>

#include "drivers/console.h"
#include "drivers/dma.h"
#include "hal/mmio.h"
#include "lib/mem.h"
#include "strata/regmap.h"

namespace {

using strata::console::Printf;
using strata::dma::SmemOffset;
using strata::dma::Tier;

constexpr strata::hal::MmioRegion kMxu(STRATA_MXU_BASE);
constexpr uint32_t kRows = 4;  // activation rows
// VMEM layout (N <= 32: a weight tile is at most 2 KiB).
constexpr uint32_t kW = 0x0000, kA = 0x1000, kOut32 = 0x2000, kOut16 = 0x4000;

alignas(64) uint8_t g_buf[4096];
alignas(64) uint8_t g_before[4096];
int g_failures = 0;
uint32_t g_n = 0, g_pushed = 0;

void Check(bool ok, const char* what) {
  if (!ok) {
    ++g_failures;
    Printf("FAIL: %s\n", what);
  }
}

// fp32 bits of a small integer (exact: |v| < 2^24).
uint32_t F32(int32_t v) {
  if (v == 0) return 0;
  const uint32_t sign = v < 0 ? 0x80000000u : 0;
  uint32_t m = static_cast<uint32_t>(v < 0 ? -v : v), e = 0;
  while ((m >> e) > 1) ++e;
  return sign | ((127 + e) << 23) | ((m << (23 - e)) & 0x7fffffu);
}
uint16_t Bf16(int32_t v) { return static_cast<uint16_t>(F32(v) >> 16); }  // exact for |v| <= 256

// a[r][k]: odd rows negative, so ReLU has something to clear.
int32_t A(uint32_t r, uint32_t k) { return (r % 2 ? -1 : 1) * static_cast<int32_t>((r + 1) * (k + 1)); }

// The DMA moves between HBM and the other memories: SMEM <-> VMEM/ACC goes through an HBM scratch area.
void Copy(Tier src_tier, uint64_t src, Tier dst_tier, uint64_t dst, uint32_t len) {
  constexpr uint64_t kScratch = 0x1000000;
  Check(strata::dma::Copy(0, {src_tier, src, Tier::kHbm, kScratch, len}) == STRATA_OK, "DMA copy into HBM");
  Check(strata::dma::Copy(0, {Tier::kHbm, kScratch, dst_tier, dst, len}) == STRATA_OK, "DMA copy out of HBM");
}

struct Cmd {
  uint32_t cmd, src = 0, dst = 0, rows = 1, stride = 0, w_src = 0, w_stride = 0, k_rows = 0;
};

// Stages every register, pushes, waits for the command to complete; returns its error code (0: none).
uint32_t Run(const Cmd& c) {
  const uint32_t errors = kMxu.Read32(STRATA_MXU_ERRORS);
  kMxu.Write32(STRATA_MXU_SRC, c.src);
  kMxu.Write32(STRATA_MXU_DST, c.dst);
  kMxu.Write32(STRATA_MXU_ROWS, c.rows);
  kMxu.Write32(STRATA_MXU_SRC_STRIDE, c.stride);
  kMxu.Write32(STRATA_MXU_W_SRC, c.w_src);
  kMxu.Write32(STRATA_MXU_W_STRIDE, c.w_stride);
  kMxu.Write32(STRATA_MXU_K_ROWS, c.k_rows);
  kMxu.Write32(STRATA_MXU_CMD, c.cmd);
  kMxu.Write32(STRATA_MXU_PUSH, 1);
  ++g_pushed;
  while (kMxu.Read32(STRATA_MXU_DONE) != g_pushed) {
  }
  if (kMxu.Read32(STRATA_MXU_ERRORS) == errors) return 0;
  return (kMxu.Read32(STRATA_MXU_STATUS) & STRATA_MXU_STATUS_LAST_ERR_MASK) >> STRATA_MXU_STATUS_LAST_ERR_LSB;
}

constexpr uint32_t Op(uint32_t op) { return op << STRATA_MXU_CMD_OP_LSB; }
constexpr uint32_t kLoad = Op(STRATA_MXU_OP_LOAD_WEIGHTS), kMatmul = Op(STRATA_MXU_OP_MATMUL),
                   kReadout = Op(STRATA_MXU_OP_READOUT);
constexpr uint32_t kBf16 = STRATA_MXU_CMD_BF16_MASK, kOutBf16 = STRATA_MXU_CMD_OUT_BF16_MASK;

// Output row r of a READOUT, element j, against want(r, j) (fp32 or bf16 bits).
template <typename Want>
void CheckRows(uint32_t vmem, uint32_t elem, Want want, const char* what) {
  Copy(Tier::kVmem, vmem, Tier::kSmem, SmemOffset(g_buf), kRows * elem * g_n);
  bool ok = true;
  for (uint32_t r = 0; r < kRows; ++r) {
    for (uint32_t j = 0; j < g_n; ++j) {
      uint32_t got = 0;
      memcpy(&got, g_buf + (r * g_n + j) * elem, elem);
      if (got != want(r, j)) {
        if (ok) Printf("  %s: row %u col %u: 0x%08x, want 0x%08x\n", what, r, j, got, want(r, j));
        ok = false;
      }
    }
  }
  Check(ok, what);
}

void Expect(uint32_t got, uint32_t want, const char* what) {
  if (got != want) Printf("  %s: error %u, want %u\n", what, got, want);
  Check(got == want, what);
}

}  // namespace

int main() {
  strata::dma::Init();
  g_n = (kMxu.Read32(STRATA_MXU_CONFIG) & STRATA_MXU_CONFIG_N_MASK) >> STRATA_MXU_CONFIG_N_LSB;
  g_pushed = kMxu.Read32(STRATA_MXU_DONE);
  const uint32_t n = g_n, row16 = 2 * n, row32 = 4 * n;
  Printf("mxutest: bf16 commands on the %ux%u array\n", n, n);

  // W = 2 I (bf16), A as above; both rows of 2N bytes, little-endian elements.
  memset(g_buf, 0, sizeof g_buf);
  for (uint32_t k = 0; k < n; ++k) {
    const uint16_t two = Bf16(2);
    memcpy(g_buf + k * row16 + 2 * k, &two, 2);
  }
  Copy(Tier::kSmem, SmemOffset(g_buf), Tier::kVmem, kW, n * row16);
  for (uint32_t r = 0; r < kRows; ++r) {
    for (uint32_t k = 0; k < n; ++k) {
      const uint16_t a = Bf16(A(r, k));
      memcpy(g_buf + r * row16 + 2 * k, &a, 2);
    }
  }
  Copy(Tier::kSmem, SmemOffset(g_buf), Tier::kVmem, kA, kRows * row16);

  // C = A W = 2A, exact; READOUT fp32, then bf16 with ReLU.
  Expect(Run({kLoad | kBf16, kW, 0, n}), 0, "bf16 LOAD_WEIGHTS");
  Expect(Run({kMatmul | kBf16, kA, 0, kRows, row16}), 0, "bf16 MATMUL");
  Expect(Run({kReadout | kBf16, 0, kOut32, kRows}), 0, "bf16 READOUT fp32");
  CheckRows(
      kOut32, 4, [](uint32_t r, uint32_t j) { return F32(2 * A(r, j)); }, "fp32 rows of A.2I");
  Expect(Run({kReadout | kBf16 | kOutBf16 | STRATA_MXU_CMD_RELU_MASK, 0, kOut16, kRows}), 0, "bf16 READOUT bf16");
  CheckRows(
      kOut16, 2, [](uint32_t r, uint32_t j) -> uint32_t { return A(r, j) < 0 ? 0 : Bf16(2 * A(r, j)); },
      "bf16 rows of ReLU(A.2I)");
  // A K-walking MATMUL of one tile, accumulating: ACC = 2A + 2A in fp32.
  Expect(Run({kMatmul | kBf16 | STRATA_MXU_CMD_ACCUMULATE_MASK, kA, 0, kRows, row16, kW, n * row16, n}), 0,
         "bf16 K-walking MATMUL, accumulating");
  Expect(Run({kReadout | kBf16, 0, kOut32, kRows}), 0, "bf16 READOUT fp32 after accumulating");
  CheckRows(
      kOut32, 4, [](uint32_t r, uint32_t j) { return F32(4 * A(r, j)); }, "fp32 rows of A.2I + A.2I");

  // Malformed bf16 commands: each completes with its error and writes neither ACC nor VMEM.
  Copy(Tier::kAcc, 0, Tier::kSmem, SmemOffset(g_before), kRows * row32);
  Copy(Tier::kVmem, kOut32, Tier::kSmem, SmemOffset(g_before) + 2048, kRows * row32);
  const uint32_t half = STRATA_MXU_ROW_ALIGN(n);  // aligned for an int8 row, not for a bf16 one
  Expect(Run({kReadout | kBf16 | STRATA_MXU_CMD_INT8_MASK, 0, kOut32, kRows}), STRATA_MXU_ERR_OP,
         "READOUT with INT8 and BF16");
  Expect(Run({kReadout | kOutBf16, 0, kOut32, kRows}), STRATA_MXU_ERR_OP, "READOUT with OUT_BF16 without BF16");
  if (half < STRATA_MXU_ROW_ALIGN(row16)) {
    Expect(Run({kMatmul | kBf16, kA + half, 0, kRows, row16}), STRATA_MXU_ERR_ALIGN, "bf16 MATMUL, int8-aligned row");
    Expect(Run({kMatmul | kBf16, kA, 0, kRows, row16 + half}), STRATA_MXU_ERR_ALIGN,
           "bf16 MATMUL, int8-aligned stride");
    Expect(Run({kLoad | kBf16, kW + half, 0, n}), STRATA_MXU_ERR_ALIGN, "bf16 LOAD_WEIGHTS, int8-aligned row");
  }
  // An int8 tile would fit at the end of VMEM; a bf16 one (2N^2 bytes) does not.
  Expect(Run({kLoad | kBf16, STRATA_VMEM_SIZE - n * n, 0, n}), STRATA_MXU_ERR_SRC_RANGE, "bf16 LOAD_WEIGHTS past VMEM");
  Expect(Run({kMatmul | kBf16, STRATA_VMEM_SIZE - 2 * row16, 0, 3, row16}), STRATA_MXU_ERR_SRC_RANGE,
         "bf16 MATMUL rows past VMEM");
  Expect(Run({kMatmul | kBf16, kA, 0, kRows, row16, STRATA_VMEM_SIZE - n * row16, n * row16, 2 * n}),
         STRATA_MXU_ERR_SRC_RANGE, "bf16 K-walking MATMUL, second tile past VMEM");
  Expect(Run({kReadout | kBf16 | kOutBf16, 0, STRATA_VMEM_SIZE - row16, 2}), STRATA_MXU_ERR_DST_RANGE,
         "bf16 READOUT, bf16 rows past VMEM");
  Copy(Tier::kAcc, 0, Tier::kSmem, SmemOffset(g_buf), kRows * row32);
  Check(memcmp(g_buf, g_before, kRows * row32) == 0, "ACC unchanged by the refused commands");
  Copy(Tier::kVmem, kOut32, Tier::kSmem, SmemOffset(g_buf), kRows * row32);
  Check(memcmp(g_buf, g_before + 2048, kRows * row32) == 0, "VMEM unchanged by the refused commands");
  // The weights the refused LOAD_WEIGHTS would have replaced are still in place: A.2I once more.
  Expect(Run({kMatmul | kBf16, kA, 0, kRows, row16}), 0, "bf16 MATMUL after the refused commands");
  Expect(Run({kReadout | kBf16, 0, kOut32, kRows}), 0, "bf16 READOUT after the refused commands");
  CheckRows(
      kOut32, 4, [](uint32_t r, uint32_t j) { return F32(2 * A(r, j)); }, "fp32 rows of A.2I, again");
  // The same tile address is fine for int8 rows (N bytes): it is the bf16 row size that reaches out.
  Expect(Run({kLoad, STRATA_VMEM_SIZE - n * n, 0, n}), 0, "int8 LOAD_WEIGHTS at the end of VMEM");

  Printf("mxutest: %d failures\n", g_failures);
  return g_failures == 0 ? 0 : 1;
}
