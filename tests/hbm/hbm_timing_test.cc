// Timing tests of the HBM model: exact hit/miss/conflict latency, parallelism, refresh cost, tFAW, and an
// independent protocol checker run over the command trace of random traffic.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "hbm/hbm_model.h"
#include "hbm_test_util.h"

namespace strata::hbm {
namespace {

using testing::Read;
using testing::RunAll;
using testing::RunOne;
using testing::Write;

HbmConfig NoRefresh(HbmConfig c) {
  c.refresh = RefreshMode::kOff;
  return c;
}

class HbmLatency : public ::testing::TestWithParam<const char*> {};

// Row hit, row miss (bank closed) and row conflict (another row open) of an isolated access differ by
// exactly tRCD and tRP + tRCD, and match CL/WL + burst.
TEST_P(HbmLatency, HitMissConflictDifferByConfiguredTiming) {
  HbmConfig cfg;
  ASSERT_TRUE(HbmConfig::FromName(GetParam(), &cfg, 1ull << 30));
  cfg = NoRefresh(cfg);
  HbmModel m(cfg);
  const HbmCycles& c = m.cycles();
  const HbmAddressMap& map = m.address_map();
  HbmLocation a{};
  a.row = 5;
  HbmLocation b = a;
  b.column = 3;  // same row
  HbmLocation d = a;
  d.row = 9;  // same bank, other row

  uint64_t miss = RunOne(m, Read(map.Encode(a))).Latency();
  uint64_t hit = RunOne(m, Read(map.Encode(b))).Latency();
  for (int i = 0; i < 100; ++i) m.Tick();  // let tRAS pass so the conflict is pure tRP + tRCD
  uint64_t conflict = RunOne(m, Read(map.Encode(d))).Latency();

  const uint64_t burst_ceil_cl = (c.cl * 1000 + c.burst_mc + 999) / 1000;
  EXPECT_EQ(hit, burst_ceil_cl);
  EXPECT_EQ(hit, m.RowHitLatency());
  EXPECT_EQ(miss - hit, c.rcd);
  EXPECT_EQ(conflict - hit, c.rp + c.rcd);
  EXPECT_EQ(conflict, m.RowConflictLatency());

  HbmLocation e = d;
  e.column = 7;
  uint64_t write_hit = RunOne(m, Write(map.Encode(e), 32, 1)).Latency();
  EXPECT_EQ(write_hit, m.RowHitLatency(true));

  HbmChannelStats s = m.Stats().pc[0];
  EXPECT_EQ(s.row_misses, 1u);
  EXPECT_EQ(s.row_conflicts, 1u);
  EXPECT_GE(s.row_hits, 2u);
}

INSTANTIATE_TEST_SUITE_P(Presets, HbmLatency, ::testing::Values("HBM2", "HBM2e", "HBM3"));

TEST(HbmTiming, Hbm2LatenciesInCycles) {
  HbmModel m(NoRefresh(HbmConfig::Hbm2()));
  EXPECT_EQ(m.RowHitLatency(), 16u);       // tCL 14 + 2-cycle burst
  EXPECT_EQ(m.RowMissLatency(), 30u);      // + tRCD 14
  EXPECT_EQ(m.RowConflictLatency(), 44u);  // + tRP 14
}

// The same number of accesses spread over channels and banks finish far sooner than on one bank.
TEST(HbmTiming, SpreadStreamsBeatOneBank) {
  HbmConfig cfg = NoRefresh(HbmConfig::Hbm2(1ull << 30));
  const HbmAddressMap map(cfg);
  std::vector<HbmRequest> one_bank, one_pc_many_banks, spread;
  for (uint32_t i = 0; i < 256; ++i) {
    HbmLocation l{};
    l.row = i;  // every access a new row in bank 0 of pseudo-channel 0
    one_bank.push_back(Read(map.Encode(l)));
    l.bank_group = i % cfg.bank_groups;
    l.bank = (i / cfg.bank_groups) % cfg.banks_per_group;
    one_pc_many_banks.push_back(Read(map.Encode(l)));
    l.channel = i % cfg.channels;
    l.pseudo_channel = (i / cfg.channels) % cfg.pseudo_channels;
    l.bank_group = (i / 16) % cfg.bank_groups;
    l.bank = (i / 64) % cfg.banks_per_group;
    spread.push_back(Read(map.Encode(l)));
  }
  HbmModel m1(cfg), m2(cfg), m3(cfg);
  uint64_t t_one = RunAll(m1, one_bank);
  uint64_t t_banks = RunAll(m2, one_pc_many_banks);
  uint64_t t_spread = RunAll(m3, spread);
  // One bank: every access pays tRC (48 cycles) at best.
  EXPECT_GE(t_one, 255 * m1.cycles().rc);
  // Sixteen banks of one pseudo-channel overlap their activates (tFAW-bound, ~7.5 cycles each).
  EXPECT_LT(t_banks * 4, t_one);
  // Sixteen pseudo-channels overlap on top of that.
  EXPECT_LT(t_spread * 4, t_banks);
  EXPECT_EQ(m1.Stats().Total().row_hits, 0u);
}

// Read bandwidth of 64-byte requests `stride` bytes apart (sequential by default) over `cycles`,
// bytes per cycle.
double StreamBandwidth(HbmConfig cfg, uint64_t cycles, HbmStats* stats = nullptr, uint64_t stride = 64) {
  HbmModel m(cfg);
  uint64_t addr = 0, bytes = 0;
  HbmResponse r;
  for (uint64_t t = 0; t < cycles; ++t) {
    for (int k = 0; k < 32; ++k) {
      if (!m.Submit(Read(addr % cfg.capacity_bytes, 64))) break;
      addr += stride;
    }
    m.Tick();
    while (m.PopResponse(&r)) bytes += r.len;
  }
  if (stats) *stats = m.Stats();
  return static_cast<double>(bytes) / cycles;
}

// All-bank refresh blocks a pseudo-channel for tRFC every tREFI: streaming bandwidth drops by about
// tRFC/tREFI (plus the precharge and re-activate around each refresh). Per-bank refresh hides most of it.
TEST(HbmTiming, RefreshStealsAboutTrfcOverTrefi) {
  HbmConfig cfg = HbmConfig::Hbm2(1ull << 30);
  const uint64_t kCycles = 120000;  // ~30 refresh intervals
  cfg.refresh = RefreshMode::kOff;
  double bw_off = StreamBandwidth(cfg, kCycles);
  cfg.refresh = RefreshMode::kAllBank;
  HbmStats all_stats;
  double bw_all = StreamBandwidth(cfg, kCycles, &all_stats);
  cfg.refresh = RefreshMode::kPerBank;
  HbmStats pb_stats;
  double bw_pb = StreamBandwidth(cfg, kCycles, &pb_stats);

  const double expected = cfg.timing.tRFC / cfg.timing.tREFI;  // 350/3900 = 9%
  const double lost_all = 1.0 - bw_all / bw_off;
  EXPECT_GT(lost_all, 0.8 * expected) << "bw_off " << bw_off << " bw_all " << bw_all;
  EXPECT_LT(lost_all, 1.4 * expected) << "bw_off " << bw_off << " bw_all " << bw_all;
  const double lost_pb = 1.0 - bw_pb / bw_off;
  EXPECT_LT(lost_pb, 0.5 * expected) << "per-bank refresh should hide most of the cost";
  EXPECT_GT(bw_off, 0.9 * cfg.PeakBytesPerCycle());

  // Refresh counts: one REFab per tREFI per pseudo-channel, one REFsb per tREFI/banks.
  for (const HbmChannelStats& s : all_stats.pc) {
    EXPECT_NEAR(static_cast<double>(s.refreshes), kCycles / cfg.timing.tREFI, 1.5);
  }
  for (const HbmChannelStats& s : pb_stats.pc) {
    EXPECT_NEAR(static_cast<double>(s.refreshes), kCycles / cfg.timing.tREFI * 16, 2.5);
  }
}

// Power-of-two strides from 512 B to 4 KiB: the XOR-hashed map (the default) spreads them over every
// channel, so they read within a few percent of a sequential stream; the linear map puts them on
// one channel (1/8 of peak at 512 B and 1 KiB, 1/16 at 2 and 4 KiB, where tCCD_L also paces them).
TEST(HbmTiming, PowerOfTwoStridesStreamNearSequentialOnlyWithTheHash) {
  HbmConfig cfg = NoRefresh(HbmConfig::Hbm2(1ull << 30));
  const uint64_t kCycles = 20000;
  const double sequential = StreamBandwidth(cfg, kCycles);
  EXPECT_GT(sequential, 0.99 * cfg.PeakBytesPerCycle());
  for (uint64_t stride : {512u, 1024u, 2048u, 4096u}) {
    HbmStats stats;
    const double hashed = StreamBandwidth(cfg, kCycles, &stats, stride);
    EXPECT_GT(hashed, 0.95 * sequential) << "stride " << stride;
    for (const HbmChannelStats& s : stats.pc) EXPECT_GT(s.reads, 0u) << "stride " << stride;
    HbmConfig linear = cfg;
    linear.address_map = AddressMap::kLinear;
    const double one_channel = StreamBandwidth(linear, kCycles, &stats, stride);
    EXPECT_LT(one_channel, cfg.PeakBytesPerCycle() / cfg.channels * 1.01) << "stride " << stride;
    uint32_t busy = 0;
    for (const HbmChannelStats& s : stats.pc) busy += s.reads > 0;
    EXPECT_EQ(busy, cfg.pseudo_channels) << "stride " << stride;  // the two halves of one channel
  }
}

// With tRRD tiny, only tFAW paces activates: sixteen misses to sixteen banks of one pseudo-channel take
// at least three tFAW windows, and the ACT trace never has five ACTs inside one window.
TEST(HbmTiming, FawLimitsActivates) {
  HbmConfig cfg = NoRefresh(HbmConfig::Hbm2(1ull << 30));
  cfg.timing.tRRD_S = 1;
  cfg.timing.tRRD_L = 1;
  cfg.timing.tFAW = 40;
  const HbmAddressMap map(cfg);
  std::vector<HbmRequest> reqs;
  for (uint32_t i = 0; i < 16; ++i) {
    HbmLocation l{};
    l.bank_group = i % 4;
    l.bank = i / 4;
    l.row = 100 + i;
    reqs.push_back(Read(map.Encode(l)));
  }
  auto act_times = [&](HbmConfig c) {
    HbmModel m(c);
    std::vector<uint64_t> acts;
    m.SetCommandObserver([&](const HbmCommand& cmd) {
      if (cmd.kind == HbmCommandKind::kActivate) acts.push_back(cmd.cycle);
    });
    RunAll(m, reqs);
    return acts;
  };
  std::vector<uint64_t> acts = act_times(cfg);
  ASSERT_EQ(acts.size(), 16u);
  EXPECT_GE(acts.back() - acts.front(), 3 * 40u);
  for (size_t i = 4; i < acts.size(); ++i) EXPECT_GE(acts[i] - acts[i - 4], 40u) << i;
  cfg.timing.tFAW = 1;  // without the window the same activates issue back to back
  std::vector<uint64_t> free_acts = act_times(cfg);
  EXPECT_LT(free_acts.back() - free_acts.front(), 20u);
}

// An independent checker of the DRAM protocol: replays the command trace of random mixed traffic and
// checks every timing constraint the model claims, per pseudo-channel, from first principles.
class ProtocolChecker {
 public:
  ProtocolChecker(const HbmConfig& cfg) : cfg_(cfg), c_(cfg.Cycles()), banks_(cfg.BanksPerPseudoChannel()) {}

  void Check(const HbmCommand& cmd) {
    State& s = pcs_[cmd.pc_index];
    if (s.banks.empty()) s.banks.resize(banks_);
    const uint64_t t = cmd.milli_cycle + kEpoch;  // so that zero-initialized history lies in the past
    const uint64_t M = 1000;
    auto bg_of = [&](uint32_t b) { return b / cfg_.banks_per_group; };
    switch (cmd.kind) {
      case HbmCommandKind::kActivate:
      case HbmCommandKind::kRefreshBank: {
        Bank& b = s.banks[cmd.bank_index];
        ASSERT_FALSE(b.open) << "ACT/REFsb to an open bank";
        ASSERT_GE(t, b.last_pre + c_.rp * M) << "tRP";
        ASSERT_GE(t, b.last_act + c_.rc * M) << "tRC";
        ASSERT_GE(t, b.busy_until) << "bank refreshing";
        ASSERT_GE(t, s.all_busy_until) << "pseudo-channel refreshing";
        if (s.acts.size() >= 1) {
          ASSERT_GE(t, s.acts.back().first + c_.rrd_s * M) << "tRRD_S";
        }
        for (auto it = s.acts.rbegin(); it != s.acts.rend(); ++it) {
          if (it->second == bg_of(cmd.bank_index)) {
            ASSERT_GE(t, it->first + c_.rrd_l * M) << "tRRD_L";
            break;
          }
        }
        if (s.acts.size() >= 4) ASSERT_GE(t, s.acts[s.acts.size() - 4].first + c_.faw * M) << "tFAW";
        s.acts.push_back({t, bg_of(cmd.bank_index)});
        if (cmd.kind == HbmCommandKind::kActivate) {
          b.open = true;
          b.row = cmd.row;
          b.last_act = t;
          ++activates;
        } else {
          b.busy_until = t + c_.rfcsb * M;
        }
        break;
      }
      case HbmCommandKind::kPrecharge: {
        Bank& b = s.banks[cmd.bank_index];
        ASSERT_TRUE(b.open) << "PRE to a closed bank";
        ASSERT_GE(t, b.last_act + c_.ras * M) << "tRAS";
        ASSERT_GE(t, b.last_rd + c_.rtp * M) << "tRTP";
        ASSERT_GE(t, b.last_wr_end + c_.wr * M) << "tWR";
        b.open = false;
        b.last_pre = t;
        break;
      }
      case HbmCommandKind::kRead:
      case HbmCommandKind::kWrite: {
        const bool rd = cmd.kind == HbmCommandKind::kRead;
        Bank& b = s.banks[cmd.bank_index];
        ASSERT_TRUE(b.open && b.row == cmd.row) << "column command to a row that is not open";
        ASSERT_GE(t, b.last_act + c_.rcd * M) << "tRCD";
        ASSERT_GE(t, s.last_col + c_.ccd_s_mc) << "tCCD_S";
        const uint32_t g = bg_of(cmd.bank_index);
        if (s.bg_last_col.count(g)) ASSERT_GE(t, s.bg_last_col[g] + c_.ccd_l_mc) << "tCCD_L";
        if (rd) {
          ASSERT_GE(t, s.last_wr_end + c_.wtr_s * M) << "tWTR_S";
          if (s.bg_last_wr_end.count(g)) ASSERT_GE(t, s.bg_last_wr_end[g] + c_.wtr_l * M) << "tWTR_L";
        }
        const uint64_t start = t + (rd ? c_.cl : c_.wl) * M;
        ASSERT_GE(start, s.bus_free + (rd || !s.last_was_read ? 0 : c_.rtw_gap * M)) << "data bus overlap";
        s.bus_free = start + c_.burst_mc;
        s.last_was_read = rd;
        s.last_col = t;
        s.bg_last_col[g] = t;
        if (rd) {
          b.last_rd = t;
        } else {
          b.last_wr_end = s.bus_free;
          s.last_wr_end = s.bus_free;
          s.bg_last_wr_end[g] = s.bus_free;
        }
        ++columns;
        break;
      }
      case HbmCommandKind::kRefreshAll: {
        for (Bank& b : s.banks) {
          ASSERT_FALSE(b.open) << "REFab with a bank open";
          ASSERT_GE(t, b.last_pre + c_.rp * M) << "tRP before REFab";
          ASSERT_GE(t, b.last_act + c_.rc * M) << "tRC before REFab";
        }
        s.all_busy_until = t + c_.rfc * M;
        break;
      }
    }
  }

  uint64_t activates = 0, columns = 0;

 private:
  static constexpr uint64_t kEpoch = 1000000000;
  struct Bank {
    bool open = false;
    uint64_t row = 0, last_act = 0, last_pre = 0, last_rd = 0, last_wr_end = 0, busy_until = 0;
  };
  struct State {
    std::vector<Bank> banks;
    std::vector<std::pair<uint64_t, uint32_t>> acts;  // (time, bank group) of ACT and REFsb
    std::map<uint32_t, uint64_t> bg_last_col, bg_last_wr_end;
    uint64_t last_col = 0, bus_free = 0, last_wr_end = 0, all_busy_until = 0;
    bool last_was_read = false;
  };
  HbmConfig cfg_;
  HbmCycles c_;
  uint32_t banks_;
  std::map<uint32_t, State> pcs_;
};

class HbmProtocol : public ::testing::TestWithParam<std::pair<const char*, RefreshMode>> {};

TEST_P(HbmProtocol, RandomTrafficObeysEveryTimingConstraint) {
  HbmConfig cfg;
  ASSERT_TRUE(HbmConfig::FromName(GetParam().first, &cfg, 256ull << 20));
  cfg.refresh = GetParam().second;
  HbmModel m(cfg);
  ProtocolChecker checker(cfg);
  m.SetCommandObserver([&](const HbmCommand& cmd) { checker.Check(cmd); });
  std::mt19937_64 rng(99);
  std::vector<HbmRequest> reqs;
  const HbmAddressMap& map = m.address_map();
  for (int i = 0; i < 20000; ++i) {
    HbmLocation l{};
    l.channel = rng() % 2;  // few pseudo-channels, so banks see conflicts and hits mixed
    l.pseudo_channel = rng() % cfg.pseudo_channels;
    l.bank_group = rng() % cfg.bank_groups;
    l.bank = rng() % cfg.banks_per_group;
    l.row = rng() % 4;
    l.column = rng() % 32;
    HbmRequest r = (rng() % 3 == 0) ? Write(map.Encode(l), 32, 1) : Read(map.Encode(l), 32);
    if (rng() % 4 == 0) r.len = 64, r.addr = map.Encode(l) & ~63ull;
    reqs.push_back(r);
  }
  RunAll(m, reqs, 4);
  EXPECT_FALSE(::testing::Test::HasFatalFailure());
  EXPECT_GT(checker.activates, 100u);
  EXPECT_GE(checker.columns, reqs.size());
}

INSTANTIATE_TEST_SUITE_P(Presets, HbmProtocol,
                         ::testing::Values(std::make_pair("HBM2", RefreshMode::kPerBank),
                                           std::make_pair("HBM2", RefreshMode::kAllBank),
                                           std::make_pair("HBM2e", RefreshMode::kPerBank),
                                           std::make_pair("HBM3", RefreshMode::kAllBank)));

// Back-pressure: a full pseudo-channel queue refuses requests, whole (no partial enqueue), and takes
// them again once the controller drains an entry.
TEST(HbmQueue, FullQueueRefusesUntilDrained) {
  HbmConfig cfg = NoRefresh(HbmConfig::Hbm2(64ull << 20));
  cfg.queue_depth = 4;
  cfg.address_map = AddressMap::kLinear;  // the addresses below are picked for its layout
  HbmModel m(cfg);
  // Addresses 512 B apart all map to pseudo-channel 0 of channel 0.
  for (uint64_t i = 0; i < 4; ++i) ASSERT_TRUE(m.Submit(Read(i * 512, 32, i)));
  EXPECT_FALSE(m.CanAccept(4 * 512, 32));
  EXPECT_FALSE(m.Submit(Read(4 * 512, 32, 4)));
  EXPECT_EQ(m.Stats().pc[0].rejected_full, 1u);
  // A 64-byte request needs pseudo-channels 0 and 1: refused whole, so PC 1 stays empty.
  EXPECT_FALSE(m.Submit(Read(0, 64, 5)));
  EXPECT_TRUE(m.CanAccept(32, 32));
  for (uint64_t i = 0; i < 4; ++i) ASSERT_TRUE(m.Submit(Read(32 + i * 512, 32, 10 + i)));
  EXPECT_FALSE(m.Submit(Read(32 + 4 * 512, 32)));
  EXPECT_EQ(m.Outstanding(), 8u);
  // Another pseudo-channel is unaffected.
  EXPECT_TRUE(m.Submit(Read(64, 32, 20)));
  int ticks = 0;
  while (!m.CanAccept(4 * 512, 32)) {
    m.Tick();
    ASSERT_LT(++ticks, 200);
  }
  EXPECT_TRUE(m.Submit(Read(4 * 512, 32, 4)));
  m.RunUntilIdle();
  EXPECT_EQ(m.ResponsesReady(), 10u);
}

TEST(HbmQueue, MalformedRequestsThrowAndChangeNothing) {
  HbmModel m(HbmConfig::Hbm2(64ull << 20));
  EXPECT_THROW(m.Submit(Read(60, 8)), std::invalid_argument);  // crosses a 64-byte boundary
  EXPECT_THROW(m.Submit(Read(0, 0)), std::invalid_argument);
  EXPECT_THROW(m.Submit(Read(0, 65)), std::invalid_argument);
  EXPECT_THROW(m.Submit(Read(64ull << 20, 4)), std::invalid_argument);
  EXPECT_NE(m.CheckRequest(Read(64ull << 20, 4)).find("outside capacity"), std::string::npos);
  EXPECT_NE(m.CheckRequest(Read(62, 4)).find("64-byte boundary"), std::string::npos);
  EXPECT_EQ(m.Outstanding(), 0u);
  EXPECT_TRUE(m.Idle());
}

// Rows with queued hits are served first (FR-FCFS), but an old conflicting request is not starved.
TEST(HbmScheduler, RowHitsFirstThenOldest) {
  HbmConfig cfg = NoRefresh(HbmConfig::Hbm2(1ull << 30));
  HbmModel m(cfg);
  const HbmAddressMap& map = m.address_map();
  HbmLocation open{};
  open.row = 1;
  RunOne(m, Read(map.Encode(open)));  // row 1 open in bank 0
  HbmLocation other = open;
  other.row = 2;
  ASSERT_TRUE(m.Submit(Read(map.Encode(other), 32, 1)));  // oldest: needs PRE + ACT
  for (uint32_t col = 1; col <= 4; ++col) {
    HbmLocation hit = open;
    hit.column = col;
    ASSERT_TRUE(m.Submit(Read(map.Encode(hit), 32, 10 + col)));
  }
  m.RunUntilIdle();
  std::vector<uint64_t> order;
  HbmResponse r;
  while (m.PopResponse(&r)) order.push_back(r.tag);
  ASSERT_EQ(order.size(), 5u);
  EXPECT_EQ(order.back(), 1u) << "the row conflict goes after the younger row hits";

  // Starvation guard: a never-ending stream of hits does not hold back the conflict forever. Without
  // the row-hit cap (which would serve the conflict after 4 hits) only the guard can do that.
  cfg.starvation_cycles = 100;
  cfg.row_hit_cap = 0;
  HbmModel s(cfg);
  RunOne(s, Read(map.Encode(open)));
  ASSERT_TRUE(s.Submit(Read(map.Encode(other), 32, 1)));
  uint64_t served_at = 0;
  for (uint64_t t = 0; t < 2000 && !served_at; ++t) {
    HbmLocation hit = open;
    hit.column = t % 32;
    s.Submit(Read(map.Encode(hit), 32, 100));
    s.Tick();
    while (s.PopResponse(&r)) {
      if (r.tag == 1) served_at = r.completion_cycle - r.submit_cycle;
    }
  }
  EXPECT_GT(served_at, 0u);
  EXPECT_LT(served_at, 100u + s.RowConflictLatency() + 50);
}

// FR-FCFS-Cap: with a row open in a bank and, queued in this order, a request to another row of the
// bank and eight hits to the open row, the first `row_hit_cap` hits bypass the older request, then
// it is served (PRE, ACT, RD) and the other hits wait for their row to open again. With
// row_hit_cap = 0 (plain FR-FCFS) all eight hits go first. Hits older than the waiting request do
// not count against the cap.
TEST(HbmScheduler, RowHitCapServesTheWaitingRowAfterFourHits) {
  struct Case {
    uint32_t cap;
    bool older_hit;         // a hit queued before the request to the other row
    uint32_t reads_before;  // RDs of the open row between that request's arrival and its ACT
  };
  for (const Case& k : {Case{4, false, 4}, Case{4, true, 5}, Case{2, false, 2}, Case{0, false, 8}, Case{0, true, 9}}) {
    HbmConfig cfg = NoRefresh(HbmConfig::Hbm2(1ull << 30));
    cfg.row_hit_cap = k.cap;
    HbmModel m(cfg);
    const HbmAddressMap& map = m.address_map();
    HbmLocation open{};
    open.row = 1;
    RunOne(m, Read(map.Encode(open)));  // row 1 open in bank 0 of pseudo-channel 0
    std::vector<HbmCommand> trace;
    m.SetCommandObserver([&](const HbmCommand& c) { trace.push_back(c); });
    HbmLocation hit = open;
    if (k.older_hit) {
      hit.column = 20;
      ASSERT_TRUE(m.Submit(Read(map.Encode(hit), 32, 20)));
    }
    HbmLocation other = open;
    other.row = 2;
    ASSERT_TRUE(m.Submit(Read(map.Encode(other), 32, 1)));
    for (uint32_t col = 1; col <= 8; ++col) {
      hit.column = col;
      ASSERT_TRUE(m.Submit(Read(map.Encode(hit), 32, 10 + col)));
    }
    m.RunUntilIdle();
    uint32_t reads_before = 0;
    bool activated = false;
    for (const HbmCommand& c : trace) {
      if (c.kind == HbmCommandKind::kActivate && c.row == 2) activated = true;
      if (!activated && c.kind == HbmCommandKind::kRead) {
        EXPECT_EQ(c.row, 1u);
        ++reads_before;
      }
    }
    EXPECT_TRUE(activated);
    EXPECT_EQ(reads_before, k.reads_before) << "cap " << k.cap << " older hit " << k.older_hit;
    std::vector<uint64_t> order;
    HbmResponse r;
    while (m.PopResponse(&r)) order.push_back(r.tag);
    ASSERT_EQ(order.size(), 9u + k.older_hit);
    const size_t at = std::find(order.begin(), order.end(), 1u) - order.begin();
    EXPECT_EQ(at, k.reads_before) << "cap " << k.cap;
    EXPECT_EQ(m.Stats().pc[0].row_conflicts, k.cap == 0 ? 1u : 2u) << "row 1 reopened for the rest";
  }
}

// One stream of hits cannot hold a bank: a request to another row, queued behind it, is served
// after row_hit_cap hits, long before the starvation guard would step in.
TEST(HbmScheduler, RowHitCapBoundsTheWaitBehindAHitStream) {
  HbmConfig cfg = NoRefresh(HbmConfig::Hbm2(1ull << 30));
  HbmModel m(cfg);
  const HbmAddressMap& map = m.address_map();
  HbmLocation open{};
  open.row = 1;
  RunOne(m, Read(map.Encode(open)));
  HbmLocation other = open;
  other.row = 2;
  ASSERT_TRUE(m.Submit(Read(map.Encode(other), 32, 1)));
  uint64_t waited = 0;
  HbmResponse r;
  for (uint64_t t = 0; t < 2000 && !waited; ++t) {
    HbmLocation hit = open;
    hit.column = t % 32;
    m.Submit(Read(map.Encode(hit), 32, 100));
    m.Tick();
    while (m.PopResponse(&r)) {
      if (r.tag == 1) waited = r.Latency();
    }
  }
  ASSERT_GT(waited, 0u);
  // Four hits (tCCD_L apart in one bank group), the PRE after tRTP, then the conflict's own latency.
  EXPECT_LT(waited, 4 * 4 + m.cycles().rtp + m.RowConflictLatency() + 10);
  EXPECT_LT(waited, cfg.starvation_cycles / 10);
}

}  // namespace
}  // namespace strata::hbm
