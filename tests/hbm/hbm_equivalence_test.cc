// Differential test: the optimized HbmModel against the reference statement of the per-cycle
// model (reference_hbm_model.h), fed the same requests in the same cycles. Every observable must be
// identical: whether each Submit is accepted, every DRAM command (kind, milli-cycle, bank, row,
// column), every response (tag, cycles, data) in delivery order, CanAccept, Outstanding, Idle,
// and every statistic. Each seed draws a configuration (preset, bank organisation, core clock,
// refresh mode, address map, row-hit cap and its count, queue depth, starvation limit, capacity) and a traffic
// mix that changes phase every few thousand cycles (random, hot blocks with same-atom hazards,
// copy streams, strides, row conflicts, idle gaps that leave only refresh).
//
// STRATA_HBM_EQUIV_SEEDS=N runs N extra seeds (from 1000 up) in the Soak test, for a longer check.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "hbm/hbm_model.h"
#include "reference_hbm_model.h"

namespace strata::hbm {
namespace {

bool operator==(const HbmCommand& a, const HbmCommand& b) {
  return a.kind == b.kind && a.cycle == b.cycle && a.milli_cycle == b.milli_cycle && a.pc_index == b.pc_index &&
         a.bank_index == b.bank_index && a.row == b.row && a.column == b.column;
}

std::string Describe(const HbmCommand& c) {
  std::ostringstream os;
  os << HbmCommandName(c.kind) << " @" << c.milli_cycle << "mc pc" << c.pc_index << " bank" << c.bank_index << " row"
     << c.row << " col" << c.column;
  return os.str();
}

void ExpectSameResponse(const HbmResponse& a, const HbmResponse& b, uint64_t cycle) {
  ASSERT_EQ(a.tag, b.tag) << "cycle " << cycle;
  ASSERT_EQ(a.addr, b.addr) << "tag " << a.tag;
  ASSERT_EQ(a.len, b.len) << "tag " << a.tag;
  ASSERT_EQ(a.is_write, b.is_write) << "tag " << a.tag;
  ASSERT_EQ(a.submit_cycle, b.submit_cycle) << "tag " << a.tag;
  ASSERT_EQ(a.completion_cycle, b.completion_cycle) << "tag " << a.tag;
  if (!a.is_write) {
    for (uint32_t i = 0; i < a.len; ++i) ASSERT_EQ(a.data[i], b.data[i]) << "tag " << a.tag << " byte " << i;
  }
}

void ExpectSameStats(const HbmStats& a, const HbmStats& b) {
  ASSERT_EQ(a.cycles, b.cycles);
  ASSERT_EQ(a.pc.size(), b.pc.size());
  for (size_t i = 0; i < a.pc.size(); ++i) ASSERT_EQ(a.pc[i].ToJson(), b.pc[i].ToJson()) << "pseudo-channel " << i;
}

// A configuration drawn from the seed: mostly presets, sometimes other bank organisations and core
// clocks (a core clock below the data rate puts several column commands in one cycle).
HbmConfig DrawConfig(std::mt19937_64& rng, std::string* what) {
  HbmConfig cfg;
  const char* presets[] = {"HBM2", "HBM2e", "HBM3"};
  const char* preset = presets[rng() % 3];
  HbmConfig::FromName(preset, &cfg);
  if (rng() % 4 == 0) {
    const uint32_t orgs[][2] = {{4, 4}, {2, 2}, {8, 8}, {1, 4}, {2, 8}};
    const auto& o = orgs[rng() % 5];
    cfg.bank_groups = o[0];
    cfg.banks_per_group = o[1];
  }
  if (rng() % 4 == 0) {
    const double clocks[] = {0.5, 0.8, 1.5, 2.0};
    cfg.core_clock_ghz = clocks[rng() % 4];
  }
  const RefreshMode refresh[] = {RefreshMode::kPerBank, RefreshMode::kAllBank, RefreshMode::kOff};
  cfg.refresh = refresh[rng() % 3];
  cfg.address_map = rng() % 3 == 0 ? AddressMap::kLinear : AddressMap::kXorHash;
  const uint32_t caps[] = {0, 1, 2, 4, 4, 16};
  cfg.row_hit_cap = caps[rng() % 6];
  const uint32_t depths[] = {2, 3, 5, 8, 16, 32, 64, 64, 100};
  cfg.queue_depth = depths[rng() % 9];
  const uint32_t starvation[] = {1000, 1000, 200, 40, 5};
  cfg.starvation_cycles = starvation[rng() % 5];
  // A few rows per bank (many conflicts) up to 64 MiB.
  const uint64_t stride = static_cast<uint64_t>(cfg.PseudoChannelCount()) * cfg.BanksPerPseudoChannel() * cfg.row_bytes;
  const uint64_t rows[] = {2, 8, 64, 0};
  const uint64_t r = rows[rng() % 4];
  cfg.capacity_bytes = r ? stride * r : ((64ull << 20) / stride) * stride;
  if (cfg.capacity_bytes == 0) cfg.capacity_bytes = stride;
  cfg.fill_byte = static_cast<uint8_t>(rng());
  cfg.row_hit_count = rng() % 2 ? RowHitCount::kSinceActivate : RowHitCount::kBypasses;
  std::ostringstream os;
  os << preset << " bg" << cfg.bank_groups << "x" << cfg.banks_per_group << " clk" << cfg.core_clock_ghz << " refresh "
     << RefreshModeName(cfg.refresh) << " map " << AddressMapName(cfg.address_map) << " cap " << cfg.row_hit_cap << " ("
     << RowHitCountName(cfg.row_hit_count) << ")"
     << " depth " << cfg.queue_depth << " starve " << cfg.starvation_cycles << " capacity " << cfg.capacity_bytes;
  *what = os.str();
  return cfg;
}

// The request stream: a phase picks a mix and a load; the producer retries a refused request
// until it is taken (as the bridge's in-order submission queue does).
class Traffic {
 public:
  Traffic(std::mt19937_64& rng, const HbmConfig& cfg, const HbmAddressMap& map) : rng_(rng), cfg_(cfg), map_(map) {}

  // Requests to offer this cycle (0 in an idle gap).
  uint32_t Offers(uint64_t cycle) {
    if (cycle >= phase_end_) NewPhase(cycle);
    if (idle_) return 0;
    return rate_ == 0 ? (rng_() % 8 == 0) : static_cast<uint32_t>(rng_() % (rate_ + 1));
  }

  HbmRequest Next() {
    HbmRequest r;
    r.tag = next_tag_++;
    const uint64_t blocks = cfg_.capacity_bytes / 64;
    uint64_t block = 0;
    switch (mix_) {
      case 0:  // random anywhere
        block = rng_() % blocks;
        r.is_write = rng_() % 2;
        break;
      case 1:  // a few hot blocks: same-atom read/write hazards
        block = (base_ + rng_() % 8) % blocks;
        r.is_write = rng_() % 2;
        break;
      case 2:  // a copy: read a stream, write another
        r.is_write = n_ & 1;
        block = (base_ + n_ / 2 + (r.is_write ? blocks / 2 : 0)) % blocks;
        break;
      case 3:  // power-of-two strided reads
        block = (base_ + n_ * (stride_ / 64)) % blocks;
        r.is_write = false;
        break;
      default: {  // two streams into two rows of the same banks
        HbmLocation l = map_.Decode(((base_ + n_ / 2) % (blocks / 2)) * 64);
        if (n_ & 1) l.row = (l.row + 1 + base_ % 3) % map_.rows_per_bank();
        block = (map_.Encode(l) & ~63ull) / 64;
        r.is_write = rng_() % 4 == 0;
        break;
      }
    }
    ++n_;
    const bool full = rng_() % 3 != 0;
    const uint32_t off = full ? 0 : static_cast<uint32_t>(rng_() % 64);
    r.addr = block * 64 + off;
    r.len = full ? 64 : 1 + static_cast<uint32_t>(rng_() % (64 - off));
    if (r.is_write) {
      r.byte_enable = rng_() % 4 == 0 ? rng_() : ~0ull;
      for (uint32_t i = 0; i < r.len; ++i) r.data[i] = static_cast<uint8_t>(rng_());
    }
    return r;
  }

 private:
  void NewPhase(uint64_t cycle) {
    idle_ = rng_() % 6 == 0;
    mix_ = static_cast<int>(rng_() % 5);
    const uint32_t rates[] = {0, 1, 2, 4, 8, 64};
    rate_ = rates[rng_() % 6];
    base_ = rng_();
    n_ = 0;
    stride_ = 512ull << (rng_() % 5);
    phase_end_ = cycle + 200 + rng_() % (idle_ ? 6000 : 3000);
  }

  std::mt19937_64& rng_;
  const HbmConfig& cfg_;
  const HbmAddressMap& map_;
  uint64_t phase_end_ = 0, base_ = 0, n_ = 0, stride_ = 512, next_tag_ = 0;
  uint32_t rate_ = 0;
  int mix_ = 0;
  bool idle_ = false;
};

// Runs one seed for `cycles` cycles; fails at the first difference.
void RunSeed(uint64_t seed, uint64_t cycles) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 1);
  std::string what;
  const HbmConfig cfg = DrawConfig(rng, &what);
  SCOPED_TRACE("seed " + std::to_string(seed) + ": " + what);
  HbmModel fast(cfg);
  reference::HbmModel ref(cfg);
  std::vector<HbmCommand> fast_cmds, ref_cmds;
  fast.SetCommandObserver([&](const HbmCommand& c) { fast_cmds.push_back(c); });
  ref.SetCommandObserver([&](const HbmCommand& c) { ref_cmds.push_back(c); });
  // Half the seeds take responses through the callback and, like the bridge's COPY, submit a
  // write from inside it (from the same generator, so both models see the same request).
  const bool callback = seed % 2 == 1;
  std::vector<HbmResponse> fast_resp, ref_resp;
  std::mt19937_64 cb_rng(seed);
  std::vector<HbmRequest> cb_requests;  // what the reference's callback submitted, replayed by fast's
  size_t cb_next = 0;
  std::vector<bool> cb_ok;
  if (callback) {
    ref.SetResponseCallback([&](const HbmResponse& r) {
      ref_resp.push_back(r);
      if (!r.is_write && cb_rng() % 2 == 0) {
        HbmRequest w;
        w.tag = (1ull << 40) + r.tag;
        w.addr = (r.addr + cfg.capacity_bytes / 2) % cfg.capacity_bytes / 64 * 64 + r.addr % 64;
        w.len = r.len;
        w.is_write = true;
        w.data = r.data;
        cb_requests.push_back(w);
        cb_ok.push_back(ref.Submit(w));
      }
    });
    fast.SetResponseCallback([&](const HbmResponse& r) {
      fast_resp.push_back(r);
      if (!r.is_write && cb_next < cb_requests.size() && cb_requests[cb_next].tag == (1ull << 40) + r.tag) {
        const bool ok = fast.Submit(cb_requests[cb_next]);
        EXPECT_EQ(ok, cb_ok[cb_next]) << "callback submit of tag " << cb_requests[cb_next].tag;
        ++cb_next;
      }
    });
  }
  Traffic traffic(rng, cfg, fast.address_map());
  HbmRequest pending;
  bool have_pending = false;
  const uint64_t reset_at = rng() % cycles;
  for (uint64_t cycle = 0; cycle < cycles; ++cycle) {
    const uint32_t offers = traffic.Offers(cycle);
    for (uint32_t k = 0; k < offers; ++k) {
      if (!have_pending) {
        pending = traffic.Next();
        have_pending = true;
      }
      ASSERT_EQ(fast.CanAccept(pending.addr, pending.len), ref.CanAccept(pending.addr, pending.len))
          << "cycle " << cycle;
      const bool a = fast.Submit(pending), b = ref.Submit(pending);
      ASSERT_EQ(a, b) << "Submit of tag " << pending.tag << " at cycle " << cycle;
      if (!a) break;
      have_pending = false;
    }
    if (cycle == reset_at) {
      fast.ResetStats();
      ref.ResetStats();
    }
    ref.Tick();  // the reference first: fast's callback replays what the reference's submitted
    fast.Tick();
    if (!callback) {
      HbmResponse r;
      while (ref.PopResponse(&r)) ref_resp.push_back(r);
      while (fast.PopResponse(&r)) fast_resp.push_back(r);
    }
    ASSERT_EQ(fast_cmds.size(), ref_cmds.size()) << "commands by cycle " << cycle;
    for (size_t i = 0; i < ref_cmds.size(); ++i) {
      ASSERT_TRUE(fast_cmds[i] == ref_cmds[i])
          << "cycle " << cycle << ": " << Describe(fast_cmds[i]) << " vs reference " << Describe(ref_cmds[i]);
    }
    fast_cmds.clear();
    ref_cmds.clear();
    ASSERT_EQ(fast_resp.size(), ref_resp.size()) << "responses by cycle " << cycle;
    for (size_t i = 0; i < ref_resp.size(); ++i)
      ASSERT_NO_FATAL_FAILURE(ExpectSameResponse(fast_resp[i], ref_resp[i], cycle));
    fast_resp.clear();
    ref_resp.clear();
    ASSERT_EQ(fast.Now(), ref.Now());
    ASSERT_EQ(fast.Outstanding(), ref.Outstanding()) << "cycle " << cycle;
    ASSERT_EQ(fast.Idle(), ref.Idle()) << "cycle " << cycle;
    ASSERT_EQ(fast.ResponsesReady(), ref.ResponsesReady()) << "cycle " << cycle;
  }
  ASSERT_NO_FATAL_FAILURE(ExpectSameStats(fast.Stats(), ref.Stats()));
  EXPECT_EQ(fast.RunUntilIdle(1000000), ref.RunUntilIdle(1000000));
  ASSERT_NO_FATAL_FAILURE(ExpectSameStats(fast.Stats(), ref.Stats()));
  // The backing stores hold the same bytes wherever the traffic could have written.
  const uint64_t chunk = std::min<uint64_t>(4096, cfg.capacity_bytes / 64);
  std::vector<uint8_t> a(chunk), b(chunk);
  for (uint64_t addr = 0; addr < cfg.capacity_bytes; addr += cfg.capacity_bytes / 64) {
    ASSERT_TRUE(fast.ReadDebug(addr, a.data(), chunk));
    ASSERT_TRUE(ref.ReadDebug(addr, b.data(), chunk));
    ASSERT_EQ(a, b) << "memory at " << addr;
  }
  EXPECT_EQ(fast.memory().pages_allocated(), ref.memory().pages_allocated());
}

class HbmEquivalence : public ::testing::TestWithParam<int> {};

TEST_P(HbmEquivalence, SameCommandsResponsesAndStatsAsTheReference) { RunSeed(GetParam(), 12000); }

INSTANTIATE_TEST_SUITE_P(Seeds, HbmEquivalence, ::testing::Range(0, 64));

TEST(HbmEquivalenceSoak, ExtraSeedsFromTheEnvironment) {
  const char* n = std::getenv("STRATA_HBM_EQUIV_SEEDS");
  const int seeds = n ? std::atoi(n) : 0;
  if (seeds == 0) GTEST_SKIP() << "set STRATA_HBM_EQUIV_SEEDS=N for N more seeds";
  for (int s = 0; s < seeds; ++s) {
    ASSERT_NO_FATAL_FAILURE(RunSeed(1000 + s, 20000));
  }
}

}  // namespace
}  // namespace strata::hbm
