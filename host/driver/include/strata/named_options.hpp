// Open options given as text, the way command-line tools take them (`--option NAME=VALUE`), turned into
// typed strata_named_values: each value is parsed as the type the backend declares for that name
// (strata_get_backend_options). A name the backend does not declare is passed on as a string, so that
// strata_open refuses it with its own message, which lists the valid names.
#ifndef STRATA_NAMED_OPTIONS_HPP_
#define STRATA_NAMED_OPTIONS_HPP_

#include <cerrno>
#include <cstdlib>
#include <deque>
#include <string>
#include <vector>

#include "strata/strata.h"
#include "strata/strata.hpp"

namespace strata {

class NamedOptions {
 public:
  // Throws Error(UNIMPLEMENTED) for a backend this build does not have.
  explicit NamedOptions(const std::string& backend) : backend_(backend) {
    size_t count = 0;
    Check(strata_get_backend_options(backend.c_str(), nullptr, 0, &count));
    info_.resize(count);
    for (strata_option_info& i : info_) i.struct_size = sizeof i;
    Check(strata_get_backend_options(backend.c_str(), info_.data(), info_.size(), &count));
  }

  // "NAME=VALUE"; throws Error(INVALID_ARGUMENT) when there is no '=' or the value is not of the option's type.
  void AddText(const std::string& name_equals_value) {
    const size_t eq = name_equals_value.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw Error(STRATA_INVALID_ARGUMENT, "an option is NAME=VALUE, not '" + name_equals_value + "'");
    }
    Add(name_equals_value.substr(0, eq), name_equals_value.substr(eq + 1));
  }

  void Add(const std::string& name, const std::string& text) {
    strata_named_value v{};
    v.struct_size = sizeof v;
    v.name = Keep(name);
    v.type = TypeOf(name);
    const char* s = text.c_str();
    char* end = nullptr;
    errno = 0;
    switch (v.type) {
      case STRATA_VALUE_INT64:
        v.int64_value = std::strtoll(s, &end, 10);
        if (text.empty() || *end != '\0' || errno != 0) Refuse(name, text, "an integer");
        break;
      case STRATA_VALUE_DOUBLE:
        v.double_value = std::strtod(s, &end);
        if (text.empty() || *end != '\0' || errno != 0) Refuse(name, text, "a number");
        break;
      case STRATA_VALUE_BOOL:
        if (text != "0" && text != "1" && text != "true" && text != "false") Refuse(name, text, "true or false");
        v.bool_value = text == "1" || text == "true";
        break;
      case STRATA_VALUE_STRING:
        v.string_value = Keep(text);
        break;
    }
    values_.push_back(v);
  }

  const strata_named_value* data() const { return values_.data(); }
  uint32_t size() const { return static_cast<uint32_t>(values_.size()); }

 private:
  strata_value_type TypeOf(const std::string& name) const {
    for (const strata_option_info& i : info_) {
      if (name == i.name) return i.type;
    }
    return STRATA_VALUE_STRING;  // unknown: strata_open names it and lists the valid ones
  }
  [[noreturn]] void Refuse(const std::string& name, const std::string& text, const char* want) const {
    throw Error(STRATA_INVALID_ARGUMENT,
                "option " + name + " of the " + backend_ + " backend wants " + want + ", not '" + text + "'");
  }
  const char* Keep(const std::string& s) { return strings_.emplace_back(s).c_str(); }

  std::string backend_;
  std::vector<strata_option_info> info_;
  std::deque<std::string> strings_;  // stable addresses for the values' names and strings
  std::vector<strata_named_value> values_;
};

}  // namespace strata

#endif  // STRATA_NAMED_OPTIONS_HPP_
