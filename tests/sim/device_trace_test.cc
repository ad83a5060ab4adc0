// The device's waveform window: what it records, and that a window that has ended is final (its file is
// finished in the background while the run goes on, and a later window records nothing).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "device.h"
#include "hbm/hbm_config.h"

namespace strata::sim {
namespace {

// The first and last timestamps (ps) of a VCD file, and how many there are.
struct Times {
  uint64_t first = UINT64_MAX, last = 0, count = 0;
};

Times ReadTimes(const std::string& path) {
  Times t;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    if (line.size() < 2 || line[0] != '#') continue;
    const uint64_t ps = std::stoull(line.substr(1));
    t.first = std::min(t.first, ps);
    t.last = std::max(t.last, ps);
    ++t.count;
  }
  return t;
}

TEST(DeviceTrace, RecordsItsWindowAndAnEndedWindowIsFinal) {
  const std::string path = testing::TempDir() + "device_trace_window.vcd";
  std::remove(path.c_str());
  {
    // Two hierarchy levels keep the file small; the chip is held in reset and idle, and records its clocks.
    Device dev(TraceOptions{path, 100, 600, 2}, hbm::HbmConfig::Hbm2(1ull << 30));
    for (int i = 0; i < 1000; ++i) dev.Tick();
    // The first window has ended, so this one records nothing (and must not write to the finished file).
    dev.set_trace_window(2000, 2500);
    for (int i = 0; i < 2000; ++i) dev.Tick();
    ASSERT_TRUE(dev.CloseTrace());  // waits for the background close, then converts to VCD
  }
  const Times t = ReadTimes(path);
  ASSERT_GT(t.count, 0u) << "no timestamps in " << path;
  EXPECT_EQ(t.first, 100u * 1000);       // cycle 100's falling edge (1 GHz, timestamps in ps)
  EXPECT_EQ(t.last, 599u * 1000 + 500);  // cycle 599's rising edge: nothing from the later window
  std::remove(path.c_str());
}

TEST(DeviceTrace, AWindowCutShortHasEnded) {
  const std::string path = testing::TempDir() + "device_trace_cut.vcd";
  std::remove(path.c_str());
  {
    Device dev(TraceOptions{path, 100, 10000, 2}, hbm::HbmConfig::Hbm2(1ull << 30));
    for (int i = 0; i < 500; ++i) dev.Tick();
    dev.set_trace_window(100, 400);  // its end is already past: the window has ended at cycle 500
    dev.set_trace_window(2000, 2500);
    for (int i = 0; i < 2500; ++i) dev.Tick();
    ASSERT_TRUE(dev.CloseTrace());
  }
  const Times t = ReadTimes(path);
  EXPECT_EQ(t.first, 100u * 1000);
  EXPECT_EQ(t.last, 499u * 1000 + 500);  // the last cycle recorded before the cut
  std::remove(path.c_str());
}

TEST(DeviceTrace, AWindowToTheEndOfTheRunIsFinishedWhenTheDeviceCloses) {
  const std::string path = testing::TempDir() + "device_trace_open.vcd";
  std::remove(path.c_str());
  {
    Device dev(TraceOptions{path, 50, UINT64_MAX, 2}, hbm::HbmConfig::Hbm2(1ull << 30));
    for (int i = 0; i < 300; ++i) dev.Tick();
  }  // the destructor closes and converts
  const Times t = ReadTimes(path);
  EXPECT_EQ(t.first, 50u * 1000);
  EXPECT_EQ(t.last, 299u * 1000 + 500);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace strata::sim
