// The driver core (C API, registry, options, identity, failure rule) with fake backends defined here: this
// binary links no simulator, firmware or CUDA.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "backend.h"
#include "named_values.h"
#include "strata/strata.h"
#include "strata/strata.hpp"

namespace strata::driver {
namespace {

// A backend that keeps buffers in a map and can be told to fail or throw.
class FakeBackend : public Backend {
 public:
  explicit FakeBackend(const OpenOptions& o) : options_(o.AsText()) {}
  const char* name() const override { return "fake"; }
  Error GetInfo(strata_device_info* out) override {
    out->backend = "fake";
    out->hbm_capacity_bytes = 1 << 20;
    return {};
  }
  Error CreateContext(uint64_t, uint32_t, strata_context* out) override {
    *out = ++contexts_;
    return {};
  }
  Error CreateContextWithOptions(uint64_t q, uint32_t ppm, const OpenOptions& o, strata_context* out) override {
    context_options_ = o.AsText();
    return CreateContext(q, ppm, out);
  }
  Error DestroyContext(strata_context c) override {
    return c >= 1 && c <= contexts_ ? Error{} : Error{STRATA_NOT_FOUND, "no such context"};
  }
  Error Alloc(strata_context c, uint64_t bytes, uint64_t, uint32_t, strata_buffer* out) override {
    if (c < 1 || c > contexts_) return {STRATA_NOT_FOUND, "no such context"};
    if (bytes == 777) throw std::runtime_error("backend bug");
    if (bytes == 778) return {STRATA_UNAVAILABLE, "the device did not answer within 5 cycles"};
    *out = ++next_;
    buffers_[*out] = std::vector<uint8_t>(bytes);
    return {};
  }
  Error Free(strata_context, strata_buffer b) override {
    return buffers_.erase(b) ? Error{} : Error{STRATA_NOT_FOUND, "stale handle"};
  }
  Error Write(strata_context, strata_buffer b, uint64_t off, const void* src, uint64_t n) override {
    auto it = buffers_.find(b);
    if (it == buffers_.end()) return {STRATA_NOT_FOUND, "stale handle"};
    if (off + n > it->second.size()) return {STRATA_OUT_OF_RANGE, "range"};
    std::memcpy(it->second.data() + off, src, n);
    return {};
  }
  Error Read(strata_context, strata_buffer b, uint64_t off, void* dst, uint64_t n) override {
    auto it = buffers_.find(b);
    if (it == buffers_.end()) return {STRATA_NOT_FOUND, "stale handle"};
    if (off + n > it->second.size()) return {STRATA_OUT_OF_RANGE, "range"};
    std::memcpy(dst, it->second.data() + off, n);
    return {};
  }
  Error Gemm(strata_context, const strata_gemm_args&) override { return {STRATA_UNIMPLEMENTED, "no gemm"}; }
  Error Compact(strata_context, uint64_t, uint32_t, strata_compact_result*) override { return {}; }
  Error MemoryStats(strata_context, strata_memory_stats* out) override {
    out->live_buffers = static_cast<uint32_t>(buffers_.size());
    return {};
  }
  Error Synchronize() override { return {}; }
  void Interrupt() override { interrupts_.fetch_add(1, std::memory_order_relaxed); }  // state a freed backend loses

  std::map<std::string, std::string> options_;
  std::map<std::string, std::string> context_options_;  // the last context's

 private:
  std::atomic<uint64_t> interrupts_{0};
  uint32_t contexts_ = 0;
  uint64_t next_ = 0;
  std::map<uint64_t, std::vector<uint8_t>> buffers_;
};

FakeBackend* g_last = nullptr;

Error OpenFake(const OpenOptions& o, std::unique_ptr<Backend>* out) {
  if (o.GetString("mode") == "refuse") return {STRATA_INVALID_ARGUMENT, "mode refuse"};
  auto b = std::make_unique<FakeBackend>(o);
  g_last = b.get();
  *out = std::move(b);
  return {};
}

class DriverCore : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    RegisterBackend({"fake",
                     "a test backend",
                     {{"mode", STRATA_VALUE_STRING, "normal", "normal or refuse", {"normal", "refuse"}},
                      {"size", STRATA_VALUE_INT64, "-12", "a number", {"-12", "0", "4096"}},
                      {"ratio", STRATA_VALUE_DOUBLE, "0.5", "a fraction"},
                      {"flag", STRATA_VALUE_BOOL, "true", "a switch"},
                      {"hbm_preset", STRATA_VALUE_STRING, "", "a classic field"}},
                     OpenFake});
    // A backend with named context options (API 1.9), as the GPU backends' policy and its settings.
    RegisterBackend({"fake-ctx",
                     "a test backend with context options",
                     {},
                     OpenFake,
                     nullptr,
                     {{"policy", STRATA_VALUE_STRING, "a", "a name"}, {"level", STRATA_VALUE_INT64, "0", "a number"}}});
    // A backend that cannot open here is listed with the reason (as cuda without a GPU).
    RegisterBackend(
        {"fake-absent", "a test backend with no device", {}, OpenFake, [] { return std::string("no fake device"); }});
  }
  strata_device* Open(const strata_open_options* o = nullptr) {
    strata_device* d = nullptr;
    EXPECT_EQ(strata_open("fake", o, &d), STRATA_OK) << strata_last_error_message();
    return d;
  }
};

using strata::test_values::Int;
using strata::test_values::Str;

TEST_F(DriverCore, ListsRegisteredBackends) {
  size_t count = 0;
  ASSERT_EQ(strata_list_backends(nullptr, 0, &count), STRATA_OK);
  ASSERT_GE(count, 1u);
  std::vector<const char*> names(count);
  ASSERT_EQ(strata_list_backends(names.data(), names.size(), &count), STRATA_OK);
  bool found = false;
  for (const char* n : names) found = found || std::string(n) == "fake";
  EXPECT_TRUE(found);
  EXPECT_EQ(strata_list_backends(nullptr, 1, &count), STRATA_INVALID_ARGUMENT);
}

TEST_F(DriverCore, UnknownBackendListsTheAvailableOnes) {
  strata_device* d = reinterpret_cast<strata_device*>(1);
  EXPECT_EQ(strata_open("nope", nullptr, &d), STRATA_UNIMPLEMENTED);
  EXPECT_EQ(d, nullptr);
  const std::string message = strata_last_error_message();
  EXPECT_NE(message.find("unknown backend 'nope' (this build has: "), std::string::npos) << message;
  EXPECT_NE(message.find("fake, "), std::string::npos) << message;
  EXPECT_NE(message.find("fake-absent (unavailable: no fake device)"), std::string::npos) << message;
}

TEST_F(DriverCore, BackendOptionsAreDescribed) {
  size_t count = 0;
  ASSERT_EQ(strata_get_backend_options("fake", nullptr, 0, &count), STRATA_OK);
  // The fake's five, then the options the core handles for every backend (the timeline).
  ASSERT_EQ(count, 5u + strata::driver::CoreOptions().size());
  std::vector<strata_option_info> info(count);
  for (auto& i : info) i.struct_size = sizeof i;
  ASSERT_EQ(strata_get_backend_options("fake", info.data(), info.size(), &count), STRATA_OK);
  EXPECT_STREQ(info[5].name, "timeline");
  EXPECT_STREQ(info[2].name, "ratio");
  EXPECT_EQ(info[2].type, STRATA_VALUE_DOUBLE);
  EXPECT_STREQ(info[2].default_value, "0.5");
  EXPECT_STREQ(info[2].help, "a fraction");
  EXPECT_EQ(strata_get_backend_options("nope", nullptr, 0, &count), STRATA_UNIMPLEMENTED);
}

// API 1.10: each option's choices (NULL-terminated, as declared) and its default typed, read back through the C API.
TEST_F(DriverCore, BackendOptionsCarryChoicesAndTypedDefaults) {
  size_t count = 0;
  ASSERT_EQ(strata_get_backend_options("fake", nullptr, 0, &count), STRATA_OK);
  std::vector<strata_option_info> info(count);
  for (auto& i : info) i.struct_size = sizeof i;
  ASSERT_EQ(strata_get_backend_options("fake", info.data(), info.size(), &count), STRATA_OK);
  ASSERT_EQ(info[0].num_choices, 2u);
  EXPECT_STREQ(info[0].choices[0], "normal");
  EXPECT_STREQ(info[0].choices[1], "refuse");
  EXPECT_EQ(info[0].choices[2], nullptr);
  ASSERT_EQ(info[1].num_choices, 3u);
  EXPECT_STREQ(info[1].choices[2], "4096");
  EXPECT_EQ(info[1].default_int64, -12);
  EXPECT_EQ(info[2].choices, nullptr);  // any value of its type
  EXPECT_EQ(info[2].num_choices, 0u);
  EXPECT_EQ(info[2].default_double, 0.5);
  EXPECT_EQ(info[3].default_bool, 1);
  EXPECT_EQ(info[3].default_int64, 0);  // only the option's own type is set
  // The core's timeline_max_bytes: its text and its number agree.
  const auto max =
      std::find_if(info.begin(), info.end(), [](const auto& i) { return std::string(i.name) == "timeline_max_bytes"; });
  ASSERT_NE(max, info.end());
  EXPECT_EQ(std::to_string(max->default_int64), max->default_value);
}

// A caller built against API 1.2 .. 1.9 passes an array of the smaller struct (up to `help`): its struct_size is the
// stride, the fields it has are filled and nothing past each element's end is written.
TEST_F(DriverCore, AnOlderCallersSmallerOptionInfosStillWork) {
  constexpr size_t kOld = offsetof(strata_option_info, choices);
  size_t count = 0;
  ASSERT_EQ(strata_get_backend_options("fake", nullptr, 0, &count), STRATA_OK);
  std::vector<unsigned char> array(kOld * count + 16, 0xab);
  for (size_t i = 0; i < count; ++i) {
    strata_option_info head{};
    head.struct_size = kOld;
    std::memcpy(array.data() + i * kOld, &head, sizeof head.struct_size);
  }
  auto* out = reinterpret_cast<strata_option_info*>(array.data());
  size_t got = 0;
  ASSERT_EQ(strata_get_backend_options("fake", out, count, &got), STRATA_OK) << strata_last_error_message();
  EXPECT_EQ(got, count);
  for (size_t i = 0; i < count; ++i) {
    strata_option_info old{};
    std::memcpy(&old, array.data() + i * kOld, kOld);
    EXPECT_EQ(old.struct_size, kOld);
    EXPECT_NE(old.name, nullptr);
    EXPECT_NE(old.help, nullptr);
  }
  strata_option_info third{};
  std::memcpy(&third, array.data() + 2 * kOld, kOld);
  EXPECT_STREQ(third.name, "ratio");
  EXPECT_STREQ(third.default_value, "0.5");
  for (size_t b = kOld * count; b < array.size(); ++b) EXPECT_EQ(array[b], 0xab) << "byte " << b << " past the array";
  // Elements of different sizes, or smaller than the 1.2 struct, are refused and nothing is written.
  std::vector<strata_option_info> mixed(2);
  mixed[0].struct_size = sizeof(strata_option_info);
  mixed[1].struct_size = kOld;
  EXPECT_EQ(strata_get_backend_options("fake", mixed.data(), 2, &got), STRATA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(strata_last_error_message()).find("out[1].struct_size differs"), std::string::npos);
  EXPECT_EQ(mixed[0].name, nullptr);
  strata_option_info tiny{};
  tiny.struct_size = kOld - 1;
  EXPECT_EQ(strata_get_backend_options("fake", &tiny, 1, &got), STRATA_INVALID_ARGUMENT);
}

TEST_F(DriverCore, NamedOptionsReachTheBackendTyped) {
  const strata_named_value v[] = {Str("mode", "normal"), Int("size", 42), Int("ratio", 1)};
  strata_open_options o{};
  o.struct_size = sizeof o;
  o.named_options = v;
  o.num_named_options = 3;
  strata_device* d = Open(&o);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(g_last->options_["size"], "42");
  EXPECT_EQ(g_last->options_["ratio"], "1");  // an int64 given for a double option is promoted
  EXPECT_EQ(strata_close(d), STRATA_OK);
}

// strata::NamedOptions keeps a C++ number's type on its way to strata_open (no trip through text): every int64 up to
// INT64_MAX arrives exact, a whole double is an integer, and what the option's type cannot hold is refused by name.
TEST_F(DriverCore, CppNamedOptionsKeepNumbersTyped) {
  auto open_with = [&](const std::function<void(strata::NamedOptions&)>& add) {
    strata::NamedOptions named("fake");
    add(named);
    strata_open_options o{};
    o.struct_size = sizeof o;
    o.named_options = named.data();
    o.num_named_options = named.size();
    strata_device* d = Open(&o);
    const std::map<std::string, std::string> seen = g_last->options_;  // the backend goes with the device
    EXPECT_EQ(strata_close(d), STRATA_OK);
    return seen;
  };
  for (const uint64_t v : {uint64_t{0}, uint64_t{1} << 40, uint64_t{INT64_MAX}}) {
    EXPECT_EQ(open_with([&](auto& n) { n.Add("size", v); })["size"], std::to_string(v));
  }
  EXPECT_EQ(open_with([&](auto& n) { n.Add("size", int64_t{-7}); })["size"], "-7");
  EXPECT_EQ(open_with([&](auto& n) { n.Add("size", 3.0); })["size"], "3");
  EXPECT_EQ(open_with([&](auto& n) { n.Add("ratio", 1u << 30); })["ratio"], "1073741824");
  EXPECT_EQ(open_with([&](auto& n) { n.Add("flag", false); })["flag"], "false");
  EXPECT_EQ(open_with([&](auto& n) { n.Add("mode", 12); })["mode"], "12");  // a string option: the number written out
  auto refused = [](const std::function<void(strata::NamedOptions&)>& add) {
    strata::NamedOptions named("fake");
    try {
      add(named);
    } catch (const strata::Error& e) {
      EXPECT_EQ(e.status(), STRATA_INVALID_ARGUMENT);
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refused([](auto& n) { n.Add("size", uint64_t{INT64_MAX} + 1); }),
            "option size of the fake backend wants an integer, not '9223372036854775808'");
  EXPECT_EQ(refused([](auto& n) { n.Add("size", 0.5); }),
            "option size of the fake backend wants an integer, not '0.5'");
  EXPECT_NE(refused([](auto& n) { n.Add("size", 1e300); }).find("wants an integer"), std::string::npos);
  EXPECT_EQ(refused([](auto& n) { n.Add("size", true); }),
            "option size of the fake backend wants an integer, not 'true'");
  EXPECT_EQ(refused([](auto& n) { n.Add("flag", 2); }), "option flag of the fake backend wants true or false, not '2'");
  EXPECT_EQ(refused([](auto& n) { n.Add("ratio", true); }),
            "option ratio of the fake backend wants a number, not 'true'");
  // A name the backend does not declare goes on in its own type, for strata_open to name.
  strata::NamedOptions named("fake");
  named.Add("sizee", uint64_t{5});
  ASSERT_EQ(named.size(), 1u);
  EXPECT_EQ(named.data()[0].type, STRATA_VALUE_INT64);
  EXPECT_EQ(named.data()[0].int64_value, 5);
}

TEST_F(DriverCore, UnknownOrMistypedOptionsAreRefusedByName) {
  strata_open_options o{};
  o.struct_size = sizeof o;
  strata_named_value bad[] = {Int("sizee", 1)};
  o.named_options = bad;
  o.num_named_options = 1;
  strata_device* d = nullptr;
  EXPECT_EQ(strata_open("fake", &o, &d), STRATA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(strata_last_error_message())
                .find("no option 'sizee' (valid: mode, size, ratio, flag, hbm_preset, timeline,"),
            std::string::npos)
      << strata_last_error_message();
  strata_named_value mistyped[] = {Str("size", "12")};
  o.named_options = mistyped;
  EXPECT_EQ(strata_open("fake", &o, &d), STRATA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(strata_last_error_message()).find("option 'size' is a int64, not a string"), std::string::npos);
  strata_named_value null_string[] = {Str("mode", nullptr)};
  o.named_options = null_string;
  EXPECT_EQ(strata_open("fake", &o, &d), STRATA_INVALID_ARGUMENT);
  o.named_options = nullptr;  // with a count
  EXPECT_EQ(strata_open("fake", &o, &d), STRATA_INVALID_ARGUMENT);
  // A classic field the backend does not accept is refused like an unknown named option.
  strata_open_options classic{};
  classic.struct_size = sizeof classic;
  classic.timeout_cycles = 5;
  EXPECT_EQ(strata_open("fake", &classic, &d), STRATA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(strata_last_error_message()).find("no option 'timeout_cycles'"), std::string::npos);
  EXPECT_EQ(d, nullptr);
}

TEST_F(DriverCore, OlderCallersStructsStillWork) {
  // An API 1.0 caller's open options end before trace_start_cycle; a 1.1 caller's before named_options.
  strata_open_options o{};
  o.hbm_preset = "x";
  o.struct_size = offsetof(strata_open_options, trace_start_cycle);
  strata_device* d = Open(&o);
  EXPECT_EQ(g_last->options_["hbm_preset"], "x");
  EXPECT_EQ(strata_close(d), STRATA_OK);
  o.struct_size = offsetof(strata_open_options, named_options);
  d = Open(&o);
  EXPECT_EQ(strata_close(d), STRATA_OK);
  o.struct_size = offsetof(strata_open_options, trace_start_cycle) - 1;
  EXPECT_EQ(strata_open("fake", &o, &d), STRATA_INVALID_ARGUMENT);
  strata_version v{};
  v.struct_size = sizeof v;
  ASSERT_EQ(strata_get_version(&v), STRATA_OK);
  EXPECT_EQ(v.api_major, 1u);  // a major bump breaks older callers: it must be a decision, not a drift
  EXPECT_EQ(v.api_minor, static_cast<uint32_t>(STRATA_API_VERSION_MINOR));  // what the header promises
}

// Named context options (API 1.9) reach the backend typed; a backend that declares none refuses any by name, a
// mistyped or unknown one is refused too, and a refused call creates no context (the next id is the next one).
TEST_F(DriverCore, NamedContextOptionsAreCheckedAgainstTheBackends) {
  strata_device* plain = Open();
  strata_context_options o{};
  o.struct_size = sizeof o;
  const strata_named_value policy[] = {Str("policy", "x")};
  o.named_options = policy;
  o.num_named_options = 1;
  strata_context c = 12345;
  EXPECT_EQ(strata_context_create(plain, &o, &c), STRATA_INVALID_ARGUMENT);
  EXPECT_NE(
      std::string(strata_last_error_message()).find("backend 'fake' has no context option 'policy' (valid: none)"),
      std::string::npos)
      << strata_last_error_message();
  EXPECT_EQ(c, 12345u);
  ASSERT_EQ(strata_context_create(plain, nullptr, &c), STRATA_OK);
  EXPECT_EQ(c & 0xfffffu, 1u);  // the refused call took no id
  EXPECT_EQ(strata_close(plain), STRATA_OK);

  strata_device* d = nullptr;
  ASSERT_EQ(strata_open("fake-ctx", nullptr, &d), STRATA_OK) << strata_last_error_message();
  const strata_named_value good[] = {Str("policy", "b"), Int("level", 7)};
  o.named_options = good;
  o.num_named_options = 2;
  ASSERT_EQ(strata_context_create(d, &o, &c), STRATA_OK) << strata_last_error_message();
  EXPECT_EQ(g_last->context_options_, (std::map<std::string, std::string>{{"level", "7"}, {"policy", "b"}}));
  const strata_named_value mistyped[] = {Str("level", "7")};
  o.named_options = mistyped;
  o.num_named_options = 1;
  EXPECT_EQ(strata_context_create(d, &o, &c), STRATA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(strata_last_error_message()).find("context option 'level' is a int64, not a string"),
            std::string::npos)
      << strata_last_error_message();
  const strata_named_value unknown[] = {Str("policy", "b"), Int("levle", 1)};
  o.named_options = unknown;
  o.num_named_options = 2;
  EXPECT_EQ(strata_context_create(d, &o, &c), STRATA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(strata_last_error_message()).find("no context option 'levle' (valid: policy, level)"),
            std::string::npos)
      << strata_last_error_message();
  o.named_options = nullptr;  // with a count
  EXPECT_EQ(strata_context_create(d, &o, &c), STRATA_INVALID_ARGUMENT);
  // A 1.8 caller's struct ends before named_options: whatever lies after it is not read.
  strata::test_values::OldContextOptions old(4096);
  g_last->context_options_ = {{"stale", "1"}};
  ASSERT_EQ(strata_context_create(d, &old.options, &c), STRATA_OK) << strata_last_error_message();
  EXPECT_TRUE(g_last->context_options_.empty());
  EXPECT_EQ(c & 0xfffffu, 2u);                                                 // the refused calls took no id
  old.options.struct_size = offsetof(strata_context_options, quota_fraction);  // smaller than 1.0's
  EXPECT_EQ(strata_context_create(d, &old.options, &c), STRATA_INVALID_ARGUMENT);
  EXPECT_EQ(strata_close(d), STRATA_OK);
}

TEST_F(DriverCore, HandlesAndContextsFromAnotherDeviceAreRefused) {
  strata_device* a = Open();
  strata_device* b = Open();
  strata_context ca, cb;
  ASSERT_EQ(strata_context_create(a, nullptr, &ca), STRATA_OK);
  ASSERT_EQ(strata_context_create(b, nullptr, &cb), STRATA_OK);
  EXPECT_NE(ca, cb);  // the same backend id 1, but each carries its device
  strata_buffer ba, bb;
  ASSERT_EQ(strata_alloc(a, ca, 64, 0, 0, &ba), STRATA_OK);
  ASSERT_EQ(strata_alloc(b, cb, 64, 0, 0, &bb), STRATA_OK);
  EXPECT_NE(ba, bb);
  EXPECT_EQ(strata_free(b, cb, ba), STRATA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(strata_last_error_message()).find("belongs to another device"), std::string::npos);
  EXPECT_EQ(strata_free(b, ca, bb), STRATA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(strata_last_error_message()).find("context belongs to another device"), std::string::npos);
  EXPECT_EQ(strata_free(b, cb, bb & ((uint64_t{1} << kBackendBufferBits) - 1)), STRATA_INVALID_ARGUMENT);
  // Both buffers are still there.
  strata_memory_stats s{};
  s.struct_size = sizeof s;
  ASSERT_EQ(strata_get_memory_stats(b, 0, &s), STRATA_OK);
  EXPECT_EQ(s.live_buffers, 1u);
  EXPECT_EQ(strata_free(b, cb, bb), STRATA_OK);
  EXPECT_EQ(strata_free(a, ca, ba), STRATA_OK);
  EXPECT_EQ(strata_close(a), STRATA_OK);
  EXPECT_EQ(strata_close(b), STRATA_OK);
}

TEST_F(DriverCore, DoubleCloseAndUseAfterCloseAreDetected) {
  strata_device* d = Open();
  ASSERT_EQ(strata_close(d), STRATA_OK);
  EXPECT_EQ(strata_close(d), STRATA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(strata_last_error_message()).find("not an open device"), std::string::npos);
  strata_context c;
  EXPECT_EQ(strata_context_create(d, nullptr, &c), STRATA_INVALID_ARGUMENT);
  EXPECT_EQ(strata_synchronize(d), STRATA_INVALID_ARGUMENT);
  EXPECT_EQ(strata_close(nullptr), STRATA_OK);
}

// strata_interrupt on a closed device is refused as every call on one is (INVALID_ARGUMENT), not run on the freed
// device; and racing strata_close from other threads (Ctrl-C's signal handler while the program closes) it either
// reaches the open device or is refused, never a device being torn down. A use after free here crashes, or under
// ASan + UBSan (this test is `unit`: scripts/test-sanitizers.sh) is reported.
TEST_F(DriverCore, InterruptOnAClosedOrClosingDeviceIsRefused) {
  strata_device* d = Open();
  EXPECT_EQ(strata_interrupt(d), STRATA_OK);
  ASSERT_EQ(strata_close(d), STRATA_OK);
  EXPECT_EQ(strata_interrupt(d), STRATA_INVALID_ARGUMENT);

  std::atomic<strata_device*> current{nullptr};
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> calls{0}, ok{0}, refused{0}, other{0};
  std::vector<std::thread> hammers;
  constexpr int kHammers = 2;
  for (int i = 0; i < kHammers; ++i) {
    hammers.emplace_back([&] {
      while (!stop.load()) {
        strata_device* dev = current.load();
        if (dev == nullptr) {
          std::this_thread::yield();
          continue;
        }
        const strata_status s = strata_interrupt(dev);
        (s == STRATA_OK ? ok : s == STRATA_INVALID_ARGUMENT ? refused : other).fetch_add(1);
        calls.fetch_add(1);
      }
    });
  }
  // Waits until `n` more interrupts have returned. More than kHammers: at least one began after the last step.
  auto more = [&](uint64_t n) {
    const uint64_t from = calls.load();
    while (calls.load() < from + n) std::this_thread::yield();
  };
  for (int round = 0; round < 100; ++round) {
    strata_device* dev = Open();
    if (dev == nullptr) break;
    current.store(dev);
    more(kHammers + 1);  // interrupting the open device
    EXPECT_EQ(strata_close(dev), STRATA_OK);
    more(kHammers + 1);  // and the same pointer, closed
    current.store(nullptr);
  }
  stop.store(true);
  for (std::thread& t : hammers) t.join();
  EXPECT_GT(ok.load(), 0u);
  EXPECT_GE(refused.load(), 100u);  // at least one interrupt per round began after the close returned
  EXPECT_EQ(other.load(), 0u);
}

// A backend that reports no events says so; a closed device is refused.
TEST_F(DriverCore, EventSinksOnABackendWithoutEvents) {
  strata_device* d = Open();
  auto fn = [](void*, const strata_event*) {};
  EXPECT_EQ(strata_set_event_sink(d, fn, nullptr), STRATA_UNIMPLEMENTED);
  EXPECT_NE(std::string(strata_last_error_message()).find("the fake backend reports no events"), std::string::npos)
      << strata_last_error_message();
  EXPECT_EQ(strata_set_event_sink(nullptr, fn, nullptr), STRATA_INVALID_ARGUMENT);
  strata_close(d);
  EXPECT_EQ(strata_set_event_sink(d, fn, nullptr), STRATA_INVALID_ARGUMENT);
}

TEST_F(DriverCore, ABackendExceptionBecomesAStatus) {
  strata_device* d = Open();
  strata_context c;
  ASSERT_EQ(strata_context_create(d, nullptr, &c), STRATA_OK);
  strata_buffer b;
  EXPECT_EQ(strata_alloc(d, c, 777, 0, 0, &b), STRATA_INTERNAL);
  EXPECT_NE(std::string(strata_last_error_message()).find("backend bug"), std::string::npos);
  EXPECT_EQ(strata_alloc(d, c, 64, 0, 0, &b), STRATA_OK);  // the device still works
  EXPECT_EQ(strata_close(d), STRATA_OK);
}

TEST_F(DriverCore, AnUnavailableAnswerFailsTheDeviceUntilClosed) {
  strata_device* d = Open();
  strata_context c;
  ASSERT_EQ(strata_context_create(d, nullptr, &c), STRATA_OK);
  strata_buffer x;
  ASSERT_EQ(strata_alloc(d, c, 16, 0, 0, &x), STRATA_OK);
  strata_buffer b;
  EXPECT_EQ(strata_alloc(d, c, 778, 0, 0, &b), STRATA_UNAVAILABLE);
  const char data[4] = {1, 2, 3, 4};
  EXPECT_EQ(strata_write(d, c, x, 0, data, 4), STRATA_FAILED_PRECONDITION);
  EXPECT_NE(std::string(strata_last_error_message())
                .find("the device failed earlier (strata_alloc: the device did not answer"),
            std::string::npos)
      << strata_last_error_message();
  EXPECT_EQ(strata_synchronize(d), STRATA_FAILED_PRECONDITION);
  strata_device_info info{};
  info.struct_size = sizeof info;
  EXPECT_EQ(strata_get_device_info(d, &info), STRATA_OK);  // info still answers
  EXPECT_EQ(strata_close(d), STRATA_OK);
}

}  // namespace
}  // namespace strata::driver
