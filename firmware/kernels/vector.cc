// One vector-unit op over a tensor, tiled through VMEM with DMA double buffering.
//
// A tensor row is `chunks` VPU rows (lines of 16 fp32; the host pads the last one), P = 64 chunks bytes. VMEM
// holds a fixed area (the broadcast b: one row of chunks or one line; the column reductions' result) and two tile
// buffers of T tensor rows each: a (behind one spare row, see below), b (binary ops without broadcast), the mask
// (SELECT) and the row reductions' results. While the unit works on tile t in one buffer, DMA queue 0 loads tile
// t + 1 into the other and queue 1 writes tile t's results back once the unit is done.
//
// Per tile, by op:
//   elementwise, b as given or SCALAR: one command over the tile's T x chunks lines, results in place of a;
//   elementwise, ROW broadcast: one command per chunk column j (T rows, P apart; b = the row's chunk j);
//   ROW_SUM / ROW_MAX: per tensor row an ACC_SUM / ACC_MAX down its chunks (dst stride 0 keeps the last, the
//     running value over every chunk), then one ROW_SUM / ROW_MAX over the tile's T result lines: the pairwise
//     tree of the accumulated lanes;
//   ACC_SUM / ACC_MAX (down the rows): per chunk column one command over the tile's rows. The running value
//     continues across tiles: the command of tile t > 0 starts one row earlier, at the spare row in front of its
//     a rows, where the previous tile's command left its result; from -0 (sum) or -inf (max) that first step
//     gives the carried value exactly, so the result is the one sequential reduction over all rows;
//   SOFTMAX: per row ACC_MAX down its chunks, one ROW_MAX over the tile (m in every lane), per row SUB m (SCALAR),
//     one EXP over the tile, per row ACC_SUM, one ROW_SUM (s), per row DIV by s (SCALAR): the order of
//     tests/rtl/vpu_reference.Softmax, in place in a.
#include "kernels/vector.h"

#include "arch/arch.h"
#include "drivers/dma.h"
#include "drivers/vpu.h"
#include "strata/regmap.h"
#include "strata/vector_mailbox.h"

namespace strata::kernels {
namespace {

using dma::Tier;

constexpr uint32_t kLoadQueue = 0;
constexpr uint32_t kStoreQueue = 1;
constexpr uint32_t kLine = vpu::kRowBytes;
constexpr uint32_t kMaxChunks = 256;  // rows of up to 4096 values; tiles of at least one row fit (below)
constexpr uint32_t kMaxTileRows = 4096;
// Contiguous DMA moves as rows of 32 lines (as the GEMM kernel's): several HBM commands in flight.
constexpr uint32_t kDmaRunRow = 32 * STRATA_DMA_LINE_BYTES;

constexpr uint32_t Min(uint32_t a, uint32_t b) { return a < b ? a : b; }

bool IsRowReduction(uint32_t op) { return op == STRATA_VPU_OP_ROW_SUM || op == STRATA_VPU_OP_ROW_MAX; }
bool IsSoftmax(uint32_t op) { return op == STRATA_VECTOR_OP_SOFTMAX; }
// Ops whose tile buffers hold one result line per row (a row's reduction).
bool NeedsRowLines(uint32_t op) { return IsRowReduction(op) || IsSoftmax(op); }
bool IsColumnReduction(uint32_t op) { return op == STRATA_VPU_OP_ACC_SUM || op == STRATA_VPU_OP_ACC_MAX; }

// Tile rows for a row of `p` bytes with `streams` tensors per buffer besides a and `red` result lines per row.
constexpr uint32_t TileRows(uint32_t p, uint32_t streams, uint32_t red) {
  const uint32_t fixed = 2 * p;
  const uint32_t half = (STRATA_VMEM_SIZE - fixed) / 2;
  return half < p ? 0 : (half - p) / ((1 + streams) * p + red * kLine);
}
static_assert(TileRows(kMaxChunks * kLine, 2, 1) >= 1, "the widest row fits a tile of one row in VMEM");

class VectorRun {
 public:
  VectorRun(const VectorParams& p, VectorStats* st) : p_(p), st_(st) {}

  strata_status Run() {
    const bool binary = vpu::IsBinary(p_.op), select = p_.op == STRATA_VPU_OP_SELECT;
    row_bytes_ = p_.chunks * kLine;
    b_stream_ = binary && p_.bcast == STRATA_VPU_BCAST_NONE;
    const uint32_t streams = (b_stream_ ? 1 : 0) + (select ? 1 : 0);
    tile_ = Min(Min(TileRows(row_bytes_, streams, NeedsRowLines(p_.op) ? 1 : 0), kMaxTileRows), p_.rows);
    st_->tile_rows = tile_;
    // VMEM: [b line(s): P][column result: P] then two buffers of [spare row, a: T rows][b][m][row results].
    bcast_ = 0;
    colres_ = row_bytes_;
    buf_bytes_ = (tile_ + 1) * row_bytes_ + streams * tile_ * row_bytes_ + (NeedsRowLines(p_.op) ? tile_ * kLine : 0);
    for (uint32_t x = 0; x < 2; ++x) {
      const uint32_t base = 2 * row_bytes_ + x * buf_bytes_;
      buf_[x].a = base + row_bytes_;
      buf_[x].b = buf_[x].a + tile_ * row_bytes_;
      buf_[x].m = buf_[x].b + (b_stream_ ? tile_ * row_bytes_ : 0);
      buf_[x].red = buf_[x].m + (select ? tile_ * row_bytes_ : 0);
    }
    strata_status s = STRATA_OK;
    if (binary && p_.bcast != STRATA_VPU_BCAST_NONE) {
      uint32_t t = 0;
      s = Dma(kLoadQueue, Tier::kHbm, p_.b, Tier::kVmem, bcast_, p_.bcast == STRATA_VPU_BCAST_ROW ? row_bytes_ : kLine,
              &t);
      if (s == STRATA_OK) s = dma::Wait(kLoadQueue, t);
      if (s != STRATA_OK) return s;
    }
    const uint32_t tiles = (p_.rows + tile_ - 1) / tile_;
    uint32_t load_ticket = 0, store_ticket[2] = {0, 0};
    bool stored[2] = {false, false};
    if ((s = Load(0, &load_ticket)) != STRATA_OK) return s;
    for (uint32_t t = 0; t < tiles; ++t) {
      const uint32_t x = t % 2;
      if ((s = dma::Wait(kLoadQueue, load_ticket)) != STRATA_OK) return s;
      if (t + 1 < tiles) {
        // The other buffer's last write-back reads what the next load overwrites.
        if (stored[1 - x] && (s = dma::Wait(kStoreQueue, store_ticket[1 - x])) != STRATA_OK) return s;
        if ((s = Load(t + 1, &load_ticket)) != STRATA_OK) return s;
      }
      uint32_t vpu_ticket = 0;
      if ((s = Compute(t, tiles, &vpu_ticket)) != STRATA_OK) return s;
      if ((s = vpu::Wait(vpu_ticket)) != STRATA_OK) return s;
      if (!IsColumnReduction(p_.op)) {
        if ((s = Store(t, &store_ticket[x])) != STRATA_OK) return s;
        stored[x] = true;
      }
    }
    if (IsColumnReduction(p_.op)) {
      uint32_t ticket = 0;
      if ((s = Dma(kStoreQueue, Tier::kVmem, colres_, Tier::kHbm, p_.out, row_bytes_, &ticket)) != STRATA_OK) return s;
      return dma::Wait(kStoreQueue, ticket);
    }
    for (uint32_t x = 0; x < 2; ++x) {
      if (stored[x] && (s = dma::Wait(kStoreQueue, store_ticket[x])) != STRATA_OK) return s;
    }
    return STRATA_OK;
  }

 private:
  struct Buffer {
    uint32_t a, b, m, red;
  };

  uint32_t RowsOf(uint32_t t) const { return Min(tile_, p_.rows - t * tile_); }

  // A contiguous copy of `bytes` (a multiple of a line), as rows of kDmaRunRow and a shorter last one.
  strata_status Dma(uint32_t q, Tier src_tier, uint64_t src, Tier dst_tier, uint64_t dst, uint32_t bytes,
                    uint32_t* ticket) {
    dma::Descriptor d{src_tier, src, dst_tier, dst, bytes};
    strata_status s = STRATA_OK;
    const uint32_t rows = bytes / kDmaRunRow, tail = bytes % kDmaRunRow;
    if (rows > 0) {
      dma::Descriptor body = d;
      body.len = kDmaRunRow;
      body.rows = rows;
      body.src_stride = kDmaRunRow;
      body.dst_stride = kDmaRunRow;
      ++st_->dma_descriptors;
      s = dma::Submit(q, body, ticket);
    }
    if (s == STRATA_OK && tail != 0) {
      d.src += uint64_t{rows} * kDmaRunRow;
      d.dst += uint64_t{rows} * kDmaRunRow;
      d.len = tail;
      ++st_->dma_descriptors;
      s = dma::Submit(q, d, ticket);
    }
    return s;
  }

  strata_status Load(uint32_t t, uint32_t* ticket) {
    const Buffer& bf = buf_[t % 2];
    const uint64_t off = uint64_t{t} * tile_ * row_bytes_;
    const uint32_t bytes = RowsOf(t) * row_bytes_;
    strata_status s = Dma(kLoadQueue, Tier::kHbm, p_.a + off, Tier::kVmem, bf.a, bytes, ticket);
    if (s == STRATA_OK && b_stream_) s = Dma(kLoadQueue, Tier::kHbm, p_.b + off, Tier::kVmem, bf.b, bytes, ticket);
    if (s == STRATA_OK && p_.op == STRATA_VPU_OP_SELECT) {
      s = Dma(kLoadQueue, Tier::kHbm, p_.m + off, Tier::kVmem, bf.m, bytes, ticket);
    }
    return s;
  }

  strata_status Store(uint32_t t, uint32_t* ticket) {
    const Buffer& bf = buf_[t % 2];
    if (IsRowReduction(p_.op)) {
      return Dma(kStoreQueue, Tier::kVmem, bf.red, Tier::kHbm, p_.out + uint64_t{t} * tile_ * kLine, RowsOf(t) * kLine,
                 ticket);
    }
    return Dma(kStoreQueue, Tier::kVmem, bf.a, Tier::kHbm, p_.out + uint64_t{t} * tile_ * row_bytes_,
               RowsOf(t) * row_bytes_, ticket);
  }

  strata_status Submit(const vpu::Command& c, uint32_t* ticket) {
    ++st_->vpu_commands;
    return vpu::Submit(c, ticket);
  }

  strata_status Compute(uint32_t t, uint32_t tiles, uint32_t* ticket) {
    const Buffer& bf = buf_[t % 2];
    const uint32_t rows = RowsOf(t);
    vpu::Command c;
    c.op = p_.op;
    c.bcast = p_.bcast;
    strata_status s = STRATA_OK;
    if (IsSoftmax(p_.op)) return Softmax(bf, rows, ticket);
    if (IsRowReduction(p_.op)) {
      c.op = p_.op == STRATA_VPU_OP_ROW_SUM ? STRATA_VPU_OP_ACC_SUM : STRATA_VPU_OP_ACC_MAX;
      c.rows = p_.chunks;
      c.dst_stride = 0;
      for (uint32_t r = 0; r < rows && s == STRATA_OK; ++r) {
        c.src_a = bf.a + r * row_bytes_;
        c.dst = bf.red + r * kLine;
        s = Submit(c, ticket);
      }
      if (s != STRATA_OK) return s;
      vpu::Command fold;
      fold.op = p_.op;
      fold.src_a = bf.red;
      fold.dst = bf.red;
      fold.rows = rows;
      return Submit(fold, ticket);
    }
    if (IsColumnReduction(p_.op)) {
      // The running value: from the previous tile's command in the spare row (tile t > 0), into the other
      // buffer's spare row (or the result area after the last tile).
      const bool carry = t > 0;
      const uint32_t to = t + 1 < tiles ? buf_[(t + 1) % 2].a - row_bytes_ : colres_;
      c.rows = rows + (carry ? 1 : 0);
      c.src_stride = row_bytes_;
      c.dst_stride = 0;
      for (uint32_t j = 0; j < p_.chunks && s == STRATA_OK; ++j) {
        c.src_a = bf.a - (carry ? row_bytes_ : 0) + j * kLine;
        c.dst = to + j * kLine;
        s = Submit(c, ticket);
      }
      return s;
    }
    c.src_b = bcast_;
    if (p_.bcast == STRATA_VPU_BCAST_ROW) {
      c.rows = rows;
      c.src_stride = row_bytes_;
      c.dst_stride = row_bytes_;
      for (uint32_t j = 0; j < p_.chunks && s == STRATA_OK; ++j) {
        c.src_a = bf.a + j * kLine;
        c.src_b = bcast_ + j * kLine;
        c.dst = c.src_a;
        s = Submit(c, ticket);
      }
      return s;
    }
    c.rows = rows * p_.chunks;
    c.src_a = bf.a;
    if (b_stream_) c.src_b = bf.b;
    c.src_m = bf.m;
    c.dst = bf.a;
    return Submit(c, ticket);
  }

  // One command per tensor row of the tile: `op` over the row's chunks, b (SCALAR) the row's line in bf.red.
  strata_status PerRow(const Buffer& bf, uint32_t rows, uint32_t op, bool into_red, uint32_t* ticket) {
    vpu::Command c;
    c.op = op;
    c.rows = p_.chunks;
    strata_status s = STRATA_OK;
    for (uint32_t r = 0; r < rows && s == STRATA_OK; ++r) {
      c.src_a = bf.a + r * row_bytes_;
      if (into_red) {
        c.dst = bf.red + r * kLine;
        c.dst_stride = 0;
      } else {
        c.bcast = STRATA_VPU_BCAST_SCALAR;
        c.src_b = bf.red + r * kLine;
        c.dst = c.src_a;
      }
      s = Submit(c, ticket);
    }
    return s;
  }

  // Folds the tile's result lines in place: every lane of line r becomes row r's reduction.
  strata_status Fold(const Buffer& bf, uint32_t rows, uint32_t op, uint32_t* ticket) {
    vpu::Command c;
    c.op = op;
    c.src_a = bf.red;
    c.dst = bf.red;
    c.rows = rows;
    return Submit(c, ticket);
  }

  strata_status Softmax(const Buffer& bf, uint32_t rows, uint32_t* ticket) {
    strata_status s = PerRow(bf, rows, STRATA_VPU_OP_ACC_MAX, true, ticket);
    if (s == STRATA_OK) s = Fold(bf, rows, STRATA_VPU_OP_ROW_MAX, ticket);
    if (s == STRATA_OK) s = PerRow(bf, rows, STRATA_VPU_OP_SUB, false, ticket);
    if (s == STRATA_OK) {
      vpu::Command e;
      e.op = STRATA_VPU_OP_EXP;
      e.src_a = bf.a;
      e.dst = bf.a;
      e.rows = rows * p_.chunks;
      s = Submit(e, ticket);
    }
    if (s == STRATA_OK) s = PerRow(bf, rows, STRATA_VPU_OP_ACC_SUM, true, ticket);
    if (s == STRATA_OK) s = Fold(bf, rows, STRATA_VPU_OP_ROW_SUM, ticket);
    if (s == STRATA_OK) s = PerRow(bf, rows, STRATA_VPU_OP_DIV, false, ticket);
    return s;
  }

  const VectorParams& p_;
  VectorStats* st_;
  uint32_t row_bytes_ = 0, tile_ = 0, buf_bytes_ = 0, bcast_ = 0, colres_ = 0;
  bool b_stream_ = false;
  Buffer buf_[2] = {};
};

}  // namespace

uint32_t VectorMaxChunks() { return kMaxChunks; }

strata_status Vector(const VectorParams& p, VectorStats* stats) {
  if (stats == nullptr || !(vpu::IsOp(p.op) || IsSoftmax(p.op)) || p.rows == 0 || p.chunks == 0 ||
      p.chunks > kMaxChunks) {
    return STRATA_INVALID_ARGUMENT;
  }
  if (p.bcast > STRATA_VPU_BCAST_ROW || (p.bcast != STRATA_VPU_BCAST_NONE && !vpu::IsBinary(p.op))) {
    return STRATA_INVALID_ARGUMENT;
  }
  *stats = VectorStats{};
  const uint64_t c0 = arch::ReadCycle();
  VectorRun run(p, stats);
  const strata_status s = run.Run();
  stats->cycles = arch::ReadCycle() - c0;
  return s;
}

}  // namespace strata::kernels
