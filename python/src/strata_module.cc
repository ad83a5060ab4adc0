// strata._strata: the host driver's C API (strata/strata.h) for Python; python/strata/ builds the public API on it.
//
// A Device keeps its strata_device* behind a shared mutex: every call holds it shared with the GIL released (the
// sim backend blocks while it simulates), close() takes it exclusively, so a device is never closed under a
// call that another Python thread is making, and a closed device refuses calls instead of passing a dangling
// pointer to the C API. Failed calls throw CallError, which becomes strata.Error (python/strata/errors.py).
// Ctrl-C reaches a call in the main thread (InterruptScope): the device stops and KeyboardInterrupt is raised; other
// threads' calls on the device go on.
#include <Python.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <signal.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "strata/strata.h"

namespace py = pybind11;

namespace {

// A call that failed: the C API's status and strata_last_error_message() (or our own message).
struct CallError {
  strata_status status;
  std::string message;
};

void Check(strata_status s) {
  if (s != STRATA_OK) throw CallError{s, strata_last_error_message()};
}

// A contiguous view of a Python buffer (bytes, bytearray, NumPy array), released on scope exit. Taking it holds
// the object's memory in place while the GIL is released.
class BufferView {
 public:
  BufferView(py::handle object, bool writable) {
    const int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(object.ptr(), &view_, flags) != 0) throw py::error_already_set();
  }
  BufferView(const BufferView&) = delete;
  BufferView& operator=(const BufferView&) = delete;
  ~BufferView() { PyBuffer_Release(&view_); }
  void* data() const { return view_.buf; }
  uint64_t bytes() const { return static_cast<uint64_t>(view_.len); }

 private:
  Py_buffer view_{};
};

// Ctrl-C during a device call. Python runs its SIGINT handler's Python part only in the main thread between
// bytecodes, and a call holds the main thread in C++ for as long as it runs (an hour-long simulated GEMM), so the
// KeyboardInterrupt would wait for the call to end. While the main thread is in a call, SIGINT also asks the
// device to stop (strata_interrupt: a flag, async-signal-safe) and then goes on to Python's own C handler, which
// notes the signal; the call returns ABORTED and Call raises the KeyboardInterrupt in place of that error. Other
// threads' calls are left alone (Python delivers KeyboardInterrupt to the main thread only); so is a program that
// installed its own SIGINT handling (not Python's C handler).
//
// strata_interrupt stops whatever call is running on the device, whichever thread made it. So that it stops only the
// main thread's, the device is interruptible only while the main thread's call is the one on it: Device::Call makes
// one call at a time per device (call_mutex_, which the C API's own lock would serialise anyway) and installs the
// scope inside it, and the scope's end waits for a handler that already read the device (g_in_handler) before the
// next call, perhaps another thread's, can begin (that call then drops the request: strata.h).
std::atomic<strata_device*> g_interruptible{nullptr};  // the main thread's device while it is in a call
void (*g_python_sigint)(int) = nullptr;
std::atomic<bool> g_sigint_seen{false};
std::atomic<int> g_in_handler{0};  // OnSigint runs that may be about to interrupt g_interruptible's device
unsigned long g_main_thread = 0;   // threading.main_thread().ident, at import

void OnSigint(int signal) {
  g_sigint_seen.store(true);
  g_in_handler.fetch_add(1);
  if (strata_device* d = g_interruptible.load()) strata_interrupt(d);
  g_in_handler.fetch_sub(1);
  if (g_python_sigint != nullptr) g_python_sigint(signal);
}

class InterruptScope {
 public:
  // Called with the GIL released, the device open.
  explicit InterruptScope(strata_device* device, bool main_thread) {
    struct sigaction current {};
    if (!main_thread || ::sigaction(SIGINT, nullptr, &current) != 0) return;
    if ((current.sa_flags & SA_SIGINFO) != 0 || current.sa_handler == SIG_DFL || current.sa_handler == SIG_IGN ||
        current.sa_handler == OnSigint) {
      return;
    }
    g_python_sigint = current.sa_handler;
    g_sigint_seen.store(false);
    g_interruptible.store(device);
    struct sigaction ours = current;
    ours.sa_handler = OnSigint;
    installed_ = ::sigaction(SIGINT, &ours, &previous_) == 0;
    if (!installed_) g_interruptible.store(nullptr);
  }
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
  ~InterruptScope() {
    if (!installed_) return;
    ::sigaction(SIGINT, &previous_, nullptr);
    g_interruptible.store(nullptr);
    // A handler (on another thread) that read the device before the store may not have interrupted yet: it must be
    // done before the device runs another call. Sequentially consistent: it counted itself in before reading, or it
    // reads null.
    while (g_in_handler.load() != 0) std::this_thread::yield();
  }
  // Whether SIGINT came while installed.
  bool interrupted() const { return installed_ && g_sigint_seen.load(); }

 private:
  bool installed_ = false;
  struct sigaction previous_ {};
};

// (name, type, string, int64, double, bool): one open option as python/strata/device.py typed it.
using OptionTuple = std::tuple<std::string, int, std::string, int64_t, double, bool>;

// `text` for a C string parameter: the C API would read it only up to an embedded NUL ("policy\0junk" as "policy"),
// so such a string is refused here, whoever built it.
const char* CString(const std::string& text, const std::string& what) {
  if (text.find('\0') != std::string::npos) throw py::value_error(what + " holds a NUL character");
  return text.c_str();
}

// The tuples as the C API's named values (pointing into them: valid while `options` is).
std::vector<strata_named_value> NamedValues(const std::vector<OptionTuple>& options) {
  std::vector<strata_named_value> named;
  named.reserve(options.size());
  for (const OptionTuple& o : options) {
    CString(std::get<0>(o), "an option name");
    CString(std::get<2>(o), "option " + std::get<0>(o) + "'s value");
    strata_named_value v{};
    v.struct_size = sizeof v;
    v.name = std::get<0>(o).c_str();
    v.type = static_cast<strata_value_type>(std::get<1>(o));
    v.string_value = std::get<2>(o).c_str();
    v.int64_value = std::get<3>(o);
    v.double_value = std::get<4>(o);
    v.bool_value = std::get<5>(o) ? 1 : 0;
    named.push_back(v);
  }
  return named;
}

class Device {
 public:
  Device(const std::string& backend, const std::vector<OptionTuple>& options) : backend_(backend) {
    CString(backend, "the backend name");
    const std::vector<strata_named_value> named = NamedValues(options);
    strata_open_options open{};
    open.struct_size = sizeof open;
    open.named_options = named.data();
    open.num_named_options = static_cast<uint32_t>(named.size());
    strata_device* device = nullptr;
    strata_status status;
    {
      py::gil_scoped_release nogil;
      status = strata_open(backend.c_str(), &open, &device);
    }
    Check(status);
    device_ = device;
  }
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  // Garbage collection closes a device the program did not close; errors on that path are dropped.
  ~Device() {
    if (device_ != nullptr) strata_close(device_);
  }

  void Close() {
    strata_status status = STRATA_OK;
    {
      py::gil_scoped_release nogil;
      std::unique_lock lock(mutex_);
      if (device_ != nullptr) status = strata_close(std::exchange(device_, nullptr));
    }
    Check(status);
  }
  bool closed() const {
    std::shared_lock lock(mutex_);
    return device_ == nullptr;
  }
  const std::string& backend() const { return backend_; }

  // Runs fn(device) without the GIL, holding the device open; a closed device is FAILED_PRECONDITION.
  // Ctrl-C in the main thread stops the call (InterruptScope) and raises KeyboardInterrupt.
  template <class Fn>
  void Call(const char* what, Fn&& fn) const {
    strata_status status;
    bool interrupted = false;
    const bool main_thread = PyThread_get_thread_ident() == g_main_thread;
    {
      py::gil_scoped_release nogil;
      std::shared_lock lock(mutex_);
      if (device_ == nullptr) {
        throw CallError{STRATA_FAILED_PRECONDITION, std::string(what) + ": the device is closed"};
      }
      // The main thread's Ctrl-C may stop only its own call (InterruptScope): no other call runs on the device
      // while the scope is installed. The main thread waiting here for another thread's call is not interruptible;
      // its KeyboardInterrupt comes when its own call returns.
      std::lock_guard one_call(call_mutex_);
      InterruptScope scope(device_, main_thread);
      status = fn(device_);
      interrupted = scope.interrupted();
    }
    // Python's handler noted the signal: raise its KeyboardInterrupt now, not the call's ABORTED.
    if (interrupted && PyErr_CheckSignals() != 0) throw py::error_already_set();
    Check(status);
  }

  py::dict Info() const {
    strata_device_info i{};
    i.struct_size = sizeof i;
    Call("device_info", [&](strata_device* d) { return strata_get_device_info(d, &i); });
    py::dict out;
    out["backend"] = i.backend != nullptr ? std::string(i.backend) : backend_;
    out["hbm_capacity_bytes"] = i.hbm_capacity_bytes;
    out["heap_bytes"] = i.heap_bytes;
    out["device_cycles"] = i.device_cycles;
    out["max_contexts"] = i.max_contexts;
    out["max_live_buffers"] = i.max_live_buffers;
    out["granule_bytes"] = i.granule_bytes;
    out["last_command_cycles"] = i.last_command_cycles;
    out["mxu_array_n"] = i.mxu_array_n;
    out["hbm_bytes_read"] = i.hbm_bytes_read;
    out["hbm_bytes_written"] = i.hbm_bytes_written;
    out["hbm_peak_bytes_per_cycle"] = i.hbm_peak_bytes_per_cycle;
    return out;
  }

  // Every strata_memory_stats field under its C name (which is the JAX / TensorFlow name where one exists).
  py::dict MemoryStats(strata_context context) const {
    strata_memory_stats s{};
    s.struct_size = sizeof s;
    Call("memory_stats", [&](strata_device* d) { return strata_get_memory_stats(d, context, &s); });
    py::dict out;
#define STRATA_PY_STAT(field) out[#field] = s.field
    STRATA_PY_STAT(live_buffers);
    STRATA_PY_STAT(bytes_in_use);
    STRATA_PY_STAT(peak_bytes_in_use);
    STRATA_PY_STAT(bytes_limit);
    STRATA_PY_STAT(bytes_free);
    STRATA_PY_STAT(largest_free_block_bytes);
    STRATA_PY_STAT(num_allocs);
    STRATA_PY_STAT(num_frees);
    STRATA_PY_STAT(num_failed_allocs);
    STRATA_PY_STAT(fragmentation);
    STRATA_PY_STAT(compactions);
    STRATA_PY_STAT(compaction_moves);
    STRATA_PY_STAT(compaction_bytes_moved);
    STRATA_PY_STAT(compaction_cycles);
    STRATA_PY_STAT(context_bytes_in_use);
    STRATA_PY_STAT(context_quota_bytes);
    STRATA_PY_STAT(context_buffers);
    STRATA_PY_STAT(contexts);
    STRATA_PY_STAT(pool_bytes);
    STRATA_PY_STAT(peak_pool_bytes);
    STRATA_PY_STAT(requested_bytes);
    STRATA_PY_STAT(inactive_split_bytes);
    STRATA_PY_STAT(largest_alloc_size);
    STRATA_PY_STAT(num_alloc_retries);
    STRATA_PY_STAT(device_allocs);
    STRATA_PY_STAT(device_frees);
    STRATA_PY_STAT(device_syncs);
    STRATA_PY_STAT(stream_syncs);
    STRATA_PY_STAT(maps);
    STRATA_PY_STAT(unmaps);
    STRATA_PY_STAT(host_bytes_copied);
    STRATA_PY_STAT(oom_capacity);
    STRATA_PY_STAT(oom_cap);
    STRATA_PY_STAT(oom_fragmentation);
    STRATA_PY_STAT(num_device_alloc);
    STRATA_PY_STAT(num_device_free);
    STRATA_PY_STAT(context_allocated_bytes);
    STRATA_PY_STAT(context_pool_bytes);
#undef STRATA_PY_STAT
    return out;
  }

  py::dict LastOom() const {
    strata_oom_info o{};
    o.struct_size = sizeof o;
    Call("last_oom", [&](strata_device* d) { return strata_get_last_oom(d, &o); });
    py::dict out;
    out["kind"] = std::string(strata_oom_kind_name(o.kind));
    out["request_bytes"] = o.request_bytes;
    out["live_bytes"] = o.live_bytes;
    out["reserved_bytes"] = o.reserved_bytes;
    out["largest_free_block_bytes"] = o.largest_free_block_bytes;
    out["limit_bytes"] = o.limit_bytes;
    out["device_free_bytes"] = o.device_free_bytes;
    out["context_bytes_in_use"] = o.context_bytes_in_use;
    out["context_quota_bytes"] = o.context_quota_bytes;
    return out;
  }

  void Synchronize() const {
    Call("synchronize", [](strata_device* d) { return strata_synchronize(d); });
  }

  strata_context ContextCreate(uint64_t quota_bytes, double quota_fraction,
                               const std::vector<OptionTuple>& options) const {
    const std::vector<strata_named_value> named = NamedValues(options);
    strata_context_options o{};
    o.struct_size = sizeof o;
    o.quota_bytes = quota_bytes;
    o.quota_fraction = quota_fraction;
    o.named_options = named.data();
    o.num_named_options = static_cast<uint32_t>(named.size());
    strata_context c = 0;
    Call("create_context", [&](strata_device* d) { return strata_context_create(d, &o, &c); });
    return c;
  }
  void ContextDestroy(strata_context context) const {
    Call("destroy_context", [&](strata_device* d) { return strata_context_destroy(d, context); });
  }

  strata_buffer Alloc(strata_context context, uint64_t bytes, uint64_t alignment, uint32_t flags) const {
    strata_buffer b = 0;
    Call("alloc", [&](strata_device* d) { return strata_alloc(d, context, bytes, alignment, flags, &b); });
    return b;
  }
  void Free(strata_context context, strata_buffer buffer) const {
    Call("free", [&](strata_device* d) { return strata_free(d, context, buffer); });
  }

  // The whole of `data` (any C-contiguous buffer) into the buffer at `offset`.
  void Write(strata_context context, strata_buffer buffer, uint64_t offset, py::handle data) const {
    BufferView view(data, false);
    Call("write",
         [&](strata_device* d) { return strata_write(d, context, buffer, offset, view.data(), view.bytes()); });
  }
  // Fills `out` (a writable C-contiguous buffer) from the buffer at `offset`.
  void Read(strata_context context, strata_buffer buffer, uint64_t offset, py::handle out) const {
    BufferView view(out, true);
    Call("read", [&](strata_device* d) { return strata_read(d, context, buffer, offset, view.data(), view.bytes()); });
  }

  uint64_t Gemm(strata_context context, strata_buffer a, strata_buffer b, strata_buffer c, uint32_t m, uint32_t n,
                uint32_t k, uint32_t flags, int32_t quant_mult, uint32_t quant_shift, uint32_t dtype) const {
    const strata_gemm_args g{sizeof g, a, b, c, m, n, k, flags, quant_mult, quant_shift, dtype};
    strata_device_info i{};
    i.struct_size = sizeof i;
    // The product's cycles are the device's last_command_cycles right after it (same lock: no call between).
    Call("gemm", [&](strata_device* d) {
      const strata_status s = strata_gemm(d, context, &g);
      return s != STRATA_OK ? s : strata_get_device_info(d, &i);
    });
    return i.last_command_cycles;
  }

  py::dict Compact(strata_context context, uint64_t max_bytes, uint32_t max_moves) const {
    strata_compact_options o{sizeof o, max_bytes, max_moves};
    strata_compact_result r{};
    r.struct_size = sizeof r;
    Call("compact", [&](strata_device* d) { return strata_compact(d, context, &o, &r); });
    py::dict out;
    out["moves"] = r.moves;
    out["bytes_moved"] = r.bytes_moved;
    out["device_cycles"] = r.device_cycles;
    return out;
  }

 private:
  std::string backend_;
  mutable std::shared_mutex mutex_;
  mutable std::mutex call_mutex_;  // one call at a time on the device (Call): see InterruptScope
  strata_device* device_ = nullptr;
};

std::vector<std::string> Backends() {
  size_t count = 0;
  Check(strata_list_backends(nullptr, 0, &count));
  std::vector<const char*> names(count);
  Check(strata_list_backends(names.data(), names.size(), &count));
  return std::vector<std::string>(names.begin(), names.begin() + std::min(count, names.size()));
}

// Why `backend` cannot open here ("" when nothing is known against it): strata_get_backend_availability.
std::string BackendUnavailable(const std::string& backend) {
  const char* reason = nullptr;
  Check(strata_get_backend_availability(CString(backend, "the backend name"), &reason));
  return reason;
}

py::list BackendOptions(const std::string& backend) {
  size_t count = 0;
  Check(strata_get_backend_options(CString(backend, "the backend name"), nullptr, 0, &count));
  std::vector<strata_option_info> info(count);
  for (strata_option_info& i : info) i.struct_size = sizeof i;
  Check(strata_get_backend_options(backend.c_str(), info.data(), info.size(), &count));
  py::list out;
  for (size_t n = 0; n < std::min(count, info.size()); ++n) {
    py::dict d;
    d["name"] = std::string(info[n].name);
    d["type"] = static_cast<int>(info[n].type);
    d["default"] = std::string(info[n].default_value != nullptr ? info[n].default_value : "");
    d["help"] = std::string(info[n].help != nullptr ? info[n].help : "");
    py::list choices;
    for (uint32_t c = 0; c < info[n].num_choices; ++c) choices.append(std::string(info[n].choices[c]));
    d["choices"] = choices;
    d["default_int64"] = info[n].default_int64;
    d["default_double"] = info[n].default_double;
    d["default_bool"] = info[n].default_bool != 0;
    out.append(d);
  }
  return out;
}

py::dict Version() {
  strata_version v{};
  v.struct_size = sizeof v;
  Check(strata_get_version(&v));
  py::dict out;
  out["api_major"] = v.api_major;
  out["api_minor"] = v.api_minor;
  out["protocol_major"] = v.protocol_major;
  out["protocol_minor"] = v.protocol_minor;
  return out;
}

// name -> code for every status strata_status_name knows (the codes are the canonical ones, below 32).
py::dict Statuses() {
  py::dict out;
  for (int code = 0; code < 32; ++code) {
    const std::string name = strata_status_name(code);
    if (name != "UNKNOWN") out[py::str(name)] = code;
  }
  return out;
}

}  // namespace

PYBIND11_MODULE(_strata, m) {
  m.doc() = "The Strata host driver's C API (strata/strata.h); use the strata package, not this module.";
  g_main_thread = py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();

  // CallError -> strata.errors.error_for(status name)(message, status): raised lazily, by then the package exists.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const CallError& e) {
      const char* status = strata_status_name(e.status);
      try {
        py::object cls = py::module_::import("strata.errors").attr("error_class")(status);
        py::object error = cls(e.message, status);
        PyErr_SetObject(cls.ptr(), error.ptr());
      } catch (const py::error_already_set&) {  // no strata package (interpreter shutdown): the plain message
        PyErr_SetString(PyExc_RuntimeError, (std::string(status) + ": " + e.message).c_str());
      }
    }
  });

  m.attr("API_VERSION_MAJOR") = STRATA_API_VERSION_MAJOR;
  m.attr("API_VERSION_MINOR") = STRATA_API_VERSION_MINOR;
  m.attr("GEMM_FLAG_ACCUMULATE") = STRATA_GEMM_FLAG_ACCUMULATE;
  m.attr("GEMM_FLAG_RELU") = STRATA_GEMM_FLAG_RELU;
  m.attr("GEMM_FLAG_INT8") = STRATA_GEMM_FLAG_INT8;
  m.attr("GEMM_FLAG_ROUND") = STRATA_GEMM_FLAG_ROUND;
  m.attr("GEMM_FLAG_OUT_BF16") = STRATA_GEMM_FLAG_OUT_BF16;
  m.attr("GEMM_FLAGS_ALL") = STRATA_GEMM_FLAGS_ALL;
  m.attr("DTYPE_INT8") = STRATA_DTYPE_INT8;
  m.attr("DTYPE_BF16") = STRATA_DTYPE_BF16;
  m.attr("GEMM_MAX_DIM") = STRATA_GEMM_MAX_DIM;
  m.attr("GEMM_MAX_QUANT_SHIFT") = STRATA_GEMM_MAX_QUANT_SHIFT;
  m.attr("ALLOC_FLAG_NO_COMPACT") = STRATA_ALLOC_FLAG_NO_COMPACT;
  m.attr("VALUE_STRING") = static_cast<int>(STRATA_VALUE_STRING);
  m.attr("VALUE_INT64") = static_cast<int>(STRATA_VALUE_INT64);
  m.attr("VALUE_DOUBLE") = static_cast<int>(STRATA_VALUE_DOUBLE);
  m.attr("VALUE_BOOL") = static_cast<int>(STRATA_VALUE_BOOL);

  m.def("version", &Version);
  m.def("backends", &Backends);
  m.def("backend_unavailable", &BackendUnavailable);
  m.def("backend_options", &BackendOptions, py::arg("backend"));
  m.def("statuses", &Statuses);
  m.def("status_name", [](int code) { return std::string(strata_status_name(code)); });

  py::class_<Device>(m, "Device")
      .def(py::init<const std::string&, const std::vector<OptionTuple>&>(), py::arg("backend"), py::arg("options"))
      .def("close", &Device::Close)
      .def_property_readonly("closed", &Device::closed)
      .def_property_readonly("backend", &Device::backend)
      .def("info", &Device::Info)
      .def("memory_stats", &Device::MemoryStats, py::arg("context"))
      .def("last_oom", &Device::LastOom)
      .def("synchronize", &Device::Synchronize)
      .def("context_create", &Device::ContextCreate, py::arg("quota_bytes"), py::arg("quota_fraction"),
           py::arg("options"))
      .def("context_destroy", &Device::ContextDestroy, py::arg("context"))
      .def("alloc", &Device::Alloc, py::arg("context"), py::arg("bytes"), py::arg("alignment"), py::arg("flags"))
      .def("free", &Device::Free, py::arg("context"), py::arg("buffer"))
      .def("write", &Device::Write, py::arg("context"), py::arg("buffer"), py::arg("offset"), py::arg("data"))
      .def("read", &Device::Read, py::arg("context"), py::arg("buffer"), py::arg("offset"), py::arg("out"))
      .def("gemm", &Device::Gemm, py::arg("context"), py::arg("a"), py::arg("b"), py::arg("c"), py::arg("m"),
           py::arg("n"), py::arg("k"), py::arg("flags"), py::arg("quant_mult"), py::arg("quant_shift"),
           py::arg("dtype"))
      .def("compact", &Device::Compact, py::arg("context"), py::arg("max_bytes"), py::arg("max_moves"));
}
