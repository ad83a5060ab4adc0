// Trace replays (every shared trace at exactly its max load with defragment-on-OOM) and trace parsing errors.
#include <dirent.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "replay.h"

namespace strata::replay {
namespace {

std::vector<std::string> TraceFiles() {
  std::vector<std::string> files;
  if (DIR* d = opendir(STRATA_TRACES_DIR)) {
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name.size() > 4 && name.substr(name.size() - 4) == ".csv") files.push_back(name);
    }
    closedir(d);
  }
  std::sort(files.begin(), files.end());
  return files;
}

struct TraceCase {
  std::string file;
  alloc::Policy policy;
};

void PrintTo(const TraceCase& c, std::ostream* os) { *os << c.file << " " << alloc::PolicyName(c.policy); }

class TraceReplay : public ::testing::TestWithParam<TraceCase> {};

TEST_P(TraceReplay, ZeroFailuresAtExactlyMaxLoadWithCompaction) {
  const TraceCase& c = GetParam();
  if (c.file.empty()) GTEST_SKIP() << "no traces in " << STRATA_TRACES_DIR << " (set STRATA_TRACES_DIR)";
  Trace trace;
  std::string error;
  ASSERT_TRUE(LoadTrace(std::string(STRATA_TRACES_DIR) + "/" + c.file, &trace, &error)) << error;
  ReplayOptions options;
  options.policy = c.policy;
  options.compaction_on_oom = true;
  options.capacity_bytes = MaxLoad(trace, options.granule_bytes);
  ReplayResult r;
  ASSERT_TRUE(Replay(trace, options, &r, &error)) << error;
  EXPECT_EQ(r.failed_allocs, 0u) << ToJson(r);
  EXPECT_LE(r.footprint_bytes, r.capacity_bytes);
  EXPECT_EQ(r.capacity_bytes, r.max_load_bytes);
  RecordProperty("bytes_moved", std::to_string(r.bytes_moved));
  std::printf("%s\n", ToJson(r).c_str());
}

std::vector<TraceCase> Cases() {
  std::vector<TraceCase> cases;
  for (const std::string& f : TraceFiles()) {
    for (uint32_t p = 0; p < alloc::kNumPolicies; ++p) cases.push_back({f, static_cast<alloc::Policy>(p)});
  }
  if (cases.empty()) cases.push_back({"", alloc::Policy::kTlsf});  // reported as skipped
  return cases;
}

INSTANTIATE_TEST_SUITE_P(SharedTraces, TraceReplay, ::testing::ValuesIn(Cases()), [](const auto& info) {
  std::string n = info.param.file.empty() ? std::string("none") : info.param.file.substr(0, info.param.file.size() - 4);
  n += std::string("_") + alloc::PolicyName(info.param.policy);
  for (char& ch : n) ch = (ch == '-' || ch == '.') ? '_' : ch;
  return n;
});

// Without compaction at 1.0x, the hard traces do fail: the replay really is at the edge.
TEST(TraceReplayBaseline, MinimallocFailsAtMaxLoadWithoutCompaction) {
  Trace trace;
  std::string error;
  if (!LoadTrace(std::string(STRATA_TRACES_DIR) + "/minimalloc_A.csv", &trace, &error)) {
    GTEST_SKIP() << error;
  }
  ReplayOptions options;
  options.policy = alloc::Policy::kBestFit;
  options.capacity_bytes = MaxLoad(trace, options.granule_bytes);
  ReplayResult r;
  ASSERT_TRUE(Replay(trace, options, &r, &error)) << error;
  EXPECT_GT(r.failed_allocs, 0u);
}

TEST(TraceReplayBaseline, UnboundedReportsFootprint) {
  std::istringstream in("id,lower,upper,size\n0,0,2,1000\n1,1,3,256\n2,2,4,300\n");
  Trace trace;
  std::string error;
  ASSERT_TRUE(ParseTrace(in, "t", &trace, &error)) << error;
  EXPECT_EQ(MaxLoad(trace, 256), 1024u + 256u);  // at t=1: 1024 + 256; at t=2: 256 + 512
  ReplayOptions options;
  options.policy = alloc::Policy::kFirstFit;
  ReplayResult r;
  ASSERT_TRUE(Replay(trace, options, &r, &error)) << error;
  EXPECT_EQ(r.failed_allocs, 0u);
  EXPECT_EQ(r.capacity_bytes, 0u);
  EXPECT_EQ(r.footprint_bytes, 1024u + 256u);  // buffer 2 reuses buffer 0's space
  EXPECT_NE(ToJson(r).find("\"capacity_bytes\":null"), std::string::npos);
}

struct BadTrace {
  std::string text;
  std::string error;
};

// The printed value becomes the CTest name (gtest_discover_tests): only characters a CMake list and a shell keep.
void PrintTo(const BadTrace& t, std::ostream* os) {
  *os << "error ";
  for (char c : t.error) {
    if (std::isalnum(static_cast<unsigned char>(c)) || std::strchr(" '()_:.,-", c) != nullptr) *os << c;
  }
}

class MalformedTrace : public ::testing::TestWithParam<BadTrace> {};

TEST_P(MalformedTrace, ErrorNamesTheLine) {
  std::istringstream in(GetParam().text);
  Trace trace;
  std::string error;
  EXPECT_FALSE(ParseTrace(in, "bad.csv", &trace, &error));
  EXPECT_EQ(error, GetParam().error);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, MalformedTrace,
    ::testing::Values(
        BadTrace{"", "1: empty trace: no header line"},
        BadTrace{"id,lower,size\n0,0,1\n",
                 "1: not a trace: the first line must be the header naming the columns id, lower, upper, size"},
        BadTrace{"id,lower,upper,size\n0,0,4,256\n1,2\n", "3: expected 4 fields, got 2"},
        BadTrace{"id,lower,upper,size\n0,0,4,25x6\n", "2: size '25x6' is not a non-negative integer"},
        BadTrace{"id,lower,upper,size\n0,5,5,256\n", "2: upper (5) must be greater than lower (5)"},
        BadTrace{"id,lower,upper,size\n0,-1,5,256\n", "2: lower '-1' is not a non-negative integer"},
        BadTrace{"id,lower,upper,size\n\n0,1,5,0\n", "3: size must be at least 1 byte"},
        BadTrace{"id,lower,upper,size\nx,1,5,10\n", "2: id 'x' is not an integer"},
        // An arbitrary file's first line is not quoted; a field is, escaped and cut at 40 bytes.
        BadTrace{"root:$6$secret:19000:0:99999:7:::\n",
                 "1: not a trace: the first line must be the header naming the columns id, lower, upper, size"},
        BadTrace{"id,lower,upper,size\n0,0,4,\x1b]0;title\x07\n",
                 "2: size '\\x1b]0;title\\x07' is not a non-negative integer"},
        BadTrace{"id,lower,upper,size\n0,0,4," + std::string(100, '7') + "x\n",
                 "2: size '" + std::string(40, '7') + "...' is not a non-negative integer"},
        BadTrace{"id,lower,upper,size,id\n", "1: header names column 'id' twice"},
        BadTrace{"id,lower,upper,size\n0,0,1,4611686018427387905\n",
                 "2: size 4611686018427387905 is beyond any device"},
        // Each size is legal; the sum passes 2^63 on the fourth line (and would wrap 2^64 later).
        BadTrace{"id,lower,upper,size\n0,0,1,4611686018427387904\n1,0,1,4611686018427387904\n"
                 "2,0,1,1\n3,0,1,4611686018427387904\n",
                 "4: the sizes up to here add up to more than 2^63 bytes (sums over the trace would "
                 "overflow)"}));

TEST(Capacity, ParsesFactorsAndUnits) {
  uint64_t b;
  std::string e;
  ASSERT_TRUE(ParseCapacity("1.0x", 1 << 20, 256, &b, &e));
  EXPECT_EQ(b, 1u << 20);
  ASSERT_TRUE(ParseCapacity("1.05x", 1000 * 256, 256, &b, &e));
  EXPECT_EQ(b, 1050u * 256);
  ASSERT_TRUE(ParseCapacity("64GiB", 0, 256, &b, &e));
  EXPECT_EQ(b, uint64_t{64} << 30);
  ASSERT_TRUE(ParseCapacity("4096", 0, 256, &b, &e));
  EXPECT_EQ(b, 4096u);
  EXPECT_FALSE(ParseCapacity("abc", 0, 256, &b, &e));
  EXPECT_FALSE(ParseCapacity("-1x", 0, 256, &b, &e));
  EXPECT_FALSE(ParseCapacity("12Q", 0, 256, &b, &e));
  EXPECT_FALSE(ParseCapacity("99999999999T", 0, 256, &b, &e));
  EXPECT_FALSE(ParseCapacity("100", 0, 256, &b, &e));
  EXPECT_EQ(e, "capacity '100' is smaller than one allocation granule (256 bytes)");
  ASSERT_TRUE(ParseCapacity("256", 0, 256, &b, &e));
  EXPECT_EQ(b, 256u);
}

}  // namespace
}  // namespace strata::replay
