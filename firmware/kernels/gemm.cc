// Tiled GEMM on the matrix unit with DMA double buffering.
//
// Tiling (N = array size, read from the unit): C is cut into blocks of Mb rows x Nb columns
// (Nb = up to kMaxColumnTiles column tiles of N; Mb = kBlockRows, or up to kMaxBlockRows when C is
// narrow) whose int32 partial sums occupy one of `slots_` (2..kMaxSlots) ACC slots; K is cut into
// chunks of Kb. A step = (block, K chunk): VMEM buffer (step % 2) receives A[Mb x Kb] (row-major,
// row stride Kb) on DMA queue 0 and B[Kb x Nb] as packed N x N weight tiles (tile (kt, nt) at
// B + nt Kb N + kt N N, row k of a tile at + k N) on queue 1. Each column tile of a step is ONE
// matrix-unit command: a MATMUL with K_ROWS = Kb that walks the chunk's K tiles itself (loads tile
// kt's weights, streams the A columns kt N.. kt N + N - 1, accumulates), so the control core
// issues a handful of commands per step instead of two per weight tile. While step s computes,
// step s+1 loads into the other buffer; a finished block's ACC slot is written back (queue 1)
// while later blocks compute in the other slots.
// bf16 mode: the same tiling with 2-byte elements (byte addresses and strides doubled, chunks of half as many
// K) and fp32 partial sums in ACC; the unit feeds the K edge's lanes beyond the valid rows as +0.
// Padding: M and N edges simply compute fewer rows / write back fewer columns; the K edge loads
// the last weight tile with only its valid rows (the unit loads the rest as zeros), so stale
// VMEM bytes beyond K meet zero weights and no zero-filling is needed.
//
// The old issue path, one LOAD_WEIGHTS + MATMUL pair per weight tile, is compiled only into the
// benchmark image bench_gemm_per_tile (bench/firmware, STRATA_GEMM_PER_TILE_COMMANDS=1), which
// measures what command issue costs; the production kernel has the K-walking MATMUL alone.
#include "kernels/gemm.h"

#include "arch/arch.h"
#include "drivers/dma.h"
#include "drivers/mxu.h"
#include "strata/gemm.h"  // STRATA_GEMM_MAX_QUANT_SHIFT
#include "strata/regmap.h"

#ifndef STRATA_GEMM_PER_TILE_COMMANDS
#define STRATA_GEMM_PER_TILE_COMMANDS 0
#endif

namespace strata::kernels {
namespace {

using dma::Tier;

constexpr uint32_t kLoadQueue = 0;  // A tiles
constexpr uint32_t kAuxQueue = 1;   // B tiles, C in, write-back
constexpr bool kPerTileCommands = STRATA_GEMM_PER_TILE_COMMANDS != 0;

// The tiling's limits (see the top of the file).
constexpr uint32_t kPsumBytes = 4;        // an int32 partial sum in ACC
constexpr uint32_t kBlockRows = 256;      // Mb, while ACC holds two blocks that tall
constexpr uint32_t kMaxBlockRows = 512;   // Mb when a narrow C leaves ACC rows over
constexpr uint32_t kMaxColumnTiles = 4;   // Nb / N at most
constexpr uint32_t kChunkBytes = 256;     // Kb: the largest multiple of N up to this (N when N is larger)
constexpr uint32_t kMaxSlots = 4;         // blocks ACC holds at once at most
constexpr uint32_t kMaxArrayN = 256;      // the largest array the tiling fits (checked below)
constexpr uint32_t kMaxArrayNBf16 = 128;  // likewise with bf16 operands (2 bytes each)
// Rows that lie back to back on both sides move as DMA rows of 32 lines (see GemmRun::Dma).
constexpr uint32_t kDmaRunRow = 32 * STRATA_DMA_LINE_BYTES;

constexpr uint32_t Min(uint32_t a, uint32_t b) { return a < b ? a : b; }
constexpr uint32_t CeilDiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

// The largest blocks and chunks on an N x N array with operands of `es` bytes (1: int8, 2: bf16): a
// narrow C or a short K only shrinks them (Run then grows Mb while two blocks still fit in ACC and VMEM).
// A chunk is at most kChunkBytes bytes of an A row either way.
struct Tiling {
  uint32_t mb;   // block rows
  uint32_t ntb;  // column tiles per block
  uint32_t kb;   // chunk depth (K)
};
// ACC rows (N partial sums each) in half of ACC: the most one block may take.
constexpr uint32_t AccRowsHalf(uint32_t n) { return STRATA_ACC_SIZE / 2 / (kPsumBytes * n); }
constexpr Tiling BaseTiling(uint32_t n, uint32_t es) {
  const uint32_t rows_half = AccRowsHalf(n);
  const uint32_t mb = Min(kBlockRows, rows_half);
  return {mb, Min(rows_half / mb, kMaxColumnTiles), n * es >= kChunkBytes ? n : kChunkBytes / es / n * n};
}
// VMEM bytes in use: two step buffers (A chunk and B tiles, `es` bytes per element) and two output
// buffers of rows of `out_row` bytes (results after the epilogue).
constexpr uint32_t VmemBytes(const Tiling& t, uint32_t n, uint32_t out_row, uint32_t es) {
  return 2 * es * (t.mb * t.kb + t.kb * t.ntb * n) + 2 * t.mb * t.ntb * out_row;
}
// Every array from 2 x 2 to kMaxArrayN fits its largest tiling, int32 results included, in VMEM,
// and ACC holds at least two of its blocks (one computes while the other is written back).
constexpr bool TilingFitsEveryArray() {
  for (uint32_t es = 1; es <= 2; ++es) {
    for (uint32_t n = 2; n <= (es == 1 ? kMaxArrayN : kMaxArrayNBf16); n *= 2) {
      const Tiling t = BaseTiling(n, es);
      if (t.mb == 0 || t.ntb == 0 || t.kb % n != 0 || VmemBytes(t, n, kPsumBytes * n, es) > STRATA_VMEM_SIZE ||
          STRATA_ACC_SIZE / (t.mb * t.ntb * kPsumBytes * n) < 2) {
        return false;
      }
    }
  }
  return true;
}
static_assert(TilingFitsEveryArray(), "the GEMM tiling no longer fits VMEM or ACC for some array size");

// What only the bf16 instance keeps: an empty base for int8, so that GemmRun<false> has the members, layout and
// code of the int8 kernel before bf16 (int8 GEMM cycle counts are a contract: docs/matrix-unit.md).
template <bool kBf16>
struct GemmModeState {};
template <>
struct GemmModeState<true> {
  bool out_bf16_ = false;  // READOUT writes bf16 (RNE) instead of fp32
};

// kBf16: bf16 operands (es_ = 2) and fp32 ACC; the int8 instance is the kernel as it was before bf16.
template <bool kBf16>
class GemmRun : private GemmModeState<kBf16> {
 public:
  GemmRun(const GemmParams& p, GemmStats* stats) : p_(p), st_(stats) {}

  void SetOutBf16(bool out_bf16) { this->out_bf16_ = out_bf16; }  // bf16 instance only

  strata_status Run() {
    n_ = mxu::ArraySize();
    if (n_ == 0 || n_ > (kBf16 ? kMaxArrayNBf16 : kMaxArrayN)) return STRATA_FAILED_PRECONDITION;
    while ((1u << n_shift_) < n_) ++n_shift_;  // N is a power of two (tpu_mxu's MxuNLegal)
    const uint32_t rows_half = AccRowsHalf(n_);
    const Tiling base = BaseTiling(n_, es_);
    mb_ = base.mb;
    ntb_ = Min(base.ntb, CeilDiv(p_.n, n_));  // a narrow C needs narrower blocks
    nb_ = ntb_ * n_;
    const uint32_t kpad = CeilDiv(p_.k, n_) * n_;
    // The A chunk's VMEM row stride is a whole number of lines: the unit's row fetcher then reads
    // one line per row and streams a row every cycle (a stride such as 48 makes rows straddle lines
    // and costs a bubble every few rows).
    kb_ = Min(base.kb, CeilDiv(kpad * es_, STRATA_DMA_LINE_BYTES) * STRATA_DMA_LINE_BYTES / es_);
    if constexpr (kBf16) {
      out_row_ = (this->out_bf16_ ? 2 : kPsumBytes) * n_;
      epilogue_ = p_.relu || this->out_bf16_;
    } else {
      out_row_ = p_.int8 ? n_ : kPsumBytes * n_;
      epilogue_ = p_.relu || p_.int8;
    }
    // A narrow C leaves ACC rows over: taller blocks (while two still fit in ACC and VMEM) make each
    // step's commands longer against the fixed per-step cost of the firmware. The base tiling fits
    // (TilingFitsEveryArray), so only the taller ones are checked.
    while (mb_ < kMaxBlockRows && 2 * mb_ * ntb_ <= rows_half && p_.m > mb_ &&
           VmemBytes({2 * mb_, ntb_, kb_}, n_, out_row_, es_) <= STRATA_VMEM_SIZE) {
      mb_ *= 2;
    }
    // ACC holds `slots_` blocks: a finished block's write-back has slots_ - 1 blocks of compute
    // to drain before its slot is reused.
    slot_bytes_ = mb_ * ntb_ * kPsumBytes * n_;
    slots_ = Min(kMaxSlots, STRATA_ACC_SIZE / slot_bytes_);
    const uint32_t a_bytes = mb_ * kb_ * es_, b_bytes = kb_ * nb_ * es_;
    buf_bytes_ = a_bytes + b_bytes;
    out_base_ = 2 * buf_bytes_;
    out_bytes_ = mb_ * ntb_ * out_row_;
    blocks_m_ = CeilDiv(p_.m, mb_);
    blocks_n_ = CeilDiv(p_.n, nb_);
    chunks_ = CeilDiv(p_.k, kb_);
    steps_ = blocks_m_ * blocks_n_ * chunks_;
    st_->steps = steps_;

    cursor_.b = BlockAt(0, 0);

    const uint64_t c0 = arch::ReadCycle();
    strata_status s = Prefetch(0);
    for (uint32_t step = 0; s == STRATA_OK && step < steps_; ++step) s = Compute(step);
    if (s == STRATA_OK) s = Drain();
    st_->cycles = arch::ReadCycle() - c0;
    return s;
  }

 private:
  struct Block {
    uint32_t m0, n0, mv, ntiles;
  };
  // Where a step lies. Steps are prefetched in order, so each is derived from the one before
  // without a division: the core divides in 33 cycles, and a division per index on the path from a
  // command's completion to the next prefetch left the matrix unit idle (4% of a 4096x64x16 GEMM).
  struct Step {
    uint32_t blk = 0;         // block index
    uint32_t kc = 0;          // K chunk
    uint32_t bm = 0, bn = 0;  // block row and column
    uint32_t slot = 0;        // ACC slot: blk % slots_
    Block b{};
  };
  Block BlockAt(uint32_t bm, uint32_t bn) const {
    Block b;
    b.m0 = bm * mb_;
    b.n0 = bn * nb_;
    b.mv = Min(mb_, p_.m - b.m0);
    b.ntiles = Tiles(Min(nb_, p_.n - b.n0));
    return b;
  }
  Step After(Step t) const {
    if (++t.kc < chunks_) return t;
    t.kc = 0;
    ++t.blk;
    if (++t.slot == slots_) t.slot = 0;
    if (++t.bn == blocks_n_) {
      t.bn = 0;
      ++t.bm;
    }
    t.b = BlockAt(t.bm, t.bn);
    return t;
  }
  uint32_t Tiles(uint32_t len) const { return (len + n_ - 1) >> n_shift_; }  // N-wide (or -deep) tiles
  uint32_t NValid(const Block& b, uint32_t nt) const { return Min(n_, p_.n - b.n0 - nt * n_); }
  // Column tile nt of an ACC slot: mb_ rows of N partial sums.
  uint32_t AccTile(uint32_t slot, uint32_t nt) const { return slot * slot_bytes_ + nt * mb_ * AccRow(); }
  uint32_t AccRow() const { return kPsumBytes * n_; }

  // Rows that lie back to back on both sides (a tile as wide as the matrix) form one contiguous
  // run, which moves as rows of kDmaRunRow bytes (and a shorter last row): short rows would each
  // cost a separate HBM command, while one long row would have only the HBM bridge's per-command
  // window (32 lines) in flight and, with writes competing for the HBM, move at about half the
  // line rate. Rows of 32 lines let the engine keep several commands in flight.
  strata_status Dma(uint32_t q, dma::Descriptor d, uint32_t* ticket) {
    const uint64_t total = uint64_t{d.len} * d.rows;
    const bool contiguous = d.rows == 1 || (d.src_stride == d.len && d.dst_stride == d.len);
    if (!contiguous || total > 0xffffffffu || total <= kDmaRunRow) {
      if (contiguous && total <= kDmaRunRow) {
        d.len = static_cast<uint32_t>(total);
        d.rows = 1;
      }
      ++st_->dma_descriptors;
      return dma::Submit(q, d, ticket);
    }
    const uint32_t rows = static_cast<uint32_t>(total / kDmaRunRow), tail = static_cast<uint32_t>(total % kDmaRunRow);
    dma::Descriptor body = d;
    body.len = kDmaRunRow;
    body.rows = rows;
    body.src_stride = kDmaRunRow;
    body.dst_stride = kDmaRunRow;
    ++st_->dma_descriptors;
    strata_status st = dma::Submit(q, body, ticket);
    if (st == STRATA_OK && tail != 0) {
      dma::Descriptor last = d;
      last.src += uint64_t{rows} * kDmaRunRow;
      last.dst += uint64_t{rows} * kDmaRunRow;
      last.len = tail;
      last.rows = 1;
      ++st_->dma_descriptors;
      st = dma::Submit(q, last, ticket);
    }
    return st;
  }

  // Loads step `s`'s A chunk, B tiles and (first chunk of a block) C_in into buffer s % 2.
  strata_status Prefetch(uint32_t s) {
    if (s != 0) cursor_ = After(cursor_);  // s is prefetched_ + 1
    step_[s % 2] = cursor_;
    const Block& b = cursor_.b;
    const uint32_t kc = cursor_.kc;
    const uint32_t k0 = kc * kb_, kv = Min(kb_, p_.k - k0);
    const uint32_t abuf = (s % 2) * buf_bytes_, bbuf = abuf + mb_ * kb_ * es_;
    // The buffer still holds the A chunk of step s - 2: the column blocks of one block row with a
    // single K chunk all use the same A, which is then loaded once per buffer, not once per step.
    strata_status st = STRATA_OK;
    const bool a_held = a_held_[s % 2] && a_m0_[s % 2] == b.m0 && a_k0_[s % 2] == k0;
    if (!a_held) {
      st = Dma(kLoadQueue,
               {Tier::kHbm, p_.a + (uint64_t{b.m0} * p_.k + k0) * es_, Tier::kVmem, abuf, kv * es_, b.mv, p_.k * es_,
                kb_ * es_},
               &load_ticket_[s % 2]);
      a_held_[s % 2] = true;
      a_m0_[s % 2] = b.m0;
      a_k0_[s % 2] = k0;
    }
    aux_ticket_[s % 2] = 0;
    // B tiles go beside the A chunk on the other queue, or, when A is held, on the then idle load
    // queue rather than behind the previous block's write-back.
    const uint32_t bq = a_held ? kLoadQueue : kAuxQueue;
    uint32_t* b_ticket = a_held ? &load_ticket_[s % 2] : &aux_ticket_[s % 2];
    for (uint32_t nt = 0; st == STRATA_OK && nt < b.ntiles; ++nt) {
      st = Dma(bq,
               {Tier::kHbm, p_.b + (uint64_t{k0} * p_.n + b.n0 + nt * n_) * es_, Tier::kVmem,
                bbuf + nt * kb_ * n_ * es_, NValid(b, nt) * es_, kv, p_.n * es_, n_ * es_},
               b_ticket);
    }
    if (kc == 0 && p_.accumulate) {
      for (uint32_t nt = 0; st == STRATA_OK && nt < b.ntiles; ++nt) {
        st = Dma(kAuxQueue,
                 {Tier::kHbm, p_.c_in + (uint64_t{b.m0} * p_.n + b.n0 + nt * n_) * kPsumBytes, Tier::kAcc,
                  AccTile(cursor_.slot, nt), NValid(b, nt) * kPsumBytes, b.mv, p_.n * kPsumBytes, AccRow()},
                 &aux_ticket_[s % 2]);
      }
    }
    prefetched_ = s;
    return st;
  }

  // Issues what has become possible: a finished block's write-back, then the next prefetch.
  strata_status Service() {
    strata_status st = STRATA_OK;
    if (wb_pending_ && mxu::IsDone(wb_mxu_ticket_)) st = WriteBack();
    // A pending write-back only holds back a prefetch that would load C_in into its ACC slot
    // (block wb_.blk + slots_); anything else may load while the finished block drains.
    const uint32_t next = prefetched_ + 1;
    const uint32_t next_blk = cursor_.kc + 1 < chunks_ ? cursor_.blk : cursor_.blk + 1;
    const bool acc_busy = wb_pending_ && next_blk == wb_.blk + slots_;
    if (st == STRATA_OK && !acc_busy && next < steps_ &&
        (next < 2 || (next - 2 < issued_ && mxu::IsDone(step_ticket_[(next - 2) % 2])))) {
      st = Prefetch(next);
    }
    return st;
  }

  strata_status WriteBack() {
    const Block& b = wb_.b;
    // Bytes per C element (bf16: fp32, or bf16 after the epilogue, as out_row_ says).
    const uint32_t es = kBf16 ? out_row_ >> n_shift_ : (p_.int8 ? 1 : kPsumBytes);
    strata_status st = STRATA_OK;
    for (uint32_t nt = 0; st == STRATA_OK && nt < b.ntiles; ++nt) {
      dma::Descriptor d{Tier::kAcc,         AccTile(wb_.slot, nt),
                        Tier::kHbm,         p_.c_out + (uint64_t{b.m0} * p_.n + b.n0 + nt * n_) * es,
                        NValid(b, nt) * es, b.mv,
                        AccRow(),           p_.n * es};
      if (epilogue_) {
        d.src_tier = Tier::kVmem;
        d.src = out_base_ + (wb_.blk % 2) * out_bytes_ + nt * mb_ * out_row_;
        d.src_stride = out_row_;
      }
      st = Dma(kAuxQueue, d, &wb_dma_ticket_[wb_.slot]);
    }
    wb_valid_[wb_.slot] = true;
    if (epilogue_) {
      out_dma_ticket_[wb_.blk % 2] = wb_dma_ticket_[wb_.slot];
      out_valid_[wb_.blk % 2] = true;
    }
    wb_pending_ = false;
    return st;
  }

  strata_status Push(const mxu::Command& c, uint32_t* ticket) {
    ++st_->mxu_commands;
    strata_status st;
    if constexpr (kBf16) {
      st = mxu::SubmitMode(c, mxu::kModeBf16 | (c.op == mxu::Op::kReadout && this->out_bf16_ ? mxu::kModeOutBf16 : 0),
                           ticket);
    } else {
      st = mxu::Submit(c, ticket);
    }
    return st == STRATA_OK ? Service() : st;
  }

  strata_status Compute(uint32_t s) {
    strata_status st = STRATA_OK;
    // This step's prefetch may still wait for the MXU to release its buffer.
    while (st == STRATA_OK && prefetched_ < s) {
      st = mxu::Wait(step_ticket_[(s - 2) % 2]);
      if (st == STRATA_OK) st = Service();
    }
    if (st != STRATA_OK) return st;
    const Step cur = step_[s % 2];  // a copy: Service may prefetch step s + 2 into the entry
    const Block& b = cur.b;
    const uint32_t blk = cur.blk, kc = cur.kc;
    const uint32_t k0 = kc * kb_, kv = Min(kb_, p_.k - k0);
    const uint32_t abuf = (s % 2) * buf_bytes_, bbuf = abuf + mb_ * kb_ * es_;
    if (!dma::IsDone(kLoadQueue, load_ticket_[s % 2]) || !dma::IsDone(kAuxQueue, aux_ticket_[s % 2])) {
      ++st_->dma_waits;
    }
    st = dma::Wait(kLoadQueue, load_ticket_[s % 2]);
    if (st == STRATA_OK && aux_ticket_[s % 2] != 0) st = dma::Wait(kAuxQueue, aux_ticket_[s % 2]);
    // A block's first step reuses the ACC slot of block blk - slots_.
    if (st == STRATA_OK && kc == 0 && wb_valid_[cur.slot]) {
      st = dma::Wait(kAuxQueue, wb_dma_ticket_[cur.slot]);
      wb_valid_[cur.slot] = false;
    }
    uint32_t ticket = mxu::LastTicket();
    const bool acc0 = kc > 0 || p_.accumulate;
    if constexpr (!kPerTileCommands) {
      // One command per column tile walks the whole K chunk (the unit loads each weight tile).
      for (uint32_t nt = 0; st == STRATA_OK && nt < b.ntiles; ++nt) {
        mxu::Command m{mxu::Op::kMatmul};
        m.src = abuf;
        m.src_stride = kb_ * es_;
        m.rows = b.mv;
        m.dst = AccTile(cur.slot, nt);
        m.accumulate = acc0;
        m.w_src = bbuf + nt * kb_ * n_ * es_;
        m.w_stride = n_ * n_ * es_;
        m.k_rows = kv;
        st = Push(m, &ticket);
      }
    } else {
      // The benchmark image's old path: one LOAD_WEIGHTS + MATMUL per weight tile.
      for (uint32_t kt = 0; st == STRATA_OK && kt < Tiles(kv); ++kt) {
        const uint32_t kvalid = Min(n_, kv - kt * n_);
        for (uint32_t nt = 0; st == STRATA_OK && nt < b.ntiles; ++nt) {
          mxu::Command w{mxu::Op::kLoadWeights};
          w.src = bbuf + (nt * kb_ * n_ + kt * n_ * n_) * es_;
          w.rows = kvalid;
          st = Push(w, &ticket);
          if (st != STRATA_OK) break;
          mxu::Command m{mxu::Op::kMatmul};
          m.src = abuf + kt * n_ * es_;
          m.src_stride = kb_ * es_;
          m.rows = b.mv;
          m.dst = AccTile(cur.slot, nt);
          m.accumulate = acc0 || kt > 0;
          st = Push(m, &ticket);
        }
      }
    }
    if (st == STRATA_OK && kc == chunks_ - 1) {
      if (epilogue_) {
        // The output buffer is the one block blk - 2's write-back reads.
        if (st == STRATA_OK && out_valid_[blk % 2]) {
          st = dma::Wait(kAuxQueue, out_dma_ticket_[blk % 2]);
          out_valid_[blk % 2] = false;
        }
        for (uint32_t nt = 0; st == STRATA_OK && nt < b.ntiles; ++nt) {
          mxu::Command r{mxu::Op::kReadout};
          r.src = AccTile(cur.slot, nt);
          r.dst = out_base_ + (blk % 2) * out_bytes_ + nt * mb_ * out_row_;
          r.rows = b.mv;
          r.relu = p_.relu;
          r.int8 = p_.int8;
          r.round = p_.round;
          r.quant_mult = p_.quant_mult;
          r.quant_shift = p_.quant_shift;
          st = Push(r, &ticket);
        }
      }
      // One write-back outstanding at a time: finish the previous block's first.
      if (st == STRATA_OK && wb_pending_) {
        st = mxu::Wait(wb_mxu_ticket_);
        if (st == STRATA_OK) st = WriteBack();
      }
      wb_pending_ = true;
      wb_ = cur;
      wb_mxu_ticket_ = ticket;
    }
    step_ticket_[s % 2] = ticket;
    issued_ = s + 1;
    if (st == STRATA_OK) st = Service();
    return st;
  }

  strata_status Drain() {
    strata_status st = STRATA_OK;
    if (wb_pending_) {
      st = mxu::Wait(wb_mxu_ticket_);
      if (st == STRATA_OK) st = WriteBack();
    }
    if (st == STRATA_OK) st = mxu::Wait(mxu::LastTicket());
    // Empty markers would need a descriptor; instead wait for every write-back still in flight.
    if (st == STRATA_OK) {
      for (uint32_t i = 0; i < slots_; ++i) {
        if (wb_valid_[i]) st = dma::Wait(kAuxQueue, wb_dma_ticket_[i]);
        if (st != STRATA_OK) break;
      }
    }
    return st;
  }

  const GemmParams& p_;
  GemmStats* st_;
  uint32_t n_ = 0, n_shift_ = 0, mb_ = 0, nb_ = 0, ntb_ = 0, kb_ = 0, out_row_ = 0;
  static constexpr uint32_t es_ = kBf16 ? 2 : 1;  // bytes per A/B element
  bool epilogue_ = false;
  uint32_t buf_bytes_ = 0, out_base_ = 0, out_bytes_ = 0;
  uint32_t blocks_m_ = 0, blocks_n_ = 0, chunks_ = 0, steps_ = 0;
  uint32_t prefetched_ = 0, issued_ = 0;
  uint32_t load_ticket_[2] = {0, 0}, aux_ticket_[2] = {0, 0}, step_ticket_[2] = {0, 0};
  bool a_held_[2] = {false, false};  // the A chunk each buffer holds (see Prefetch)
  uint32_t a_m0_[2] = {0, 0}, a_k0_[2] = {0, 0};
  bool wb_pending_ = false;
  Step cursor_;   // the step last prefetched
  Step step_[2];  // step s at s % 2, from its prefetch to its compute
  Step wb_;       // the block whose write-back is pending or last issued
  uint32_t wb_mxu_ticket_ = 0;
  uint32_t slots_ = 2, slot_bytes_ = 0;
  bool wb_valid_[kMaxSlots] = {false, false, false, false};
  uint32_t wb_dma_ticket_[kMaxSlots] = {0, 0, 0, 0};
  bool out_valid_[2] = {false, false};
  uint32_t out_dma_ticket_[2] = {0, 0};
};

}  // namespace

strata_status Gemm(const GemmParams& p, GemmStats* stats) {
  if (stats == nullptr || p.m == 0 || p.k == 0 || p.n == 0 || p.quant_shift > STRATA_GEMM_MAX_QUANT_SHIFT)
    return STRATA_INVALID_ARGUMENT;
  *stats = GemmStats{};
  GemmRun<false> run(p, stats);
  return run.Run();
}

strata_status GemmBf16(const GemmParams& p, bool out_bf16, GemmStats* stats) {
  if (stats == nullptr || p.m == 0 || p.k == 0 || p.n == 0 || p.int8 || p.round ||
      p.quant_shift > STRATA_GEMM_MAX_QUANT_SHIFT) {
    return STRATA_INVALID_ARGUMENT;
  }
  *stats = GemmStats{};
  GemmRun<true> run(p, stats);
  run.SetOutBf16(out_bf16);
  return run.Run();
}

}  // namespace strata::kernels
