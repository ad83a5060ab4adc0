// What the C API costs a host replay: each trace given replayed by replay::DirectReplay (the allocator called
// directly, each call timed: tests/host/direct_replay.h, the reference the host backend is tested against), by a bare
// loop over the allocator (the floor) and through strata.h on the `host` backend (one strata_alloc / strata_free per
// event, as a runner makes them), without and with an event sink, at the trace's max load with defragment on OOM. The
// same run on both sides (the figures that must agree are checked; "same" says so); the time is the best of several
// repetitions, in one process, so that the ratio compares like with like. One JSON line per trace. Usage:
// host_api_bench [--min-seconds S] TRACE...
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "alloc/allocator.h"
#include "direct_replay.h"
#include "json_lines.h"
#include "replay.h"
#include "strata/strata.h"
#include "strata/strata.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using strata::tool::Json;
using strata::tool::JsonRound;

struct ApiRun {
  uint64_t failed = 0, compactions = 0, bytes_moved = 0, footprint = 0, events = 0;
};

void CountEvent(void* user, const strata_event*) { ++*static_cast<uint64_t*>(user); }

// One replay through the C API; false with a message on stderr if a call fails otherwise than out of memory.
__attribute__((noinline)) bool ApiReplay(const strata::replay::Trace& trace,
                                         const std::vector<strata::replay::Event>& events, uint32_t peak,
                                         uint64_t capacity, bool sink, ApiRun* out) {
  strata::NamedOptions named("host");
  named.Add("capacity_bytes", std::to_string(capacity));
  named.Add("max_live_buffers", std::to_string(peak));
  strata_open_options o{};
  o.struct_size = sizeof o;
  o.named_options = named.data();
  o.num_named_options = named.size();
  strata_device* d = nullptr;
  if (strata_open("host", &o, &d) != STRATA_OK) {
    std::fprintf(stderr, "host_api_bench: strata_open: %s\n", strata_last_error_message());
    return false;
  }
  *out = ApiRun{};
  if (sink) strata_set_event_sink(d, CountEvent, &out->events);
  strata_context c = 0;
  strata_context_create(d, nullptr, &c);
  std::vector<strata_buffer> handles(trace.buffers.size(), 0);
  bool ok = true;
  for (const strata::replay::Event& e : events) {
    if (e.kind == 1) {
      const strata_status st = strata_alloc(d, c, trace.buffers[e.buffer].size, 0, 0, &handles[e.buffer]);
      if (st == STRATA_RESOURCE_EXHAUSTED) {
        ++out->failed;
      } else if (st != STRATA_OK) {
        std::fprintf(stderr, "host_api_bench: strata_alloc: %s\n", strata_last_error_message());
        ok = false;
        break;
      }
    } else if (handles[e.buffer] != 0) {
      strata_free(d, c, handles[e.buffer]);
      handles[e.buffer] = 0;
    }
  }
  strata_memory_stats s{};
  s.struct_size = sizeof s;
  strata_get_memory_stats(d, 0, &s);
  out->compactions = s.compactions;
  out->bytes_moved = s.compaction_bytes_moved;
  out->footprint = s.pool_bytes;
  strata_close(d);
  return ok;
}

// The allocator called directly with nothing else (no clock reads per call, no max-load pass): what the library
// itself costs, the floor under both. Returns the footprint.
template <typename A>
__attribute__((noinline)) uint64_t BareReplay(const strata::replay::Trace& trace,
                                              const std::vector<strata::replay::Event>& events, uint32_t peak,
                                              uint64_t capacity) {
  std::vector<typename A::Node> nodes(A::NodesForLiveBuffers(peak));
  std::vector<strata::alloc::Move> moves(peak);
  A a;
  strata::alloc::Options o;
  o.capacity_bytes = capacity;
  a.Init(nodes.data(), static_cast<uint32_t>(nodes.size()), o);
  std::vector<strata::alloc::Handle> handles(trace.buffers.size());
  uint64_t footprint = 0;
  auto track = [](void* f, const strata::alloc::Move* m, uint32_t n) {
    for (uint32_t k = 0; k < n; ++k) {
      *static_cast<uint64_t*>(f) = std::max(*static_cast<uint64_t*>(f), m[k].dst_offset + m[k].bytes);
    }
    return STRATA_OK;
  };
  for (const strata::replay::Event& e : events) {
    strata::alloc::Handle& h = handles[e.buffer];
    if (e.kind == 1) {
      const uint64_t size = trace.buffers[e.buffer].size;
      strata_status st = a.Allocate(size, 0, &h);
      if (st == STRATA_RESOURCE_EXHAUSTED) {
        st = a.AllocateWithCompaction(size, 0, {}, moves.data(), peak, +track, &footprint, &h);
      }
      if (st == STRATA_OK) {
        strata::alloc::BufferInfo info;
        a.GetInfo(h, &info);
        footprint = std::max(footprint, info.offset + info.allocated_bytes);
      }
    } else if (!h.IsNull()) {
      a.Free(h);
      h = {};
    }
  }
  return footprint;
}

// Each side a function of its own (noinline), so that valgrind --tool=callgrind counts their instructions apart:
// the stable figure on a loaded machine.
__attribute__((noinline)) bool ApiPlain(const strata::replay::Trace& t, const std::vector<strata::replay::Event>& e,
                                        uint32_t peak, uint64_t capacity, ApiRun* out) {
  return ApiReplay(t, e, peak, capacity, false, out);
}
__attribute__((noinline)) bool ApiWithSink(const strata::replay::Trace& t, const std::vector<strata::replay::Event>& e,
                                           uint32_t peak, uint64_t capacity, ApiRun* out) {
  return ApiReplay(t, e, peak, capacity, true, out);
}

// The best wall time of `fn` over repetitions that take at least min_seconds together (and at least 3).
template <typename Fn>
double BestSeconds(double min_seconds, Fn&& fn) {
  double best = 1e300, total = 0;
  for (int rep = 0; rep < 3 || total < min_seconds; ++rep) {
    const auto t0 = Clock::now();
    if (!fn()) return -1;
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    best = std::min(best, s);
    total += s;
  }
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  double min_seconds = 1.0;
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--min-seconds") == 0 && i + 1 < argc) {
      char* end = nullptr;
      min_seconds = std::strtod(argv[++i], &end);
      if (end == argv[i] || *end != '\0' || !(min_seconds >= 0)) {
        std::fprintf(stderr, "host_api_bench: --min-seconds wants a number >= 0, not '%s'\n", argv[i]);
        return 2;
      }
    } else if (argv[i][0] == '-') {
      std::fprintf(stderr, "usage: host_api_bench [--min-seconds S] TRACE...\n");
      return 2;
    } else {
      paths.emplace_back(argv[i]);
    }
  }
  if (paths.empty()) {
    std::fprintf(stderr, "usage: host_api_bench [--min-seconds S] TRACE...\n");
    return 2;
  }
  int status = 0;
  for (const std::string& path : paths) {
    strata::replay::Trace trace;
    std::string error;
    if (!strata::replay::LoadTrace(path, &trace, &error)) {
      std::fprintf(stderr, "host_api_bench: %s\n", error.c_str());
      status = 1;
      continue;
    }
    const std::vector<strata::replay::Event> events = strata::replay::BuildEvents(trace);
    uint32_t live = 0, peak = 1;
    for (const strata::replay::Event& e : events) {
      live = e.kind == 1 ? live + 1 : live - 1;
      peak = std::max(peak, live);
    }
    strata::replay::ReplayOptions options;
    options.compaction_on_oom = true;
    options.capacity_bytes = strata::replay::MaxLoad(trace, events, options.granule_bytes);
    options.events = &events;
    strata::replay::ReplayResult direct;
    const double direct_s =
        BestSeconds(min_seconds, [&] { return strata::replay::DirectReplay(trace, options, &direct, &error); });
    uint64_t bare_footprint = 0;
    const bool wide = strata::alloc::Allocator::NodesForLiveBuffers(peak) > strata::alloc::Allocator::kMaxNodes;
    const double bare_s = BestSeconds(min_seconds, [&] {
      bare_footprint = wide ? BareReplay<strata::alloc::WideAllocator>(trace, events, peak, options.capacity_bytes)
                            : BareReplay<strata::alloc::Allocator>(trace, events, peak, options.capacity_bytes);
      return true;
    });
    ApiRun api, api_sink;
    const double api_s =
        BestSeconds(min_seconds, [&] { return ApiPlain(trace, events, peak, options.capacity_bytes, &api); });
    const double sink_s =
        BestSeconds(min_seconds, [&] { return ApiWithSink(trace, events, peak, options.capacity_bytes, &api_sink); });
    if (direct_s < 0 || api_s < 0 || sink_s < 0) {
      std::fprintf(stderr, "host_api_bench: %s: %s\n", trace.name.c_str(), error.c_str());
      status = 1;
      continue;
    }
    const bool same = api.failed == direct.failed_allocs && api.compactions == direct.compactions &&
                      api.bytes_moved == direct.bytes_moved && api.footprint == direct.footprint_bytes &&
                      api_sink.failed == api.failed && api_sink.footprint == api.footprint &&
                      bare_footprint == api.footprint;
    if (!same) status = 1;
    const double n = static_cast<double>(events.size());
    Json line;
    line["bench"] = "host_api_replay";
    line["trace"] = trace.name;
    line["buffers"] = trace.buffers.size();
    line["events"] = events.size();
    line["capacity"] = "1.0x";
    line["compaction"] = "on-oom";
    line["failed_allocs"] = direct.failed_allocs;
    line["compactions"] = direct.compactions;
    line["bare_ns_per_event"] = JsonRound(bare_s * 1e9 / n, 1);
    line["direct_ns_per_event"] = JsonRound(direct_s * 1e9 / n, 1);
    line["api_ns_per_event"] = JsonRound(api_s * 1e9 / n, 1);
    line["api_events_ns_per_event"] = JsonRound(sink_s * 1e9 / n, 1);
    line["api_over_direct"] = JsonRound(api_s / direct_s, 3);
    line["api_events_over_direct"] = JsonRound(sink_s / direct_s, 3);
    line["api_over_bare"] = JsonRound(api_s / bare_s, 3);
    line["sink_events"] = api_sink.events;
    line["same"] = same;
    strata::tool::PrintJsonLine(line);
  }
  return status;
}
