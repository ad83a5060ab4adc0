// The DMA driver (firmware/drivers/dma.cc) on the host, OpenTitan DIF style: the register writes a descriptor
// becomes (addresses from strata/regmap.h), arguments refused before any register is touched, engine errors
// mapped to statuses as dma.h documents, and sleeping for a full queue or a ticket over the chip model.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "arch/host/arch_host.h"
#include "drivers/dma.h"
#include "hal/mock_mmio.h"
#include "host_device.h"
#include "strata/regmap.h"

namespace strata {
namespace {

using dma::Descriptor;
using dma::Tier;
using hal::MockMmio;
using host_model::HostDevice;

uintptr_t DmaReg(uint32_t queue, uint32_t offset) { return STRATA_DMA_BASE + queue * STRATA_DMA_STRIDE + offset; }

class DmaDriverTest : public ::testing::Test {
 protected:
  void SetUp() override { arch::host::Reset(); }
  void TearDown() override { arch::host::Reset(); }

  // dma::Init against scripted counters: queue q has completed done[q] descriptors, has pending[q] queued and
  // has counted errors[q].
  static void ScriptInit(MockMmio& mmio, const uint32_t* done, const uint32_t* pending, const uint32_t* errors) {
    for (uint32_t q = 0; q < STRATA_DMA_COUNT; ++q) {
      mmio.ExpectRead(DmaReg(q, STRATA_DMA_DONE), done[q]);
      mmio.ExpectRead(DmaReg(q, STRATA_DMA_STATUS), pending[q] << STRATA_DMA_STATUS_PENDING_LSB);
      mmio.ExpectRead(DmaReg(q, STRATA_DMA_ERRORS), errors[q]);
    }
  }
  static void InitAt(uint32_t done, uint32_t errors = 0) {
    MockMmio mmio;
    const uint32_t d[STRATA_DMA_COUNT] = {done, done + 100}, p[STRATA_DMA_COUNT] = {},
                   e[STRATA_DMA_COUNT] = {errors, errors};
    ScriptInit(mmio, d, p, e);
    dma::Init();
    ASSERT_EQ(mmio.Problems(), "");
  }
};

TEST_F(DmaDriverTest, InitEnablesTheExternalInterruptAndReadsEveryQueue) {
  MockMmio mmio;
  const uint32_t done[STRATA_DMA_COUNT] = {5, 9}, pending[STRATA_DMA_COUNT] = {2, 0}, errors[STRATA_DMA_COUNT] = {1, 0};
  ScriptInit(mmio, done, pending, errors);
  dma::Init();
  EXPECT_EQ(mmio.Problems(), "");
  EXPECT_EQ(arch::host::Csrs().mie, 1u << arch::kIrqMachineExternal);
  // The next ticket on queue 0 follows the two still queued: 5 done + 2 pending + 1.
  HostDevice device;
  MockMmio through(&device);
  through.ExpectRead(DmaReg(0, STRATA_DMA_DONE), 5);  // 7 - DEPTH <= 5: room
  uint32_t ticket = 0;
  ASSERT_EQ(dma::Submit(0, {Tier::kHbm, 0, Tier::kHbm, 64, 64}, &ticket), STRATA_OK);
  EXPECT_EQ(through.Problems(), "");
  EXPECT_EQ(ticket, 8u);
}

// Every field of a descriptor lands in its register, in the map's order, PUSH last; spread over seeds.
TEST_F(DmaDriverTest, SubmitWritesTheDescriptorRegistersThenPush) {
  for (const uint32_t seed : {1u, 2u, 3u, 4u}) {
    std::mt19937_64 rng(seed);
    const uint32_t done0 = static_cast<uint32_t>(rng());  // counters anywhere, wrap included
    InitAt(done0);
    uint32_t submitted[STRATA_DMA_COUNT] = {done0, done0 + 100};
    for (int i = 0; i < 25; ++i) {
      const uint32_t q = static_cast<uint32_t>(rng() % STRATA_DMA_COUNT);
      const Tier tiers[] = {Tier::kHbm, Tier::kVmem, Tier::kAcc, Tier::kSmem};
      Descriptor d{};
      const bool hbm_src = rng() % 2;
      d.src_tier = hbm_src ? Tier::kHbm : tiers[rng() % 4];
      d.dst_tier = hbm_src ? tiers[rng() % 4] : Tier::kHbm;
      d.src = rng() & ((uint64_t{1} << 40) - 1);
      d.dst = rng() & ((uint64_t{1} << 40) - 1);
      d.len = 1 + static_cast<uint32_t>(rng() % (1u << 20));
      d.rows = 1 + static_cast<uint32_t>(rng() % 64);
      d.src_stride = static_cast<uint32_t>(rng());
      d.dst_stride = static_cast<uint32_t>(rng());

      MockMmio mmio;
      mmio.ExpectRead(DmaReg(q, STRATA_DMA_DONE), submitted[q]);  // the queue is empty: room at once
      mmio.ExpectWrite(DmaReg(q, STRATA_DMA_SRC_LO), static_cast<uint32_t>(d.src));
      mmio.ExpectWrite(DmaReg(q, STRATA_DMA_SRC_HI), static_cast<uint32_t>(d.src >> 32));
      mmio.ExpectWrite(DmaReg(q, STRATA_DMA_DST_LO), static_cast<uint32_t>(d.dst));
      mmio.ExpectWrite(DmaReg(q, STRATA_DMA_DST_HI), static_cast<uint32_t>(d.dst >> 32));
      mmio.ExpectWrite(DmaReg(q, STRATA_DMA_LEN), d.len);
      mmio.ExpectWrite(DmaReg(q, STRATA_DMA_ROWS), d.rows);
      mmio.ExpectWrite(DmaReg(q, STRATA_DMA_SRC_STRIDE), d.src_stride);
      mmio.ExpectWrite(DmaReg(q, STRATA_DMA_DST_STRIDE), d.dst_stride);
      const uint32_t ctrl =
          ((static_cast<uint32_t>(d.src_tier) << STRATA_DMA_CTRL_SRC_TIER_LSB) & STRATA_DMA_CTRL_SRC_TIER_MASK) |
          ((static_cast<uint32_t>(d.dst_tier) << STRATA_DMA_CTRL_DST_TIER_LSB) & STRATA_DMA_CTRL_DST_TIER_MASK) |
          STRATA_DMA_CTRL_IRQ_MASK;
      mmio.ExpectWrite(DmaReg(q, STRATA_DMA_CTRL), ctrl);
      mmio.ExpectWrite(DmaReg(q, STRATA_DMA_PUSH), 1);
      uint32_t ticket = 0;
      ASSERT_EQ(dma::Submit(q, d, &ticket), STRATA_OK);
      EXPECT_EQ(mmio.Problems(), "") << "seed " << seed << " descriptor " << i;
      EXPECT_EQ(ticket, submitted[q] + 1);
      submitted[q] = ticket;

      // Done at once: IsDone and Wait read DONE (and ERRORS) only.
      MockMmio done;
      done.ExpectRead(DmaReg(q, STRATA_DMA_DONE), ticket);
      EXPECT_TRUE(dma::IsDone(q, ticket));
      done.ExpectRead(DmaReg(q, STRATA_DMA_DONE), ticket + 3);
      done.ExpectRead(DmaReg(q, STRATA_DMA_ERRORS), 0);
      EXPECT_EQ(dma::Wait(q, ticket), STRATA_OK);
      EXPECT_EQ(done.Problems(), "");
    }
  }
}

// Arguments the driver must refuse without touching a register (a strict double with no script fails any access).
TEST_F(DmaDriverTest, InvalidArgumentsTouchNoRegister) {
  InitAt(0);
  const Descriptor good{Tier::kHbm, 0, Tier::kVmem, 0, 64};
  uint32_t ticket = 0;
  struct Case {
    const char* what;
    uint32_t queue;
    Descriptor d;
    uint32_t* ticket;
  };
  std::vector<Case> cases = {{"queue past the last", STRATA_DMA_COUNT, good, &ticket},
                             {"queue far out", 0xffffffffu, good, &ticket},
                             {"null ticket", 0, good, nullptr}};
  Descriptor d = good;
  d.len = 0;
  cases.push_back({"zero length", 0, d, &ticket});
  d = good;
  d.rows = 0;
  cases.push_back({"zero rows", 1, d, &ticket});
  for (Tier a : {Tier::kVmem, Tier::kAcc, Tier::kSmem}) {
    for (Tier b : {Tier::kVmem, Tier::kAcc, Tier::kSmem}) {
      d = good;
      d.src_tier = a;
      d.dst_tier = b;
      cases.push_back({"on-chip to on-chip", 0, d, &ticket});
    }
  }
  for (const Case& c : cases) {
    MockMmio mmio;
    EXPECT_EQ(dma::Submit(c.queue, c.d, c.ticket), STRATA_INVALID_ARGUMENT) << c.what;
    if (c.ticket != nullptr) {  // Copy has its own ticket: the null case is Submit's alone
      EXPECT_EQ(dma::Copy(c.queue, c.d), STRATA_INVALID_ARGUMENT) << c.what;
    }
    EXPECT_TRUE(mmio.log().empty()) << c.what << ": " << mmio.Problems();
  }
  MockMmio mmio;
  EXPECT_EQ(dma::Wait(STRATA_DMA_COUNT, 1), STRATA_INVALID_ARGUMENT);
  EXPECT_EQ(dma::Wait(0, 1), STRATA_INVALID_ARGUMENT) << "a ticket never handed out";
  EXPECT_FALSE(dma::IsDone(STRATA_DMA_COUNT, 0));
  EXPECT_TRUE(mmio.log().empty()) << mmio.Problems();
}

// Wait reports an error the engine counted since the previous Wait, once, as dma.h says per DMA_ERR code.
TEST_F(DmaDriverTest, WaitMapsEngineErrorsToStatuses) {
  struct Case {
    uint32_t err;
    strata_status want;
  } cases[] = {{STRATA_DMA_ERR_SRC_RANGE, STRATA_OUT_OF_RANGE},
               {STRATA_DMA_ERR_DST_RANGE, STRATA_OUT_OF_RANGE},
               {STRATA_DMA_ERR_QUEUE_FULL, STRATA_RESOURCE_EXHAUSTED},
               {STRATA_DMA_ERR_ZERO, STRATA_INVALID_ARGUMENT},
               {STRATA_DMA_ERR_TIERS, STRATA_INVALID_ARGUMENT},
               {STRATA_DMA_ERR_NONE, STRATA_INTERNAL}};  // counted without a code: the engine is broken
  uint32_t errors = 40;
  InitAt(0, errors);
  uint32_t submitted[STRATA_DMA_COUNT] = {0, 100};  // InitAt's counters
  for (uint32_t q = 0; q < STRATA_DMA_COUNT; ++q) {
    for (const Case& c : cases) {
      uint32_t ticket = 0;
      {
        // Submit's own accesses are covered above; the chip model takes its writes.
        HostDevice device;
        MockMmio through(&device);
        through.ExpectRead(DmaReg(q, STRATA_DMA_DONE), submitted[q]);
        ASSERT_EQ(dma::Submit(q, {Tier::kHbm, 0, Tier::kHbm, 64, 64}, &ticket), STRATA_OK);
        submitted[q] = ticket;
      }
      MockMmio mmio;
      mmio.ExpectRead(DmaReg(q, STRATA_DMA_DONE), ticket);
      mmio.ExpectRead(DmaReg(q, STRATA_DMA_ERRORS), ++errors);
      mmio.ExpectRead(DmaReg(q, STRATA_DMA_STATUS), c.err << STRATA_DMA_STATUS_LAST_ERR_LSB);
      EXPECT_EQ(dma::Wait(q, ticket), c.want) << "queue " << q << " DMA_ERR " << c.err;
      mmio.ExpectRead(DmaReg(q, STRATA_DMA_DONE), ticket);
      mmio.ExpectRead(DmaReg(q, STRATA_DMA_ERRORS), errors);  // nothing new: OK
      EXPECT_EQ(dma::Wait(q, ticket), STRATA_OK);
      EXPECT_EQ(mmio.Problems(), "");
    }
  }
}

// Over the chip model: a full queue (DEPTH waiting + one running) makes Submit sleep until one completes, never
// overflowing it; Wait sleeps until its ticket; HBM -> HBM copies move the bytes. Several queue fills and sizes.
TEST_F(DmaDriverTest, SleepsForRoomAndForTicketsOverTheChipModel) {
  for (const uint32_t extra : {1u, 3u, 9u}) {
    for (const uint32_t len : {64u, 1000u, 4096u}) {
      HostDevice device;
      MockMmio mmio(&device);
      arch::host::Reset();
      size_t most_queued = 0;
      arch::host::SetWfiHook([&] {
        for (uint32_t q = 0; q < STRATA_DMA_COUNT; ++q) most_queued = std::max(most_queued, device.dma_queued(q));
        ASSERT_TRUE(device.RunUntilWake()) << "asleep with nothing to wake the core";
      });
      dma::Init();
      for (uint32_t i = 0; i < len; ++i) device.hbm()[i] = static_cast<uint8_t>(i * 7 + len);
      const uint32_t n = STRATA_DMA_QUEUE_DEPTH + 1 + extra;
      uint32_t ticket = 0;
      for (uint32_t i = 0; i < n; ++i) {
        // A chain: copy i moves block i to block i + 1.
        ASSERT_EQ(dma::Submit(0, {Tier::kHbm, uint64_t{i} * len, Tier::kHbm, uint64_t{i + 1} * len, len}, &ticket),
                  STRATA_OK);
      }
      EXPECT_EQ(most_queued, STRATA_DMA_QUEUE_DEPTH + 1u) << "Submit slept only when the queue was full";
      EXPECT_EQ(arch::host::WfiCount(), extra) << "one sleep per descriptor beyond the queue's room";
      EXPECT_EQ(dma::Wait(0, ticket), STRATA_OK);
      EXPECT_EQ(device.dma_queued(0), 0u);
      EXPECT_EQ(device.irq_enable() & STRATA_IRQ_DMA, 0u) << "the DMA source stays enabled after the wait";
      for (uint32_t i = 0; i < len; ++i) {
        ASSERT_EQ(device.hbm()[uint64_t{n} * len + i], static_cast<uint8_t>(i * 7 + len)) << "byte " << i;
      }
      // A side outside HBM: Wait says OUT_OF_RANGE, once.
      ASSERT_EQ(dma::Submit(1, {Tier::kHbm, device.hbm_bytes() - len + 1, Tier::kHbm, 0, len}, &ticket), STRATA_OK);
      EXPECT_EQ(dma::Wait(1, ticket), STRATA_OUT_OF_RANGE);
      ASSERT_EQ(dma::Submit(1, {Tier::kHbm, 0, Tier::kHbm, device.hbm_bytes() - len, len}, &ticket), STRATA_OK);
      EXPECT_EQ(dma::Wait(1, ticket), STRATA_OK);
    }
  }
}

}  // namespace
}  // namespace strata
