// The BFC policies: JAX (jax, jax-growth) and TensorFlow (tf, tf-growth; docs/gpu-policies.md, BFC rule 7), each
// a tsl BFC allocator (bfc_allocator.h) sized and configured as the framework does, with its selector
// variable routing to the other families (XLA_PYTHON_CLIENT_ALLOCATOR, TF_GPU_ALLOCATOR).
//
// Environment handling and where it deliberately differs from the frameworks (each says why):
//  * An empty variable counts as unset (Python's os.getenv would hand "" on; the result would be an error
//    or the default anyway).
//  * XLA_PYTHON_CLIENT_PREALLOCATE is exactly JAX's `value not in ('false', 'False', '0')`
//    (jaxlib/xla_client.py:211-212): any other value means true, so it has no bad values.
//  * TF logs and ignores an unparseable TF_FORCE_GPU_ALLOW_GROWTH, TF_ENABLE_GPU_GARBAGE_COLLECTION,
//    TF_DEVICE_MIN_SYS_MEMORY_IN_MB or TF_GPU_ALLOCATOR; we refuse them with the variable named, so that a
//    typo cannot silently change which policy a replay measured. A reserve larger than free memory is
//    ignored as TF does (gpu_device.cc, SingleVirtualDeviceMemoryLimit).
//  * Memory fraction, by JAX release (option jax_version, docs/gpu-policies.md "JAX releases"). Every release
//    from 0.6 to the pinned 0.10.2 reads XLA_CLIENT_MEM_FRACTION, or the deprecated XLA_PYTHON_CLIENT_MEM_FRACTION,
//    and hands it on as a plain number (jaxlib/xla_client.py converts it with float()), which XLA's BFC takes as a
//    fixed cap of total memory, 0.75 unless set. jax_version=next follows XLA's unreleased START / START-CAP grammar
//    (xla_gpu_allocator_config.h): a bare fraction below 1 preallocates that much and grows to all memory, S-C
//    grows to at most C, S-S is fixed. The BFC keeps one limit, so a growable fraction becomes limit = CAP with a
//    first region of START (BfcOptions::initial_region_bytes). Fractions must lie in (0, 1]: above 1 is
//    unified-memory oversubscription (TF_FORCE_UNIFIED_MEMORY), not emulated.
//  * Not modelled: XLA's second (collective, 25 %, growth) and host BFC pools (se_gpu_pjrt_client.cc:
//    1462-1475; they serve other memory spaces), gpu_system_memory_size, TF's debug allocators
//    (memory_guard) and unified memory.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>

#include "bfc_allocator.h"
#include "families.h"
#include "numbers.h"
#include "tf_memory.h"

namespace strata::gpu {
namespace {

constexpr uint64_t kMiB = 1ull << 20;
constexpr uint64_t kGiB = 1ull << 30;
// kGpuMemoryLimitGranularity (xla/pjrt/gpu/gpu_helpers.cc:55-62).
constexpr uint64_t kGpuMemoryLimitGranularity = 2 * kMiB;

bool IsJax(const std::string& name) { return name == "jax" || name == "jax-growth"; }
bool IsTf(const std::string& name) { return name == "tf" || name == "tf-growth"; }

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// A setting's value and where it came from, for error messages.
struct Setting {
  std::string value;
  std::string origin;  // "option 'x'" or the variable's name
};

std::optional<std::string> Env(const PolicyConfig& config, const char* var) {
  if (!config.env) return std::nullopt;
  const char* v = config.env(var);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

// The explicit option if given, else the environment variable if set.
std::optional<Setting> Lookup(const PolicyConfig& config, const char* option, const char* var) {
  if (auto it = config.options.find(option); it != config.options.end()) {
    return Setting{it->second, std::string("option '") + option + "'"};
  }
  if (var != nullptr && *var != '\0') {
    if (auto v = Env(config, var)) return Setting{*v, var};
  }
  return std::nullopt;
}

// strata::cli's reader (host/tool/numbers.h): NaN, infinity, hex, blanks and a '+' are refused.
bool ParseDouble(const std::string& s, double* out) {
  return cli::ParseReal(s, 0, std::numeric_limits<double>::max(), out);
}

// Our own boolean spelling for options and TF's ReadBoolFromEnvVar: true/false/1/0, any case.
bool ParseBool(const std::string& s, bool* out) {
  const std::string l = Lower(s);
  if (l == "true" || l == "1") {
    *out = true;
    return true;
  }
  if (l == "false" || l == "0") {
    *out = false;
    return true;
  }
  return false;
}

// RoundUpGpuMemoryLimit (gpu_helpers.cc:55-62, :155).
uint64_t RoundUpGpuMemoryLimit(uint64_t bytes) {
  return (bytes + kGpuMemoryLimitGranularity - 1) / kGpuMemoryLimitGranularity * kGpuMemoryLimitGranularity;
}

uint64_t FractionOf(uint64_t total, double fraction) {
  return static_cast<uint64_t>(static_cast<double>(total) * fraction);
}

// ---------------------------------------------------------------------------------------------------
// Option tables.

constexpr const char* kJaxAllocators = "default, bfc, platform, address, cuda_async, vmm";
constexpr const char* kTfAllocators = "bfc (unset), cuda_malloc_async, cuda_malloc, memory_guard";

std::vector<PolicyOption> Options(const std::string& name) {
  std::vector<PolicyOption> o;
  if (IsJax(name)) {
    o.push_back({"jax_version", "", kDefaultJaxVersion,
                 "JAX release whose memory-fraction rules apply: 0.6 to 0.10 (a plain number, a fixed cap), or next "
                 "(XLA's unreleased START / START-CAP grammar: a bare F below 1 grows to all memory)"});
    o.push_back({"mem_fraction", "XLA_CLIENT_MEM_FRACTION", "0.75",
                 "memory limit as a fraction of TOTAL device memory, rounded up to 2 MiB (jax_version=next: START "
                 "or START-CAP); the deprecated XLA_PYTHON_CLIENT_MEM_FRACTION is read too"});
    if (name == "jax") {
      o.push_back({"preallocate", "XLA_PYTHON_CLIENT_PREALLOCATE", "true",
                   "take the whole limit as one region on the first allocation; false = growth regions 2, 4, 8 "
                   "MiB ... under the same limit"});
    }
    o.push_back({"allocator", "XLA_PYTHON_CLIENT_ALLOCATOR", "default",
                 std::string("JAX's allocator: ") + kJaxAllocators +
                     " (platform/address -> jax-platform, cuda_async -> jax-async; vmm is not emulated)"});
  } else if (IsTf(name)) {
    o.push_back({"tf_version", "", kDefaultTfVersion,
                 "TensorFlow release whose reserve rule applies: 2.0 to 2.4 (the larger of 300 MiB and 6 % of "
                 "free memory), 2.5 and later (by compute capability, and TF_DEVICE_MIN_SYS_MEMORY_IN_MB)"});
    o.push_back({"memory_fraction", "", "0",
                 "per_process_gpu_memory_fraction: limit = total x fraction; 0 = free memory minus the "
                 "reserve (MinSystemMemory)"});
    o.push_back({"min_sys_memory_mb", "TF_DEVICE_MIN_SYS_MEMORY_IN_MB", "",
                 "memory kept out of the pool, MiB: limit = free - this (ignored if above free; TF 2.5 on); "
                 "default by free memory and compute capability: 225 / 500 / 1050 / 1536 / 1800 MiB"});
    if (name == "tf") {
      o.push_back({"allow_growth", "TF_FORCE_GPU_ALLOW_GROWTH", "false",
                   "grow by regions of 2, 4, 8 MiB ... up to the limit instead of one region of the limit"});
    }
    o.push_back({"garbage_collection", "TF_ENABLE_GPU_GARBAGE_COLLECTION", "true",
                 "on an OOM, give wholly free regions back and extend once more"});
    o.push_back({"allocator", "TF_GPU_ALLOCATOR", "bfc",
                 std::string("TF's allocator: ") + kTfAllocators +
                     " (cuda_malloc_async -> tf-async, cuda_malloc -> one cudaMalloc per buffer; memory_guard is "
                     "not emulated)"});
  }
  return o;
}

bool CheckOptionKeys(const std::string& name, const PolicyConfig& config, std::string* error) {
  const std::vector<PolicyOption> known = Options(name);
  for (const auto& [key, value] : config.options) {
    bool ok = false;
    for (const PolicyOption& k : known) ok = ok || k.name == key;
    if (!ok) {
      std::string list;
      for (const PolicyOption& k : known) list += (list.empty() ? "" : ", ") + k.name;
      *error = "unknown option '" + key + "' for GPU policy '" + name + "' (valid: " + list + ")";
      return false;
    }
  }
  return true;
}

// Hands the policy to another family: keeps the environment and the explicit options that family knows.
bool Route(const std::string& target, PolicyFactory make, PolicyOptionsFn options, GpuDriver& driver,
           const PolicyConfig& config, std::unique_ptr<Policy>* out, std::string* error) {
  PolicyConfig routed;
  routed.env = config.env;
  const std::vector<PolicyOption> known = options(target);
  for (const auto& [key, value] : config.options) {
    for (const PolicyOption& k : known) {
      if (k.name == key) routed.options[key] = value;
    }
  }
  return make(target, driver, routed, out, error);
}

// ---------------------------------------------------------------------------------------------------
// The policy.

class BfcPolicy final : public Policy {
 public:
  BfcPolicy(std::string name, GpuDriver& driver, uint64_t limit, const BfcOptions& opts)
      : name_(std::move(name)), driver_(driver), alloc_(driver, limit, "GPU_0_bfc", opts) {}

  const char* name() const override { return name_.c_str(); }

  uint64_t Allocate(uint64_t bytes, uint64_t alignment, Oom* oom) override {
    const uint64_t ptr = alloc_.AllocateRaw(alignment, bytes);
    if (ptr != 0) return ptr;
    ++failed_;
    const BfcStats s = alloc_.GetStats();
    Oom o;
    o.request_bytes = bytes;
    o.rounded_bytes = BfcAllocator::RoundedBytes(bytes);
    o.live_bytes = s.bytes_in_use;
    o.reserved_bytes = s.pool_bytes;
    o.largest_free_block_bytes = s.largest_free_block_bytes;
    o.limit_bytes = s.bytes_limit;
    o.device_free_bytes = driver_.free_bytes();
    // What this process could get from the device: what is free there plus what the pool holds.
    o.kind = ClassifyOom(o.rounded_bytes, o.live_bytes, o.limit_bytes, o.device_free_bytes + s.pool_bytes);
    ooms_.Count(o.kind);
    // The BFC's own log line (bfc_allocator.cc:596-610) with its summary numbers, ending with the hint.
    o.message = "Allocator (" + alloc_.name() + ") ran out of memory trying to allocate " +
                HumanReadableNumBytes(bytes) + " (rounded to " + std::to_string(o.rounded_bytes) +
                "). Current allocation summary: bytes_in_use " + std::to_string(s.bytes_in_use) + ", pool_bytes " +
                std::to_string(s.pool_bytes) + ", bytes_limit " + std::to_string(s.bytes_limit) +
                ", largest_free_block_bytes " + std::to_string(s.largest_free_block_bytes) + ", regions " +
                std::to_string(alloc_.RegionCount()) +
                ". If this is caused by memory fragmentation, the environment variable "
                "'TF_GPU_ALLOCATOR=cuda_malloc_async' may improve the situation.";
    if (oom != nullptr) *oom = o;
    return 0;
  }

  void Deallocate(uint64_t ptr) override {
    if (alloc_.DeallocateRaw(ptr)) ++frees_;
  }

  PolicyStats Stats() const override {
    const BfcStats b = alloc_.GetStats();
    PolicyStats s;
    s.bytes_in_use = b.bytes_in_use;
    s.peak_bytes_in_use = b.peak_bytes_in_use;
    s.requested_bytes = b.requested_bytes;
    s.bytes_limit = b.bytes_limit;
    s.pool_bytes = b.pool_bytes;
    s.peak_pool_bytes = b.peak_pool_bytes;
    s.largest_free_block_bytes = b.largest_free_block_bytes;
    s.largest_alloc_size = b.largest_alloc_size;
    s.num_allocs = b.num_allocs;
    s.num_frees = frees_;
    s.num_failed_allocs = failed_;
    ooms_.CopyTo(&s);
    s.num_alloc_retries = alloc_.retries();
    s.segments = alloc_.RegionCount();
    s.fragmentation = alloc_.GetFragmentation();
    return s;
  }

  // tsl ClearStats (bfc_allocator.cc:1608-1614); our own counters restart too.
  void ResetPeak() override {
    alloc_.ClearStats();
    frees_ = failed_ = 0;
    ooms_ = {};
  }

 private:
  std::string name_;
  GpuDriver& driver_;
  BfcAllocator alloc_;
  uint64_t frees_ = 0, failed_ = 0;
  OomCounts ooms_;
};

// ---------------------------------------------------------------------------------------------------
// JAX: jaxlib/xla_client.py:170-219 -> se_gpu_pjrt_client.cc:1331-1375 -> gpu_helpers.cc:101-175.

bool MakeJax(const std::string& name, GpuDriver& driver, const PolicyConfig& config, std::unique_ptr<Policy>* out,
             std::string* error) {
  // The selector (xla_client.py:195-202; pjrt_c_api_gpu_internal.cc:134-167).
  if (auto a = Lookup(config, "allocator", "XLA_PYTHON_CLIENT_ALLOCATOR")) {
    const std::string& v = a->value;
    if (v == "platform" || v == "address") {
      return Route("jax-platform", MakePlatformPolicy, PlatformPolicyOptions, driver, config, out, error);
    }
    if (v == "cuda_async") return Route("jax-async", MakeAsyncPolicy, AsyncPolicyOptions, driver, config, out, error);
    if (v == "vmm") {
      *error = a->origin + "=vmm (XLA's VMM allocator) is not emulated; use default, bfc, platform or cuda_async";
      return false;
    }
    if (v != "default" && v != "bfc") {
      *error = a->origin + "='" + v + "' is not a valid allocator (allowed: " + kJaxAllocators + ")";
      return false;
    }
  }

  // Memory fraction: both variables set is JAX's ValueError (xla_client.py:182-190).
  std::optional<Setting> fraction_setting;
  if (auto it = config.options.find("mem_fraction"); it != config.options.end()) {
    fraction_setting = Setting{it->second, "option 'mem_fraction'"};
  } else {
    const auto now = Env(config, "XLA_CLIENT_MEM_FRACTION");
    const auto deprecated = Env(config, "XLA_PYTHON_CLIENT_MEM_FRACTION");
    if (now && deprecated) {
      *error =
          "ValueError: XLA_CLIENT_MEM_FRACTION and XLA_PYTHON_CLIENT_MEM_FRACTION are both set; "
          "XLA_PYTHON_CLIENT_MEM_FRACTION is deprecated, remove it";
      return false;
    }
    if (now) fraction_setting = Setting{*now, "XLA_CLIENT_MEM_FRACTION"};
    if (deprecated) fraction_setting = Setting{*deprecated, "XLA_PYTHON_CLIENT_MEM_FRACTION"};
  }
  JaxRelease release;
  if (!ReadJaxVersion(config.options, &release, error)) return false;
  XlaMemFraction fraction = DefaultXlaMemFraction(release);
  if (fraction_setting &&
      !ParseXlaMemFraction(fraction_setting->origin, fraction_setting->value, release, &fraction, error)) {
    return false;
  }

  // Preallocation (xla_gpu_allocator_config.h:62: default true).
  bool preallocate = name == "jax";
  if (name == "jax") {
    if (auto it = config.options.find("preallocate"); it != config.options.end()) {
      if (!ParseBool(it->second, &preallocate)) {
        *error = "option 'preallocate'='" + it->second + "' is not a boolean (true, false, 1, 0)";
        return false;
      }
    } else if (auto v = Env(config, "XLA_PYTHON_CLIENT_PREALLOCATE")) {
      preallocate = *v != "false" && *v != "False" && *v != "0";  // xla_client.py:211-212
    }
  }

  // limit = roundup(total x fraction, 2 MiB), of TOTAL memory (gpu_helpers.cc:137-155).
  const uint64_t total = driver.total_bytes();
  // Only the preallocated pool grows past START (xla_gpu_allocator_config.h: every other mode takes the start).
  const uint64_t limit = RoundUpGpuMemoryLimit(FractionOf(total, preallocate ? fraction.cap : fraction.start));
  BfcOptions opts;                   // tsl defaults: retry on, no GC, 128 MiB split threshold
  opts.allow_growth = !preallocate;  // gpu_helpers.cc:170
  if (fraction.flex && preallocate) {
    opts.allow_growth = true;
    opts.initial_region_bytes = RoundUpGpuMemoryLimit(FractionOf(total, fraction.start));
  }
  *out = std::make_unique<BfcPolicy>(name, driver, limit, opts);
  return true;
}

// ---------------------------------------------------------------------------------------------------
// TensorFlow: gpu_device.cc (SingleVirtualDeviceMemoryLimit, MinSystemMemory), gpu_process_state.cc
// (GetGPUAllocator), gpu_bfc_allocator.cc (GetAllowGrowthValue, GetGarbageCollectionValue).

bool MakeTf(const std::string& name, GpuDriver& driver, const PolicyConfig& config, std::unique_ptr<Policy>* out,
            std::string* error) {
  if (auto a = Lookup(config, "allocator", "TF_GPU_ALLOCATOR")) {
    const std::string& v = a->value;
    if (v == "cuda_malloc_async") {
      return Route("tf-async", MakeAsyncPolicy, AsyncPolicyOptions, driver, config, out, error);
    }
    if (v == "cuda_malloc") {
      // GPUcudaMallocAllocator: one cudaMalloc per buffer, the platform model under TF's name.
      return Route("tf-cuda-malloc", MakePlatformPolicy, PlatformPolicyOptions, driver, config, out, error);
    }
    if (v == "memory_guard") {
      *error = a->origin + "=memory_guard (TF's guard-band debug allocator) is not emulated";
      return false;
    }
    if (v != "bfc") {
      *error = a->origin + "='" + v + "' is not a valid allocator (allowed: " + kTfAllocators + ")";
      return false;
    }
  }

  // Memory limit.
  double fraction = 0;
  if (auto f = Lookup(config, "memory_fraction", nullptr)) {
    if (!ParseDouble(f->value, &fraction) || fraction < 0 || fraction > 1) {
      *error = f->origin + "='" + f->value +
               "' is not a valid per_process_gpu_memory_fraction (a number in [0, 1]; above 1 is unified memory, "
               "not emulated)";
      return false;
    }
  }
  TfRelease release;
  if (auto it = config.options.find("tf_version");
      it != config.options.end() && !ParseTfVersion(it->second, &release)) {
    *error = "option tf_version: '" + it->second + "' is not a TensorFlow release (2.MINOR, e.g. " + kDefaultTfVersion +
             " or 2.4)";
    return false;
  }
  const uint64_t total = driver.total_bytes();
  const uint64_t available = driver.free_bytes();
  uint64_t limit;
  if (fraction == 0) {
    // free - MinSystemMemory(free, cc), only if the reserve is below free.
    limit = available;
    const uint64_t reserve = TfMinSystemMemory(available, driver.cc_major(), release);
    if (reserve < limit) limit -= reserve;
  } else {
    limit = FractionOf(total, fraction);  // of TOTAL
  }
  // TF_DEVICE_MIN_SYS_MEMORY_IN_MB (2.5 on) overrides the reserve, and the fraction too; ignored when above free.
  // Up to 2.4 TensorFlow never read the variable, so neither does the policy; the option, asked for explicitly,
  // is refused.
  if (!release.fixed_reserve) {
    if (auto it = config.options.find("min_sys_memory_mb"); it != config.options.end()) {
      *error = "option min_sys_memory_mb (TF_DEVICE_MIN_SYS_MEMORY_IN_MB) came with TensorFlow 2.5; tf_version=" +
               release.text + " has no such setting";
      return false;
    }
  } else if (auto r = Lookup(config, "min_sys_memory_mb", "TF_DEVICE_MIN_SYS_MEMORY_IN_MB")) {
    uint64_t mb = 0, reserved = 0;
    if (!cli::ParseDecimal(r->value, 0, UINT64_MAX, &mb) || !cli::MultiplyChecked(mb, kMiB, &reserved)) {
      *error = r->origin + "='" + r->value + "' is not a valid reserved device memory (whole MiB, >= 0, below 2^44)";
      return false;
    }
    if (reserved <= available) limit = available - reserved;
  }

  // allow_growth: the option (default false), TF_FORCE_GPU_ALLOW_GROWTH=true|false overriding it
  // (GetAllowGrowthValue); tf-growth is growth by name.
  bool allow_growth = name == "tf-growth";
  if (name == "tf") {
    if (auto it = config.options.find("allow_growth"); it != config.options.end()) {
      if (!ParseBool(it->second, &allow_growth)) {
        *error = "option 'allow_growth'='" + it->second + "' is not a boolean (true, false, 1, 0)";
        return false;
      }
    } else if (auto v = Env(config, "TF_FORCE_GPU_ALLOW_GROWTH")) {
      if (*v == "true") {
        allow_growth = true;
      } else if (*v == "false") {
        allow_growth = false;
      } else {
        *error = "The TF_FORCE_GPU_ALLOW_GROWTH environment variable is set but could not be parsed: \"" + *v +
                 "\". Valid values are \"true\" or \"false\".";
        return false;
      }
    }
  }

  // garbage_collection: default true unless TF_ENABLE_GPU_GARBAGE_COLLECTION=false (GetGarbageCollectionValue).
  bool gc = true;
  if (auto g = Lookup(config, "garbage_collection", "TF_ENABLE_GPU_GARBAGE_COLLECTION")) {
    if (!ParseBool(g->value, &gc)) {
      *error = g->origin + "='" + g->value + "' is not a boolean (true, false, 1, 0)";
      return false;
    }
  }

  BfcOptions opts;
  opts.allow_growth = allow_growth;
  opts.garbage_collection = gc;
  opts.allow_retry_on_failure = true;  // !disallow_retry_on_allocation_failure (default false)
  opts.fragmentation_fraction = 0;     // internal_fragmentation_fraction (default 0)
  *out = std::make_unique<BfcPolicy>(name, driver, limit, opts);
  return true;
}

}  // namespace

bool ParseJaxVersion(const std::string& s, JaxRelease* out) {
  JaxRelease r;
  r.text = s;
  if (s == "next") {
    r.start_cap_grammar = true;
    *out = r;
    return true;
  }
  // MAJOR.MINOR or MAJOR.MINOR.PATCH, 0.6 to 0.10: the releases whose jaxlib/xla_client.py was read (the first
  // in the JAX repository is 0.6; 0.10.2 is the newest this project pins).
  const size_t dot = s.find('.');
  if (dot == std::string::npos) return false;
  const size_t dot2 = s.find('.', dot + 1);
  uint64_t major = 0, minor = 0, patch = 0;
  if (!cli::ParseDecimal(s.substr(0, dot), 0, 99, &major) ||
      !cli::ParseDecimal(s.substr(dot + 1, dot2 == std::string::npos ? std::string::npos : dot2 - dot - 1), 0, 999,
                         &minor) ||
      (dot2 != std::string::npos && !cli::ParseDecimal(s.substr(dot2 + 1), 0, 999, &patch))) {
    return false;
  }
  if (major != 0 || minor < 6 || minor > 10) return false;
  *out = r;
  return true;
}

bool ReadJaxVersion(const std::map<std::string, std::string>& options, JaxRelease* out, std::string* error) {
  auto it = options.find("jax_version");
  if (it == options.end() || ParseJaxVersion(it->second, out)) return true;
  *error = "option jax_version: '" + it->second + "' is not a JAX release whose rules Strata has read (0.6 to " +
           "0.10 as MAJOR.MINOR[.PATCH], e.g. " + kDefaultJaxVersion + ", or next for XLA's unreleased rules)";
  return false;
}

XlaMemFraction DefaultXlaMemFraction(const JaxRelease& release) {
  XlaMemFraction f;  // 0.75 (GpuAllocatorConfig::memory_fraction)
  if (release.start_cap_grammar) {
    f.cap = 1.0;  // a bare 0.75 grows to all memory
    f.flex = true;
  }
  return f;
}

// A released JAX: a plain number (float() in xla_client.py), a fixed cap. next: START or START-CAP (see the file
// comment); jax-async reads the same (async_policy.cc).
bool ParseXlaMemFraction(const std::string& origin, const std::string& value, const JaxRelease& release,
                         XlaMemFraction* out, std::string* error) {
  const std::string expected =
      release.start_cap_grammar
          ? "expected START or START-CAP, fractions of total memory in (0, 1], e.g. 0.75, 0.5-0.9, 0.75-0.75"
          : "expected a number in (0, 1], e.g. 0.75; JAX " + release.text +
                " converts it with float(), so START-CAP forms are refused (they are XLA's unreleased grammar: "
                "jax_version=next)";
  auto bad = [&](const std::string& why) {
    *error = origin + "='" + value + "' is not a valid memory fraction (" + why + "; " + expected + ")";
    return false;
  };
  const std::string& v = value;
  XlaMemFraction f;
  const size_t dash = release.start_cap_grammar ? v.find('-', 1) : std::string::npos;
  if (dash == std::string::npos) {
    if (!ParseDouble(v, &f.start)) return bad("not a number");
    if (!(f.start > 0 && f.start <= 1)) return bad("out of range");
    f.cap = f.start;
    if (release.start_cap_grammar && f.start < 1) {
      f.cap = 1.0;  // a bare fraction below 1: preallocate it, grow to all memory
      f.flex = true;
    }
  } else {
    if (!ParseDouble(v.substr(0, dash), &f.start) || !ParseDouble(v.substr(dash + 1), &f.cap)) {
      return bad("not a number");
    }
    if (!(f.start > 0 && f.start <= 1 && f.cap > 0)) return bad("out of range");
    if (f.cap < f.start) return bad("the cap must be at least the start");
    if (f.cap > 1) return bad("a growth cap cannot exceed 1, all of device memory");
    f.flex = f.cap > f.start;  // S-S: a fixed cap, the pool never grows
  }
  *out = f;
  return true;
}

bool MakeBfcPolicy(const std::string& name, GpuDriver& driver, const PolicyConfig& config, std::unique_ptr<Policy>* out,
                   std::string* error) {
  if (!IsJax(name) && !IsTf(name)) {
    *error = "'" + name + "' is not a BFC policy (jax, jax-growth, tf, tf-growth)";
    return false;
  }
  if (!CheckOptionKeys(name, config, error)) return false;
  return IsJax(name) ? MakeJax(name, driver, config, out, error) : MakeTf(name, driver, config, out, error);
}

std::vector<PolicyOption> BfcPolicyOptions(const std::string& name) { return Options(name); }

}  // namespace strata::gpu
