// FUZZ_CHECK: the fuzz targets' assertion. A broken property prints what broke (and a detail) and traps, so
// libFuzzer saves the input as a crash; compiled in whatever the build type.
#ifndef STRATA_TESTS_FUZZ_FUZZ_CHECK_H_
#define STRATA_TESTS_FUZZ_FUZZ_CHECK_H_

#include <stdio.h>

#include <string>

namespace strata::fuzz {

[[noreturn]] inline void CheckFailed(const char* file, int line, const char* what, const std::string& detail) {
  fprintf(stderr, "%s:%d: FUZZ_CHECK(%s) failed%s%s\n", file, line, what, detail.empty() ? "" : ": ", detail.c_str());
  fflush(stderr);
  __builtin_trap();
}

}  // namespace strata::fuzz

// FUZZ_CHECK(cond) or FUZZ_CHECK(cond, detail): detail is anything a std::string can be built from.
#define FUZZ_CHECK(cond, ...)                                                                      \
  do {                                                                                             \
    if (!(cond)) ::strata::fuzz::CheckFailed(__FILE__, __LINE__, #cond, std::string{__VA_ARGS__}); \
  } while (0)

#endif  // STRATA_TESTS_FUZZ_FUZZ_CHECK_H_
