// The `host` backend: Strata's HBM allocator (firmware/alloc, the library the runtime firmware runs) in host
// memory, behind the C API. It models placement only: buffers have addresses (heap offsets) but no bytes, so
// write, read and GEMM are UNIMPLEMENTED. A replay through it makes the calls strata-replay's host replay
// (host/replay/replay.cc) makes, in the same order, so the two agree allocation for allocation
// (tests/host/host_backend_test.cc).
//
// Open options: capacity_bytes (the heap; required), granule_bytes, policy (tlsf, best-fit, first-fit),
// max_live_buffers (sizes the node array: the 16-byte-node Allocator while it can address them, else the
// WideAllocator), check_every_op (Check() after every call that changes the heap; INTERNAL naming the broken
// invariant).
//
// The runtime firmware's rules (firmware/runtime/runtime.cc): a context's quota is strata_quota_bytes() of the heap
// and admits by strata_quota_admits() the request rounded up to the granule; only a context opened with a quota has
// one. strata_alloc tries Allocate and, on RESOURCE_EXHAUSTED and without STRATA_ALLOC_FLAG_NO_COMPACT,
// AllocateWithCompaction with no budget (defragment on OOM). A failed allocation's kind (strata_last_oom): CAP for a
// quota refusal; CAPACITY when the granule-rounded request exceeds the heap less the bytes in use; else
// FRAGMENTATION.
//
// Events (strata_set_event_sink), timed by the backend's event index (allocations, frees, compactions), which
// strata_device_info.device_cycles reports; instants but for the spans (of no length) on_oom and compact:
//   track "heap", flags STRATA_EVENT_FLAG_ADDRESS, id = the buffer's handle, value = its allocated (granule-rounded)
//   bytes:
//     "alloc"  a buffer placed at `address` (its heap offset)
//     "free"   a buffer freed (strata_free, or strata_context_destroy for each of the context's buffers)
//     "move"   a buffer a compaction moved from `address` to `to_address`, in plan order
//     "extent" each time a sink is set: the heap, [0, value) (id 0), as on sim
//   track "compaction", value = bytes:
//     "slide_baseline"  before each defragment-on-OOM attempt: what sliding every live buffer down to the bottom of
//                       the heap would copy (strata-replay's slide_baseline_bytes is their sum)
//     "on_oom"          an allocation that compacted (at least one move): the bytes its moves copied
//     "compact"         a strata_compact that moved something: the bytes moved
// strata_memory_stats: the allocator's figures; pool_bytes = peak_pool_bytes = the footprint (the highest heap
// address any buffer or move destination has reached, strata-replay's footprint_bytes).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "alloc/allocator.h"
#include "backend.h"
#include "events.h"
#include "strata/protocol.h"
#include "strata/quota.h"

namespace strata::driver {
namespace {

// The most live buffers the node array may be sized for: 2^24 (800 MB of 24-byte nodes), far beyond any trace.
constexpr int64_t kMaxLiveBuffersOption = int64_t{1} << 24;
constexpr char kNoData[] =
    "the host backend models placement only (Strata's allocator on the host: buffers have addresses, no data); "
    "use the sim backend for ";

// "tlsf, best-fit or first-fit": alloc::PolicyName's names.
std::string PolicyNames(const char* last) {
  std::string names;
  for (uint32_t p = 0; p < alloc::kNumPolicies; ++p) {
    names += p == 0 ? "" : (p + 1 == alloc::kNumPolicies ? last : ", ");
    names += alloc::PolicyName(static_cast<alloc::Policy>(p));
  }
  return names;
}

// The same as a list (the policy option's choices).
std::vector<std::string> PolicyList() {
  std::vector<std::string> names;
  for (uint32_t p = 0; p < alloc::kNumPolicies; ++p)
    names.emplace_back(alloc::PolicyName(static_cast<alloc::Policy>(p)));
  return names;
}

struct HostConfig {
  alloc::Options options;
  uint32_t max_live_buffers = alloc::kDefaultMaxLiveBuffers;
  bool check_every_op = false;
};

template <typename A>
class HostBackend final : public Backend {
 public:
  explicit HostBackend(const HostConfig& config)
      : nodes_(A::NodesForLiveBuffers(config.max_live_buffers)),
        moves_(config.max_live_buffers),
        owner_(nodes_.size(), 0),
        config_(config.options),
        check_every_op_(config.check_every_op) {}

  // INVALID_ARGUMENT when the allocator refuses the heap (more than 2^40 granules, or smaller than one).
  Error Init() {
    const strata_status st = allocator_.Init(nodes_.data(), static_cast<uint32_t>(nodes_.size()), config_);
    if (st != STRATA_OK || allocator_.capacity_bytes() == 0) {
      return {STRATA_INVALID_ARGUMENT, "capacity_bytes " + std::to_string(config_.capacity_bytes) + " at granule " +
                                           std::to_string(config_.granule_bytes) +
                                           " is not a heap the allocator manages (1 to 2^40 granules)"};
    }
    return {};
  }

  const char* name() const override { return "host"; }

  Error GetInfo(strata_device_info* out) override {
    out->backend = name();
    out->hbm_capacity_bytes = allocator_.capacity_bytes();
    out->heap_bytes = allocator_.capacity_bytes();
    out->device_cycles = events_;  // no device clock: the event index
    out->max_contexts = STRATA_RT_MAX_CONTEXTS;
    out->max_live_buffers = allocator_.max_live_buffers();
    out->granule_bytes = allocator_.granule_bytes();
    out->last_command_cycles = 0;
    out->mxu_array_n = 0;  // no matrix unit
    out->hbm_bytes_read = 0;
    out->hbm_bytes_written = 0;
    out->hbm_peak_bytes_per_cycle = 0;
    return {};
  }

  Error CreateContext(uint64_t quota_bytes, uint32_t quota_ppm, strata_context* out) override {
    uint32_t slot = 0;
    while (slot < contexts_.size() && contexts_[slot].open) ++slot;
    if (slot == STRATA_RT_MAX_CONTEXTS) return {STRATA_RESOURCE_EXHAUSTED, "too many contexts"};
    if (slot == contexts_.size()) contexts_.emplace_back();
    Context& c = contexts_[slot];
    // As the runtime numbers them: slot + 1 in the low 8 bits, a generation above (12 bits here, so that ids stay
    // below 2^20), so that a destroyed context's id does not name the next context in its slot.
    const uint32_t generation = c.id >> 8 == 0xfff ? 1 : (c.id >> 8) + 1;
    c = Context{};
    c.id = generation << 8 | (slot + 1);
    c.open = true;
    c.has_quota = quota_bytes != 0 || quota_ppm != 0;  // the runtime's rule: only a quota asked for refuses
    c.quota = strata_quota_bytes(quota_bytes, quota_ppm, allocator_.capacity_bytes());
    *out = c.id;
    return {};
  }

  Error DestroyContext(strata_context context) override {
    Context* c = Find(context);
    if (c == nullptr) return NoSuchContext(context);
    std::vector<alloc::Handle> mine;
    allocator_.ForEachBlock([&](uint64_t, uint64_t, bool live, alloc::Handle h) {
      if (live && owner_[alloc::Slot(h)] == context) mine.push_back(h);
    });
    for (alloc::Handle h : mine) {
      Error e = Release(*c, h);
      if (!e.ok()) return e;
    }
    c->open = false;
    return CheckHeap("strata_context_destroy");
  }

  Error Alloc(strata_context context, uint64_t bytes, uint64_t alignment, uint32_t flags, strata_buffer* out) override {
    Context* c = Find(context);
    if (c == nullptr) return NoSuchContext(context);
    const Error bad = CheckAllocRequest(bytes, alignment);
    if (!bad.ok()) return bad;
    ++events_;
    const uint64_t granule = allocator_.granule_bytes();
    // Saturated, not wrapped, for a request near 2^64 (the allocator refuses anything above the heap anyway).
    const uint64_t rounded =
        bytes > UINT64_MAX - (granule - 1) ? UINT64_MAX : (bytes + granule - 1) / granule * granule;
    if (c->has_quota && !strata_quota_admits(c->quota, c->bytes, rounded)) {
      RecordOom(*c, bytes, STRATA_OOM_CAP);
      return {STRATA_RESOURCE_EXHAUSTED, "the context's memory quota has no room for this: requested " +
                                             std::to_string(bytes) + " B (" + std::to_string(rounded) +
                                             " B in granules), context in use " + std::to_string(c->bytes) +
                                             " B, quota " + std::to_string(c->quota) + " B"};
    }
    alloc::Handle h;
    strata_status st = allocator_.Allocate(bytes, alignment, &h);
    const bool compact = (flags & STRATA_ALLOC_FLAG_NO_COMPACT) == 0;
    if (st == STRATA_RESOURCE_EXHAUSTED && compact) {
      if (sink_.on()) {
        uint64_t slide = 0;
        bool hole = false;
        allocator_.ForEachBlock([&](uint64_t, uint64_t size, bool live, alloc::Handle) {
          if (!live) hole = true;
          if (live && hole) slide += size;
        });
        CompactionEvent("slide_baseline", slide, sim::EventKind::kInstant);
      }
      const alloc::Stats before = allocator_.GetStats();
      st = allocator_.AllocateWithCompaction(bytes, alignment, alloc::CompactionBudget{}, moves_.data(),
                                             static_cast<uint32_t>(moves_.size()), &HostBackend::OnMoves, this, &h);
      const alloc::Stats after = allocator_.GetStats();
      if (after.compactions != before.compactions) {
        CompactionEvent("on_oom", after.compaction_bytes_moved - before.compaction_bytes_moved, sim::EventKind::kSpan);
      }
    }
    if (st == STRATA_RESOURCE_EXHAUSTED) {
      const bool table_full = allocator_.GetStats().live_buffers >= allocator_.max_live_buffers();
      const strata_oom_kind kind = Classify(rounded);
      RecordOom(*c, bytes, kind);
      Error e{STRATA_RESOURCE_EXHAUSTED,
              std::string(table_full ? "too many live buffers (max_live_buffers " +
                                           std::to_string(allocator_.max_live_buffers()) + ")"
                                     : "not enough device memory") +
                  (compact ? " (even after compaction)" : " (no compaction: STRATA_ALLOC_FLAG_NO_COMPACT)") + " (" +
                  strata_oom_kind_name(kind) + "): requested " + std::to_string(bytes) + " B, in use " +
                  std::to_string(last_oom_.live_bytes) + " B, free " + std::to_string(last_oom_.device_free_bytes) +
                  " B, largest free block " + std::to_string(last_oom_.largest_free_block_bytes) + " B"};
      Error check = CheckHeap("strata_alloc");
      return check.ok() ? e : check;
    }
    if (st != STRATA_OK) {
      return {STRATA_INTERNAL, std::string("the allocator answered ") + strata_status_name(st) + " to a valid request"};
    }
    alloc::BufferInfo info;
    allocator_.GetInfo(h, &info);
    footprint_ = std::max(footprint_, info.offset + info.allocated_bytes);
    largest_alloc_ = std::max(largest_alloc_, info.allocated_bytes);
    c->bytes += info.allocated_bytes;
    ++c->buffers;
    owner_[alloc::Slot(h)] = context;
    HeapEvent("alloc", h, info.allocated_bytes, info.offset, info.offset);
    *out = h.value;
    return CheckHeap("strata_alloc");
  }

  Error Free(strata_context context, strata_buffer buffer) override {
    Context* c = Find(context);
    if (c == nullptr) return NoSuchContext(context);
    const alloc::Handle h{buffer};
    alloc::BufferInfo info;
    const strata_status st = allocator_.GetInfo(h, &info);
    if (st == STRATA_INVALID_ARGUMENT) return {STRATA_INVALID_ARGUMENT, "not a buffer handle"};
    if (st != STRATA_OK) return {STRATA_NOT_FOUND, "the buffer handle is stale (its buffer was freed)"};
    if (owner_[alloc::Slot(h)] != context) return {STRATA_PERMISSION_DENIED, "the buffer belongs to another context"};
    Error e = Release(*c, h);
    if (!e.ok()) return e;
    return CheckHeap("strata_free");
  }

  Error Write(strata_context, strata_buffer, uint64_t, const void*, uint64_t) override {
    return {STRATA_UNIMPLEMENTED, std::string(kNoData) + "strata_write"};
  }
  Error Read(strata_context, strata_buffer, uint64_t, void*, uint64_t) override {
    return {STRATA_UNIMPLEMENTED, std::string(kNoData) + "strata_read"};
  }
  Error Gemm(strata_context, const strata_gemm_args&) override {
    return {STRATA_UNIMPLEMENTED, std::string(kNoData) + "strata_gemm"};
  }

  // The runtime's COMPACT: PlanCompaction rounds within the budget until a plan moves nothing.
  Error Compact(strata_context context, uint64_t max_bytes, uint32_t max_moves, strata_compact_result* out) override {
    if (context != 0 && Find(context) == nullptr) return NoSuchContext(context);  // 0: the whole heap
    uint64_t bytes_left = max_bytes == 0 ? UINT64_MAX : max_bytes;
    uint32_t moves_left = max_moves == 0 ? UINT32_MAX : max_moves;
    uint64_t bytes = 0;
    uint32_t moves = 0;
    ++events_;
    while (bytes_left != 0 && moves_left != 0) {
      alloc::CompactionPlan plan;
      strata_status st = allocator_.PlanCompaction(alloc::CompactionBudget{bytes_left, moves_left}, moves_.data(),
                                                   static_cast<uint32_t>(moves_.size()), &plan);
      if (st != STRATA_OK) return {STRATA_INTERNAL, std::string("PlanCompaction: ") + strata_status_name(st)};
      if (plan.num_moves == 0) {
        allocator_.CommitCompaction(plan);
        break;
      }
      OnMoves(this, plan.moves, plan.num_moves);
      st = allocator_.CommitCompaction(plan);
      if (st != STRATA_OK) return {STRATA_INTERNAL, std::string("CommitCompaction: ") + strata_status_name(st)};
      bytes += plan.bytes;
      moves += plan.num_moves;
      bytes_left = plan.bytes >= bytes_left ? 0 : bytes_left - plan.bytes;
      moves_left = plan.num_moves >= moves_left ? 0 : moves_left - plan.num_moves;
    }
    if (moves != 0) CompactionEvent("compact", bytes, sim::EventKind::kSpan);
    out->moves = moves;
    out->bytes_moved = bytes;
    out->device_cycles = 0;  // no device clock
    return CheckHeap("strata_compact");
  }

  Error MemoryStats(strata_context context, strata_memory_stats* out) override {
    const Context* only = nullptr;
    if (context != 0) {
      only = Find(context);
      if (only == nullptr) return NoSuchContext(context);
    }
    const alloc::Stats s = allocator_.GetStats();
    // The allocator's figures the runtime reports (strata/protocol.h's list, as on sim), then what differs here.
#define STRATA_COPY_(type, name) out->name = s.name;
    STRATA_RT_STATS_FROM_ALLOCATOR_64(STRATA_COPY_)
#undef STRATA_COPY_
    out->live_buffers = s.live_buffers;
    out->fragmentation = s.fragmentation;
    // Failed strata_alloc calls, quota refusals included (the allocator counts its own attempts: a defragment on
    // OOM is a second one).
    out->num_failed_allocs =
        oom_counts_[STRATA_OOM_CAPACITY] + oom_counts_[STRATA_OOM_CAP] + oom_counts_[STRATA_OOM_FRAGMENTATION];
    out->contexts = static_cast<uint32_t>(
        std::count_if(contexts_.begin(), contexts_.end(), [](const Context& c) { return c.open; }));
    if (only != nullptr) {
      out->context_bytes_in_use = only->bytes;
      out->context_quota_bytes = only->has_quota ? only->quota : 0;
      out->context_buffers = only->buffers;
    }
    out->pool_bytes = footprint_;  // the heap the run has touched
    out->peak_pool_bytes = footprint_;
    out->requested_bytes = s.requested_bytes_in_use;
    out->largest_alloc_size = largest_alloc_;
    out->oom_capacity = oom_counts_[STRATA_OOM_CAPACITY];
    out->oom_cap = oom_counts_[STRATA_OOM_CAP];
    out->oom_fragmentation = oom_counts_[STRATA_OOM_FRAGMENTATION];
    return {};
  }

  bool StatsAreFree() const override { return true; }
  Error Synchronize() override { return {}; }
  Error LastOom(strata_oom_info* out) override {
    *out = last_oom_;
    return {};
  }
  Error SetEventSink(strata_event_fn fn, void* user) override {
    sink_.fn = fn;
    sink_.user = user;
    if (sink_.on()) {  // the heap's extent, for pictures of it (scripts/plot_memory.py), as sim reports it
      sim::Event extent{"heap", "extent", events_, events_, static_cast<int64_t>(allocator_.capacity_bytes())};
      extent.kind = sim::EventKind::kInstant;
      extent.has_address = true;
      sink_.OnEvent(extent);
    }
    return {};
  }

 private:
  struct Context {
    strata_context id = 0;  // kept when destroyed: the next context in the slot takes the next generation
    bool open = false;
    bool has_quota = false;
    uint64_t quota = 0;
    uint64_t bytes = 0;  // allocated (granule-rounded) bytes live
    uint32_t buffers = 0;
  };

  Context* Find(strata_context id) {
    const uint32_t slot = (id & 0xffu) - 1;
    if (id == 0 || slot >= contexts_.size() || !contexts_[slot].open || contexts_[slot].id != id) return nullptr;
    return &contexts_[slot];
  }

  // The copy callback: no data to copy; each move raises the footprint and is reported.
  static strata_status OnMoves(void* self, const alloc::Move* m, uint32_t n) {
    HostBackend& b = *static_cast<HostBackend*>(self);
    for (uint32_t k = 0; k < n; ++k) {
      b.footprint_ = std::max(b.footprint_, m[k].dst_offset + m[k].bytes);
      b.HeapEvent("move", m[k].handle, m[k].bytes, m[k].src_offset, m[k].dst_offset);
    }
    return STRATA_OK;
  }

  Error Release(Context& c, alloc::Handle h) {
    alloc::BufferInfo info;
    allocator_.GetInfo(h, &info);
    const strata_status st = allocator_.Free(h);
    if (st != STRATA_OK)
      return {STRATA_INTERNAL, std::string("the allocator's Free answered ") + strata_status_name(st)};
    ++events_;
    c.bytes -= info.allocated_bytes;
    --c.buffers;
    owner_[alloc::Slot(h)] = 0;
    HeapEvent("free", h, info.allocated_bytes, info.offset, info.offset);
    return {};
  }

  // The kind of a failed allocation of `rounded` bytes past the quota check (tenants.cc: gpu::ClassifyOom's rule).
  strata_oom_kind Classify(uint64_t rounded) const {
    const uint64_t capacity = allocator_.capacity_bytes();
    const uint64_t in_use = std::min(allocator_.GetStats().bytes_in_use, capacity);
    return rounded > capacity - in_use ? STRATA_OOM_CAPACITY : STRATA_OOM_FRAGMENTATION;
  }

  void RecordOom(const Context& c, uint64_t bytes, strata_oom_kind kind) {
    const alloc::Stats s = allocator_.GetStats();
    last_oom_ = strata_oom_info{};
    last_oom_.kind = kind;
    last_oom_.request_bytes = bytes;
    last_oom_.live_bytes = s.bytes_in_use;
    last_oom_.reserved_bytes = s.bytes_limit;  // the heap is the allocator's one pool
    last_oom_.largest_free_block_bytes = s.largest_free_block_bytes;
    last_oom_.limit_bytes = kind == STRATA_OOM_CAP ? c.quota : s.bytes_limit;
    last_oom_.device_free_bytes = s.bytes_free;
    last_oom_.context_bytes_in_use = c.bytes;
    last_oom_.context_quota_bytes = c.has_quota ? c.quota : 0;
    ++oom_counts_[kind];
  }

  // check_every_op: the allocator's invariants after a call that may have changed the heap.
  Error CheckHeap(const char* call) const {
    if (!check_every_op_) return {};
    const alloc::CheckResult r = allocator_.Check();
    if (r.ok()) return {};
    return {STRATA_INTERNAL, std::string("check_every_op: after ") + call + " the allocator's invariant '" +
                                 (r.invariant ? r.invariant : "?") + "' is broken (block " + std::to_string(r.block) +
                                 ")"};
  }

  void HeapEvent(const char* what, alloc::Handle h, uint64_t bytes, uint64_t address, uint64_t to_address) {
    if (!sink_.on()) return;
    sim::Event e{"heap", what, events_, events_, static_cast<int64_t>(bytes), h.value};
    e.kind = sim::EventKind::kInstant;
    e.has_address = true;
    e.address = address;
    e.to_address = to_address;
    sink_.OnEvent(e);
  }

  // slide_baseline is an instant; on_oom and compact are spans of no length (the backend has no clock), as the
  // GPU backends' defragment.
  void CompactionEvent(const char* what, uint64_t bytes, sim::EventKind kind) {
    if (!sink_.on()) return;
    sim::Event e{"compaction", what, events_, events_, static_cast<int64_t>(bytes)};
    e.kind = kind;
    sink_.OnEvent(e);
  }

  std::vector<typename A::Node> nodes_;
  std::vector<alloc::Move> moves_;     // compaction scratch: one move per live buffer at most
  std::vector<strata_context> owner_;  // by node index: the context a live buffer belongs to
  alloc::Options config_;
  A allocator_;
  bool check_every_op_ = false;
  std::vector<Context> contexts_;  // by slot: the low 8 bits of a context id, less 1
  uint64_t events_ = 0;            // allocations, frees, compactions: the timeline's clock
  uint64_t footprint_ = 0;         // highest heap address reached
  uint64_t largest_alloc_ = 0;
  uint64_t oom_counts_[STRATA_OOM_FRAGMENTATION + 1] = {};
  strata_oom_info last_oom_{};
  ApiEventSink sink_;
};

Error OpenHost(const OpenOptions& o, std::unique_ptr<Backend>* out) {
  HostConfig config;
  const int64_t capacity = o.GetInt("capacity_bytes", 0);
  if (capacity <= 0) {
    return {STRATA_INVALID_ARGUMENT,
            "capacity_bytes is required: the heap's size in bytes (> 0), e.g. "
            "capacity_bytes=1073741824"};
  }
  config.options.capacity_bytes = static_cast<uint64_t>(capacity);
  const int64_t granule = o.GetInt("granule_bytes", alloc::kDefaultGranuleBytes);
  if (granule <= 0 || granule > alloc::kMaxGranuleBytes || (granule & (granule - 1)) != 0) {
    return {STRATA_INVALID_ARGUMENT,
            "granule_bytes must be a power of two between 1 and " + std::to_string(alloc::kMaxGranuleBytes)};
  }
  config.options.granule_bytes = static_cast<uint32_t>(granule);
  const std::string policy = o.GetString("policy", alloc::PolicyName(alloc::Policy::kTlsf));
  if (!alloc::ParsePolicy(policy.c_str(), &config.options.policy)) {
    return {STRATA_INVALID_ARGUMENT, "unknown policy '" + policy + "' (" + PolicyNames(" or ") + ")"};
  }
  const int64_t live = o.GetInt("max_live_buffers", alloc::kDefaultMaxLiveBuffers);
  if (live <= 0 || live > kMaxLiveBuffersOption) {
    return {STRATA_INVALID_ARGUMENT, "max_live_buffers must be between 1 and " + std::to_string(kMaxLiveBuffersOption)};
  }
  config.max_live_buffers = static_cast<uint32_t>(live);
  config.check_every_op = o.GetBool("check_every_op", false);
  Error e;
  if (alloc::Allocator::NodesForLiveBuffers(config.max_live_buffers) <= alloc::Allocator::kMaxNodes) {
    auto b = std::make_unique<HostBackend<alloc::Allocator>>(config);
    e = b->Init();
    if (e.ok()) *out = std::move(b);
  } else {
    auto b = std::make_unique<HostBackend<alloc::WideAllocator>>(config);
    e = b->Init();
    if (e.ok()) *out = std::move(b);
  }
  return e;
}

std::vector<OptionSpec> HostOptions() {
  return {
      {"capacity_bytes", STRATA_VALUE_INT64, "0", "the heap's size in bytes (required, > 0)"},
      {"granule_bytes", STRATA_VALUE_INT64, std::to_string(alloc::kDefaultGranuleBytes),
       "allocation granule: every size rounds up to it; a power of two up to " +
           std::to_string(alloc::kMaxGranuleBytes)},
      {"policy", STRATA_VALUE_STRING, alloc::PolicyName(alloc::Policy::kTlsf),
       "placement policy: " + PolicyNames(" or "), PolicyList()},
      {"max_live_buffers", STRATA_VALUE_INT64, std::to_string(alloc::kDefaultMaxLiveBuffers),
       "live buffers the allocator's metadata holds (more than 32767: 24-byte nodes instead of 16)"},
      {"check_every_op", STRATA_VALUE_BOOL, "0",
       "check every allocator invariant after each call that changes the heap (slow); INTERNAL if one breaks"},
  };
}

}  // namespace

STRATA_REGISTER_BACKEND(host, {"host",
                               "Strata's HBM allocator (the runtime firmware's library) in host memory: "
                               "placement only, no data",
                               HostOptions(), OpenHost})

}  // namespace strata::driver
