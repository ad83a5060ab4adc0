// The XLA importer's options by name (docs/jax.md), one set of rules for the command lines (xla_cli.h) and the
// Python module: --xla-view executable|steps, --xla-steps N, --xla-module S, --tpu-pad.
#ifndef STRATA_HOST_WORKLOAD_XLA_OPTIONS_H_
#define STRATA_HOST_WORKLOAD_XLA_OPTIONS_H_

#include <string>
#include <vector>

namespace strata::workload {

struct ImportOptions;

// The option names, as the command lines spell them.
const std::vector<std::string>& XlaOptionNames();  // "--xla-view", "--xla-steps", "--xla-module", "--tpu-pad"

// Applies option `name` with `value` ("" for the flag --tpu-pad, or "0"/"1") to *options. Returns "" when taken,
// else why not ("--xla-view 'x': executable or steps").
std::string ApplyXlaOption(const std::string& name, const std::string& value, ImportOptions* options);

}  // namespace strata::workload

#endif  // STRATA_HOST_WORKLOAD_XLA_OPTIONS_H_
