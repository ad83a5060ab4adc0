// Timed events from inside a run, on the device clock: the seam through which the model's parts (the host
// link's copies, the driver's commands and what the firmware reports about them) tell a listener what they
// did and when, so that timelines can be drawn. Nothing listens by default; a part with no sink pays one
// pointer test per event it would have reported.
#ifndef STRATA_SIM_EVENT_SINK_H_
#define STRATA_SIM_EVENT_SINK_H_

#include <cstdint>

namespace strata::sim {

// Something that took [begin_cycle, end_cycle) (the C API's STRATA_EVENT_SPAN; the model reports no counters).
struct Event {
  const char* track = "";  // where: "command", "firmware", "mxu", "pcie", "dma", "compaction" (static strings)
  const char* name = "";   // what: an opcode ("alloc", "gemm"), a copy direction ("to_device")
  uint64_t begin_cycle = 0;
  uint64_t end_cycle = 0;
  int64_t value = 0;  // bytes moved, or the command's status
  uint64_t id = 0;    // the command's sequence number, the copy's id (0: none)
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  // Called synchronously, on the thread that advanced the model, in the order the events ended.
  virtual void OnEvent(const Event& event) = 0;
};

}  // namespace strata::sim

#endif  // STRATA_SIM_EVENT_SINK_H_
