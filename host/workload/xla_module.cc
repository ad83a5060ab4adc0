// The XLA module model of xla_module.h: interned text and the memory_analysis() sums.
#include "xla_module.h"

namespace strata::workload {

std::string_view XlaStrings::Intern(std::string_view text) {
  auto it = index_.find(text);
  if (it != index_.end()) return *it;
  const std::string& kept = store_.emplace_back(text);
  bytes_ += kept.size();
  return *index_.insert(kept).first;
}

void SumXlaModule(XlaModule* module) {
  module->argument_bytes = module->output_bytes = module->alias_bytes = module->temp_bytes = 0;
  module->constant_bytes = 0;
  for (const XlaAllocation& a : module->allocations) {
    if (a.parameter >= 0) module->argument_bytes += a.size;
    if (a.parameter >= 0 && a.live_out) module->alias_bytes += a.size;
    if (a.live_out) module->output_bytes += a.size;
    if (a.temp) module->temp_bytes += a.size;
    if (a.constant) module->constant_bytes += a.size;
  }
}

}  // namespace strata::workload
