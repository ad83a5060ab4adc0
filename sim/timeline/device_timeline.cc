// A device's events on a timeline (see device_timeline.h).
#include "device_timeline.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

namespace strata::timeline {
namespace {

using nlohmann::json;

bool Is(const char* track, const char* name) { return std::strcmp(track, name) == 0; }

// Tracks whose spans overlap: shown as async slices (each its own lane), not nested complete slices.
bool Overlapping(const char* track) { return Is(track, "command") || Is(track, "dma") || Is(track, "pcie"); }

}  // namespace

DeviceTimeline::DeviceTimeline(TraceFile& file, const std::string& name, bool device_clock, const WindowOptions& window)
    : file_(file), pid_(file.AddProcess(name)), device_clock_(device_clock), window_(window) {
  file_.Label(pid_, device_clock ? "clock: device cycles (1 us = 1000 cycles at 1 GHz)"
                                 : "clock: API call index (1 us = one call)");
}

bool DeviceTimeline::InWindow(uint64_t begin, uint64_t end) const {
  if (!device_clock_) return true;
  return end >= window_.start_cycle && begin < window_.end_cycle;
}

// HBM traffic: the row's bytes spread evenly over the cycles it took, into fixed windows.
void DeviceTimeline::AddTraffic(uint64_t begin, uint64_t end, double bytes) {
  const uint64_t w = window_.window_cycles;
  if (end <= begin) end = begin + 1;
  const double per_cycle = bytes / static_cast<double>(end - begin);
  for (uint64_t t = begin; t < end;) {
    const uint64_t next = std::min(end, (t / w + 1) * w);
    hbm_bytes_[t / w] += per_cycle * static_cast<double>(next - t);
    t = next;
  }
}

void DeviceTimeline::OnEvent(const sim::Event& e) {
  if (finished_ || e.track == nullptr || e.name == nullptr) return;
  if (Is(e.track, "dma") && e.kind == sim::EventKind::kSpan && e.value > 0) {
    AddTraffic(e.begin_cycle, e.end_cycle, static_cast<double>(e.value));
  }
  if (!InWindow(e.begin_cycle, e.end_cycle)) return;
  // A byte-moving track's value is its bytes; a heap event's the buffer's bytes, a device event's the range's (gpu-emu:
  // what the policy took from the GPU); elsewhere the command's status.
  const bool held = Is(e.track, "heap") || Is(e.track, "device");
  const bool bytes = Is(e.track, "dma") || Is(e.track, "pcie") || Is(e.track, "compaction") || held;
  json args{{bytes ? "bytes" : "value", e.value}};
  if (e.id != 0) args[Is(e.track, "heap") ? "buffer" : "id"] = e.id;
  if (e.has_address) {
    if (held) {
      args["address"] = e.address;
      if (e.to_address != e.address) args["to_address"] = e.to_address;
    } else if (Is(e.track, "pcie")) {
      args["hbm_address"] = e.address;
    } else {
      args["src"] = e.address;
      args["dst"] = e.to_address;
    }
  }
  switch (e.kind) {
    case sim::EventKind::kCounter:
      file_.Counter(pid_, std::string(e.track) + " " + e.name, Micros(e.begin_cycle), {{e.name, e.value}});
      return;
    case sim::EventKind::kInstant:
      file_.Instant(pid_, file_.Thread(pid_, e.track), e.name, Micros(e.begin_cycle), args);
      return;
    case sim::EventKind::kSpan:
      break;
  }
  const int tid = file_.Thread(pid_, e.track);
  // On the index clock a span inside one call takes that call's tick.
  const uint64_t end = !device_clock_ && e.end_cycle == e.begin_cycle ? e.begin_cycle + 1 : e.end_cycle;
  if (Overlapping(e.track)) {
    file_.Async(pid_, tid, e.track, e.name, Micros(e.begin_cycle), Micros(end), args);
  } else {
    file_.Complete(pid_, tid, e.name, Micros(e.begin_cycle), Micros(end) - Micros(e.begin_cycle), args);
  }
}

void DeviceTimeline::ApiCall(const char* name, uint64_t begin, uint64_t end, const char* status) {
  if (finished_ || !InWindow(begin, end)) return;
  if (!device_clock_ && end == begin) end = begin + 1;  // one call = one tick of the index clock
  file_.Complete(pid_, file_.Thread(pid_, "host API"), name, Micros(begin), Micros(end) - Micros(begin),
                 {{"status", status}});
}

void DeviceTimeline::Counters(const std::string& name, uint64_t t,
                              const std::vector<std::pair<std::string, double>>& values) {
  if (finished_ || !InWindow(t, t)) return;
  json args = json::object();
  for (const auto& [k, v] : values) args[k] = v;
  file_.Counter(pid_, name, Micros(t), args);
}

void DeviceTimeline::Finish() {
  if (finished_) return;
  // HBM traffic per window, in GB/s at 1 GHz (bytes per cycle), with a zero after the last window.
  for (const auto& [window, bytes] : hbm_bytes_) {
    const uint64_t t = window * window_.window_cycles;
    Counters("HBM traffic (DMA)", t, {{"GB/s", bytes / static_cast<double>(window_.window_cycles)}});
    if (hbm_bytes_.count(window + 1) == 0) Counters("HBM traffic (DMA)", t + window_.window_cycles, {{"GB/s", 0.0}});
  }
  finished_ = true;
}

}  // namespace strata::timeline
