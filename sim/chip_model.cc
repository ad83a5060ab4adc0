// What the generated chip list (chip_models.cc) does not need to generate.
#include "chip_model.h"

namespace strata::sim {

std::string BuiltMxuSizesText() {
  std::string text;
  for (int n : BuiltMxuSizes()) {
    if (!text.empty()) text += ", ";
    text += std::to_string(n);
  }
  return text;
}

}  // namespace strata::sim
