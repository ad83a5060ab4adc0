// ELF32 RISC-V loader with strict validation: bad input gets a clear error, never a crash.
#include "elf_loader.h"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "regular_file.h"

namespace strata::sim {
namespace {

std::string Hex(uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

// The file's bytes, read-only (C++17 has no std::span).
struct Bytes {
  const uint8_t* ptr;
  size_t n;
  const uint8_t* data() const { return ptr; }
  size_t size() const { return n; }
  uint8_t operator[](size_t i) const { return ptr[i]; }
};

template <typename T>
bool ReadStruct(const Bytes& file, uint64_t offset, T& out) {
  if (offset > file.size() || file.size() - offset < sizeof(T)) return false;
  std::memcpy(&out, file.data() + offset, sizeof(T));
  return true;
}

}  // namespace

bool LoadElf(const std::string& path, uint32_t mem_base, uint32_t mem_size, ElfImage& image, std::string& error) {
  auto fail = [&](const std::string& why) {
    error = path + ": " + why;
    return false;
  };
  // An ELF that fits SMEM is small; 64 MiB leaves room for debug sections.
  if (const std::string why = tool::CheckRegularFile(path, 64ull << 20); !why.empty()) return fail(why);
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("cannot open file (" + std::string(std::strerror(errno)) + ")");
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return fail("read error");
  return ParseElf(bytes.data(), bytes.size(), path, mem_base, mem_size, image, error);
}

bool ParseElf(const uint8_t* data, size_t size, const std::string& name, uint32_t mem_base, uint32_t mem_size,
              ElfImage& image, std::string& error) {
  auto fail = [&](const std::string& why) {
    error = name + ": " + why;
    return false;
  };
  const Bytes file{data, size};
  if (file.size() < EI_NIDENT || std::memcmp(file.data(), ELFMAG, SELFMAG) != 0) {
    return fail("not an ELF file (bad magic)");
  }
  if (file[EI_CLASS] == ELFCLASS64)
    return fail("64-bit ELF; the control core is RV32 (build with -march=rv32im -mabi=ilp32)");
  if (file[EI_CLASS] != ELFCLASS32) return fail("unknown ELF class " + std::to_string(file[EI_CLASS]));
  if (file[EI_DATA] != ELFDATA2LSB) return fail("big-endian ELF; RISC-V is little-endian");

  Elf32_Ehdr eh;
  if (!ReadStruct(file, 0, eh)) return fail("truncated ELF header");
  if (eh.e_machine != EM_RISCV) return fail("not a RISC-V ELF (e_machine " + std::to_string(eh.e_machine) + ")");
  if (eh.e_type != ET_EXEC) return fail("not an executable (e_type " + std::to_string(eh.e_type) + ")");
  if (eh.e_phentsize != sizeof(Elf32_Phdr) && eh.e_phnum != 0) return fail("unexpected program header size");

  ElfImage result;
  result.entry = eh.e_entry;
  const uint64_t mem_end = uint64_t{mem_base} + mem_size;
  // Every segment is checked before any is copied: overlapping segments are refused (no linker writes them),
  // so what is copied adds up to at most mem_size however many program headers the file has.
  struct Span {
    uint64_t start, end;
    unsigned index;
    bool operator<(const Span& o) const { return start < o.start; }
  };
  std::vector<Span> spans;
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    Elf32_Phdr ph;
    if (!ReadStruct(file, uint64_t{eh.e_phoff} + uint64_t{i} * sizeof(Elf32_Phdr), ph)) {
      return fail("program header " + std::to_string(i) + " lies outside the file");
    }
    if (ph.p_type != PT_LOAD || ph.p_memsz == 0) continue;
    if (ph.p_filesz > ph.p_memsz) return fail("segment " + std::to_string(i) + " has filesz > memsz");
    if (uint64_t{ph.p_offset} + ph.p_filesz > file.size()) {
      return fail("segment " + std::to_string(i) + " data lies outside the file");
    }
    const uint64_t start = ph.p_paddr;
    const uint64_t end = start + ph.p_memsz;
    if (start < mem_base || end > mem_end) {
      return fail("segment " + std::to_string(i) + " [" + Hex(start) + ", " + Hex(end) + ") lies outside SMEM [" +
                  Hex(mem_base) + ", " + Hex(mem_end) + ")");
    }
    spans.push_back({start, end, i});
  }
  std::vector<Span> by_address = spans;
  std::sort(by_address.begin(), by_address.end());
  for (size_t k = 1; k < by_address.size(); ++k) {
    const Span &a = by_address[k - 1], &b = by_address[k];
    if (b.start < a.end) {
      return fail("segments " + std::to_string(std::min(a.index, b.index)) + " and " +
                  std::to_string(std::max(a.index, b.index)) + " overlap at " + Hex(b.start));
    }
  }
  for (const Span& span : spans) {
    Elf32_Phdr ph;
    ReadStruct(file, uint64_t{eh.e_phoff} + uint64_t{span.index} * sizeof(Elf32_Phdr), ph);  // read above
    ElfSegment seg;
    seg.address = ph.p_paddr;
    seg.bytes.assign(ph.p_memsz, 0);
    std::memcpy(seg.bytes.data(), file.data() + ph.p_offset, ph.p_filesz);
    result.segments.push_back(std::move(seg));
  }
  if (result.segments.empty()) return fail("no loadable segments");
  if (result.entry < mem_base || result.entry >= mem_end) {
    return fail("entry point " + Hex(result.entry) + " lies outside SMEM");
  }

  // Find `tohost` in the symbol table, if there is one (a stripped image just cannot end by HTIF).
  for (unsigned i = 0; i < eh.e_shnum && eh.e_shentsize == sizeof(Elf32_Shdr); ++i) {
    Elf32_Shdr sh;
    if (!ReadStruct(file, uint64_t{eh.e_shoff} + uint64_t{i} * sizeof(Elf32_Shdr), sh)) break;
    if (sh.sh_type != SHT_SYMTAB || sh.sh_entsize != sizeof(Elf32_Sym)) continue;
    Elf32_Shdr strtab;
    if (sh.sh_link >= eh.e_shnum ||
        !ReadStruct(file, uint64_t{eh.e_shoff} + uint64_t{sh.sh_link} * sizeof(Elf32_Shdr), strtab)) {
      continue;
    }
    if (uint64_t{sh.sh_offset} + sh.sh_size > file.size() ||
        uint64_t{strtab.sh_offset} + strtab.sh_size > file.size()) {
      return fail("symbol table lies outside the file");
    }
    for (uint32_t off = 0; off + sizeof(Elf32_Sym) <= sh.sh_size; off += sizeof(Elf32_Sym)) {
      Elf32_Sym sym;
      std::memcpy(&sym, file.data() + sh.sh_offset + off, sizeof sym);
      if (sym.st_name >= strtab.sh_size) continue;
      const char* name = reinterpret_cast<const char*>(file.data() + strtab.sh_offset + sym.st_name);
      const size_t max_len = strtab.sh_size - sym.st_name;
      const size_t len = strnlen(name, max_len);
      if (len == max_len) continue;  // not terminated inside the string table
      if (len == 6 && std::memcmp(name, "tohost", 6) == 0) result.tohost = sym.st_value;
      const unsigned bind = ELF32_ST_BIND(sym.st_info), type = ELF32_ST_TYPE(sym.st_info);
      if (bind == STB_GLOBAL && (type == STT_OBJECT || type == STT_FUNC || type == STT_NOTYPE) && len > 0) {
        result.symbols[std::string(name, len)] = sym.st_value;
      }
    }
  }
  image = std::move(result);
  return true;
}

}  // namespace strata::sim
