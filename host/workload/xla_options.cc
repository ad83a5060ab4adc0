// The XLA importer's options by name: the rules of xla_options.h.
#include "xla_options.h"

#include "workload.h"

namespace strata::workload {

const std::vector<std::string>& XlaOptionNames() {
  static const std::vector<std::string> names = {"--xla-view", "--xla-steps", "--xla-module", "--tpu-pad"};
  return names;
}

std::string ApplyXlaOption(const std::string& name, const std::string& value, ImportOptions* options) {
  if (name == "--xla-view") {
    if (value == "executable") {
      options->xla.view = XlaView::kExecutable;
    } else if (value == "steps") {
      options->xla.view = XlaView::kSteps;
    } else {
      return "--xla-view '" + value + "': executable or steps";
    }
  } else if (name == "--xla-steps") {
    if (!ParseCount(value, &options->xla.steps) || options->xla.steps == 0 || options->xla.steps > 1'000'000) {
      return "--xla-steps '" + value + "': 1 to 1000000";
    }
  } else if (name == "--xla-module") {
    options->xla_module = value;
  } else if (name == "--tpu-pad") {
    if (value != "" && value != "0" && value != "1") return "--tpu-pad '" + value + "': 0 or 1";
    options->xla.tpu_pad = value != "0";
  } else {
    std::string known;
    for (const std::string& n : XlaOptionNames()) known += (known.empty() ? "" : ", ") + n;
    return "unknown XLA option '" + name + "' (" + known + ")";
  }
  return "";
}

}  // namespace strata::workload
