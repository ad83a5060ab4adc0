// Timed events from inside a run, on the device clock: the seam through which the model's parts (the host
// link's copies, the DMA's row commands, the driver's commands and what the firmware reports about them)
// tell a listener what they did and when, so that timelines can be drawn. Nothing listens by default; a
// part with no sink pays one pointer test per event it would have reported.
#ifndef STRATA_SIM_TIMELINE_EVENT_SINK_H_
#define STRATA_SIM_TIMELINE_EVENT_SINK_H_

#include <cstdint>

namespace strata::sim {

// The C API's strata_event_kind, value for value.
enum class EventKind : uint8_t { kSpan = 1, kCounter = 2, kInstant = 3 };

// Something that took [begin_cycle, end_cycle), a value at begin_cycle (counter), or a moment (instant).
struct Event {
  const char* track = "";  // where: "command", "firmware", "mxu", "pcie", "dma", "compaction", "heap" (static)
  const char* name = "";   // what: an opcode ("alloc", "gemm"), a copy direction ("to_device")
  uint64_t begin_cycle = 0;
  uint64_t end_cycle = 0;
  int64_t value = 0;  // bytes moved or held, or the command's status
  uint64_t id = 0;    // the command's sequence number, the copy's id, the buffer (0: none)
  EventKind kind = EventKind::kSpan;
  // Device addresses, for pictures of the address space (never for calls): a buffer's first byte ("heap"),
  // a copy's source and destination ("dma", "pcie": the device side). Meaningful where `has_address`.
  bool has_address = false;
  uint64_t address = 0;
  uint64_t to_address = 0;
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  // Called synchronously, on the thread that advanced the model, in the order the events ended.
  virtual void OnEvent(const Event& event) = 0;
};

// A span on `track` for each stretch of cycles in which a condition holds, from a per-cycle sample (the
// core awake, the matrix unit busy). Update(false, ...) at the end closes an open stretch.
struct Stretch {
  const char* track;
  const char* name;
  bool on = false;
  uint64_t since = 0;
  void Update(bool now_on, uint64_t cycle, EventSink& sink) {
    if (now_on == on) return;
    if (on) sink.OnEvent(Event{track, name, since, cycle});
    on = now_on;
    since = cycle;
  }
};

}  // namespace strata::sim

#endif  // STRATA_SIM_TIMELINE_EVENT_SINK_H_
