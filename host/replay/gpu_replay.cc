#include "gpu_replay.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "emu_gpu.h"
#include "runner.h"
#include "strata/named_options.hpp"
#include "strata/strata.h"

namespace strata::replay {

using tool::JsonLine;
using tool::JsonRound;
namespace {}  // namespace

bool GpuReplay(const Trace& trace, const GpuReplayOptions& options, GpuReplayResult* result, std::string* error) {
  GpuReplayResult& r = *result;
  r = GpuReplayResult{};
  r.backend = options.backend;
  r.policy = options.policy;
  const auto wall0 = std::chrono::steady_clock::now();
  // Each option typed by the backend's own table (strata/named_options.hpp).
  std::unique_ptr<NamedOptions> named;
  try {
    named = std::make_unique<NamedOptions>(options.backend);
    named->Add("policy", options.policy);
    if (!options.gpu.empty()) named->Add("gpu", options.gpu);
    if (options.total_bytes != 0) named->Add("total_bytes", std::to_string(options.total_bytes));
    for (const auto& [name, value] : options.options) named->Add(name, value);
  } catch (const Error& e) {
    *error = e.what();
    r.options_refused = e.status() == STRATA_INVALID_ARGUMENT;
    return false;
  }
  strata_open_options o{};
  o.struct_size = sizeof o;
  o.named_options = named->data();
  o.num_named_options = named->size();
  strata_device* d = nullptr;
  if (const strata_status st = strata_open(options.backend.c_str(), &o, &d); st != STRATA_OK) {
    r.options_refused = st == STRATA_INVALID_ARGUMENT;
    *error = ApiError(("opening the " + options.backend + " backend").c_str());
    return false;
  }
  struct Closer {
    strata_device* d;
    ~Closer() { strata_close(d); }
  } closer{d};
  strata_device_info info{};
  info.struct_size = sizeof info;
  strata_context ctx = 0;
  if (strata_get_device_info(d, &info) != STRATA_OK || strata_context_create(d, nullptr, &ctx) != STRATA_OK) {
    *error = ApiError("starting the replay");
    return false;
  }
  r.total_bytes = info.hbm_capacity_bytes;
  if (options.backend == "cuda") {
    const auto device = options.options.find("device");
    r.gpu = "cuda device " + (device == options.options.end() ? std::string("0") : device->second);
  } else {
    // The preset as a user names the board; its memory resized by --capacity BYTES or total_bytes is said so.
    const auto named_gpu = options.options.find("gpu");
    const std::string preset = !options.gpu.empty()                 ? options.gpu
                               : named_gpu != options.options.end() ? named_gpu->second
                                                                    : gpu::kDefaultGpuPreset;
    r.gpu = gpu::GpuModelName(preset);
    if (options.total_bytes != 0 || options.options.count("total_bytes") != 0) r.gpu += " resized";
  }

  std::vector<Event> built;
  if (options.events == nullptr) built = BuildEvents(trace);
  const std::vector<Event>& events = options.events != nullptr ? *options.events : built;
  RunOptions ro;
  ro.oom_info = true;
  ro.defragment_on_oom = options.defragment_on_oom;
  ro.skip_zero_bytes = true;  // the frameworks return no memory for 0 bytes
  ro.max_events = options.max_events;
  ro.snapshot_event = options.snapshot_event;
  RunResult run;
  if (options.series) {
    ro.after_event = [&](const RunStep& step) {
      strata_memory_stats now{};
      now.struct_size = sizeof now;
      if (strata_get_memory_stats(d, 0, &now) != STRATA_OK) {
        *error = ApiError("strata_get_memory_stats");
        return false;
      }
      GpuSeriesRow row;
      row.event = step.index;
      row.time = step.event->time;
      row.alloc = step.alloc;
      row.buffer_id = step.buffer->id;
      row.size = step.buffer->size;
      row.live_bytes = step.live_bytes;
      row.in_use_bytes = now.bytes_in_use;
      row.reserved_bytes = now.pool_bytes;
      row.largest_free_bytes = now.largest_free_block_bytes;
      row.moved_bytes = run.defrag_bytes;
      row.oom = step.failed == STRATA_OOM_NONE ? "none" : strata_oom_kind_name(step.failed);
      options.series(row);
      return true;
    };
  }
  if (!RunEvents(d, {{&trace, ctx}}, events, nullptr, ro, &run, error)) return false;
  r.events = run.events;
  r.events_total = run.events_total;
  r.allocs = run.allocs;
  r.frees = run.frees;
  r.failed_allocs = run.failed_allocs;
  r.defragmentations = run.defragmentations;
  r.defrag_bytes = run.defrag_bytes;
  r.stopped = run.stopped;
  r.snapshot = std::move(run.snapshot);
  r.snapshot_pool_bytes = run.snapshot_pool_bytes;
  if (run.first_oom.event >= 0) {
    const RunOom& f = run.first_oom;
    r.first_oom_event = f.event;
    r.first_oom_buffer_id = f.buffer_id;
    r.first_oom_kind = strata_oom_kind_name(f.kind);
    r.first_oom_message = f.message;
    r.first_oom_reserved_bytes = f.info.reserved_bytes;
    r.first_oom_live_bytes = f.info.live_bytes;
    r.first_oom_request_bytes = f.info.request_bytes;
    r.first_oom_largest_free_bytes = f.info.largest_free_block_bytes;
    r.first_oom_limit_bytes = f.info.limit_bytes;
  }
  strata_memory_stats s{};
  s.struct_size = sizeof s;
  if (strata_get_memory_stats(d, 0, &s) != STRATA_OK) {
    *error = ApiError("strata_get_memory_stats");
    return false;
  }
  r.oom_capacity = s.oom_capacity;
  r.oom_cap = s.oom_cap;
  r.oom_fragmentation = s.oom_fragmentation;
  r.peak_bytes_in_use = s.peak_bytes_in_use;
  r.peak_pool_bytes = s.peak_pool_bytes;
  r.bytes_limit = s.bytes_limit;
  r.device_allocs = s.device_allocs;
  r.device_frees = s.device_frees;
  r.device_syncs = s.device_syncs;
  r.stream_syncs = s.stream_syncs;
  r.maps = s.maps;
  r.unmaps = s.unmaps;
  r.num_alloc_retries = s.num_alloc_retries;
  r.host_bytes_copied = s.host_bytes_copied;
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  // Closed here rather than by Closer: closing finishes the timeline, and one that could not be written is an
  // error like any other (strata_close says STRATA_DATA_LOSS).
  closer.d = nullptr;
  if (strata_close(d) != STRATA_OK) {
    *error = ApiError("closing the device");
    return false;
  }
  return true;
}

std::string GpuSeriesHeader() {
  return "event,time,kind,buffer_id,size_bytes,live_bytes,in_use_bytes,reserved_bytes,oom\n";
}

std::string GpuSeriesCsv(const GpuSeriesRow& row) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%llu,%llu,%s,%lld,%llu,%llu,%llu,%llu,%s\n", (unsigned long long)row.event,
                (unsigned long long)row.time, row.alloc ? "alloc" : "free", (long long)row.buffer_id,
                (unsigned long long)row.size, (unsigned long long)row.live_bytes, (unsigned long long)row.in_use_bytes,
                (unsigned long long)row.reserved_bytes, row.oom);
  return buf;
}

Json GpuJsonObject(const GpuReplayResult& r) {
  Json j;
  j["backend"] = r.backend;
  j["policy"] = r.policy;
  j["gpu"] = r.gpu;
  j["total_bytes"] = r.total_bytes;
  j["events"] = r.events;
  j["events_total"] = r.events_total;
  j["allocs"] = r.allocs;
  j["frees"] = r.frees;
  j["failed_allocs"] = r.failed_allocs;
  j["first_oom_buffer_id"] = r.first_oom_buffer_id;
  j["first_oom_event"] = r.first_oom_event;
  j["first_oom_kind"] = r.first_oom_kind;
  j["first_oom_reserved_bytes"] = r.first_oom_reserved_bytes;
  j["first_oom_live_bytes"] = r.first_oom_live_bytes;
  j["oom_capacity"] = r.oom_capacity;
  j["oom_cap"] = r.oom_cap;
  j["oom_fragmentation"] = r.oom_fragmentation;
  j["peak_bytes_in_use"] = r.peak_bytes_in_use;
  j["peak_pool_bytes"] = r.peak_pool_bytes;
  j["bytes_limit"] = r.bytes_limit;
  j["device_allocs"] = r.device_allocs;
  j["device_frees"] = r.device_frees;
  j["device_syncs"] = r.device_syncs;
  j["stream_syncs"] = r.stream_syncs;
  j["maps"] = r.maps;
  j["unmaps"] = r.unmaps;
  j["num_alloc_retries"] = r.num_alloc_retries;
  j["defragmentations"] = r.defragmentations;
  j["defrag_bytes"] = r.defrag_bytes;
  j["host_bytes_copied"] = r.host_bytes_copied;
  j["wall_seconds"] = JsonRound(r.wall_seconds, 4);
  j["first_oom_message"] = r.first_oom_message;
  return j;
}

std::string GpuJson(const GpuReplayResult& r) { return JsonLine(GpuJsonObject(r)); }

std::string GpuTable(const GpuReplayResult& r) {
  // Appended piece by piece: GCC 12's -Wrestrict misfires on "literal" + std::string chains.
  std::string first_oom = "none";
  if (r.first_oom_event >= 0) {
    first_oom = "event ";
    first_oom.append(std::to_string(r.first_oom_event)).append(", buffer ");
    first_oom.append(std::to_string(r.first_oom_buffer_id)).append(", kind ").append(r.first_oom_kind);
  }
  char buf[2048];
  const double mib = 1024.0 * 1024.0;
  std::snprintf(buf, sizeof buf,
                "%s, policy %s, GPU %s (%.1f MiB total)\n"
                "  events            %llu of %llu (%llu allocations, %llu frees)\n"
                "  failed allocs     %llu (capacity %llu, cap %llu, fragmentation %llu)\n"
                "  first OOM         %s\n"
                "  peak in use       %.2f MiB, peak reserved %.2f MiB, limit %.2f MiB\n"
                "  driver calls      %llu allocs, %llu frees, %llu maps, %llu unmaps; %llu device syncs, %llu "
                "stream syncs, %llu retries\n"
                "  defragmentations  %llu (%.2f MiB through the host, %.2f MiB copied)\n",
                r.backend.c_str(), r.policy.c_str(), r.gpu.c_str(), r.total_bytes / mib, (unsigned long long)r.events,
                (unsigned long long)r.events_total, (unsigned long long)r.allocs, (unsigned long long)r.frees,
                (unsigned long long)r.failed_allocs, (unsigned long long)r.oom_capacity, (unsigned long long)r.oom_cap,
                (unsigned long long)r.oom_fragmentation, first_oom.c_str(), r.peak_bytes_in_use / mib,
                r.peak_pool_bytes / mib, r.bytes_limit / mib, (unsigned long long)r.device_allocs,
                (unsigned long long)r.device_frees, (unsigned long long)r.maps, (unsigned long long)r.unmaps,
                (unsigned long long)r.device_syncs, (unsigned long long)r.stream_syncs,
                (unsigned long long)r.num_alloc_retries, (unsigned long long)r.defragmentations, r.defrag_bytes / mib,
                r.host_bytes_copied / mib);
  std::string out = buf;
  if (!r.first_oom_message.empty()) out += "  message           " + r.first_oom_message + "\n";
  return out;
}

}  // namespace strata::replay
