// The model's events (sim/timeline/event_sink.h) and the C API's (strata_event), one field for one field: backends
// report sim::Event and hand strata_event to the caller's sink; the core's timeline takes sim::Event back.
#ifndef STRATA_HOST_DRIVER_EVENTS_H_
#define STRATA_HOST_DRIVER_EVENTS_H_

#include "event_sink.h"
#include "strata/strata.h"

namespace strata::driver {

inline strata_event ToApiEvent(const sim::Event& e) {
  strata_event out{};
  out.struct_size = sizeof out;
  out.kind = static_cast<strata_event_kind>(e.kind);
  out.track = e.track;
  out.name = e.name;
  out.begin_cycle = e.begin_cycle;
  out.end_cycle = e.end_cycle;
  out.value = e.value;
  out.id = e.id;
  out.flags = e.has_address ? STRATA_EVENT_FLAG_ADDRESS : 0u;
  out.address = e.address;
  out.to_address = e.to_address;
  return out;
}

inline sim::Event FromApiEvent(const strata_event& e) {
  sim::Event out;
  out.track = e.track;
  out.name = e.name;
  out.begin_cycle = e.begin_cycle;
  out.end_cycle = e.end_cycle;
  out.value = e.value;
  out.id = e.id;
  out.kind = static_cast<sim::EventKind>(e.kind);
  out.has_address = (e.flags & STRATA_EVENT_FLAG_ADDRESS) != 0;
  out.address = e.address;
  out.to_address = e.to_address;
  return out;
}

// A backend's sink: the caller's function, fed sim::Events.
struct ApiEventSink : sim::EventSink {
  strata_event_fn fn = nullptr;
  void* user = nullptr;
  bool on() const { return fn != nullptr; }
  void OnEvent(const sim::Event& e) override {
    if (fn == nullptr) return;
    const strata_event out = ToApiEvent(e);
    fn(user, &out);
  }
};

}  // namespace strata::driver

#endif  // STRATA_HOST_DRIVER_EVENTS_H_
