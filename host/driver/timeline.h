// Timeline: a run written as Chrome trace-event JSON (the format ui.perfetto.dev and chrome://tracing
// open), switched on by the open option `timeline=PATH` of any backend (strata.cc).
//
// One process per device, one thread per track: "host API" (every C API call on the device), and the
// backend's event tracks ("command", "firmware", "mxu", "dma", "pcie", "compaction"; strata.h, Events).
// Spans that overlap on one track (commands in flight together, DMA row commands, host-link copies) are
// async slices; the others are complete ("X") slices. Counters: memory per context after each
// allocation and free, the backend's memory statistics where reading them costs the device nothing (GPU
// backends) and once at the end on every backend, and HBM traffic per window from the DMA spans.
//
// Time: on a backend with a device clock, ts is the device cycle as microseconds at the model's nominal
// 1 GHz (1 us = 1000 cycles); elsewhere it is the API call's index (one call = 1 us). The process's label
// says which. The file is written as events happen and flushed every few hundred events; the closing
// bracket is optional in the format, so a run that stops early still leaves a file the viewers open.
#ifndef STRATA_HOST_DRIVER_TIMELINE_H_
#define STRATA_HOST_DRIVER_TIMELINE_H_

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>

#include "strata/strata.h"

namespace strata::driver {

struct TimelineOptions {
  std::string path;
  uint64_t start_cycle = 0;           // events that end before this are left out
  uint64_t end_cycle = UINT64_MAX;    // ... or begin at or after this
  uint64_t max_bytes = 256ull << 20;  // the file stops growing here (the process label says it was cut)
  uint64_t window_cycles = 10000;     // HBM traffic counter resolution
};

class Timeline {
 public:
  // Creates (truncates) the file; null with *why set when it cannot be written.
  static std::unique_ptr<Timeline> Open(const TimelineOptions& options, const std::string& backend, bool device_clock,
                                        std::string* why);
  ~Timeline();  // Finish()
  Timeline(const Timeline&) = delete;
  Timeline& operator=(const Timeline&) = delete;

  bool device_clock() const { return device_clock_; }
  // The time of the next API call on the index clock (no device clock): 0, 1, 2, ...
  uint64_t NextIndex() { return index_++; }
  // The current call's time on the index clock (for counters sampled inside a call).
  uint64_t CurrentIndex() const { return index_ == 0 ? 0 : index_ - 1; }

  // A backend event (strata.h); spans on "command", "dma" and "pcie" may overlap and are async slices.
  void OnEvent(const strata_event& event);
  // A C API call that took [begin, end) with this status.
  void ApiCall(const char* name, uint64_t begin, uint64_t end, strata_status status);
  // Counter samples at time t on the counter track `name` (one series per value).
  void Counters(const std::string& name, uint64_t t, const std::vector<std::pair<std::string, double>>& values);
  // Writes the HBM traffic counters and closes the file (idempotent).
  void Finish();

 private:
  Timeline(const TimelineOptions& options, std::FILE* file, bool device_clock);
  int Thread(const std::string& track);
  double Micros(uint64_t t) const { return device_clock_ ? static_cast<double>(t) / 1000.0 : static_cast<double>(t); }
  bool InWindow(uint64_t begin, uint64_t end) const;
  // One event on its own line; past max_bytes it is dropped (and the file says so at the end) unless
  // `bounded` is false.
  void Write(const nlohmann::json& event, bool bounded = true);
  void Label(const std::string& text, bool bounded = true);                                         // a process label
  void Slice(int tid, const char* name, uint64_t begin, uint64_t end, const nlohmann::json& args);  // "X"

  TimelineOptions options_;
  std::FILE* file_;
  bool device_clock_;
  bool truncated_ = false;
  uint64_t bytes_ = 0;
  uint64_t events_ = 0;
  uint64_t index_ = 0;
  uint64_t async_id_ = 0;
  std::map<std::string, int> threads_;
  std::map<uint64_t, double> hbm_bytes_;  // window -> bytes moved by DMA row commands in it
};

}  // namespace strata::driver

#endif  // STRATA_HOST_DRIVER_TIMELINE_H_
