// replay::BuildEvents, the replay order every tool walks, held event by event to a plain reference (sort by time,
// frees first, then file order) on random traces: small times (the packed-key sort), times past 2^31 (the comparison
// sort), many ties, and the same trace asked again after a change to one span, a buffer more or one fewer (the kept
// order of the last trace must never answer for a different one).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include "trace.h"

namespace {

using strata::replay::BuildEvents;
using strata::replay::Event;
using strata::replay::Trace;
using strata::replay::TraceBuffer;

std::vector<std::tuple<uint64_t, uint32_t, uint32_t>> Reference(const Trace& trace) {
  std::vector<std::tuple<uint64_t, uint32_t, uint32_t>> out;
  for (uint32_t i = 0; i < trace.buffers.size(); ++i) {
    out.emplace_back(trace.buffers[i].upper, 0, i);
    out.emplace_back(trace.buffers[i].lower, 1, i);
  }
  std::stable_sort(out.begin(), out.end());
  return out;
}

void ExpectReplayOrder(const Trace& trace, const std::string& what) {
  const std::vector<Event> got = BuildEvents(trace);
  const auto want = Reference(trace);
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t k = 0; k < got.size(); ++k) {
    ASSERT_EQ(std::make_tuple(got[k].time, got[k].kind, got[k].buffer), want[k]) << what << ", event " << k;
  }
}

Trace RandomTrace(std::mt19937_64& rng, size_t n, uint64_t horizon, uint64_t base = 0) {
  Trace t;
  std::uniform_int_distribution<uint64_t> time(0, horizon - 1);
  for (size_t i = 0; i < n; ++i) {
    TraceBuffer b;
    b.id = static_cast<int64_t>(i);
    b.lower = base + time(rng);
    b.upper = b.lower + 1 + time(rng) % 64;
    b.size = 1 + time(rng);
    t.buffers.push_back(b);
  }
  return t;
}

TEST(ReplayEvents, MatchesTheReferenceOnRandomTraces) {
  std::mt19937_64 rng(7);
  // Horizons from "every event ties" to times past 2^31 and near 2^62 (kMaxTraceBytes-sized times are legal).
  const uint64_t horizons[] = {
      1, 4, 100, 1u << 20, (uint64_t{1} << 31) - 65, uint64_t{1} << 31, uint64_t{1} << 40, uint64_t{1} << 62};
  for (const uint64_t horizon : horizons) {
    for (int round = 0; round < 20; ++round) {
      const Trace t = RandomTrace(rng, 1 + rng() % 500, horizon);
      ExpectReplayOrder(t, "horizon " + std::to_string(horizon) + " round " + std::to_string(round));
    }
  }
  // Around the packed key's limit: the last time just below 2^31, at it, and every time past it.
  for (const uint64_t base : {(uint64_t{1} << 31) - 200, (uint64_t{1} << 31) - 1, uint64_t{1} << 31}) {
    for (int round = 0; round < 20; ++round) {
      const Trace t = RandomTrace(rng, 1 + rng() % 500, 100, base);
      ExpectReplayOrder(t, "base " + std::to_string(base) + " round " + std::to_string(round));
    }
  }
}

TEST(ReplayEvents, AChangedTraceIsSortedAgain) {
  std::mt19937_64 rng(11);
  Trace t = RandomTrace(rng, 300, 50);
  ExpectReplayOrder(t, "first");
  ExpectReplayOrder(t, "the same again");
  const Trace copy = t;
  ExpectReplayOrder(copy, "an equal copy");
  for (int round = 0; round < 200; ++round) {
    TraceBuffer& b = t.buffers[rng() % t.buffers.size()];
    switch (rng() % 5) {
      case 0:
        b.lower = b.lower > 0 ? b.lower - 1 : b.lower + 1;
        break;
      case 1:
        ++b.upper;
        break;
      case 2:
        t.buffers.push_back(b);
        break;
      case 3:
        if (t.buffers.size() > 1) t.buffers.pop_back();
        break;
      default:
        b.size += 1;  // not a span: the order stays
        break;
    }
    ExpectReplayOrder(t, "change " + std::to_string(round));
  }
  Trace empty;
  EXPECT_TRUE(BuildEvents(empty).empty());
  ExpectReplayOrder(copy, "the first trace again");
}

}  // namespace
