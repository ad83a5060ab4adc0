// The PyTorch policies "torch" and "torch-expandable" (docs/gpu-policies.md P5-P6): their settings
// from PYTORCH_CUDA_ALLOC_CONF, parsed with PyTorch's grammar (c10/cuda/CUDAAllocatorConfig.cpp: lexArgs,
// parseArgs, consumeToken, parseMaxSplitSize, parseGarbageCollectionThreshold,
// parseRoundUpPower2Divisions), and the explicit options that override it.
#include <bit>
#include <cerrno>
#include <cstdlib>

#include "caching_allocator.h"
#include "families.h"
#include "numbers.h"

namespace strata::gpu {
namespace {

constexpr const char* kEnvVar = "PYTORCH_CUDA_ALLOC_CONF";
constexpr uint64_t kMiB = 1ull << 20;

// lexArgs(): ',', ':', '[' and ']' are tokens of their own; spaces are dropped.
std::vector<std::string> LexArgs(const std::string& env) {
  std::vector<std::string> config;
  std::string buf;
  for (char c : env) {
    if (c == ',' || c == ':' || c == '[' || c == ']') {
      if (!buf.empty()) config.push_back(buf);
      buf.clear();
      config.emplace_back(1, c);
    } else if (c != ' ') {
      buf.push_back(c);
    }
  }
  if (!buf.empty()) config.push_back(buf);
  return config;
}

// strata::cli's readers (host/tool/numbers.h): NaN, infinity, hex, blanks and a '+' are refused.
bool ParseUnsigned(const std::string& s, uint64_t* out) { return cli::ParseDecimal(s, 0, UINT64_MAX, out); }

bool ParseDouble(const std::string& s, double* out) {
  return cli::ParseReal(s, 0, std::numeric_limits<double>::max(), out);
}

// The PyTorch release whose settings rules apply (option torch_version). Up to 2.8 the CUDA allocator parses
// its settings itself (c10/cuda/CUDAAllocatorConfig.cpp); from 2.9 the shared keys go through
// c10/core/AllocatorConfig.cpp (AcceleratorAllocatorConfig), whose rules differ in three places: the
// smallest max_split_size_mb / max_non_split_rounding_mb (> 20 before, >= 20 after), where ">" starts filling
// roundup_power2_divisions (at the last named interval before, after it now), and the
// garbage_collection_threshold message. docs/gpu-policies.md lists them with their sources.
struct TorchVersion {
  uint64_t major = 2, minor = 9;
  bool Newer() const { return major > 2 || (major == 2 && minor >= 9); }
};
constexpr const char* kDefaultTorchVersion = "2.9";

bool ParseTorchVersion(const std::string& s, TorchVersion* out) {
  const size_t dot = s.find('.');
  if (dot == std::string::npos) return false;
  TorchVersion v;
  if (!cli::ParseDecimal(s.substr(0, dot), 1, 99, &v.major) || !cli::ParseDecimal(s.substr(dot + 1), 0, 99, &v.minor)) {
    return false;
  }
  if (v.major == 1 && v.minor < 10) return false;  // PYTORCH_CUDA_ALLOC_CONF's parser as read starts at 1.10
  *out = v;
  return true;
}

// The option torch_version, if given, into *version (left at the default otherwise).
bool ReadTorchVersion(const std::map<std::string, std::string>& options, TorchVersion* version, std::string* error) {
  auto it = options.find("torch_version");
  if (it == options.end() || ParseTorchVersion(it->second, version)) return true;
  *error = "option torch_version: '" + it->second + "' is not a PyTorch release (MAJOR.MINOR, 1.10 or later, e.g. " +
           kDefaultTorchVersion + " or 2.8)";
  return false;
}

// The least max_split_size_mb / max_non_split_rounding_mb a release accepts: kLargeBuffer / 1 MiB (20) from 2.9,
// one more up to 2.8.
uint64_t LeastSplitMb(bool newer) { return kTorchLargeBuffer / kMiB + (newer ? 0 : 1); }

// CUDAAllocatorConfig::parseArgs over one settings string. `source` names where it came from
// (PYTORCH_CUDA_ALLOC_CONF or an option) and starts every error, so the user sees which variable is bad.
class ConfParser {
 public:
  ConfParser(std::string source, TorchVersion version, CachingConfig* config, std::string* error)
      : source_(std::move(source)), newer_(version.Newer()), c_(config), error_(error) {}

  bool Parse(const std::string& text) {
    t_ = LexArgs(text);
    for (size_t i = 0; i < t_.size(); ++i) {
      const std::string& key = t_[i];
      bool ok = true;
      if (key == "max_split_size_mb") {
        ok = ParseMb(i, "max_split_size_mb", &c_->max_split_size);
      } else if (key == "max_non_split_rounding_mb") {
        ok = ParseMb(i, "max_non_split_rounding_mb", &c_->max_non_split_rounding);
      } else if (key == "garbage_collection_threshold") {
        ok = ParseGcThreshold(i);
      } else if (key == "roundup_power2_divisions") {
        ok = ParseRoundUp(i);
      } else if (key == "expandable_segments") {
        ok = ParseBool(i, "Expected a single True/False argument for expandable_segments", &c_->expandable_segments);
      } else if (key == "release_lock_on_cudamalloc" || key == "pinned_use_cuda_host_register") {
        bool ignored = false;  // accepted (valid PyTorch keys) with no effect on a single-threaded replay
        ok = ParseBool(i, "Expected a single True/False argument for " + key, &ignored);
      } else if (key == "pinned_num_register_threads") {
        uint64_t ignored = 0;  // host pinned memory: not modelled
        ok = Consume(++i, ':') && Value(++i, "Error, expecting pinned_num_register_threads value") &&
             Number(t_[i], &ignored);
      } else if (key == "backend") {
        ok = Consume(++i, ':') && Value(++i, "Error, expecting backend value");
        if (ok && t_[i] != "native") {
          ok = Fail(t_[i] == "cudaMallocAsync"
                        ? "backend:cudaMallocAsync is PyTorch's cudaMallocAsync allocator, not the caching "
                          "allocator this policy emulates (use a cudaMallocAsync policy: jax-async, tf-async)"
                        : "Unknown allocator backend, options are native and cudaMallocAsync");
        }
      } else {
        ok = Fail("Unrecognized CachingAllocator option: " + key);
      }
      if (!ok) return false;
      if (i + 1 < t_.size() && !Consume(++i, ',')) return false;
    }
    return true;
  }

 private:
  bool Fail(const std::string& what) {
    *error_ = source_ + ": " + what;
    return false;
  }
  // consumeToken().
  bool Consume(size_t i, char c) {
    if (i < t_.size() && t_[i] == std::string(1, c)) return true;
    return Fail(std::string("Error parsing CachingAllocator settings, expected ") + c);
  }
  bool Value(size_t i, const std::string& missing) { return i < t_.size() ? true : Fail(missing); }
  bool Number(const std::string& s, uint64_t* out) {
    return ParseUnsigned(s, out) ? true : Fail("'" + s + "' is not a non-negative integer");
  }
  bool ParseBool(size_t& i, const std::string& message, bool* out) {
    if (!Consume(++i, ':')) return false;
    ++i;
    if (i >= t_.size() || (t_[i] != "True" && t_[i] != "False")) return Fail(message);
    *out = t_[i] == "True";
    return true;
  }
  // parseMaxSplitSize() / parseMaxNonSplitRoundingSize(): up to 2.8 the value must be > kLargeBuffer / 1 MiB
  // (20); from 2.9 >= 20.
  bool ParseMb(size_t& i, const std::string& key, uint64_t* out) {
    uint64_t mb = 0;
    if (!Consume(++i, ':') || !Value(++i, "Error, expecting " + key + " value") || !Number(t_[i], &mb)) return false;
    const uint64_t least = kTorchLargeBuffer / kMiB;
    if (mb < LeastSplitMb(newer_)) {
      return Fail("CachingAllocator option " + key + " too small, must be " + (newer_ ? ">= " : "> ") +
                  std::to_string(least));
    }
    mb = std::min(mb, std::numeric_limits<uint64_t>::max() / kMiB);
    *out = mb * kMiB;
    return true;
  }
  // parseGarbageCollectionThreshold(): 0 < x < 1.
  bool ParseGcThreshold(size_t& i) {
    double v = 0;
    if (!Consume(++i, ':') || !Value(++i, "Error, expecting garbage_collection_threshold value")) return false;
    if (!ParseDouble(t_[i], &v)) return Fail("'" + t_[i] + "' is not a number");
    if (newer_ && !(v > 0 && v < 1.0)) return Fail("garbage_collect_threshold is invalid, set it in (0.0, 1.0)");
    if (!(v > 0)) return Fail("garbage_collect_threshold too small, set it 0.0~1.0");
    if (!(v < 1.0)) return Fail("garbage_collect_threshold too big, set it 0.0~1.0");
    c_->garbage_collection_threshold = v;
    return true;
  }
  // parseRoundUpPower2Divisions(): a single power of two for every interval, or
  // "[256:1,512:2,>:8]" = per interval (keys in MiB, powers of two; '>' = every later interval).
  bool ParseRoundUp(size_t& i) {
    auto& d = c_->roundup_power2_divisions;
    if (!Consume(++i, ':') || !Value(++i, "Error, expecting roundup_power2_divisions value")) return false;
    if (t_[i] != "[") {
      uint64_t v = 0;
      if (!Number(t_[i], &v)) return false;
      if (!std::has_single_bit(v)) return Fail("For roundups, the divisions has to be power of 2 ");
      d.fill(v);
      return true;
    }
    bool first_value = true;
    size_t last_index = 0;
    while (++i < t_.size() && t_[i] != "]") {
      const std::string val1 = t_[i];
      uint64_t val2 = 0;
      if (!Consume(++i, ':')) return false;
      if (++i >= t_.size()) return Fail("Error parsing roundup_power2_divisions value");
      if (!Number(t_[i], &val2)) return false;
      if (val2 != 0 && !std::has_single_bit(val2)) {
        return Fail("For roundups, the divisions has to be power of 2 or 0 to disable roundup ");
      }
      if (val1 == ">") {
        // Every interval after the last one named: from 2.9 (c10/core/AllocatorConfig.cpp) the fill starts at
        // last_index + 1, as PyTorch's docs describe; up to 2.8 (c10/cuda/CUDAAllocatorConfig.cpp) it starts at
        // last_index, overwriting the last interval named.
        std::fill(d.begin() + static_cast<std::ptrdiff_t>(newer_ ? last_index + 1 : last_index), d.end(), val2);
      } else {
        uint64_t mb = 0;
        if (!Number(val1, &mb)) return false;
        if (!std::has_single_bit(mb)) return Fail("For roundups, the intervals have to be power of 2 ");
        size_t index = static_cast<size_t>(63 - std::countl_zero(mb));
        index = std::min(index, d.size() - 1);
        if (first_value) {
          std::fill(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(index), val2);
          first_value = false;
        }
        d[index] = val2;
        last_index = index;
      }
      if (i + 1 < t_.size() && t_[i + 1] != "]" && !Consume(++i, ',')) return false;
    }
    if (i >= t_.size()) return Fail("Error parsing roundup_power2_divisions value, expected ]");
    return true;
  }

  std::string source_;
  bool newer_;  // PyTorch >= 2.9
  CachingConfig* c_;
  std::string* error_;
  std::vector<std::string> t_;
};

// Options that are one PYTORCH_CUDA_ALLOC_CONF key each: "key" -> "key:value" through the same parser.
constexpr const char* kConfKeys[] = {"expandable_segments", "max_split_size_mb", "garbage_collection_threshold",
                                     "roundup_power2_divisions", "max_non_split_rounding_mb"};

}  // namespace

std::vector<PolicyOption> CachingPolicyOptions(const std::string& name) {
  if (name != "torch" && name != "torch-expandable") return {};
  std::vector<PolicyOption> o = {
      {"torch_version", "", kDefaultTorchVersion,
       "PyTorch release whose settings rules apply: 2.9 and later, or 2.8 and earlier (max_split_size_mb > 20, "
       "'>' in roundup_power2_divisions also overwrites the last interval named)"},
      {"alloc_conf", kEnvVar, "", "settings in PYTORCH_CUDA_ALLOC_CONF's grammar, applied after the variable"},
      {"memory_fraction", "", "", "torch.cuda.set_per_process_memory_fraction: cap on reserved bytes, x total"},
      {"expandable_segments", kEnvVar, name == "torch-expandable" ? "True" : "False",
       "True/False; torch-expandable is always True"},
      {"max_split_size_mb", kEnvVar, "unlimited", "blocks at least this large are never split (>= 20; > 20 up to 2.8)"},
      {"garbage_collection_threshold", kEnvVar, "0", "0 < x < 1; acts only with memory_fraction"},
      {"roundup_power2_divisions", kEnvVar, "0", "power of 2, or [MiB:divs,...,>:divs]"},
      {"max_non_split_rounding_mb", kEnvVar, "20", "newer PyTorch: waste allowed for oversize requests"},
  };
  return o;
}

bool LeastMaxSplitSizeMb(const std::map<std::string, std::string>& options, uint64_t* mb, std::string* error) {
  TorchVersion version;
  if (!ReadTorchVersion(options, &version, error)) return false;
  *mb = LeastSplitMb(version.Newer());
  return true;
}

bool MakeCachingPolicy(const std::string& name, GpuDriver& driver, const PolicyConfig& config,
                       std::unique_ptr<Policy>* out, std::string* error) {
  if (name != "torch" && name != "torch-expandable") {
    *error = "not a caching-allocator policy: " + name;
    return false;
  }
  CachingConfig c;
  TorchVersion version;
  if (!ReadTorchVersion(config.options, &version, error)) return false;
  // The environment first (parsed once at start-up by CUDAAllocatorConfig), then the explicit options on
  // top, as torch.cuda.memory._set_allocator_settings() would apply them.
  if (const char* env = config.env ? config.env(kEnvVar) : nullptr; env != nullptr) {
    if (!ConfParser(kEnvVar, version, &c, error).Parse(env)) return false;
  }
  for (const auto& [key, value] : config.options) {
    bool known = false;
    if (key == "torch_version") {
      known = true;  // read above
    } else if (key == "alloc_conf") {
      known = true;
      if (!ConfParser("option alloc_conf", version, &c, error).Parse(value)) return false;
    } else if (key == "memory_fraction") {
      known = true;
      double f = 0;
      // setMemoryFraction(): TORCH_CHECK(0 <= fraction && fraction <= 1, "invalid fraction:", ...).
      if (!ParseDouble(value, &f) || !(f >= 0 && f <= 1)) {
        *error = "option memory_fraction: invalid fraction:" + value + ". Please set within [0, 1].";
        return false;
      }
      c.memory_fraction = f;
    } else {
      for (const char* k : kConfKeys) {
        if (key == k) {
          known = true;
          if (!ConfParser("option " + key, version, &c, error).Parse(key + ":" + value)) return false;
        }
      }
    }
    if (!known) {
      std::string list;
      for (const PolicyOption& o : CachingPolicyOptions(name)) list += (list.empty() ? "" : ", ") + o.name;
      *error = "unknown option '" + key + "' for policy " + name + " (valid: " + list + ")";
      return false;
    }
  }
  // torch-expandable is expandable whatever the settings say; torch with expandable_segments:True is the
  // same allocator (P6: the same malloc chain).
  if (name == "torch-expandable") c.expandable_segments = true;
  *out = std::make_unique<CachingAllocator>(c.expandable_segments ? "torch-expandable" : "torch", driver, c);
  return true;
}

}  // namespace strata::gpu
