// What the generated chip list (chip_models.cc) does not need to generate.
#include "chip_model.h"

#include <algorithm>

namespace strata::sim {

bool IsBuiltMxuSize(int64_t n) {
  const std::vector<int>& built = BuiltMxuSizes();
  return std::find(built.begin(), built.end(), n) != built.end();
}

std::string BuiltMxuSizesText() {
  std::string text;
  for (int n : BuiltMxuSizes()) {
    if (!text.empty()) text += ", ";
    text += std::to_string(n);
  }
  return text;
}

}  // namespace strata::sim
