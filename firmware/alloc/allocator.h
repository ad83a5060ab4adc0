// The firmware HBM allocator: TLSF/best-fit/first-fit over one block core, handles, compaction, stats.
//
// Pure logic: it hands out offsets inside [0, capacity) of a device memory it never touches. All of its
// metadata lives out of band in a caller-provided node array (in SMEM on the device), so the allocator
// needs no heap and has no global constructors. See docs/allocator.md for the design and the figures.
#ifndef STRATA_FW_ALLOC_ALLOCATOR_H_
#define STRATA_FW_ALLOC_ALLOCATOR_H_

#include <stddef.h>
#include <stdint.h>

#include "strata/status.h"

namespace strata::alloc {

// Placement strategies over the same block core, so they can be compared on the same trace.
enum class Policy : uint8_t {
  kTlsf = 0,      // two-level segregated fit, O(1) good fit (Masmano et al.)
  kBestFit = 1,   // smallest fitting block, lowest address on ties (BFC's choice)
  kFirstFit = 2,  // lowest-address fitting block
};
constexpr uint32_t kNumPolicies = 3;
const char* PolicyName(Policy policy);                   // "tlsf", "best-fit", "first-fit"
bool ParsePolicy(const char* name, Policy* policy_out);  // inverse of PolicyName

constexpr uint32_t kDefaultGranuleBytes = 256;  // the BFC allocator's minimum allocation
// A buffer's rounding slack (< granule) is kept in a 16-bit field of its node.
constexpr uint32_t kMaxGranuleBytes = 65536;
constexpr uint32_t kDefaultMaxLiveBuffers = 16384;
// Offsets and sizes are kept in granules, 40 bits wide: 256 TiB at the default granule.
constexpr uint32_t kOffsetBits = 40;
constexpr uint64_t kMaxGranules = (uint64_t{1} << kOffsetBits) - 1;
// Handles carry a 22-bit generation: a stale handle is recognised until its node has been
// reused 4 million times (nodes are recycled first-in first-out to spread that further).
constexpr uint32_t kGenerationBits = 22;
constexpr uint32_t kMaxPinCount = 1023;

// An opaque reference to a live buffer: node index + 1 in the low 32 bits, generation above.
// The zero handle is never valid. Callers keep handles, never offsets, so compaction can move buffers.
struct Handle {
  uint64_t value = 0;
  constexpr bool IsNull() const { return value == 0; }
  friend constexpr bool operator==(Handle a, Handle b) { return a.value == b.value; }
  friend constexpr bool operator!=(Handle a, Handle b) { return a.value != b.value; }
};

// The node a handle names, below the node count the allocator was given (Init): where a caller keeps its own data per
// live buffer (the runtime's and the host backend's owner tables), so that the handle's layout stays the allocator's.
// Live buffers have distinct slots, and a buffer keeps its slot while compaction moves it. Meaningful for a live
// handle of this allocator only (IsLive): it checks nothing.
constexpr uint32_t Slot(Handle handle) { return static_cast<uint32_t>(handle.value) - 1; }

struct Options {
  uint64_t capacity_bytes = 0;                    // managed range is [0, capacity), rounded down to granules
  uint32_t granule_bytes = kDefaultGranuleBytes;  // power of two in [1, kMaxGranuleBytes]
  Policy policy = Policy::kTlsf;
  // false: every call takes the generic code, which the 32-bit fast paths otherwise bypass on every heap
  // below 2^32 granules. For tests: the same operations both ways must leave the same blocks.
  bool fast_paths = true;
};

struct BufferInfo {
  uint64_t offset = 0;
  uint64_t allocated_bytes = 0;  // requested rounded up to the granule
  uint64_t requested_bytes = 0;
  uint64_t alignment = 0;
  uint32_t pin_count = 0;
};

// Named as JAX's Device.memory_stats() and TensorFlow's BFC allocator name them.
struct Stats {
  uint64_t bytes_in_use = 0;  // allocated (granule-rounded) bytes of live buffers
  uint64_t requested_bytes_in_use = 0;
  uint64_t peak_bytes_in_use = 0;
  uint64_t bytes_limit = 0;
  uint64_t bytes_free = 0;
  uint64_t largest_free_block_bytes = 0;
  uint64_t num_allocs = 0;  // successful allocations since Init
  uint64_t num_frees = 0;
  uint64_t num_failed_allocs = 0;
  uint32_t live_buffers = 0;
  uint32_t max_live_buffers = 0;  // metadata capacity
  uint32_t free_blocks = 0;
  // (bytes_free - largest_free_block_bytes) / bytes_free; 0 when nothing is free.
  double fragmentation = 0;
  uint32_t fragmentation_ppm = 0;  // the same in parts per million (no floating point on the device)
  uint64_t compactions = 0;        // committed plans with at least one move
  uint64_t compaction_moves = 0;
  uint64_t compaction_bytes_moved = 0;
  uint64_t compaction_cycles = 0;  // as reported by the caller that performed the copies
};

// One buffer copy of a compaction plan. Moves run in plan order; source and destination of one
// move may overlap, so the copy must have memmove semantics.
struct Move {
  Handle handle;
  uint64_t src_offset = 0;
  uint64_t dst_offset = 0;
  uint64_t bytes = 0;  // allocated size of the buffer
};

struct CompactionBudget {
  uint64_t max_bytes = UINT64_MAX;
  uint32_t max_moves = UINT32_MAX;
};

enum class CompactionKind : uint8_t {
  kNone = 0,      // nothing to move
  kSlide = 1,     // buffers slide toward lower addresses inside a window; free space gathers at its end
  kEvacuate = 2,  // buffers leave a window for holes elsewhere; the window becomes one free block
};

// Issued by a Plan* call; the allocator refuses every other change until Commit or Abort.
struct CompactionPlan {
  const Move* moves = nullptr;
  uint32_t num_moves = 0;
  uint64_t bytes = 0;           // sum of the moves' sizes
  bool serves_request = false;  // PlanCompactionFor: after commit the request fits
  CompactionKind kind = CompactionKind::kNone;
  uint32_t id = 0;        // which plan this is; a commit of any other plan is refused
  uint64_t checksum = 0;  // of the moves as issued; a commit of edited moves is refused
};

// Copies `num_moves` buffers in order with memmove semantics (DMA on the device).
using CopyMovesFn = strata_status (*)(void* context, const Move* moves, uint32_t num_moves);

// A 64-bit counter that rv32 updates with 32-bit arithmetic: the high word changes only on a carry
// (a branch almost never taken) instead of a carry chain on every update.
class Counter64 {
 public:
  constexpr Counter64() = default;
#if UINTPTR_MAX == 0xffffffffu
  uint64_t Get() const { return (static_cast<uint64_t>(hi_) << 32) | lo_; }
  void Add(uint32_t v) {
    const uint32_t lo = lo_ + v;
    lo_ = lo;
    if (lo < v) ++hi_;
  }
  void Sub(uint32_t v) {
    const uint32_t lo = lo_;
    lo_ = lo - v;
    if (lo < v) --hi_;
  }
  void Reset() { lo_ = hi_ = 0; }

 private:
  uint32_t lo_ = 0, hi_ = 0;
#else
  uint64_t Get() const { return v_; }
  void Add(uint32_t v) { v_ += v; }
  void Sub(uint32_t v) { v_ -= v; }
  void Reset() { v_ = 0; }

 private:
  uint64_t v_ = 0;
#endif
};

// A counter whose value provably stays below 2^32 (the rounding slack of at most 32,767 buffers).
class Counter32 {
 public:
  constexpr Counter32() = default;
  uint64_t Get() const { return v_; }
  void Add(uint32_t v) { v_ += v; }
  void Sub(uint32_t v) { v_ -= v; }
  void Reset() { v_ = 0; }

 private:
  uint32_t v_ = 0;
};

// Result of Check(): the first invariant found broken, by name, and the block where it broke.
struct CheckResult {
  strata_status status = STRATA_OK;
  const char* invariant = nullptr;
  uint32_t block = UINT32_MAX;
  bool ok() const { return status == STRATA_OK; }
};

// The allocator. IndexT is the node index type: uint16_t keeps a node at 16 bytes (the SMEM default,
// up to 32,767 live buffers); uint32_t lifts the limit for host use at 24 bytes a node.
template <typename IndexT>
class BasicAllocator {
 public:
  using Index = IndexT;
  static constexpr Index kNull = static_cast<Index>(~static_cast<Index>(0));

  // One block of the managed range: a live buffer or a free block. Its size is implied by the
  // next block's offset, so the chain can never have gaps or overlaps.
  struct Node {
    uint32_t offset_lo;  // offset in granules, bits 0..31
    uint32_t meta;       // bits 0..7 offset bits 32..39; bit 8 free; bit 9 in use; bits 10..31 generation
    Index prev, next;    // neighbours by address
    // free: segregated-list links. link0 = the previous block of the list, or for the head of a list
    // its size class (fl * kSlCount + sl), so that unlinking a head needs no size-class computation;
    // link1 = the next block of the list. live: rounding slack; pin count | alignment log2.
    Index link0, link1;
  };

  static constexpr uint32_t NodesForLiveBuffers(uint32_t max_live) { return 2 * max_live + 1; }
  // The largest node array an IndexT can address (kNull is reserved).
  static constexpr uint32_t kMaxNodes = static_cast<uint32_t>(kNull) < 0x7fffffffu ? kNull : 0x7fffffffu;

  // Segregated-fit index: 2^kSlLog2 second-level lists per power of two bound the search round-up
  // (and so the slack TLSF may leave unused) at 1/32 of a request.
  static constexpr uint32_t kSlLog2 = 5;
  static constexpr uint32_t kSlCount = 1u << kSlLog2;
  static constexpr uint32_t kFlCount = kOffsetBits + 2 - kSlLog2;
  static_assert(kSlLog2 >= 2 && kSlLog2 <= 5, "second-level bitmaps are 32-bit words");
  static_assert(kFlCount <= 64, "first-level bitmap is one 64-bit word");
  // Size classes are numbered fl * kSlCount + sl (one number, so that carrying past the last second-level
  // class of a power of two is an increment).
  static constexpr uint32_t kNumClasses = kFlCount * kSlCount;
  static_assert(kNumClasses - 1 <= static_cast<uint32_t>(static_cast<Index>(~0u)), "a class fits a link word");

  constexpr BasicAllocator() = default;
  BasicAllocator(const BasicAllocator&) = delete;
  BasicAllocator& operator=(const BasicAllocator&) = delete;

  // Takes `nodes` (num_nodes of them, owned by the caller) as metadata storage and makes the whole
  // range one free block. Holds at most (num_nodes - 1) / 2 live buffers. May be called again to reset.
  strata_status Init(Node* nodes, uint32_t num_nodes, const Options& options);

  // alignment: power of two, 0 means the granule. The offset is aligned relative to offset 0.
  // RESOURCE_EXHAUSTED when no free block fits or the metadata pool is full; *out is null then.
  strata_status Allocate(uint64_t bytes, uint64_t alignment, Handle* out);
  // INVALID_ARGUMENT for a malformed (forged) handle, NOT_FOUND for a stale or freed one,
  // FAILED_PRECONDITION for a pinned buffer. Nothing changes on error.
  strata_status Free(Handle handle);
  // Pinned buffers (in use by queued or running work) are never moved and cannot be freed.
  strata_status Pin(Handle handle);
  strata_status Unpin(Handle handle);

  strata_status GetOffset(Handle handle, uint64_t* offset) const;
  strata_status GetInfo(Handle handle, BufferInfo* info) const;
  bool IsLive(Handle handle) const { return Resolve(handle, nullptr) == STRATA_OK; }

  Stats GetStats() const;
  // Recomputes every invariant of the chain, the segregated lists, the node pool and the counters.
  CheckResult Check() const;
  // Whether an idle runtime should compact (fragmentation above the threshold).
  bool ShouldCompactWhenIdle(uint32_t fragmentation_threshold_ppm) const;

  // ---- Compaction protocol: plan (allocator) -> copy (caller, in order, memmove) -> commit. ----
  // General defragmentation: slides buffers toward lower addresses (never across a pinned buffer)
  // until the budget or `max_moves` entries of `moves` are used.
  strata_status PlanCompaction(const CompactionBudget& budget, Move* moves, uint32_t max_moves, CompactionPlan* plan);
  // Defragment-on-OOM: the cheapest plan (fewest bytes) that makes room for one allocation: either
  // evacuate the buffers of a window into holes elsewhere, or slide the buffers of a window together.
  // If the cheapest plan needs more than `max_moves` moves, a valid prefix is issued with
  // serves_request false: commit it and plan again. RESOURCE_EXHAUSTED if no plan within the budget
  // (or not enough free memory in total, or pinned buffers in the way).
  strata_status PlanCompactionFor(uint64_t bytes, uint64_t alignment, const CompactionBudget& budget, Move* moves,
                                  uint32_t max_moves, CompactionPlan* plan);
  // Applies the issued plan after the caller copied every move. copy_cycles feeds the stats.
  strata_status CommitCompaction(const CompactionPlan& plan, uint64_t copy_cycles = 0);
  // Drops the issued plan. Only safe before any copy ran (an overlapping move destroys its source).
  strata_status AbortCompaction();
  bool HasPendingPlan() const { return plan_pending_; }

  // Allocate; on RESOURCE_EXHAUSTED with enough free memory in total, plan/copy/commit with
  // `moves` as scratch until the request fits, then allocate. copy may be null if nothing is stored.
  strata_status AllocateWithCompaction(uint64_t bytes, uint64_t alignment, const CompactionBudget& budget, Move* moves,
                                       uint32_t max_moves, CopyMovesFn copy, void* copy_context, Handle* out);

  // Visits every block in address order (tests, tools): fn(context, offset_bytes, size_bytes, live, handle).
  template <typename Fn>
  void ForEachBlock(Fn&& fn) const {
    uint32_t guard = 0;
    for (Index i = head_; i != kNull && guard < num_nodes_; i = nodes_[i].next, ++guard) {
      fn(Off(i) << granule_shift_, Size(i) << granule_shift_, !IsFree(i), IsFree(i) ? Handle{} : MakeHandle(i));
    }
  }

  uint64_t capacity_bytes() const { return capacity_bytes_; }
  uint32_t granule_bytes() const { return 1u << granule_shift_; }
  uint32_t max_live_buffers() const { return max_live_; }
  Policy policy() const { return policy_; }

  // Test hook: lets a test corrupt metadata to prove Check() notices. Never used by firmware.
  Node* MutableNodesForTest() { return nodes_; }

 private:
  // ---- node fields ----
  uint64_t Off(Index i) const {
    return nodes_[i].offset_lo | (static_cast<uint64_t>(nodes_[i].meta & kMetaOffsetHiMask) << 32);
  }
  void SetOff(Index i, uint64_t granules) {
    nodes_[i].offset_lo = static_cast<uint32_t>(granules);
    nodes_[i].meta =
        (nodes_[i].meta & ~kMetaOffsetHiMask) | (static_cast<uint32_t>(granules >> 32) & kMetaOffsetHiMask);
  }
  uint64_t End(Index i) const { return nodes_[i].next == kNull ? total_granules_ : Off(nodes_[i].next); }
  uint64_t Size(Index i) const { return End(i) - Off(i); }
  bool IsFree(Index i) const { return (nodes_[i].meta & kMetaFree) != 0; }
  bool InUse(Index i) const { return (nodes_[i].meta & kMetaInUse) != 0; }
  uint32_t Generation(Index i) const { return nodes_[i].meta >> kMetaGenShift; }
  uint32_t PinCount(Index i) const { return nodes_[i].link1 & kPinMask; }
  uint32_t AlignLog2(Index i) const { return nodes_[i].link1 >> kAlignShift; }
  Handle MakeHandle(Index i) const {
    return Handle{(static_cast<uint64_t>(Generation(i)) << 32) | (static_cast<uint64_t>(i) + 1)};
  }
  strata_status Resolve(Handle handle, Index* index) const;
  void ResetCounters();

  // ---- node pool (FIFO) and the address chain ----
  Index TakeNode();
  void ReleaseNode(Index i);
  void LinkAfter(Index after, Index i);  // after == kNull: at the head
  void Unlink(Index i);

  // ---- segregated lists ----
  static void Mapping(uint64_t size, uint32_t* fl, uint32_t* sl);
  static uint32_t Class(uint64_t size) {
    uint32_t fl, sl;
    Mapping(size, &fl, &sl);
    return fl * kSlCount + sl;
  }
  // The class of listed free block i if it heads its list, else kNumClasses (link0 is then its list prev).
  uint32_t HeadClass(Index i) const {
    const uint32_t c = nodes_[i].link0;
    return c < kNumClasses && heads_[c] == i ? c : kNumClasses;
  }
  void PushFree(Index i, uint32_t c);  // onto the list of class c
  void ClearClassBit(uint32_t c);      // list c became empty
  uint64_t FlBitmap() const { return (static_cast<uint64_t>(fl_bitmap_hi_) << 32) | fl_bitmap_lo_; }
  void SetFlBit(uint32_t fl) { (fl < 32 ? fl_bitmap_lo_ : fl_bitmap_hi_) |= 1u << (fl & 31); }
  void ClearFlBit(uint32_t fl) { (fl < 32 ? fl_bitmap_lo_ : fl_bitmap_hi_) &= ~(1u << (fl & 31)); }
  // The statistics every allocation and free ends with, one definition for the fast and the generic
  // paths. Granules is uint32_t on the fast paths (they run only while every sum fits 32 bits: no
  // carries, the high words untouched) and uint64_t on the generic ones.
  template <typename Granules>
  void CountAllocated(Granules size, uint32_t slack);
  template <typename Granules>
  void CountFreed(Granules size, uint32_t slack);
  // ---- 32-bit fast paths, used while narrow_ (every offset and size fits 32 bits of granules, so
  // offset_lo is the whole offset): no 64-bit arithmetic on rv32, the class of a block computed once.
  static uint32_t Class32(uint32_t size);
  // `null` is kNull held in a register (NullInRegister): rv32 needs two instructions to form 0xffff,
  // and the compiler would rather form it again at every comparison than keep it.
  static uint32_t NullInRegister() {
    uint32_t null = kNull;
    asm("" : "+r"(null));  // opaque to the optimiser: computed once, then kept
    return null;
  }
  uint32_t End32(const Node& node, uint32_t null) const {
    return node.next == null ? static_cast<uint32_t>(total_granules_) : nodes_[node.next].offset_lo;
  }
  // Node indices are uint32_t here: no zero-extension of an Index on rv32.
  uint32_t HeadClass32(uint32_t i) const {
    const uint32_t c = nodes_[i].link0;
    return c < kNumClasses && heads_[c] == i ? c : kNumClasses;
  }
  void PushFree32(uint32_t i, uint32_t c, uint32_t null);
  // Unlinks listed block i; `head_class` is HeadClass32(i). Leaves i's links stale.
  void RemoveFree32(uint32_t i, uint32_t head_class, uint32_t null);
  void RemoveListHead(uint32_t c);  // pops the head of list c
  // Appends first..last (already chained through link1, last's link1 null) to the FIFO pool.
  void PoolAppend32(uint32_t first, uint32_t last, uint32_t count, uint32_t null);
  Index FindFreeTlsf32(uint32_t size, uint32_t* c) const;
  strata_status AllocateGeneric(uint64_t bytes, uint64_t alignment, Handle* out);  // every case, every check
  strata_status FreeSlow(Handle handle);  // every case Free's fast path does not take, every check
  strata_status FreeGeneric(Index n);     // n resolved; checks the plan lock and pins itself
  void SetPlanPending(bool pending) {
    plan_pending_ = pending;
    fast_ = narrow_ && !pending ? (policy_ == Policy::kTlsf ? kFastFree | kFastAlloc : kFastFree) : 0;
    fast_free_nodes_ = (fast_ & kFastFree) != 0 ? num_nodes_ : 0;
  }
  uint32_t FreeBlocks() const { return num_nodes_ - pool_count_ - live_; }  // every block not live is free
  void InsertFree(Index i);
  void RemoveFree(Index i);
  bool Fits(Index i, uint64_t size, uint64_t align) const;
  enum class Scan : uint8_t { kFirstMatch, kSmallest, kLowest };
  // Visits the lists from the class of `size` upward for a block that fits.
  Index ScanLists(uint64_t size, uint64_t align, Scan mode) const;
  Index FindFree(uint64_t size, uint64_t align) const;  // by policy_
  // Carves [aligned start, +size) out of free block `b`; returns the live node.
  Index Place(Index b, uint64_t size, uint64_t align);
  // Compaction's relinking (compaction.cc): a live node leaves the chain and comes back elsewhere.
  Index Detach(Index i);
  Index Carve(Index f, Index i, uint64_t dst, uint64_t size);
  Index FindFreeBlockContaining(uint64_t offset, uint64_t size, Index hint0, Index hint1) const;
  uint64_t LargestFreeGranules() const;
  uint64_t AlignGranules(uint64_t alignment_bytes) const;

  // ---- compaction helpers (compaction.cc) ----
  struct Window {
    Index first = kNull, last = kNull;
    uint64_t live = 0;  // granules of buffers inside
    uint32_t count = 0;
  };
  uint64_t PlanSlideWindow(uint64_t need, Window* best) const;
  uint32_t FindEvacuationWindows(uint64_t need, Window* out, uint32_t max_out) const;
  bool PlanEvacuation(const Window& window, uint64_t max_bytes, Move* moves, uint32_t max_moves,
                      uint32_t* num_moves) const;
  uint32_t PlanSlide(Index from, Index until, uint64_t max_bytes, uint32_t max_moves, Move* moves,
                     uint64_t* cursor_out) const;
  void IssuePlan(Move* moves, uint32_t num_moves, CompactionKind kind, bool serves_request, CompactionPlan* plan);
  static uint64_t Checksum(const Move* moves, uint32_t num_moves);

  // A 64-bit quantity that the 32-bit paths update through its low word alone (they run only while
  // it fits 32 bits), so rv32 does not store a zero high word each time.
  class Split64 {
   public:
    constexpr Split64() = default;
    uint64_t Get() const { return (static_cast<uint64_t>(hi_) << 32) | lo_; }
    void Set(uint64_t v) {
      lo_ = static_cast<uint32_t>(v);
      hi_ = static_cast<uint32_t>(v >> 32);
    }
    uint32_t Lo() const { return lo_; }
    void SetLo(uint32_t v) { lo_ = v; }  // the value fits 32 bits (so the high word is already 0)
    // As T: the low word alone for uint32_t (a value that fits 32 bits), the whole value for uint64_t.
    template <typename T>
    T As() const {
      if constexpr (sizeof(T) == sizeof(uint32_t))
        return lo_;
      else
        return Get();
    }
    template <typename T>
    void SetAs(T v) {
      if constexpr (sizeof(T) == sizeof(uint32_t))
        SetLo(v);
      else
        Set(v);
    }

   private:
    uint32_t lo_ = 0, hi_ = 0;
  };
  // The rounding slack of at most 32,767 buffers (16-bit nodes) stays below 2^31: 32 bits suffice.
  template <bool kSmall, int = 0>
  struct SlackCounterFor {
    using Type = Counter64;
  };
  template <int kDummy>
  struct SlackCounterFor<true, kDummy> {
    using Type = Counter32;
  };
  using SlackCounter = typename SlackCounterFor<sizeof(Index) == 2>::Type;

  static constexpr uint32_t kMetaOffsetHiMask = 0xffu;
  static constexpr uint32_t kMetaFree = 1u << 8;
  static constexpr uint32_t kMetaInUse = 1u << 9;
  static constexpr uint32_t kMetaGenShift = 10;
  static constexpr uint32_t kGenerationMask = (1u << kGenerationBits) - 1;
  static_assert(kMetaGenShift + kGenerationBits == 32, "generation fills the top of meta");
  static constexpr uint32_t kPinMask = kMaxPinCount;
  static constexpr uint32_t kAlignShift = 10;  // alignment log2 (in granules, <= 40) in link1 bits 10..15
  static_assert(kOffsetBits - 32 == 8, "offset bits 32..39 live in meta bits 0..7");

  // Everything Allocate and Free touch comes first: rv32 loads and stores reach 2 KiB from `this`
  // with one instruction, so nothing hot sits behind the list heads.
  Node* nodes_ = nullptr;
  uint32_t num_nodes_ = 0;
  uint32_t max_live_ = 0;
  uint32_t granule_shift_ = 8;
  Policy policy_ = Policy::kTlsf;
  bool narrow_ = false;  // total_granules_ <= UINT32_MAX and Options::fast_paths: the 32-bit fast paths apply
  bool plan_pending_ = false;
  // Which fast paths apply, so that each needs one test: kFastFree = narrow_ and no plan pending;
  // kFastAlloc = that and TLSF. Zero before Init.
  static constexpr uint8_t kFastFree = 1, kFastAlloc = 2;
  uint8_t fast_ = 0;
  uint32_t fast_free_nodes_ = 0;  // num_nodes_ while kFastFree, else 0: Free's range check covers both
  uint64_t total_granules_ = 0;
  uint64_t capacity_bytes_ = 0;  // total_granules_ << granule_shift_
  Index head_ = kNull;
  Index pool_head_ = kNull;
  Index pool_tail_ = kNull;
  uint32_t pool_count_ = 0;

  // Counters behind Stats (bytes_free etc. are derived).
  // num_frees = num_allocs_ - live_, free blocks = FreeBlocks(), requested = in use - slack: fewer
  // counters to update per operation.
  Split64 used_granules_;
  SlackCounter slack_bytes_;  // sum of the live buffers' rounding slack
  Split64 peak_granules_;
  Counter64 num_allocs_;
  uint64_t num_failed_ = 0;
  uint32_t live_ = 0;

  // First-level bitmap as two words: the 32-bit paths touch only the low one (fl <= 28 while narrow_).
  uint32_t fl_bitmap_lo_ = 0, fl_bitmap_hi_ = 0;
  uint32_t sl_bitmap_[kFlCount] = {};
  Index heads_[kNumClasses] = {};

  uint64_t compactions_ = 0;
  uint64_t compaction_moves_ = 0;
  uint64_t compaction_bytes_ = 0;
  uint64_t compaction_cycles_ = 0;

  uint32_t plan_id_ = 0;
  const Move* plan_moves_ = nullptr;
  uint32_t plan_num_moves_ = 0;
  uint64_t plan_checksum_ = 0;
};

using Allocator = BasicAllocator<uint16_t>;      // device default: 16-byte nodes
using WideAllocator = BasicAllocator<uint32_t>;  // more than 32,767 live buffers
static_assert(sizeof(Allocator::Node) == 16, "SMEM budget assumes 16-byte nodes");
static_assert(sizeof(WideAllocator::Node) == 24, "wide nodes");

// Static metadata for up to kMaxLive live buffers (place it in .bss; it has no constructor side effects).
template <uint32_t kMaxLive, typename IndexT = uint16_t>
struct NodeStorage {
  static constexpr uint32_t kNumNodes = BasicAllocator<IndexT>::NodesForLiveBuffers(kMaxLive);
  static_assert(kNumNodes <= BasicAllocator<IndexT>::kMaxNodes, "too many live buffers for this index type");
  typename BasicAllocator<IndexT>::Node nodes[kNumNodes];
};

// The default device configuration stays within the SMEM budget (1 MiB shared with code and stack).
static_assert(sizeof(NodeStorage<kDefaultMaxLiveBuffers>) + sizeof(Allocator) <= 600 * 1024,
              "allocator metadata exceeds its SMEM budget");

// Both index types are explicitly instantiated in allocator.cc and compaction.cc.

}  // namespace strata::alloc

#endif  // STRATA_FW_ALLOC_ALLOCATOR_H_
