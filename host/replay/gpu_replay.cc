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
    if (options.total_bytes != 0) named->Add("total_bytes", options.total_bytes);
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
  ro.record_places = options.record_places;
  ro.on_event = options.on_event;
  RunResult& run = r.run;
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
      if (step.oom != nullptr) row.device_free_bytes = step.oom->info.device_free_bytes;
      options.series(row);
      return true;
    };
  }
  if (!RunEvents(d, {{&trace, ctx}}, events, nullptr, ro, &run, error)) return false;
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
  const strata_memory_stats& s = r.run.stats;
  Json j;
  j["backend"] = r.backend;
  j["policy"] = r.policy;
  j["gpu"] = r.gpu;
  j["total_bytes"] = r.total_bytes;
  j["events"] = r.run.events;
  j["events_total"] = r.run.events_total;
  j["allocs"] = r.run.allocs;
  j["frees"] = r.run.frees;
  j["failed_allocs"] = r.run.failed_allocs;
  j["first_oom_buffer_id"] = r.run.first_oom.event >= 0 ? r.run.first_oom.buffer_id : -1;
  j["first_oom_event"] = r.run.first_oom.event;
  j["first_oom_kind"] = strata_oom_kind_name(r.run.first_oom.kind);
  j["first_oom_reserved_bytes"] = r.run.first_oom.info.reserved_bytes;
  j["first_oom_live_bytes"] = r.run.first_oom.info.live_bytes;
  j["oom_capacity"] = s.oom_capacity;
  j["oom_cap"] = s.oom_cap;
  j["oom_fragmentation"] = s.oom_fragmentation;
  j["peak_bytes_in_use"] = s.peak_bytes_in_use;
  j["peak_pool_bytes"] = s.peak_pool_bytes;
  j["bytes_limit"] = s.bytes_limit;
  j["device_allocs"] = s.device_allocs;
  j["device_frees"] = s.device_frees;
  j["device_syncs"] = s.device_syncs;
  j["stream_syncs"] = s.stream_syncs;
  j["maps"] = s.maps;
  j["unmaps"] = s.unmaps;
  j["num_alloc_retries"] = s.num_alloc_retries;
  j["defragmentations"] = r.run.defragmentations;
  j["defrag_bytes"] = r.run.defrag_bytes;
  j["host_bytes_copied"] = s.host_bytes_copied;
  j["wall_seconds"] = JsonRound(r.wall_seconds, 4);
  j["first_oom_message"] = r.run.first_oom.message;
  return j;
}

std::string GpuJson(const GpuReplayResult& r) { return JsonLine(GpuJsonObject(r)); }

std::string GpuTable(const GpuReplayResult& r) {
  // Appended piece by piece: GCC 12's -Wrestrict misfires on "literal" + std::string chains.
  const RunOom& oom = r.run.first_oom;
  const strata_memory_stats& s = r.run.stats;
  std::string first_oom = "none";
  if (oom.event >= 0) {
    first_oom = "event ";
    first_oom.append(std::to_string(oom.event)).append(", buffer ");
    first_oom.append(std::to_string(oom.buffer_id)).append(", kind ").append(strata_oom_kind_name(oom.kind));
  }
  char buf[2048];
  const double mib = 1024.0 * 1024.0;
  std::snprintf(
      buf, sizeof buf,
      "%s, policy %s, GPU %s (%.1f MiB total)\n"
      "  events            %llu of %llu (%llu allocations, %llu frees)\n"
      "  failed allocs     %llu (capacity %llu, cap %llu, fragmentation %llu)\n"
      "  first OOM         %s\n"
      "  peak in use       %.2f MiB, peak reserved %.2f MiB, limit %.2f MiB\n"
      "  driver calls      %llu allocs, %llu frees, %llu maps, %llu unmaps; %llu device syncs, %llu "
      "stream syncs, %llu retries\n"
      "  defragmentations  %llu (%.2f MiB through the host, %.2f MiB copied)\n",
      r.backend.c_str(), r.policy.c_str(), r.gpu.c_str(), r.total_bytes / mib, (unsigned long long)r.run.events,
      (unsigned long long)r.run.events_total, (unsigned long long)r.run.allocs, (unsigned long long)r.run.frees,
      (unsigned long long)r.run.failed_allocs, (unsigned long long)s.oom_capacity, (unsigned long long)s.oom_cap,
      (unsigned long long)s.oom_fragmentation, first_oom.c_str(), s.peak_bytes_in_use / mib, s.peak_pool_bytes / mib,
      s.bytes_limit / mib, (unsigned long long)s.device_allocs, (unsigned long long)s.device_frees,
      (unsigned long long)s.maps, (unsigned long long)s.unmaps, (unsigned long long)s.device_syncs,
      (unsigned long long)s.stream_syncs, (unsigned long long)s.num_alloc_retries,
      (unsigned long long)r.run.defragmentations, r.run.defrag_bytes / mib, s.host_bytes_copied / mib);
  std::string out = buf;
  if (!oom.message.empty()) out += "  message           " + oom.message + "\n";
  return out;
}

}  // namespace strata::replay
