// The open option `timeline` (sim/timeline/device_timeline.h): the file is trace-event JSON a viewer opens, every
// event has the fields its phase needs, the tracks' times run forward and their spans nest, and it agrees
// with the run (compaction bytes, DMA copy bytes, the final memory statistics). Bad paths and options fail
// at strata_open, before anything runs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "named_values.h"
#include "strata/strata.h"

namespace {

using nlohmann::json;
using strata::test_values::Int;
using strata::test_values::Str;

std::string TempPath(const char* name) {
  return std::string(::testing::TempDir()) + "/" + name + "_" + std::to_string(getpid()) + ".json";
}

strata_device* OpenWith(const char* backend, const std::vector<strata_named_value>& named) {
  strata_open_options o{};
  o.struct_size = sizeof o;
  if (std::string(backend) == "sim") o.hbm_capacity_bytes = 8ull << 20;
  o.named_options = named.data();
  o.num_named_options = static_cast<uint32_t>(named.size());
  strata_device* d = nullptr;
  EXPECT_EQ(strata_open(backend, &o, &d), STRATA_OK) << strata_last_error_message();
  return d;
}

json Load(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return json::parse(in);  // throws (fails the test) on malformed JSON
}

// Checks what every viewer needs, whatever the run: fields per phase, times forward per track, X spans
// nested or disjoint on each thread, async begin/end paired. *out: the events.
void CheckWellFormed(const json& doc, std::vector<json>* out) {
  ASSERT_TRUE(doc.is_array());
  *out = std::vector<json>(doc.begin(), doc.end());
  const std::vector<json>& events = *out;
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> spans;  // (pid, tid) -> [ts, end)
  std::map<std::string, double> last_counter;
  std::map<std::pair<std::string, uint64_t>, int> open_async;
  for (const json& e : events) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("name")) << e.dump();
    const std::string ph = e["ph"];
    if (ph == "M") {
      EXPECT_TRUE(e["args"].is_object()) << e.dump();
      continue;
    }
    ASSERT_TRUE(e.contains("ts") && e["ts"].is_number()) << e.dump();
    const double ts = e["ts"];
    EXPECT_GE(ts, 0.0);
    if (ph == "X") {
      ASSERT_TRUE(e.contains("tid") && e.contains("dur") && e["dur"].is_number()) << e.dump();
      EXPECT_GE(e["dur"].get<double>(), 0.0);
      spans[{e["pid"], e["tid"]}].push_back({ts, ts + e["dur"].get<double>()});
    } else if (ph == "C") {
      ASSERT_TRUE(e["args"].is_object() && !e["args"].empty()) << e.dump();
      for (const auto& [k, v] : e["args"].items()) EXPECT_TRUE(v.is_number()) << k;
      const std::string track = e["name"];
      if (last_counter.count(track)) {
        EXPECT_GE(ts, last_counter[track]) << "counter " << track << " went back";
      }
      last_counter[track] = ts;
    } else if (ph == "i") {
      ASSERT_TRUE(e.contains("tid") && e.contains("s") && e["args"].is_object()) << e.dump();
    } else if (ph == "b" || ph == "e") {
      ASSERT_TRUE(e.contains("id") && e.contains("cat")) << e.dump();
      open_async[{e["cat"], e["id"]}] += ph == "b" ? 1 : -1;
    } else {
      ADD_FAILURE() << "unexpected phase " << ph;
    }
  }
  for (const auto& [key, n] : open_async) EXPECT_EQ(n, 0) << "async slice " << key.first << " " << key.second;
  for (auto& [track, list] : spans) {
    // In file order the spans of a thread start in order, and a later one starts after the previous ended
    // or lies inside it: they nest.
    for (size_t i = 1; i < list.size(); ++i) {
      EXPECT_GE(list[i].first, list[i - 1].first) << "tid " << track.second << " span " << i;
      const bool after = list[i].first >= list[i - 1].second;
      const bool inside = list[i].second <= list[i - 1].second;
      EXPECT_TRUE(after || inside) << "tid " << track.second << " spans " << i - 1 << ", " << i << " overlap";
    }
  }
}

// The device's statistics at the end, then close, then the timeline checked and loaded.
void StatsCloseAndLoad(strata_device* d, const std::string& path, strata_memory_stats* s, std::vector<json>* events) {
  s->struct_size = sizeof *s;
  ASSERT_EQ(strata_get_memory_stats(d, 0, s), STRATA_OK);
  ASSERT_EQ(strata_close(d), STRATA_OK);
  ASSERT_NO_FATAL_FAILURE(CheckWellFormed(Load(path), events));
}

// The last sample of a counter series.
double LastCounter(const std::vector<json>& events, const std::string& track, const std::string& series) {
  double v = -1;
  for (const json& e : events) {
    if (e["ph"] == "C" && e["name"] == track && e["args"].contains(series)) v = e["args"][series];
  }
  return v;
}

std::string ThreadName(const std::vector<json>& events, int tid) {
  for (const json& e : events) {
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["tid"] == tid) return e["args"]["name"];
  }
  return "";
}

TEST(Timeline, SimRunHasCommandsDmaCompactionAndCounters) {
  const std::string path = TempPath("sim_timeline");
  strata_device* d = OpenWith("sim", {Str("timeline", path.c_str())});
  ASSERT_NE(d, nullptr);
  strata_context c = 0;
  ASSERT_EQ(strata_context_create(d, nullptr, &c), STRATA_OK);
  // Three buffers, the middle one freed, then a compaction that moves the third down.
  strata_buffer b[3] = {};
  for (auto& x : b) ASSERT_EQ(strata_alloc(d, c, 512 * 1024, 0, 0, &x), STRATA_OK);
  std::vector<uint8_t> data(512 * 1024, 7);
  ASSERT_EQ(strata_write(d, c, b[2], 0, data.data(), data.size()), STRATA_OK);
  ASSERT_EQ(strata_free(d, c, b[1]), STRATA_OK);
  strata_compact_result r{};
  r.struct_size = sizeof r;
  ASSERT_EQ(strata_compact(d, c, nullptr, &r), STRATA_OK);
  ASSERT_GT(r.bytes_moved, 0u);
  strata_memory_stats s{};
  std::vector<json> events;
  ASSERT_NO_FATAL_FAILURE(StatsCloseAndLoad(d, path, &s, &events));
  std::map<std::string, int64_t> bytes;
  std::map<std::string, int> count;
  for (const json& e : events) {
    if (e["ph"] != "X" && e["ph"] != "b") continue;
    const std::string key = ThreadName(events, e["tid"]) + "/" + e["name"].get<std::string>();
    ++count[key];
    if (e["args"].contains("bytes")) bytes[key] += e["args"]["bytes"].get<int64_t>();
  }
  EXPECT_EQ(count["host API/strata_alloc"], 3);
  EXPECT_EQ(count["host API/strata_compact"], 1);
  EXPECT_GE(count["command/alloc"], 3);
  EXPECT_GE(count["firmware/free"], 1);
  EXPECT_GE(count["pcie/to_device"], 1);
  EXPECT_EQ(bytes["pcie/to_device"], 512 * 1024);
  // Agreement with the run: the compaction span carries the bytes moved, and the DMA's HBM->HBM rows add up
  // to them plus the write (which lands in a staging slot over PCIe, then moves HBM->HBM into the buffer).
  EXPECT_EQ(bytes["compaction/compact"], static_cast<int64_t>(r.bytes_moved));
  EXPECT_EQ(bytes["dma/hbm_copy"], static_cast<int64_t>(r.bytes_moved + data.size()));
  EXPECT_EQ(static_cast<uint64_t>(bytes["compaction/compact"]), s.compaction_bytes_moved);
  // The final sample equals the device's statistics at the end, and the context's requested bytes.
  EXPECT_EQ(LastCounter(events, "memory (device)", "bytes in use"), static_cast<double>(s.bytes_in_use));
  EXPECT_EQ(LastCounter(events, "memory (context 1)", "requested bytes"), 2.0 * 512 * 1024);
  EXPECT_GT(LastCounter(events, "HBM traffic (DMA)", "GB/s"), -1.0);
  bool device_clock = false;
  for (const json& e : events) {
    if (e["name"] == "process_labels")
      device_clock |= e["args"]["labels"].get<std::string>().find("device cycles") == 0 ||
                      e["args"]["labels"].get<std::string>().find("clock: device") == 0;
  }
  EXPECT_TRUE(device_clock);
  std::remove(path.c_str());
}

// A timeline changes no device cycle: the same work with and without one ends at the same cycle.
TEST(Timeline, ListeningCostsNoCycle) {
  uint64_t cycles[2] = {};
  for (int with = 0; with < 2; ++with) {
    const std::string path = TempPath("sim_cycles");
    std::vector<strata_named_value> named;
    if (with) named.push_back(Str("timeline", path.c_str()));
    strata_device* d = OpenWith("sim", named);
    ASSERT_NE(d, nullptr);
    strata_context c = 0;
    ASSERT_EQ(strata_context_create(d, nullptr, &c), STRATA_OK);
    strata_buffer b = 0;
    ASSERT_EQ(strata_alloc(d, c, 4096, 0, 0, &b), STRATA_OK);
    ASSERT_EQ(strata_free(d, c, b), STRATA_OK);
    ASSERT_EQ(strata_synchronize(d), STRATA_OK);
    strata_device_info info{};
    info.struct_size = sizeof info;
    ASSERT_EQ(strata_get_device_info(d, &info), STRATA_OK);
    cycles[with] = info.device_cycles;
    ASSERT_EQ(strata_close(d), STRATA_OK);
    std::remove(path.c_str());
  }
  EXPECT_GT(cycles[0], 0u);
  EXPECT_EQ(cycles[0], cycles[1]);
}

// A GPU policy on the emulated GPU: no device clock (the API call index), the policy's statistics after
// every allocation and free, and the last sample equal to the statistics at the end.
TEST(Timeline, GpuEmuPolicyHasPoolCountersOnTheCallIndex) {
  const std::string path = TempPath("gpu_timeline");
  strata_device* d = OpenWith("gpu-emu", {Str("policy", "torch"), Str("timeline", path.c_str())});
  ASSERT_NE(d, nullptr);
  strata_context c = 0;
  ASSERT_EQ(strata_context_create(d, nullptr, &c), STRATA_OK);
  std::vector<strata_buffer> live;
  for (int i = 0; i < 40; ++i) {
    strata_buffer b = 0;
    ASSERT_EQ(strata_alloc(d, c, (1 + i % 7) * (1u << 20), 0, 0, &b), STRATA_OK);
    live.push_back(b);
    if (i % 3 == 2) {
      ASSERT_EQ(strata_free(d, c, live[live.size() / 2]), STRATA_OK);
      live.erase(live.begin() + static_cast<long>(live.size() / 2));
    }
  }
  strata_memory_stats s{};
  std::vector<json> events;
  ASSERT_NO_FATAL_FAILURE(StatsCloseAndLoad(d, path, &s, &events));
  int samples = 0;
  for (const json& e : events) samples += e["ph"] == "C" && e["name"] == "memory (device)";
  EXPECT_GE(samples, 40 + 13);  // one per allocation and free, and one at close
  EXPECT_EQ(LastCounter(events, "memory (device)", "bytes in use"), static_cast<double>(s.bytes_in_use));
  EXPECT_EQ(LastCounter(events, "memory (device)", "pool / reserved bytes"), static_cast<double>(s.pool_bytes));
  // The "device" track: one malloc instant per cudaMalloc the policy made, with its address and bytes.
  uint64_t mallocs = 0;
  for (const json& e : events) {
    if (e["ph"] != "i" || ThreadName(events, e["tid"]) != "device") continue;
    EXPECT_TRUE(e["args"].contains("address") && e["args"]["bytes"] > 0) << e.dump();
    mallocs += e["name"] == "malloc";
  }
  EXPECT_EQ(mallocs, s.device_allocs);
  EXPECT_GT(mallocs, 0u);
  std::remove(path.c_str());
}

// A context destroyed with buffers live: its requested-bytes counter drops to 0 (the other context's stays).
TEST(Timeline, DestroyingAContextZeroesItsCounter) {
  const std::string path = TempPath("destroy_timeline");
  strata_device* d = OpenWith("gpu-emu", {Str("timeline", path.c_str())});
  ASSERT_NE(d, nullptr);
  strata_context doomed = 0, kept = 0;
  ASSERT_EQ(strata_context_create(d, nullptr, &doomed), STRATA_OK);
  ASSERT_EQ(strata_context_create(d, nullptr, &kept), STRATA_OK);
  strata_buffer b = 0;
  ASSERT_EQ(strata_alloc(d, doomed, 3 << 20, 0, 0, &b), STRATA_OK);
  ASSERT_EQ(strata_alloc(d, kept, 1 << 20, 0, 0, &b), STRATA_OK);
  ASSERT_EQ(strata_context_destroy(d, doomed), STRATA_OK);
  strata_memory_stats s{};
  std::vector<json> events;
  ASSERT_NO_FATAL_FAILURE(StatsCloseAndLoad(d, path, &s, &events));
  EXPECT_EQ(LastCounter(events, "memory (context 1)", "requested bytes"), 0.0);
  EXPECT_EQ(LastCounter(events, "memory (context 2)", "requested bytes"), double{1 << 20});
  std::remove(path.c_str());
}

TEST(Timeline, ASizeBoundStillLeavesAValidFile) {
  const std::string path = TempPath("bounded");
  strata_device* d = OpenWith("gpu-emu", {Str("timeline", path.c_str()), Int("timeline_max_bytes", 8192)});
  ASSERT_NE(d, nullptr);
  strata_context c = 0;
  ASSERT_EQ(strata_context_create(d, nullptr, &c), STRATA_OK);
  for (int i = 0; i < 200; ++i) {
    strata_buffer b = 0;
    ASSERT_EQ(strata_alloc(d, c, 4096, 0, 0, &b), STRATA_OK);
    ASSERT_EQ(strata_free(d, c, b), STRATA_OK);
  }
  ASSERT_EQ(strata_close(d), STRATA_OK);
  std::ifstream in(path, std::ios::ate);
  EXPECT_LE(static_cast<uint64_t>(in.tellg()), 8192u + 256u);
  std::vector<json> events;
  ASSERT_NO_FATAL_FAILURE(CheckWellFormed(Load(path), &events));
  bool cut = false;
  for (const json& e : events)
    cut |= e["name"] == "process_labels" && e["args"]["labels"].get<std::string>().find("cut") != std::string::npos;
  EXPECT_TRUE(cut);
  std::remove(path.c_str());
}

TEST(Timeline, BadPathOrWindowFailsAtOpen) {
  struct Case {
    std::vector<strata_named_value> named;
    const char* message;
  } cases[] = {
      {{Str("timeline", "/nonexistent-dir/t.json")}, "cannot write the timeline /nonexistent-dir/t.json"},
      {{Str("timeline", "/dev/null"), Int("timeline_start_cycle", 10), Int("timeline_end_cycle", 5)},
       "timeline_end_cycle must be above timeline_start_cycle"},
      {{Str("timeline", "/dev/null"), Int("timeline_start_cycle", -1)}, "must not be negative"},
      {{Str("timeline", "/dev/null"), Int("timeline_max_bytes", 10)}, "at least 4096"},
      {{Int("timeline", 3)}, "timeline"},
  };
  for (const Case& k : cases) {
    strata_open_options o{};
    o.struct_size = sizeof o;
    o.named_options = k.named.data();
    o.num_named_options = static_cast<uint32_t>(k.named.size());
    strata_device* d = nullptr;
    EXPECT_EQ(strata_open("gpu-emu", &o, &d), STRATA_INVALID_ARGUMENT) << k.message;
    EXPECT_EQ(d, nullptr);
    EXPECT_NE(std::string(strata_last_error_message()).find(k.message), std::string::npos)
        << strata_last_error_message();
  }
}

}  // namespace
