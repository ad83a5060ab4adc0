// libFuzzer target: the whole device runtime (firmware/runtime/runtime.cc, compiled unchanged for the host, with
// its real DMA and matrix-unit drivers and the host control core, firmware/arch/host) serving a fuzzed stream of
// host commands through its real rings and doorbell, over the host tests' register-level chip model
// (tests/firmware/host/host_device.h: HBM as a byte array, DMA queues that run descriptors in order when the host
// lets time pass), and a GEMM kernel stand-in that checks its operands and fills C with a known pattern.
//
// This file is also the host. It keeps a model of the contexts, buffers and buffer contents and checks:
// - every command it built valid gets its exact status (ALLOC: OK or an allowed RESOURCE_EXHAUSTED, QUOTA
//   exactly when the model says so); a READ returns every byte the model knows (through compactions,
//   defragment-on-OOM and transfers in flight); STATS agrees with the model;
// - a raw command (64 fuzzed bytes, or a valid one with one field broken) changes nothing unless the model
//   allows it: an OK FREE, READ, WRITE or GEMM must name live buffers of its context, in range;
// - at every idle point: the allocator's Check(), its stats against the model, the context table.
//
// The runtime's file-local state is reached by including runtime.cc (for the checks above); runtime::ResetForHost
// resets it before each input as a device reset clears .bss. Run() is left by an exception from wfi when the
// input is spent.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "arch/host/arch_host.h"
#include "fuzz_check.h"
#include "host_device.h"
#include "runtime/runtime.cc"  // NOLINT(bugprone-suspicious-include): see above

namespace strata {
namespace fuzz_host {

constexpr uint32_t kSlotBytes = STRATA_RT_STAGING_SLOT_BYTES;

// ---- the hardware: the host tests' register-level chip model under the real drivers ----

host_model::HostDevice* g_device = nullptr;

uint8_t GemmByte(const kernels::GemmParams& p) {
  return static_cast<uint8_t>(p.m * 7 + p.n * 13 + p.k * 29 + (p.int8 ? 1 : 0) + (p.relu ? 2 : 0));
}

void HostTurn();  // below: the host model, run whenever the command loop sleeps

// wfi: the idle command loop (doorbell enabled) or a halted runtime gives the host its turn; a driver waiting for
// its DMA or matrix unit lets the device advance until it is woken.
void OnWfi() {
  const bool idle = (g_device->irq_enable() & STRATA_IRQ_DOORBELL) != 0;
  if (idle || strata_runtime_header.state == STRATA_RT_FAILED) {
    HostTurn();
    return;
  }
  FUZZ_CHECK(g_device->RunUntilWake(), "a driver sleeps with nothing queued that could wake it");
}

}  // namespace fuzz_host

namespace kernels {
// Checks what the runtime promises the kernel (operands inside the heap, C apart from A and B), then writes C.
strata_status Gemm(const GemmParams& p, GemmStats* stats) {
  const uint64_t heap = runtime::g_limits.heap_bytes;
  FUZZ_CHECK(p.m != 0 && p.n != 0 && p.k != 0 && p.c_in == p.c_out);
  const uint64_t a_bytes = uint64_t{p.m} * p.k, b_bytes = uint64_t{p.k} * p.n;
  const uint64_t c_bytes = uint64_t{p.m} * p.n * (p.int8 ? 1 : 4);
  FUZZ_CHECK(p.a + a_bytes <= heap && p.b + b_bytes <= heap && p.c_out + c_bytes <= heap,
             "GEMM operand outside the heap");
  FUZZ_CHECK(p.c_out >= p.a + a_bytes || p.a >= p.c_out + c_bytes, "C overlaps A");
  FUZZ_CHECK(p.c_out >= p.b + b_bytes || p.b >= p.c_out + c_bytes, "C overlaps B");
  memset(fuzz_host::g_device->hbm().data() + p.c_out, fuzz_host::GemmByte(p), c_bytes);
  stats->cycles = c_bytes;
  fuzz_host::g_device->AddRowsStreamed(p.m);
  return STRATA_OK;
}
}  // namespace kernels

namespace fuzz_host {

// ---- the host model ----

struct Input {
  const uint8_t* data;
  size_t size, pos = 0;
  bool Empty() const { return pos >= size; }
  uint8_t U8() { return pos < size ? data[pos++] : 0; }
  uint32_t U16() { return U8() | uint32_t{U8()} << 8; }
  uint32_t U32() { return U16() | U16() << 16; }
  uint64_t U64() { return U32() | uint64_t{U32()} << 32; }
};

struct Buffer {
  uint32_t ctx = 0;
  uint64_t bytes = 0;
  std::vector<uint8_t> data, known;  // what the host last wrote, and whether it knows each byte
};

struct Ctx {
  uint64_t quota = 0, in_use = 0;
  uint32_t buffers = 0;
  bool alloc_pending = false;
};

enum class Expect { kOk, kAllocOutcome, kCreateOutcome, kFail, kRaw };

struct Pending {
  strata_cmd cmd;
  Expect expect = Expect::kOk;
  strata_status status = STRATA_OK;       // kFail: the status that must come back
  std::vector<uint8_t> want, want_known;  // READ: the bytes the buffer must hold
};

struct Host {
  Input in;
  uint32_t sq_tail = 0, cq_head = 0, seq = 0;
  uint64_t heap = 0, granule = 1, staging = 0;
  std::map<uint64_t, Buffer> buffers;  // live, by handle
  std::map<uint32_t, Ctx> ctxs;        // live, by id
  std::vector<uint64_t> dead_handles;
  std::vector<uint32_t> dead_ctxs;
  std::map<uint32_t, Pending> outstanding;  // by seq
  bool slot_busy[STRATA_RT_STAGING_SLOTS] = {};
  bool create_pending = false;
  bool raw_outstanding = false;  // a raw command goes alone: its effect is known only from its completion
  bool booted = false;
  uint32_t idle_turns = 0;
  uint64_t checks = 0;
};
Host* g_host = nullptr;
const bool g_verbose = getenv("STRATA_FUZZ_VERBOSE") != nullptr;  // one line per completion on stderr

struct Stop {};  // thrown out of Run() when the input is spent and the runtime is idle

uint64_t Rounded(uint64_t bytes, uint64_t granule) { return (bytes + granule - 1) / granule * granule; }

template <typename M>
typename M::iterator Pick(M& m, uint32_t r) {
  auto it = m.begin();
  std::advance(it, r % m.size());
  return it;
}

// The allocator, the context table and the model agree (only when no command is outstanding). Check() walks the
// whole node pool, so it runs at every 8th idle point and at the end.
void CheckIdle(Host& h, bool full) {
  if (full || h.checks % 8 == 0) {
    const alloc::CheckResult c = runtime::g_alloc.Check();
    FUZZ_CHECK(c.ok(), std::string("allocator Check(): ") + (c.invariant ? c.invariant : "?"));
  }
  const alloc::Stats s = runtime::g_alloc.GetStats();
  uint64_t in_use = 0, buffers = 0;
  for (const auto& [id, ctx] : h.ctxs) {
    in_use += ctx.in_use;
    buffers += ctx.buffers;
    uint32_t slot = 0;
    const runtime::Context* rc = runtime::FindContext(id, &slot);
    FUZZ_CHECK(rc != nullptr, "a live context is missing from the table");
    FUZZ_CHECK(rc->bytes_in_use == ctx.in_use && rc->buffers == ctx.buffers && rc->quota == ctx.quota,
               "context " + std::to_string(id) + ": " + std::to_string(rc->bytes_in_use) + " bytes in " +
                   std::to_string(rc->buffers) + " buffers, the model says " + std::to_string(ctx.in_use) + " in " +
                   std::to_string(ctx.buffers));
  }
  FUZZ_CHECK(runtime::g_num_contexts == h.ctxs.size());
  FUZZ_CHECK(s.bytes_in_use == in_use && s.live_buffers == buffers && h.buffers.size() == buffers,
             "allocator: " + std::to_string(s.bytes_in_use) + " bytes in " + std::to_string(s.live_buffers) +
                 " buffers, the model " + std::to_string(in_use) + " in " + std::to_string(buffers));
  FUZZ_CHECK(s.bytes_free == h.heap - in_use);
  for (const auto& [handle, b] : h.buffers) {
    alloc::BufferInfo info;
    FUZZ_CHECK(runtime::g_alloc.GetInfo(alloc::Handle{handle}, &info) == STRATA_OK, "a live buffer is gone");
    FUZZ_CHECK(
        info.requested_bytes == b.bytes && runtime::g_owner[static_cast<uint32_t>(handle) - 1] == (b.ctx & 0xffu),
        "buffer owner or size");
  }
  FUZZ_CHECK(runtime::g_inflight_count == 0);
  ++h.checks;
}

uint32_t Submit(Host& h, strata_cmd cmd, Pending p) {
  cmd.seq = ++h.seq;
  const volatile uint32_t* src = reinterpret_cast<const uint32_t*>(&cmd);
  volatile uint32_t* dst = reinterpret_cast<volatile uint32_t*>(&runtime::g_sq[strata_rt_sq_slot(h.sq_tail)]);
  for (uint32_t i = 0; i < sizeof cmd / 4; ++i) dst[i] = src[i];
  ++h.sq_tail;
  p.cmd = cmd;
  h.outstanding[cmd.seq] = std::move(p);
  return cmd.seq;
}

strata_cmd Command(uint8_t opcode, uint32_t context) {
  strata_cmd c{};
  c.opcode = opcode;
  c.context = context;
  return c;
}

// An OK completion for a command the model did not build: is it one the model allows? Then apply it.
void ApplyRaw(Host& h, const strata_cmd& cmd, const strata_cpl& cpl) {
  const auto ctx = h.ctxs.find(cmd.context);
  auto owned = [&](uint64_t handle) {
    const auto b = h.buffers.find(handle);
    return b != h.buffers.end() && b->second.ctx == cmd.context ? &b->second : nullptr;
  };
  switch (cmd.opcode) {
    case STRATA_OP_CREATE_CONTEXT: {
      Ctx c;
      const strata_cmd_create_context& a = cmd.u.create_context;
      c.quota = a.quota_bytes ? a.quota_bytes : a.quota_ppm ? h.heap * a.quota_ppm / 1000000u : h.heap;
      h.ctxs[static_cast<uint32_t>(cpl.value0)] = c;
      break;
    }
    case STRATA_OP_DESTROY_CONTEXT:
      FUZZ_CHECK(ctx != h.ctxs.end(), "DESTROY_CONTEXT of an unknown context succeeded");
      for (auto it = h.buffers.begin(); it != h.buffers.end();) {
        it = it->second.ctx == cmd.context ? h.buffers.erase(it) : std::next(it);
      }
      h.ctxs.erase(ctx);
      break;
    case STRATA_OP_ALLOC: {
      FUZZ_CHECK(ctx != h.ctxs.end(), "ALLOC in an unknown context succeeded");
      const uint64_t rounded = Rounded(cmd.u.alloc.bytes, h.granule);
      FUZZ_CHECK(rounded <= ctx->second.quota - ctx->second.in_use, "ALLOC beyond the quota succeeded");
      Buffer& b = h.buffers[cpl.value0];
      b.ctx = cmd.context;
      b.bytes = cmd.u.alloc.bytes;
      b.data.assign(b.bytes, 0);
      b.known.assign(b.bytes, 0);
      ctx->second.in_use += rounded;
      ++ctx->second.buffers;
      break;
    }
    case STRATA_OP_FREE: {
      FUZZ_CHECK(owned(cmd.u.buffer.handle) != nullptr, "FREE of a buffer not live in the context succeeded");
      const auto b = h.buffers.find(cmd.u.buffer.handle);
      ctx->second.in_use -= Rounded(b->second.bytes, h.granule);
      --ctx->second.buffers;
      h.buffers.erase(b);
      break;
    }
    case STRATA_OP_WRITE:
    case STRATA_OP_READ: {
      const strata_cmd_transfer& t = cmd.u.transfer;
      Buffer* b = owned(t.handle);
      FUZZ_CHECK(b != nullptr, "a transfer on a buffer not live in the context succeeded");
      FUZZ_CHECK(t.offset <= b->bytes && t.bytes <= b->bytes - t.offset, "a transfer out of range succeeded");
      if (cmd.opcode == STRATA_OP_WRITE) std::fill_n(b->known.begin() + t.offset, t.bytes, 0);  // slot unknown
      break;
    }
    case STRATA_OP_GEMM: {
      const strata_cmd_gemm& g = cmd.u.gemm;
      Buffer *a = owned(g.a), *bb = owned(g.b), *c = owned(g.c);
      FUZZ_CHECK(a && bb && c && g.c != g.a && g.c != g.b, "a GEMM on buffers not live in the context succeeded");
      const bool int8 = cmd.flags & STRATA_GEMM_FLAG_INT8;
      const uint64_t c_bytes = uint64_t{g.m} * g.n * (int8 ? 1 : 4);
      FUZZ_CHECK(a->bytes >= uint64_t{g.m} * g.k && bb->bytes >= uint64_t{g.k} * g.n && c->bytes >= c_bytes,
                 "a GEMM on too small buffers succeeded");
      kernels::GemmParams p;
      p.m = g.m, p.n = g.n, p.k = g.k, p.int8 = int8, p.relu = cmd.flags & STRATA_GEMM_FLAG_RELU;
      std::fill_n(c->data.begin(), c_bytes, GemmByte(p));
      std::fill_n(c->known.begin(), c_bytes, 1);
      break;
    }
    default:
      break;
  }
}

void OnCompletion(Host& h, const strata_cpl& cpl) {
  const auto it = h.outstanding.find(cpl.seq);
  FUZZ_CHECK(it != h.outstanding.end(),
             "a completion for seq " + std::to_string(cpl.seq) + " never submitted (or twice)");
  Pending p = std::move(it->second);
  h.outstanding.erase(it);
  const strata_cmd& cmd = p.cmd;
  const auto status = static_cast<strata_status>(cpl.status);
  const std::string what = "opcode " + std::to_string(cmd.opcode) + " seq " + std::to_string(cmd.seq) + ": status " +
                           strata_status_name(status) + " field " + std::to_string(cpl.field);
  if (g_verbose) fprintf(stderr, "runtime_fuzz: %s%s\n", what.c_str(), p.expect == Expect::kRaw ? " (raw)" : "");
  FUZZ_CHECK(cpl.opcode == cmd.opcode && cpl.context == cmd.context, what);
  FUZZ_CHECK((status == STRATA_OK) == (cpl.field == STRATA_FIELD_NONE), what);
  if (cmd.opcode == STRATA_OP_WRITE || cmd.opcode == STRATA_OP_READ) {
    if (cmd.u.transfer.slot < STRATA_RT_STAGING_SLOTS && p.expect != Expect::kRaw) {
      h.slot_busy[cmd.u.transfer.slot] = false;
    }
  }
  switch (p.expect) {
    case Expect::kOk:
      FUZZ_CHECK(status == STRATA_OK, what);
      if (cmd.opcode == STRATA_OP_READ) {
        const uint8_t* got = g_device->hbm().data() + h.staging + uint64_t{cmd.u.transfer.slot} * kSlotBytes;
        for (size_t i = 0; i < p.want.size(); ++i) {
          FUZZ_CHECK(!p.want_known[i] || got[i] == p.want[i],
                     "READ byte " + std::to_string(cmd.u.transfer.offset + i) + " of buffer " +
                         std::to_string(cmd.u.transfer.handle) + " is " + std::to_string(got[i]) + ", was written " +
                         std::to_string(p.want[i]));
        }
      }
      if (cmd.opcode == STRATA_OP_STATS && runtime::g_stats.seq == cmd.seq) {
        const strata_rt_stats& s = const_cast<const strata_rt_stats&>(runtime::g_stats);
        FUZZ_CHECK(s.context == cmd.context && s.bytes_limit == h.heap, what);
        FUZZ_CHECK(s.bytes_in_use + s.bytes_free == h.heap && s.largest_free_block_bytes <= s.bytes_free, what);
      }
      break;
    case Expect::kAllocOutcome: {
      Ctx& ctx = h.ctxs.at(cmd.context);
      ctx.alloc_pending = false;
      if (status == STRATA_OK) {
        FUZZ_CHECK(h.buffers.count(cpl.value0) == 0, "ALLOC returned a live handle");
        p.expect = Expect::kRaw;  // apply it
        ApplyRaw(h, cmd, cpl);
      } else {
        FUZZ_CHECK(status == STRATA_RESOURCE_EXHAUSTED &&
                       (cpl.field == STRATA_FIELD_MEMORY || cpl.field == STRATA_FIELD_BUFFER_TABLE),
                   what);
      }
      break;
    }
    case Expect::kCreateOutcome:
      h.create_pending = false;
      if (p.status != STRATA_OK) {
        FUZZ_CHECK(status == STRATA_RESOURCE_EXHAUSTED && cpl.field == STRATA_FIELD_CONTEXT_TABLE, what);
      } else {
        FUZZ_CHECK(status == STRATA_OK && h.ctxs.count(static_cast<uint32_t>(cpl.value0)) == 0, what);
        ApplyRaw(h, cmd, cpl);
      }
      break;
    case Expect::kFail:
      FUZZ_CHECK(status == p.status, what + ", want " + strata_status_name(p.status));
      break;
    case Expect::kRaw:
      if (status == STRATA_OK) ApplyRaw(h, cmd, cpl);
      break;
  }
}

void Consume(Host& h, uint32_t max) {
  volatile strata_rt_header& hdr = strata_runtime_header;
  for (uint32_t n = 0; n < max; ++n) {
    const volatile strata_cpl& e = runtime::g_cq[strata_rt_cq_slot(h.cq_head)];
    if (e.phase != strata_rt_cq_phase(h.cq_head)) break;
    strata_cpl cpl;
    memcpy(&cpl, const_cast<const strata_cpl*>(&e), sizeof cpl);
    ++h.cq_head;
    hdr.cq_head = h.cq_head;
    OnCompletion(h, cpl);
  }
}

// A raw command: 64 input bytes with, as the input says, the opcode, the context and the handles replaced by
// ones the model knows (live, destroyed, another context's), the reserved words cleared. Goes alone.
bool BuildRaw(Host& h) {
  strata_cmd cmd;
  for (uint32_t i = 0; i < sizeof cmd; ++i) reinterpret_cast<uint8_t*>(&cmd)[i] = h.in.U8();
  const uint8_t fix = h.in.U8(), pick = h.in.U8();
  if (!h.outstanding.empty()) return false;
  if (fix & 1) cmd.opcode %= STRATA_OP_COUNT + 1;
  if (fix & 2) cmd.reserved0 = 0, cmd.reserved1 = 0;
  if (fix & 4) cmd.flags &= 0xf;
  if ((fix & 8) && !h.ctxs.empty()) cmd.context = Pick(h.ctxs, pick)->first;
  if ((fix & 16) && !h.dead_ctxs.empty()) cmd.context = h.dead_ctxs[pick % h.dead_ctxs.size()];
  uint64_t* handles[3] = {&cmd.u.gemm.a, &cmd.u.gemm.b, &cmd.u.gemm.c};  // u.buffer / u.transfer start at a
  for (uint32_t i = 0; i < 3; ++i) {
    const uint32_t how = (fix >> (5 + i)) & 1;
    if (how && !h.buffers.empty()) *handles[i] = Pick(h.buffers, pick + i * 7)->first;
    if (how && h.buffers.empty() && !h.dead_handles.empty()) *handles[i] = h.dead_handles[pick % h.dead_handles.size()];
  }
  if (cmd.opcode == STRATA_OP_WRITE || cmd.opcode == STRATA_OP_READ) {
    cmd.u.transfer.offset %= uint64_t{1} << (pick % 40);
    if (fix & 0x80) cmd.u.transfer.bytes = 1 + cmd.u.transfer.bytes % kSlotBytes, cmd.u.transfer.slot &= 3;
  }
  Pending p;
  p.expect = Expect::kRaw;
  Submit(h, cmd, std::move(p));
  h.raw_outstanding = true;
  return false;
}

// Builds one command from the input and the model; false ends the batch (the command could not go now).
bool BuildOne(Host& h) {
  const uint8_t op = h.in.U8();
  if (h.raw_outstanding || h.sq_tail - strata_runtime_header.sq_head >= STRATA_RT_SQ_ENTRIES) return false;
  if (op >= 0xe0) return BuildRaw(h);
  Pending p;
  strata_cmd cmd{};
  const bool have_ctx = !h.ctxs.empty();
  auto pick_ctx = [&]() { return Pick(h.ctxs, h.in.U8()); };
  // Buffers of one context.
  auto pick_buffer = [&](uint32_t ctx) -> std::map<uint64_t, Buffer>::iterator {
    std::vector<std::map<uint64_t, Buffer>::iterator> mine;
    for (auto it = h.buffers.begin(); it != h.buffers.end(); ++it) {
      if (it->second.ctx == ctx) mine.push_back(it);
    }
    const uint8_t r = h.in.U8();
    return mine.empty() ? h.buffers.end() : mine[r % mine.size()];
  };
  switch (op % 12) {
    case 0:
      cmd = Command(STRATA_OP_NOOP, 0);
      break;
    case 1: {
      if (h.create_pending) return false;
      cmd = Command(STRATA_OP_CREATE_CONTEXT, 0);
      const uint8_t q = h.in.U8();
      if (q % 3 == 1) cmd.u.create_context.quota_bytes = 1 + h.in.U32() % h.heap;
      if (q % 3 == 2) cmd.u.create_context.quota_ppm = 1 + h.in.U32() % 1000000u;
      p.expect = Expect::kCreateOutcome;
      p.status = h.ctxs.size() == STRATA_RT_MAX_CONTEXTS ? STRATA_RESOURCE_EXHAUSTED : STRATA_OK;
      h.create_pending = true;
      break;
    }
    case 2: {
      if (!have_ctx) return true;
      auto ctx = pick_ctx();
      if (ctx->second.alloc_pending) return false;
      cmd = Command(STRATA_OP_DESTROY_CONTEXT, ctx->first);
      for (auto it = h.buffers.begin(); it != h.buffers.end();) {
        if (it->second.ctx != ctx->first) {
          ++it;
          continue;
        }
        h.dead_handles.push_back(it->first);
        it = h.buffers.erase(it);
      }
      h.dead_ctxs.push_back(ctx->first);
      h.ctxs.erase(ctx);
      break;
    }
    case 3:
    case 4: {
      if (!have_ctx) return true;
      auto ctx = pick_ctx();
      if (ctx->second.alloc_pending) return false;
      cmd = Command(STRATA_OP_ALLOC, ctx->first);
      const uint8_t shape = h.in.U8();
      cmd.u.alloc.bytes = 1 + (h.in.U16() << (shape % 6));
      if (shape & 0x40) cmd.u.alloc.alignment = uint64_t{1} << (h.in.U8() % 16);
      if (shape & 0x80) cmd.flags = STRATA_ALLOC_NO_COMPACT;
      const uint64_t rounded = Rounded(cmd.u.alloc.bytes, h.granule);
      if (rounded > ctx->second.quota - ctx->second.in_use) {
        p.expect = Expect::kFail;  // checked before the heap is looked at
        p.status = STRATA_RESOURCE_EXHAUSTED;
      } else {
        p.expect = Expect::kAllocOutcome;
        ctx->second.alloc_pending = true;
      }
      break;
    }
    case 5: {
      if (!have_ctx) return true;
      auto ctx = pick_ctx();
      auto b = pick_buffer(ctx->first);
      if (b == h.buffers.end()) return true;
      cmd = Command(STRATA_OP_FREE, ctx->first);
      cmd.u.buffer.handle = b->first;
      ctx->second.in_use -= Rounded(b->second.bytes, h.granule);
      --ctx->second.buffers;
      h.dead_handles.push_back(b->first);
      h.buffers.erase(b);
      break;
    }
    case 6:
    case 7:
    case 8: {
      if (!have_ctx) return true;
      auto ctx = pick_ctx();
      auto b = pick_buffer(ctx->first);
      if (b == h.buffers.end()) return true;
      uint32_t slot = h.in.U8() % STRATA_RT_STAGING_SLOTS;
      if (h.slot_busy[slot]) return false;
      Buffer& buf = b->second;
      const bool write = op % 12 != 8;
      cmd = Command(write ? STRATA_OP_WRITE : STRATA_OP_READ, ctx->first);
      strata_cmd_transfer& t = cmd.u.transfer;
      t.handle = b->first;
      t.slot = slot;
      t.offset = h.in.U32() % buf.bytes;
      // Mostly short transfers (every byte is written and compared), now and then a whole slot.
      const uint32_t most = h.in.U8() % 8 == 0 ? kSlotBytes : 4096;
      t.bytes = static_cast<uint32_t>(1 + h.in.U32() % std::min<uint64_t>(buf.bytes - t.offset, most));
      uint8_t* staging = g_device->hbm().data() + h.staging + uint64_t{slot} * kSlotBytes;
      if (write) {
        const uint8_t salt = static_cast<uint8_t>(h.seq * 31 + 7);
        for (uint32_t i = 0; i < t.bytes; ++i) staging[i] = static_cast<uint8_t>(salt + i * 13 + (i >> 8));
        std::copy_n(staging, t.bytes, buf.data.begin() + t.offset);
        std::fill_n(buf.known.begin() + t.offset, t.bytes, 1);
      } else {
        p.want.assign(buf.data.begin() + t.offset, buf.data.begin() + t.offset + t.bytes);
        p.want_known.assign(buf.known.begin() + t.offset, buf.known.begin() + t.offset + t.bytes);
      }
      h.slot_busy[slot] = true;
      break;
    }
    case 9: {
      if (!have_ctx) return true;
      auto ctx = pick_ctx();
      auto a = pick_buffer(ctx->first), b = pick_buffer(ctx->first), c = pick_buffer(ctx->first);
      if (a == h.buffers.end() || c == a || c == b) return true;
      cmd = Command(STRATA_OP_GEMM, ctx->first);
      strata_cmd_gemm& g = cmd.u.gemm;
      g.a = a->first, g.b = b->first, g.c = c->first;
      const uint8_t f = h.in.U8();
      const bool int8 = f & 1;
      cmd.flags = static_cast<uint8_t>((int8 ? STRATA_GEMM_FLAG_INT8 : 0) | (f & 2 ? STRATA_GEMM_FLAG_RELU : 0));
      if (int8) g.quant_mult = 1, g.quant_shift = f >> 4;
      // Shapes that fit: k from A and B, n from B and C.
      const uint64_t elem = int8 ? 1 : 4;
      g.m = 1 + h.in.U8() % 64;
      g.k = static_cast<uint32_t>(std::max<uint64_t>(1, a->second.bytes / g.m) % 4096);
      g.k = std::max<uint32_t>(g.k, 1);
      g.n = static_cast<uint32_t>(std::min<uint64_t>(b->second.bytes / g.k, c->second.bytes / (uint64_t{g.m} * elem)));
      if (g.n == 0 || uint64_t{g.m} * g.k > a->second.bytes) return true;
      g.n = std::min<uint32_t>(g.n, 1 + h.in.U16());
      kernels::GemmParams gp;
      gp.m = g.m, gp.n = g.n, gp.k = g.k, gp.int8 = int8, gp.relu = f & 2;
      std::fill_n(c->second.data.begin(), uint64_t{g.m} * g.n * elem, GemmByte(gp));
      std::fill_n(c->second.known.begin(), uint64_t{g.m} * g.n * elem, 1);
      break;
    }
    case 10: {
      cmd = Command(STRATA_OP_COMPACT, 0);
      if (!have_ctx) return true;
      cmd.context = pick_ctx()->first;
      const uint8_t budget = h.in.U8();
      if (budget & 1) cmd.u.compact.max_bytes = uint64_t{h.in.U16()} << 6;
      if (budget & 2) cmd.u.compact.max_moves = budget >> 2;
      break;
    }
    case 11: {
      cmd = Command(STRATA_OP_STATS, 0);
      if (have_ctx && (h.in.U8() & 1)) cmd.context = pick_ctx()->first;
      break;
    }
  }
  Submit(h, cmd, std::move(p));
  return true;
}

// The host's turn, whenever the control core sleeps: take completions, let DMA progress, send a batch.
void HostTurn() {
  Host& h = *g_host;
  volatile strata_rt_header& hdr = strata_runtime_header;
  if (!h.booted) {
    h.booted = true;
    FUZZ_CHECK(hdr.hbm_capacity_bytes == g_device->hbm_bytes() / 64 * 64,
               "probed " + std::to_string(hdr.hbm_capacity_bytes) + " bytes of HBM, there are " +
                   std::to_string(g_device->hbm_bytes()));
    if (g_device->hbm_bytes() < 2 * runtime::kStagingBytes) {
      FUZZ_CHECK(hdr.state == STRATA_RT_FAILED, "too little HBM, yet the runtime did not fail");
      throw Stop{};
    }
    FUZZ_CHECK(hdr.state == STRATA_RT_READY && hdr.magic == STRATA_PROTO_MAGIC);
    h.heap = hdr.heap_bytes;
    h.granule = hdr.granule_bytes;
    h.staging = hdr.staging_address;
    FUZZ_CHECK(h.heap != 0 && h.heap <= h.staging && h.staging + runtime::kStagingBytes <= g_device->hbm_bytes());
  }
  FUZZ_CHECK(hdr.state == STRATA_RT_READY);
  const bool spent = h.in.Empty();
  // Completions: all of them, or only a few so that the runtime meets a full completion ring.
  const uint8_t take = h.in.U8();
  Consume(h, spent || take % 4 != 0 ? UINT32_MAX : take % 8);
  // Time passes: some (or all) queued DMA descriptors complete.
  const uint8_t progress = h.in.U8();
  for (uint32_t n = spent || progress % 4 == 3 ? UINT32_MAX : progress % 4; n != 0 && g_device->Step(); --n) {
  }
  if (h.outstanding.empty()) {
    h.raw_outstanding = false;
    CheckIdle(h, spent);
    if (spent) throw Stop{};
  }
  if (spent) {
    FUZZ_CHECK(++h.idle_turns < 1000, std::to_string(h.outstanding.size()) + " commands outstanding, no progress");
    return;
  }
  for (uint32_t n = 1 + h.in.U8() % 8; n != 0 && !h.in.Empty(); --n) {
    if (!BuildOne(h)) break;
  }
  g_device->RingDoorbell(h.sq_tail);
}

}  // namespace fuzz_host
}  // namespace strata

// Input: two bytes choose the HBM size (0xff first: too small to boot), the rest drives the host's turns.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strata::fuzz_host;
  if (size < 2) return 0;
  const uint64_t hbm =
      data[0] == 0xff ? (uint64_t{1} << 20) + data[1] * 4099u : (uint64_t{2} << 20) + data[0] * 16384u + data[1];
  // A device reset: the chip, the control core's CSRs and the runtime's .bss.
  static strata::host_model::HostDevice device;
  strata::host_model::HostDevice::Options options;
  options.hbm_bytes = hbm;
  device.Reset(options);
  g_device = &device;
  strata::arch::host::Reset();
  strata::arch::host::Csrs().cycles_per_read = 3;
  strata::arch::host::SetWfiHook(OnWfi);
  strata::runtime::ResetForHost();
  Host host;
  host.in = Input{data + 2, size - 2};
  g_host = &host;
  strata::hal::SetMockDevice(&device);
  try {
    strata::runtime::Run();
  } catch (const Stop&) {
  }
  strata::hal::SetMockDevice(nullptr);
  strata::arch::host::Reset();
  g_host = nullptr;
  g_device = nullptr;
  return 0;
}
