// Device runtime: command loop (doorbell-driven, wfi when idle), contexts with quotas, buffer ownership,
// pinned in-flight transfers through HBM staging slots, and compaction with HBM->HBM DMA.
//
// Built twice: runtime.elf (int8 GEMMs, protocol 1.1) and runtime_fp.elf (STRATA_RUNTIME_FP=1: also bf16 GEMMs,
// protocol 1.2). The bf16 path is compiled out of runtime.elf, not just unused, because strata-sim loads an image
// one word per cycle before reset and every int8 figure would move with its size (docs/matrix-unit.md).
//
// Interrupts are wake-up events only (mstatus.MIE stays off; the idiom is drivers/irq.h's): before sleeping the
// loop clears the pending bits, re-checks for work and only then executes wfi, so a doorbell or a DMA
// completion that arrives in between leaves its bit pending and wfi returns at once.
#include "runtime/runtime.h"

#include <stdint.h>

#include "alloc/allocator.h"
#include "alloc/bits.h"
#include "arch/arch.h"
#include "drivers/console.h"
#include "drivers/dma.h"
#include "drivers/irq.h"
#include "drivers/mxu.h"
#include "hal/mmio.h"
#include "kernels/gemm.h"
#include "lib/mem.h"
#include "runtime/decoder.h"
#include "strata/protocol.h"
#include "strata/quota.h"
#include "strata/regmap.h"

// Found by the host through the ELF symbol table (STRATA_RT_HEADER_SYMBOL).
extern "C" {
alignas(64) volatile strata_rt_header strata_runtime_header;
}

namespace strata::runtime {
namespace {

using alloc::Handle;

constexpr hal::MmioRegion kCtrl(STRATA_CTRL_BASE);
constexpr uint32_t kMaxLive = 4096;
constexpr uint32_t kMaxMoves = 64;      // compaction moves per plan round
constexpr uint32_t kMaxInflight = 4;    // transfers queued on the DMA at once (<= its queue depth)
constexpr uint32_t kTransferQueue = 0;  // staging <-> buffer
constexpr uint32_t kCompactQueue = 1;   // HBM -> HBM moves
constexpr uint64_t kStagingBytes = uint64_t{STRATA_RT_STAGING_SLOTS} * STRATA_RT_STAGING_SLOT_BYTES;
constexpr uint64_t kMaxDmaChunk = uint64_t{1} << 30;
static_assert(kMaxInflight <= STRATA_DMA_QUEUE_DEPTH, "Submit must never sleep behind a full transfer queue");

alignas(64) volatile strata_cmd g_sq[STRATA_RT_SQ_ENTRIES];
alignas(64) volatile strata_cpl g_cq[STRATA_RT_CQ_ENTRIES];
alignas(64) volatile strata_rt_stats g_stats;

using Storage = alloc::NodeStorage<kMaxLive>;
Storage g_nodes;
alloc::Allocator g_alloc;
uint8_t g_owner[Storage::kNumNodes];  // context slot + 1 of each live buffer's node; 0 = none
alloc::Move g_moves[kMaxMoves];
Handle g_scratch[kMaxLive];

struct Context {
  uint32_t id = 0;     // generation << 8 | (slot + 1); 0 = free slot
  uint64_t quota = 0;  // the heap when none was asked for (what the statistics report)
  bool has_quota = false;
  uint64_t bytes_in_use = 0;
  uint32_t buffers = 0;
};
Context g_contexts[STRATA_RT_MAX_CONTEXTS];
uint32_t g_context_generation[STRATA_RT_MAX_CONTEXTS];
uint32_t g_num_contexts = 0;

struct Inflight {
  uint32_t seq = 0, context = 0, ticket = 0, start = 0;
  uint8_t opcode = 0;
  Handle handle;
};
Inflight g_inflight[kMaxInflight];
uint32_t g_inflight_head = 0, g_inflight_count = 0;

uint32_t g_sq_head = 0, g_cq_tail = 0;
DecodeLimits g_limits;
uint64_t g_staging = 0;
uint64_t g_oom_copy_cycles = 0;  // defragment-on-OOM copies (the allocator's wrapper does not time them)

struct Result {
  strata_status status = STRATA_OK;
  strata_field field = STRATA_FIELD_NONE;
};

// ---- completions ----

void Post(uint32_t seq, uint8_t opcode, uint32_t context, Result r, uint32_t start, uint64_t value0 = 0,
          uint32_t value1 = 0) {
  volatile strata_cpl& e = g_cq[strata_rt_cq_slot(g_cq_tail)];
  e.seq = seq;
  e.status = static_cast<uint16_t>(r.status);
  e.opcode = opcode;
  e.field = static_cast<uint8_t>(r.field);
  e.context = context;
  e.value0 = value0;
  e.value1 = value1;
  e.cycles = arch::ReadCycle32() - start;
  e.phase = strata_rt_cq_phase(g_cq_tail);  // last: publishes the entry
  ++g_cq_tail;
  strata_runtime_header.commands_served = strata_runtime_header.commands_served + 1;
}

uint32_t CqHead() { return strata_runtime_header.cq_head; }
// A command is taken only when its completion (and those of the transfers in flight) will fit.
bool CqHasRoom() { return g_cq_tail + g_inflight_count + 1 - CqHead() <= STRATA_RT_CQ_ENTRIES; }

// The doorbell holds the host's sq tail. A value more than a ring ahead is a host bug: ignored.
bool CommandWaiting() {
  const uint32_t tail = kCtrl.Read32(STRATA_CTRL_DOORBELL);
  const uint32_t waiting = tail - g_sq_head;
  return waiting != 0 && waiting <= STRATA_RT_SQ_ENTRIES;
}

// ---- transfers in flight ----

// Retires the oldest transfer when its DMA is done (or waits for it): unpins, posts the completion.
bool RetireOne(bool wait) {
  if (g_inflight_count == 0) return false;
  Inflight& t = g_inflight[g_inflight_head];
  if (!wait && !dma::IsDone(kTransferQueue, t.ticket)) return false;
  const strata_status s = dma::Wait(kTransferQueue, t.ticket);
  g_alloc.Unpin(t.handle);
  g_inflight_head = (g_inflight_head + 1) % kMaxInflight;
  --g_inflight_count;
  Post(t.seq, t.opcode, t.context, s == STRATA_OK ? Result{} : Result{STRATA_INTERNAL, STRATA_FIELD_DMA}, t.start);
  return true;
}

// Commands that free or move buffers first let every transfer finish (they hold pins).
void Drain() {
  while (RetireOne(true)) {
  }
}

// ---- HBM copies ----

// Queues a memmove-correct HBM -> HBM copy on the compaction queue (chunks ordered by direction).
strata_status QueueMove(uint64_t src, uint64_t dst, uint64_t bytes, uint32_t* ticket) {
  const bool down = dst <= src;
  uint64_t done = 0;
  while (done < bytes) {
    const uint64_t n = bytes - done < kMaxDmaChunk ? bytes - done : kMaxDmaChunk;
    const uint64_t at = down ? done : bytes - done - n;
    const strata_status s = dma::Submit(
        kCompactQueue, {dma::Tier::kHbm, src + at, dma::Tier::kHbm, dst + at, static_cast<uint32_t>(n)}, ticket);
    if (s != STRATA_OK) return s;
    done += n;
  }
  return STRATA_OK;
}

// The queue runs its descriptors one after another, so the moves keep plan order.
strata_status CopyMoves(const alloc::Move* moves, uint32_t n) {
  uint32_t ticket = 0;
  bool any = false;
  for (uint32_t i = 0; i < n; ++i) {
    if (moves[i].bytes == 0 || moves[i].src_offset == moves[i].dst_offset) continue;
    const strata_status s = QueueMove(moves[i].src_offset, moves[i].dst_offset, moves[i].bytes, &ticket);
    if (s != STRATA_OK) return s;
    any = true;
  }
  return any ? dma::Wait(kCompactQueue, ticket) : STRATA_OK;
}

strata_status CopyMovesTimed(void*, const alloc::Move* moves, uint32_t n) {
  const uint64_t t0 = arch::ReadCycle();
  const strata_status s = CopyMoves(moves, n);
  g_oom_copy_cycles += arch::ReadCycle() - t0;
  return s;
}

// ---- contexts and buffers ----

Context* FindContext(uint32_t id, uint32_t* slot_out) {
  const uint32_t slot = (id & 0xffu) - 1u;
  if (id == 0 || slot >= STRATA_RT_MAX_CONTEXTS || g_contexts[slot].id != id) return nullptr;
  if (slot_out != nullptr) *slot_out = slot;
  return &g_contexts[slot];
}

// Handle -> live buffer owned by context `slot`. INVALID_ARGUMENT (forged), NOT_FOUND (stale or freed),
// PERMISSION_DENIED (another context's).
Result ResolveBuffer(uint32_t slot, uint64_t handle, alloc::BufferInfo* info) {
  const strata_status s = g_alloc.GetInfo(Handle{handle}, info);
  if (s != STRATA_OK) return {s, STRATA_FIELD_HANDLE};
  if (g_owner[alloc::Slot(Handle{handle})] != slot + 1) return {STRATA_PERMISSION_DENIED, STRATA_FIELD_HANDLE};
  return {};
}

Result FreeBuffer(Context& ctx, uint64_t handle) {
  alloc::BufferInfo info;
  const strata_status s = g_alloc.GetInfo(Handle{handle}, &info);
  if (s == STRATA_OK) {
    const strata_status f = g_alloc.Free(Handle{handle});
    if (f != STRATA_OK) return {f, STRATA_FIELD_HANDLE};
    ctx.bytes_in_use -= info.allocated_bytes;
    --ctx.buffers;
    g_owner[alloc::Slot(Handle{handle})] = 0;
  }
  if (s != STRATA_OK) return {s, STRATA_FIELD_HANDLE};
  return {};  // a completion names a field only when something was wrong
}

// ---- commands ----

Result CreateContext(const strata_cmd& cmd, uint64_t* id_out) {
  uint32_t slot = 0;
  while (slot < STRATA_RT_MAX_CONTEXTS && g_contexts[slot].id != 0) ++slot;
  if (slot == STRATA_RT_MAX_CONTEXTS) return {STRATA_RESOURCE_EXHAUSTED, STRATA_FIELD_CONTEXT_TABLE};
  const strata_cmd_create_context& c = cmd.u.create_context;
  Context& ctx = g_contexts[slot];
  const uint32_t generation = (g_context_generation[slot] + 1) & 0xffffffu;
  g_context_generation[slot] = generation == 0 ? 1 : generation;
  ctx.id = (g_context_generation[slot] << 8) | (slot + 1);
  ctx.quota = c.quota_bytes != 0 ? c.quota_bytes
              : c.quota_ppm != 0 ? g_limits.heap_bytes * c.quota_ppm / 1000000u
                                 : g_limits.heap_bytes;
  ctx.has_quota = c.quota_bytes != 0 || c.quota_ppm != 0;
  ctx.bytes_in_use = 0;
  ctx.buffers = 0;
  ++g_num_contexts;
  *id_out = ctx.id;
  return {};
}

Result DestroyContext(Context& ctx, uint32_t slot) {
  Drain();
  uint32_t n = 0;
  g_alloc.ForEachBlock([&](uint64_t, uint64_t, bool live, Handle h) {
    if (live && n < kMaxLive && g_owner[alloc::Slot(h)] == slot + 1) g_scratch[n++] = h;
  });
  for (uint32_t i = 0; i < n; ++i) {
    const Result r = FreeBuffer(ctx, g_scratch[i].value);
    if (r.status != STRATA_OK) return {STRATA_INTERNAL, STRATA_FIELD_HANDLE};  // broken invariant
  }
  ctx = Context{};
  --g_num_contexts;
  return {};
}

Result Allocate(const strata_cmd& cmd, Context& ctx, uint32_t slot, uint64_t* handle_out, uint32_t* offset_out) {
  const strata_cmd_alloc& a = cmd.u.alloc;
  const uint64_t granule = g_alloc.granule_bytes();
  const uint64_t rounded = (a.bytes + granule - 1) & ~(granule - 1);  // bytes <= heap: no overflow
  // Only a quota that was asked for refuses as a quota: a context without one that fills the heap is out of
  // device memory (the allocator says so below), not over a quota it never had (issue #32).
  if (ctx.has_quota && !strata_quota_admits(ctx.quota, ctx.bytes_in_use, rounded)) {
    return {STRATA_RESOURCE_EXHAUSTED, STRATA_FIELD_QUOTA};
  }
  Handle h;
  strata_status s;
  if (cmd.flags & STRATA_ALLOC_NO_COMPACT) {
    s = g_alloc.Allocate(a.bytes, a.alignment, &h);
  } else {
    // Defragment on OOM; pinned buffers (transfers in flight) stay where they are.
    s = g_alloc.AllocateWithCompaction(a.bytes, a.alignment, alloc::CompactionBudget{}, g_moves, kMaxMoves,
                                       CopyMovesTimed, nullptr, &h);
    if (s == STRATA_RESOURCE_EXHAUSTED && g_inflight_count != 0) {
      // The only plans may need buffers that transfers in flight hold pinned: let them finish, try again.
      // (num_failed_allocs then counts this request's first attempt.)
      Drain();
      s = g_alloc.AllocateWithCompaction(a.bytes, a.alignment, alloc::CompactionBudget{}, g_moves, kMaxMoves,
                                         CopyMovesTimed, nullptr, &h);
    }
  }
  if (s == STRATA_RESOURCE_EXHAUSTED) {
    const bool table_full = g_alloc.GetStats().live_buffers >= g_alloc.max_live_buffers();
    return {s, table_full ? STRATA_FIELD_BUFFER_TABLE : STRATA_FIELD_MEMORY};
  }
  if (s != STRATA_OK) return {s == STRATA_INVALID_ARGUMENT ? s : STRATA_INTERNAL, STRATA_FIELD_MEMORY};
  alloc::BufferInfo info;
  g_alloc.GetInfo(h, &info);
  ctx.bytes_in_use += info.allocated_bytes;
  ++ctx.buffers;
  g_owner[alloc::Slot(h)] = static_cast<uint8_t>(slot + 1);
  *handle_out = h.value;
  // For timelines; exact below 2^32 granules (1 TiB at 256 B: every HBM preset is far smaller).
  *offset_out = static_cast<uint32_t>(info.offset >> alloc::bits::Lsb32(g_alloc.granule_bytes()));  // no __udivdi3
  return {};
}

// Starts a staging <-> buffer DMA with the buffer pinned; the completion is posted when it is done.
Result StartTransfer(const strata_cmd& cmd, uint32_t slot, uint32_t start) {
  const strata_cmd_transfer& t = cmd.u.transfer;
  alloc::BufferInfo info;
  const Result r = ResolveBuffer(slot, t.handle, &info);
  if (r.status != STRATA_OK) return r;
  if (t.offset > info.requested_bytes || t.bytes > info.requested_bytes - t.offset) {
    return {STRATA_OUT_OF_RANGE, STRATA_FIELD_OFFSET};
  }
  if (g_inflight_count == kMaxInflight) RetireOne(true);
  const Handle h{t.handle};
  if (g_alloc.Pin(h) != STRATA_OK) return {STRATA_RESOURCE_EXHAUSTED, STRATA_FIELD_HANDLE};  // pin count saturated
  const uint64_t buffer = info.offset + t.offset;
  const uint64_t staging = strata_rt_staging_slot_address(g_staging, t.slot);
  const bool write = cmd.opcode == STRATA_OP_WRITE;
  uint32_t ticket = 0;
  const strata_status s = dma::Submit(
      kTransferQueue, {dma::Tier::kHbm, write ? staging : buffer, dma::Tier::kHbm, write ? buffer : staging, t.bytes},
      &ticket);
  if (s != STRATA_OK) {
    g_alloc.Unpin(h);
    return {STRATA_INTERNAL, STRATA_FIELD_DMA};
  }
  const uint32_t i = (g_inflight_head + g_inflight_count) % kMaxInflight;
  g_inflight[i] = Inflight{cmd.seq, cmd.context, ticket, start, cmd.opcode, h};
  ++g_inflight_count;
  return {};
}

Result Compact(const strata_cmd& cmd, uint64_t* bytes_out, uint32_t* moves_out) {
  Drain();
  const strata_cmd_compact& c = cmd.u.compact;
  uint64_t bytes_left = c.max_bytes == 0 ? UINT64_MAX : c.max_bytes;
  uint32_t moves_left = c.max_moves == 0 ? UINT32_MAX : c.max_moves;
  for (uint32_t round = 0; round < 4096 && bytes_left != 0 && moves_left != 0; ++round) {
    alloc::CompactionPlan plan;
    strata_status s =
        g_alloc.PlanCompaction(alloc::CompactionBudget{bytes_left, moves_left}, g_moves, kMaxMoves, &plan);
    if (s != STRATA_OK) return {s, STRATA_FIELD_BUDGET};
    if (plan.num_moves == 0) {
      g_alloc.CommitCompaction(plan);
      break;
    }
    const uint64_t t0 = arch::ReadCycle();
    s = CopyMoves(plan.moves, plan.num_moves);
    if (s != STRATA_OK) {
      // Some moves may have run: the data of those buffers is no longer where the metadata says.
      g_alloc.AbortCompaction();
      return {STRATA_DATA_LOSS, STRATA_FIELD_DMA};
    }
    s = g_alloc.CommitCompaction(plan, arch::ReadCycle() - t0);
    if (s != STRATA_OK) return {STRATA_INTERNAL, STRATA_FIELD_BUDGET};
    *bytes_out += plan.bytes;
    *moves_out += plan.num_moves;
    bytes_left = plan.bytes >= bytes_left ? 0 : bytes_left - plan.bytes;
    moves_left = plan.num_moves >= moves_left ? 0 : moves_left - plan.num_moves;
  }
  return {};
}

// C = A.B (+ C) with the tiled kernel. Runs to completion inside the command loop (it needs both DMA
// queues and the matrix unit); earlier transfers finish first, so a GEMM sees the data written before it.
Result Gemm(const strata_cmd& cmd, uint32_t slot, uint64_t* cycles_out, uint32_t* rows_out) {
  const strata_cmd_gemm& g = cmd.u.gemm;
  const bool int8 = (cmd.flags & STRATA_GEMM_FLAG_INT8) != 0;
#if STRATA_RUNTIME_FP
  const bool bf16 = g.dtype == STRATA_DTYPE_BF16;
  const bool out_bf16 = (cmd.flags & STRATA_GEMM_FLAG_OUT_BF16) != 0;
  const uint64_t operand_bytes = bf16 ? 2u : 1u;
  const uint64_t c_bytes = int8 ? 1u : out_bf16 ? 2u : 4u;
#endif
  struct Operand {
    uint64_t handle;
    uint64_t bytes;  // the matrix: Decode bounded the dimensions, so no overflow
    strata_field field;
    alloc::BufferInfo info;
#if STRATA_RUNTIME_FP
  } ops[3] = {{g.a, uint64_t{g.m} * g.k * operand_bytes, STRATA_FIELD_BUFFER_A, {}},
              {g.b, uint64_t{g.k} * g.n * operand_bytes, STRATA_FIELD_BUFFER_B, {}},
              {g.c, uint64_t{g.m} * g.n * c_bytes, STRATA_FIELD_BUFFER_C, {}}};
#else
  } ops[3] = {{g.a, uint64_t{g.m} * g.k, STRATA_FIELD_BUFFER_A, {}},
              {g.b, uint64_t{g.k} * g.n, STRATA_FIELD_BUFFER_B, {}},
              {g.c, uint64_t{g.m} * g.n * (int8 ? 1u : 4u), STRATA_FIELD_BUFFER_C, {}}};
#endif
  for (Operand& op : ops) {
    const Result r = ResolveBuffer(slot, op.handle, &op.info);
    if (r.status != STRATA_OK) return {r.status, op.field};
    if (op.info.requested_bytes < op.bytes) return {STRATA_OUT_OF_RANGE, op.field};
  }
  Drain();
  for (uint32_t i = 0; i < 3; ++i) {
    if (g_alloc.Pin(Handle{ops[i].handle}) != STRATA_OK) {
      for (uint32_t j = 0; j < i; ++j) g_alloc.Unpin(Handle{ops[j].handle});
      return {STRATA_RESOURCE_EXHAUSTED, ops[i].field};  // pin count saturated
    }
  }
  kernels::GemmParams p;
  p.a = ops[0].info.offset;
  p.b = ops[1].info.offset;
  p.c_in = p.c_out = ops[2].info.offset;
  p.m = g.m;
  p.n = g.n;
  p.k = g.k;
  p.accumulate = (cmd.flags & STRATA_GEMM_FLAG_ACCUMULATE) != 0;
  p.relu = (cmd.flags & STRATA_GEMM_FLAG_RELU) != 0;
  p.int8 = int8;
  p.round = (cmd.flags & STRATA_GEMM_FLAG_ROUND) != 0;
  p.quant_mult = g.quant_mult;
  p.quant_shift = g.quant_shift;
  kernels::GemmStats stats;
  const uint32_t rows0 = mxu::RowsStreamed();
#if STRATA_RUNTIME_FP
  const strata_status s = bf16 ? kernels::GemmBf16(p, out_bf16, &stats) : kernels::Gemm(p, &stats);
#else
  const strata_status s = kernels::Gemm(p, &stats);
#endif
  for (const Operand& op : ops) g_alloc.Unpin(Handle{op.handle});
  *cycles_out = stats.cycles;
  *rows_out = mxu::RowsStreamed() - rows0;
  if (s != STRATA_OK) return {STRATA_INTERNAL, STRATA_FIELD_MXU};  // Decode and the checks above passed
  return {};
}

void WriteStats(uint32_t seq, uint32_t context, const Context* ctx) {
  const alloc::Stats s = g_alloc.GetStats();
  strata_rt_stats out{};
  out.seq = seq;
  out.context = context;
#define STRATA_COPY_(type, name) out.name = s.name;
  STRATA_RT_STATS_FROM_ALLOCATOR_64(STRATA_COPY_)
  STRATA_RT_STATS_FROM_ALLOCATOR_32(STRATA_COPY_)
#undef STRATA_COPY_
  out.compaction_cycles += g_oom_copy_cycles;  // the allocator's wrapper does not time defragment-on-OOM copies
  out.context_bytes_in_use = ctx ? ctx->bytes_in_use : 0;
  out.context_quota_bytes = ctx ? ctx->quota : 0;
  out.contexts = g_num_contexts;
  out.context_buffers = ctx ? ctx->buffers : 0;
  // Word by word through memcpy: reading the struct through uint32_t lvalues would break strict aliasing.
  uint32_t words[sizeof(out) / 4];
  memcpy(words, &out, sizeof out);
  volatile uint32_t* dst = reinterpret_cast<volatile uint32_t*>(&g_stats);
  for (uint32_t i = 0; i < sizeof(out) / 4; ++i) dst[i] = words[i];
}

void Execute(const strata_cmd& cmd) {
  const uint32_t start = arch::ReadCycle32();
  uint64_t value0 = 0;
  uint32_t value1 = 0;
  Result r;
  const DecodeResult d = Decode(cmd, g_limits);
  uint32_t slot = 0;
  Context* ctx = nullptr;
  if (!d.ok()) {
    r = {d.status, d.field};
  } else if (cmd.context != 0 && (ctx = FindContext(cmd.context, &slot)) == nullptr) {
    r = {STRATA_NOT_FOUND, STRATA_FIELD_CONTEXT};
  } else {
    switch (cmd.opcode) {
      case STRATA_OP_NOOP:
        break;
      case STRATA_OP_CREATE_CONTEXT:
        r = CreateContext(cmd, &value0);
        break;
      case STRATA_OP_DESTROY_CONTEXT:
        r = DestroyContext(*ctx, slot);
        break;
      case STRATA_OP_ALLOC:
        r = Allocate(cmd, *ctx, slot, &value0, &value1);
        break;
      case STRATA_OP_FREE: {
        Drain();
        alloc::BufferInfo info;
        r = ResolveBuffer(slot, cmd.u.buffer.handle, &info);
        if (r.status == STRATA_OK) r = FreeBuffer(*ctx, cmd.u.buffer.handle);
        break;
      }
      case STRATA_OP_WRITE:
      case STRATA_OP_READ:
        r = StartTransfer(cmd, slot, start);
        if (r.status == STRATA_OK) return;  // completes when its DMA does
        break;
      case STRATA_OP_COMPACT:
        r = Compact(cmd, &value0, &value1);
        break;
      case STRATA_OP_STATS:
        WriteStats(cmd.seq, cmd.context, ctx);
        break;
      case STRATA_OP_GEMM:
        r = Gemm(cmd, slot, &value0, &value1);
        break;
      default:
        r = {STRATA_INTERNAL, STRATA_FIELD_OPCODE};
        break;  // Decode let an opcode through
    }
  }
  Post(cmd.seq, cmd.opcode, cmd.context, r, start, value0, value1);
}

// Copies the next command out of the ring (the host may reuse the entry once sq_head passes it).
void TakeCommand(strata_cmd* cmd) {
  const volatile uint32_t* src = reinterpret_cast<const volatile uint32_t*>(&g_sq[strata_rt_sq_slot(g_sq_head)]);
  uint32_t words[sizeof(strata_cmd) / 4];
  for (uint32_t i = 0; i < sizeof(strata_cmd) / 4; ++i) words[i] = src[i];
  memcpy(cmd, words, sizeof words);  // not through uint32_t lvalues: strict aliasing
  ++g_sq_head;
  strata_runtime_header.sq_head = g_sq_head;
}

bool TransferDone() { return g_inflight_count != 0 && dma::IsDone(kTransferQueue, g_inflight[g_inflight_head].ticket); }

void Sleep() {
  const uint32_t sources = STRATA_IRQ_DOORBELL | (g_inflight_count != 0 ? STRATA_IRQ_DMA : 0u);
  kCtrl.Write32(STRATA_CTRL_IRQ_ENABLE, sources);
  irq::ClearThenSleepUnless(sources, [] { return (CommandWaiting() && CqHasRoom()) || TransferDone(); });
  kCtrl.Write32(STRATA_CTRL_IRQ_ENABLE, 0);  // the DMA driver's own waits must not wake on the doorbell
}

// Largest HBM size such that a 64-byte read at its end is accepted by the DMA engine's range check.
uint64_t ProbeHbmBytes() {
  alignas(64) static uint8_t scratch[64];
  auto readable = [](uint64_t units) {
    return dma::Copy(kCompactQueue,
                     {dma::Tier::kHbm, (units - 1) * 64, dma::Tier::kSmem, dma::SmemOffset(scratch), 64}) == STRATA_OK;
  };
  constexpr uint64_t kMaxUnits = STRATA_RT_MAX_HBM_BYTES / 64;
  if (!readable(1)) return 0;
  uint64_t lo = 1;
  while (lo < kMaxUnits && readable(lo * 2)) lo *= 2;
  if (lo == kMaxUnits) return STRATA_RT_MAX_HBM_BYTES;  // hosts refuse more; never report more than managed
  uint64_t hi = lo * 2;                                 // not readable
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    (readable(mid) ? lo : hi) = mid;
  }
  return lo * 64;
}

void Boot() {
  volatile strata_rt_header& h = strata_runtime_header;
  h.state = STRATA_RT_BOOTING;
  dma::Init();
  mxu::Init();
  arch::DisableInterrupts();
  const uint64_t hbm = ProbeHbmBytes();
  h.magic = STRATA_PROTO_MAGIC;
  h.version_major = STRATA_PROTO_VERSION_MAJOR;
#if STRATA_RUNTIME_FP
  h.version_minor = STRATA_PROTO_VERSION_MINOR;
#else
  h.version_minor = STRATA_PROTO_MINOR_GEMM_DTYPE - 1;  // no dtype: a host sends runtime.elf no bf16 GEMM
#endif
  h.header_bytes = sizeof(strata_rt_header);
  h.sq_address = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(&g_sq[0]));
  h.sq_entries = STRATA_RT_SQ_ENTRIES;
  h.cq_address = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(&g_cq[0]));
  h.cq_entries = STRATA_RT_CQ_ENTRIES;
  h.stats_address = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(&g_stats));
  h.max_contexts = STRATA_RT_MAX_CONTEXTS;
  h.hbm_capacity_bytes = hbm;
  h.staging_slots = STRATA_RT_STAGING_SLOTS;
  h.staging_slot_bytes = STRATA_RT_STAGING_SLOT_BYTES;
  h.max_live_buffers = kMaxLive;
  h.cq_head = 0;
  h.sq_head = 0;
  h.commands_served = 0;
  h.mxu_array_n = mxu::ArraySize();
  if (hbm < STRATA_RT_MIN_HBM_BYTES) {  // too small to hold the staging slots and a heap
    console::Printf("runtime: %u KiB of HBM is too little: the runtime needs at least %u KiB\n",
                    static_cast<uint32_t>(hbm >> 10), static_cast<uint32_t>(STRATA_RT_MIN_HBM_BYTES >> 10));
    h.state = STRATA_RT_FAILED;
    for (;;) arch::WaitForInterrupt();
  }
  g_staging = (hbm - kStagingBytes) & ~uint64_t{4095};
  alloc::Options options;
  options.capacity_bytes = g_staging;
  options.granule_bytes = alloc::kDefaultGranuleBytes;
  if (g_alloc.Init(g_nodes.nodes, Storage::kNumNodes, options) != STRATA_OK) {
    console::Puts("runtime: the allocator refused the heap\n");
    h.state = STRATA_RT_FAILED;
    for (;;) arch::WaitForInterrupt();
  }
  g_limits.heap_bytes = g_alloc.capacity_bytes();
  h.heap_bytes = g_limits.heap_bytes;
  h.staging_address = g_staging;
  h.granule_bytes = g_alloc.granule_bytes();
  // The doorbell may hold a value from before a reset: commands count from zero.
  kCtrl.Write32(STRATA_CTRL_DOORBELL, 0);
  h.state = STRATA_RT_READY;
}

}  // namespace

#if !defined(__riscv)
HostView ResetForHost() {
  memset(const_cast<strata_rt_header*>(&strata_runtime_header), 0, sizeof strata_runtime_header);
  memset(const_cast<strata_cmd*>(g_sq), 0, sizeof g_sq);
  memset(const_cast<strata_cpl*>(g_cq), 0, sizeof g_cq);
  memset(const_cast<strata_rt_stats*>(&g_stats), 0, sizeof g_stats);
  memset(g_owner, 0, sizeof g_owner);
  for (Context& c : g_contexts) c = Context{};
  memset(g_context_generation, 0, sizeof g_context_generation);
  g_num_contexts = 0;
  for (Inflight& t : g_inflight) t = Inflight{};
  g_inflight_head = g_inflight_count = 0;
  g_sq_head = g_cq_tail = 0;
  g_limits = DecodeLimits{};
  g_staging = 0;
  g_oom_copy_cycles = 0;
  return {&strata_runtime_header, g_sq, g_cq, &g_stats};
}
#endif

void Run() {
  Boot();
  for (;;) {
    bool progress = false;
    while (RetireOne(false)) progress = true;
    while (CommandWaiting() && CqHasRoom()) {
      strata_cmd cmd;
      TakeCommand(&cmd);
      Execute(cmd);
      progress = true;
      while (RetireOne(false)) {
      }
    }
    if (!progress) Sleep();
  }
}

}  // namespace strata::runtime
