// The names a user picks from (HBM presets, workload formats, backends, policies, contenders, device presets) are
// each defined once, in a table beside the code they name; every message, --help text and Python constant lists
// them from there, in the words below. Header-only, standard library only.
#ifndef STRATA_HOST_TOOL_NAMES_H_
#define STRATA_HOST_TOOL_NAMES_H_

#include <string>
#include <vector>

namespace strata::tool {

// The `name` of every row of a table (anything iterable whose rows have a `name` convertible to std::string).
template <typename Table>
std::vector<std::string> NamesOf(const Table& table) {
  std::vector<std::string> names;
  for (const auto& row : table) names.emplace_back(row.name);
  return names;
}

// The names joined by `separator`, the last two by `last`: JoinNames({"a", "b", "c"}, ", ", " or ") is "a, b or c".
inline std::string JoinNames(const std::vector<std::string>& names, const std::string& separator = ", ",
                             const std::string& last = ", ") {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? last : separator;
    out += names[i];
  }
  return out;
}

// The choices as a help text names them: "HBM2 (default), HBM2e or HBM3" (the default marked, the last after
// `last`).
inline std::string ChoicesWithDefault(const std::vector<std::string>& names, const std::string& default_name,
                                      const std::string& last = " or ") {
  std::vector<std::string> marked = names;
  for (std::string& n : marked) {
    if (n == default_name) n += " (default)";
  }
  return JoinNames(marked, ", ", last);
}

// Whether `name` is one of `names` (exactly, case included).
inline bool IsOneOf(const std::string& name, const std::vector<std::string>& names) {
  for (const std::string& n : names) {
    if (n == name) return true;
  }
  return false;
}

// Empty when `name` is one of `names`; else "unknown WHAT 'name' (a, b or c)", the message every tool gives.
inline std::string UnknownName(const std::string& what, const std::string& name,
                               const std::vector<std::string>& names) {
  if (IsOneOf(name, names)) return "";
  return "unknown " + what + " '" + name + "' (" + JoinNames(names, ", ", " or ") + ")";
}

}  // namespace strata::tool

#endif  // STRATA_HOST_TOOL_NAMES_H_
