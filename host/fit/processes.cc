// Several framework processes on one GPU: who fails, when and why, and the fractions that let all complete.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "compare.h"
#include "fit.h"
#include "json_lines.h"
#include "numbers.h"
#include "policy.h"
#include "text.h"

namespace strata::fit {
namespace {

std::string Hundredths(int p) {
  char b[16];
  std::snprintf(b, sizeof b, "%d.%02d", p / 100, p % 100);
  return b;
}

// The line a user writes for a fraction of `policy`.
std::string FractionLine(const std::string& policy, const std::string& value) {
  if (policy.rfind("jax", 0) == 0) return gpu::PolicyOptionVariable("jax", "mem_fraction") + "=" + value;
  if (policy.rfind("tf", 0) == 0) return "tf.compat.v1.GPUOptions(per_process_gpu_memory_fraction=" + value + ")";
  return "torch.cuda.set_per_process_memory_fraction(" + value + ")";
}

std::vector<ProcessOutcome> Outcomes(const std::vector<compare::TenantSpec>& specs, const compare::Run& run) {
  std::vector<ProcessOutcome> out;
  for (size_t i = 0; i < specs.size(); ++i) {
    const compare::TenantResult& t = run.tenants[i];
    ProcessOutcome o;
    o.name = std::to_string(i + 1) + ": " + t.name;
    o.policy = specs[i].policy;
    o.options = specs[i].options;
    o.context_bytes = specs[i].context_bytes;
    o.allocs = t.allocs;
    o.failed_allocs = t.failed_allocs;
    o.kind = t.first_oom.kind;
    o.first_event = t.first_oom.event;
    o.request_bytes = t.first_oom.request_bytes;
    o.message = t.first_oom.message;
    out.push_back(o);
  }
  return out;
}

bool AllComplete(const std::vector<ProcessOutcome>& v) {
  return std::all_of(v.begin(), v.end(), [](const ProcessOutcome& o) { return o.failed_allocs == 0; });
}

}  // namespace

std::string FractionOption(const std::string& policy) {
  if (policy == "jax" || policy == "jax-growth") return "mem_fraction";
  if (policy == "jax-async" || policy.rfind("tf", 0) == 0 || policy.rfind("torch", 0) == 0) return "memory_fraction";
  return "";  // jax-platform: no pool, nothing to limit
}

// A Strata contender (compare's table): its processes are contexts on a Strata device.
bool IsStrata(const std::string& policy) {
  compare::Contender c;
  return compare::FindContender(policy, &c) && c.strata;
}

// Contexts on one Strata device with the memory a process gets on `device` (as strata-fit's strata column): who
// fails under the quotas given, then the solve: each context's least quota is its workload's max load (the runtime's
// rule: an allocation fails when its rounded size exceeds the quota less the context's bytes in use), and all
// together with those.
bool FitContexts(const std::vector<Process>& processes, const devices::Device& device, ProcessReport* report,
                 std::string* error) {
  compare::Contender contender;
  compare::FindContender(processes.front().policy, &contender);
  const bool compaction = contender.compaction;
  ProcessReport r;
  r.device = std::string(device.name) + " as a Strata device";
  r.total_bytes = device.total_bytes - device.context_bytes;
  r.strata = true;
  std::vector<compare::TenantSpec> specs;
  for (size_t i = 0; i < processes.size(); ++i) {
    const Process& p = processes[i];
    if (p.policy != processes.front().policy) {
      *error = "--process: Strata's contexts share one device and one compaction setting: every process is " +
               processes.front().policy + " (process " + std::to_string(i + 1) + " is " + p.policy + ")";
      return false;
    }
    compare::TenantSpec t;
    t.policy = p.policy;
    t.workload = p.workload;
    t.trace = p.trace;
    for (const auto& [key, value] : p.options) {
      if (key != "quota" || !cli::ParseDecimal(value, 1, r.total_bytes, &t.quota_bytes)) {
        *error = "--process " + p.policy + ":" + p.workload + ": '" + key + "=" + value +
                 "': a Strata context takes quota=BYTES (1 to " + std::to_string(r.total_bytes) + ")";
        return false;
      }
    }
    specs.push_back(std::move(t));
  }
  auto outcomes = [&](const std::vector<compare::TenantSpec>& v, const compare::Run& run, bool lines) {
    std::vector<ProcessOutcome> out = Outcomes(v, run);
    for (size_t i = 0; i < out.size(); ++i) {
      const uint64_t quota = run.tenants[i].quota_bytes;
      out[i].options = {{"quota", std::to_string(quota)}};
      if (lines) {
        out[i].line =
            "strata_context_options.quota_bytes = " + std::to_string(quota) + " (" + tool::HumanBytes(quota) + ")";
      }
    }
    return out;
  };
  compare::Run run;
  if (!compare::RunStrataTenants(specs, r.total_bytes, compaction, &run, error)) return false;
  r.given = outcomes(specs, run, false);
  r.all_complete = AllComplete(r.given);
  std::vector<compare::TenantSpec> solved = specs;
  for (compare::TenantSpec& t : solved) t.quota_bytes = 0;  // its max load
  compare::Run together;
  if (!compare::RunStrataTenants(solved, r.total_bytes, compaction, &together, error)) return false;
  r.solution = outcomes(solved, together, true);
  r.solved = AllComplete(r.solution);
  if (!r.solved) {
    r.why = "each context's quota is its workload's peak, and together they still do not complete on " +
            tool::HumanBytes(r.total_bytes) + (compaction ? "" : " without compaction");
  }
  *report = r;
  return true;
}

bool FitProcesses(const std::vector<Process>& processes, const devices::Device& device, const Options& options,
                  ProcessReport* report, std::string* error) {
  const bool strata = IsStrata(processes.front().policy);
  for (size_t i = 0; i < processes.size(); ++i) {
    if (IsStrata(processes[i].policy) != strata) {
      *error = "--process: Strata's contexts and GPU framework processes do not share a device (process " +
               std::to_string(i + 1) + " is " + processes[i].policy + ")";
      return false;
    }
  }
  if (strata) return FitContexts(processes, device, report, error);
  if (device.kind != devices::Kind::kGpu) {
    *error = "--process runs framework processes on a GPU; " + std::string(device.name) + " is a TPU";
    return false;
  }
  ProcessReport r;
  r.device = device.name;
  r.total_bytes = device.total_bytes;
  r.context_bytes = device.context_bytes;
  std::vector<compare::TenantSpec> specs;
  for (const Process& p : processes) {
    compare::TenantSpec t;
    t.policy = p.policy;
    t.workload = p.workload;
    t.trace = p.trace;
    t.options = p.options;
    t.context_bytes = device.context_bytes;
    specs.push_back(std::move(t));
  }
  compare::Options o;
  o.gpu_options = options.gpu_options;
  compare::Run run;
  if (!compare::RunGpuTenants(specs, device.total_bytes, o, &run, error)) return false;
  r.given = Outcomes(specs, run);
  r.all_complete = AllComplete(r.given);

  // The solve: each process's least fraction (in hundredths of the GPU's total) with which it completes alone on
  // this GPU, then all of them together with those fractions.
  std::vector<compare::TenantSpec> solved = specs;
  int sum = 0;
  for (size_t i = 0; i < processes.size(); ++i) {
    const std::string option = FractionOption(processes[i].policy);
    if (option.empty()) continue;
    auto alone = [&](int percent, bool* ok) {
      Setting s{processes[i].policy, processes[i].options, ""};
      s.options[option] = Hundredths(percent);
      Outcome out;
      if (!RunSetting(processes[i].trace, s, device, options.gpu_options, false, &out, error)) return false;
      *ok = out.completed;
      return true;
    };
    int hi = 0;
    bool found = false;
    if (!BisectSetting(0, 100, alone, &hi, &found)) return false;
    if (!found) {
      r.why = "process " + std::to_string(i + 1) + " (" + processes[i].policy + ") does not complete even alone on " +
              device.name + " with all of it";
      *report = r;
      return true;
    }
    solved[i].options[option] = Hundredths(hi);
    sum += hi;
  }
  compare::Run together;
  if (!compare::RunGpuTenants(solved, device.total_bytes, o, &together, error)) return false;
  r.solution = Outcomes(solved, together);
  for (size_t i = 0; i < processes.size(); ++i) {
    const std::string option = FractionOption(processes[i].policy);
    r.solution[i].line =
        option.empty() ? "(no pool to limit: as given)" : FractionLine(processes[i].policy, solved[i].options[option]);
  }
  r.solved = AllComplete(r.solution);
  if (!r.solved) {
    r.why = "each process completes alone with the fractions below (together " + std::to_string(sum) +
            "% of the GPU, and a CUDA context each), but not all together";
  }
  *report = r;
  return true;
}

std::string ProcessesText(const ProcessReport& r) {
  std::string out = r.strata ? std::to_string(r.given.size()) + " contexts on " + r.device + " (" +
                                   tool::HumanBytes(r.total_bytes) + ", a quota each, started in this order):\n"
                             : std::to_string(r.given.size()) + " processes on " + r.device + " (" +
                                   tool::HumanBytes(r.total_bytes) + ", a CUDA context of " +
                                   tool::HumanBytes(r.context_bytes) + " each, started in this order):\n";
  auto list = [&](const std::vector<ProcessOutcome>& v, bool lines) {
    for (const ProcessOutcome& p : v) {
      out += "  " + tool::Printable(p.name) + ": " +
             (p.failed_allocs == 0 ? "completes"
                                   : "fails (" + p.kind + " at event " + std::to_string(p.first_event) + ", " +
                                         std::to_string(p.failed_allocs) + " of " + std::to_string(p.allocs) +
                                         " allocations; " + tool::HumanBytes(p.request_bytes) + " asked)");
      if (lines) out += "  <- " + p.line;
      out += "\n";
    }
  };
  list(r.given, false);
  if (r.all_complete) out += "all complete as given\n";
  if (r.solved) {
    out += "with these settings all complete:\n";
    list(r.solution, true);
  } else if (!r.why.empty()) {
    out += "no solve: " + r.why + "\n";
    if (!r.solution.empty()) list(r.solution, true);
  }
  return out;
}

std::string ProcessesJson(const ProcessReport& r) {
  auto list = [](const std::vector<ProcessOutcome>& v) {
    replay::Json a = replay::Json::array();
    for (const ProcessOutcome& p : v) {
      a.push_back(
          {{"name", p.name},
           {"policy", p.policy},
           {"options", p.options},
           {"line", p.line},
           {"context_bytes", p.context_bytes},
           {"allocs", p.allocs},
           {"failed_allocs", p.failed_allocs},
           {"first_oom",
            {{"kind", p.kind}, {"event", p.first_event}, {"request_bytes", p.request_bytes}, {"message", p.message}}}});
    }
    return a;
  };
  replay::Json j;
  j["tool"] = "strata-fit";
  j["version"] = 1;
  j["device"] = r.device;
  j["total_bytes"] = r.total_bytes;
  j["context_bytes"] = r.context_bytes;
  j["strata"] = r.strata;
  j["processes"] = list(r.given);
  j["all_complete"] = r.all_complete;
  j["solved"] = r.solved;
  j["solution"] = list(r.solution);
  j["why"] = r.why;
  return tool::JsonLine(j) + "\n";
}

}  // namespace strata::fit
