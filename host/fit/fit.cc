#include "fit.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "compare.h"
#include "json_lines.h"
#include "text.h"

namespace strata::fit {
namespace {

constexpr uint32_t kGranule = 256;  // Strata's granule: the max load as strata-compare reads it

bool IsTf(const std::string& c) { return c.rfind("tf", 0) == 0; }

// The least device total at which `setting` completes: compare's capacity search over what the process can use
// (above the CUDA context), the device's other properties kept.
bool MinTotalBytes(const replay::Trace& trace, const Setting& setting, const devices::Device& device,
                   const Options& options, bool* found, uint64_t* bytes, std::string* error) {
  compare::Options o;
  o.resolution = options.resolution;
  compare::MinCapacity m;
  devices::Device probe = device;
  auto completes = [&](uint64_t usable, bool* ok, std::string* e) {
    probe.total_bytes = usable + device.context_bytes;
    Outcome r;
    if (!RunSetting(trace, setting, probe, options.gpu_options, false, &r, e)) return false;
    *ok = r.completed;
    return true;
  };
  if (!compare::SearchCapacity(replay::MaxLoad(trace, kGranule), o, completes, &m, error)) return false;
  *found = m.found;
  *bytes = m.bytes + device.context_bytes;
  return true;
}

}  // namespace

bool Fit(const replay::Trace& unpadded, const std::string& source, const Options& options, Report* report,
         std::string* error) {
  const auto t0 = std::chrono::steady_clock::now();
  Report r;
  r.workload = unpadded.name;
  r.source = source;
  r.buffers = unpadded.buffers.size();
  r.max_load_bytes = replay::MaxLoad(unpadded, kGranule);
  if (options.tpu_trace != nullptr) r.tpu_max_load_bytes = replay::MaxLoad(*options.tpu_trace, kGranule);
  if (options.devices.empty()) {
    for (const devices::Device& d : devices::All()) {
      if (d.common) r.devices.push_back(&d);
    }
  } else {
    for (const std::string& name : options.devices) {
      const devices::Device* d = devices::Find(name);
      if (d == nullptr) {
        *error = "unknown device '" + name + "' (" + devices::Names() + ")";
        return false;
      }
      r.devices.push_back(d);
    }
  }
  if (options.contenders.empty()) {
    for (const compare::Contender& c : compare::AllContenders()) r.contenders.push_back(c.name);
  } else {
    for (const std::string& name : options.contenders) {
      compare::Contender known;
      if (!compare::FindContender(name, &known)) {
        std::string names;
        for (const compare::Contender& c : compare::AllContenders()) names += (names.empty() ? "" : ", ") + c.name;
        *error = "unknown policy '" + name + "' (" + names + ")";
        return false;
      }
      r.contenders.push_back(name);
    }
  }
  // The minimum total depends on the device only through its context and, for TensorFlow, its compute capability.
  std::map<std::string, std::pair<bool, uint64_t>> min_cache;
  for (const devices::Device* d : r.devices) {
    const bool tpu = d->kind == devices::Kind::kTpu;
    // A TPU holds the padded buffers; the GPUs the ones XLA's GPU-agnostic plan gives.
    const replay::Trace& trace = tpu && options.tpu_trace != nullptr ? *options.tpu_trace : unpadded;
    for (const std::string& c : r.contenders) {
      Cell cell;
      cell.device = d->name;
      cell.contender = c;
      const Setting plain{c, {}, ""};
      if (!RunSetting(trace, plain, *d, options.gpu_options, true, &cell.outcome, error)) {
        *error = std::string(d->name) + " / " + c + ": " + *error;
        return false;
      }
      if (options.search) {
        const std::string key = c + "|" + std::to_string(d->context_bytes) + "|" + (&trace == &unpadded ? "" : "tpu") +
                                "|" + (IsTf(c) && d->kind == devices::Kind::kGpu ? std::to_string(d->cc_major) : "");
        auto it = min_cache.find(key);
        if (it == min_cache.end()) {
          std::pair<bool, uint64_t> v;
          if (!MinTotalBytes(trace, plain, *d, options, &v.first, &v.second, error)) {
            *error = std::string(d->name) + " / " + c + " (capacity search): " + *error;
            return false;
          }
          it = min_cache.emplace(key, v).first;
        }
        cell.min_found = it->second.first;
        cell.min_total_bytes = it->second.second;
        if (cell.min_found && cell.min_total_bytes > 0) {
          cell.headroom = static_cast<double>(d->total_bytes) / static_cast<double>(cell.min_total_bytes);
        }
      }
      compare::Contender contender;
      compare::FindContender(c, &contender);
      if (!cell.outcome.completed && options.fixes && tpu && !contender.strata) {
        // A GPU framework's settings do not reach a TPU: XLA plans TPU memory when it compiles (docs/fit.md).
        cell.fix.needed = true;
        cell.fix.capacity = replay::MaxLoad(trace, kGranule) > d->total_bytes;
        cell.fix.why = cell.fix.capacity
                           ? std::string(compare::kNoSettingHelps) + "the workload needs " +
                                 tool::HumanBytes(replay::MaxLoad(trace, kGranule)) + " at peak, the TPU has " +
                                 tool::HumanBytes(d->total_bytes)
                           : "a GPU setting does not apply on a TPU (XLA plans TPU memory when it compiles): the "
                             "strata rows are this column's online answer";
      } else if (!cell.outcome.completed && options.fixes) {
        if (!FindFix(trace, c, *d, options.gpu_options, &cell.fix, error)) {
          *error = std::string(d->name) + " / " + c + " (settings): " + *error;
          return false;
        }
      }
      if (options.progress) {
        options.progress(std::string(d->name) + " / " + c + (cell.outcome.completed ? ": fits" : ": fails"));
      }
      r.cells.push_back(std::move(cell));
    }
  }
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  *report = std::move(r);
  return true;
}

}  // namespace strata::fit
