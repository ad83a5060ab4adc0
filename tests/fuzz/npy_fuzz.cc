// libFuzzer target: arbitrary bytes as a .npy file through ParseNpy (what ReadNpy and strata-sim gemm run).
// Beyond not crashing: an accepted array holds exactly rows x cols elements of its dtype, and writing it
// back (NpyHeader + data) reads back as the same array.
#include <stddef.h>
#include <stdint.h>

#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using strata::sim::NpyArray;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  NpyArray a;
  std::string error;
  if (!strata::sim::ParseNpy(bytes, "fuzz.npy", a, error)) {
    FUZZ_CHECK(error.rfind("fuzz.npy: ", 0) == 0, error);
    return 0;
  }
  FUZZ_CHECK(a.descr == "|i1" || a.descr == "<i4" || a.descr == "<f4", a.descr);  // npy.h's three dtypes
  // The element count and byte size must not have wrapped: the data is exactly what the shape needs.
  const unsigned __int128 want = static_cast<unsigned __int128>(a.rows) * a.cols * a.elem_size();
  FUZZ_CHECK(want == a.data.size(), "shape (" + std::to_string(a.rows) + ", " + std::to_string(a.cols) + ") " +
                                        a.descr + " with " + std::to_string(a.data.size()) + " data bytes");
  const std::string copy = strata::sim::NpyHeader(a) + std::string(a.data.begin(), a.data.end());
  NpyArray b;
  FUZZ_CHECK(strata::sim::ParseNpy(copy, "copy.npy", b, error), error);
  FUZZ_CHECK(b.descr == a.descr && b.rows == a.rows && b.cols == a.cols && b.data == a.data);
  return 0;
}
