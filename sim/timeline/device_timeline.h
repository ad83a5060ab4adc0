// One device's run on a timeline (trace_file.h): its events (event_sink.h) as slices on a thread per track,
// host API calls, memory counters and HBM traffic per window. Used by the driver's open option `timeline`
// (every backend) and by `strata-sim --timeline` (bare firmware runs).
//
// Tracks whose spans overlap ("command": commands in flight together; "dma": row commands of several
// queues; "pcie": host-link copies) are async slices; the others are complete slices. "heap" events
// (an allocation, a free, a move: instants carrying the buffer's address) are the input of the memory
// picture (scripts/plot_memory.py); DMA and host-link slices carry their source and destination addresses.
//
// Time: on a device clock, ts is the cycle as microseconds at the model's nominal 1 GHz (1 us = 1000
// cycles); elsewhere it is the API call's index (one call = 1 us). The process's label says which.
#ifndef STRATA_SIM_TIMELINE_DEVICE_TIMELINE_H_
#define STRATA_SIM_TIMELINE_DEVICE_TIMELINE_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "event_sink.h"
#include "trace_file.h"

namespace strata::timeline {

struct WindowOptions {
  uint64_t start_cycle = 0;         // events that end before this are left out
  uint64_t end_cycle = UINT64_MAX;  // ... or begin at or after this
  uint64_t window_cycles = 10000;   // HBM traffic counter resolution
};

class DeviceTimeline : public sim::EventSink {
 public:
  // A new process `name` in `file` (which must outlive this).
  DeviceTimeline(TraceFile& file, const std::string& name, bool device_clock, const WindowOptions& window);

  bool device_clock() const { return device_clock_; }
  // The time of the next API call on the index clock (no device clock): 0, 1, 2, ...
  uint64_t NextIndex() { return index_++; }
  // The current call's time on the index clock (for counters sampled inside a call).
  uint64_t CurrentIndex() const { return index_ == 0 ? 0 : index_ - 1; }

  void OnEvent(const sim::Event& event) override;
  // A C API call that took [begin, end) and answered `status`.
  void ApiCall(const char* name, uint64_t begin, uint64_t end, const char* status);
  // Counter samples at time t on the counter track `name` (one series per value).
  void Counters(const std::string& name, uint64_t t, const std::vector<std::pair<std::string, double>>& values);
  // Writes the HBM traffic counters (idempotent). The file stays open.
  void Finish();

 private:
  double Micros(uint64_t t) const { return device_clock_ ? static_cast<double>(t) / 1000.0 : static_cast<double>(t); }
  bool InWindow(uint64_t begin, uint64_t end) const;
  void AddTraffic(uint64_t begin, uint64_t end, double bytes);

  TraceFile& file_;
  int pid_;
  bool device_clock_;
  WindowOptions window_;
  bool finished_ = false;
  uint64_t index_ = 0;
  std::map<uint64_t, double> hbm_bytes_;  // window -> bytes moved by DMA row commands in it
};

}  // namespace strata::timeline

#endif  // STRATA_SIM_TIMELINE_DEVICE_TIMELINE_H_
