// Prints every table of names a user picks from (host/tool/names.h) as one JSON object per line, straight from the
// C++ tables: check_name_tables.py holds each tool's help and messages, Python's constants and the docs' lists
// against these.
#include <cstdio>
#include <string>
#include <vector>

#include "alloc/allocator.h"
#include "compare.h"
#include "hbm/hbm_config.h"
#include "json_lines.h"
#include "names.h"
#include "policy.h"
#include "replay.h"
#include "tpu.h"
#include "workload.h"

namespace {

using strata::tool::Json;
using strata::tool::NamesOf;

void Print(const std::string& table, const std::vector<std::string>& names, const std::string& default_name) {
  Json line = {{"table", table}, {"names", names}};
  if (!default_name.empty()) line["default"] = default_name;
  std::printf("%s\n", strata::tool::JsonLine(line).c_str());
}

}  // namespace

int main() {
  Print("hbm_presets", NamesOf(strata::hbm::HbmPresets()), strata::hbm::kDefaultHbmPreset);
  Print("formats", NamesOf(strata::workload::Formats()), "auto");
  Print("replay_backends", NamesOf(strata::replay::ReplayBackends()), strata::replay::kDefaultReplayBackend);
  Print("strata_backends", strata::replay::StrataBackendNames(), strata::replay::kDefaultReplayBackend);
  Print("gpu_policies", strata::gpu::PolicyNames(), "jax");
  std::vector<std::string> host_policies;
  for (uint32_t p = 0; p < strata::alloc::kNumPolicies; ++p) {
    host_policies.emplace_back(strata::alloc::PolicyName(static_cast<strata::alloc::Policy>(p)));
  }
  Print("host_policies", host_policies, "tlsf");
  Print("contenders", NamesOf(strata::compare::AllContenders()), "");
  Json tpu = {{"table", "tpu_presets"}, {"names", NamesOf(strata::workload::TpuPresets())}};
  Json bytes = Json::array();
  for (const strata::workload::TpuPreset& p : strata::workload::TpuPresets()) bytes.push_back(p.hbm_bytes);
  tpu["hbm_bytes"] = bytes;
  std::printf("%s\n", strata::tool::JsonLine(tpu).c_str());
  return 0;
}
