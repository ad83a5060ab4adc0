// The trace model every tool shares: a workload as buffers with live ranges (the MiniMalloc/idealloc CSV, and what
// the importers in host/workload build from other formats), the events a replay walks through, the least memory
// any allocator needs, and the capacity grammar that reads sizes against it. No allocator: the importers depend on
// this alone; replay.h runs a trace through the firmware allocator.
#ifndef STRATA_HOST_REPLAY_TRACE_H_
#define STRATA_HOST_REPLAY_TRACE_H_

#include <stdint.h>

#include <istream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace strata::replay {

struct TraceBuffer {
  int64_t id = 0;
  uint64_t lower = 0;  // live over [lower, upper)
  uint64_t upper = 0;
  uint64_t size = 0;
  uint32_t line = 0;  // 1-based line in the file
};

struct Trace {
  std::string name;  // file name without directories
  std::vector<TraceBuffer> buffers;
  // Optional, empty or one per buffer (XLA imports, host/workload/xla_workload.h): the offset a static planner gave
  // each buffer (strata-compare's xla-static row) and its shape ("f32[128,256]{1,0}", for tile padding).
  std::vector<uint64_t> planned_offsets;
  std::vector<std::string_view> shapes;
  // Optional, empty or one per buffer (PyTorch snapshots, host/workload/torch_snapshot.cc): a short label from the
  // stack that allocated it, "file:line:function" of its innermost user frame; empty where it had none.
  std::vector<std::string_view> labels;
  // Owns the text `shapes` and `labels` view (the import's one string table): a text many buffers share is stored
  // once, and the views stay valid however the trace is copied or moved.
  std::shared_ptr<const void> shape_text;
};

// The largest buffer a trace may hold, and the most all of its sizes may add up to: so that no load, sum or
// granule rounding computed from a trace can wrap 64 bits.
constexpr uint64_t kMaxTraceBytes = uint64_t{1} << 62;
constexpr uint64_t kMaxTraceTotalBytes = uint64_t{1} << 63;

// Parses the CSV: a header naming at least id, lower, upper, size (any order, extra columns ignored),
// then one buffer per line. On error returns false with "LINE: what is wrong" in *error.
bool ParseTrace(std::istream& in, const std::string& name, Trace* trace, std::string* error);
// Same, from a file; errors read "PATH:LINE: what is wrong".
bool LoadTrace(const std::string& path, Trace* trace, std::string* error);

// One step of a replay: at each time, the buffers that end are freed, then those that start are allocated.
struct Event {
  uint64_t time;
  uint32_t kind;    // 0 free, 1 allocate: frees first at equal times
  uint32_t buffer;  // index into Trace::buffers
};
// A live buffer's place on a device at one moment of a replay.
struct PlacedBuffer {
  uint64_t offset = 0, bytes = 0;  // offset: the heap offset or device address; bytes: as the producer says
  uint32_t buffer = 0;             // index into Trace::buffers
};
// Where a buffer was on a device and for how long: from its allocation (or a compaction move to `offset`) at event
// `from` to its free (or the next move away) at event `to`, indices in replay order; `to` is the number of events
// run when it was still there at the end. A buffer a compaction moved has one span per place (strata-compare --html).
struct PlacedSpan {
  uint64_t offset = 0, bytes = 0;  // the heap offset or device address; bytes: what the device allocated
  uint64_t from = 0, to = 0;
  uint32_t buffer = 0;  // index into Trace::buffers
};

// Every buffer's allocation and free, in replay order (time, frees first, then file order).
std::vector<Event> BuildEvents(const Trace& trace);

// Peak of the summed live sizes, each rounded up to the granule: the least memory any allocator needs.
uint64_t MaxLoad(const Trace& trace, uint32_t granule_bytes);
// The same from the trace's events, when the caller has them.
uint64_t MaxLoad(const Trace& trace, const std::vector<Event>& events, uint32_t granule_bytes);

// "1.0x" (times max load) or a byte count with an optional K/M/G/T (or KiB/MiB/GiB/TiB) suffix.
bool ParseCapacity(const std::string& text, uint64_t max_load, uint32_t granule, uint64_t* bytes, std::string* error);

}  // namespace strata::replay

#endif  // STRATA_HOST_REPLAY_TRACE_H_
