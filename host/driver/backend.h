// Internal interface between the driver core (strata.cc, registry.cc) and the device backends. Not installed.
//
// A backend is one source file that defines a Backend subclass and registers a BackendInfo from a function
// named strata_register_backend_<name>() (see STRATA_REGISTER_BACKEND); the build lists the backends it has
// (host/driver/CMakeLists.txt, strata_add_backend) and generates the calls. Nothing in the core changes.
#ifndef STRATA_HOST_DRIVER_BACKEND_H_
#define STRATA_HOST_DRIVER_BACKEND_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "strata/strata.h"

namespace strata::driver {

// What a failed call reports: the status and a message naming what was wrong.
struct Error {
  strata_status status = STRATA_OK;
  std::string message;
  bool ok() const { return status == STRATA_OK; }
};

// An open option a backend accepts (PJRT_NamedValue-like): name, type, default (as text), one line of help, and
// the values it takes where they are a list (as text in the option's type; empty: any value of the type). The
// backend still checks what it is given: choices describe its table, so that tools and Python list it without
// knowing the backend.
struct OptionSpec {
  std::string name;
  strata_value_type type;
  std::string default_value;
  std::string help;
  std::vector<std::string> choices = {};
};

// The options given to strata_open, checked against the backend's specs: every name is known and typed
// as declared. Getters return the given value or the spec's default.
class OpenOptions {
 public:
  struct Value {
    strata_value_type type;
    std::string s;
    int64_t i = 0;
    double d = 0;
    bool b = false;
  };
  bool Has(const std::string& name) const { return values_.count(name) != 0; }
  std::string GetString(const std::string& name, const std::string& fallback = "") const;
  int64_t GetInt(const std::string& name, int64_t fallback = 0) const;
  double GetDouble(const std::string& name, double fallback = 0) const;
  bool GetBool(const std::string& name, bool fallback = false) const;
  // Every option given, as text (for backends that pass options through, e.g. to a GPU policy).
  std::map<std::string, std::string> AsText() const;
  void Set(const std::string& name, Value v) { values_[name] = std::move(v); }
  void Erase(const std::string& name) { values_.erase(name); }

 private:
  std::map<std::string, Value> values_;
};

// What a host-side backend (host, gpu-emu, cuda) answers for a context it does not have, as the model's decoder
// answers: 0 is never a context (strata.h), any other unknown id is not found.
constexpr char kNoSuchContext[] = "no such context (never created or destroyed)";
inline Error NoSuchContext(strata_context c) {
  return c == 0 ? Error{STRATA_INVALID_ARGUMENT, "context 0 is never a valid context"}
                : Error{STRATA_NOT_FOUND, kNoSuchContext};
}

// strata_alloc's size and alignment rule (strata.h) for the host-side backends: bytes > 0, alignment 0 or a power
// of two up to 1 GiB.
inline Error CheckAllocRequest(uint64_t bytes, uint64_t alignment) {
  if (bytes == 0) return {STRATA_INVALID_ARGUMENT, "bytes must be positive"};
  if (alignment != 0 && ((alignment & (alignment - 1)) != 0 || alignment > (uint64_t{1} << 30))) {
    return {STRATA_INVALID_ARGUMENT, "alignment must be 0 or a power of two up to 1 GiB"};
  }
  return {};
}

// Backend handles: the core puts the device's identity in the top bits of every buffer handle and
// context id, so a backend's own values must leave them free.
constexpr int kBackendBufferBits = 54;   // buffer handles below 2^54 (the firmware's: index + 22-bit generation)
constexpr int kBackendContextBits = 20;  // context ids below 2^20

// One device. Calls arrive serialised (the C API holds the device's lock).
class Backend {
 public:
  virtual ~Backend() = default;
  virtual const char* name() const = 0;
  virtual Error GetInfo(strata_device_info* out) = 0;  // every field but struct_size
  virtual Error CreateContext(uint64_t quota_bytes, uint32_t quota_ppm, strata_context* out) = 0;
  // strata_context_create with named context options, already checked against BackendInfo::context_options (so a
  // backend that declares none only ever gets none here). On any error no context exists.
  virtual Error CreateContextWithOptions(uint64_t quota_bytes, uint32_t quota_ppm, const OpenOptions& options,
                                         strata_context* out) {
    (void)options;
    return CreateContext(quota_bytes, quota_ppm, out);
  }
  virtual Error DestroyContext(strata_context context) = 0;
  virtual Error Alloc(strata_context context, uint64_t bytes, uint64_t alignment, uint32_t flags,
                      strata_buffer* out) = 0;
  virtual Error Free(strata_context context, strata_buffer buffer) = 0;
  virtual Error Write(strata_context context, strata_buffer buffer, uint64_t offset, const void* src,
                      uint64_t bytes) = 0;
  virtual Error Read(strata_context context, strata_buffer buffer, uint64_t offset, void* dst, uint64_t bytes) = 0;
  virtual Error Gemm(strata_context context, const strata_gemm_args& args) = 0;
  virtual Error Compact(strata_context context, uint64_t max_bytes, uint32_t max_moves, strata_compact_result* out) = 0;
  virtual Error MemoryStats(strata_context context, strata_memory_stats* out) = 0;
  // Waits for everything outstanding, then a NOOP round trip (the device has seen all that came before).
  virtual Error Synchronize() = 0;
  // strata_interrupt: makes the running call's wait for the device return ABORTED. Async-signal-safe: it may only
  // set a lock-free atomic flag. Backends whose calls never wait on a simulation ignore it.
  virtual void Interrupt() {}
  // Drops a request that came while no call ran (each call begins with it, under the device's lock).
  virtual void ForgetInterrupt() {}
  // The last failed allocation (every field but struct_size); kind NONE when there was none.
  virtual Error LastOom(strata_oom_info* out) {
    *out = strata_oom_info{};
    return {};
  }
  // The device clock in cycles, for timelines; false where the backend has none (then the timeline counts
  // API calls instead).
  virtual bool DeviceCycles(uint64_t* out) const {
    (void)out;
    return false;
  }
  // Whether MemoryStats costs the device nothing (a host-side allocator): the timeline then samples it
  // after every allocation and free. On sim it is a firmware command, so it is sampled at close only.
  virtual bool StatsAreFree() const { return false; }
  // strata_set_event_sink; fn null removes the sink.
  virtual Error SetEventSink(strata_event_fn fn, void* user) {
    (void)fn;
    (void)user;
    return {STRATA_UNIMPLEMENTED, std::string("the ") + name() + " backend reports no events"};
  }
};

using BackendOpenFn = Error (*)(const OpenOptions& options, std::unique_ptr<Backend>* out);

struct BackendInfo {
  std::string name;
  std::string help;  // one line
  std::vector<OptionSpec> options;
  BackendOpenFn open;
  // Why the backend cannot open on this machine ("no CUDA device"), for lists a person reads; null, or an empty
  // answer: nothing known against it (opening may still fail). Asked each time a list is made, never cached.
  std::string (*unavailable)() = nullptr;
  // The named options strata_context_create takes (since API 1.9); none for most backends.
  std::vector<OptionSpec> context_options = {};
  // Each option's choices as strata_option_info hands them out (NULL-terminated, pointing into `options`; empty
  // for an option without choices). Filled by RegisterBackend once the info has its final address.
  std::vector<std::vector<const char*>> c_choices = {};
};

// Options the driver core handles for every backend (the timeline: timeline.h); RegisterBackend appends
// them to each backend's list, and strata_open takes them out before the backend sees the rest.
const std::vector<OptionSpec>& CoreOptions();

// Adds a backend to the registry (the generated list calls each backend's registration once; tests may
// register fakes). A second registration of a name replaces the first.
void RegisterBackend(BackendInfo info);
// nullptr for an unknown name.
const BackendInfo* FindBackend(const std::string& name);
std::vector<const BackendInfo*> Backends();  // in registration order
// Registers the backends this build has (generated: backends_builtin.cc). Idempotent; the core calls it
// before every registry lookup. A core-only build (tests) links a version that registers nothing.
void RegisterBuiltinBackends();

}  // namespace strata::driver

// Defines the registration function the build's generated list calls for backend NAME (an identifier).
#define STRATA_REGISTER_BACKEND(NAME, ...) \
  void strata_register_backend_##NAME() { ::strata::driver::RegisterBackend(__VA_ARGS__); }

#endif  // STRATA_HOST_DRIVER_BACKEND_H_
