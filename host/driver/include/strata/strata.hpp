// C++ RAII wrapper over the C API (strata.h): Device closes, Context destroys, Buffer frees on scope exit.
// Failed calls throw strata::Error (status + message). Thread-safety and blocking are the C API's.
#ifndef STRATA_STRATA_HPP_
#define STRATA_STRATA_HPP_

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "strata/strata.h"

namespace strata {

class Error : public std::runtime_error {
 public:
  explicit Error(strata_status status)
      : std::runtime_error(strata_last_error_message()[0] ? strata_last_error_message() : strata_status_name(status)),
        status_(status) {}
  Error(strata_status status, const std::string& message) : std::runtime_error(message), status_(status) {}
  strata_status status() const { return status_; }

 private:
  strata_status status_;
};

inline void Check(strata_status s) {
  if (s != STRATA_OK) throw Error(s);
}

class Device;

// A buffer owned by a context; freed when it goes out of scope (errors on that path are ignored).
class Buffer {
 public:
  Buffer() = default;
  Buffer(strata_device* d, strata_context c, strata_buffer b, uint64_t bytes)
      : device_(d), context_(c), handle_(b), bytes_(bytes) {}
  Buffer(Buffer&& o) noexcept { *this = std::move(o); }
  Buffer& operator=(Buffer&& o) noexcept {
    if (this != &o) {
      Reset();
      device_ = std::exchange(o.device_, nullptr);
      context_ = o.context_;
      handle_ = std::exchange(o.handle_, 0);
      bytes_ = o.bytes_;
    }
    return *this;
  }
  ~Buffer() { Reset(); }

  void Write(const void* src, uint64_t bytes, uint64_t offset = 0) {
    Check(strata_write(device_, context_, handle_, offset, src, bytes));
  }
  void Read(void* dst, uint64_t bytes, uint64_t offset = 0) const {
    Check(strata_read(device_, context_, handle_, offset, dst, bytes));
  }
  // Frees now (throws on error) rather than at scope exit.
  void Free() {
    const strata_buffer h = std::exchange(handle_, 0);
    Check(strata_free(device_, context_, h));
  }
  strata_buffer handle() const { return handle_; }
  uint64_t size() const { return bytes_; }
  explicit operator bool() const { return handle_ != 0; }

 private:
  void Reset() {
    if (handle_ != 0 && device_ != nullptr) strata_free(device_, context_, handle_);
    handle_ = 0;
  }
  strata_device* device_ = nullptr;
  strata_context context_ = 0;
  strata_buffer handle_ = 0;
  uint64_t bytes_ = 0;
};

// A context; destroyed (with every buffer it still owns) when it goes out of scope. Destroy Buffers first.
class Context {
 public:
  Context() = default;
  Context(strata_device* d, strata_context c) : device_(d), id_(c) {}
  Context(Context&& o) noexcept { *this = std::move(o); }
  Context& operator=(Context&& o) noexcept {
    if (this != &o) {
      Reset();
      device_ = std::exchange(o.device_, nullptr);
      id_ = std::exchange(o.id_, 0);
    }
    return *this;
  }
  ~Context() { Reset(); }

  Buffer Alloc(uint64_t bytes, uint64_t alignment = 0, uint32_t flags = 0) {
    strata_buffer b = 0;
    Check(strata_alloc(device_, id_, bytes, alignment, flags, &b));
    return Buffer(device_, id_, b, bytes);
  }
  // c = a (m x k) . b (k x n) (+ c); flags STRATA_GEMM_FLAG_*; quantization with STRATA_GEMM_FLAG_INT8; dtype
  // STRATA_DTYPE_INT8 or STRATA_DTYPE_BF16 (strata_gemm in strata.h).
  void Gemm(const Buffer& a, const Buffer& b, Buffer& c, uint32_t m, uint32_t n, uint32_t k, uint32_t flags = 0,
            int32_t quant_mult = 0, uint32_t quant_shift = 0, uint32_t dtype = STRATA_DTYPE_INT8) {
    const strata_gemm_args g{sizeof g, a.handle(), b.handle(), c.handle(),  m,    n,
                             k,        flags,      quant_mult, quant_shift, dtype};
    Check(strata_gemm(device_, id_, &g));
  }
  strata_compact_result Compact(uint64_t max_bytes = 0, uint32_t max_moves = 0) {
    strata_compact_options o{sizeof o, max_bytes, max_moves};
    strata_compact_result r{};
    r.struct_size = sizeof r;
    Check(strata_compact(device_, id_, &o, &r));
    return r;
  }
  strata_memory_stats MemoryStats() const {
    strata_memory_stats s{};
    s.struct_size = sizeof s;
    Check(strata_get_memory_stats(device_, id_, &s));
    return s;
  }
  strata_context id() const { return id_; }

 private:
  void Reset() {
    if (id_ != 0 && device_ != nullptr) strata_context_destroy(device_, id_);
    id_ = 0;
  }
  strata_device* device_ = nullptr;
  strata_context id_ = 0;
};

// What a backend says of one of its open options (strata_option_info, API 1.10), as C++ values.
struct OptionInfo {
  std::string name;
  strata_value_type type = STRATA_VALUE_STRING;
  std::string default_value;  // as text
  std::string help;
  std::vector<std::string> choices;  // the values it takes, in the order a user is shown them; empty: any
  int64_t default_int64 = 0;
  double default_double = 0;
  bool default_bool = false;
};

// Every open option of `backend` (strata_get_backend_options). Throws Error(UNIMPLEMENTED) for a backend this build
// does not have.
inline std::vector<OptionInfo> BackendOptions(const std::string& backend) {
  size_t count = 0;
  Check(strata_get_backend_options(backend.c_str(), nullptr, 0, &count));
  std::vector<strata_option_info> info(count);
  for (strata_option_info& i : info) i.struct_size = sizeof i;
  Check(strata_get_backend_options(backend.c_str(), info.data(), info.size(), &count));
  std::vector<OptionInfo> out;
  for (const strata_option_info& i : info) {
    OptionInfo o;
    o.name = i.name;
    o.type = i.type;
    o.default_value = i.default_value;
    o.help = i.help;
    for (uint32_t c = 0; c < i.num_choices; ++c) o.choices.emplace_back(i.choices[c]);
    o.default_int64 = i.default_int64;
    o.default_double = i.default_double;
    o.default_bool = i.default_bool != 0;
    out.push_back(std::move(o));
  }
  return out;
}

// The values option `option` of `backend` takes (its choices), or an empty list where the build has no such backend,
// the backend no such option, or the option takes any value: the tools' way to name presets and policies without
// linking the tables behind them.
inline std::vector<std::string> OptionChoices(const std::string& backend, const std::string& option) {
  size_t count = 0;
  if (strata_get_backend_options(backend.c_str(), nullptr, 0, &count) != STRATA_OK) return {};
  for (const OptionInfo& o : BackendOptions(backend)) {
    if (o.name == option) return o.choices;
  }
  return {};
}

// The option's default as text ("" as OptionChoices for what is not there).
inline std::string OptionDefault(const std::string& backend, const std::string& option) {
  size_t count = 0;
  if (strata_get_backend_options(backend.c_str(), nullptr, 0, &count) != STRATA_OK) return "";
  for (const OptionInfo& o : BackendOptions(backend)) {
    if (o.name == option) return o.default_value;
  }
  return "";
}

// Open options as strata_named_values, each typed as the backend declares that name (strata_get_backend_options):
// given as text the way command-line tools take them (`--option NAME=VALUE`, parsed as the option's type), or as a
// C++ number or bool, which keeps its value (no trip through text). A name the backend does not declare is passed
// on (text as a string, a number as its own type), so that strata_open refuses it with its own message, which lists
// the valid names.
class NamedOptions {
 public:
  // Throws Error(UNIMPLEMENTED) for a backend this build does not have.
  explicit NamedOptions(const std::string& backend) : backend_(backend) {
    size_t count = 0;
    Check(strata_get_backend_options(backend.c_str(), nullptr, 0, &count));
    info_.resize(count);
    for (strata_option_info& i : info_) i.struct_size = sizeof i;
    Check(strata_get_backend_options(backend.c_str(), info_.data(), info_.size(), &count));
  }

  // "NAME=VALUE"; throws Error(INVALID_ARGUMENT) when there is no '=' or the value is not of the option's type.
  void AddText(const std::string& name_equals_value) {
    const size_t eq = name_equals_value.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw Error(STRATA_INVALID_ARGUMENT, "an option is NAME=VALUE, not '" + name_equals_value + "'");
    }
    Add(name_equals_value.substr(0, eq), name_equals_value.substr(eq + 1));
  }

  void Add(const std::string& name, const std::string& text) {
    strata_named_value v = Named(name, TypeOf(name));
    const char* s = text.c_str();
    char* end = nullptr;
    errno = 0;
    switch (v.type) {
      case STRATA_VALUE_INT64:
        v.int64_value = std::strtoll(s, &end, 10);
        if (text.empty() || *end != '\0' || errno != 0) Refuse(name, text, "an integer");
        break;
      case STRATA_VALUE_DOUBLE:
        v.double_value = std::strtod(s, &end);
        if (text.empty() || *end != '\0' || errno != 0) Refuse(name, text, "a number");
        break;
      case STRATA_VALUE_BOOL:
        if (text != "0" && text != "1" && text != "true" && text != "false") Refuse(name, text, "true or false");
        v.bool_value = text == "1" || text == "true";
        break;
      case STRATA_VALUE_STRING:
        v.string_value = Keep(text);
        break;
    }
    values_.push_back(v);
  }

  // A value given as a C++ number or bool, as the option's type: an int64 option takes an integer (a floating
  // value only when it is a whole number in range; a uint64_t beyond INT64_MAX is refused), a double option any
  // number, a bool option a bool (or 0 / 1); a string option (a GPU policy's settings) takes it written out.
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
  void Add(const std::string& name, T value) {
    const strata_value_type declared = TypeOf(name);
    if (declared == STRATA_VALUE_STRING && Declared(name)) return Add(name, Text(value));
    // Undeclared: passed on in its own type, for strata_open to name.
    const strata_value_type type = Declared(name)                ? declared
                                   : std::is_same_v<T, bool>     ? STRATA_VALUE_BOOL
                                   : std::is_floating_point_v<T> ? STRATA_VALUE_DOUBLE
                                                                 : STRATA_VALUE_INT64;
    strata_named_value v = Named(name, type);
    switch (type) {
      case STRATA_VALUE_INT64:
        if (std::is_same_v<T, bool> || !AsInt64(value, &v.int64_value)) Refuse(name, Text(value), "an integer");
        break;
      case STRATA_VALUE_DOUBLE:
        if (std::is_same_v<T, bool>) Refuse(name, Text(value), "a number");
        v.double_value = static_cast<double>(value);
        break;
      case STRATA_VALUE_BOOL:
        if (!std::is_same_v<T, bool> && value != T(0) && value != T(1)) Refuse(name, Text(value), "true or false");
        v.bool_value = value != T(0);
        break;
      case STRATA_VALUE_STRING:
        break;
    }
    values_.push_back(v);
  }
  void Add(const std::string& name, const char* text) { Add(name, std::string(text)); }

  template <typename T>
  static std::string Text(T value) {
    if constexpr (std::is_same_v<T, bool>) {
      return value ? "true" : "false";
    } else if constexpr (std::is_floating_point_v<T>) {
      char s[32];
      std::snprintf(s, sizeof s, "%.17g", static_cast<double>(value));
      return s;
    } else {
      return std::to_string(value);
    }
  }

  const strata_named_value* data() const { return values_.data(); }
  uint32_t size() const { return static_cast<uint32_t>(values_.size()); }

 private:
  bool Declared(const std::string& name) const {
    for (const strata_option_info& i : info_) {
      if (name == i.name) return true;
    }
    return false;
  }
  strata_value_type TypeOf(const std::string& name) const {
    for (const strata_option_info& i : info_) {
      if (name == i.name) return i.type;
    }
    return STRATA_VALUE_STRING;  // unknown: strata_open names it and lists the valid ones
  }
  strata_named_value Named(const std::string& name, strata_value_type type) {
    strata_named_value v{};
    v.struct_size = sizeof v;
    v.name = Keep(name);
    v.type = type;
    return v;
  }
  // An arithmetic value as an int64 when it is one exactly.
  template <typename T>
  static bool AsInt64(T value, int64_t* out) {
    if constexpr (std::is_same_v<T, bool>) {
      *out = value ? 1 : 0;
      return true;
    } else if constexpr (std::is_floating_point_v<T>) {
      // 2^63 is the first double beyond int64; a whole number below it (and at least -2^63) converts exactly.
      if (!(value >= -9223372036854775808.0 && value < 9223372036854775808.0)) return false;
      const auto i = static_cast<int64_t>(value);
      if (static_cast<T>(i) != value) return false;
      *out = i;
      return true;
    } else if constexpr (std::is_unsigned_v<T>) {
      if (static_cast<uint64_t>(value) > static_cast<uint64_t>(INT64_MAX)) return false;
      *out = static_cast<int64_t>(value);
      return true;
    } else {
      *out = static_cast<int64_t>(value);
      return true;
    }
  }
  [[noreturn]] void Refuse(const std::string& name, const std::string& text, const char* want) const {
    throw Error(STRATA_INVALID_ARGUMENT,
                "option " + name + " of the " + backend_ + " backend wants " + want + ", not '" + text + "'");
  }
  const char* Keep(const std::string& s) { return strings_.emplace_back(s).c_str(); }

  std::string backend_;
  std::vector<strata_option_info> info_;
  std::deque<std::string> strings_;  // stable addresses for the values' names and strings
  std::vector<strata_named_value> values_;
};

// One named open option for strata::Device: {"policy", "torch"}, {"total_bytes", 1 << 30}, {"preallocate", false}.
// A number or bool keeps its type on the way to strata_open (NamedOptions::Add).
struct Option {
  Option(std::string option_name, std::string value) : name(std::move(option_name)), text(std::move(value)) {}
  Option(std::string option_name, const char* value) : name(std::move(option_name)), text(value) {}
  template <typename T, typename = std::enable_if_t<std::is_arithmetic_v<T>>>
  Option(std::string option_name, T value) : name(std::move(option_name)), text(NamedOptions::Text(value)) {
    add = [value](NamedOptions& named, const std::string& n) { named.Add(n, value); };
  }
  void AddTo(NamedOptions& named) const {
    if (add) {
      add(named, name);
    } else {
      named.Add(name, text);
    }
  }
  std::string name, text;  // text: the value as written (a number's too, for messages)
  std::function<void(NamedOptions&, const std::string&)> add;  // a number or bool: added as itself
};

class Device {
 public:
  // backend "sim"; options may be null.
  explicit Device(const char* backend, const strata_open_options* options = nullptr) {
    Check(strata_open(backend, options, &device_));
  }
  // Named open options, typed by the backend's own table as the C API's strata_named_value and Python's
  // strata.open(backend, **options) take them:
  //   strata::Device dev("gpu-emu", {{"policy", "torch"}, {"total_bytes", 1 << 30}, {"context_bytes", 0}});
  // Throws Error: UNIMPLEMENTED for a backend this build does not have, INVALID_ARGUMENT for a value that is not of
  // its option's type or a name the backend does not declare (the message lists the valid names). `base` carries
  // the sim backend's struct fields (hbm_preset, trace_path, ...); its named options are replaced.
  Device(const std::string& backend, const std::vector<Option>& options, strata_open_options base = {}) {
    NamedOptions named(backend);
    for (const Option& o : options) o.AddTo(named);
    base.struct_size = sizeof base;
    base.named_options = named.data();
    base.num_named_options = named.size();
    Check(strata_open(backend.c_str(), &base, &device_));
  }
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  ~Device() { strata_close(device_); }  // its status lost: call Close() to know it
  // Closes now and throws what strata_close says (STRATA_DATA_LOSS: the timeline could not be written completely).
  void Close() { Check(strata_close(std::exchange(device_, nullptr))); }

  Context CreateContext(uint64_t quota_bytes = 0, double quota_fraction = 0) {
    return CreateContext(std::vector<Option>{}, quota_bytes, quota_fraction);
  }
  // Named context options (API 1.9), each typed as the backend's open option of that name: on a GPU backend the
  // context's own policy and settings, dev.CreateContext({{"policy", "torch"}, {"memory_fraction", 0.5}}). Throws
  // Error(INVALID_ARGUMENT) for a name the backend does not take per context; no context exists then.
  Context CreateContext(const std::vector<Option>& options, uint64_t quota_bytes = 0, double quota_fraction = 0) {
    strata_context_options o{};
    o.struct_size = sizeof o;
    o.quota_bytes = quota_bytes;
    o.quota_fraction = quota_fraction;
    std::unique_ptr<NamedOptions> named;
    if (!options.empty()) {
      named = std::make_unique<NamedOptions>(Info().backend);
      for (const Option& option : options) named->Add(option.name, option.text);
      o.named_options = named->data();
      o.num_named_options = named->size();
    }
    strata_context c = 0;
    Check(strata_context_create(device_, &o, &c));
    return Context(device_, c);
  }
  strata_memory_stats MemoryStats() const {
    strata_memory_stats s{};
    s.struct_size = sizeof s;
    Check(strata_get_memory_stats(device_, 0, &s));
    return s;
  }
  strata_device_info Info() const {
    strata_device_info i{};
    i.struct_size = sizeof i;
    Check(strata_get_device_info(device_, &i));
    return i;
  }
  void Synchronize() { Check(strata_synchronize(device_)); }
  strata_device* get() const { return device_; }

 private:
  strata_device* device_ = nullptr;
};

}  // namespace strata

#endif  // STRATA_STRATA_HPP_
