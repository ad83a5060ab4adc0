// Device lifetime on the sim backend: several devices in one process opened and closed in every order and
// from several threads, handles that cross devices, and the timeout rule (strata.h, "Timeouts").
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "named_values.h"
#include "strata/strata.h"

namespace {

using strata::test_values::Int;
using strata::test_values::Str;

constexpr uint64_t kMiB = 1ull << 20;

strata_device* OpenSim(uint64_t timeout_cycles = 0) {
  strata_open_options o{};
  o.struct_size = sizeof o;
  o.hbm_capacity_bytes = 8 * kMiB;
  o.timeout_cycles = timeout_cycles;
  strata_device* d = nullptr;
  EXPECT_EQ(strata_open("sim", &o, &d), STRATA_OK) << strata_last_error_message();
  return d;
}

// Allocates and fills a buffer, then reads it back: the device works.
void ExpectWorks(strata_device* d) {
  strata_context c;
  ASSERT_EQ(strata_context_create(d, nullptr, &c), STRATA_OK) << strata_last_error_message();
  strata_buffer b;
  ASSERT_EQ(strata_alloc(d, c, 4096, 0, 0, &b), STRATA_OK) << strata_last_error_message();
  std::vector<uint8_t> in(4096), out(4096);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(i * 7 + 3);
  ASSERT_EQ(strata_write(d, c, b, 0, in.data(), in.size()), STRATA_OK) << strata_last_error_message();
  ASSERT_EQ(strata_read(d, c, b, 0, out.data(), out.size()), STRATA_OK) << strata_last_error_message();
  EXPECT_EQ(in, out);
}

TEST(DeviceLifecycle, TwoDevicesCloseInEitherOrder) {
  for (int order = 0; order < 2; ++order) {
    strata_device* a = OpenSim();
    strata_device* b = OpenSim();
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    ExpectWorks(a);
    ExpectWorks(b);
    EXPECT_EQ(strata_close(order == 0 ? a : b), STRATA_OK);
    ExpectWorks(order == 0 ? b : a);  // the other still runs
    EXPECT_EQ(strata_close(order == 0 ? b : a), STRATA_OK);
  }
}

TEST(DeviceLifecycle, AFailedOpenBesideAnOpenDevice) {
  strata_device* a = OpenSim();
  strata_open_options o{};
  o.struct_size = sizeof o;
  o.hbm_capacity_bytes = 8 * kMiB;
  o.firmware_path = "/nonexistent/runtime.elf";
  strata_device* b = nullptr;
  EXPECT_EQ(strata_open("sim", &o, &b), STRATA_UNAVAILABLE);
  EXPECT_EQ(b, nullptr);
  ExpectWorks(a);
  EXPECT_EQ(strata_close(a), STRATA_OK);
}

TEST(DeviceLifecycle, DevicesOpenedAndClosedOnOtherThreads) {
  // Each thread opens, uses and closes its own device, at the same time.
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([] {
      strata_device* d = OpenSim();
      if (d == nullptr) return;
      ExpectWorks(d);
      EXPECT_EQ(strata_close(d), STRATA_OK);
    });
  }
  for (auto& t : threads) t.join();
  // A device opened on one thread, used on a second, closed on a third, while the main thread has one open.
  strata_device* mine = OpenSim();
  strata_device* d = nullptr;
  std::thread([&] { d = OpenSim(); }).join();
  std::thread([&] { ExpectWorks(d); }).join();
  std::thread([&] { EXPECT_EQ(strata_close(d), STRATA_OK); }).join();
  ExpectWorks(mine);
  EXPECT_EQ(strata_close(mine), STRATA_OK);
}

TEST(DeviceLifecycle, HandlesFromAnotherDeviceAreRefused) {
  strata_device* a = OpenSim();
  strata_device* b = OpenSim();
  strata_context ca, cb;
  ASSERT_EQ(strata_context_create(a, nullptr, &ca), STRATA_OK);
  ASSERT_EQ(strata_context_create(b, nullptr, &cb), STRATA_OK);
  strata_buffer ba, bb;
  ASSERT_EQ(strata_alloc(a, ca, 1024, 0, 0, &ba), STRATA_OK);
  ASSERT_EQ(strata_alloc(b, cb, 1024, 0, 0, &bb), STRATA_OK);
  const std::vector<uint8_t> data(1024, 0x5a);
  ASSERT_EQ(strata_write(b, cb, bb, 0, data.data(), data.size()), STRATA_OK);
  // A's handle (the same firmware index as B's buffer) must not free B's buffer; neither may A's context.
  EXPECT_EQ(strata_free(b, cb, ba), STRATA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(strata_last_error_message()).find("belongs to another device"), std::string::npos);
  EXPECT_EQ(strata_free(b, ca, bb), STRATA_INVALID_ARGUMENT);
  std::vector<uint8_t> back(1024);
  ASSERT_EQ(strata_read(b, cb, bb, 0, back.data(), back.size()), STRATA_OK) << strata_last_error_message();
  EXPECT_EQ(back, data);
  EXPECT_EQ(strata_close(a), STRATA_OK);
  EXPECT_EQ(strata_close(b), STRATA_OK);
  EXPECT_EQ(strata_close(b), STRATA_INVALID_ARGUMENT);  // closed twice
}

// A GEMM that needs ~70k cycles on a device that waits 20k: the call times out, and the device refuses
// everything afterwards (the GEMM still runs and would write C later; a staging slot could be reused).
TEST(DeviceLifecycle, ATimedOutCallFailsTheDeviceUntilReopened) {
  strata_device* d = OpenSim(20'000);
  ASSERT_NE(d, nullptr);
  strata_context c;
  ASSERT_EQ(strata_context_create(d, nullptr, &c), STRATA_OK);
  constexpr uint32_t kN = 256;
  strata_buffer a, b, out, other;
  ASSERT_EQ(strata_alloc(d, c, kN * kN, 0, 0, &a), STRATA_OK);
  ASSERT_EQ(strata_alloc(d, c, kN * kN, 0, 0, &b), STRATA_OK);
  ASSERT_EQ(strata_alloc(d, c, kN * kN * 4, 0, 0, &out), STRATA_OK);
  ASSERT_EQ(strata_alloc(d, c, 4096, 0, 0, &other), STRATA_OK);
  strata_gemm_args g{};
  g.struct_size = sizeof g;
  g.a = a;
  g.b = b;
  g.c = out;
  g.m = g.n = g.k = kN;
  EXPECT_EQ(strata_gemm(d, c, &g), STRATA_UNAVAILABLE);
  EXPECT_NE(std::string(strata_last_error_message()).find("did not answer within 20000 cycles"), std::string::npos);
  const std::vector<uint8_t> y(4096, 0x11);
  std::vector<uint8_t> back(4096);
  EXPECT_EQ(strata_write(d, c, other, 0, y.data(), y.size()), STRATA_FAILED_PRECONDITION);
  EXPECT_EQ(strata_read(d, c, other, 0, back.data(), back.size()), STRATA_FAILED_PRECONDITION);
  EXPECT_EQ(strata_synchronize(d), STRATA_FAILED_PRECONDITION);
  EXPECT_NE(std::string(strata_last_error_message()).find("close it and open a new one"), std::string::npos);
  strata_buffer x;
  EXPECT_EQ(strata_alloc(d, c, 64, 0, 0, &x), STRATA_FAILED_PRECONDITION);
  EXPECT_EQ(strata_close(d), STRATA_OK);
  // A new device works, and the same GEMM completes under the default limit.
  d = OpenSim();
  ExpectWorks(d);
  EXPECT_EQ(strata_close(d), STRATA_OK);
}

// strata_interrupt (Ctrl-C in Python): the call running in another thread returns ABORTED at its next wait and the
// device fails as after a timeout; a request made while no call runs is dropped when the next call begins.
TEST(DeviceLifecycle, AnInterruptedCallFailsTheDeviceUntilReopened) {
  strata_device* d = OpenSim();
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(strata_interrupt(d), STRATA_OK);  // nothing running: dropped
  strata_context c;
  ASSERT_EQ(strata_context_create(d, nullptr, &c), STRATA_OK);
  constexpr uint32_t kN = 512;
  strata_buffer a, b, out;
  ASSERT_EQ(strata_alloc(d, c, kN * kN, 0, 0, &a), STRATA_OK);
  ASSERT_EQ(strata_alloc(d, c, kN * kN, 0, 0, &b), STRATA_OK);
  ASSERT_EQ(strata_alloc(d, c, kN * kN * 4, 0, 0, &out), STRATA_OK);
  strata_gemm_args g{};
  g.struct_size = sizeof g;
  g.a = a;
  g.b = b;
  g.c = out;
  g.m = g.n = g.k = kN;
  strata_status gemm = STRATA_OK;
  std::string message;
  std::thread call([&] {
    gemm = strata_gemm(d, c, &g);
    message = strata_last_error_message();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the GEMM simulates for seconds
  EXPECT_EQ(strata_interrupt(d), STRATA_OK);
  call.join();
  EXPECT_EQ(gemm, STRATA_ABORTED);
  EXPECT_NE(message.find("interrupted (strata_interrupt)"), std::string::npos) << message;
  strata_buffer x;
  EXPECT_EQ(strata_alloc(d, c, 64, 0, 0, &x), STRATA_FAILED_PRECONDITION);
  EXPECT_EQ(strata_close(d), STRATA_OK);
  EXPECT_EQ(strata_interrupt(nullptr), STRATA_INVALID_ARGUMENT);
}

}  // namespace

namespace {

strata_status OpenWithTrace(const std::string& path, strata_device** d) {
  strata_open_options o{};
  o.struct_size = sizeof o;
  o.hbm_capacity_bytes = 8 * kMiB;
  o.trace_path = path.c_str();
  o.trace_end_cycle = 2000;
  return strata_open("sim", &o, d);
}

// The runtime firmware manages at most STRATA_RT_MAX_HBM_BYTES: a larger device is refused at open with the
// limit in the message, not booted with the firmware silently seeing less. The limit itself opens (the
// model's memory is sparse) and the firmware reports exactly the capacity asked for.
TEST(DeviceLifecycle, HbmOutsideWhatTheFirmwareManagesIsRefused) {
  // Above it, and below what it needs to boot (its staging slots and a heap as large): refused, not a silent
  // boot failure.
  const struct {
    uint64_t capacity;
    const char* why;
  } refused[] = {
      {(1ull << 40) + (256ull << 10), "more than the runtime firmware manages (1024 GiB)"},
      {2ull << 40, "more than the runtime firmware manages (1024 GiB)"},
      {1ull << 62, "more than the runtime firmware manages (1024 GiB)"},
      {256ull << 10, "less than the runtime firmware needs (2097152 bytes"},
      {1ull << 20, "less than the runtime firmware needs (2097152 bytes"},
      {(2ull << 20) - (256ull << 10), "less than the runtime firmware needs (2097152 bytes"},
  };
  for (const auto& r : refused) {
    strata_open_options o{};
    o.struct_size = sizeof o;
    o.hbm_capacity_bytes = r.capacity;
    strata_device* d = nullptr;
    EXPECT_EQ(strata_open("sim", &o, &d), STRATA_INVALID_ARGUMENT) << r.capacity;
    EXPECT_NE(std::strstr(strata_last_error_message(), r.why), nullptr) << strata_last_error_message();
    EXPECT_EQ(d, nullptr);
  }
  strata_open_options o{};
  o.struct_size = sizeof o;
  o.hbm_capacity_bytes = 1ull << 40;
  strata_device* d = nullptr;
  ASSERT_EQ(strata_open("sim", &o, &d), STRATA_OK) << strata_last_error_message();
  strata_device_info info{};
  info.struct_size = sizeof info;
  ASSERT_EQ(strata_get_device_info(d, &info), STRATA_OK);
  EXPECT_EQ(info.hbm_capacity_bytes, 1ull << 40);
  ExpectWorks(d);
  strata_close(d);
}

// The HBM controller's open options (docs/hbm.md): bad values are refused naming the option, both are listed
// with their defaults, and they reach the model: a compaction's copy takes other cycles under the old
// controller (linear map, no row-hit cap), the same under the defaults spelled out.
strata_status OpenWithHbmController(const std::vector<strata_named_value>& named, strata_device** d) {
  strata_open_options o{};
  o.struct_size = sizeof o;
  o.hbm_capacity_bytes = 8 * kMiB;
  o.named_options = named.data();
  o.num_named_options = named.size();
  return strata_open("sim", &o, d);
}

TEST(DeviceLifecycle, HbmControllerOptionsAreCheckedAndReachTheModel) {
  struct Refused {
    strata_named_value option;
    const char* why;
  };
  const Refused refused[] = {
      {Str("hbm_address_map", "modulo"), "unknown hbm_address_map 'modulo' (xor-hash, linear)"},
      {Str("hbm_address_map", ""), "unknown hbm_address_map '' (xor-hash, linear)"},
      {Int("hbm_row_hit_cap", -1), "hbm_row_hit_cap must be >= 0 (0 = no cap)"},
      {Int("hbm_row_hit_cap", int64_t{1} << 40), "hbm_row_hit_cap 1099511627776 is too large"},
      {Int("hbm_address_map", 1), "hbm_address_map"},  // mistyped
      {Str("hbm_row_hit_cap", "4"), "hbm_row_hit_cap"},
  };
  for (const auto& r : refused) {
    strata_device* d = nullptr;
    EXPECT_EQ(OpenWithHbmController({r.option}, &d), STRATA_INVALID_ARGUMENT) << r.why;
    EXPECT_NE(std::strstr(strata_last_error_message(), r.why), nullptr) << strata_last_error_message();
    EXPECT_EQ(d, nullptr);
  }

  size_t count = 0;
  ASSERT_EQ(strata_get_backend_options("sim", nullptr, 0, &count), STRATA_OK);
  std::vector<strata_option_info> infos(count);
  for (auto& i : infos) i.struct_size = sizeof i;
  ASSERT_EQ(strata_get_backend_options("sim", infos.data(), infos.size(), &count), STRATA_OK);
  int listed = 0;
  for (const auto& i : infos) {
    if (std::string(i.name) == "hbm_address_map") {
      ++listed;
      EXPECT_EQ(i.type, STRATA_VALUE_STRING);
      EXPECT_STREQ(i.default_value, "xor-hash");
    } else if (std::string(i.name) == "hbm_row_hit_cap") {
      ++listed;
      EXPECT_EQ(i.type, STRATA_VALUE_INT64);
      EXPECT_STREQ(i.default_value, "4");
    }
  }
  EXPECT_EQ(listed, 2);

  // 1.75 MiB of 256 KiB buffers, every other one freed, compacted: the cycles of the copies.
  auto compaction_cycles = [](const std::vector<strata_named_value>& named) -> uint64_t {
    strata_device* d = nullptr;
    EXPECT_EQ(OpenWithHbmController(named, &d), STRATA_OK) << strata_last_error_message();
    if (d == nullptr) return 0;
    ExpectWorks(d);
    strata_context c;
    EXPECT_EQ(strata_context_create(d, nullptr, &c), STRATA_OK) << strata_last_error_message();
    std::vector<strata_buffer> bufs(7);
    for (auto& b : bufs) EXPECT_EQ(strata_alloc(d, c, 256 << 10, 0, 0, &b), STRATA_OK) << strata_last_error_message();
    for (size_t i = 0; i < bufs.size(); i += 2) EXPECT_EQ(strata_free(d, c, bufs[i]), STRATA_OK);
    strata_compact_result r{};
    r.struct_size = sizeof r;
    EXPECT_EQ(strata_compact(d, c, nullptr, &r), STRATA_OK) << strata_last_error_message();
    EXPECT_GT(r.bytes_moved, 0u);
    strata_memory_stats s{};
    s.struct_size = sizeof s;
    EXPECT_EQ(strata_get_memory_stats(d, 0, &s), STRATA_OK) << strata_last_error_message();
    EXPECT_EQ(strata_close(d), STRATA_OK);
    return s.compaction_cycles;
  };
  const uint64_t defaults = compaction_cycles({});
  EXPECT_GT(defaults, 0u);
  EXPECT_EQ(compaction_cycles({Str("hbm_address_map", "xor-hash"), Int("hbm_row_hit_cap", 4)}), defaults);
  EXPECT_EQ(compaction_cycles({Str("hbm_address_map", "XOR-HASH")}), defaults);  // names are case-insensitive
  EXPECT_NE(compaction_cycles({Str("hbm_address_map", "linear"), Int("hbm_row_hit_cap", 0)}), defaults);
}

TEST(DeviceLifecycle, AWaveformThatCannotBeWrittenIsRefusedAtOpen) {
  strata_device* d = nullptr;
  EXPECT_EQ(OpenWithTrace("/nonexistent/dir/run.fst", &d), STRATA_INVALID_ARGUMENT);
  EXPECT_NE(std::string(strata_last_error_message()).find("cannot write the waveform"), std::string::npos);
  const std::string dir = ::testing::TempDir() + "strata_dir.fst";
  std::remove(dir.c_str());
  ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
  EXPECT_EQ(OpenWithTrace(dir, &d), STRATA_INVALID_ARGUMENT);
  EXPECT_EQ(d, nullptr);
  rmdir(dir.c_str());
}

// A VCD path with shell syntax in it is a file name, nothing else (the converter runs without a shell).
TEST(DeviceLifecycle, AVcdPathIsNeverRunThroughAShell) {
  const std::string base = ::testing::TempDir();
  // A shell would run `touch strata_pwned` in the working directory.
  const std::string marker = "strata_pwned";
  const std::string path = base + "a'b;touch " + marker + ";'.vcd";
  std::remove(marker.c_str());
  strata_device* d = nullptr;
  ASSERT_EQ(OpenWithTrace(path, &d), STRATA_OK) << strata_last_error_message();
  ExpectWorks(d);
  EXPECT_EQ(strata_close(d), STRATA_OK);
  struct stat st {};
  EXPECT_NE(stat(marker.c_str(), &st), 0) << "a command in the path ran";
  ASSERT_EQ(stat(path.c_str(), &st), 0) << "no VCD written";
  EXPECT_GT(st.st_size, 0);
  std::remove(path.c_str());
}

}  // namespace
