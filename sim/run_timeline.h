// strata-sim --timeline: a bare firmware run as a Perfetto timeline (sim/timeline): the DMA's row commands at
// the HBM bridge (source, destination, bytes), HBM traffic per window, the matrix unit's busy stretches (a
// command queued or in flight), and the control core: the reset and ELF load, then each stretch it is awake
// between `wfi` sleeps. Runs through the driver have richer timelines
// (the open option `timeline`: commands, host link, heap); this is for firmware of one's own.
#ifndef STRATA_SIM_RUN_TIMELINE_H_
#define STRATA_SIM_RUN_TIMELINE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "device.h"
#include "device_timeline.h"
#include "trace_file.h"

namespace strata::sim {

struct RunTimelineOptions {
  std::string path;  // empty: no timeline
  uint64_t max_bytes = timeline::TraceFile::kDefaultMaxBytes;
  timeline::WindowOptions window;
};

class RunTimeline {
 public:
  // Opens the file and starts listening to `device`; null with *why when the file cannot be written.
  static std::unique_ptr<RunTimeline> Start(Device& device, const RunTimelineOptions& options, const std::string& name,
                                            std::string* why);
  ~RunTimeline();  // Finish()
  RunTimeline(const RunTimeline&) = delete;
  RunTimeline& operator=(const RunTimeline&) = delete;
  // Ends the open spans at the device's cycle, writes the counters, closes the file (idempotent). False when
  // the file could not be written completely.
  bool Finish();

 private:
  RunTimeline(Device& device, std::unique_ptr<timeline::TraceFile> file, const RunTimelineOptions& options,
              const std::string& name);
  void OnCycle();  // a Device cycle hook

  Device& device_;
  std::unique_ptr<timeline::TraceFile> file_;
  timeline::DeviceTimeline timeline_;
  int hook_ = -1;
  bool started_ = false;  // the core has retired its first instruction
  bool ok_ = true;        // Finish()'s answer
  Stretch core_{"core", "awake"};
  Stretch mxu_{"matrix unit", "busy"};
};

}  // namespace strata::sim

#endif  // STRATA_SIM_RUN_TIMELINE_H_
