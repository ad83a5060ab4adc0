// The command-line options of the XLA importer (docs/jax.md), shared by strata-import and strata-compare; their
// rules are xla_options.h's, which the Python module applies too.
#ifndef STRATA_HOST_WORKLOAD_XLA_CLI_H_
#define STRATA_HOST_WORKLOAD_XLA_CLI_H_

#include <string>
#include <vector>

#include "tool_cli.h"
#include "workload.h"
#include "xla_options.h"

namespace strata::workload {

// --xla-view executable|steps, --xla-steps N, --xla-module S, --tpu-pad into *options. Each option taken is also
// appended to *passthrough when given (strata-compare --emit-jobs: every job repeats it).
inline void AddXlaOptions(CLI::App& app, ImportOptions* options, std::vector<std::string>* passthrough = nullptr) {
  auto taken = [options, passthrough](const char* name) {
    return [options, passthrough, name](const std::string& v) -> std::string {
      std::string why = ApplyXlaOption(name, v, options);
      if (why.empty() && passthrough != nullptr) passthrough->insert(passthrough->end(), {name, v});
      return why;
    };
  };
  // The caller's *options carries its default view (strata-fit: steps, what the device holds).
  strata::cli::AddTaken(app, "--xla-view", "V", taken("--xla-view"),
                        std::string("xla: executable (the temp allocation's logical buffers at XLA's offsets)\n"
                                    "or steps (arguments, outputs and temp over --xla-steps calls: what the\n"
                                    "device holds); default: ") +
                            XlaViewName(options->xla.view));
  strata::cli::AddTaken(app, "--xla-steps", "N", taken("--xla-steps"),
                        "xla, --xla-view steps: calls of the executable (default 3)");
  strata::cli::AddTaken(app, "--xla-module", "S", taken("--xla-module"),
                        "xla: in a dump directory, the module whose file name contains S (default: the\n"
                        "module with the most logical buffers)");
  app.add_flag_callback(
      "--tpu-pad",
      [options, passthrough] {
        ApplyXlaOption("--tpu-pad", "", options);
        if (passthrough != nullptr) passthrough->push_back("--tpu-pad");
      },
      "xla: pad every logical buffer to the TPU's tiles from its shape (minor\n"
      "dimension to 128, second-minor to 8/16/32 for 32/16/8-bit types)");
}

}  // namespace strata::workload

#endif  // STRATA_HOST_WORKLOAD_XLA_CLI_H_
