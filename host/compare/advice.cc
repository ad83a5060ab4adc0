#include "advice.h"

#include <algorithm>
#include <cstdio>

#include "families.h"
#include "text.h"
#include "tf_memory.h"

namespace strata::compare {
namespace {

constexpr uint32_t kGranule = 256;  // Strata's granule: the max load as strata-compare reads it

std::string Fixed(double x, int digits) {
  char b[32];
  std::snprintf(b, sizeof b, "%.*f", digits, x);
  return b;
}

bool IsJax(const std::string& c) { return c.rfind("jax", 0) == 0; }
bool IsTf(const std::string& c) { return c.rfind("tf", 0) == 0; }
bool IsTorch(const std::string& c) { return c.rfind("torch", 0) == 0; }

// What the device gives a process: Strata has no CUDA context.
uint64_t Usable(const devices::Device& d) { return d.total_bytes - d.context_bytes; }

Setting Plain(const std::string& contender, const std::string& line, int tier) { return {contender, {}, line, tier}; }

}  // namespace

bool FindContender(const std::string& name, Contender* out) {
  for (const Contender& c : AllContenders()) {
    if (c.name == name) {
      *out = c;
      return true;
    }
  }
  return false;
}

bool BisectSetting(int bad, int good, const std::function<bool(int, bool*)>& at, int* boundary, bool* found) {
  bool ok = false;
  *found = false;
  if (!at(good, &ok)) return false;
  if (!ok) return true;
  while (good - bad > 1 || bad - good > 1) {
    const int mid = bad + (good - bad) / 2;
    if (!at(mid, &ok)) return false;
    (ok ? good : bad) = mid;
  }
  *boundary = good;
  *found = true;
  return true;
}

bool Cheaper(const Setting& sa, const Outcome& a, const Setting& sb, const Outcome& b) {
  if (sa.tier != sb.tier) return sa.tier < sb.tier;
  if (a.bytes_moved != b.bytes_moved) return a.bytes_moved < b.bytes_moved;
  if (a.syncs != b.syncs) return a.syncs < b.syncs;
  if (a.peak_reserved_bytes != b.peak_reserved_bytes) return a.peak_reserved_bytes < b.peak_reserved_bytes;
  return a.device_calls < b.device_calls;
}

bool RunSetting(const replay::Trace& trace, const Setting& setting, const devices::Device& device,
                const std::map<std::string, std::string>& gpu_options, bool record, Outcome* out, std::string* error) {
  Contender c;
  if (!FindContender(setting.contender, &c)) {
    *error = "unknown contender '" + setting.contender + "'";
    return false;
  }
  Options o;
  // torch_version is an option of the torch policies only, jax_version of the jax policies that read a fraction.
  for (const auto& [k, v] : gpu_options) {
    if (k == "torch_version" && !IsTorch(c.name)) continue;
    if (k == "jax_version" && (c.name.rfind("jax", 0) != 0 || c.name == "jax-platform")) continue;
    if (k == "tf_version" && c.name != "tf" && c.name != "tf-growth") continue;  // the BFC's reserve rule
    o.gpu_options[k] = v;
  }
  for (const auto& [k, v] : setting.options) o.gpu_options[k] = v;
  // The GPU's own preset for what the policies read of it beyond its memory (TensorFlow's reserve rule reads the
  // compute capability); its total and context are passed as the capacity.
  if (!c.strata && device.kind == devices::Kind::kGpu && devices::Find(device.name) != nullptr) {
    o.gpu_options["gpu"] = device.name;
  }
  o.search = false;
  o.occupancy = false;
  const uint64_t capacity = c.strata ? Usable(device) : device.total_bytes;
  Run run;
  Outcome r;
  // JAX's Defragment() that cannot place every buffer again ends the run, as it ends the JAX program: a failure of the
  // workload on this device, not of the tool. The runner hears it as strata_compact's STRATA_DATA_LOSS and stops the
  // run there (RunResult::stopped), a fragmentation OOM at that event; so a failure here is the tool's.
  if (!RunContender(trace, c, capacity, c.strata ? 0 : device.context_bytes, record, o, &run, error)) return false;
  r.completed = run.completed();
  r.failed_allocs = run.failed_allocs;
  r.kind = run.first_oom.kind;
  r.first_event = run.first_oom.event;
  r.first_buffer = run.first_oom.buffer_id;
  r.request_bytes = run.first_oom.request_bytes;
  r.live_bytes = run.first_oom.live_bytes;
  r.reserved_at_oom_bytes = run.first_oom.reserved_bytes;
  r.largest_free_bytes = run.first_oom.largest_free_bytes;
  r.message = run.first_oom.message;
  r.peak_reserved_bytes = run.peak_reserved_bytes;
  r.device_calls = run.cost.device_allocs + run.cost.device_frees + run.cost.maps + run.cost.unmaps;
  r.syncs = run.cost.device_syncs + run.cost.stream_syncs;
  r.bytes_moved = run.cost.bytes_moved + run.cost.host_bytes_copied;
  *out = r;
  return true;
}

std::vector<Setting> Candidates(const std::string& contender, uint64_t least_split_mb) {
  std::vector<Setting> s;
  if (IsJax(contender)) {
    s.push_back(Plain("jax", "XLA_PYTHON_CLIENT_PREALLOCATE=true XLA_PYTHON_CLIENT_ALLOCATOR=bfc (the defaults)", 1));
    s.push_back(Plain("jax-growth", "XLA_PYTHON_CLIENT_PREALLOCATE=false", 1));
    s.push_back(Plain("jax-platform", "XLA_PYTHON_CLIENT_ALLOCATOR=platform", 1));
    s.push_back(Plain("jax-async", "XLA_PYTHON_CLIENT_ALLOCATOR=cuda_async", 1));
    // Defragment() on the failing allocator's own settings (growth stays growth).
    Setting defrag = Plain("jax+defrag", "backend.defragment() on the OOM, then retry (JAX's Defragment())", 2);
    if (contender == "jax-growth") {
      defrag.options["preallocate"] = "false";
      defrag.line = "XLA_PYTHON_CLIENT_PREALLOCATE=false and " + defrag.line;
    }
    s.push_back(defrag);
  } else if (IsTf(contender)) {
    s.push_back(Plain("tf", "TF_FORCE_GPU_ALLOW_GROWTH=false TF_GPU_ALLOCATOR unset (the defaults)", 1));
    s.push_back(Plain("tf-growth", "TF_FORCE_GPU_ALLOW_GROWTH=true", 1));
    s.push_back(Plain("tf-async", "TF_GPU_ALLOCATOR=cuda_malloc_async", 1));
  } else if (IsTorch(contender)) {
    // From the least value the release accepts (20 from PyTorch 2.9, 21 before) up, doubling from 32.
    for (uint64_t mb : {least_split_mb, uint64_t{32}, uint64_t{64}, uint64_t{128}, uint64_t{256}, uint64_t{512},
                        uint64_t{1024}, uint64_t{2048}}) {
      s.push_back({"torch",
                   {{"max_split_size_mb", std::to_string(mb)}},
                   "PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:" + std::to_string(mb),
                   contender == "torch" ? 0 : 1});
    }
    s.push_back(Plain("torch", "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False (the default)", 1));
    s.push_back(Plain("torch-expandable", "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True", 1));
    for (const char* base : {"torch", "torch-expandable"}) {
      for (int divs : {4, 8}) {
        s.push_back({base,
                     {{"roundup_power2_divisions", std::to_string(divs)}},
                     std::string("PYTORCH_CUDA_ALLOC_CONF=") +
                         (std::string(base) == "torch" ? "" : "expandable_segments:True,") +
                         "roundup_power2_divisions:" + std::to_string(divs),
                     base == contender ? 0 : 1});
      }
    }
  } else if (contender == "strata-no-compact") {
    s.push_back(Plain("strata", "--compaction on-oom (Strata's on-device compaction, HBM->HBM)", 2));
  }
  // Never the failing setting itself.
  s.erase(std::remove_if(s.begin(), s.end(),
                         [&](const Setting& x) { return x.contender == contender && x.options.empty(); }),
          s.end());
  return s;
}

bool FindFix(const replay::Trace& trace, const std::string& contender, const devices::Device& device,
             const std::map<std::string, std::string>& gpu_options, Fix* fix, std::string* error) {
  Fix f;
  f.needed = true;
  const uint64_t peak = replay::MaxLoad(trace, kGranule);
  if (peak > Usable(device)) {
    f.capacity = true;
    f.why = std::string(kNoSettingHelps) + "the workload needs " + tool::HumanBytes(peak) +
            " at peak, the device has " + tool::HumanBytes(Usable(device)) +
            (device.context_bytes ? " (" + tool::HumanBytes(device.total_bytes) + " less its CUDA context of " +
                                        tool::HumanBytes(device.context_bytes) + ")"
                                  : std::string());
    *fix = f;
    return true;
  }
  auto consider = [&](const Setting& s, bool* completed) {
    Outcome r;
    ++f.tried;
    // Without the per-event record: completion, peak reserved and the costs are all a setting is judged by.
    if (!RunSetting(trace, s, device, gpu_options, false, &r, error)) return false;
    *completed = r.completed;
    if (!r.completed) return true;
    f.alternatives.emplace_back(s, r);
    if (!f.found || Cheaper(s, r, f.setting, f.outcome)) {
      f.found = true;
      f.setting = s;
      f.outcome = r;
    }
    return true;
  };
  bool ok = false;
  uint64_t least_split_mb = 0;
  if (!gpu::LeastMaxSplitSizeMb(gpu_options, &least_split_mb, error)) return false;
  for (const Setting& s : Candidates(contender, least_split_mb)) {
    if (!consider(s, &ok)) return false;
  }
  // The fraction JAX's BFC may take: the least that completes, searched in hundredths above the default 0.75.
  if (contender == "jax" || contender == "jax-growth" || contender == "jax+defrag") {
    const std::string base = contender == "jax+defrag" ? "jax" : contender;
    auto at = [&](int percent, bool* done) {
      const std::string f2 = Fixed(percent / 100.0, 2);
      // The variable the policy table names for the fraction (XLA_CLIENT_MEM_FRACTION), not a second spelling.
      return consider({base, {{"mem_fraction", f2}}, gpu::PolicyOptionVariable(base, "mem_fraction") + "=" + f2}, done);
    };
    int least = 0;
    bool any = false;
    if (!BisectSetting(75, 100, at, &least, &any)) return false;  // 0.75 fails (the default)
  }
  // TensorFlow's reserve (TF_DEVICE_MIN_SYS_MEMORY_IN_MB, 2.5 on): the largest that completes, in MiB below 2048.
  gpu::TfRelease tf_release;
  if (auto it = gpu_options.find("tf_version"); it != gpu_options.end()) gpu::ParseTfVersion(it->second, &tf_release);
  if ((contender == "tf" || contender == "tf-growth") && device.kind == devices::Kind::kGpu &&
      tf_release.fixed_reserve) {
    auto at = [&](int mb, bool* done) {
      return consider({contender,
                       {{"min_sys_memory_mb", std::to_string(mb)}},
                       "TF_DEVICE_MIN_SYS_MEMORY_IN_MB=" + std::to_string(mb) +
                           (contender == "tf-growth" ? " TF_FORCE_GPU_ALLOW_GROWTH=true" : "")},
                      done);
    };
    int largest = 0;
    bool any = false;
    if (!BisectSetting(2048, 0, at, &largest, &any)) return false;  // 2048 MiB fails (above every default)
  }
  if (f.found) {
    const Outcome& r = f.outcome;
    f.why = f.setting.line + "  (reserved " + tool::HumanBytes(r.peak_reserved_bytes) + ", " +
            std::to_string(r.device_calls) + " device calls, " + std::to_string(r.syncs) + " syncs, " +
            tool::HumanBytes(r.bytes_moved) + " moved)";
  } else {
    f.why = "no setting of " +
            std::string(IsJax(contender)     ? "JAX"
                        : IsTf(contender)    ? "TensorFlow"
                        : IsTorch(contender) ? "PyTorch"
                                             : "Strata") +
            " tried completes (" + std::to_string(f.tried) + " tried)";
  }
  *fix = f;
  return true;
}

}  // namespace strata::compare
