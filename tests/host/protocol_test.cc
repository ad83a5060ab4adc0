// The runtime firmware on the model, spoken to in raw protocol words (no driver): malformed command words
// answered with status and field by the device's own decoder, garbage streams that change nothing, doorbell
// misuse, in-order draining of transfers before a free, and pinned in-flight buffers that a
// defragment-on-OOM must not move.
#include "strata/protocol.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <random>
#include <vector>

#include "device.h"
#include "elf_loader.h"
#include "hbm/hbm_config.h"
#include "host_link.h"
#include "strata/regmap.h"

namespace strata::sim {
namespace {

constexpr uint64_t kKiB = 1024, kMiB = 1024 * 1024;

class RawClient {
 public:
  explicit RawClient(uint64_t hbm_bytes)
      : dev_(TraceOptions{}, hbm::HbmConfig::Hbm2(hbm_bytes)), link_(dev_, PcieConfig::Gen5x16()) {
    ElfImage image;
    std::string error;
    EXPECT_TRUE(LoadElf(STRATA_RUNTIME_ELF, STRATA_SMEM_BASE, STRATA_SMEM_SIZE, image, error)) << error;
    header_addr_ = image.symbols.at(STRATA_RT_HEADER_SYMBOL);
    dev_.ResetAndLoad(image);
    for (int i = 0; i < 10000 && link_.Read32(header_addr_ + offsetof(strata_rt_header, state)) != STRATA_RT_READY;
         ++i) {
    }
    uint32_t w[sizeof(strata_rt_header) / 4];
    link_.ReadBlock(header_addr_, w, sizeof w / 4);
    std::memcpy(&h_, w, sizeof h_);
    EXPECT_EQ(h_.state, uint32_t{STRATA_RT_READY});
  }

  // Writes commands into the ring without ringing; Ring() publishes them all at once.
  uint32_t Queue(strata_cmd c) {
    c.seq = next_seq_++;
    uint32_t w[16];
    std::memcpy(w, &c, sizeof c);
    link_.WriteBlock(h_.sq_address + strata_rt_sq_slot(tail_) * sizeof(strata_cmd), w, 16);
    ++tail_;
    return c.seq;
  }
  void Ring() { link_.RingDoorbell(tail_); }
  void RingRaw(uint32_t value) { link_.RingDoorbell(value); }

  // Completions in arrival order until `seq` has arrived.
  strata_cpl Await(uint32_t seq) {
    for (int polls = 0; polls < 100000; ++polls) {
      auto it = done_.find(seq);
      if (it != done_.end()) {
        const strata_cpl c = it->second;
        done_.erase(it);
        return c;
      }
      uint32_t w[8];
      link_.ReadBlock(h_.cq_address + strata_rt_cq_slot(head_) * sizeof(strata_cpl), w, 8);
      if (w[0] != strata_rt_cq_phase(head_)) continue;
      strata_cpl c;
      std::memcpy(&c, w, sizeof c);
      order_.push_back(c.seq);
      done_[c.seq] = c;
      ++head_;
      link_.Write32(header_addr_ + offsetof(strata_rt_header, cq_head), head_);
      link_.RingDoorbell(tail_);
    }
    ADD_FAILURE() << "no completion for seq " << seq;
    return {};
  }
  strata_cpl Call(const strata_cmd& c) {
    const uint32_t seq = Queue(c);
    Ring();
    return Await(seq);
  }
  strata_rt_stats Stats(uint32_t context = 0) {
    strata_cmd c{};
    c.opcode = STRATA_OP_STATS;
    c.context = context;
    EXPECT_EQ(Call(c).status, STRATA_OK);
    uint32_t w[sizeof(strata_rt_stats) / 4];
    link_.ReadBlock(h_.stats_address, w, sizeof w / 4);
    strata_rt_stats s;
    std::memcpy(&s, w, sizeof s);
    return s;
  }
  uint32_t CreateContext() {
    strata_cmd c{};
    c.opcode = STRATA_OP_CREATE_CONTEXT;
    const strata_cpl r = Call(c);
    EXPECT_EQ(r.status, STRATA_OK);
    return static_cast<uint32_t>(r.value0);
  }
  uint64_t Alloc(uint32_t ctx, uint64_t bytes) {
    strata_cmd c{};
    c.opcode = STRATA_OP_ALLOC;
    c.context = ctx;
    c.u.alloc.bytes = bytes;
    const strata_cpl r = Call(c);
    EXPECT_EQ(r.status, STRATA_OK) << "field " << int{r.field};
    return r.value0;
  }
  static strata_cmd Transfer(uint8_t op, uint32_t ctx, uint64_t handle, uint32_t bytes, uint32_t slot) {
    strata_cmd c{};
    c.opcode = op;
    c.context = ctx;
    c.u.transfer = {handle, 0, bytes, slot};
    return c;
  }
  void Stage(uint32_t slot, const std::vector<uint8_t>& data) {
    link_.Wait(link_.CopyToDevice(data.data(), strata_rt_staging_slot_address(h_.staging_address, slot), data.size()));
  }
  std::vector<uint8_t> Unstage(uint32_t slot, size_t n) {
    std::vector<uint8_t> v(n);
    link_.Wait(link_.CopyFromDevice(strata_rt_staging_slot_address(h_.staging_address, slot), v.data(), n));
    return v;
  }
  std::vector<uint8_t> ReadBuffer(uint32_t ctx, uint64_t handle, uint32_t n) {
    EXPECT_EQ(Call(Transfer(STRATA_OP_READ, ctx, handle, n, 0)).status, STRATA_OK);
    return Unstage(0, n);
  }
  void WriteBuffer(uint32_t ctx, uint64_t handle, const std::vector<uint8_t>& data) {
    Stage(0, data);
    EXPECT_EQ(Call(Transfer(STRATA_OP_WRITE, ctx, handle, static_cast<uint32_t>(data.size()), 0)).status, STRATA_OK);
  }

  const strata_rt_header& header() const { return h_; }
  std::vector<uint32_t>& order() { return order_; }

 private:
  Device dev_;
  HostLink link_;
  uint32_t header_addr_ = 0;
  strata_rt_header h_{};
  uint32_t tail_ = 0, head_ = 0, next_seq_ = 1;
  std::map<uint32_t, strata_cpl> done_;
  std::vector<uint32_t> order_;
};

std::vector<uint8_t> Random(std::mt19937_64& rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

TEST(RuntimeProtocol, MalformedWordsAreAnsweredWithStatusAndField) {
  RawClient c(8 * kMiB);
  const uint32_t ctx = c.CreateContext();
  struct Case {
    strata_cmd cmd;
    strata_status status;
    strata_field field;
  };
  std::vector<Case> cases;
  strata_cmd x{};
  x.opcode = 200;
  cases.push_back({x, STRATA_INVALID_ARGUMENT, STRATA_FIELD_OPCODE});
  x = {};
  x.reserved1 = 5;
  cases.push_back({x, STRATA_INVALID_ARGUMENT, STRATA_FIELD_RESERVED});
  x = {};
  x.opcode = STRATA_OP_FREE;
  x.context = ctx;
  x.flags = 0x40;
  x.u.buffer.handle = 1;
  cases.push_back({x, STRATA_INVALID_ARGUMENT, STRATA_FIELD_FLAGS});
  x = {};
  x.opcode = STRATA_OP_ALLOC;
  x.context = ctx;
  x.u.alloc.bytes = 4096;
  x.u.words[9] = 1;
  cases.push_back({x, STRATA_INVALID_ARGUMENT, STRATA_FIELD_RESERVED});
  x.u.words[9] = 0;
  x.u.alloc.alignment = 48;
  cases.push_back({x, STRATA_INVALID_ARGUMENT, STRATA_FIELD_ALIGNMENT});
  x = RawClient::Transfer(STRATA_OP_WRITE, ctx, 1, 4096, 4);
  cases.push_back({x, STRATA_INVALID_ARGUMENT, STRATA_FIELD_SLOT});
  x = RawClient::Transfer(STRATA_OP_READ, ctx, 1, 0, 0);
  cases.push_back({x, STRATA_INVALID_ARGUMENT, STRATA_FIELD_BYTES});
  x = {};
  x.opcode = STRATA_OP_GEMM;
  x.context = ctx;
  x.u.gemm = {1, 2, 3, 4, 4, 4, 0, 0, 0};
  x.u.gemm.m = 0;
  cases.push_back({x, STRATA_INVALID_ARGUMENT, STRATA_FIELD_SHAPE});
  x.u.gemm.m = 4;
  x.flags = STRATA_GEMM_FLAG_ROUND;
  cases.push_back({x, STRATA_INVALID_ARGUMENT, STRATA_FIELD_FLAGS});
  x.flags = 0;
  cases.push_back({x, STRATA_NOT_FOUND, STRATA_FIELD_BUFFER_A});  // handle 1 names no live buffer
  x = {};
  x.opcode = STRATA_OP_DESTROY_CONTEXT;
  x.context = ctx + 0x100;  // same slot, another generation
  cases.push_back({x, STRATA_NOT_FOUND, STRATA_FIELD_CONTEXT});
  for (const Case& k : cases) {
    const strata_cpl r = c.Call(k.cmd);
    EXPECT_EQ(r.status, k.status) << "opcode " << int{k.cmd.opcode};
    EXPECT_EQ(r.field, k.field) << "opcode " << int{k.cmd.opcode};
    EXPECT_EQ(r.opcode, k.cmd.opcode);
  }
}

TEST(RuntimeProtocol, GarbageStreamsChangeNothing) {
  RawClient c(8 * kMiB);
  const uint32_t ctx = c.CreateContext();
  const uint64_t keep = c.Alloc(ctx, 4096);
  std::mt19937_64 rng(9);
  const std::vector<uint8_t> data = Random(rng, 4096);
  c.WriteBuffer(ctx, keep, data);
  const strata_rt_stats before = c.Stats();
  // Batches of random words (the header's reserved words nonzero most of the time), several per doorbell.
  for (int batch = 0; batch < 20; ++batch) {
    std::vector<uint32_t> seqs;
    for (int i = 0; i < 16; ++i) {
      strata_cmd g;
      uint32_t w[16];
      for (uint32_t& x : w) x = static_cast<uint32_t>(rng());
      std::memcpy(&g, w, sizeof g);
      if (i % 4 == 0) g.reserved0 = g.reserved1 = 0;  // some get past the header check
      seqs.push_back(c.Queue(g));
    }
    c.Ring();
    for (uint32_t s : seqs) EXPECT_NE(c.Await(s).status, STRATA_OK);
  }
  const strata_rt_stats after = c.Stats();
  EXPECT_EQ(after.live_buffers, before.live_buffers);
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(after.contexts, before.contexts);
  EXPECT_EQ(c.ReadBuffer(ctx, keep, 4096), data);
}

TEST(RuntimeProtocol, DoorbellTooFarAheadIsIgnored) {
  RawClient c(8 * kMiB);
  c.RingRaw(1000);  // claims 1000 commands in a 64-entry ring: a host bug
  strata_cmd noop{};
  const uint32_t seq = c.Queue(noop);
  c.RingRaw(1);
  EXPECT_EQ(c.Await(seq).status, STRATA_OK);
}

TEST(RuntimeProtocol, FreeWaitsForTheTransferInFlight) {
  RawClient c(8 * kMiB);
  const uint32_t ctx = c.CreateContext();
  const uint64_t b = c.Alloc(ctx, 256 * kKiB);
  std::mt19937_64 rng(3);
  c.Stage(1, Random(rng, 256 * kKiB));
  const uint32_t w = c.Queue(RawClient::Transfer(STRATA_OP_WRITE, ctx, b, 256 * kKiB, 1));
  strata_cmd f{};
  f.opcode = STRATA_OP_FREE;
  f.context = ctx;
  f.u.buffer.handle = b;
  const uint32_t fr = c.Queue(f);
  c.Ring();
  EXPECT_EQ(c.Await(fr).status, STRATA_OK);
  EXPECT_EQ(c.Await(w).status, STRATA_OK);
  ASSERT_EQ(c.order().size() >= 2, true);
  EXPECT_EQ(c.order()[c.order().size() - 2], w) << "the write completes before the free";
}

// Found by runtime_fuzz: a FREE that succeeded came back with field HANDLE; the protocol says NONE on success.
TEST(RuntimeProtocol, SuccessfulCommandsNameNoField) {
  RawClient c(8 * kMiB);
  const uint32_t ctx = c.CreateContext();
  const uint64_t b = c.Alloc(ctx, 4 * kKiB);
  c.WriteBuffer(ctx, b, std::vector<uint8_t>(4 * kKiB, 7));
  std::vector<strata_cmd> cmds(4);
  cmds[0] = RawClient::Transfer(STRATA_OP_READ, ctx, b, 4 * kKiB, 0);
  cmds[1].opcode = STRATA_OP_COMPACT;
  cmds[1].context = ctx;
  cmds[2].opcode = STRATA_OP_FREE;
  cmds[2].context = ctx;
  cmds[2].u.buffer.handle = b;
  cmds[3].opcode = STRATA_OP_DESTROY_CONTEXT;
  cmds[3].context = ctx;
  for (const strata_cmd& cmd : cmds) {
    const strata_cpl r = c.Call(cmd);
    EXPECT_EQ(r.status, STRATA_OK) << "opcode " << int{cmd.opcode};
    EXPECT_EQ(r.field, STRATA_FIELD_NONE) << "opcode " << int{cmd.opcode};
  }
}

TEST(RuntimeProtocol, PinnedBuffersStayPutDuringDefragmentOnOom) {
  RawClient c(8 * kMiB);  // 7 MiB heap
  const uint32_t ctx = c.CreateContext();
  std::mt19937_64 rng(5);
  std::vector<uint64_t> bufs;
  std::vector<std::vector<uint8_t>> contents;
  for (int i = 0; i < 28; ++i) {
    bufs.push_back(c.Alloc(ctx, 256 * kKiB));
    contents.push_back(Random(rng, 4096));
    c.WriteBuffer(ctx, bufs.back(), contents.back());
  }
  strata_cmd f{};
  f.opcode = STRATA_OP_FREE;
  f.context = ctx;
  for (int i = 0; i < 28; i += 2) {
    f.u.buffer.handle = bufs[i];
    ASSERT_EQ(c.Call(f).status, STRATA_OK);
  }
  // Full-size writes into the lowest survivors (the cheapest buffers to evacuate), then at once an
  // allocation that only compaction can serve: it runs while those DMAs are in flight.
  std::vector<uint32_t> writes;
  for (uint32_t k = 0; k < 3; ++k) {
    const int i = 1 + 2 * static_cast<int>(k);
    std::vector<uint8_t> big = Random(rng, 256 * kKiB);
    c.Stage(k + 1, big);
    contents[i] = big;  // all of it: a move racing the write would leave a stale tail
    writes.push_back(c.Queue(RawClient::Transfer(STRATA_OP_WRITE, ctx, bufs[i], 256 * kKiB, k + 1)));
  }
  strata_cmd a{};
  a.opcode = STRATA_OP_ALLOC;
  a.context = ctx;
  a.u.alloc.bytes = kMiB;
  const uint32_t alloc_seq = c.Queue(a);
  c.Ring();
  const strata_cpl r = c.Await(alloc_seq);
  EXPECT_EQ(r.status, STRATA_OK) << "field " << int{r.field};
  for (uint32_t s : writes) EXPECT_EQ(c.Await(s).status, STRATA_OK);
  EXPECT_GT(c.Stats().compaction_moves, 0u);
  for (int i = 1; i < 28; i += 2) {
    EXPECT_EQ(c.ReadBuffer(ctx, bufs[i], static_cast<uint32_t>(contents[i].size())), contents[i]) << "buffer " << i;
  }
}

// Here the only way to make room moves exactly the buffers being written: the runtime must not move them
// while their DMAs run (it waits for the transfers, then compacts), and every byte must arrive. (The test
// above lets the planner work around the pinned buffers instead.)
TEST(RuntimeProtocol, AllocationThatNeedsPinnedBuffersWaitsForTheirTransfers) {
  RawClient c(8 * kMiB);  // 7 MiB heap: B0..B6 of 256 KiB, then one buffer holding the rest
  const uint32_t ctx = c.CreateContext();
  std::mt19937_64 rng(11);
  std::vector<uint64_t> bufs;
  for (int i = 0; i < 7; ++i) bufs.push_back(c.Alloc(ctx, 256 * kKiB));
  bufs.push_back(c.Alloc(ctx, c.header().heap_bytes - 7 * 256 * kKiB));  // too big to evacuate anywhere
  strata_cmd f{};
  f.opcode = STRATA_OP_FREE;
  f.context = ctx;
  for (int i : {0, 2, 4, 6}) {  // 1 MiB free in four holes, only B1, B3, B5 between them
    f.u.buffer.handle = bufs[i];
    ASSERT_EQ(c.Call(f).status, STRATA_OK);
  }
  std::vector<std::vector<uint8_t>> data;
  std::vector<uint32_t> writes;
  for (uint32_t k = 0; k < 3; ++k) {
    data.push_back(Random(rng, 256 * kKiB));
    c.Stage(k + 1, data.back());
    writes.push_back(c.Queue(RawClient::Transfer(STRATA_OP_WRITE, ctx, bufs[1 + 2 * k], 256 * kKiB, k + 1)));
  }
  strata_cmd a{};
  a.opcode = STRATA_OP_ALLOC;
  a.context = ctx;
  a.u.alloc.bytes = kMiB;
  const uint32_t alloc_seq = c.Queue(a);
  c.Ring();
  const strata_cpl r = c.Await(alloc_seq);
  EXPECT_EQ(r.status, STRATA_OK) << "field " << int{r.field};
  for (uint32_t s : writes) EXPECT_EQ(c.Await(s).status, STRATA_OK);
  const std::vector<uint32_t>& order = c.order();
  ASSERT_GE(order.size(), 4u);
  EXPECT_EQ(order.back(), alloc_seq) << "the allocation waited for the transfers";
  EXPECT_GE(c.Stats().compaction_moves, 2u);
  for (uint32_t k = 0; k < 3; ++k) {
    EXPECT_EQ(c.ReadBuffer(ctx, bufs[1 + 2 * k], 256 * kKiB), data[k]) << "buffer " << 1 + 2 * k;
  }
}

}  // namespace
}  // namespace strata::sim
