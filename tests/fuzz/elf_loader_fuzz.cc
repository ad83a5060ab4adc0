// libFuzzer target: arbitrary bytes as a firmware image through ParseElf (what LoadElf runs on a file).
// Beyond not crashing: a refusal names the input and leaves the image untouched; an accepted image fits
// SMEM (entry and every segment inside it, segments disjoint, so their bytes add up to at most SMEM's size).
#include <stddef.h>
#include <stdint.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "elf_loader.h"
#include "fuzz_check.h"
#include "strata/regmap.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using strata::sim::ElfImage;
  constexpr uint64_t kBase = STRATA_SMEM_BASE, kEnd = kBase + STRATA_SMEM_SIZE;
  ElfImage image;
  image.entry = 0x1234;  // a sentinel: a refused input must leave it
  std::string error;
  if (!strata::sim::ParseElf(data, size, "fuzz.elf", STRATA_SMEM_BASE, STRATA_SMEM_SIZE, image, error)) {
    FUZZ_CHECK(error.rfind("fuzz.elf: ", 0) == 0 && error.size() > 10, error);
    FUZZ_CHECK(image.entry == 0x1234 && image.segments.empty() && image.symbols.empty(), error);
    return 0;
  }
  FUZZ_CHECK(image.entry >= kBase && image.entry < kEnd && !image.segments.empty());
  std::vector<std::pair<uint64_t, uint64_t>> spans;
  for (const strata::sim::ElfSegment& s : image.segments) {
    FUZZ_CHECK(!s.bytes.empty() && s.address >= kBase && s.address + s.bytes.size() <= kEnd);
    spans.emplace_back(s.address, s.address + s.bytes.size());
  }
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i) {
    FUZZ_CHECK(spans[i].first >= spans[i - 1].second, "segments overlap");
  }
  for (const auto& [name, value] : image.symbols) {
    FUZZ_CHECK(!name.empty() && name.find('\0') == std::string::npos);
  }
  return 0;
}
