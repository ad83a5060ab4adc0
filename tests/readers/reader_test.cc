// The ELF loader and the .npy reader from bytes in memory: the file and in-memory entries agree, and inputs
// the fuzz targets found (overlapping segments, a shape whose byte count wraps) are refused.
#include <elf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "elf_loader.h"
#include "npy.h"
#include "strata/regmap.h"

namespace strata::sim {
namespace {

struct Segment {
  uint32_t address;
  uint32_t file_bytes;
  uint32_t mem_bytes;
};

// A little-endian ELF32 RISC-V executable with one PT_LOAD per segment (file bytes 0x13, a nop's first byte).
std::vector<uint8_t> MakeElf(const std::vector<Segment>& segments, uint32_t entry = STRATA_SMEM_BASE) {
  Elf32_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS32;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = ET_EXEC;
  eh.e_machine = EM_RISCV;
  eh.e_version = EV_CURRENT;
  eh.e_entry = entry;
  eh.e_phoff = sizeof eh;
  eh.e_ehsize = sizeof eh;
  eh.e_phentsize = sizeof(Elf32_Phdr);
  eh.e_phnum = static_cast<uint16_t>(segments.size());
  std::vector<uint8_t> out(sizeof eh + segments.size() * sizeof(Elf32_Phdr));
  std::memcpy(out.data(), &eh, sizeof eh);
  for (size_t i = 0; i < segments.size(); ++i) {
    Elf32_Phdr ph{};
    ph.p_type = PT_LOAD;
    ph.p_offset = static_cast<uint32_t>(out.size());
    ph.p_vaddr = ph.p_paddr = segments[i].address;
    ph.p_filesz = segments[i].file_bytes;
    ph.p_memsz = segments[i].mem_bytes;
    ph.p_flags = PF_R | PF_X;
    std::memcpy(out.data() + sizeof eh + i * sizeof ph, &ph, sizeof ph);
    out.insert(out.end(), segments[i].file_bytes, 0x13);
  }
  return out;
}

bool Parse(const std::vector<uint8_t>& elf, ElfImage& image, std::string& error) {
  return ParseElf(elf.data(), elf.size(), "test.elf", STRATA_SMEM_BASE, STRATA_SMEM_SIZE, image, error);
}

TEST(ElfLoader, ParsesSegmentsAndZeroFillsBss) {
  ElfImage image;
  std::string error;
  ASSERT_TRUE(Parse(MakeElf({{STRATA_SMEM_BASE, 8, 16}, {STRATA_SMEM_BASE + 0x100, 4, 4}}), image, error)) << error;
  ASSERT_EQ(image.segments.size(), 2u);
  EXPECT_EQ(image.entry, STRATA_SMEM_BASE);
  EXPECT_EQ(image.segments[0].bytes,
            std::vector<uint8_t>({0x13, 0x13, 0x13, 0x13, 0x13, 0x13, 0x13, 0x13, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(image.segments[1].address, STRATA_SMEM_BASE + 0x100);
}

TEST(ElfLoader, LoadElfReadsTheFileThroughParseElf) {
  const std::vector<uint8_t> elf = MakeElf({{STRATA_SMEM_BASE, 8, 8}, {STRATA_SMEM_BASE, 4, 4}});
  char path[] = "/tmp/strata_reader_test_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, elf.data(), elf.size()), static_cast<ssize_t>(elf.size()));
  close(fd);
  ElfImage image;
  std::string from_file, from_bytes;
  EXPECT_FALSE(LoadElf(path, STRATA_SMEM_BASE, STRATA_SMEM_SIZE, image, from_file));
  EXPECT_FALSE(Parse(elf, image, from_bytes));
  EXPECT_EQ(from_file, std::string(path) + from_bytes.substr(std::strlen("test.elf")));
  unlink(path);
}

// Found by elf_loader_fuzz: two PT_LOAD segments over the same SMEM bytes were both accepted, and the loader
// copied each in full, so a 2 MiB file of 65,535 program headers of 1 MiB each asked for 64 GiB.
TEST(ElfLoader, RefusesOverlappingSegments) {
  ElfImage image;
  std::string error;
  EXPECT_FALSE(Parse(MakeElf({{STRATA_SMEM_BASE, 4, 64}, {STRATA_SMEM_BASE + 32, 4, 4}}), image, error));
  EXPECT_EQ(error, "test.elf: segments 0 and 1 overlap at 0x80000020");
  EXPECT_TRUE(image.segments.empty());
}

TEST(ElfLoader, RefusesManyOverlappingSegmentsBeforeCopyingAny) {
  std::vector<Segment> segments(4096, Segment{STRATA_SMEM_BASE, 0, STRATA_SMEM_SIZE});  // 4 GiB if copied
  ElfImage image;
  std::string error;
  EXPECT_FALSE(Parse(MakeElf(segments), image, error));
  EXPECT_NE(error.find("overlap"), std::string::npos) << error;
}

TEST(ElfLoader, AdjacentSegmentsAreNotOverlapping) {
  ElfImage image;
  std::string error;
  EXPECT_TRUE(Parse(MakeElf({{STRATA_SMEM_BASE + 16, 4, 16}, {STRATA_SMEM_BASE, 4, 16}}), image, error)) << error;
}

std::string Npy(const std::string& descr, const std::string& shape, const std::string& data) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + shape + "), }\n";
  std::string head = "\x93NUMPY";
  head += '\x01';
  head += '\x00';
  head += static_cast<char>(dict.size() & 0xff);
  head += static_cast<char>(dict.size() >> 8);
  return head + dict + data;
}

TEST(Npy, ParsesAndWritesBack) {
  NpyArray a, b;
  std::string error;
  ASSERT_TRUE(ParseNpy(Npy("<i4", "1, 2", std::string(8, '\x01')), "a.npy", a, error)) << error;
  EXPECT_EQ(a.rows, 1u);
  EXPECT_EQ(a.cols, 2u);
  EXPECT_EQ(a.data.size(), 8u);
  ASSERT_TRUE(ParseNpy(NpyHeader(a) + std::string(a.data.begin(), a.data.end()), "b.npy", b, error)) << error;
  EXPECT_EQ(b.descr, a.descr);
  EXPECT_EQ(b.data, a.data);
}

// Found while writing npy_fuzz's invariant (data bytes == rows x cols x element size): 2^62 x 1 int32
// elements need 2^64 bytes, which wrapped to 0, so a header with no data was accepted as a 2^62-row matrix.
TEST(Npy, RefusesAShapeWhoseByteCountWraps) {
  NpyArray a;
  std::string error;
  EXPECT_FALSE(ParseNpy(Npy("<i4", "4611686018427387904, 1", ""), "big.npy", a, error));
  EXPECT_EQ(error, "big.npy: not a valid .npy file: shape too large");
  EXPECT_FALSE(ParseNpy(Npy("|i1", "4294967296, 4294967296", ""), "big.npy", a, error));
  EXPECT_EQ(error, "big.npy: not a valid .npy file: shape too large");
}

}  // namespace
}  // namespace strata::sim
