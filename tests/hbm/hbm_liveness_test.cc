// Liveness of the HBM scheduler (issue [T]): no stream and no controller setting stalls a
// pseudo-channel or pins it in FCFS, and the row-hit cap counts what each rule says.
//
// The streams are the ones that broke the scheduler before: a rotation over K rows of one bank
// (request i to row K*floor(i/32K) + i mod K, column floor(i/K) mod 32: all addresses distinct),
// which stopped a pseudo-channel for good once its oldest access started to starve while being a
// row hit, and an alternating two-row stream, which the old starvation guard (measured from
// submission) turned into FCFS as soon as queueing delay passed `starvation_cycles`. Each run is
// open loop: the producer submits as fast as the queue takes requests, so the queue stays full.
//
// Every run must drain, every response must come within RequestWaitBound() (plus its own CL and
// burst) of its submission, and the model's own liveness check (HeadWaitBound(), which throws)
// must never fire. Bandwidth is checked against the analytic single-bank bound for the columns
// served per ACT, c: 32 B * c per max(tRC, tRCD + (c - 1) * tCCD_L + tRTP + tRP) (one bank: an ACT,
// its columns tCCD_L apart in one bank group, the PRE tRTP after the last, the next ACT tRP later,
// and never two ACTs closer than tRC).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "hbm/hbm_model.h"
#include "hbm_test_util.h"

namespace strata::hbm {
namespace {

using testing::Read;
using testing::Write;

struct Outcome {
  bool drained = false;
  std::string error;  // the model's liveness message, if it threw
  uint64_t cycles = 0;
  uint64_t max_latency = 0;
  uint64_t columns = 0;
  uint64_t activates = 0;
  double BytesPerCycle() const { return cycles ? 32.0 * columns / static_cast<double>(cycles) : 0; }
  double ColumnsPerAct() const { return activates ? static_cast<double>(columns) / activates : 0; }
};

// Submits `reqs` in order, as many per cycle as the queues take, and ticks until every response is
// back or `limit` cycles pass.
Outcome RunOpenLoop(HbmModel& m, const std::vector<HbmRequest>& reqs, uint64_t limit) {
  Outcome out;
  size_t next = 0, done = 0;
  HbmResponse r;
  const uint64_t start = m.Now();
  try {
    while (done < reqs.size() && m.Now() - start < limit) {
      while (next < reqs.size() && m.Submit(reqs[next])) ++next;
      m.Tick();
      while (m.PopResponse(&r)) {
        ++done;
        out.max_latency = std::max(out.max_latency, r.Latency());
      }
    }
  } catch (const std::logic_error& e) {
    out.error = e.what();
  }
  out.drained = done == reqs.size();
  out.cycles = m.Now() - start;
  const HbmStats s = m.Stats();
  for (const HbmChannelStats& pc : s.pc) {
    out.columns += pc.reads + pc.writes;
    out.activates += pc.activates;
  }
  return out;
}

// The K-row rotation of the issue, `bytes` long, in pseudo-channel 0, bank 0.
std::vector<HbmRequest> Rotation(const HbmAddressMap& map, uint32_t k, uint64_t bytes) {
  std::vector<HbmRequest> reqs;
  for (uint64_t i = 0; i < bytes / 32; ++i) {
    HbmLocation l{};
    l.row = k * (i / (32 * k)) + i % k;
    l.column = static_cast<uint32_t>((i / k) % 32);
    reqs.push_back(Read(map.Encode(l), 32, i));
  }
  return reqs;
}

// Reads alternating between rows 0 and 1 of pseudo-channel 0, bank 0 (request i: row i mod 2,
// column floor(i/2) mod 32), `bytes` long: a row-conflict stream where a conflict always waits.
std::vector<HbmRequest> Alternating(const HbmAddressMap& map, uint64_t bytes) {
  std::vector<HbmRequest> reqs;
  for (uint64_t i = 0; i < bytes / 32; ++i) {
    HbmLocation l{};
    l.row = i % 2;
    l.column = static_cast<uint32_t>((i / 2) % 32);
    reqs.push_back(Read(map.Encode(l), 32, i));
  }
  return reqs;
}

HbmConfig Config(uint32_t cap, RowHitCount count, uint32_t depth, RefreshMode refresh) {
  HbmConfig cfg = HbmConfig::Hbm2(1ull << 30);
  cfg.row_hit_cap = cap;
  cfg.row_hit_count = count;
  cfg.queue_depth = depth;
  cfg.refresh = refresh;
  return cfg;
}

std::string Name(const HbmConfig& cfg) {
  return std::string("cap ") + std::to_string(cfg.row_hit_cap) + " (" + RowHitCountName(cfg.row_hit_count) +
         ") queue " + std::to_string(cfg.queue_depth) + " refresh " + RefreshModeName(cfg.refresh) + " guard " +
         std::to_string(cfg.starvation_cycles);
}

// The analytic single-bank bound for c columns per ACT (reads), bytes per cycle.
double SingleBankBound(const HbmModel& m, double c) {
  const HbmCycles& cy = m.cycles();
  const double row_cycle = std::max(static_cast<double>(cy.rc),
                                    static_cast<double>(cy.rcd + cy.rtp + cy.rp) + (c - 1) * cy.ccd_l_mc / 1000.0);
  return 32.0 * c / row_cycle;
}

void ExpectLive(const HbmModel& m, const Outcome& o, const std::string& what) {
  EXPECT_EQ(o.error, "") << what;
  ASSERT_TRUE(o.drained) << what << ": did not drain in " << o.cycles << " cycles";
  EXPECT_LE(o.max_latency, m.RequestWaitBound() + m.RowHitLatency()) << what;
}

// The stalling streams: K = 2, 3, 4, 8, 16 rows of one bank, every cap 0-8, both counts,
// queues 64 and 128, refresh off, per bank and all bank. Each drains within the bound, and its
// bandwidth is at least 0.9 of the analytic bound for the columns per ACT it achieved, and at most
// the bound (a stalled or FCFS-pinned pseudo-channel fails the first; a wrong timing the second).
TEST(HbmLiveness, RowRotationsDrainWithinTheBoundAtEverySetting) {
  for (const RefreshMode refresh : {RefreshMode::kOff, RefreshMode::kPerBank, RefreshMode::kAllBank}) {
    for (const uint32_t depth : {64u, 128u}) {
      for (const RowHitCount count : {RowHitCount::kSinceActivate, RowHitCount::kBypasses}) {
        for (uint32_t cap = 0; cap <= 8; ++cap) {
          for (const uint32_t k : {2u, 3u, 4u, 8u, 16u}) {
            HbmModel m(Config(cap, count, depth, refresh));
            const std::string what = Name(m.config()) + " K " + std::to_string(k);
            const Outcome o = RunOpenLoop(m, Rotation(m.address_map(), k, 128 << 10), 50'000'000);
            ExpectLive(m, o, what);
            const double bound = SingleBankBound(m, o.ColumnsPerAct());
            // Refresh takes tRFC (all bank) or tRFCsb of the bank every tREFI, not in the bound.
            const double refresh_share = refresh == RefreshMode::kOff       ? 1.0
                                         : refresh == RefreshMode::kPerBank ? 0.9
                                                                            : 0.85;
            EXPECT_GE(o.BytesPerCycle(), 0.9 * refresh_share * bound) << what << " columns/ACT " << o.ColumnsPerAct();
            EXPECT_LE(o.BytesPerCycle(), bound * 1.001) << what;
            // Never FCFS: an open row serves more than one column whenever the cap allows it.
            if (cap != 1 || count == RowHitCount::kBypasses) {
              EXPECT_GT(o.ColumnsPerAct(), 1.5) << what;
            }
          }
        }
      }
    }
  }
}

// The stream of the issue at its full size (1 MiB) with the default controller, every K: the old
// scheduler issued no command after 2.79 us with refresh off.
TEST(HbmLiveness, DefaultControllerDrainsAMegabyteRotation) {
  for (const uint32_t k : {2u, 3u, 4u, 8u, 16u}) {
    HbmConfig cfg = HbmConfig::Hbm2(1ull << 30);
    cfg.refresh = RefreshMode::kOff;
    HbmModel m(cfg);
    const Outcome o = RunOpenLoop(m, Rotation(m.address_map(), k, 1 << 20), 50'000'000);
    ExpectLive(m, o, "K " + std::to_string(k));
  }
}

// Columns per ACT on the alternating two-row stream (queue full of both rows, refresh off): every
// column since the ACT counted, an open row serves exactly `cap` columns; bypassing hits counted,
// the row that opens for the waiting access serves it, the hits older than the next waiting access
// and `cap` bypassing ones: 2 * cap + 1 (the first ACT, with nothing older, cap + 1).
TEST(HbmLiveness, ColumnsPerActMatchEachCountingRule) {
  for (const uint32_t depth : {64u, 128u}) {
    for (uint32_t cap = 1; cap <= 8; ++cap) {
      for (const RowHitCount count : {RowHitCount::kSinceActivate, RowHitCount::kBypasses}) {
        HbmModel m(Config(cap, count, depth, RefreshMode::kOff));
        const std::string what = Name(m.config());
        const Outcome o = RunOpenLoop(m, Alternating(m.address_map(), 256 << 10), 50'000'000);
        ExpectLive(m, o, what);
        const double expected = count == RowHitCount::kSinceActivate ? cap : 2.0 * cap + 1;
        EXPECT_NEAR(o.ColumnsPerAct(), expected, 0.02 * expected) << what;
      }
    }
  }
}

// The guard promotes the oldest access only: with a deep queue whose accesses all wait longer than
// `starvation_cycles` from submission, the old guard closed every row after one column (FCFS,
// 1.2 GB/s on two rows). Now each row still serves its cap's columns.
TEST(HbmLiveness, TheGuardIsNotAPermanentFcfsMode) {
  for (const uint32_t guard : {1000u, 200u}) {
    HbmConfig cfg = Config(2, RowHitCount::kSinceActivate, 128, RefreshMode::kOff);
    cfg.starvation_cycles = guard;
    HbmModel m(cfg);
    const Outcome o = RunOpenLoop(m, Alternating(m.address_map(), 256 << 10), 50'000'000);
    ExpectLive(m, o, Name(cfg));
    EXPECT_GT(o.max_latency, guard) << "the queue must wait past the guard for this test to mean anything";
    EXPECT_NEAR(o.ColumnsPerAct(), 2.0, 0.04) << Name(cfg);
  }
}

// Without a cap the guard is the only bound: a steady stream of hits to the open row of one bank
// and one request to another row; it is served within HeadWaitBound() of becoming the oldest.
TEST(HbmLiveness, WithoutACapTheGuardBoundsTheWaitBehindHits) {
  for (const uint32_t guard : {0u, 50u, 1000u}) {
    HbmConfig cfg = Config(0, RowHitCount::kSinceActivate, 64, RefreshMode::kPerBank);
    cfg.starvation_cycles = guard;
    HbmModel m(cfg);
    const HbmAddressMap& map = m.address_map();
    HbmLocation open{};
    open.row = 1;
    testing::RunOne(m, Read(map.Encode(open)));
    HbmLocation other = open;
    other.row = 2;
    const uint64_t submitted = m.Now();
    ASSERT_TRUE(m.Submit(Read(map.Encode(other), 32, 1)));
    uint64_t waited = 0;
    HbmResponse r;
    for (uint64_t t = 0; t < 20 * m.HeadWaitBound() && !waited; ++t) {
      HbmLocation hit = open;
      hit.column = t % 32;
      hit.row = open.row;
      m.Submit(Read(map.Encode(hit), 32, 100));
      m.Tick();
      while (m.PopResponse(&r)) {
        if (r.tag == 1) waited = m.Now() - submitted;
      }
    }
    ASSERT_GT(waited, 0u) << "guard " << guard;
    EXPECT_LE(waited, m.HeadWaitBound() + m.RowHitLatency()) << "guard " << guard;
    EXPECT_GE(waited, guard) << "guard " << guard;
  }
}

// docs/hbm.md quotes the bound for the default HBM2 (per-bank refresh) and with refresh off. It is a figure of the
// code, not of a command's output, so no doc example can show it: this test reads the page (docs/doc-tests.md,
// "Figures from the code"), and a change to the formula or the defaults fails here until the page says the same.
TEST(HbmLiveness, HeadWaitBoundIsTheOneDocsHbmQuotes) {
  std::ifstream page(STRATA_DOCS_HBM);
  ASSERT_TRUE(page) << STRATA_DOCS_HBM;
  std::stringstream text;
  text << page.rdbuf();
  std::string flat = text.str();
  std::replace(flat.begin(), flat.end(), '\n', ' ');
  // "— 1518 cycles for HBM2 at 1 GHz with the defaults (per-bank refresh), 1168 with refresh off"
  const std::string phrase = " cycles for HBM2 at 1 GHz with the defaults (per-bank refresh), ";
  const size_t at = flat.find(phrase);
  ASSERT_NE(at, std::string::npos) << STRATA_DOCS_HBM << " no longer quotes the bound as this test reads it";
  auto number_before = [&](size_t end) {  // the number (with thousands commas) that ends at `end`
    size_t begin = end;
    while (begin > 0 && (std::isdigit(static_cast<unsigned char>(flat[begin - 1])) || flat[begin - 1] == ',')) --begin;
    std::string digits;
    for (size_t i = begin; i < end; ++i) {
      if (flat[i] != ',') digits += flat[i];
    }
    return digits.empty() ? uint64_t{0} : std::stoull(digits);
  };
  const size_t off = flat.find(" with refresh off", at + phrase.size());
  ASSERT_NE(off, std::string::npos) << STRATA_DOCS_HBM;
  const uint64_t with_defaults = number_before(at), refresh_off = number_before(off);
  HbmConfig cfg = HbmConfig::Hbm2(1ull << 30);  // the defaults: per-bank refresh, guard 1000
  ASSERT_EQ(cfg.refresh, RefreshMode::kPerBank);
  EXPECT_EQ(HbmModel(cfg).HeadWaitBound(), with_defaults) << "docs/hbm.md's bound with the defaults";
  cfg.refresh = RefreshMode::kOff;
  EXPECT_EQ(HbmModel(cfg).HeadWaitBound(), refresh_off) << "docs/hbm.md's bound with refresh off";
}

// A randomized liveness property: streams concentrated on one to three banks and two to five rows,
// reads and writes mixed, same-atom hazards, bursts and pauses, 64-byte requests across the two
// pseudo-channels of a channel, under random controller settings (cap 0-8 and both counts, queue
// 2-128, guard 0-2000, every refresh mode, both maps). Each must drain within the bound.
TEST(HbmLiveness, RandomConcentratedStreamsDrainAtEverySetting) {
  const int seeds = 300;
  for (int seed = 0; seed < seeds; ++seed) {
    std::mt19937_64 rng(0x7e57 + seed);
    HbmConfig cfg = HbmConfig::Hbm2(1ull << 30);
    cfg.row_hit_cap = static_cast<uint32_t>(rng() % 9);
    cfg.row_hit_count = rng() % 2 ? RowHitCount::kSinceActivate : RowHitCount::kBypasses;
    const uint32_t depths[] = {2, 3, 8, 16, 64, 100, 128};
    cfg.queue_depth = depths[rng() % 7];
    const uint32_t guards[] = {0, 1, 5, 40, 200, 1000, 2000};
    cfg.starvation_cycles = guards[rng() % 7];
    const RefreshMode refresh[] = {RefreshMode::kOff, RefreshMode::kPerBank, RefreshMode::kAllBank};
    cfg.refresh = refresh[rng() % 3];
    cfg.address_map = rng() % 2 ? AddressMap::kXorHash : AddressMap::kLinear;
    HbmModel m(cfg);
    const HbmAddressMap& map = m.address_map();
    const uint32_t banks = 1 + static_cast<uint32_t>(rng() % 3), rows = 2 + static_cast<uint32_t>(rng() % 4);
    const double write_share = (rng() % 3) / 2.0;  // none, half, all
    std::vector<HbmRequest> reqs;
    for (int i = 0; i < 3000; ++i) {
      HbmLocation l{};
      l.bank_group = static_cast<uint32_t>(rng() % banks) % cfg.bank_groups;
      l.bank = static_cast<uint32_t>(rng() % banks) / cfg.bank_groups;
      l.row = rng() % rows;
      l.column = static_cast<uint32_t>(rng() % 4);  // few columns: many same-atom hazards
      const uint64_t addr = map.Encode(l) & ~63ull;
      const uint32_t len = rng() % 4 == 0 ? 64 : 32;
      const bool write = std::uniform_real_distribution<double>(0, 1)(rng) < write_share;
      reqs.push_back(write ? Write(addr, len, static_cast<uint8_t>(i), i) : Read(addr, len, i));
    }
    const Outcome o = RunOpenLoop(m, reqs, 50'000'000);
    ExpectLive(m, o, "seed " + std::to_string(seed) + ": " + Name(cfg));
    if (::testing::Test::HasFailure()) return;
  }
}

}  // namespace
}  // namespace strata::hbm
