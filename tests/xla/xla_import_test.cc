// XLA buffer-assignment import (host/workload/xla_dump.h), the TPU padding rule (tpu.h) and the static plans
// (host/compare/static_plans.h) on dumps JAX wrote here (tests/xla/data, made by make_dumps.py).
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "static_plans.h"
#include "tpu.h"
#include "workload.h"
#include "xla_dump.h"
#include "xla_test_util.h"
#include "xla_text.h"

namespace strata::workload {
namespace {

struct Loaded {
  XlaModule module;
  nlohmann::json memory;
};

Loaded Load(const std::string& program) {
  const std::string dir = kData + "/" + program;
  Loaded l;
  std::string error;
  EXPECT_TRUE(
      ParseXlaText(Read(Find(dir, "-buffer-assignment.txt")), Read(Find(dir, "-live-range.txt")), &l.module, &error))
      << error;
  l.memory = nlohmann::json::parse(Read(dir + "/memory.json"));
  return l;
}

replay::Trace Build(const XlaModule& m, XlaView view, bool pad = false, uint64_t steps = 3) {
  XlaWorkloadOptions o;
  o.view = view;
  o.tpu_pad = pad;
  o.steps = steps;
  replay::Trace t;
  XlaWorkloadStats s;
  std::string error;
  EXPECT_TRUE(BuildXlaWorkload(m, o, &t, &s, &error)) << error;
  return t;
}

class Programs : public testing::TestWithParam<const char*> {};

// Argument, output, alias and temp bytes recomputed from the allocations match memory_analysis().
TEST_P(Programs, SizesMatchMemoryAnalysis) {
  const Loaded l = Load(GetParam());
  EXPECT_EQ(l.module.argument_bytes, l.memory["argument_size_in_bytes"].get<uint64_t>());
  EXPECT_EQ(l.module.output_bytes, l.memory["output_size_in_bytes"].get<uint64_t>());
  EXPECT_EQ(l.module.alias_bytes, l.memory["alias_size_in_bytes"].get<uint64_t>());
  EXPECT_EQ(l.module.temp_bytes, l.memory["temp_size_in_bytes"].get<uint64_t>());
}

// xla-static never overlaps two live buffers and needs exactly the temp allocation; best-fit-decreasing never
// overlaps; the lower bound is at most every plan's peak.
TEST_P(Programs, StaticPlans) {
  const Loaded l = Load(GetParam());
  const replay::Trace t = Build(l.module, XlaView::kExecutable);
  ASSERT_EQ(t.planned_offsets.size(), t.buffers.size());
  uint64_t xla_peak = 0, bfd_peak = 0;
  std::string why;
  EXPECT_TRUE(compare::CheckPlacement(t, t.planned_offsets, &xla_peak, &why)) << why;
  EXPECT_EQ(xla_peak, l.memory["temp_size_in_bytes"].get<uint64_t>());
  EXPECT_TRUE(compare::CheckPlacement(t, compare::BestFitDecreasing(t), &bfd_peak, &why)) << why;
  const uint64_t bound = replay::MaxLoad(t, 1);
  EXPECT_LE(bound, xla_peak);
  EXPECT_LE(bound, bfd_peak);
  EXPECT_LE(bfd_peak, xla_peak);  // these small programs: the offline packing is never worse
}

// Best-fit-decreasing finds the buffers live beside each one through an index by time; it must place every buffer
// exactly where the plain scan over every placed buffer (this reference, the code it replaced) places it. Random
// traces: few and many distinct times, zero-length and equal intervals, repeated sizes.
std::vector<uint64_t> BestFitDecreasingByScan(const replay::Trace& trace) {
  const size_t n = trace.buffers.size();
  std::vector<uint32_t> order(n);
  for (uint32_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
    const replay::TraceBuffer& a = trace.buffers[x];
    const replay::TraceBuffer& b = trace.buffers[y];
    if (a.size != b.size) return a.size > b.size;
    return a.upper - a.lower > b.upper - b.lower;
  });
  std::vector<uint64_t> offsets(n, 0);
  std::vector<uint32_t> placed;
  std::vector<std::pair<uint64_t, uint64_t>> busy;
  for (uint32_t k : order) {
    const replay::TraceBuffer& b = trace.buffers[k];
    busy.clear();
    for (uint32_t p : placed) {
      const replay::TraceBuffer& q = trace.buffers[p];
      if (q.lower < b.upper && b.lower < q.upper) busy.emplace_back(offsets[p], offsets[p] + q.size);
    }
    std::sort(busy.begin(), busy.end());
    uint64_t best = UINT64_MAX, best_gap = UINT64_MAX, cursor = 0;
    for (const auto& [start, end] : busy) {
      if (start > cursor && start - cursor >= b.size && start - cursor < best_gap) {
        best = cursor;
        best_gap = start - cursor;
      }
      cursor = std::max(cursor, end);
    }
    offsets[k] = best != UINT64_MAX ? best : cursor;
    placed.push_back(k);
  }
  return offsets;
}

TEST(StaticPlans, BestFitDecreasingPlacesAsTheScanDoes) {
  uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&](uint64_t bound) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state % bound;
  };
  size_t buffers = 0;
  for (int run = 0; run < 60; ++run) {
    replay::Trace t;
    const uint64_t span = 1 + next(run % 3 == 0 ? 8 : 2000);  // few distinct times, or many
    const size_t n = 1 + next(400);
    for (size_t i = 0; i < n; ++i) {
      replay::TraceBuffer b;
      b.id = static_cast<int64_t>(i);
      b.lower = next(span);
      b.upper = b.lower + next(span / 2 + 2);  // zero-length ones too
      b.size = run % 2 ? 256 * (1 + next(8)) : 1 + next(1 << 20);
      t.buffers.push_back(b);
    }
    buffers += n;
    const std::vector<uint64_t> got = compare::BestFitDecreasing(t);
    ASSERT_EQ(got, BestFitDecreasingByScan(t)) << "run " << run << ", " << n << " buffers over " << span << " times";
  }
  EXPECT_GT(buffers, 5000u);
}

// Steps: arguments live throughout, donated ones carry over as their outputs; each call adds its temp allocation
// and its non-aliased outputs; the peak is arguments + temp + two calls' non-aliased outputs.
TEST_P(Programs, StepsView) {
  const Loaded l = Load(GetParam());
  const uint64_t args = l.memory["argument_size_in_bytes"].get<uint64_t>();
  const uint64_t fresh_outputs =
      l.memory["output_size_in_bytes"].get<uint64_t>() - l.memory["alias_size_in_bytes"].get<uint64_t>();
  const uint64_t temp = l.memory["temp_size_in_bytes"].get<uint64_t>();
  const replay::Trace t = Build(l.module, XlaView::kSteps, false, 4);
  EXPECT_EQ(replay::MaxLoad(t, 1), args + l.module.constant_bytes + temp + 2 * fresh_outputs);
  uint64_t at_zero = 0;
  for (const replay::TraceBuffer& b : t.buffers) at_zero += b.lower == 0 ? b.size : 0;
  EXPECT_EQ(at_zero, args + l.module.constant_bytes);
}

INSTANTIATE_TEST_SUITE_P(Xla, Programs, testing::Values("chain", "scan", "donation"));

// The chain of five elementwise ops on one 128 KiB array: XLA runs them in place in the output buffer, one
// after another (each value's range starts where the previous one's ends).
TEST(Chain, ValuesAndLiveRanges) {
  const Loaded l = Load("chain");
  const XlaAllocation* out = nullptr;
  for (const XlaAllocation& a : l.module.allocations) {
    if (a.live_out && a.parameter < 0) out = &a;
  }
  ASSERT_NE(out, nullptr);
  ASSERT_EQ(out->values.size(), 5u);
  for (size_t k = 0; k < out->values.size(); ++k) {
    EXPECT_EQ(out->values[k].size, 256u * 128u * 4u);
    EXPECT_EQ(out->values[k].offset, 0u);
    EXPECT_GE(out->values[k].start, 0);
    if (k > 0) {
      EXPECT_EQ(out->values[k].start, out->values[k - 1].end);
    }
  }
}

// Donation: every parameter that is updated is aliased to its output.
TEST(Donation, AliasedParameters) {
  const Loaded l = Load("donation");
  int aliased = 0;
  for (const XlaAllocation& a : l.module.allocations) aliased += a.parameter >= 0 && a.live_out;
  EXPECT_EQ(aliased, 6);  // three weights and their three momenta
  const replay::Trace t = Build(l.module, XlaView::kSteps, false, 3);
  EXPECT_EQ(t.buffers.size(), 8u + 3u * 2u);  // 8 arguments; per call the output tuple and the temp allocation
}

// The rule, written out: minor dimension to a multiple of 128; second-minor to 8 (32-bit), 16 (16-bit), 32 (8-bit).
TEST(TpuPadding, Edges) {
  const struct {
    const char* dtype;
    uint64_t bytes, tile;
  } types[] = {{"f32", 4, 8}, {"s32", 4, 8}, {"bf16", 2, 16}, {"f16", 2, 16}, {"s8", 1, 32}, {"pred", 1, 32}};
  auto up = [](uint64_t x, uint64_t m) { return (x + m - 1) / m * m; };
  for (const auto& t : types) {
    for (uint64_t minor : {127u, 128u, 129u}) {
      for (uint64_t second : {t.tile - 1, t.tile, t.tile + 1}) {
        const std::string shape =
            std::string(t.dtype) + "[3," + std::to_string(second) + "," + std::to_string(minor) + "]{2,1,0}";
        uint64_t padded = 0;
        ASSERT_TRUE(TpuPaddedBytes(shape, &padded)) << shape;
        EXPECT_EQ(padded, 3 * up(second, t.tile) * up(minor, 128) * t.bytes) << shape;
      }
    }
  }
  uint64_t b = 0;
  // The layout decides which dimension is minor: {0,1} makes the first one minor.
  ASSERT_TRUE(TpuPaddedBytes("f32[129,7]{0,1}", &b));
  EXPECT_EQ(b, 256u * 8u * 4u);
  ASSERT_TRUE(TpuPaddedBytes("f32[129]{0}", &b));  // rank 1: only the minor dimension
  EXPECT_EQ(b, 256u * 4u);
  ASSERT_TRUE(TpuPaddedBytes("f32[]", &b));
  EXPECT_EQ(b, 4u);
  EXPECT_FALSE(TpuPaddedBytes("(f32[], f32[2])", &b));
  // Past 2^62 bytes the size saturates there (the largest buffer a trace holds): 4.1e18 elements of 16 bytes
  // once wrapped 64 bits.
  ASSERT_TRUE(TpuPaddedBytes("c128[1000000000000000,4000]{1,0}", &b));
  EXPECT_EQ(b, uint64_t{1} << 62);
  ASSERT_TRUE(TpuPaddedBytes("s4[1000000000000000,4096]{1,0}", &b));
  EXPECT_EQ(b, 2048000000000000000u);
  ASSERT_TRUE(TpuPaddedBytes("f32[0,1000000000000000,1000000000000000]", &b));
  EXPECT_EQ(b, 0u);
  EXPECT_FALSE(TpuPaddedBytes("q99[3]", &b));
}

TEST(TpuPadding, ExecutableViewReportsOverhead) {
  const Loaded l = Load("donation");
  XlaWorkloadOptions o;
  o.tpu_pad = true;
  replay::Trace t;
  XlaWorkloadStats s;
  std::string error;
  ASSERT_TRUE(BuildXlaWorkload(l.module, o, &t, &s, &error)) << error;
  EXPECT_TRUE(t.planned_offsets.empty());       // XLA's offsets were for the unpadded sizes
  EXPECT_GT(s.padded_bytes, s.unpadded_bytes);  // f32[128,32] pads its minor dimension to 128
  EXPECT_EQ(s.unparsed_shapes, 0u);
}

TEST(TpuPresets, Figures) {
  TpuPreset p;
  ASSERT_TRUE(TpuPresetByName("tpu-v5p", &p));
  EXPECT_EQ(p.hbm_bytes, 95ull << 30);
  ASSERT_TRUE(TpuPresetByName("TPU-7x", &p));
  EXPECT_EQ(p.hbm_bytes, 96ull << 30);
  EXPECT_FALSE(TpuPresetByName("tpu-v1", &p));
  EXPECT_EQ(TpuPresetNames(), "tpu-v4, tpu-v5e, tpu-v5p, tpu-v6e, tpu-7x");
}

// Bad input: the error names the file and line.
class BadInput : public testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/strata-xla-XXXXXX";
    ASSERT_NE(mkdtemp(templ), nullptr);
    dir_ = templ;
    const std::string src = kData + "/donation";
    for (const char* suffix : {"-buffer-assignment.txt", "-live-range.txt", "-buffer-assignment-values.txt"}) {
      Write(std::string("m") + suffix, Read(Find(src, suffix)));
    }
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void Write(const std::string& name, const std::string& text) { std::ofstream(dir_ + "/" + name) << text; }
  std::string Import(const std::string& path, const std::string& module = "") {
    ImportOptions o;
    o.xla_module = module;
    replay::Trace t;
    ImportStats s;
    std::string error;
    EXPECT_FALSE(ImportFile(path, Format::kAuto, o, &t, &s, &error));
    return error;
  }
  std::string dir_;
};

TEST_F(BadInput, TruncatedMidLine) {
  const std::string a = Read(dir_ + "/m-buffer-assignment.txt");
  Write("m-buffer-assignment.txt", a.substr(0, a.find("(size=131072") + 8));
  EXPECT_NE(Import(dir_).find("m-buffer-assignment.txt:"), std::string::npos);
  EXPECT_NE(Import(dir_).find(": size or offset is not a byte count"), std::string::npos) << Import(dir_);
}

TEST_F(BadInput, TruncatedAtALine) {
  const std::string a = Read(dir_ + "/m-buffer-assignment.txt");
  Write("m-buffer-assignment.txt", a.substr(0, a.rfind("\n value:") + 1));
  EXPECT_NE(
      Import(dir_).find("m-buffer-assignment.txt:41: 27 values, buffer-assignment-values.txt lists 28 (truncated?)"),
      std::string::npos)
      << Import(dir_);
  Write("m-buffer-assignment.txt", a.substr(0, a.rfind("\nallocation ") + 1));
  EXPECT_NE(Import(dir_).find("the allocations add up to 247868 bytes, buffer-assignment-values.txt says 559164"),
            std::string::npos)
      << Import(dir_);
}

TEST_F(BadInput, TruncatedLiveRange) {
  const std::string l = Read(dir_ + "/m-live-range.txt");
  Write("m-live-range.txt", l.substr(0, l.find("  Live ranges at")));
  EXPECT_NE(Import(dir_).find("m-live-range.txt:"), std::string::npos);
  EXPECT_NE(Import(dir_).find("ends before its 'Live ranges at' section (truncated?)"), std::string::npos)
      << Import(dir_);
}

TEST_F(BadInput, NoBufferAssignmentInDirectory) {
  ASSERT_TRUE(std::filesystem::remove(dir_ + "/m-buffer-assignment.txt"));
  EXPECT_NE(Import(dir_).find(": no *-buffer-assignment.txt or *.hlo.pb in this directory"), std::string::npos)
      << Import(dir_);
}

TEST_F(BadInput, WrongModule) {
  EXPECT_NE(Import(dir_, "jit_train").find("no module's buffer assignment contains 'jit_train' (1 modules"),
            std::string::npos)
      << Import(dir_, "jit_train");
}

TEST_F(BadInput, Garbage) {
  Write("m-buffer-assignment.txt", "\x89PNG garbage\n");
  EXPECT_NE(Import(dir_).find("m-buffer-assignment.txt:1: expected 'BufferAssignment:'"), std::string::npos)
      << Import(dir_);
  Write("m-buffer-assignment.txt",
        "BufferAssignment:\nallocation 0: size 4, constant:\n value: <1 c @0> (size=8,offset=0): f32[2]\n");
  EXPECT_NE(Import(dir_).find(":3: value 1 (offset 0, size 8) does not fit allocation 0 of 4 bytes"), std::string::npos)
      << Import(dir_);
}

TEST_F(BadInput, AssignmentWithoutLiveRanges) {
  std::filesystem::rename(dir_ + "/m-buffer-assignment.txt", dir_ + "/plain.txt");
  EXPECT_NE(Import(dir_ + "/plain.txt").find("plain.txt:1: a buffer assignment alone has no live ranges"),
            std::string::npos)
      << Import(dir_ + "/plain.txt");
}

// A dump directory holding, under a module's file name, what is not a regular file or is larger than the input
// limit (issue #45): every file read from it, those only counted to choose a module included, is read as every
// other input is, and refused with its name. Before, a FIFO hung the import (strata-import, strata-compare and
// strata-fit alike), and /dev/zero or a sparse file was read to its end into one line. Run in a child process
// (InChild): the old hang or unbounded read fails the test in 20 s instead of stopping the suite.
TEST_F(BadInput, SpecialFilesInDirectory) {
  auto import_dir = [this](const std::string& module = "") {
    return InChild([&](std::string* text) {
      ImportOptions o;
      o.xla_module = module;
      replay::Trace t;
      ImportStats s;
      return ImportFile(dir_, Format::kAuto, o, &t, &s, text);
    });
  };
  const std::string z = dir_ + "/z-buffer-assignment.txt";
  ASSERT_EQ(mkfifo(z.c_str(), 0600), 0);
  ChildResult r = import_dir();
  EXPECT_EQ(r.status, 1) << "a FIFO in the dump directory: exit " << r.status << " (142 = hung) " << r.text;
  EXPECT_EQ(r.text, z + ": not a regular file (a FIFO)");
  r = import_dir("m-buffer");  // the FIFO is no candidate: it is not opened
  EXPECT_EQ(r.status, 0) << r.text;

  ASSERT_TRUE(std::filesystem::remove(z));
  std::filesystem::create_symlink("/dev/zero", z);
  r = import_dir();
  EXPECT_EQ(r.status, 1) << "/dev/zero in the dump directory: exit " << r.status << " " << r.text;
  EXPECT_EQ(r.text, z + ": not a regular file (a device or socket)");

  ASSERT_TRUE(std::filesystem::remove(z));
  std::ofstream(z).close();
  std::filesystem::resize_file(z, uint64_t{2} << 30);  // sparse: no disk used
  r = import_dir();
  EXPECT_EQ(r.status, 1) << "a sparse 2 GiB file in the dump directory: exit " << r.status << " " << r.text;
  EXPECT_EQ(r.text, z + ": byte 0: the file is 2147483648 bytes, over the limit of 1073741824");
  ASSERT_TRUE(std::filesystem::remove(z));

  // The module's own live-range and values files: a FIFO is refused with its name, not taken as missing.
  for (const char* suffix : {"-live-range.txt", "-buffer-assignment-values.txt"}) {
    const std::string f = dir_ + "/m" + suffix, keep = Read(f);
    ASSERT_TRUE(std::filesystem::remove(f));
    ASSERT_EQ(mkfifo(f.c_str(), 0600), 0);
    r = import_dir();
    EXPECT_EQ(r.status, 1) << suffix << ": exit " << r.status << " " << r.text;
    EXPECT_EQ(r.text, f + ": not a regular file (a FIFO)");
    ASSERT_TRUE(std::filesystem::remove(f));
    Write(std::string("m") + suffix, keep);
  }
}

// A buffer-assignment text of `n` allocations, each "SIZE, ATTRIBUTES" with one value filling it, and a live-range
// text naming them all, in a directory as XLA writes them.
void WriteDump(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& allocations) {
  std::string a = "BufferAssignment:\n", l = "HloLiveRange (max 1):\n  BufferLiveRange:\n";
  for (size_t k = 0; k < allocations.size(); ++k) {
    const std::string n = std::to_string(k), size = allocations[k].first;
    a += "allocation " + n + ": size " + size + ", " + allocations[k].second + ":\n value: <" + n + " v." + n +
         " @0> (size=" + size + ",offset=0): f32[1]{0}\n";
    l += "    v." + n + "{}:0-1\n";
  }
  std::ofstream(dir + "/m-buffer-assignment.txt") << a;
  std::ofstream(dir + "/m-live-range.txt") << l << "  Live ranges at 0 (peak):\n";
  std::filesystem::remove(dir + "/m-buffer-assignment-values.txt");
}

// Sizes whose sums pass 2^63 (issue #45), refused where they pass it as the torch and RMM importers do: before, five
// parameters of 2^62 bytes imported with exit 0 and a peak wrapped to 2^62, and four temp allocations of 2^62
// wrapped to nothing ("the module allocates nothing").
TEST_F(BadInput, SizesAddingUpPast2To63) {
  const std::string big = std::to_string(uint64_t{1} << 62);
  std::vector<std::pair<std::string, std::string>> params, temps;
  for (int k = 0; k < 5; ++k) params.emplace_back(big, "parameter " + std::to_string(k));
  for (int k = 0; k < 4; ++k) temps.emplace_back(big, "preallocated-temp");
  for (const auto* allocations : {&params, &temps}) {
    WriteDump(dir_, *allocations);
    ImportOptions o;
    o.xla.view = XlaView::kSteps;
    replay::Trace t;
    ImportStats s;
    std::string error;
    EXPECT_FALSE(ImportFile(dir_, Format::kAuto, o, &t, &s, &error)) << "peak " << s.peak_live_bytes;
    EXPECT_NE(error.find("m-buffer-assignment.txt:6: allocation 2: the allocations' sizes up to here add up to more "
                         "than 2^63 bytes"),
              std::string::npos)
        << error;
  }
  // One output of 2^61 bytes, every step a fresh one: the fifth passes 2^63.
  WriteDump(dir_, {{std::to_string(uint64_t{1} << 61), "maybe-live-out"}});
  XlaModule m;
  std::string error;
  ASSERT_TRUE(ParseXlaText(Read(dir_ + "/m-buffer-assignment.txt"), Read(dir_ + "/m-live-range.txt"), &m, &error))
      << error;
  XlaWorkloadOptions o;
  o.view = XlaView::kSteps;
  o.steps = 4;
  replay::Trace t;
  XlaWorkloadStats s;
  ASSERT_TRUE(BuildXlaWorkload(m, o, &t, &s, &error)) << error;
  EXPECT_EQ(s.padded_bytes, uint64_t{1} << 63);
  o.steps = 5;
  EXPECT_FALSE(BuildXlaWorkload(m, o, &t, &s, &error));
  EXPECT_EQ(error,
            "step 5, output allocation 0: the workload's sizes up to here add up to more than 2^63 bytes (the most a "
            "trace holds)");
}

// The steps view's buffers grow as outputs x --xla-steps (issue #45: 97 KB of dump made 1.2 GB at 10,000 steps):
// counted before anything is allocated and refused past 2^17 plus one per 4 input bytes, saying how many steps fit;
// that many are made. In a child with 1 GiB of address space, where the old unbounded build ran out of memory.
TEST_F(BadInput, StepsViewBounded) {
  std::vector<std::pair<std::string, std::string>> outputs(2000, {"4", "maybe-live-out"});
  WriteDump(dir_, outputs);
  const std::string a = Read(dir_ + "/m-buffer-assignment.txt"), l = Read(dir_ + "/m-live-range.txt");
  const uint64_t limit = (uint64_t{1} << 17) + (a.size() + l.size()) / 4, most = limit / 2000;
  ChildResult r = InChild([&](std::string* text) {
    XlaModule m;
    if (!ParseXlaText(a, l, &m, text)) return true;  // reported as a wrong message below
    XlaWorkloadOptions o;
    o.view = XlaView::kSteps;
    o.steps = 10000;
    replay::Trace t;
    XlaWorkloadStats s;
    if (BuildXlaWorkload(m, o, &t, &s, text)) {
      *text = std::to_string(t.buffers.size()) + " buffers made";
      return true;
    }
    o.steps = most;
    std::string at_most;
    if (!BuildXlaWorkload(m, o, &t, &s, &at_most)) *text += "; at the most that fit: " + at_most;
    return false;
  });
  EXPECT_EQ(r.status, 1) << r.text;
  EXPECT_EQ(r.text,
            "--xla-steps 10000: the steps view would make 20000000 buffers (2000 per step), over the limit of " +
                std::to_string(limit) + " for a module of " + std::to_string(a.size() + l.size()) +
                " bytes (2^17 plus one per 4 bytes read, to stay within the importers' memory bound): at most "
                "--xla-steps " +
                std::to_string(most));
}

}  // namespace
}  // namespace strata::workload
