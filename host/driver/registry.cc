// The backend registry and the typed open options of the driver core.
#include <algorithm>
#include <mutex>

#include "backend.h"
#include "trace_file.h"

namespace strata::driver {
namespace {

struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<BackendInfo>> backends;  // stable addresses: FindBackend hands them out
};

Registry& TheRegistry() {
  static Registry* r = new Registry;  // never destroyed: lookups may run during static destruction
  return *r;
}

const OpenOptions::Value* Lookup(const std::map<std::string, OpenOptions::Value>& values, const std::string& name) {
  const auto it = values.find(name);
  return it == values.end() ? nullptr : &it->second;
}

}  // namespace

const std::vector<OptionSpec>& CoreOptions() {
  static const std::vector<OptionSpec> options{
      {"timeline", STRATA_VALUE_STRING, "",
       "write the run as a Perfetto / chrome://tracing timeline (trace-event JSON) to this file; empty = none"},
      {"timeline_start_cycle", STRATA_VALUE_INT64, "0", "timeline: leave out what ends before this device cycle"},
      {"timeline_end_cycle", STRATA_VALUE_INT64, "0", "timeline: ... or begins at or after this one; 0 = the end"},
      {"timeline_max_bytes", STRATA_VALUE_INT64, std::to_string(timeline::TraceFile::kDefaultMaxBytes),
       "timeline: the file stops growing at this size"},
  };
  return options;
}

void RegisterBackend(BackendInfo info) {
  for (const OptionSpec& o : CoreOptions()) {
    const bool has =
        std::any_of(info.options.begin(), info.options.end(), [&](const auto& x) { return x.name == o.name; });
    if (!has) info.options.push_back(o);
  }
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  BackendInfo* stored = nullptr;
  for (auto& b : r.backends) {
    if (b->name == info.name) {
      *b = std::move(info);
      stored = b.get();
      break;
    }
  }
  if (stored == nullptr) stored = r.backends.emplace_back(std::make_unique<BackendInfo>(std::move(info))).get();
  // Pointers into the stored strings (a moved short string's characters move with it: only now are they final).
  stored->c_choices.clear();
  for (const OptionSpec& o : stored->options) {
    std::vector<const char*>& list = stored->c_choices.emplace_back();
    for (const std::string& c : o.choices) list.push_back(c.c_str());
    if (!list.empty()) list.push_back(nullptr);
  }
}

const BackendInfo* FindBackend(const std::string& name) {
  RegisterBuiltinBackends();
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (auto& b : r.backends) {
    if (b->name == name) return b.get();
  }
  return nullptr;
}

std::vector<const BackendInfo*> Backends() {
  RegisterBuiltinBackends();
  Registry& r = TheRegistry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<const BackendInfo*> out;
  for (auto& b : r.backends) out.push_back(b.get());
  return out;
}

std::string OpenOptions::GetString(const std::string& name, const std::string& fallback) const {
  const Value* v = Lookup(values_, name);
  return v != nullptr ? v->s : fallback;
}
int64_t OpenOptions::GetInt(const std::string& name, int64_t fallback) const {
  const Value* v = Lookup(values_, name);
  return v != nullptr ? v->i : fallback;
}
double OpenOptions::GetDouble(const std::string& name, double fallback) const {
  const Value* v = Lookup(values_, name);
  return v != nullptr ? v->d : fallback;
}
bool OpenOptions::GetBool(const std::string& name, bool fallback) const {
  const Value* v = Lookup(values_, name);
  return v != nullptr ? v->b : fallback;
}

std::map<std::string, std::string> OpenOptions::AsText() const {
  std::map<std::string, std::string> out;
  for (const auto& [name, v] : values_) {
    switch (v.type) {
      case STRATA_VALUE_STRING:
        out[name] = v.s;
        break;
      case STRATA_VALUE_INT64:
        out[name] = std::to_string(v.i);
        break;
      case STRATA_VALUE_DOUBLE: {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.17g", v.d);
        out[name] = buf;
        break;
      }
      case STRATA_VALUE_BOOL:
        out[name] = v.b ? "true" : "false";
        break;
    }
  }
  return out;
}

}  // namespace strata::driver
