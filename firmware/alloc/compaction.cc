// Compaction for the HBM allocator: planning moves under a budget, committing them, defragment-on-OOM.
//
// The allocator never touches device memory: it issues a plan (a list of moves), the caller copies
// (DMA on the device, memmove semantics, in plan order) and then commits, which relinks the blocks.
// Planning for one failed request looks for the cheapest of two shapes, measured in bytes copied:
//  - evacuate: pick a window of adjacent blocks at least as large as the request whose live buffers
//    weigh the least, and re-home those buffers in free holes outside it (best fit, largest first);
//  - slide: pick a window between two free blocks holding enough free space whose live buffers weigh
//    the least, and slide them together so the free space gathers at its end.
// Sliding the whole heap down (the usual compaction) is the slide shape over one window covering
// everything, so the chosen plan never moves more than it does.
#include "alloc/allocator.h"
#include "alloc/bits.h"

namespace strata::alloc {
namespace {

using bits::AlignUp;

// Windows whose evacuation is attempted, cheapest first (each attempt is O(free blocks x buffers)).
constexpr uint32_t kEvacuationCandidates = 8;
// Evacuating more buffers than this is left to sliding (keeps the planner's stack small).
constexpr uint32_t kMaxEvacuees = 64;
static_assert(kEvacuationCandidates >= 1 && kMaxEvacuees >= 1, "planner tuning");

}  // namespace

template <typename IndexT>
uint64_t BasicAllocator<IndexT>::Checksum(const Move* moves, uint32_t num_moves) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the 64-bit fields
  auto mix = [&h](uint64_t v) {
    for (uint32_t b = 0; b < 8; ++b) {
      h ^= (v >> (8 * b)) & 0xff;
      h *= 0x100000001b3ull;
    }
  };
  mix(num_moves);
  for (uint32_t k = 0; k < num_moves; ++k) {
    mix(moves[k].handle.value);
    mix(moves[k].src_offset);
    mix(moves[k].dst_offset);
    mix(moves[k].bytes);
  }
  return h;
}

template <typename IndexT>
void BasicAllocator<IndexT>::IssuePlan(Move* moves, uint32_t num_moves, CompactionKind kind, bool serves_request,
                                       CompactionPlan* plan) {
  uint64_t bytes = 0;
  for (uint32_t k = 0; k < num_moves; ++k) bytes += moves[k].bytes;
  SetPlanPending(true);
  ++plan_id_;
  plan_moves_ = moves;
  plan_num_moves_ = num_moves;
  plan_checksum_ = Checksum(moves, num_moves);
  plan->moves = moves;
  plan->num_moves = num_moves;
  plan->bytes = bytes;
  plan->serves_request = serves_request;
  plan->kind = num_moves == 0 ? CompactionKind::kNone : kind;
  plan->id = plan_id_;
  plan->checksum = plan_checksum_;
}

// Slides the live, unpinned buffers from block `from` up to (not including) `until` toward lower
// addresses, in address order, so each destination is free by the time its move runs. Stops at the
// first move that would exceed a limit, which leaves a valid prefix. Returns the moves written;
// *cursor_out is the end of the packed buffers (the start of the gathered free space).
template <typename IndexT>
uint32_t BasicAllocator<IndexT>::PlanSlide(Index from, Index until, uint64_t max_bytes, uint32_t max_moves, Move* moves,
                                           uint64_t* cursor_out) const {
  uint64_t cursor = Off(from);
  uint64_t bytes = 0;
  uint32_t n = 0;
  for (Index i = from; i != until && i != kNull; i = nodes_[i].next) {
    if (IsFree(i)) continue;
    if (PinCount(i) != 0) {  // never moves: the next segment packs behind it
      cursor = End(i);
      continue;
    }
    const uint64_t dst = AlignUp(cursor, uint64_t{1} << AlignLog2(i));
    const uint64_t size = Size(i);
    if (dst >= Off(i)) {  // already packed (or its alignment keeps it in place)
      cursor = End(i);
      continue;
    }
    const uint64_t move_bytes = size << granule_shift_;
    if (n == max_moves || move_bytes > max_bytes - bytes) break;
    moves[n++] = Move{MakeHandle(i), Off(i) << granule_shift_, dst << granule_shift_, move_bytes};
    bytes += move_bytes;
    cursor = dst + size;
  }
  *cursor_out = cursor;
  return n;
}

// Two pointers over the chain: for each free block R, the latest free block L such that the free
// space in [L, R] is still >= need; the cost is the live bytes between them. O(blocks).
template <typename IndexT>
uint64_t BasicAllocator<IndexT>::PlanSlideWindow(uint64_t need, Window* best) const {
  uint64_t best_cost = UINT64_MAX;
  Index left = kNull;
  uint64_t free = 0, live = 0;
  uint32_t count = 0;
  for (Index r = head_; r != kNull; r = nodes_[r].next) {
    if (!IsFree(r)) {
      if (PinCount(r) != 0) {  // a pinned buffer splits the heap: windows never span it
        left = kNull;
        continue;
      }
      if (left != kNull) live += Size(r), ++count;
      continue;
    }
    if (left == kNull) {
      left = r;
      free = live = 0;
      count = 0;
    }
    free += Size(r);
    while (left != r && free - Size(left) >= need) {
      free -= Size(left);
      Index x = nodes_[left].next;
      while (!IsFree(x)) live -= Size(x), --count, x = nodes_[x].next;
      left = x;
    }
    if (free >= need && live < best_cost) {
      best_cost = live;
      *best = Window{left, r, live, count};
    }
  }
  return best_cost;
}

// Two pointers over the chain: for each block R, the latest block L such that [L, R] spans >= need.
// Keeps the max_out cheapest windows (by live bytes), sorted.
template <typename IndexT>
uint32_t BasicAllocator<IndexT>::FindEvacuationWindows(uint64_t need, Window* out, uint32_t max_out) const {
  uint32_t n = 0;
  Index left = kNull;
  uint64_t span = 0, live = 0;
  uint32_t count = 0;
  for (Index r = head_; r != kNull; r = nodes_[r].next) {
    const bool is_live = !IsFree(r);
    if (is_live && PinCount(r) != 0) {
      left = kNull;
      continue;
    }
    if (left == kNull) {
      left = r;
      span = live = 0;
      count = 0;
    }
    span += Size(r);
    if (is_live) live += Size(r), ++count;
    while (left != r && span - Size(left) >= need) {
      span -= Size(left);
      if (!IsFree(left)) live -= Size(left), --count;
      left = nodes_[left].next;
    }
    if (span < need || live == 0) continue;
    if (n == max_out && live >= out[n - 1].live) continue;
    uint32_t k = n < max_out ? n++ : n - 1;
    while (k > 0 && out[k - 1].live > live) {
      out[k] = out[k - 1];
      --k;
    }
    out[k] = Window{left, r, live, count};
  }
  return n;
}

// Re-homes every buffer of `window` in free blocks outside it: largest first, each into the hole
// that leaves the least space (holes already partly used by this plan included). All sources are
// inside the window and all destinations outside and disjoint, so the moves are order-independent.
template <typename IndexT>
bool BasicAllocator<IndexT>::PlanEvacuation(const Window& window, uint64_t max_bytes, Move* moves, uint32_t max_moves,
                                            uint32_t* num_moves) const {
  if (window.count > kMaxEvacuees || window.count > max_moves || (window.live << granule_shift_) > max_bytes) {
    return false;
  }
  struct Hole {
    Index block;
    uint64_t cursor;  // next free granule inside it
  };
  Hole holes[kMaxEvacuees];
  uint32_t num_holes = 0;
  const uint64_t win_lo = Off(window.first);
  const uint64_t win_hi = End(window.last);

  uint32_t n = 0;
  for (Index i = window.first;; i = nodes_[i].next) {
    if (!IsFree(i)) {
      moves[n++] = Move{MakeHandle(i), Off(i), 0, Size(i)};  // granules for now
    }
    if (i == window.last) break;
  }
  for (uint32_t k = 1; k < n; ++k) {  // largest first (insertion sort: n <= kMaxEvacuees)
    const Move m = moves[k];
    uint32_t j = k;
    while (j > 0 && moves[j - 1].bytes < m.bytes) moves[j] = moves[j - 1], --j;
    moves[j] = m;
  }

  for (uint32_t k = 0; k < n; ++k) {
    const uint64_t size = moves[k].bytes;
    const Index src = static_cast<Index>((moves[k].handle.value & 0xffffffffu) - 1);
    const uint64_t align = uint64_t{1} << AlignLog2(src);
    uint64_t best_left = UINT64_MAX, best_dst = 0;
    uint32_t best_hole = UINT32_MAX;
    Index best_block = kNull;
    for (uint32_t h = 0; h < num_holes; ++h) {
      const uint64_t dst = AlignUp(holes[h].cursor, align);
      const uint64_t end = End(holes[h].block);
      if (dst + size <= end && end - dst - size < best_left) {
        best_left = end - dst - size, best_dst = dst, best_hole = h;
      }
    }
    // Untouched holes: best fit through the size classes, stopping after the first class with a fit.
    uint32_t fl, sl;
    Mapping(size, &fl, &sl);
    uint32_t sl_map = fl < kFlCount ? sl_bitmap_[fl] & (~0u << sl) : 0;
    bool found = fl >= kFlCount;
    while (!found) {
      while (sl_map == 0) {
        const uint64_t fl_map = FlBitmap() & (~uint64_t{0} << (fl + 1));
        if (fl_map == 0) break;
        fl = bits::Lsb64(fl_map);
        sl_map = sl_bitmap_[fl];
      }
      if (sl_map == 0) break;
      sl = bits::Lsb32(sl_map);
      sl_map &= sl_map - 1;
      for (Index f = heads_[fl * kSlCount + sl]; f != kNull; f = nodes_[f].link1) {
        if (Off(f) >= win_lo && Off(f) < win_hi) continue;
        bool touched = false;
        for (uint32_t h = 0; h < num_holes && !touched; ++h) touched = holes[h].block == f;
        if (touched || !Fits(f, size, align)) continue;
        const uint64_t dst = AlignUp(Off(f), align);
        const uint64_t left = End(f) - dst - size;
        if (left < best_left) best_left = left, best_dst = dst, best_hole = UINT32_MAX, best_block = f;
        found = true;
      }
    }
    if (best_left == UINT64_MAX) return false;
    if (best_hole == UINT32_MAX) {
      best_hole = num_holes++;
      holes[best_hole].block = best_block;
    }
    holes[best_hole].cursor = best_dst + size;
    moves[k].dst_offset = best_dst;
  }
  for (uint32_t k = 0; k < n; ++k) {
    moves[k].src_offset <<= granule_shift_;
    moves[k].dst_offset <<= granule_shift_;
    moves[k].bytes <<= granule_shift_;
  }
  *num_moves = n;
  return true;
}

template <typename IndexT>
strata_status BasicAllocator<IndexT>::PlanCompaction(const CompactionBudget& budget, Move* moves, uint32_t max_moves,
                                                     CompactionPlan* plan) {
  if (plan == nullptr || (moves == nullptr && max_moves != 0)) return STRATA_INVALID_ARGUMENT;
  if (nodes_ == nullptr || plan_pending_) return STRATA_FAILED_PRECONDITION;
  uint64_t cursor;
  const uint32_t n = PlanSlide(head_, kNull, budget.max_bytes, bits::Min(max_moves, budget.max_moves), moves, &cursor);
  IssuePlan(moves, n, CompactionKind::kSlide, false, plan);
  return STRATA_OK;
}

template <typename IndexT>
strata_status BasicAllocator<IndexT>::PlanCompactionFor(uint64_t bytes, uint64_t alignment,
                                                        const CompactionBudget& budget, Move* moves, uint32_t max_moves,
                                                        CompactionPlan* plan) {
  if (plan == nullptr || (moves == nullptr && max_moves != 0)) return STRATA_INVALID_ARGUMENT;
  if (nodes_ == nullptr || plan_pending_) return STRATA_FAILED_PRECONDITION;
  if (bytes == 0) return STRATA_INVALID_ARGUMENT;
  if (alignment == 0) alignment = uint64_t{1} << granule_shift_;
  if (!bits::IsPowerOfTwo(alignment)) return STRATA_INVALID_ARGUMENT;
  if (bytes > capacity_bytes() || live_ >= max_live_) return STRATA_RESOURCE_EXHAUSTED;
  const uint64_t size = (bytes + (uint64_t{1} << granule_shift_) - 1) >> granule_shift_;
  const uint64_t align = AlignGranules(alignment);
  if (ScanLists(size, align, Scan::kFirstMatch) != kNull) {
    IssuePlan(moves, 0, CompactionKind::kNone, true, plan);
    return STRATA_OK;
  }
  if (total_granules_ - used_granules_.Get() < size) return STRATA_RESOURCE_EXHAUSTED;
  // Any window of this many granules holds an aligned run of `size` granules.
  const uint64_t need = size + align - 1;
  const uint32_t move_limit = bits::Min(max_moves, budget.max_moves);

  Window slide;
  const uint64_t slide_cost = PlanSlideWindow(need, &slide);

  Window candidates[kEvacuationCandidates];
  const uint32_t num_candidates = FindEvacuationWindows(need, candidates, kEvacuationCandidates);
  for (uint32_t c = 0; c < num_candidates; ++c) {
    // Evacuation wins only if strictly cheaper (sliding keeps buffers in their neighbourhood).
    if (candidates[c].live >= slide_cost) break;
    uint32_t n = 0;
    if (PlanEvacuation(candidates[c], budget.max_bytes, moves, move_limit, &n)) {
      IssuePlan(moves, n, CompactionKind::kEvacuate, true, plan);
      return STRATA_OK;
    }
  }
  if (slide_cost == UINT64_MAX) return STRATA_RESOURCE_EXHAUSTED;  // pinned buffers in the way
  if ((slide_cost << granule_shift_) > budget.max_bytes || slide.count > budget.max_moves) {
    return STRATA_RESOURCE_EXHAUSTED;
  }
  uint64_t cursor;
  const uint32_t n = PlanSlide(slide.first, nodes_[slide.last].next, UINT64_MAX, max_moves, moves, &cursor);
  // The gathered space [cursor, end of window) serves the request unless the plan was cut short or
  // the moved buffers' own alignment ate into it (then commit and plan again).
  const uint64_t end = End(slide.last);
  const uint64_t dst = AlignUp(cursor, align);
  const bool serves = n == slide.count && dst + size <= end;
  IssuePlan(moves, n, CompactionKind::kSlide, serves, plan);
  return STRATA_OK;
}

// Live node n leaves the chain; its range becomes free, merged with free neighbours. Returns the free
// block that now covers it.
template <typename IndexT>
typename BasicAllocator<IndexT>::Index BasicAllocator<IndexT>::Detach(Index n) {
  const Index p = nodes_[n].prev;
  const Index q = nodes_[n].next;
  const bool p_free = p != kNull && IsFree(p);
  const bool q_free = q != kNull && IsFree(q);
  const uint64_t off = Off(n);
  if (p_free) {
    RemoveFree(p);
    if (q_free) RemoveFree(q);
    Unlink(n);
    if (q_free) Unlink(q), ReleaseNode(q);
    InsertFree(p);
    return p;
  }
  if (q_free) {
    RemoveFree(q);
    Unlink(n);
    SetOff(q, off);
    InsertFree(q);
    return q;
  }
  const Index f = TakeNode();
  SetOff(f, off);
  nodes_[f].meta |= kMetaFree;
  LinkAfter(p, f);
  Unlink(n);
  InsertFree(f);
  return f;
}

// Links detached live node n at [dst, dst + size) inside free block f; returns the free remainder
// after it (or kNull), which is where the next evacuee into the same hole lands.
template <typename IndexT>
typename BasicAllocator<IndexT>::Index BasicAllocator<IndexT>::Carve(Index f, Index n, uint64_t dst, uint64_t size) {
  RemoveFree(f);
  const uint64_t start = Off(f);
  const uint64_t end = End(f);
  SetOff(n, dst);
  if (dst > start) {
    LinkAfter(f, n);
    InsertFree(f);  // the front piece
    if (dst + size == end) return kNull;
    const Index tail = TakeNode();
    SetOff(tail, dst + size);
    nodes_[tail].meta |= kMetaFree;
    LinkAfter(n, tail);
    InsertFree(tail);
    return tail;
  }
  LinkAfter(nodes_[f].prev, n);
  if (dst + size == end) {
    Unlink(f);
    ReleaseNode(f);
    return kNull;
  }
  SetOff(f, dst + size);
  InsertFree(f);
  return f;
}

template <typename IndexT>
typename BasicAllocator<IndexT>::Index BasicAllocator<IndexT>::FindFreeBlockContaining(uint64_t offset, uint64_t size,
                                                                                       Index hint0, Index hint1) const {
  auto contains = [&](Index f) { return f != kNull && IsFree(f) && Off(f) <= offset && offset + size <= End(f); };
  if (contains(hint0)) return hint0;
  if (contains(hint1)) return hint1;
  uint64_t fl_map = FlBitmap();
  while (fl_map != 0) {
    const uint32_t fl = bits::Lsb64(fl_map);
    fl_map &= fl_map - 1;
    for (uint32_t sl_map = sl_bitmap_[fl]; sl_map != 0; sl_map &= sl_map - 1) {
      for (Index f = heads_[fl * kSlCount + bits::Lsb32(sl_map)]; f != kNull; f = nodes_[f].link1) {
        if (contains(f)) return f;
      }
    }
  }
  return kNull;
}

template <typename IndexT>
strata_status BasicAllocator<IndexT>::CommitCompaction(const CompactionPlan& plan, uint64_t copy_cycles) {
  if (!plan_pending_) return STRATA_FAILED_PRECONDITION;
  if (plan.id != plan_id_ || plan.moves != plan_moves_ || plan.num_moves != plan_num_moves_ ||
      plan.checksum != plan_checksum_ || Checksum(plan.moves, plan.num_moves) != plan_checksum_) {
    return STRATA_INVALID_ARGUMENT;  // not the plan we issued, or its moves were edited: change nothing
  }
  SetPlanPending(false);
  Index hint = kNull;
  for (uint32_t k = 0; k < plan.num_moves; ++k) {
    const Move& m = plan.moves[k];
    Index n;
    // Cannot fail for an untouched plan on an unchanged allocator; checked so a bug stops loudly.
    if (Resolve(m.handle, &n) != STRATA_OK || PinCount(n) != 0 || (Off(n) << granule_shift_) != m.src_offset ||
        (Size(n) << granule_shift_) != m.bytes) {
      return STRATA_INTERNAL;
    }
    const Index merged = Detach(n);
    const uint64_t dst = m.dst_offset >> granule_shift_;
    const uint64_t size = m.bytes >> granule_shift_;
    const Index f = FindFreeBlockContaining(dst, size, merged, hint);
    if (f == kNull) return STRATA_INTERNAL;
    hint = Carve(f, n, dst, size);
    ++compaction_moves_;
    compaction_bytes_ += m.bytes;
  }
  if (plan.num_moves != 0) ++compactions_;
  compaction_cycles_ += copy_cycles;
  plan_moves_ = nullptr;
  plan_num_moves_ = 0;
  return STRATA_OK;
}

template <typename IndexT>
strata_status BasicAllocator<IndexT>::AbortCompaction() {
  if (!plan_pending_) return STRATA_FAILED_PRECONDITION;
  SetPlanPending(false);
  plan_moves_ = nullptr;
  plan_num_moves_ = 0;
  return STRATA_OK;
}

template <typename IndexT>
strata_status BasicAllocator<IndexT>::AllocateWithCompaction(uint64_t bytes, uint64_t alignment,
                                                             const CompactionBudget& budget, Move* moves,
                                                             uint32_t max_moves, CopyMovesFn copy, void* copy_context,
                                                             Handle* out) {
  strata_status st = Allocate(bytes, alignment, out);
  if (st != STRATA_RESOURCE_EXHAUSTED) return st;
  uint64_t bytes_left = budget.max_bytes;
  uint64_t moves_left = budget.max_moves;
  // Each round either serves the request or strictly lowers the cheapest plan's cost, so this ends;
  // the bound only guards against a bug.
  for (uint32_t round = 0; round < (1u << 20); ++round) {
    CompactionPlan plan;
    st = PlanCompactionFor(
        bytes, alignment,
        CompactionBudget{bytes_left, static_cast<uint32_t>(bits::Min<uint64_t>(moves_left, UINT32_MAX))}, moves,
        max_moves, &plan);
    if (st != STRATA_OK) return st;  // the failed Allocate above already counted the failure
    if (plan.num_moves != 0 && copy != nullptr) {
      st = copy(copy_context, plan.moves, plan.num_moves);
      if (st != STRATA_OK) {
        AbortCompaction();
        return st;
      }
    }
    st = CommitCompaction(plan);
    if (st != STRATA_OK) return st;
    bytes_left -= plan.bytes;
    moves_left -= plan.num_moves;
    if (plan.serves_request || plan.num_moves == 0) break;
  }
  st = Allocate(bytes, alignment, out);
  --num_failed_;  // one request, one count: the first attempt was recovered or this one failed again
  return st;
}

// Explicit instantiations of the members defined in this file.
#define STRATA_ALLOC_INSTANTIATE_COMPACTION(IndexT)                                                                    \
  template strata_status BasicAllocator<IndexT>::PlanCompaction(const CompactionBudget&, Move*, uint32_t,              \
                                                                CompactionPlan*);                                      \
  template strata_status BasicAllocator<IndexT>::PlanCompactionFor(uint64_t, uint64_t, const CompactionBudget&, Move*, \
                                                                   uint32_t, CompactionPlan*);                         \
  template strata_status BasicAllocator<IndexT>::CommitCompaction(const CompactionPlan&, uint64_t);                    \
  template strata_status BasicAllocator<IndexT>::AbortCompaction();                                                    \
  template strata_status BasicAllocator<IndexT>::AllocateWithCompaction(uint64_t, uint64_t, const CompactionBudget&,   \
                                                                        Move*, uint32_t, CopyMovesFn, void*, Handle*);
STRATA_ALLOC_INSTANTIATE_COMPACTION(uint16_t)
STRATA_ALLOC_INSTANTIATE_COMPACTION(uint32_t)
#undef STRATA_ALLOC_INSTANTIATE_COMPACTION

}  // namespace strata::alloc
