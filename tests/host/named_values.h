// strata_named_value builders for the host tests' strata_open calls, and an older caller's context options.
#ifndef STRATA_TESTS_HOST_NAMED_VALUES_H_
#define STRATA_TESTS_HOST_NAMED_VALUES_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

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

// strata_context_options as an API 1.8 caller passes it: struct_size ends before named_options, and every byte after
// that (the 1.9 fields, and more) is 0xff, which the driver must not read.
struct OldContextOptions {
  strata_context_options options;
  unsigned char poison[8];
  explicit OldContextOptions(uint64_t quota_bytes = 0) {
    std::memset(&options, 0xff, sizeof options);
    std::memset(poison, 0xff, sizeof poison);
    options.struct_size = offsetof(strata_context_options, named_options);
    options.quota_bytes = quota_bytes;
    options.quota_fraction = 0;
  }
};

}  // namespace strata::test_values

#endif  // STRATA_TESTS_HOST_NAMED_VALUES_H_
