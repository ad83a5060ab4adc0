// Reads and validates an RV32 ELF executable for loading into SMEM (no SystemC dependency).
#ifndef STRATA_SIM_ELF_LOADER_H_
#define STRATA_SIM_ELF_LOADER_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace strata::sim {

struct ElfSegment {
  uint32_t address = 0;        // where the segment starts in the device's address space
  std::vector<uint8_t> bytes;  // file bytes followed by zeros up to the memory size
};

struct ElfImage {
  uint32_t entry = 0;
  std::vector<ElfSegment> segments;
  std::optional<uint32_t> tohost;           // address of the HTIF `tohost` symbol, if defined
  std::map<std::string, uint32_t> symbols;  // global data and function symbols by name
};

// Loads `path` and checks it is a little-endian ELF32 RISC-V executable whose loadable
// segments all lie within [mem_base, mem_base + mem_size). On failure returns false and sets
// `error` to a message naming the file and the problem; `image` is then untouched.
bool LoadElf(const std::string& path, uint32_t mem_base, uint32_t mem_size, ElfImage& image, std::string& error);

// The same checks on an ELF already in memory (LoadElf reads the file, then calls this; the fuzzer calls it
// directly). `name` starts every error message, as the path does for LoadElf.
bool ParseElf(const uint8_t* data, size_t size, const std::string& name, uint32_t mem_base, uint32_t mem_size,
              ElfImage& image, std::string& error);

}  // namespace strata::sim

#endif  // STRATA_SIM_ELF_LOADER_H_
