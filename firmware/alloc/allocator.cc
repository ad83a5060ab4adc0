// Block core of the HBM allocator: node pool, address chain, segregated lists, policies, handles, Check().
#include "alloc/allocator.h"

#include "alloc/bits.h"

// The hot-path helpers must inline into Allocate/Free: a call costs a frame and a jump on rv32.
#define STRATA_ALLOC_INLINE inline __attribute__((always_inline))
// ... and the generic paths must not: inlined, they would make the fast path save their registers.
#define STRATA_ALLOC_NOINLINE __attribute__((noinline))
#define STRATA_ALLOC_UNLIKELY(x) __builtin_expect(!!(x), 0)

namespace strata::alloc {

using bits::AlignUp;
using bits::Lsb32;
using bits::Lsb64;
using bits::Msb32;
using bits::Msb64;

const char* PolicyName(Policy policy) {
  switch (policy) {
    case Policy::kTlsf:
      return "tlsf";
    case Policy::kBestFit:
      return "best-fit";
    case Policy::kFirstFit:
      return "first-fit";
  }
  return "unknown";
}

bool ParsePolicy(const char* name, Policy* policy_out) {
  for (uint32_t p = 0; p < kNumPolicies; ++p) {
    const char* a = PolicyName(static_cast<Policy>(p));
    const char* b = name;
    while (*a != '\0' && *a == *b) ++a, ++b;
    if (*a == '\0' && *b == '\0') {
      *policy_out = static_cast<Policy>(p);
      return true;
    }
  }
  return false;
}

template <typename IndexT>
strata_status BasicAllocator<IndexT>::Init(Node* nodes, uint32_t num_nodes, const Options& options) {
  if (nodes == nullptr || num_nodes < 3 || num_nodes > kMaxNodes) return STRATA_INVALID_ARGUMENT;
  const uint32_t granule = options.granule_bytes;
  if (!bits::IsPowerOfTwo(granule) || granule > kMaxGranuleBytes) return STRATA_INVALID_ARGUMENT;
  if (static_cast<uint32_t>(options.policy) >= kNumPolicies) return STRATA_INVALID_ARGUMENT;
  const uint32_t shift = bits::Log2Exact(granule);
  const uint64_t granules = options.capacity_bytes >> shift;
  if (granules == 0 || granules > kMaxGranules) return STRATA_INVALID_ARGUMENT;

  ResetCounters();
  nodes_ = nodes;
  num_nodes_ = num_nodes;
  max_live_ = (num_nodes - 1) / 2;
  granule_shift_ = shift;
  policy_ = options.policy;
  total_granules_ = granules;
  capacity_bytes_ = granules << shift;
  narrow_ = granules <= UINT32_MAX && options.fast_paths;
  SetPlanPending(false);
  for (uint32_t c = 0; c < kNumClasses; ++c) heads_[c] = kNull;
  for (uint32_t i = 0; i < num_nodes; ++i) {
    nodes_[i] = Node{0, 0, kNull, kNull, kNull, static_cast<Index>(i + 1 < num_nodes ? i + 1 : kNull)};
  }
  pool_head_ = 0;
  pool_tail_ = static_cast<Index>(num_nodes - 1);
  pool_count_ = num_nodes;

  const Index whole = TakeNode();
  SetOff(whole, 0);
  LinkAfter(kNull, whole);
  nodes_[whole].meta |= kMetaFree;
  InsertFree(whole);
  return STRATA_OK;
}

template <typename IndexT>
void BasicAllocator<IndexT>::ResetCounters() {
  head_ = pool_head_ = pool_tail_ = kNull;
  pool_count_ = 0;
  fl_bitmap_lo_ = fl_bitmap_hi_ = 0;
  for (uint32_t fl = 0; fl < kFlCount; ++fl) sl_bitmap_[fl] = 0;
  used_granules_.Set(0);
  peak_granules_.Set(0);
  slack_bytes_.Reset();
  num_allocs_.Reset();
  num_failed_ = 0;
  live_ = 0;
  compactions_ = compaction_moves_ = compaction_bytes_ = compaction_cycles_ = 0;
  plan_pending_ = false;
  fast_ = 0;
  fast_free_nodes_ = 0;
  plan_moves_ = nullptr;
  plan_num_moves_ = 0;
  plan_checksum_ = 0;
}

// ---------------------------------------------------------------------------------------------
// Node pool and address chain

template <typename IndexT>
typename BasicAllocator<IndexT>::Index BasicAllocator<IndexT>::TakeNode() {
  // Never empty: free blocks never outnumber live buffers + 1 (they are always coalesced), and
  // live buffers are capped at (num_nodes - 1) / 2.
  const Index i = pool_head_;
  pool_head_ = nodes_[i].link1;
  if (pool_head_ == kNull) pool_tail_ = kNull;
  --pool_count_;
  Node& n = nodes_[i];
  n.meta = (n.meta & (kGenerationMask << kMetaGenShift)) | kMetaInUse;
  n.prev = n.next = n.link0 = n.link1 = kNull;
  return i;
}

template <typename IndexT>
void BasicAllocator<IndexT>::ReleaseNode(Index i) {
  Node& n = nodes_[i];
  n.meta &= kGenerationMask << kMetaGenShift;
  n.prev = n.next = n.link0 = n.link1 = kNull;
  if (pool_tail_ == kNull) {
    pool_head_ = i;
  } else {
    nodes_[pool_tail_].link1 = i;
  }
  pool_tail_ = i;
  ++pool_count_;
}

template <typename IndexT>
void BasicAllocator<IndexT>::LinkAfter(Index after, Index i) {
  const Index next = after == kNull ? head_ : nodes_[after].next;
  nodes_[i].prev = after;
  nodes_[i].next = next;
  if (after == kNull) {
    head_ = i;
  } else {
    nodes_[after].next = i;
  }
  if (next != kNull) nodes_[next].prev = i;
}

template <typename IndexT>
void BasicAllocator<IndexT>::Unlink(Index i) {
  const Index p = nodes_[i].prev;
  const Index q = nodes_[i].next;
  if (p == kNull) {
    head_ = q;
  } else {
    nodes_[p].next = q;
  }
  if (q != kNull) nodes_[q].prev = p;
  nodes_[i].prev = nodes_[i].next = kNull;
}

// ---------------------------------------------------------------------------------------------
// Segregated lists

template <typename IndexT>
void BasicAllocator<IndexT>::Mapping(uint64_t size, uint32_t* fl, uint32_t* sl) {
  if ((size >> 32) == 0) {  // the common case, in 32-bit arithmetic (rv32 has no 64-bit shifts)
    const uint32_t c = Class32(static_cast<uint32_t>(size));
    *fl = c >> kSlLog2;
    *sl = c & (kSlCount - 1);
  } else {
    const uint32_t m = Msb64(size);
    *fl = m - kSlLog2 + 1;
    *sl = static_cast<uint32_t>(bits::Shr64(size, m - kSlLog2)) - kSlCount;
  }
}

template <typename IndexT>
void BasicAllocator<IndexT>::PushFree(Index i, uint32_t c) {
  const Index head = heads_[c];
  nodes_[i].link0 = static_cast<Index>(c);  // a head's link0 is its class
  nodes_[i].link1 = head;
  if (head != kNull) nodes_[head].link0 = i;
  heads_[c] = i;
  sl_bitmap_[c >> kSlLog2] |= 1u << (c & (kSlCount - 1));
  SetFlBit(c >> kSlLog2);
}

template <typename IndexT>
void BasicAllocator<IndexT>::ClearClassBit(uint32_t c) {
  const uint32_t fl = c >> kSlLog2;
  const uint32_t map = sl_bitmap_[fl] & ~(1u << (c & (kSlCount - 1)));
  sl_bitmap_[fl] = map;
  if (map == 0) ClearFlBit(fl);
}

template <typename IndexT>
void BasicAllocator<IndexT>::InsertFree(Index i) {
  PushFree(i, Class(Size(i)));
}

template <typename IndexT>
void BasicAllocator<IndexT>::RemoveFree(Index i) {
  const uint32_t c = HeadClass(i);
  const Index p = nodes_[i].link0;
  const Index q = nodes_[i].link1;
  if (c < kNumClasses) {  // the head of list c: its successor (if any) becomes the head
    heads_[c] = q;
    if (q == kNull) {
      ClearClassBit(c);
    } else {
      nodes_[q].link0 = static_cast<Index>(c);
    }
  } else {
    nodes_[p].link1 = q;
    if (q != kNull) nodes_[q].link0 = p;
  }
  nodes_[i].link0 = nodes_[i].link1 = kNull;
}

// The 32-bit versions, inlined into Allocate and Free, where they are the whole hot path.
// Class of a 32-bit size: with s = max(msb(size) - kSlLog2, 0), fl = s + 1 and sl = (size >> s) - kSlCount
// (fl = 0, sl = size below kSlCount), so fl * kSlCount + sl = (s << kSlLog2) + (size >> s).
template <typename IndexT>
template <typename Granules>
STRATA_ALLOC_INLINE void BasicAllocator<IndexT>::CountAllocated(Granules size, uint32_t slack) {
  ++live_;
  num_allocs_.Add(1);
  slack_bytes_.Add(slack);
  const Granules used = used_granules_.template As<Granules>() + size;
  used_granules_.SetAs(used);
  if (used > peak_granules_.template As<Granules>()) peak_granules_.SetAs(used);
}

template <typename IndexT>
template <typename Granules>
STRATA_ALLOC_INLINE void BasicAllocator<IndexT>::CountFreed(Granules size, uint32_t slack) {
  used_granules_.SetAs(static_cast<Granules>(used_granules_.template As<Granules>() - size));
  slack_bytes_.Sub(slack);
  --live_;
}

template <typename IndexT>
STRATA_ALLOC_INLINE uint32_t BasicAllocator<IndexT>::Class32(uint32_t size) {
  const uint32_t s = bits::Msb32Minus<kSlLog2>(size | kSlCount);
  return (s << kSlLog2) + (size >> s);
}

template <typename IndexT>
STRATA_ALLOC_INLINE void BasicAllocator<IndexT>::PushFree32(uint32_t i, uint32_t c, uint32_t null) {
  Index* const slot = &heads_[c];
  const uint32_t head = *slot;
  Node& n = nodes_[i];
  n.link0 = static_cast<Index>(c);
  n.link1 = static_cast<Index>(head);
  if (head != null) nodes_[head].link0 = static_cast<Index>(i);
  *slot = static_cast<Index>(i);
  // rv32 shifts use the low 5 bits of the amount: 1u << (c & 31) is one instruction.
  sl_bitmap_[c >> kSlLog2] |= 1u << (c & (kSlCount - 1));
  fl_bitmap_lo_ |= 1u << (c >> kSlLog2);  // fl <= 27 for a 32-bit size
}

// A block that is not a list head is unlinked without knowing its class; a head's class is its link0.
// The removed node's links are left stale: the caller re-lists the node or returns it to the pool.
template <typename IndexT>
STRATA_ALLOC_INLINE void BasicAllocator<IndexT>::RemoveFree32(uint32_t i, uint32_t head_class, uint32_t null) {
  const uint32_t p = nodes_[i].link0;
  const uint32_t q = nodes_[i].link1;
  if (head_class >= kNumClasses) {
    nodes_[p].link1 = static_cast<Index>(q);
    if (q != null) nodes_[q].link0 = static_cast<Index>(p);
    return;
  }
  heads_[head_class] = static_cast<Index>(q);
  if (q != null) {
    nodes_[q].link0 = static_cast<Index>(head_class);
    return;
  }
  const uint32_t fl = head_class >> kSlLog2;
  const uint32_t map = sl_bitmap_[fl] & ~(1u << (head_class & (kSlCount - 1)));
  sl_bitmap_[fl] = map;
  if (map == 0) fl_bitmap_lo_ &= ~(1u << fl);
}

template <typename IndexT>
STRATA_ALLOC_INLINE void BasicAllocator<IndexT>::RemoveListHead(uint32_t c) {
  const Index i = heads_[c];
  const Index q = nodes_[i].link1;
  heads_[c] = q;
  if (q == kNull) {
    const uint32_t fl = c >> kSlLog2;
    const uint32_t map = sl_bitmap_[fl] & ~(1u << (c & (kSlCount - 1)));
    sl_bitmap_[fl] = map;
    if (map == 0) fl_bitmap_lo_ &= ~(1u << fl);
  } else {
    nodes_[q].link0 = static_cast<Index>(c);
  }
}

// Only what the pool reads: the caller has cleared the flags of each node's meta (keeping the
// generation) and chained the nodes; TakeNode resets the rest.
template <typename IndexT>
STRATA_ALLOC_INLINE void BasicAllocator<IndexT>::PoolAppend32(uint32_t first, uint32_t last, uint32_t count,
                                                              uint32_t null) {
  const uint32_t tail = pool_tail_;
  if (tail == null) {
    pool_head_ = static_cast<Index>(first);
  } else {
    nodes_[tail].link1 = static_cast<Index>(first);
  }
  pool_tail_ = static_cast<Index>(last);
  pool_count_ += count;
}

// TLSF lookup for a 32-bit size without alignment: the class boundary at or above `size` (computed
// without forming the rounded-up size, which could overflow), then two bitmap lookups. Returns the
// head of the chosen list and its class, or kNull when no list at or above the boundary is populated.
template <typename IndexT>
STRATA_ALLOC_INLINE typename BasicAllocator<IndexT>::Index BasicAllocator<IndexT>::FindFreeTlsf32(
    uint32_t size, uint32_t* c_out) const {
  const uint32_t s = bits::Msb32Minus<kSlLog2>(size | kSlCount);
  // Rounded up past the last class of a power of two, the class number carries into the next one.
  uint32_t c = (s << kSlLog2) + (size >> s) + ((size & ((1u << s) - 1)) != 0 ? 1u : 0u);
  uint32_t fl = c >> kSlLog2;
  // fl <= 28 here, and every free block's class is below 28 while narrow_: low word of fl_bitmap_ only.
  uint32_t sl_map = sl_bitmap_[fl] & (~0u << (c & (kSlCount - 1)));
  if (sl_map == 0) {
    const uint32_t fl_map = fl_bitmap_lo_ & (~0u << (fl + 1));
    if (fl_map == 0) return kNull;
    fl = Lsb32(fl_map);
    sl_map = sl_bitmap_[fl];
  }
  c = (fl << kSlLog2) + Lsb32(sl_map);
  *c_out = c;
  return heads_[c];
}

template <typename IndexT>
bool BasicAllocator<IndexT>::Fits(Index i, uint64_t size, uint64_t align) const {
  const uint64_t off = Off(i);
  const uint64_t pad = align > 1 ? AlignUp(off, align) - off : 0;
  return Size(i) >= pad + size;
}

template <typename IndexT>
typename BasicAllocator<IndexT>::Index BasicAllocator<IndexT>::ScanLists(uint64_t size, uint64_t align,
                                                                         Scan mode) const {
  uint32_t fl, sl;
  Mapping(size, &fl, &sl);
  if (fl >= kFlCount) return kNull;
  uint32_t sl_map = sl_bitmap_[fl] & (~0u << sl);
  Index best = kNull;
  uint64_t best_key = UINT64_MAX;
  for (;;) {
    while (sl_map == 0) {
      const uint64_t fl_map = fl + 1 < 64 ? FlBitmap() & (~uint64_t{0} << (fl + 1)) : 0;
      if (fl_map == 0) return best;
      fl = Lsb64(fl_map);
      sl_map = sl_bitmap_[fl];
    }
    sl = Lsb32(sl_map);
    sl_map &= sl_map - 1;
    for (Index i = heads_[fl * kSlCount + sl]; i != kNull; i = nodes_[i].link1) {
      if (!Fits(i, size, align)) continue;
      if (mode == Scan::kFirstMatch) return i;
      // Best fit: smallest block, lowest address among equals. First fit: lowest address.
      const uint64_t key = mode == Scan::kSmallest ? Size(i) : Off(i);
      if (key < best_key || (key == best_key && Off(i) < Off(best))) {
        best_key = key;
        best = i;
      }
    }
    // Every block of a later class is larger than every block here, so a best fit found in this
    // class is the best fit overall.
    if (mode == Scan::kSmallest && best != kNull) return best;
  }
}

template <typename IndexT>
typename BasicAllocator<IndexT>::Index BasicAllocator<IndexT>::FindFree(uint64_t size, uint64_t align) const {
  if (policy_ == Policy::kBestFit) return ScanLists(size, align, Scan::kSmallest);
  if (policy_ == Policy::kFirstFit) return ScanLists(size, align, Scan::kLowest);
  // TLSF: round the request up to the next class boundary so that the head of any non-empty list at
  // or above it fits, whatever its alignment padding: two bitmap lookups, no list walk.
  uint64_t need = size + (align > 1 ? align - 1 : 0);
  if (need >= kSlCount) need += bits::Shl64(1, Msb64(need) - kSlLog2) - 1;
  uint32_t fl, sl;
  Mapping(need, &fl, &sl);
  if (fl < kFlCount) {
    uint32_t sl_map = sl_bitmap_[fl] & (~0u << sl);
    if (sl_map == 0) {
      const uint64_t fl_map = FlBitmap() & (~uint64_t{0} << (fl + 1));
      if (fl_map != 0) {
        fl = Lsb64(fl_map);
        sl_map = sl_bitmap_[fl];
      }
    }
    if (sl_map != 0) return heads_[fl * kSlCount + Lsb32(sl_map)];
  }
  // Slow path before reporting out-of-memory: a block the round-up skipped may still fit exactly.
  return ScanLists(size, align, Scan::kFirstMatch);
}

template <typename IndexT>
typename BasicAllocator<IndexT>::Index BasicAllocator<IndexT>::Place(Index b, uint64_t size, uint64_t align) {
  RemoveFree(b);
  const uint64_t off = Off(b);
  const uint64_t pad = align > 1 ? AlignUp(off, align) - off : 0;
  Index n = b;
  if (pad != 0) {  // the padding stays a free block in front
    n = TakeNode();
    SetOff(n, off + pad);
    LinkAfter(b, n);
    InsertFree(b);
  }
  if (Size(n) > size) {
    const Index tail = TakeNode();
    SetOff(tail, Off(n) + size);
    LinkAfter(n, tail);
    nodes_[tail].meta |= kMetaFree;
    InsertFree(tail);
  }
  nodes_[n].meta &= ~kMetaFree;
  return n;
}

template <typename IndexT>
uint64_t BasicAllocator<IndexT>::AlignGranules(uint64_t alignment_bytes) const {
  const uint64_t g = bits::Shr64(alignment_bytes, granule_shift_);
  // Offsets are below 2^40 granules: any larger alignment means offset 0, as 2^40 does.
  return g <= 1 ? 1 : bits::Min<uint64_t>(g, kMaxGranules + 1);
}

// ---------------------------------------------------------------------------------------------
// Public operations

template <typename IndexT>
strata_status BasicAllocator<IndexT>::Allocate(uint64_t bytes, uint64_t alignment, Handle* out) {
  const uint32_t shift = granule_shift_;
  const uint32_t align_lo = static_cast<uint32_t>(alignment);
  // The hot path: TLSF, no alignment beyond the granule, a heap of < 2^32 granules, no plan pending.
  // Everything else, every error (and a TLSF miss, which must scan before reporting out-of-memory)
  // takes the generic path, which repeats every check in the documented order.
  if (STRATA_ALLOC_UNLIKELY(out == nullptr || (fast_ & kFastAlloc) == 0 || bytes == 0 || (alignment >> 32) != 0 ||
                            align_lo > (1u << shift) || (align_lo & (align_lo - 1)) != 0 || bytes > capacity_bytes_ ||
                            live_ >= max_live_)) {
    return AllocateGeneric(bytes, alignment, out);
  }
  const uint32_t size = bits::ShrRoundUpTo32(bytes, shift);  // <= total_granules_ < 2^32
  uint32_t c;
  const Index b = FindFreeTlsf32(size, &c);
  if (STRATA_ALLOC_UNLIKELY(b == kNull)) return AllocateGeneric(bytes, alignment, out);
  // Carve the front of b (the head of its list): the rest stays free. b's neighbours are live (free
  // blocks are coalesced), so the tail needs no merging.
  RemoveListHead(c);
  const uint32_t null = NullInRegister();
  Node& node = nodes_[b];
  const uint32_t off = node.offset_lo;
  const uint32_t rest = End32(node, null) - off - size;
  if (rest != 0) {
    // TakeNode without its clearing: every field of the tail is written here or by PushFree32.
    const Index tail = pool_head_;
    Node& t = nodes_[tail];
    pool_head_ = t.link1;
    if (pool_head_ == null) pool_tail_ = kNull;
    --pool_count_;
    const Index next = node.next;
    t.offset_lo = off + size;  // offset bits 32..39 stay zero while narrow_
    t.meta = (t.meta & (kGenerationMask << kMetaGenShift)) | kMetaInUse | kMetaFree;
    t.prev = b;
    t.next = next;
    node.next = tail;
    if (next != null) nodes_[next].prev = tail;
    PushFree32(tail, Class32(rest), null);
  }
  const uint32_t meta = node.meta & ~kMetaFree;
  node.meta = meta;
  // Rounding slack < granule: the difference of the low words is exact.
  const uint32_t slack = (size << shift) - static_cast<uint32_t>(bytes);
  node.link0 = static_cast<Index>(slack);
  node.link1 = 0;                         // no pins, alignment log2 0
  CountAllocated<uint32_t>(size, slack);  // in use and peak are below 2^32 granules while narrow_
  *out = Handle{(static_cast<uint64_t>(meta >> kMetaGenShift) << 32) | (static_cast<uint32_t>(b) + 1u)};
  return STRATA_OK;
}

template <typename IndexT>
STRATA_ALLOC_NOINLINE strata_status BasicAllocator<IndexT>::AllocateGeneric(uint64_t bytes, uint64_t alignment,
                                                                            Handle* out) {
  if (out == nullptr) return STRATA_INVALID_ARGUMENT;
  *out = Handle{};
  if (nodes_ == nullptr || plan_pending_) return STRATA_FAILED_PRECONDITION;
  if (bytes == 0) return STRATA_INVALID_ARGUMENT;
  if (alignment == 0) alignment = uint64_t{1} << granule_shift_;
  if (!bits::IsPowerOfTwo(alignment)) return STRATA_INVALID_ARGUMENT;
  // Checked before rounding so that sizes near 2^64 cannot wrap.
  if (bytes > capacity_bytes() || live_ >= max_live_) {
    ++num_failed_;
    return STRATA_RESOURCE_EXHAUSTED;
  }
  const uint64_t size = bits::Shr64(bytes + ((1u << granule_shift_) - 1), granule_shift_);
  const uint64_t align = alignment <= (1u << granule_shift_) ? 1 : AlignGranules(alignment);
  const Index b = FindFree(size, align);
  if (b == kNull) {
    ++num_failed_;
    return STRATA_RESOURCE_EXHAUSTED;
  }
  const Index n = Place(b, size, align);
  const uint32_t slack = static_cast<uint32_t>(bits::Shl64(size, granule_shift_) - bytes);
  nodes_[n].link0 = static_cast<Index>(slack);
  nodes_[n].link1 = static_cast<Index>(align == 1 ? 0 : bits::Log2Exact(align) << kAlignShift);
  CountAllocated<uint64_t>(size, slack);
  *out = MakeHandle(n);
  return STRATA_OK;
}

template <typename IndexT>
strata_status BasicAllocator<IndexT>::Resolve(Handle handle, Index* index) const {
  const uint64_t slot = handle.value & 0xffffffffu;
  const uint64_t gen = handle.value >> 32;
  if (nodes_ == nullptr || slot == 0 || slot > num_nodes_ || gen > kGenerationMask) return STRATA_INVALID_ARGUMENT;
  const Index i = static_cast<Index>(slot - 1);
  if (!InUse(i) || IsFree(i) || Generation(i) != gen) return STRATA_NOT_FOUND;
  if (index != nullptr) *index = i;
  return STRATA_OK;
}

template <typename IndexT>
strata_status BasicAllocator<IndexT>::Free(Handle handle) {
  // Resolve, inlined: the handle checks are a good part of a free on the device.
  const uint32_t n = static_cast<uint32_t>(handle.value) - 1u;  // slot 0 wraps: out of range
  const uint32_t gen = static_cast<uint32_t>(handle.value >> 32);
  // fast_free_nodes_ is 0 unless the fast path applies (and before Init): one comparison for both.
  if (STRATA_ALLOC_UNLIKELY(n >= fast_free_nodes_)) return FreeSlow(handle);
  Node* const nodes = nodes_;
  Node& node = nodes[n];
  const uint32_t meta = node.meta;
  // In use, not free, same generation (bits 8..31 of meta), a generation that fits its field, no pins.
  if (STRATA_ALLOC_UNLIKELY((((meta ^ ((gen << kMetaGenShift) | kMetaInUse)) >> 8) | (gen >> kGenerationBits) |
                             (node.link1 & kPinMask)) != 0)) {
    return FreeSlow(handle);
  }
  const uint32_t null = NullInRegister();
  const uint32_t total = static_cast<uint32_t>(total_granules_);
  const uint32_t p = node.prev;
  const uint32_t q = node.next;
  uint32_t start = node.offset_lo;
  uint32_t end = q == null ? total : nodes[q].offset_lo;
  CountFreed<uint32_t>(end - start, node.link0);
  // A new generation makes every copy of this handle stale (it wraps with the 32-bit word).
  const uint32_t new_meta = meta + (1u << kMetaGenShift);
  const uint32_t p_free = p == null ? 0 : nodes[p].meta & kMetaFree;
  const uint32_t q_free = q == null ? 0 : nodes[q].meta & kMetaFree;
  if ((p_free | q_free) == 0) {  // no merge: n becomes a free block of its own
    node.meta = new_meta | kMetaFree;
    PushFree32(n, Class32(end - start), null);
    return STRATA_OK;
  }
  // n's node returns to the pool (flags cleared, generation kept). The block that absorbs the others
  // keeps its node and, when it heads its list and its class does not change (a small block joining a
  // large one), its place in the list: p if free, else q.
  node.meta = new_meta & (kGenerationMask << kMetaGenShift);
  uint32_t keep;
  if (p_free == 0) {  // q absorbs n: it moves down to n's offset
    keep = q;
    Node& qn = nodes[q];
    qn.offset_lo = start;
    qn.prev = static_cast<Index>(p);
    const uint32_t after = qn.next;
    end = after == null ? total : nodes[after].offset_lo;
    if (p != null) {
      nodes[p].next = static_cast<Index>(q);
    } else {
      head_ = static_cast<Index>(q);
    }
    node.link1 = static_cast<Index>(null);
    PoolAppend32(n, n, 1, null);
  } else {
    keep = p;
    Node& pn = nodes[p];
    start = pn.offset_lo;
    if (q_free == 0) {  // p absorbs n
      pn.next = static_cast<Index>(q);
      if (q != null) nodes[q].prev = static_cast<Index>(p);
      node.link1 = static_cast<Index>(null);
      PoolAppend32(n, n, 1, null);
    } else {  // p absorbs n and q; q leaves its list, and both nodes return to the pool
      Node& qn = nodes[q];
      const uint32_t after = qn.next;
      end = after == null ? total : nodes[after].offset_lo;
      pn.next = static_cast<Index>(after);
      if (after != null) nodes[after].prev = static_cast<Index>(p);
      RemoveFree32(q, HeadClass32(q), null);
      qn.meta &= kGenerationMask << kMetaGenShift;
      node.link1 = static_cast<Index>(q);
      qn.link1 = static_cast<Index>(null);
      PoolAppend32(n, q, 2, null);
    }
  }
  const uint32_t c = Class32(end - start);
  const uint32_t old = HeadClass32(keep);
  if (c != old) {
    RemoveFree32(keep, old, null);
    PushFree32(keep, c, null);
  }
  return STRATA_OK;
}

template <typename IndexT>
STRATA_ALLOC_NOINLINE strata_status BasicAllocator<IndexT>::FreeSlow(Handle handle) {
  Index n;
  const strata_status st = Resolve(handle, &n);
  if (st != STRATA_OK) return st;
  return FreeGeneric(n);
}

template <typename IndexT>
STRATA_ALLOC_NOINLINE strata_status BasicAllocator<IndexT>::FreeGeneric(Index n) {
  if (plan_pending_ || PinCount(n) != 0) return STRATA_FAILED_PRECONDITION;
  CountFreed<uint64_t>(Size(n), nodes_[n].link0);
  // A new generation makes every copy of this handle stale.
  nodes_[n].meta = (nodes_[n].meta & ~(kGenerationMask << kMetaGenShift)) |
                   (((Generation(n) + 1) & kGenerationMask) << kMetaGenShift) | kMetaFree;
  // The same blocks, nodes and list places as Free's fast path (FastVersusGeneric checks it): the block that
  // absorbs the others is p if free, else q, and the nodes that leave return to the pool in address order.
  const Index p = nodes_[n].prev;
  const Index q = nodes_[n].next;
  const bool p_free = p != kNull && IsFree(p);
  const bool q_free = q != kNull && IsFree(q);
  if (!p_free && q_free) {  // q absorbs n: q's node moves down to n's offset, n's node returns to the pool
    RemoveFree(q);
    SetOff(q, Off(n));
    Unlink(n);
    ReleaseNode(n);
    InsertFree(q);
    return STRATA_OK;
  }
  if (p_free) {
    RemoveFree(p);
    Unlink(n);
    ReleaseNode(n);
    n = p;
  }
  if (q_free) {
    RemoveFree(q);
    Unlink(q);
    ReleaseNode(q);
  }
  InsertFree(n);
  return STRATA_OK;
}

template <typename IndexT>
strata_status BasicAllocator<IndexT>::Pin(Handle handle) {
  Index n;
  const strata_status st = Resolve(handle, &n);
  if (st != STRATA_OK) return st;
  if (plan_pending_) return STRATA_FAILED_PRECONDITION;
  if (PinCount(n) == kMaxPinCount) return STRATA_RESOURCE_EXHAUSTED;
  nodes_[n].link1 = static_cast<Index>(nodes_[n].link1 + 1);
  return STRATA_OK;
}

template <typename IndexT>
strata_status BasicAllocator<IndexT>::Unpin(Handle handle) {
  Index n;
  const strata_status st = Resolve(handle, &n);
  if (st != STRATA_OK) return st;
  if (PinCount(n) == 0) return STRATA_FAILED_PRECONDITION;
  nodes_[n].link1 = static_cast<Index>(nodes_[n].link1 - 1);
  return STRATA_OK;
}

template <typename IndexT>
strata_status BasicAllocator<IndexT>::GetOffset(Handle handle, uint64_t* offset) const {
  Index n;
  const strata_status st = Resolve(handle, &n);
  if (st != STRATA_OK) return st;
  if (offset == nullptr) return STRATA_INVALID_ARGUMENT;
  *offset = Off(n) << granule_shift_;
  return STRATA_OK;
}

template <typename IndexT>
strata_status BasicAllocator<IndexT>::GetInfo(Handle handle, BufferInfo* info) const {
  Index n;
  const strata_status st = Resolve(handle, &n);
  if (st != STRATA_OK) return st;
  if (info == nullptr) return STRATA_INVALID_ARGUMENT;
  info->offset = Off(n) << granule_shift_;
  info->allocated_bytes = Size(n) << granule_shift_;
  info->requested_bytes = info->allocated_bytes - nodes_[n].link0;
  info->alignment = uint64_t{1} << (AlignLog2(n) + granule_shift_);
  info->pin_count = PinCount(n);
  return STRATA_OK;
}

template <typename IndexT>
uint64_t BasicAllocator<IndexT>::LargestFreeGranules() const {
  if (FlBitmap() == 0) return 0;
  const uint32_t fl = Msb64(FlBitmap());
  const uint32_t sl = Msb64(sl_bitmap_[fl]);
  uint64_t largest = 0;
  for (Index i = heads_[fl * kSlCount + sl]; i != kNull; i = nodes_[i].link1) largest = bits::Max(largest, Size(i));
  return largest;
}

template <typename IndexT>
Stats BasicAllocator<IndexT>::GetStats() const {
  Stats s;
  s.bytes_in_use = used_granules_.Get() << granule_shift_;
  s.requested_bytes_in_use = s.bytes_in_use - slack_bytes_.Get();
  s.peak_bytes_in_use = peak_granules_.Get() << granule_shift_;
  s.bytes_limit = capacity_bytes();
  s.bytes_free = s.bytes_limit - s.bytes_in_use;
  s.largest_free_block_bytes = LargestFreeGranules() << granule_shift_;
  s.num_allocs = num_allocs_.Get();
  s.num_frees = s.num_allocs - live_;
  s.num_failed_allocs = num_failed_;
  s.live_buffers = live_;
  s.max_live_buffers = max_live_;
  s.free_blocks = FreeBlocks();
  if (s.bytes_free != 0) {
    const uint64_t fragmented = s.bytes_free - s.largest_free_block_bytes;
    s.fragmentation = static_cast<double>(fragmented) / static_cast<double>(s.bytes_free);
    // Parts per million in integer arithmetic: scale both down until the product fits 64 bits.
    uint64_t num = fragmented, den = s.bytes_free;
    while (num > (UINT64_MAX / 1000000u)) num >>= 1, den >>= 1;
    s.fragmentation_ppm = den == 0 ? 0 : static_cast<uint32_t>(num * 1000000u / den);
  }
  s.compactions = compactions_;
  s.compaction_moves = compaction_moves_;
  s.compaction_bytes_moved = compaction_bytes_;
  s.compaction_cycles = compaction_cycles_;
  return s;
}

template <typename IndexT>
bool BasicAllocator<IndexT>::ShouldCompactWhenIdle(uint32_t fragmentation_threshold_ppm) const {
  return !plan_pending_ && GetStats().fragmentation_ppm > fragmentation_threshold_ppm;
}

// ---------------------------------------------------------------------------------------------
// Check(): recompute everything from the chain and compare with the index and the counters.

template <typename IndexT>
CheckResult BasicAllocator<IndexT>::Check() const {
  auto broken = [](const char* invariant, uint32_t block = UINT32_MAX) {
    return CheckResult{STRATA_INTERNAL, invariant, block};
  };
  if (nodes_ == nullptr) return CheckResult{STRATA_FAILED_PRECONDITION, "allocator is initialised", UINT32_MAX};
  if (head_ == kNull || head_ >= num_nodes_) return broken("chain.head_valid");
  if (Off(head_) != 0) return broken("chain.starts_at_offset_0", head_);

  uint32_t blocks = 0, live = 0, free_blocks = 0;
  uint64_t used = 0, slack = 0;
  Index prev = kNull;
  for (Index i = head_; i != kNull; i = nodes_[i].next) {
    if (i >= num_nodes_) return broken("chain.index_in_range", prev);
    if (++blocks > num_nodes_) return broken("chain.acyclic", i);
    if (!InUse(i)) return broken("chain.nodes_in_use", i);
    if (nodes_[i].prev != prev) return broken("chain.back_links_match", i);
    const Index next = nodes_[i].next;
    if (next != kNull && (next >= num_nodes_ || Off(next) <= Off(i))) return broken("chain.offsets_increasing", i);
    if (next == kNull && Off(i) >= total_granules_) return broken("chain.ends_at_capacity", i);
    if (IsFree(i)) {
      ++free_blocks;
      if (prev != kNull && IsFree(prev)) return broken("free.neighbours_coalesced", i);
    } else {
      ++live;
      used += Size(i);
      if (nodes_[i].link0 >= (1u << granule_shift_)) return broken("live.slack_below_granule", i);
      slack += nodes_[i].link0;
      if ((Off(i) & ((uint64_t{1} << AlignLog2(i)) - 1)) != 0) return broken("live.offset_aligned", i);
    }
    prev = i;
  }
  if (live != live_) return broken("stats.live_buffers");
  if (live > max_live_) return broken("metadata.live_within_capacity");
  if (used != used_granules_.Get()) return broken("stats.bytes_in_use");
  if (slack != slack_bytes_.Get()) return broken("stats.requested_bytes_in_use");
  if (peak_granules_.Get() < used) return broken("stats.peak_at_least_in_use");
  if (free_blocks != FreeBlocks()) return broken("stats.free_blocks");
  if (free_blocks > live + 1) return broken("free.at_most_live_plus_one");

  uint32_t listed = 0;
  for (uint32_t fl = 0; fl < kFlCount; ++fl) {
    if (((FlBitmap() >> fl) & 1) != (sl_bitmap_[fl] != 0 ? 1u : 0u)) return broken("index.fl_bitmap_matches");
    for (uint32_t sl = 0; sl < kSlCount; ++sl) {
      const Index head = heads_[fl * kSlCount + sl];
      if (((sl_bitmap_[fl] >> sl) & 1) != (head != kNull ? 1u : 0u)) return broken("index.sl_bitmap_matches");
      Index back = kNull;
      for (Index i = head; i != kNull; i = nodes_[i].link1) {
        if (i >= num_nodes_) return broken("index.list_index_in_range", back);
        if (++listed > free_blocks) return broken("index.lists_hold_only_free_blocks", i);
        if (!InUse(i) || !IsFree(i)) return broken("index.lists_hold_only_free_blocks", i);
        // A head's link0 is its class, every other block's its list predecessor.
        if (nodes_[i].link0 != (back == kNull ? static_cast<Index>(fl * kSlCount + sl) : back)) {
          return broken("index.list_back_links_match", i);
        }
        uint32_t f, s;
        Mapping(Size(i), &f, &s);
        if (f != fl || s != sl) return broken("index.block_in_its_size_class", i);
        back = i;
      }
    }
  }
  if (listed != free_blocks) return broken("index.every_free_block_listed");

  uint32_t pooled = 0;
  Index last = kNull;
  for (Index i = pool_head_; i != kNull; i = nodes_[i].link1) {
    if (i >= num_nodes_ || ++pooled > num_nodes_) return broken("pool.acyclic", i);
    if (InUse(i)) return broken("pool.holds_unused_nodes", i);
    last = i;
  }
  if (last != pool_tail_) return broken("pool.tail_is_last");
  if (pooled != pool_count_ || pooled + blocks != num_nodes_) return broken("pool.accounts_for_every_node");
  if (plan_pending_ && (plan_moves_ == nullptr && plan_num_moves_ != 0)) return broken("plan.moves_present");
  return CheckResult{};
}

template class BasicAllocator<uint16_t>;
template class BasicAllocator<uint32_t>;

}  // namespace strata::alloc
