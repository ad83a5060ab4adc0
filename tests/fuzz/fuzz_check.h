// FUZZ_CHECK: the fuzz targets' assertion. A broken property prints what broke (and a detail) and traps, so
// libFuzzer saves the input as a crash; compiled in whatever the build type.
#ifndef STRATA_TESTS_FUZZ_FUZZ_CHECK_H_
#define STRATA_TESTS_FUZZ_FUZZ_CHECK_H_

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <chrono>
#include <string>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STRATA_FUZZ_HEAP_HOOKS 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define STRATA_FUZZ_HEAP_HOOKS 1
#endif
#ifdef STRATA_FUZZ_HEAP_HOOKS
#include <sanitizer/allocator_interface.h>
#endif

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

namespace strata::fuzz {

// What one input may cost per byte: an amplification the fuzzer finds (a small input that makes a reader do
// quadratic work or hold memory beyond a multiple of its size) fails the run like a crash. The time bound is
// far above a linear reader's cost even under the sanitizers and a loaded machine (a 4 KB input gets 0.45 s;
// the readers take about a millisecond), so it does not flake; the heap bound is exact (the sanitizer's
// allocator hooks count every byte requested).
struct CostLimits {
  double seconds_base = 0.25;
  double seconds_per_byte = 50e-6;
  uint64_t heap_base = uint64_t{1} << 20;
  uint64_t heap_per_byte = 64;  // docs/workloads.md: resident memory under 64x the file
};

namespace heap_meter {
inline uint64_t current = 0;
inline uint64_t peak = 0;
#ifdef STRATA_FUZZ_HEAP_HOOKS
inline void OnMalloc(const volatile void*, size_t size) {
  current += size;
  if (current > peak) peak = current;
}
inline void OnFree(const volatile void* p) {
  const uint64_t size = __sanitizer_get_allocated_size(p);
  current -= size < current ? size : current;
}
inline bool Installed() {
  static const bool installed = __sanitizer_install_malloc_and_free_hooks(OnMalloc, OnFree) != 0;
  return installed;
}
#else
inline bool Installed() { return false; }
#endif
}  // namespace heap_meter

// Measures the time and the heap's peak growth from construction to Check, against CostLimits for n bytes.
class CostMeter {
 public:
  explicit CostMeter(size_t input_bytes, CostLimits limits = {})
      : bytes_(input_bytes), limits_(limits), start_(std::chrono::steady_clock::now()) {
    hooked_ = heap_meter::Installed();
    heap_meter::peak = heap_meter::current;
    heap_start_ = heap_meter::current;
  }
  void Check(const char* what) const {
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double time_limit = limits_.seconds_base + limits_.seconds_per_byte * static_cast<double>(bytes_);
    FUZZ_CHECK(seconds <= time_limit, std::string(what) + " took " + std::to_string(seconds) + " s for " +
                                          std::to_string(bytes_) + " bytes (limit " + std::to_string(time_limit) +
                                          " s)");
    if (!hooked_) return;
    const uint64_t grown = heap_meter::peak - heap_start_;
    const uint64_t heap_limit = limits_.heap_base + limits_.heap_per_byte * bytes_;
    FUZZ_CHECK(grown <= heap_limit, std::string(what) + " grew the heap by " + std::to_string(grown) + " bytes for " +
                                        std::to_string(bytes_) + " bytes of input (limit " +
                                        std::to_string(heap_limit) + ")");
  }

 private:
  size_t bytes_;
  CostLimits limits_;
  std::chrono::steady_clock::time_point start_;
  bool hooked_ = false;
  uint64_t heap_start_ = 0;
};

}  // namespace strata::fuzz

#endif  // STRATA_TESTS_FUZZ_FUZZ_CHECK_H_
