// strata_named_value builders for the host tests' strata_open calls.
#ifndef STRATA_TESTS_HOST_NAMED_VALUES_H_
#define STRATA_TESTS_HOST_NAMED_VALUES_H_

#include <cstdint>

#include "strata/strata.h"

namespace strata::test_values {

inline strata_named_value Str(const char* name, const char* v) {
  strata_named_value n{};
  n.struct_size = sizeof n;
  n.name = name;
  n.type = STRATA_VALUE_STRING;
  n.string_value = v;
  return n;
}

inline strata_named_value Int(const char* name, int64_t v) {
  strata_named_value n{};
  n.struct_size = sizeof n;
  n.name = name;
  n.type = STRATA_VALUE_INT64;
  n.int64_value = v;
  return n;
}

}  // namespace strata::test_values

#endif  // STRATA_TESTS_HOST_NAMED_VALUES_H_
