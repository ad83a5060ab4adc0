// The C API: argument checks, struct_size handling, per-device locking, error messages, the backend registry
// and device identity in handles; backends do the work. Builds and links without any backend.
#include "strata/strata.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <unordered_set>
#include <utility>
#include <vector>

#include "backend.h"
#include "device_timeline.h"
#include "events.h"
#include "strata/protocol.h"
#include "trace_file.h"

struct strata_device {
  std::mutex mutex;
  std::unique_ptr<strata::driver::Backend> backend;
  uint32_t tag = 0;                                         // this device's identity in its handles (1 .. kMaxTag)
  std::string backend_name;                                 // as opened (strata_list_backends)
  std::vector<strata::driver::OptionSpec> context_options;  // what strata_context_create takes (BackendInfo)
  std::string failed;  // non-empty: the device failed (a timeout); every call but info/close is refused
  // The open option `timeline` (sim/timeline/device_timeline.h). The core then owns the backend's event sink and passes
  // each event to the timeline and to the caller's sink, if any.
  std::unique_ptr<strata::timeline::TraceFile> timeline_file;
  std::unique_ptr<strata::timeline::DeviceTimeline> timeline;
  bool backend_events = false;  // the backend reports events (its sink is the core's)
  strata_event_fn user_sink = nullptr;
  void* user_sink_data = nullptr;
  strata_status call_status = STRATA_OK;                              // the current call's answer (Answer)
  std::map<strata_buffer, std::pair<strata_context, uint64_t>> live;  // timeline: tagged buffer -> context, bytes
  std::map<strata_context, uint64_t> context_bytes;                   // timeline: requested bytes per context
  std::map<strata_context, int> context_numbers;                      // timeline: 1, 2, ... in order of first use
};

namespace {

using strata::driver::Error;
using strata::driver::kBackendBufferBits;
using strata::driver::kBackendContextBits;

thread_local std::string t_last_error;

strata_status Fail(const char* call, strata_status status, const std::string& what) {
  t_last_error = std::string(call) + ": " + strata_status_name(status) + ": " + what;
  return status;
}

strata_status Report(const char* call, const Error& e) {
  if (e.ok()) {
    t_last_error.clear();
    return STRATA_OK;
  }
  return Fail(call, e.status, e.message);
}

// No C++ exception crosses the C API: whatever a backend throws becomes a status with a message.
template <typename Fn>
strata_status Guarded(const char* call, Fn&& fn) {
  try {
    return fn();
  } catch (const std::bad_alloc&) {
    return Fail(call, STRATA_RESOURCE_EXHAUSTED, "out of host memory");
  } catch (const std::exception& e) {
    return Fail(call, STRATA_INTERNAL, std::string("unexpected error: ") + e.what());
  } catch (...) {
    return Fail(call, STRATA_INTERNAL, "unexpected error");
  }
}

// The devices that are open: a closed or forged device pointer is refused (until its address is reused).
constexpr uint32_t kTagBits = 64 - kBackendBufferBits;  // 10: also fits above a context id's 20 bits
constexpr uint32_t kMaxTag = (1u << kTagBits) - 1;
static_assert(kBackendContextBits + kTagBits <= 32, "context ids carry the device tag");

struct LiveDevices {
  std::mutex mutex;
  std::unordered_set<const strata_device*> devices;
  uint32_t next_tag = 1;
};
LiveDevices& Live() {
  static LiveDevices* live = new LiveDevices;  // never destroyed: a close may run during static destruction
  return *live;
}

// strata_interrupt's view of the open devices, by tag. It runs in signal handlers, so it may take no lock and read
// no registry: it finds its device here with atomic loads alone and counts itself in `users` while it touches the
// backend. strata_close clears the entry first and deletes the device only when no strata_interrupt is in it, so an
// interrupt racing a close either reaches a live backend or finds nothing (a closed device) and touches nothing.
struct InterruptSlot {
  std::atomic<strata_device*> device{nullptr};
  std::atomic<uint32_t> users{0};
};
static_assert(std::atomic<strata_device*>::is_always_lock_free && std::atomic<uint32_t>::is_always_lock_free,
              "strata_interrupt is async-signal-safe only over lock-free atomics");
InterruptSlot g_interrupt_slots[kMaxTag + 1];  // constant-initialised, trivially destroyed: usable at any time

// The device can be interrupted from now on (its backend is made).
void PublishForInterrupt(strata_device* device) { g_interrupt_slots[device->tag].device.store(device); }

// No strata_interrupt reaches the device after this returns. Sequentially consistent order (the atomics' default)
// is what makes it hold: either an interrupt counted itself in before the entry changed and is waited for here, or
// it reads the entry after and finds another device or none. The entry is cleared only if it still names this
// device: once RemoveLive has run, a device opened meanwhile may have its tag, and its entry, already.
void UnpublishForInterrupt(strata_device* device) {
  InterruptSlot& slot = g_interrupt_slots[device->tag];
  strata_device* expected = device;
  slot.device.compare_exchange_strong(expected, nullptr);
  while (slot.users.load() != 0) std::this_thread::yield();  // an interrupt is a few instructions long
}

bool IsLive(const strata_device* device) {
  LiveDevices& l = Live();
  std::lock_guard<std::mutex> lock(l.mutex);
  return l.devices.count(device) != 0;
}

// Registers the device and gives it a tag no other open device has. False when kMaxTag devices are open.
bool AddLive(strata_device* device) {
  LiveDevices& l = Live();
  std::lock_guard<std::mutex> lock(l.mutex);
  for (uint32_t tries = 0; tries < kMaxTag; ++tries) {
    const uint32_t tag = l.next_tag;
    l.next_tag = tag == kMaxTag ? 1 : tag + 1;
    bool used = false;
    for (const strata_device* d : l.devices) used = used || d->tag == tag;
    if (!used) {
      device->tag = tag;
      l.devices.insert(device);
      return true;
    }
  }
  return false;
}

bool RemoveLive(const strata_device* device) {
  LiveDevices& l = Live();
  std::lock_guard<std::mutex> lock(l.mutex);
  return l.devices.erase(device) != 0;
}

strata_buffer TagBuffer(const strata_device* d, strata_buffer b) {
  return b | (static_cast<uint64_t>(d->tag) << kBackendBufferBits);
}
strata_context TagContext(const strata_device* d, strata_context c) { return c | (d->tag << kBackendContextBits); }

// A caller's handle -> the backend's. 0 stays 0 (the backend says "not a handle"); another device's tag fails.
Error UntagBuffer(const strata_device* d, strata_buffer b, strata_buffer* out) {
  *out = b;
  if (b == 0) return {};
  const uint32_t tag = static_cast<uint32_t>(b >> kBackendBufferBits);
  if (tag != d->tag) {
    return {STRATA_INVALID_ARGUMENT,
            tag == 0 ? "not a buffer handle of any device" : "the buffer handle belongs to another device"};
  }
  *out = b & ((uint64_t{1} << kBackendBufferBits) - 1);
  return {};
}
Error UntagContext(const strata_device* d, strata_context c, strata_context* out) {
  *out = c;
  if (c == 0) return {};
  const uint32_t tag = c >> kBackendContextBits;
  if (tag == 0) return {STRATA_NOT_FOUND, "no such context (never created on any device)"};
  if (tag != d->tag) return {STRATA_INVALID_ARGUMENT, "the context belongs to another device"};
  *out = c & ((1u << kBackendContextBits) - 1);
  return {};
}

// Both of a call's ids, context first (its error wins, as the backend would report it).
Error Untag(const strata_device* d, strata_context context, strata_buffer buffer, strata_context* c, strata_buffer* b) {
  Error e = UntagContext(d, context, c);
  if (e.ok()) e = UntagBuffer(d, buffer, b);
  return e;
}

// A struct passed in must be at least as large as API 1.0's; an older caller's smaller struct is
// accepted as long as it holds every field this version needs.
template <typename T>
bool SizeOk(const T* s, size_t v1_size) {
  return s != nullptr && s->struct_size >= v1_size;
}

// Copies a fully populated result into the caller's struct, no further than its struct_size.
template <typename T>
void CopyOut(const T& full, T* out) {
  const uint32_t n = out->struct_size < sizeof(T) ? out->struct_size : static_cast<uint32_t>(sizeof(T));
  std::memcpy(reinterpret_cast<char*>(out) + sizeof(uint32_t), reinterpret_cast<const char*>(&full) + sizeof(uint32_t),
              n - sizeof(uint32_t));
}

const char* TypeName(strata_value_type t) {
  switch (t) {
    case STRATA_VALUE_STRING:
      return "string";
    case STRATA_VALUE_INT64:
      return "int64";
    case STRATA_VALUE_DOUBLE:
      return "double";
    case STRATA_VALUE_BOOL:
      return "bool";
  }
  return "unknown";
}

// strata_option_info up to `help`: what API 1.2 to 1.9 callers pass.
constexpr uint32_t kOptionInfoV12Size = offsetof(strata_option_info, choices);

// An option's default as its type (strata_option_info.default_int64, ...), read from the text the backend declared.
void TypedDefault(const strata::driver::OptionSpec& o, strata_option_info* out) {
  const char* text = o.default_value.c_str();
  switch (o.type) {
    case STRATA_VALUE_INT64:
      out->default_int64 = std::strtoll(text, nullptr, 10);
      break;
    case STRATA_VALUE_DOUBLE:
      out->default_double = std::strtod(text, nullptr);
      break;
    case STRATA_VALUE_BOOL:
      out->default_bool = o.default_value == "1" || o.default_value == "true";
      break;
    case STRATA_VALUE_STRING:
      break;
  }
}

// Each backend with what stands against it here: "gpu-emu, cuda (unavailable: no CUDA device), sim".
std::string BackendList() {
  std::string list;
  for (const auto* b : strata::driver::Backends()) {
    list += (list.empty() ? "" : ", ") + b->name;
    if (b->unavailable != nullptr) {
      if (const std::string why = b->unavailable(); !why.empty()) list += " (unavailable: " + why + ")";
    }
  }
  return list.empty() ? "none" : list;
}

// Checks one named value against the backend's specs (`what`: "option", or "context option" for
// strata_context_create's) and stores it.
Error AddOption(const std::string& backend, const std::vector<strata::driver::OptionSpec>& specs, const char* what,
                const std::string& name, strata::driver::OpenOptions::Value v, strata::driver::OpenOptions* out) {
  const auto spec = std::find_if(specs.begin(), specs.end(), [&](const auto& o) { return o.name == name; });
  if (spec == specs.end()) {
    std::string list;
    for (const auto& o : specs) list += (list.empty() ? "" : ", ") + o.name;
    return {STRATA_INVALID_ARGUMENT, "backend '" + backend + "' has no " + what + " '" + name +
                                         "' (valid: " + (list.empty() ? "none" : list) + ")"};
  }
  if (v.type != spec->type) {
    if (spec->type == STRATA_VALUE_DOUBLE && v.type == STRATA_VALUE_INT64) {
      v.d = static_cast<double>(v.i);
      v.type = STRATA_VALUE_DOUBLE;
    } else {
      return {STRATA_INVALID_ARGUMENT,
              std::string(what) + " '" + name + "' is a " + TypeName(spec->type) + ", not a " + TypeName(v.type)};
    }
  }
  out->Set(name, std::move(v));
  return {};
}

// The caller's named values (strata_open_options' or strata_context_options'), each checked and stored.
Error AddNamedValues(const std::string& backend, const std::vector<strata::driver::OptionSpec>& specs, const char* what,
                     const strata_named_value* values, uint32_t count, strata::driver::OpenOptions* out) {
  using Value = strata::driver::OpenOptions::Value;
  if (count == 0) return {};
  if (values == nullptr) return {STRATA_INVALID_ARGUMENT, "named_options is NULL but num_named_options is not 0"};
  for (uint32_t i = 0; i < count; ++i) {
    const strata_named_value& nv = values[i];
    if (nv.struct_size < sizeof(strata_named_value)) {
      return {STRATA_INVALID_ARGUMENT, "named_options[" + std::to_string(i) + "].struct_size is too small"};
    }
    if (nv.name == nullptr) return {STRATA_INVALID_ARGUMENT, "named_options[" + std::to_string(i) + "].name is NULL"};
    Value v{nv.type, "", 0, 0, false};
    switch (nv.type) {
      case STRATA_VALUE_STRING:
        if (nv.string_value == nullptr)
          return {STRATA_INVALID_ARGUMENT, std::string(what) + " '" + nv.name + "': NULL string"};
        v.s = nv.string_value;
        break;
      case STRATA_VALUE_INT64:
        v.i = nv.int64_value;
        break;
      case STRATA_VALUE_DOUBLE:
        v.d = nv.double_value;
        break;
      case STRATA_VALUE_BOOL:
        if (nv.bool_value > 1)
          return {STRATA_INVALID_ARGUMENT, std::string(what) + " '" + nv.name + "': bool must be 0 or 1"};
        v.b = nv.bool_value != 0;
        break;
      default:
        return {STRATA_INVALID_ARGUMENT, std::string(what) + " '" + nv.name + "': unknown value type"};
    }
    Error e = AddOption(backend, specs, what, nv.name, std::move(v), out);
    if (!e.ok()) return e;
  }
  return {};
}

// The classic struct fields and the named values, as the backend's checked options.
Error BuildOptions(const strata::driver::BackendInfo& b, const strata_open_options* o,
                   strata::driver::OpenOptions* out) {
  if (o == nullptr) return {};
  using Value = strata::driver::OpenOptions::Value;
  const auto str = [](const char* s) { return Value{STRATA_VALUE_STRING, s, 0, 0, false}; };
  const auto u64 = [](uint64_t x) { return Value{STRATA_VALUE_INT64, "", static_cast<int64_t>(x), 0, false}; };
  struct Field {
    const char* name;
    bool set;
    Value value;
  };
  const bool v11 = o->struct_size >= offsetof(strata_open_options, named_options);
  const bool v12 = o->struct_size >= sizeof(strata_open_options);
  const Field fields[] = {
      {"hbm_preset", o->hbm_preset != nullptr, str(o->hbm_preset ? o->hbm_preset : "")},
      {"hbm_capacity_bytes", o->hbm_capacity_bytes != 0, u64(o->hbm_capacity_bytes)},
      {"pcie_preset", o->pcie_preset != nullptr, str(o->pcie_preset ? o->pcie_preset : "")},
      {"trace_path", o->trace_path != nullptr, str(o->trace_path ? o->trace_path : "")},
      {"firmware_path", o->firmware_path != nullptr, str(o->firmware_path ? o->firmware_path : "")},
      {"timeout_cycles", o->timeout_cycles != 0, u64(o->timeout_cycles)},
      {"trace_start_cycle", v11 && o->trace_start_cycle != 0, u64(v11 ? o->trace_start_cycle : 0)},
      {"trace_end_cycle", v11 && o->trace_end_cycle != 0, u64(v11 ? o->trace_end_cycle : 0)},
  };
  for (const Field& f : fields) {
    if (!f.set) continue;
    if (f.value.type == STRATA_VALUE_INT64 && f.value.i < 0) {
      return {STRATA_INVALID_ARGUMENT, std::string(f.name) + " is larger than 2^63 - 1"};
    }
    Error e = AddOption(b.name, b.options, "option", f.name, f.value, out);
    if (!e.ok()) return e;
  }
  if (!v12) return {};
  return AddNamedValues(b.name, b.options, "option", o->named_options, o->num_named_options, out);
}

// The timeline's clock: device cycles where the backend has them, else the API call index.
uint64_t TimelineNow(strata_device* d, bool advance_index) {
  uint64_t cycles = 0;
  if (d->backend->DeviceCycles(&cycles)) return cycles;
  return advance_index ? d->timeline->NextIndex() : d->timeline->CurrentIndex();
}

// One C API call on the timeline's "host API" track: [construction, destruction) with the call's answer.
class CallSpan {
 public:
  CallSpan(strata_device* d, const char* call) : d_(d), call_(call) {
    d_->call_status = STRATA_OK;
    if (d_->timeline) begin_ = TimelineNow(d_, true);
  }
  ~CallSpan() {
    if (!d_->timeline) return;
    uint64_t end = begin_;  // on the index clock the call ends where it began (Timeline::ApiCall)
    d_->backend->DeviceCycles(&end);
    d_->timeline->ApiCall(call_, begin_, end, strata_status_name(d_->call_status));
  }
  CallSpan(const CallSpan&) = delete;
  CallSpan& operator=(const CallSpan&) = delete;

 private:
  strata_device* d_;
  const char* call_;
  uint64_t begin_ = 0;
};

// The backend's memory statistics as timeline counters (device-wide).
void SampleStats(strata_device* d, uint64_t t) {
  strata_memory_stats s{};
  s.struct_size = sizeof s;
  if (!d->backend->MemoryStats(0, &s).ok()) return;
  d->timeline->Counters("memory (device)", t,
                        {{"bytes in use", static_cast<double>(s.bytes_in_use)},
                         {"pool / reserved bytes", static_cast<double>(s.pool_bytes)},
                         {"largest free block", static_cast<double>(s.largest_free_block_bytes)}});
  d->timeline->Counters("fragmentation (device)", t, {{"fragmentation", s.fragmentation}});
}

// After an allocation or a free: the context's requested bytes, and the device's statistics where
// reading them costs nothing.
void NoteMemory(strata_device* d, strata_context context, int64_t delta) {
  if (!d->timeline) return;
  uint64_t& bytes = d->context_bytes[context];
  bytes = static_cast<uint64_t>(static_cast<int64_t>(bytes) + delta);
  const uint64_t t = TimelineNow(d, false);
  const auto number =
      d->context_numbers.emplace(context, static_cast<int>(d->context_numbers.size()) + 1).first->second;
  d->timeline->Counters("memory (context " + std::to_string(number) + ")", t,
                        {{"requested bytes", static_cast<double>(bytes)}});
  if (d->backend->StatsAreFree()) SampleStats(d, t);
}

void CoreSink(void* user, const strata_event* e) {
  auto* d = static_cast<strata_device*>(user);
  if (d->timeline) {
    strata::sim::Event event = strata::driver::FromApiEvent(*e);
    if (!d->timeline->device_clock()) event.begin_cycle = event.end_cycle = d->timeline->CurrentIndex();
    d->timeline->OnEvent(event);
  }
  if (d->user_sink != nullptr) d->user_sink(d->user_sink_data, e);
}

// Takes the core's options (the timeline) out of `opts`, so the backend sees only its own, and checks them.
struct TimelineOptions {
  std::string path;
  uint64_t max_bytes = 0;
  strata::timeline::WindowOptions window;
};

Error TakeTimelineOptions(strata::driver::OpenOptions* opts, TimelineOptions* out) {
  TimelineOptions& t = *out;
  t.path = opts->GetString("timeline");
  const int64_t start = opts->GetInt("timeline_start_cycle", 0), end = opts->GetInt("timeline_end_cycle", 0);
  const int64_t max = opts->GetInt("timeline_max_bytes", strata::timeline::TraceFile::kDefaultMaxBytes);
  for (const auto& o : strata::driver::CoreOptions()) opts->Erase(o.name);
  if (t.path.empty()) return {};
  if (start < 0 || end < 0) return {STRATA_INVALID_ARGUMENT, "timeline cycles must not be negative"};
  if (end != 0 && end <= start)
    return {STRATA_INVALID_ARGUMENT, "timeline_end_cycle must be above timeline_start_cycle"};
  if (max < static_cast<int64_t>(strata::timeline::TraceFile::kMinMaxBytes)) {
    return {STRATA_INVALID_ARGUMENT,
            "timeline_max_bytes must be at least " + std::to_string(strata::timeline::TraceFile::kMinMaxBytes)};
  }
  t.window.start_cycle = static_cast<uint64_t>(start);
  t.window.end_cycle = end != 0 ? static_cast<uint64_t>(end) : UINT64_MAX;
  t.max_bytes = static_cast<uint64_t>(max);
  return {};
}

// Opens the timeline file (when asked for) and takes the backend's event sink for it.
Error StartTimeline(const std::string& backend, const TimelineOptions& t, strata_device* d) {
  if (t.path.empty()) return {};
  uint64_t unused = 0;
  std::string why;
  d->timeline_file = strata::timeline::TraceFile::Open(t.path, t.max_bytes, &why);
  if (!d->timeline_file) return {STRATA_INVALID_ARGUMENT, "cannot write the timeline " + t.path + ": " + why};
  d->timeline = std::make_unique<strata::timeline::DeviceTimeline>(*d->timeline_file, "strata " + backend,
                                                                   d->backend->DeviceCycles(&unused), t.window);
  d->backend_events = d->backend->SetEventSink(&CoreSink, d).ok();
  return {};
}

// Checks the device pointer and takes its lock; a failed device refuses everything but info and close. A
// strata_interrupt from before the call is dropped.
#define STRATA_LOCK_DEVICE(call, device)                                                                           \
  if ((device) == nullptr) return Fail(call, STRATA_INVALID_ARGUMENT, "device is NULL");                           \
  if (!IsLive(device)) return Fail(call, STRATA_INVALID_ARGUMENT, "not an open device (closed, or never opened)"); \
  std::lock_guard<std::mutex> lock((device)->mutex);                                                               \
  if (!(device)->failed.empty()) {                                                                                 \
    return Fail(call, STRATA_FAILED_PRECONDITION,                                                                  \
                "the device failed earlier (" + (device)->failed + "); close it and open a new one");              \
  }                                                                                                                \
  (device)->backend->ForgetInterrupt();                                                                            \
  CallSpan call_span(device, call)

// Reports a backend's answer; an UNAVAILABLE answer (a timeout, stopped firmware) or an ABORTED one (interrupted
// mid-command) fails the device.
strata_status Answer(const char* call, strata_device* device, const Error& e) {
  device->call_status = e.status;
  if (e.status == STRATA_UNAVAILABLE || e.status == STRATA_ABORTED) {
    device->failed = std::string(call) + ": " + e.message;
  }
  return Report(call, e);
}

}  // namespace

extern "C" {

strata_status strata_get_version(strata_version* out) {
  if (!SizeOk(out, sizeof(strata_version))) {
    return Fail("strata_get_version", STRATA_INVALID_ARGUMENT, "out is NULL or its struct_size is too small");
  }
  strata_version v{};
  v.struct_size = sizeof v;
  v.api_major = STRATA_API_VERSION_MAJOR;
  v.api_minor = STRATA_API_VERSION_MINOR;
  v.protocol_major = STRATA_PROTO_VERSION_MAJOR;
  v.protocol_minor = STRATA_PROTO_VERSION_MINOR;
  CopyOut(v, out);
  t_last_error.clear();
  return STRATA_OK;
}

const char* strata_last_error_message(void) { return t_last_error.c_str(); }

strata_status strata_list_backends(const char** names, size_t capacity, size_t* count) {
  constexpr const char* kCall = "strata_list_backends";
  if (count == nullptr) return Fail(kCall, STRATA_INVALID_ARGUMENT, "count is NULL");
  if (names == nullptr && capacity != 0) return Fail(kCall, STRATA_INVALID_ARGUMENT, "names is NULL");
  return Guarded(kCall, [&] {
    const auto backends = strata::driver::Backends();
    for (size_t i = 0; i < backends.size() && i < capacity; ++i) names[i] = backends[i]->name.c_str();
    *count = backends.size();
    return Report(kCall, {});
  });
}

strata_status strata_get_backend_availability(const char* backend, const char** reason) {
  constexpr const char* kCall = "strata_get_backend_availability";
  if (backend == nullptr) return Fail(kCall, STRATA_INVALID_ARGUMENT, "backend name is NULL");
  if (reason == nullptr) return Fail(kCall, STRATA_INVALID_ARGUMENT, "reason is NULL");
  return Guarded(kCall, [&] {
    const strata::driver::BackendInfo* b = strata::driver::FindBackend(backend);
    if (b == nullptr) {
      return Fail(kCall, STRATA_UNIMPLEMENTED,
                  std::string("unknown backend '") + backend + "' (this build has: " + BackendList() + ")");
    }
    thread_local std::string why;  // the caller's until its next call
    why = b->unavailable != nullptr ? b->unavailable() : std::string();
    *reason = why.c_str();
    return Report(kCall, {});
  });
}

strata_status strata_get_backend_options(const char* backend, strata_option_info* out, size_t capacity, size_t* count) {
  constexpr const char* kCall = "strata_get_backend_options";
  if (backend == nullptr) return Fail(kCall, STRATA_INVALID_ARGUMENT, "backend name is NULL");
  if (count == nullptr) return Fail(kCall, STRATA_INVALID_ARGUMENT, "count is NULL");
  if (out == nullptr && capacity != 0) return Fail(kCall, STRATA_INVALID_ARGUMENT, "out is NULL");
  // The caller's struct size is the array's stride: a 1.9 caller's array is of smaller structs than this one's.
  const uint32_t stride = capacity != 0 ? out[0].struct_size : 0;
  char* const base = reinterpret_cast<char*>(out);
  for (size_t i = 0; i < capacity; ++i) {
    const uint32_t size = reinterpret_cast<const strata_option_info*>(base + i * stride)->struct_size;
    if (size < kOptionInfoV12Size) {
      return Fail(kCall, STRATA_INVALID_ARGUMENT, "out[" + std::to_string(i) + "].struct_size is too small");
    }
    if (size != stride) {
      return Fail(kCall, STRATA_INVALID_ARGUMENT,
                  "out[" + std::to_string(i) + "].struct_size differs from out[0]'s (the array's stride)");
    }
  }
  return Guarded(kCall, [&] {
    const strata::driver::BackendInfo* b = strata::driver::FindBackend(backend);
    if (b == nullptr) {
      return Fail(kCall, STRATA_UNIMPLEMENTED,
                  std::string("unknown backend '") + backend + "' (this build has: " + BackendList() + ")");
    }
    for (size_t i = 0; i < b->options.size() && i < capacity; ++i) {
      const auto& o = b->options[i];
      strata_option_info full{};
      full.name = o.name.c_str();
      full.type = o.type;
      full.default_value = o.default_value.c_str();
      full.help = o.help.c_str();
      if (i < b->c_choices.size() && !b->c_choices[i].empty()) {
        full.choices = b->c_choices[i].data();
        full.num_choices = static_cast<uint32_t>(b->c_choices[i].size() - 1);
      }
      TypedDefault(o, &full);
      CopyOut(full, reinterpret_cast<strata_option_info*>(base + i * stride));
    }
    *count = b->options.size();
    return Report(kCall, {});
  });
}

strata_status strata_open(const char* backend, const strata_open_options* options, strata_device** out) {
  constexpr const char* kCall = "strata_open";
  if (out == nullptr) return Fail(kCall, STRATA_INVALID_ARGUMENT, "out is NULL");
  *out = nullptr;
  if (backend == nullptr) return Fail(kCall, STRATA_INVALID_ARGUMENT, "backend name is NULL");
  if (options != nullptr && options->struct_size < offsetof(strata_open_options, trace_start_cycle)) {
    return Fail(kCall, STRATA_INVALID_ARGUMENT, "options->struct_size is too small");
  }
  return Guarded(kCall, [&] {
    const strata::driver::BackendInfo* b = strata::driver::FindBackend(backend);
    if (b == nullptr) {
      return Fail(kCall, STRATA_UNIMPLEMENTED,
                  std::string("unknown backend '") + backend + "' (this build has: " + BackendList() + ")");
    }
    strata::driver::OpenOptions opts;
    Error e = BuildOptions(*b, options, &opts);
    TimelineOptions timeline;
    if (e.ok()) e = TakeTimelineOptions(&opts, &timeline);
    if (!e.ok()) return Report(kCall, e);
    auto device = std::make_unique<strata_device>();
    device->backend_name = b->name;
    device->context_options = b->context_options;
    e = b->open(opts, &device->backend);
    if (e.ok()) e = StartTimeline(b->name, timeline, device.get());
    if (!e.ok()) return Report(kCall, e);
    if (!AddLive(device.get())) {
      return Fail(kCall, STRATA_RESOURCE_EXHAUSTED, "too many open devices (" + std::to_string(kMaxTag) + ")");
    }
    PublishForInterrupt(device.get());
    *out = device.release();
    return Report(kCall, {});
  });
}

strata_status strata_close(strata_device* device) {
  constexpr const char* kCall = "strata_close";
  if (device == nullptr) {
    t_last_error.clear();
    return STRATA_OK;
  }
  if (!RemoveLive(device)) return Fail(kCall, STRATA_INVALID_ARGUMENT, "not an open device (closed twice?)");
  UnpublishForInterrupt(device);  // before anything is torn down: an interrupt from here on is refused
  return Guarded(kCall, [&] {
    Error e;
    if (device->timeline) {
      // The final memory statistics (on sim a firmware command: the run is over, so it changes nothing measured).
      if (device->failed.empty()) SampleStats(device, TimelineNow(device, true));
      // The sink goes first: removing it closes what is still open (a matrix-unit stretch) into the timeline.
      if (device->backend_events) device->backend->SetEventSink(nullptr, nullptr);
      device->timeline->Finish();
      if (!device->timeline_file->Close()) {
        e = {STRATA_DATA_LOSS, "the timeline could not be written completely (disk full?); the device is closed"};
      }
    }
    delete device;
    return Report(kCall, e);
  });
}

strata_status strata_interrupt(strata_device* device) {
  // No lock, no registry lookup, no last error: a signal handler calls this (strata.h). The device is found among
  // the open ones by atomic loads alone (InterruptSlot); a closed or closing one is refused as every call refuses
  // it, never dereferenced.
  if (device == nullptr) return STRATA_INVALID_ARGUMENT;
  for (InterruptSlot& slot : g_interrupt_slots) {
    if (slot.device.load() != device) continue;
    slot.users.fetch_add(1);
    const bool open = slot.device.load() == device;  // again, now that a close would wait for us
    if (open) device->backend->Interrupt();
    slot.users.fetch_sub(1);
    if (open) return STRATA_OK;
  }
  return STRATA_INVALID_ARGUMENT;
}

strata_status strata_get_device_info(strata_device* device, strata_device_info* out) {
  constexpr const char* kCall = "strata_get_device_info";
  if (device == nullptr) return Fail(kCall, STRATA_INVALID_ARGUMENT, "device is NULL");
  if (!IsLive(device)) return Fail(kCall, STRATA_INVALID_ARGUMENT, "not an open device (closed, or never opened)");
  if (!SizeOk(out, offsetof(strata_device_info, mxu_array_n))) {
    return Fail(kCall, STRATA_INVALID_ARGUMENT, "out is NULL or too small");
  }
  std::lock_guard<std::mutex> lock(device->mutex);  // info works on a failed device too
  return Guarded(kCall, [&] {
    strata_device_info info{};
    info.struct_size = sizeof info;
    const Error e = device->backend->GetInfo(&info);
    if (e.ok()) CopyOut(info, out);
    return Report(kCall, e);
  });
}

strata_status strata_context_create(strata_device* device, const strata_context_options* options, strata_context* out) {
  constexpr const char* kCall = "strata_context_create";
  if (out == nullptr) return Fail(kCall, STRATA_INVALID_ARGUMENT, "out is NULL");
  uint64_t quota_bytes = 0;
  uint32_t quota_ppm = 0;
  bool named = false;  // the caller's struct has the 1.9 fields
  if (options != nullptr) {
    if (options->struct_size < offsetof(strata_context_options, named_options)) {
      return Fail(kCall, STRATA_INVALID_ARGUMENT, "options->struct_size is too small");
    }
    named = options->struct_size >= sizeof(strata_context_options);
    const double f = options->quota_fraction;
    if (options->quota_bytes != 0 && f != 0) {
      return Fail(kCall, STRATA_INVALID_ARGUMENT, "quota_bytes and quota_fraction are exclusive");
    }
    if (f != 0 && !(f > 0 && f <= 1)) return Fail(kCall, STRATA_INVALID_ARGUMENT, "quota_fraction must lie in (0, 1]");
    quota_bytes = options->quota_bytes;
    if (f != 0) quota_ppm = static_cast<uint32_t>(std::max(1.0, std::round(f * 1e6)));
  }
  STRATA_LOCK_DEVICE(kCall, device);
  return Guarded(kCall, [&] {
    strata::driver::OpenOptions opts;
    Error e;
    if (named) {
      e = AddNamedValues(device->backend_name, device->context_options, "context option", options->named_options,
                         options->num_named_options, &opts);
    }
    strata_context c = 0;
    if (e.ok()) e = device->backend->CreateContextWithOptions(quota_bytes, quota_ppm, opts, &c);
    if (e.ok() && (c == 0 || c >> kBackendContextBits != 0)) {
      return Fail(kCall, STRATA_INTERNAL, "the backend returned context id " + std::to_string(c) + ", out of range");
    }
    if (e.ok()) *out = TagContext(device, c);
    return Answer(kCall, device, e);
  });
}

strata_status strata_context_destroy(strata_device* device, strata_context context) {
  constexpr const char* kCall = "strata_context_destroy";
  STRATA_LOCK_DEVICE(kCall, device);
  return Guarded(kCall, [&] {
    strata_context c;
    Error e = UntagContext(device, context, &c);
    if (e.ok()) e = device->backend->DestroyContext(c);
    if (e.ok() && device->timeline) {  // its buffers went with it
      for (auto it = device->live.begin(); it != device->live.end();) {
        it = it->second.first == context ? device->live.erase(it) : std::next(it);
      }
      const auto bytes = device->context_bytes.find(context);
      if (bytes != device->context_bytes.end()) NoteMemory(device, context, -static_cast<int64_t>(bytes->second));
    }
    return Answer(kCall, device, e);
  });
}

strata_status strata_alloc(strata_device* device, strata_context context, uint64_t bytes, uint64_t alignment,
                           uint32_t flags, strata_buffer* out) {
  constexpr const char* kCall = "strata_alloc";
  if (out == nullptr) return Fail(kCall, STRATA_INVALID_ARGUMENT, "out is NULL");
  if ((flags & ~STRATA_ALLOC_FLAG_NO_COMPACT) != 0) return Fail(kCall, STRATA_INVALID_ARGUMENT, "unknown flags");
  STRATA_LOCK_DEVICE(kCall, device);
  return Guarded(kCall, [&] {
    strata_context c;
    Error e = UntagContext(device, context, &c);
    strata_buffer b = 0;
    if (e.ok()) e = device->backend->Alloc(c, bytes, alignment, flags, &b);
    if (e.ok() && (b == 0 || b >> kBackendBufferBits != 0)) {
      return Fail(kCall, STRATA_INTERNAL, "the backend returned an out-of-range handle");
    }
    if (e.ok()) {
      *out = TagBuffer(device, b);
      if (device->timeline) {
        device->live[*out] = {context, bytes};
        NoteMemory(device, context, static_cast<int64_t>(bytes));
      }
    }
    return Answer(kCall, device, e);
  });
}

strata_status strata_free(strata_device* device, strata_context context, strata_buffer buffer) {
  constexpr const char* kCall = "strata_free";
  STRATA_LOCK_DEVICE(kCall, device);
  return Guarded(kCall, [&] {
    strata_context c;
    strata_buffer b;
    Error e = Untag(device, context, buffer, &c, &b);
    if (e.ok()) e = device->backend->Free(c, b);
    if (e.ok() && device->timeline) {
      const auto it = device->live.find(buffer);
      if (it != device->live.end()) {
        NoteMemory(device, it->second.first, -static_cast<int64_t>(it->second.second));
        device->live.erase(it);
      }
    }
    return Answer(kCall, device, e);
  });
}

strata_status strata_write(strata_device* device, strata_context context, strata_buffer buffer, uint64_t offset,
                           const void* src, uint64_t bytes) {
  constexpr const char* kCall = "strata_write";
  if (src == nullptr && bytes != 0) return Fail(kCall, STRATA_INVALID_ARGUMENT, "src is NULL");
  if (offset > UINT64_MAX - bytes) return Fail(kCall, STRATA_OUT_OF_RANGE, "offset + bytes overflows");
  STRATA_LOCK_DEVICE(kCall, device);
  return Guarded(kCall, [&] {
    strata_context c;
    strata_buffer b;
    Error e = Untag(device, context, buffer, &c, &b);
    if (e.ok() && bytes != 0) e = device->backend->Write(c, b, offset, src, bytes);
    return Answer(kCall, device, e);
  });
}

strata_status strata_read(strata_device* device, strata_context context, strata_buffer buffer, uint64_t offset,
                          void* dst, uint64_t bytes) {
  constexpr const char* kCall = "strata_read";
  if (dst == nullptr && bytes != 0) return Fail(kCall, STRATA_INVALID_ARGUMENT, "dst is NULL");
  if (offset > UINT64_MAX - bytes) return Fail(kCall, STRATA_OUT_OF_RANGE, "offset + bytes overflows");
  STRATA_LOCK_DEVICE(kCall, device);
  return Guarded(kCall, [&] {
    strata_context c;
    strata_buffer b;
    Error e = Untag(device, context, buffer, &c, &b);
    if (e.ok() && bytes != 0) e = device->backend->Read(c, b, offset, dst, bytes);
    return Answer(kCall, device, e);
  });
}

strata_status strata_gemm(strata_device* device, strata_context context, const strata_gemm_args* args) {
  constexpr const char* kCall = "strata_gemm";
  if (!SizeOk(args, offsetof(strata_gemm_args, quant_mult))) {
    return Fail(kCall, STRATA_INVALID_ARGUMENT, "args is NULL or too small");
  }
  strata_gemm_args full{};
  std::memcpy(&full, args, std::min<size_t>(args->struct_size, sizeof full));
  full.struct_size = sizeof full;
  if (full.dtype >= STRATA_DTYPE_COUNT) {
    return Fail(kCall, STRATA_INVALID_ARGUMENT,
                "unknown dtype " + std::to_string(full.dtype) + " (STRATA_DTYPE_INT8 0 or STRATA_DTYPE_BF16 1)");
  }
  if ((full.flags & ~STRATA_GEMM_FLAGS_ALL) != 0) return Fail(kCall, STRATA_INVALID_ARGUMENT, "unknown flags");
  if (full.dtype == STRATA_DTYPE_BF16) {
    // The int32 requantization has no meaning for fp32 sums: refused here, before any backend sees it.
    if ((full.flags & ~STRATA_GEMM_FLAGS_BF16) != 0) {
      return Fail(kCall, STRATA_INVALID_ARGUMENT, "flags INT8 and ROUND are for int8 GEMMs, not dtype BF16");
    }
    if ((full.flags & STRATA_GEMM_FLAG_ACCUMULATE) != 0 && (full.flags & STRATA_GEMM_FLAG_OUT_BF16) != 0) {
      return Fail(kCall, STRATA_INVALID_ARGUMENT, "ACCUMULATE needs an fp32 C (not OUT_BF16): c is read and written");
    }
    if (full.quant_mult != 0 || full.quant_shift != 0) {
      return Fail(kCall, STRATA_INVALID_ARGUMENT, "quant_mult and quant_shift are for int8 GEMMs, not dtype BF16");
    }
  } else if ((full.flags & STRATA_GEMM_FLAG_OUT_BF16) != 0) {
    return Fail(kCall, STRATA_INVALID_ARGUMENT, "flag OUT_BF16 needs dtype STRATA_DTYPE_BF16");
  }
  STRATA_LOCK_DEVICE(kCall, device);
  return Guarded(kCall, [&] {
    strata_context c;
    Error e = UntagContext(device, context, &c);
    // Each operand's own message: the firmware names A, B or C for a bad handle too.
    const char* const kNames[] = {"A", "B", "C"};
    strata_buffer* const operands[] = {&full.a, &full.b, &full.c};
    for (int i = 0; i < 3 && e.ok(); ++i) {
      e = UntagBuffer(device, *operands[i], operands[i]);
      if (!e.ok()) e.message = std::string("buffer ") + kNames[i] + ": " + e.message;
    }
    if (e.ok()) e = device->backend->Gemm(c, full);
    return Answer(kCall, device, e);
  });
}

strata_status strata_compact(strata_device* device, strata_context context, const strata_compact_options* options,
                             strata_compact_result* out) {
  constexpr const char* kCall = "strata_compact";
  if (options != nullptr && options->struct_size < sizeof(strata_compact_options)) {
    return Fail(kCall, STRATA_INVALID_ARGUMENT, "options->struct_size is too small");
  }
  if (out != nullptr && out->struct_size < sizeof(strata_compact_result)) {
    return Fail(kCall, STRATA_INVALID_ARGUMENT, "out->struct_size is too small");
  }
  STRATA_LOCK_DEVICE(kCall, device);
  return Guarded(kCall, [&] {
    strata_context c;
    Error e = UntagContext(device, context, &c);
    strata_compact_result result{};
    result.struct_size = sizeof result;
    if (e.ok()) {
      e = device->backend->Compact(c, options ? options->max_bytes : 0, options ? options->max_moves : 0, &result);
    }
    if (e.ok() && out != nullptr) CopyOut(result, out);
    if (e.ok() && device->timeline && device->backend->StatsAreFree()) SampleStats(device, TimelineNow(device, false));
    return Answer(kCall, device, e);
  });
}

strata_status strata_get_memory_stats(strata_device* device, strata_context context, strata_memory_stats* out) {
  constexpr const char* kCall = "strata_get_memory_stats";
  // The 1.1 struct ends before pool_bytes: an older caller's smaller struct gets the fields it has (CopyOut).
  if (!SizeOk(out, offsetof(strata_memory_stats, pool_bytes)))
    return Fail(kCall, STRATA_INVALID_ARGUMENT, "out is NULL or too small");
  STRATA_LOCK_DEVICE(kCall, device);
  return Guarded(kCall, [&] {
    strata_context c;
    Error e = UntagContext(device, context, &c);
    strata_memory_stats stats{};
    stats.struct_size = sizeof stats;
    if (e.ok()) e = device->backend->MemoryStats(c, &stats);
    if (e.ok()) CopyOut(stats, out);
    return Answer(kCall, device, e);
  });
}

const char* strata_oom_kind_name(strata_oom_kind kind) {
  switch (kind) {
    case STRATA_OOM_NONE:
      return "none";
    case STRATA_OOM_CAPACITY:
      return "capacity";
    case STRATA_OOM_CAP:
      return "cap";
    case STRATA_OOM_FRAGMENTATION:
      return "fragmentation";
  }
  return "unknown";
}

strata_status strata_get_last_oom(strata_device* device, strata_oom_info* out) {
  constexpr const char* kCall = "strata_get_last_oom";
  if (!SizeOk(out, sizeof(strata_oom_info))) return Fail(kCall, STRATA_INVALID_ARGUMENT, "out is NULL or too small");
  STRATA_LOCK_DEVICE(kCall, device);
  return Guarded(kCall, [&] {
    strata_oom_info info{};
    info.struct_size = sizeof info;
    const Error e = device->backend->LastOom(&info);
    if (e.ok()) CopyOut(info, out);
    return Answer(kCall, device, e);
  });
}

strata_status strata_set_event_sink(strata_device* device, strata_event_fn fn, void* user) {
  constexpr const char* kCall = "strata_set_event_sink";
  STRATA_LOCK_DEVICE(kCall, device);
  return Guarded(kCall, [&] {
    // With a timeline the core's sink stays in place and passes events on to the caller's.
    if (device->timeline && device->backend_events) {
      device->user_sink = fn;
      device->user_sink_data = user;
      return Answer(kCall, device, {});
    }
    return Answer(kCall, device, device->backend->SetEventSink(fn, user));
  });
}

strata_status strata_synchronize(strata_device* device) {
  constexpr const char* kCall = "strata_synchronize";
  STRATA_LOCK_DEVICE(kCall, device);
  return Guarded(kCall, [&] { return Answer(kCall, device, device->backend->Synchronize()); });
}

}  // extern "C"
