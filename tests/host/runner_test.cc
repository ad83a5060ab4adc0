// The runner's one loop (host/replay/runner.h) on the gpu-emu backend, against a second, plain bookkeeping of the
// same merged events: two workloads on two contexts with quotas (the only thing that can fail on a device this
// large), each context's allocations, frees, failures and first OOM, and the trace's live bytes every hook sees.
// Then the loop's own rules: a size above the limit fails without a call, a hook that says no stops the run, and a
// stream list that does not fit the events is refused.
#include "runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "strata/quota.h"
#include "strata/strata.hpp"

namespace strata::replay {
namespace {

Trace RandomTrace(uint32_t seed, uint32_t buffers) {
  std::mt19937 rng(seed);
  Trace t;
  t.name = "random" + std::to_string(seed);
  for (uint32_t i = 0; i < buffers; ++i) {
    TraceBuffer b;
    b.id = 1000 * seed + i;
    b.lower = rng() % (4 * buffers);
    b.upper = b.lower + 1 + rng() % 300;
    b.size = rng() % 7 == 0 ? 0 : 1 + rng() % (3u << 20);
    b.line = i + 2;
    t.buffers.push_back(b);
  }
  return t;
}

// A device of `total` bytes on gpu-emu under `policy`; closed when the test ends.
struct Device {
  strata_device* d = nullptr;
  Device(uint64_t total, const char* policy) {
    NamedOptions named("gpu-emu");
    named.Add("policy", policy);
    named.Add("total_bytes", total);
    named.Add("context_bytes", 0);
    strata_open_options o{};
    o.struct_size = sizeof o;
    o.named_options = named.data();
    o.num_named_options = named.size();
    EXPECT_EQ(strata_open("gpu-emu", &o, &d), STRATA_OK) << strata_last_error_message();
  }
  ~Device() { strata_close(d); }
  strata_context Context(uint64_t quota) {
    strata_context_options co{};
    co.struct_size = sizeof co;
    co.quota_bytes = quota;
    strata_context c = 0;
    EXPECT_EQ(strata_context_create(d, &co, &c), STRATA_OK) << strata_last_error_message();
    return c;
  }
};

// Two traces' events merged by time (ties: the first trace first), with each event's stream.
void Merge(const Trace& a, const Trace& b, std::vector<Event>* events, std::vector<uint32_t>* stream_of) {
  struct Tagged {
    Event e;
    uint32_t stream;
  };
  std::vector<Tagged> all;
  for (const Event& e : BuildEvents(a)) all.push_back({e, 0});
  for (const Event& e : BuildEvents(b)) all.push_back({e, 1});
  std::stable_sort(all.begin(), all.end(), [](const Tagged& x, const Tagged& y) { return x.e.time < y.e.time; });
  for (const Tagged& t : all) {
    events->push_back(t.e);
    stream_of->push_back(t.stream);
  }
}

TEST(Runner, StreamsKeepTheirOwnBooks) {
  size_t failures_seen = 0;
  for (uint32_t seed = 1; seed <= 10; ++seed) {
    const Trace traces[2] = {RandomTrace(seed, 200), RandomTrace(seed + 100, 200)};
    std::vector<Event> events;
    std::vector<uint32_t> stream_of;
    Merge(traces[0], traces[1], &events, &stream_of);
    uint64_t sum = 0;
    for (const Trace& t : traces) {
      for (const TraceBuffer& b : t.buffers) sum += b.size;
    }
    // Quotas below each workload's peak, so that both contexts are refused at times.
    uint64_t quota[2];
    for (int s = 0; s < 2; ++s) quota[s] = MaxLoad(traces[s], 1) * (5 + seed % 4) / 10;
    Device dev(2 * sum + (64u << 20), seed % 2 ? "tf-growth" : "torch");
    const std::vector<RunStream> streams = {{&traces[0], dev.Context(quota[0])}, {&traces[1], dev.Context(quota[1])}};

    // The plain bookkeeping: requested bytes live per context, the quota rule, no device limit.
    struct Book {
      uint64_t live = 0, trace_live = 0, allocs = 0, frees = 0, failed = 0;
      int64_t first_oom = -1;
      std::vector<bool> held;
    } book[2];
    for (int s = 0; s < 2; ++s) book[s].held.assign(traces[s].buffers.size(), false);
    std::vector<uint64_t> expected_live(events.size());
    for (size_t i = 0; i < events.size(); ++i) {
      Book& k = book[stream_of[i]];
      const TraceBuffer& b = traces[stream_of[i]].buffers[events[i].buffer];
      if (events[i].kind == 1) {
        ++k.allocs;
        k.trace_live += b.size;
        if (b.size != 0 && strata_quota_admits(quota[stream_of[i]], k.live, b.size)) {
          k.live += b.size;
          k.held[events[i].buffer] = true;
        } else if (b.size != 0) {
          ++k.failed;
          if (k.first_oom < 0) k.first_oom = static_cast<int64_t>(i);
        }
      } else {
        k.trace_live -= b.size;
        if (k.held[events[i].buffer]) {
          ++k.frees;
          k.live -= b.size;
          k.held[events[i].buffer] = false;
        }
      }
      expected_live[i] = k.trace_live;
    }

    RunOptions o;
    o.oom_info = true;
    o.skip_zero_bytes = true;
    size_t hooked = 0, failures_hooked = 0;
    o.after_event = [&](const RunStep& step) {
      if (step.oom != nullptr) {  // every failure, with what the device said of it
        ++failures_hooked;
        EXPECT_EQ(step.oom->event, static_cast<int64_t>(step.index));
        EXPECT_EQ(step.oom->info.context_quota_bytes, quota[step.stream]);
        EXPECT_EQ(step.oom->info.request_bytes, step.buffer->size);
      }
      EXPECT_EQ(step.index, hooked);
      EXPECT_EQ(step.stream, stream_of[step.index]);
      EXPECT_EQ(step.live_bytes, expected_live[step.index]) << "seed " << seed << " event " << step.index;
      ++hooked;
      return true;
    };
    RunResult r;
    std::string error;
    ASSERT_TRUE(RunEvents(dev.d, streams, events, &stream_of, o, &r, &error)) << error;
    EXPECT_EQ(hooked, events.size());
    EXPECT_EQ(r.events, events.size());
    uint64_t failed = 0;
    for (int s = 0; s < 2; ++s) {
      const RunStreamResult& got = r.streams[s];
      EXPECT_EQ(got.allocs, book[s].allocs) << "seed " << seed << " stream " << s;
      EXPECT_EQ(got.frees, book[s].frees) << "seed " << seed << " stream " << s;
      EXPECT_EQ(got.failed_allocs, book[s].failed) << "seed " << seed << " stream " << s;
      EXPECT_EQ(got.first_oom.event, book[s].first_oom) << "seed " << seed << " stream " << s;
      if (got.first_oom.event >= 0) {
        EXPECT_EQ(got.first_oom.kind, STRATA_OOM_CAP);
        EXPECT_EQ(got.first_oom.stream, static_cast<uint32_t>(s));
        EXPECT_EQ(got.first_oom.info.context_quota_bytes, quota[s]);
      }
      failed += book[s].failed;
    }
    EXPECT_EQ(r.failed_allocs, failed);
    EXPECT_EQ(failures_hooked, failed);
    EXPECT_EQ(r.stats.oom_cap, failed);            // every failure a quota refusal, by the device's count
    EXPECT_EQ(r.stats.num_failed_allocs, failed);  // the device counted the same refusals
    const int64_t first = std::min<uint64_t>(book[0].first_oom, book[1].first_oom);
    EXPECT_EQ(r.first_oom.event, first);
    failures_seen += failed;
  }
  EXPECT_GT(failures_seen, 50u);  // the quotas did refuse
}

// record_places with places_every_stream: both streams' buffers placed, the second's numbered after the first's;
// each allocated buffer has spans that tile its lifetime in events (it is never moved here), and no two spans open
// at once overlap in addresses. Without it, stream 0's alone, as before.
TEST(Runner, PlacesEveryStreamNumberedStreamByStream) {
  const Trace traces[2] = {RandomTrace(21, 60), RandomTrace(22, 50)};
  std::vector<Event> events;
  std::vector<uint32_t> stream_of;
  Merge(traces[0], traces[1], &events, &stream_of);
  for (const bool every : {true, false}) {
    SCOPED_TRACE(every);
    Device dev(uint64_t{1} << 34, "torch");
    const std::vector<RunStream> streams = {{&traces[0], dev.Context(0)}, {&traces[1], dev.Context(0)}};
    RunOptions o;
    o.record_places = true;
    o.places_every_stream = every;
    o.skip_zero_bytes = true;
    RunResult r;
    std::string error;
    ASSERT_TRUE(RunEvents(dev.d, streams, events, &stream_of, o, &r, &error)) << error;
    ASSERT_EQ(r.failed_allocs, 0u);
    // Where each event of each buffer is, as the plain walk over the events says (alloc index, free index).
    const size_t first1 = traces[0].buffers.size(), all = first1 + traces[1].buffers.size();
    std::vector<uint64_t> from(all, UINT64_MAX), to(all, events.size());
    for (size_t i = 0; i < events.size(); ++i) {
      const size_t b = (stream_of[i] == 0 ? 0 : first1) + events[i].buffer;
      (events[i].kind == 1 ? from : to)[b] = i;
    }
    std::vector<int> spans(all, 0);
    for (const PlacedSpan& p : r.places) {
      ASSERT_LT(p.buffer, all);
      ++spans[p.buffer];
      EXPECT_EQ(p.from, from[p.buffer]);
      EXPECT_EQ(p.to, to[p.buffer]);
    }
    for (size_t b = 0; b < all; ++b) {
      const uint64_t size = b < first1 ? traces[0].buffers[b].size : traces[1].buffers[b - first1].size;
      const bool placed = size != 0 && (every || b < first1);
      EXPECT_EQ(spans[b], placed ? 1 : 0) << b;
    }
    for (size_t i = 0; i < r.places.size(); ++i) {
      for (size_t j = i + 1; j < r.places.size(); ++j) {
        const PlacedSpan &x = r.places[i], &y = r.places[j];
        const bool together = x.from < y.to && y.from < x.to;
        const bool apart = x.offset + x.bytes <= y.offset || y.offset + y.bytes <= x.offset;
        EXPECT_TRUE(!together || apart) << x.buffer << " and " << y.buffer;
      }
    }
  }
}

TEST(Runner, AboveTheLimitFailsWithoutACall) {
  Trace t;
  t.name = "limit";
  t.buffers = {{1, 0, 4, 1000, 2}, {2, 1, 3, 600000, 3}, {3, 2, 6, 2000, 4}};
  Device dev(64u << 20, "tf-growth");
  RunOptions o;
  o.fail_above_bytes = 500000;
  o.fail_above_message = "more than the limit";
  std::vector<uint64_t> called;
  o.before_call = [&](const RunStep& step) {
    called.push_back(step.buffer->size);
    return true;
  };
  RunResult r;
  std::string error;
  ASSERT_TRUE(RunEvents(dev.d, {{&t, dev.Context(0)}}, BuildEvents(t), nullptr, o, &r, &error)) << error;
  EXPECT_EQ(called, (std::vector<uint64_t>{1000, 2000, 1000, 2000}));  // allocations and frees of the two that fit
  EXPECT_EQ(r.failed_allocs, 1u);
  EXPECT_EQ(r.first_oom.buffer_id, 2);
  EXPECT_EQ(r.first_oom.event, 1);
  EXPECT_EQ(r.first_oom.message, "requested 600000 B, more than the limit");
  EXPECT_EQ(r.frees, 2u);
}

TEST(Runner, AHookThatSaysNoStopsTheRun) {
  const Trace t = RandomTrace(7, 100);
  Device dev(1u << 30, "tf-growth");
  RunOptions o;
  o.skip_zero_bytes = true;
  std::string error;
  o.after_event = [&](const RunStep& step) {
    if (step.index < 9) return true;
    error = "the hook stopped it";
    return false;
  };
  RunResult r;
  EXPECT_FALSE(RunEvents(dev.d, {{&t, dev.Context(0)}}, BuildEvents(t), nullptr, o, &r, &error));
  EXPECT_EQ(error, "the hook stopped it");
  EXPECT_EQ(r.events, 10u);
}

TEST(Runner, RefusesStreamsThatDoNotFitTheEvents) {
  const Trace t = RandomTrace(3, 10);
  Device dev(1u << 30, "tf-growth");
  const std::vector<Event> events = BuildEvents(t);
  const std::vector<uint32_t> short_list(events.size() - 1, 0);
  RunResult r;
  std::string error;
  EXPECT_FALSE(RunEvents(dev.d, {{&t, dev.Context(0)}}, events, &short_list, RunOptions{}, &r, &error));
  EXPECT_NE(error.find("stream"), std::string::npos) << error;
  const std::vector<uint32_t> beyond(events.size(), 1);  // stream 1 does not exist
  error.clear();
  EXPECT_FALSE(RunEvents(dev.d, {{&t, dev.Context(0)}}, events, &beyond, RunOptions{}, &r, &error));
  EXPECT_NE(error.find("stream"), std::string::npos) << error;
  error.clear();
  EXPECT_FALSE(RunEvents(dev.d, {}, events, nullptr, RunOptions{}, &r, &error));
  EXPECT_NE(error.find("stream"), std::string::npos) << error;
}

}  // namespace
}  // namespace strata::replay
