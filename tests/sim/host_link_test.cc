// Host link tests: doorbell round trips with firmware on the core, BAR access, and the bulk
// copy engine's data and timing against its PCIe preset.
#include "host_link.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "device.h"
#include "elf_loader.h"
#include "hbm/hbm_model.h"
#include "strata/regmap.h"

namespace strata::sim {
namespace {

TEST(HostLink, DoorbellWakesFirmwareThatAnswersThroughSmem) {
  ElfImage image;
  std::string error;
  ASSERT_TRUE(LoadElf(STRATA_DOORBELL_ELF, STRATA_SMEM_BASE, STRATA_SMEM_SIZE, image, error)) << error;
  ASSERT_TRUE(image.symbols.count("g_mailbox"));
  const uint32_t mailbox = image.symbols.at("g_mailbox");
  Device dev(TraceOptions{}, hbm::HbmConfig::Hbm2(1ull << 30));
  dev.ResetAndLoad(image);
  HostLink link(dev, PcieConfig::Gen4x16());
  for (int i = 0; i < 2000; ++i) dev.Tick();  // firmware reaches its wfi
  ASSERT_TRUE(dev.sleeping());

  for (uint32_t seq = 1; seq <= 5; ++seq) {
    link.Write32(mailbox + 0, 1000 * seq);
    link.Write32(mailbox + 4, 7 * seq);
    const uint64_t start = dev.edges();
    link.RingDoorbell(seq);
    uint32_t answered = 0;
    while ((answered = link.Read32(mailbox + 12)) != seq) ASSERT_LT(dev.edges() - start, 100000u);
    EXPECT_EQ(link.Read32(mailbox + 8), 1007 * seq);
    // A BAR read costs a round trip: the answer cannot come back faster than that.
    EXPECT_GE(dev.edges() - start, 2u * link.config().latency_cycles);
  }
  EXPECT_EQ(link.Read32(STRATA_CTRL_BASE + STRATA_CTRL_DOORBELL), 5u);
  link.RingDoorbell(0);  // the firmware returns from main: tohost = 1
  bool ended = false;
  for (int i = 0; i < 10000 && !ended; ++i) {
    dev.Tick();
    ended = dev.tohost_valid();
  }
  ASSERT_TRUE(ended);
  EXPECT_EQ(dev.tohost_value(), 1u);
}

TEST(HostLink, BulkCopiesMoveDataAtThePresetBandwidth) {
  for (const PcieConfig& cfg : {PcieConfig::Gen4x16(), PcieConfig::Gen5x16()}) {
    Device dev(TraceOptions{}, hbm::HbmConfig::Hbm2(1ull << 30));
    dev.HoldInReset();
    HostLink link(dev, cfg);
    std::vector<uint8_t> src(1 << 20), back(1 << 20);
    std::mt19937 rng(1);
    for (auto& b : src) b = static_cast<uint8_t>(rng());

    const uint64_t up = link.CopyToDevice(src.data(), 12345, src.size());
    ASSERT_NE(up, 0u);
    const uint64_t up_cycles = link.Wait(up);
    std::vector<uint8_t> in_hbm(src.size());
    ASSERT_TRUE(dev.hbm().ReadDebug(12345, in_hbm.data(), in_hbm.size()));
    EXPECT_EQ(in_hbm, src);

    const uint64_t down = link.CopyFromDevice(12345, back.data(), back.size());
    const uint64_t down_cycles = link.Wait(down);
    EXPECT_EQ(back, src);

    // latency + bytes / bandwidth + the HBM's own latency, within a few percent.
    const double ideal = src.size() / cfg.bytes_per_cycle + 2.0 * cfg.latency_cycles;
    for (uint64_t cycles : {up_cycles, down_cycles}) {
      EXPECT_GE(cycles, 0.98 * ideal) << cfg.name;
      EXPECT_LE(cycles, 1.05 * ideal + 500) << cfg.name;
    }
  }
}

TEST(HostLink, OutOfRangeCopiesAreRefused) {
  Device dev(TraceOptions{}, hbm::HbmConfig::Hbm2(1ull << 30));
  dev.HoldInReset();
  HostLink link(dev, PcieConfig::Gen5x16());
  uint8_t buf[64] = {};
  EXPECT_EQ(link.CopyToDevice(buf, (1ull << 30) - 32, 64), 0u);
  EXPECT_EQ(link.CopyFromDevice(~0ull - 10, buf, 64), 0u);
  EXPECT_EQ(link.CopyToDevice(nullptr, 0, 64), 0u);
  EXPECT_FALSE(link.Done(0));
  EXPECT_EQ(link.Wait(0), 0u);
  const uint64_t ok = link.CopyToDevice(buf, (1ull << 30) - 64, 64);
  EXPECT_NE(ok, 0u);
  link.Wait(ok);
  EXPECT_TRUE(link.Done(ok));
}

}  // namespace
}  // namespace strata::sim
