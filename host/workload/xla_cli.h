// The command-line options of the XLA importer (docs/jax.md), shared by strata-import and strata-compare.
#ifndef STRATA_HOST_WORKLOAD_XLA_CLI_H_
#define STRATA_HOST_WORKLOAD_XLA_CLI_H_

#include <string>

#include "tool_cli.h"
#include "workload.h"

namespace strata::workload {

// --xla-view executable|steps, --xla-steps N, --xla-module S, --tpu-pad into *options.
inline void AddXlaOptions(CLI::App& app, ImportOptions* options) {
  strata::cli::AddTaken(
      app, "--xla-view", "V",
      [options](const std::string& v) -> std::string {
        if (v == "executable")
          options->xla.view = strata::workload::XlaView::kExecutable;
        else if (v == "steps")
          options->xla.view = strata::workload::XlaView::kSteps;
        else
          return "--xla-view '" + v + "': executable or steps";
        return "";
      },
      "xla: executable (default: the temp allocation's logical buffers at XLA's\n"
      "offsets) or steps (what the runtime allocator sees over --xla-steps calls)");
  strata::cli::AddTaken(
      app, "--xla-steps", "N",
      [options](const std::string& v) -> std::string {
        if (!strata::workload::ParseCount(v, &options->xla.steps) || options->xla.steps == 0 ||
            options->xla.steps > 1'000'000) {
          return "--xla-steps '" + v + "': 1 to 1000000";
        }
        return "";
      },
      "xla, --xla-view steps: calls of the executable (default 3)");
  app.add_option("--xla-module", options->xla_module,
                 "xla: in a dump directory, the module whose file name contains S (default: the\n"
                 "module with the most logical buffers)")
      ->type_name("S");
  app.add_flag("--tpu-pad", options->xla.tpu_pad,
               "xla: pad every logical buffer to the TPU's tiles from its shape (minor\n"
               "dimension to 128, second-minor to 8/16/32 for 32/16/8-bit types)");
}

}  // namespace strata::workload

#endif  // STRATA_HOST_WORKLOAD_XLA_CLI_H_
