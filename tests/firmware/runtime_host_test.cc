// The device runtime (firmware/runtime/runtime.cc) end to end on the host, without Verilator: the real command
// loop, drivers and allocator over the chip model (host/host_device.h), driven through its rings as a host driver
// would. Expectations come from the protocol (strata/protocol.h: statuses, fields, quota rules, ring order) and
// from the model's HBM, never from the runtime's own state.
#include "runtime_host.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

#include "strata/protocol.h"
#include "strata/status.h"

namespace strata {
namespace {

using host_model::HostDevice;
using host_model::HostRuntime;

constexpr uint64_t MiB = uint64_t{1} << 20;

HostDevice::Options Hbm(uint64_t bytes) {
  HostDevice::Options o;
  o.hbm_bytes = bytes;
  return o;
}

// Readable failures: "status NOT_FOUND field 4".
std::string Describe(const strata_cpl& c) {
  return std::string("status ") + strata_status_name(static_cast<strata_status>(c.status)) + " field " +
         std::to_string(c.field);
}
#define EXPECT_CPL(cpl, st, fld)                \
  do {                                          \
    const strata_cpl c_ = (cpl);                \
    EXPECT_EQ(c_.status, (st)) << Describe(c_); \
    EXPECT_EQ(c_.field, (fld)) << Describe(c_); \
  } while (0)

strata_cmd CreateContext(uint64_t quota_bytes = 0, uint32_t quota_ppm = 0) {
  strata_cmd c = HostRuntime::Command(STRATA_OP_CREATE_CONTEXT);
  c.u.create_context.quota_bytes = quota_bytes;
  c.u.create_context.quota_ppm = quota_ppm;
  return c;
}
strata_cmd Alloc(uint32_t ctx, uint64_t bytes, uint8_t flags = 0) {
  strata_cmd c = HostRuntime::Command(STRATA_OP_ALLOC, ctx);
  c.u.alloc.bytes = bytes;
  c.flags = flags;
  return c;
}
strata_cmd Free(uint32_t ctx, uint64_t handle) {
  strata_cmd c = HostRuntime::Command(STRATA_OP_FREE, ctx);
  c.u.buffer.handle = handle;
  return c;
}
strata_cmd Transfer(uint8_t opcode, uint32_t ctx, uint64_t handle, uint64_t offset, uint32_t bytes, uint32_t slot) {
  strata_cmd c = HostRuntime::Command(opcode, ctx);
  c.u.transfer = {handle, offset, bytes, slot};
  return c;
}

uint32_t NewContext(HostRuntime& rt, uint64_t quota_bytes = 0) {
  const strata_cpl c = rt.Call(CreateContext(quota_bytes));
  EXPECT_CPL(c, STRATA_OK, STRATA_FIELD_NONE);
  return static_cast<uint32_t>(c.value0);
}

strata_rt_stats Stats(HostRuntime& rt, uint32_t ctx) {
  const strata_cpl c = rt.Call(HostRuntime::Command(STRATA_OP_STATS, ctx));
  EXPECT_CPL(c, STRATA_OK, STRATA_FIELD_NONE);
  const strata_rt_stats s = rt.stats();
  EXPECT_EQ(s.seq, c.seq);
  return s;
}

uint8_t Pattern(uint64_t i, uint32_t salt) { return static_cast<uint8_t>(i * 131 + (i >> 9) + salt * 17 + 1); }

// ---- boot ----

TEST(RuntimeHost, BootPublishesTheHeaderForEveryHbmSize) {
  for (const uint64_t hbm : {uint64_t{STRATA_RT_MIN_HBM_BYTES}, 3 * MiB + 4096, 4 * MiB, 6 * MiB + 64, 16 * MiB}) {
    HostRuntime rt(Hbm(hbm));
    const strata_rt_header h = rt.header();
    EXPECT_EQ(h.state, STRATA_RT_READY) << hbm;
    EXPECT_EQ(h.magic, STRATA_PROTO_MAGIC);
    EXPECT_EQ(h.version_major, STRATA_PROTO_VERSION_MAJOR);
    // runtime.elf has no GEMM dtype and says so (1.1); runtime_fp.elf speaks the current minor.
    EXPECT_EQ(h.version_minor, STRATA_RUNTIME_FP ? STRATA_PROTO_VERSION_MINOR : STRATA_PROTO_MINOR_GEMM_DTYPE - 1);
    EXPECT_EQ(h.header_bytes, sizeof(strata_rt_header));
    EXPECT_EQ(h.hbm_capacity_bytes, hbm / 64 * 64) << "the probe finds the HBM the device has";
    EXPECT_EQ(h.sq_entries, STRATA_RT_SQ_ENTRIES);
    EXPECT_EQ(h.cq_entries, STRATA_RT_CQ_ENTRIES);
    EXPECT_EQ(h.max_contexts, STRATA_RT_MAX_CONTEXTS);
    EXPECT_EQ(h.staging_slots, STRATA_RT_STAGING_SLOTS);
    EXPECT_EQ(h.staging_slot_bytes, STRATA_RT_STAGING_SLOT_BYTES);
    EXPECT_EQ(h.mxu_array_n, 16u);
    EXPECT_LE(h.heap_bytes, h.staging_address);
    EXPECT_LE(rt.staging_address(STRATA_RT_STAGING_SLOTS), hbm) << "staging slots inside HBM";
    EXPECT_GE(h.heap_bytes, rt.staging_address(STRATA_RT_STAGING_SLOTS) - h.staging_address)
        << "a heap at least as large as the staging slots";
    EXPECT_TRUE(rt.idle());
    EXPECT_EQ(rt.device().irq_enable(), STRATA_IRQ_DOORBELL) << "idle: only the doorbell wakes it";
  }
}

TEST(RuntimeHost, TooLittleHbmFailsWithAMessage) {
  for (const uint64_t hbm : {MiB, uint64_t{STRATA_RT_MIN_HBM_BYTES} - 64}) {
    HostRuntime rt(Hbm(hbm));
    EXPECT_EQ(rt.header().state, STRATA_RT_FAILED) << hbm;
    EXPECT_NE(rt.device().console().find("is too little"), std::string::npos) << rt.device().console();
    EXPECT_FALSE(rt.idle()) << "a failed runtime serves no commands";
  }
}

// ---- contexts ----

TEST(RuntimeHost, ContextTableFillsThenRefusesThenReusesSlotsWithNewIds) {
  HostRuntime rt;
  std::set<uint32_t> ids;
  for (uint32_t i = 0; i < STRATA_RT_MAX_CONTEXTS; ++i) {
    const uint32_t id = NewContext(rt);
    EXPECT_NE(id, 0u);
    EXPECT_TRUE(ids.insert(id).second) << "id " << id << " handed out twice";
  }
  EXPECT_EQ(Stats(rt, 0).contexts, STRATA_RT_MAX_CONTEXTS);
  EXPECT_CPL(rt.Call(CreateContext()), STRATA_RESOURCE_EXHAUSTED, STRATA_FIELD_CONTEXT_TABLE);
  std::mt19937 rng(7);
  std::vector<uint32_t> live(ids.begin(), ids.end());
  std::set<uint32_t> dead;
  for (int round = 0; round < 40; ++round) {
    const size_t pick = rng() % live.size();
    const uint32_t victim = live[pick];
    EXPECT_CPL(rt.Call(HostRuntime::Command(STRATA_OP_DESTROY_CONTEXT, victim)), STRATA_OK, STRATA_FIELD_NONE);
    dead.insert(victim);
    // A destroyed context is gone for every command naming it, and its id never comes back.
    EXPECT_CPL(rt.Call(HostRuntime::Command(STRATA_OP_DESTROY_CONTEXT, victim)), STRATA_NOT_FOUND,
               STRATA_FIELD_CONTEXT);
    EXPECT_CPL(rt.Call(Alloc(victim, 64)), STRATA_NOT_FOUND, STRATA_FIELD_CONTEXT);
    const uint32_t fresh = NewContext(rt);
    EXPECT_EQ(dead.count(fresh), 0u) << "a destroyed id was reused";
    EXPECT_EQ(std::count(live.begin(), live.end(), fresh), 0);
    live[pick] = fresh;
  }
  EXPECT_EQ(Stats(rt, 0).contexts, STRATA_RT_MAX_CONTEXTS);
  EXPECT_CPL(rt.Call(HostRuntime::Command(STRATA_OP_STATS, 0xdead00u)), STRATA_NOT_FOUND, STRATA_FIELD_CONTEXT);
}

// Destroying a context frees every buffer it owns, and nobody else's.
TEST(RuntimeHost, DestroyContextFreesItsBuffersOnly) {
  HostRuntime rt;
  const uint32_t a = NewContext(rt), b = NewContext(rt);
  std::vector<uint64_t> a_bufs, b_bufs;
  for (int i = 0; i < 10; ++i) {
    const strata_cpl ca = rt.Call(Alloc(a, 1000 + i * 4096));
    const strata_cpl cb = rt.Call(Alloc(b, 5000 + i * 64));
    EXPECT_CPL(ca, STRATA_OK, STRATA_FIELD_NONE);
    EXPECT_CPL(cb, STRATA_OK, STRATA_FIELD_NONE);
    a_bufs.push_back(ca.value0);
    b_bufs.push_back(cb.value0);
  }
  const strata_rt_stats before = Stats(rt, b);
  EXPECT_CPL(rt.Call(HostRuntime::Command(STRATA_OP_DESTROY_CONTEXT, a)), STRATA_OK, STRATA_FIELD_NONE);
  const strata_rt_stats after = Stats(rt, b);
  EXPECT_EQ(after.live_buffers, 10u);
  EXPECT_EQ(after.bytes_in_use, before.context_bytes_in_use);
  EXPECT_EQ(after.context_buffers, 10u);
  for (uint64_t h : b_bufs) EXPECT_CPL(rt.Call(Free(b, h)), STRATA_OK, STRATA_FIELD_NONE);
  EXPECT_EQ(Stats(rt, 0).bytes_in_use, 0u);
}

// ---- quotas ----

// Allocations within the quota succeed; the one that would pass it is refused (field QUOTA) before the heap is
// looked at; freeing makes room again. Accounting is in granules (header.granule_bytes). Several quotas and seeds.
TEST(RuntimeHost, QuotaRefusesTheAllocationThatWouldPassIt) {
  for (const uint32_t seed : {1u, 2u, 3u}) {
    HostRuntime rt(Hbm(8 * MiB));
    const uint64_t granule = rt.header().granule_bytes;
    std::mt19937_64 rng(seed);
    const uint64_t quota = (64 + rng() % 512) * 1024 + rng() % granule;
    const uint32_t ctx = NewContext(rt, quota);
    EXPECT_EQ(Stats(rt, ctx).context_quota_bytes, quota);
    uint64_t used = 0, refused = 0;
    std::vector<std::pair<uint64_t, uint64_t>> bufs;  // handle, rounded bytes
    for (int i = 0; i < 200; ++i) {
      const uint64_t bytes = 1 + rng() % (quota / 4);
      const uint64_t rounded = (bytes + granule - 1) / granule * granule;
      const strata_cpl c = rt.Call(Alloc(ctx, bytes));
      if (used + rounded <= quota) {
        EXPECT_CPL(c, STRATA_OK, STRATA_FIELD_NONE);
        used += rounded;
        bufs.push_back({c.value0, rounded});
      } else {
        EXPECT_CPL(c, STRATA_RESOURCE_EXHAUSTED, STRATA_FIELD_QUOTA);
        ++refused;
        // Free one and go on.
        const size_t k = rng() % bufs.size();
        EXPECT_CPL(rt.Call(Free(ctx, bufs[k].first)), STRATA_OK, STRATA_FIELD_NONE);
        used -= bufs[k].second;
        bufs.erase(bufs.begin() + static_cast<long>(k));
      }
      ASSERT_EQ(Stats(rt, ctx).context_bytes_in_use, used) << "after allocation " << i;
    }
    EXPECT_GT(refused, 10u) << "the spread never reached the quota";
    EXPECT_EQ(Stats(rt, ctx).context_buffers, bufs.size());
    // The edge: a quota of whole granules is usable to its last byte, and not one byte more.
    const uint64_t granules = 1 + rng() % 64;
    const uint32_t exact = NewContext(rt, granules * granule);
    EXPECT_CPL(rt.Call(Alloc(exact, granules * granule - rng() % granule)), STRATA_OK, STRATA_FIELD_NONE);
    EXPECT_CPL(rt.Call(Alloc(exact, 1)), STRATA_RESOURCE_EXHAUSTED, STRATA_FIELD_QUOTA);
  }
}

TEST(RuntimeHost, QuotaInPartsPerMillionOfTheHeap) {
  HostRuntime rt;
  const uint64_t heap = rt.header().heap_bytes;
  for (const uint32_t ppm : {1u, 1000u, 250000u, 1000000u}) {
    const strata_cpl c = rt.Call(CreateContext(0, ppm));
    EXPECT_CPL(c, STRATA_OK, STRATA_FIELD_NONE);
    EXPECT_EQ(Stats(rt, static_cast<uint32_t>(c.value0)).context_quota_bytes, heap * ppm / 1000000u) << ppm;
  }
  const strata_cpl whole = rt.Call(CreateContext());
  EXPECT_EQ(Stats(rt, static_cast<uint32_t>(whole.value0)).context_quota_bytes, heap) << "no quota: the heap";
}

TEST(RuntimeHost, AFullHeapIsOutOfMemoryNotOverAQuotaForAContextWithoutOne) {
  // The heap's size was the quota of a context without one, so its last allocation was refused as a quota
  // (the host named the OOM "cap"); it is out of device memory, which the host classifies as capacity.
  HostRuntime rt;
  const uint64_t heap = rt.header().heap_bytes;
  const uint32_t ctx = NewContext(rt);
  const strata_cpl all = rt.Call(Alloc(ctx, heap));
  EXPECT_CPL(all, STRATA_OK, STRATA_FIELD_NONE);
  EXPECT_CPL(rt.Call(Alloc(ctx, 256)), STRATA_RESOURCE_EXHAUSTED, STRATA_FIELD_MEMORY);
  EXPECT_CPL(rt.Call(Free(ctx, all.value0)), STRATA_OK, STRATA_FIELD_NONE);
  // A quota of the whole heap, asked for, still refuses as one.
  const uint32_t capped = NewContext(rt, heap);
  EXPECT_CPL(rt.Call(Alloc(capped, heap)), STRATA_OK, STRATA_FIELD_NONE);
  EXPECT_CPL(rt.Call(Alloc(capped, 256)), STRATA_RESOURCE_EXHAUSTED, STRATA_FIELD_QUOTA);
}

// ---- buffers across contexts ----

TEST(RuntimeHost, BuffersBelongToTheirContext) {
  HostRuntime rt;
  const uint32_t a = NewContext(rt), b = NewContext(rt);
  const uint64_t h = rt.Call(Alloc(a, 4096)).value0;
  EXPECT_CPL(rt.Call(Free(b, h)), STRATA_PERMISSION_DENIED, STRATA_FIELD_HANDLE);
  EXPECT_CPL(rt.Call(Transfer(STRATA_OP_READ, b, h, 0, 64, 0)), STRATA_PERMISSION_DENIED, STRATA_FIELD_HANDLE);
  EXPECT_CPL(rt.Call(Transfer(STRATA_OP_READ, a, h, 4000, 97, 0)), STRATA_OUT_OF_RANGE, STRATA_FIELD_OFFSET);
  EXPECT_CPL(rt.Call(Free(a, h)), STRATA_OK, STRATA_FIELD_NONE);
  EXPECT_CPL(rt.Call(Free(a, h)), STRATA_NOT_FOUND, STRATA_FIELD_HANDLE);
  EXPECT_CPL(rt.Call(Free(a, 0)), STRATA_INVALID_ARGUMENT, STRATA_FIELD_HANDLE);
}

// ---- transfers ----

// WRITE moves a staging slot's bytes to the buffer's place in HBM (ALLOC's value1, in granules); READ brings them
// back into another slot. Sizes and offsets spread over whole slots and odd lengths.
TEST(RuntimeHost, WriteThenReadMovesTheBytesThroughHbm) {
  HostRuntime rt;
  const uint64_t granule = rt.header().granule_bytes;
  const uint32_t ctx = NewContext(rt);
  std::vector<uint8_t>& hbm = rt.device().hbm();
  uint32_t salt = 0;
  for (const uint64_t size : {uint64_t{1}, uint64_t{63}, uint64_t{4096}, uint64_t{100000}, uint64_t{600000}}) {
    const strata_cpl a = rt.Call(Alloc(ctx, size));
    ASSERT_EQ(a.status, STRATA_OK);
    const uint64_t base = uint64_t{a.value1} * granule;
    for (uint64_t offset = 0; offset < size; offset += STRATA_RT_STAGING_SLOT_BYTES) {
      const uint32_t bytes = static_cast<uint32_t>(std::min<uint64_t>(size - offset, STRATA_RT_STAGING_SLOT_BYTES));
      const uint32_t in = salt % STRATA_RT_STAGING_SLOTS, out = (salt + 1) % STRATA_RT_STAGING_SLOTS;
      ++salt;
      for (uint32_t i = 0; i < bytes; ++i) hbm[rt.staging_address(in) + i] = Pattern(i, salt);
      EXPECT_CPL(rt.Call(Transfer(STRATA_OP_WRITE, ctx, a.value0, offset, bytes, in)), STRATA_OK, STRATA_FIELD_NONE);
      for (uint32_t i = 0; i < bytes; ++i) {
        ASSERT_EQ(hbm[base + offset + i], Pattern(i, salt)) << "size " << size << " byte " << offset + i;
      }
      EXPECT_CPL(rt.Call(Transfer(STRATA_OP_READ, ctx, a.value0, offset, bytes, out)), STRATA_OK, STRATA_FIELD_NONE);
      for (uint32_t i = 0; i < bytes; ++i) ASSERT_EQ(hbm[rt.staging_address(out) + i], Pattern(i, salt));
    }
  }
}

// Transfers complete when their DMA does, in submission order, one completion per finished descriptor, however
// the device's progress is sliced. (auto_progress off: the DMA advances only when the test steps the device.)
TEST(RuntimeHost, TransfersRetireInOrderAsTheirDmaCompletes) {
  for (const uint32_t n : {1u, 3u, 4u}) {
    HostRuntime rt(HostDevice::Options{}, /*auto_progress=*/false);
    const uint32_t ctx = NewContext(rt);
    const uint64_t h = rt.Call(Alloc(ctx, 64 * 1024)).value0;
    for (uint32_t round = 0; round < 3; ++round) {  // the runtime's ring of transfers in flight wraps
      std::vector<uint32_t> seqs;
      for (uint32_t i = 0; i < n; ++i) {
        seqs.push_back(rt.Push(Transfer(i % 2 ? STRATA_OP_READ : STRATA_OP_WRITE, ctx, h, i * 1024, 1024, i)));
      }
      rt.Ring();
      rt.Resume();
      EXPECT_TRUE(rt.TakeCompletions().empty()) << "a transfer completed before its DMA";
      EXPECT_TRUE(rt.idle());
      EXPECT_EQ(rt.device().irq_enable(), STRATA_IRQ_DOORBELL | STRATA_IRQ_DMA)
          << "idle with transfers in flight: the DMA wakes it too";
      EXPECT_EQ(rt.device().dma_queued(0), n);
      for (uint32_t i = 0; i < n; ++i) {
        ASSERT_TRUE(rt.device().Step());
        rt.Resume();
        const std::vector<strata_cpl> got = rt.TakeCompletions();
        ASSERT_EQ(got.size(), 1u) << "round " << round << " step " << i;
        EXPECT_EQ(got[0].seq, seqs[i]) << "round " << round;
        EXPECT_CPL(got[0], STRATA_OK, STRATA_FIELD_NONE);
      }
      EXPECT_EQ(rt.device().irq_enable(), STRATA_IRQ_DOORBELL) << "nothing in flight: the doorbell alone";
    }
  }
}

// A FREE of a buffer while a WRITE to it is in flight waits for the transfer: the WRITE completes first with its
// bytes in place, then the FREE. Likewise DESTROY_CONTEXT and COMPACT drain transfers first.
TEST(RuntimeHost, FreeWhileATransferIsInFlightWaitsForIt) {
  for (const uint8_t second :
       {uint8_t{STRATA_OP_FREE}, uint8_t{STRATA_OP_DESTROY_CONTEXT}, uint8_t{STRATA_OP_COMPACT}}) {
    HostRuntime rt(HostDevice::Options{}, /*auto_progress=*/false);
    const uint64_t granule = rt.header().granule_bytes;
    const uint32_t ctx = NewContext(rt);
    const strata_cpl a = rt.Call(Alloc(ctx, 8192));
    for (uint32_t i = 0; i < 8192; ++i) rt.device().hbm()[rt.staging_address(2) + i] = Pattern(i, second);
    const uint32_t write = rt.Push(Transfer(STRATA_OP_WRITE, ctx, a.value0, 0, 8192, 2));
    rt.Ring();
    rt.Resume();
    ASSERT_TRUE(rt.TakeCompletions().empty());
    strata_cmd next = HostRuntime::Command(second, ctx);
    if (second == STRATA_OP_FREE) next.u.buffer.handle = a.value0;
    const uint32_t after = rt.Push(next);
    rt.Ring();
    rt.Resume();  // the runtime drains: its own DMA wait lets the device advance
    const std::vector<strata_cpl> got = rt.TakeCompletions();
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].seq, write);
    EXPECT_CPL(got[0], STRATA_OK, STRATA_FIELD_NONE);
    EXPECT_EQ(got[1].seq, after);
    EXPECT_CPL(got[1], STRATA_OK, STRATA_FIELD_NONE);
    for (uint32_t i = 0; i < 8192; ++i) {
      ASSERT_EQ(rt.device().hbm()[uint64_t{a.value1} * granule + i], Pattern(i, second)) << "opcode " << +second;
    }
  }
}

// A transfer pins its buffer: a defragment-on-OOM ALLOC issued behind it moves nothing under the DMA, so the bytes
// the WRITE moved are where a READ later finds them. Seeds spread the fragmentation.
TEST(RuntimeHost, APinnedBufferKeepsItsBytesThroughDefragmentOnOom) {
  for (const uint32_t seed : {1u, 2u, 3u}) {
    HostRuntime rt(Hbm(3 * MiB), /*auto_progress=*/false);
    const uint64_t heap = rt.header().heap_bytes;
    const uint32_t ctx = NewContext(rt);
    std::mt19937 rng(seed);
    // Fill the heap with small buffers, free every other one: lots of free space, no large hole.
    std::vector<uint64_t> bufs;
    const uint64_t piece = 16 * 1024 + (rng() % 8) * 1024;
    for (;;) {
      const strata_cpl c = rt.Call(Alloc(ctx, piece, STRATA_ALLOC_NO_COMPACT));
      if (c.status != STRATA_OK) break;
      bufs.push_back(c.value0);
    }
    ASSERT_GT(bufs.size(), 8u);
    for (size_t i = 0; i < bufs.size(); i += 2) ASSERT_EQ(rt.Call(Free(ctx, bufs[i])).status, STRATA_OK);
    const uint64_t target = bufs[1 + 2 * (rng() % (bufs.size() / 2 - 1))];
    for (uint32_t i = 0; i < piece; ++i) rt.device().hbm()[rt.staging_address(1) + i] = Pattern(i, seed);
    const uint32_t write = rt.Push(Transfer(STRATA_OP_WRITE, ctx, target, 0, static_cast<uint32_t>(piece), 1));
    const uint32_t big = rt.Push(Alloc(ctx, heap / 3));  // needs compaction
    rt.Ring();
    rt.Resume();
    for (int i = 0; i < 64 && rt.device().Step(); ++i) rt.Resume();
    // Completions come in any order (matched by seq): here the ALLOC, compacting around the pinned buffer, is
    // done while the WRITE still waits for its DMA.
    const std::vector<strata_cpl> got = rt.TakeCompletions();
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].seq, big);
    EXPECT_EQ(got[1].seq, write);
    EXPECT_CPL(got[0], STRATA_OK, STRATA_FIELD_NONE);
    EXPECT_CPL(got[1], STRATA_OK, STRATA_FIELD_NONE);
    EXPECT_GT(Stats(rt, 0).compactions, 0u) << "the ALLOC did not need compaction: the test proves nothing";
    rt.Push(Transfer(STRATA_OP_READ, ctx, target, 0, static_cast<uint32_t>(piece), 3));
    rt.Ring();
    rt.Resume();
    while (rt.device().Step()) rt.Resume();
    ASSERT_EQ(rt.TakeCompletions().size(), 1u);
    for (uint32_t i = 0; i < piece; ++i) {
      ASSERT_EQ(rt.device().hbm()[rt.staging_address(3) + i], Pattern(i, seed)) << "seed " << seed << " byte " << i;
    }
  }
}

// ---- GEMM and statuses ----

TEST(RuntimeHost, GemmChecksItsOperandsThenRunsOnTheMatrixUnit) {
  HostRuntime rt;
  const uint32_t ctx = NewContext(rt), other = NewContext(rt);
  const uint32_t m = 40, k = 70, n = 24;
  const uint64_t a = rt.Call(Alloc(ctx, m * k)).value0, b = rt.Call(Alloc(ctx, k * n)).value0;
  const uint64_t c = rt.Call(Alloc(ctx, m * n * 4)).value0, small = rt.Call(Alloc(ctx, m * n * 4 - 1)).value0;
  const uint64_t foreign = rt.Call(Alloc(other, m * k)).value0;
  auto gemm = [&](uint64_t ha, uint64_t hb, uint64_t hc) {
    strata_cmd cmd = HostRuntime::Command(STRATA_OP_GEMM, ctx);
    cmd.u.gemm.a = ha, cmd.u.gemm.b = hb, cmd.u.gemm.c = hc;
    cmd.u.gemm.m = m, cmd.u.gemm.n = n, cmd.u.gemm.k = k;
    return rt.Call(cmd);
  };
  const strata_cpl ok = gemm(a, b, c);
  EXPECT_CPL(ok, STRATA_OK, STRATA_FIELD_NONE);
  const uint32_t array_n = rt.header().mxu_array_n;
  EXPECT_EQ(ok.value1, m * ((n + array_n - 1) / array_n) * ((k + array_n - 1) / array_n)) << "rows streamed";
  EXPECT_CPL(gemm(a, b, small), STRATA_OUT_OF_RANGE, STRATA_FIELD_BUFFER_C);
  EXPECT_CPL(gemm(foreign, b, c), STRATA_PERMISSION_DENIED, STRATA_FIELD_BUFFER_A);
  EXPECT_CPL(gemm(a, 12345, c), STRATA_INVALID_ARGUMENT, STRATA_FIELD_BUFFER_B);
}

// The GEMM's dtype word: runtime.elf (protocol 1.1) reads it as reserved, so a bf16 GEMM is refused there as a
// nonzero reserved word; runtime_fp.elf runs it and names an unknown dtype. Either way an int8 GEMM (dtype 0) runs.
TEST(RuntimeHost, GemmDtypeIsWhatTheImageSpeaks) {
  HostRuntime rt;
  const uint32_t ctx = NewContext(rt);
  const uint32_t m = 9, k = 17, n = 5;
  const uint64_t a = rt.Call(Alloc(ctx, m * k * 2)).value0, b = rt.Call(Alloc(ctx, k * n * 2)).value0;
  const uint64_t c = rt.Call(Alloc(ctx, m * n * 4)).value0;
  auto gemm = [&](uint32_t dtype) {
    strata_cmd cmd = HostRuntime::Command(STRATA_OP_GEMM, ctx);
    cmd.u.gemm = {a, b, c, m, n, k, 0, 0, dtype};
    return rt.Call(cmd);
  };
  const size_t pushed0 = rt.device().mxu_pushed().size();
  if (STRATA_RUNTIME_FP) {
    EXPECT_CPL(gemm(STRATA_DTYPE_COUNT), STRATA_INVALID_ARGUMENT, STRATA_FIELD_DTYPE);
    EXPECT_EQ(rt.device().mxu_pushed().size(), pushed0);
    EXPECT_CPL(gemm(STRATA_DTYPE_BF16), STRATA_OK, STRATA_FIELD_NONE);
  } else {
    EXPECT_CPL(gemm(STRATA_DTYPE_BF16), STRATA_INVALID_ARGUMENT, STRATA_FIELD_RESERVED);
    EXPECT_EQ(rt.device().mxu_pushed().size(), pushed0) << "refused before the matrix unit";
  }
  EXPECT_CPL(gemm(STRATA_DTYPE_INT8), STRATA_OK, STRATA_FIELD_NONE);
}

// Every completion echoes its command's seq, opcode and context, and carries a field exactly when it failed.
TEST(RuntimeHost, CompletionsEchoTheirCommand) {
  HostRuntime rt;
  const uint32_t ctx = NewContext(rt);
  std::vector<strata_cmd> cmds = {HostRuntime::Command(STRATA_OP_NOOP),
                                  Alloc(ctx, 100),
                                  Alloc(ctx, 0),
                                  HostRuntime::Command(STRATA_OP_STATS, ctx),
                                  Free(ctx, 77),
                                  HostRuntime::Command(STRATA_OP_COMPACT, ctx),
                                  HostRuntime::Command(42)};
  std::vector<uint32_t> seqs;
  for (const strata_cmd& c : cmds) seqs.push_back(rt.Push(c));
  rt.Ring();
  rt.Resume();
  const std::vector<strata_cpl> got = rt.TakeCompletions();
  ASSERT_EQ(got.size(), cmds.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].seq, seqs[i]);
    EXPECT_EQ(got[i].opcode, cmds[i].opcode);
    EXPECT_EQ(got[i].context, cmds[i].context);
    EXPECT_EQ(got[i].status == STRATA_OK, got[i].field == STRATA_FIELD_NONE) << i << ": " << Describe(got[i]);
  }
  EXPECT_CPL(got[2], STRATA_INVALID_ARGUMENT, STRATA_FIELD_BYTES);
  EXPECT_NE(got[6].status, STRATA_OK);
  EXPECT_EQ(rt.header().commands_served, cmds.size() + 1);
}

// More commands than the completion ring holds, with the host not consuming: the runtime stops taking commands
// while a completion would not fit, then goes on when the host frees entries.
TEST(RuntimeHost, AFullCompletionRingHoldsCommandsBack) {
  HostRuntime rt;
  const uint32_t total = STRATA_RT_CQ_ENTRIES + 10;
  std::vector<uint32_t> seqs;
  for (uint32_t i = 0; i < total && i < STRATA_RT_SQ_ENTRIES; ++i) seqs.push_back(rt.Push(HostRuntime::Command(0)));
  rt.Ring();
  rt.Resume();
  EXPECT_EQ(rt.header().sq_head, std::min<uint32_t>(STRATA_RT_SQ_ENTRIES, STRATA_RT_CQ_ENTRIES));
  std::vector<strata_cpl> got = rt.TakeCompletions();
  rt.Ring();
  rt.Resume();
  for (const strata_cpl& c : rt.TakeCompletions()) got.push_back(c);
  ASSERT_EQ(got.size(), seqs.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].seq, seqs[i]);
}

}  // namespace
}  // namespace strata
