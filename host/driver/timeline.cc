// Timeline: Chrome trace-event JSON, written as the run goes (see timeline.h).
#include "timeline.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

namespace strata::driver {
namespace {

using nlohmann::json;

constexpr int kPid = 1;
constexpr uint64_t kFlushEvery = 256;

// Tracks whose spans overlap: shown as async slices (each its own row), not nested "X" slices.
bool Overlapping(const std::string& track) { return track == "command" || track == "dma" || track == "pcie"; }

}  // namespace

std::unique_ptr<Timeline> Timeline::Open(const TimelineOptions& options, const std::string& backend, bool device_clock,
                                         std::string* why) {
  std::FILE* f = std::fopen(options.path.c_str(), "w");
  if (f == nullptr) {
    *why = std::strerror(errno);
    return nullptr;
  }
  std::unique_ptr<Timeline> t(new Timeline(options, f, device_clock));
  t->Write(json{{"ph", "M"}, {"pid", kPid}, {"name", "process_name"}, {"args", {{"name", "strata " + backend}}}});
  t->Label(device_clock ? "clock: device cycles (1 us = 1000 cycles at 1 GHz)"
                        : "clock: API call index (1 us = one call)");
  t->Thread("host API");
  return t;
}

Timeline::Timeline(const TimelineOptions& options, std::FILE* file, bool device_clock)
    : options_(options), file_(file), device_clock_(device_clock) {
  std::fputs("[", file_);  // the format's array; each event follows on its own line (Write)
  bytes_ = 1;
}

Timeline::~Timeline() { Finish(); }

void Timeline::Write(const json& event, bool bounded) {
  if (file_ == nullptr) return;
  const std::string text = event.dump();
  if (bounded && bytes_ + text.size() > options_.max_bytes) {
    truncated_ = true;
    return;
  }
  const char* sep = events_ == 0 ? "\n" : ",\n";  // no comma before the first event
  bytes_ += std::strlen(sep) + text.size();
  std::fputs(sep, file_);
  std::fputs(text.c_str(), file_);
  if (++events_ % kFlushEvery == 0) std::fflush(file_);
}

void Timeline::Label(const std::string& text, bool bounded) {
  Write(json{{"ph", "M"}, {"pid", kPid}, {"name", "process_labels"}, {"args", {{"labels", text}}}}, bounded);
}

void Timeline::Slice(int tid, const char* name, uint64_t begin, uint64_t end, const json& args) {
  Write(json{{"ph", "X"},
             {"pid", kPid},
             {"tid", tid},
             {"name", name},
             {"ts", Micros(begin)},
             {"dur", Micros(end) - Micros(begin)},
             {"args", args}});
}

int Timeline::Thread(const std::string& track) {
  const auto it = threads_.find(track);
  if (it != threads_.end()) return it->second;
  const int tid = static_cast<int>(threads_.size()) + 1;
  threads_[track] = tid;
  Write(json{{"ph", "M"}, {"pid", kPid}, {"tid", tid}, {"name", "thread_name"}, {"args", {{"name", track}}}});
  Write(json{{"ph", "M"}, {"pid", kPid}, {"tid", tid}, {"name", "thread_sort_index"}, {"args", {{"sort_index", tid}}}});
  return tid;
}

bool Timeline::InWindow(uint64_t begin, uint64_t end) const {
  if (!device_clock_) return true;
  return end >= options_.start_cycle && begin < options_.end_cycle;
}

void Timeline::OnEvent(const strata_event& e) {
  if (file_ == nullptr || e.track == nullptr || e.name == nullptr) return;
  const std::string track = e.track;
  if (track == "dma" && e.kind == STRATA_EVENT_SPAN && e.value > 0) {
    // HBM traffic: the row's bytes spread evenly over the cycles it took, into fixed windows.
    const uint64_t w = options_.window_cycles;
    const uint64_t begin = e.begin_cycle, end = e.end_cycle > e.begin_cycle ? e.end_cycle : e.begin_cycle + 1;
    const double per_cycle = static_cast<double>(e.value) / static_cast<double>(end - begin);
    for (uint64_t t = begin; t < end;) {
      const uint64_t next = std::min(end, (t / w + 1) * w);
      hbm_bytes_[t / w] += per_cycle * static_cast<double>(next - t);
      t = next;
    }
  }
  if (!InWindow(e.begin_cycle, e.end_cycle)) return;
  const int tid = Thread(track);
  // A byte-moving track's value is its bytes; elsewhere the command's status.
  const bool moves_bytes = track == "dma" || track == "pcie" || track == "compaction";
  json args{{moves_bytes ? "bytes" : "value", e.value}};
  if (e.id != 0) args["id"] = e.id;
  if (e.kind == STRATA_EVENT_COUNTER) {
    Write(json{{"ph", "C"},
               {"pid", kPid},
               {"name", track + " " + e.name},
               {"ts", Micros(e.begin_cycle)},
               {"args", {{e.name, e.value}}}});
  } else if (Overlapping(track)) {
    json slice{{"pid", kPid}, {"tid", tid}, {"cat", track}, {"id", ++async_id_}, {"name", e.name}};
    json begin = slice, end = slice;
    begin["ph"] = "b";
    begin["ts"] = Micros(e.begin_cycle);
    begin["args"] = args;
    end["ph"] = "e";
    end["ts"] = Micros(e.end_cycle);
    Write(begin);
    Write(end);
  } else {
    Slice(tid, e.name, e.begin_cycle, e.end_cycle, args);
  }
}

void Timeline::ApiCall(const char* name, uint64_t begin, uint64_t end, strata_status status) {
  if (file_ == nullptr || !InWindow(begin, end)) return;
  if (!device_clock_ && end == begin) end = begin + 1;  // one call = one tick of the index clock
  Slice(Thread("host API"), name, begin, end, {{"status", strata_status_name(status)}});
}

void Timeline::Counters(const std::string& name, uint64_t t,
                        const std::vector<std::pair<std::string, double>>& values) {
  if (file_ == nullptr || !InWindow(t, t)) return;
  json args = json::object();
  for (const auto& [k, v] : values) args[k] = v;
  Write(json{{"ph", "C"}, {"pid", kPid}, {"name", name}, {"ts", Micros(t)}, {"args", args}});
}

void Timeline::Finish() {
  if (file_ == nullptr) return;
  // HBM traffic per window, in GB/s at 1 GHz (bytes per cycle), with a zero after the last window.
  for (const auto& [window, bytes] : hbm_bytes_) {
    const uint64_t t = window * options_.window_cycles;
    Counters("HBM traffic (DMA)", t, {{"GB/s", bytes / static_cast<double>(options_.window_cycles)}});
    if (hbm_bytes_.count(window + 1) == 0) Counters("HBM traffic (DMA)", t + options_.window_cycles, {{"GB/s", 0.0}});
  }
  if (truncated_) Label("timeline cut at timeline_max_bytes: later events are missing", /*bounded=*/false);
  std::fputs("\n]\n", file_);
  std::fclose(file_);
  file_ = nullptr;
}

}  // namespace strata::driver
