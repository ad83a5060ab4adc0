// strata-replay --backend sim: the trace's allocations and frees through the C API on the model.
#include "sim_replay.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "runner.h"
#include "strata/named_options.hpp"
#include "strata/protocol.h"
#include "strata/strata.h"

namespace strata::replay {

using tool::JsonLine;
using tool::JsonRound;
namespace {

constexpr uint64_t kStagingBytes = uint64_t{STRATA_RT_STAGING_SLOTS} * STRATA_RT_STAGING_SLOT_BYTES;  // above the heap

CycleSummary Summarize(std::vector<uint64_t> v) {
  CycleSummary s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto pct = [&](double p) { return v[std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5))]; };
  s.p50 = pct(0.50);
  s.p99 = pct(0.99);
  s.max = v.back();
  double sum = 0;
  for (uint64_t x : v) sum += static_cast<double>(x);
  s.mean = sum / static_cast<double>(v.size());
  return s;
}

// Closes the device on every path.
struct DeviceCloser {
  strata_device* device = nullptr;
  ~DeviceCloser() { strata_close(device); }
};

// Watches the replay thread's current call from a thread of its own; never touches the device.
class LongCallWatch {
 public:
  explicit LongCallWatch(std::function<void(uint32_t, uint64_t, double)> report) : report_(std::move(report)) {
    if (report_) thread_ = std::thread([this] { Run(); });
  }
  ~LongCallWatch() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  void Begin(uint32_t line, uint64_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    line_ = line, bytes_ = bytes, start_ = std::chrono::steady_clock::now(), busy_ = true, reported_ = 0;
  }
  void End() {
    std::lock_guard<std::mutex> lock(mutex_);
    busy_ = false;
  }

 private:
  void Run() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stop_) {
      cv_.wait_for(lock, std::chrono::seconds(1));
      if (stop_ || !busy_) continue;
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      if (s >= 10.0 * (reported_ + 1)) {
        ++reported_;
        report_(line_, bytes_, s);
      }
    }
  }
  std::function<void(uint32_t, uint64_t, double)> report_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stop_ = false, busy_ = false;
  uint32_t line_ = 0, reported_ = 0;
  uint64_t bytes_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

bool SimReplay(const Trace& trace, const SimReplayOptions& options, SimReplayResult* result, std::string* error) {
  SimReplayResult& r = *result;
  r = SimReplayResult{};
  using Clock = std::chrono::steady_clock;
  const auto wall0 = Clock::now();
  const uint64_t capacity = options.capacity_bytes;
  if (capacity == 0 || capacity % 256 != 0) {
    *error = "the sim backend needs a capacity that is a positive multiple of the 256-byte granule";
    return false;
  }
  if (capacity > STRATA_RT_MAX_HBM_BYTES - kStagingBytes) {
    *error = "capacity " + std::to_string(capacity) + " bytes is beyond what the runtime firmware manages (" +
             std::to_string(STRATA_RT_MAX_HBM_BYTES - kStagingBytes) + " bytes of heap)";
    return false;
  }

  // The backend sizes its HBM for `capacity` (the standard open option capacity_bytes) and holds the rest of its heap
  // with a pad buffer at offset 0, in a context of its own, placed when the trace's context is created.
  strata_open_options o{};
  o.struct_size = sizeof o;
  o.hbm_preset = options.hbm_preset.c_str();
  o.firmware_path = options.firmware_path.empty() ? nullptr : options.firmware_path.c_str();
  std::unique_ptr<NamedOptions> named;
  try {
    named = std::make_unique<NamedOptions>("sim");
    named->Add("capacity_bytes", capacity);
    for (const auto& [name, value] : options.named_options) {
      if (name == "capacity_bytes") {
        *error = "the capacity is the replay's (--capacity), not an open option";
        return false;
      }
      named->Add(name, value);
    }
  } catch (const Error& e) {
    *error = e.what();
    return false;
  }
  o.named_options = named->data();
  o.num_named_options = named->size();
  DeviceCloser dev;
  if (strata_open("sim", &o, &dev.device) != STRATA_OK) {
    *error = ApiError("opening the sim backend");
    return false;
  }
  strata_device* d = dev.device;
  strata_device_info info{};
  info.struct_size = sizeof info;
  auto get_info = [&]() {
    if (strata_get_device_info(d, &info) != STRATA_OK) {
      *error = ApiError("strata_get_device_info");
      return false;
    }
    return true;
  };
  if (!get_info()) return false;
  r.hbm_capacity_bytes = info.hbm_capacity_bytes;
  r.heap_bytes = info.heap_bytes;
  if (info.granule_bytes != 256) {
    *error = "the runtime firmware uses a " + std::to_string(info.granule_bytes) + "-byte granule, not 256";
    return false;
  }
  if (r.heap_bytes < capacity) {
    *error = "the firmware manages " + std::to_string(r.heap_bytes) + " bytes, less than the capacity " +
             std::to_string(capacity);
    return false;
  }

  // The heap is a whole number of 256 KiB stripes; the backend's pad leaves the trace exactly `capacity` bytes.
  r.pad_bytes = r.heap_bytes - capacity;
  strata_context ctx = 0;
  strata_context_options co{};
  co.struct_size = sizeof co;
  co.quota_bytes = capacity;
  if (strata_context_create(d, &co, &ctx) != STRATA_OK) {
    *error = ApiError("strata_context_create");
    return false;
  }
  strata_memory_stats stats{};
  stats.struct_size = sizeof stats;
  if (strata_get_memory_stats(d, 0, &stats) != STRATA_OK) {
    *error = ApiError("strata_get_memory_stats");
    return false;
  }
  const strata_memory_stats base = stats;  // the pad's allocation is not the trace's
  strata_memory_stats last = stats;
  if (!get_info()) return false;
  const uint64_t cycles0 = info.device_cycles;

  const std::vector<Event> events = BuildEvents(trace);
  std::vector<uint64_t> alloc_fw, alloc_rt, free_fw, free_rt;
  LongCallWatch watch(options.long_call);
  RunOptions ro;
  ro.alloc_flags = options.compaction_on_oom ? 0u : STRATA_ALLOC_FLAG_NO_COMPACT;
  ro.max_events = options.max_events;
  ro.fail_above_bytes = capacity;  // larger than the heap: the decoder would refuse the size itself
  ro.fail_above_message = "more than the capacity of " + std::to_string(capacity) + " B (not sent to the device)";
  uint64_t t0 = 0;  // the device clock before the call
  Clock::time_point w0;
  ro.before_call = [&](const RunStep& step) {
    if (!get_info()) return false;  // the clock now (a STATS round trip may have run since the last call)
    t0 = info.device_cycles;
    w0 = Clock::now();
    if (step.alloc) watch.Begin(step.buffer->line, step.buffer->size);
    return true;
  };
  ro.after_event = [&](const RunStep& step) {
    if (step.alloc && !step.called) return true;  // failed without a call
    if (step.called) {
      if (step.alloc) watch.End();
      if (!get_info()) return false;
      (step.alloc ? alloc_fw : free_fw).push_back(info.last_command_cycles);
      (step.alloc ? alloc_rt : free_rt).push_back(info.device_cycles - t0);
    }
    if (step.alloc && step.status == STRATA_OK) r.bytes_allocated += (step.buffer->size + 255) / 256 * 256;
    if (step.alloc && options.compaction_on_oom) {
      // One STATS round trip per allocation tells which ones compacted and how much they moved.
      if (strata_get_memory_stats(d, 0, &stats) != STRATA_OK) {
        *error = ApiError("strata_get_memory_stats");
        return false;
      }
      if (stats.compactions != last.compactions || stats.compaction_bytes_moved != last.compaction_bytes_moved) {
        ++r.compaction_allocs;
        r.compaction_alloc_cycles += info.last_command_cycles;
        if (options.verbose) {
          const TraceBuffer& b = *step.buffer;
          std::fprintf(stderr,
                       "sim: compaction at line %u (t=%llu): request %llu B, moved %llu B in %llu moves, allocation "
                       "took %u firmware cycles (%llu copying), %.1f s wall: %s\n",
                       b.line, static_cast<unsigned long long>(b.lower), static_cast<unsigned long long>(b.size),
                       static_cast<unsigned long long>(stats.compaction_bytes_moved - last.compaction_bytes_moved),
                       static_cast<unsigned long long>(stats.compaction_moves - last.compaction_moves),
                       info.last_command_cycles,
                       static_cast<unsigned long long>(stats.compaction_cycles - last.compaction_cycles),
                       std::chrono::duration<double>(Clock::now() - w0).count(), strata_status_name(step.status));
        }
      }
      last = stats;
    }
    if (options.progress) {
      options.progress({step.index + 1, events.size(), info.device_cycles - cycles0,
                        last.compaction_bytes_moved - base.compaction_bytes_moved,
                        std::chrono::duration<double>(Clock::now() - wall0).count()});
    }
    return true;
  };
  RunResult& run = r.run;
  if (!RunEvents(d, {{&trace, ctx}}, events, nullptr, ro, &run, error)) return false;
  stats = run.stats;  // read once the last event was replayed
  if (!get_info()) return false;
  r.device_cycles = info.device_cycles - cycles0;
  r.compactions = stats.compactions - base.compactions;
  r.moves = stats.compaction_moves - base.compaction_moves;
  r.bytes_moved = stats.compaction_bytes_moved - base.compaction_bytes_moved;
  r.compaction_cycles = stats.compaction_cycles - base.compaction_cycles;
  r.alloc_cycles = Summarize(alloc_fw);
  r.alloc_round_trip = Summarize(alloc_rt);
  r.free_cycles = Summarize(free_fw);
  r.free_round_trip = Summarize(free_rt);
  // Closing finishes the timeline: one that could not be written is an error (STRATA_DATA_LOSS), not a result.
  strata_device* closing = dev.device;
  dev.device = nullptr;
  if (strata_close(closing) != STRATA_OK) {
    *error = ApiError("closing the device");
    return false;
  }
  r.wall_seconds = std::chrono::duration<double>(Clock::now() - wall0).count();
  return true;
}

Json SimJsonObject(const SimReplayResult& r) {
  Json j;
  auto summary = [&j](const std::string& name, const CycleSummary& s) {
    j[name + "_p50"] = s.p50;
    j[name + "_p99"] = s.p99;
    j[name + "_max"] = s.max;
    j[name + "_mean"] = JsonRound(s.mean, 1);
  };
  j["backend"] = "sim";
  j["hbm_capacity_bytes"] = r.hbm_capacity_bytes;
  j["heap_bytes"] = r.heap_bytes;
  j["pad_bytes"] = r.pad_bytes;
  j["device_events"] = r.run.events;
  j["device_allocs"] = r.run.allocs;
  j["device_frees"] = r.run.frees;
  j["device_failed_allocs"] = r.run.failed_allocs;
  if (r.run.failed_allocs != 0) {
    j["device_first_oom_buffer_id"] = r.run.first_oom.buffer_id;
    j["device_first_oom_event"] = r.run.first_oom.event;
    j["device_first_oom_message"] = r.run.first_oom.message;
  }
  j["device_compactions"] = r.compactions;
  j["device_compaction_allocs"] = r.compaction_allocs;
  j["device_moves"] = r.moves;
  j["device_bytes_moved"] = r.bytes_moved;
  j["compaction_cycles"] = r.compaction_cycles;
  j["compaction_alloc_cycles"] = r.compaction_alloc_cycles;
  summary("device_cycles_per_alloc", r.alloc_cycles);
  summary("device_cycles_per_free", r.free_cycles);
  summary("round_trip_cycles_per_alloc", r.alloc_round_trip);
  summary("round_trip_cycles_per_free", r.free_round_trip);
  j["device_cycles"] = r.device_cycles;
  j["wall_seconds"] = JsonRound(r.wall_seconds, 2);
  // A whole number of cycles per second, printed as an integer as before.
  j["sim_cycles_per_second"] =
      static_cast<uint64_t>(std::llround(r.wall_seconds > 0 ? r.device_cycles / r.wall_seconds : 0.0));
  return j;
}

std::string SimJsonFields(const SimReplayResult& r) {
  const std::string text = JsonLine(SimJsonObject(r));
  return "," + text.substr(1, text.size() - 2);
}

std::string SimTable(const SimReplayResult& r) {
  std::ostringstream os;
  auto row = [&os](const char* key, const std::string& value) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "  %-16s ", key);
    os << buf << value << "\n";
  };
  auto cyc = [](const CycleSummary& s) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "%llu / %llu / %llu (mean %.1f, n %llu)", static_cast<unsigned long long>(s.p50),
                  static_cast<unsigned long long>(s.p99), static_cast<unsigned long long>(s.max), s.mean,
                  static_cast<unsigned long long>(s.n));
    return std::string(buf);
  };
  char wall[96];
  std::snprintf(wall, sizeof wall, "%.2f s (%.0f device cycles/s)", r.wall_seconds,
                r.wall_seconds > 0 ? r.device_cycles / r.wall_seconds : 0.0);
  os << "device (sim backend, through the C API):\n";
  row("HBM", std::to_string(r.hbm_capacity_bytes) + " B, heap " + std::to_string(r.heap_bytes) + " B, pad " +
                 std::to_string(r.pad_bytes) + " B");
  row("events", std::to_string(r.run.events) + " of " + std::to_string(r.run.events_total));
  row("failed allocs", std::to_string(r.run.failed_allocs));
  if (r.run.failed_allocs != 0) {
    row("first OOM", "buffer " + std::to_string(r.run.first_oom.buffer_id) + " (event " +
                         std::to_string(r.run.first_oom.event) + "): " + r.run.first_oom.message);
  }
  row("compactions", std::to_string(r.compaction_allocs) + " allocations compacted (" + std::to_string(r.compactions) +
                         " plans), " + std::to_string(r.moves) + " moves, " + std::to_string(r.bytes_moved) +
                         " B moved");
  row("compaction cyc", std::to_string(r.compaction_cycles) +
                            " copying; allocations that compacted: " + std::to_string(r.compaction_alloc_cycles));
  row("alloc cycles", cyc(r.alloc_cycles) + "  p50 / p99 / max, firmware");
  row("free cycles", cyc(r.free_cycles));
  row("alloc round trip", cyc(r.alloc_round_trip) + "  as the host sees it");
  row("free round trip", cyc(r.free_round_trip));
  row("device cycles", std::to_string(r.device_cycles));
  row("wall", wall);
  return os.str();
}

}  // namespace strata::replay
