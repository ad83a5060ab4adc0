// The sim backend's check of the runtime firmware's header (host/driver/runtime_header.h): the header may
// grow in a later minor version, nothing else may differ.
#include "runtime_header.h"

#include <gtest/gtest.h>

#include <string>

namespace strata::driver {
namespace {

constexpr uint64_t kHbm = 8ull << 20;

strata_rt_header Good() {
  strata_rt_header h{};
  h.magic = STRATA_PROTO_MAGIC;
  h.version_major = STRATA_PROTO_VERSION_MAJOR;
  h.version_minor = STRATA_PROTO_VERSION_MINOR;
  h.header_bytes = sizeof(strata_rt_header);
  h.state = STRATA_RT_READY;
  h.sq_entries = STRATA_RT_SQ_ENTRIES;
  h.cq_entries = STRATA_RT_CQ_ENTRIES;
  h.hbm_capacity_bytes = kHbm;
  h.staging_slots = STRATA_RT_STAGING_SLOTS;
  h.staging_slot_bytes = STRATA_RT_STAGING_SLOT_BYTES;
  return h;
}

TEST(RuntimeHeader, TheDriversOwnHeaderIsAccepted) { EXPECT_TRUE(CheckRuntimeHeader(Good(), kHbm).ok()); }

TEST(RuntimeHeader, ALaterMinorVersionMayAppendFields) {
  for (const uint32_t extra : {4u, 8u, 64u, 4096u}) {
    strata_rt_header h = Good();
    h.version_minor = STRATA_PROTO_VERSION_MINOR + 1;
    h.header_bytes = sizeof(strata_rt_header) + extra;
    EXPECT_TRUE(CheckRuntimeHeader(h, kHbm).ok()) << extra;
  }
}

// A 1.0 firmware's header ends before mxu_array_n: accepted, and the field it lacks reads 0 whatever the
// memory after its header holds.
TEST(RuntimeHeader, A1_0HeaderIsAcceptedAndItsMissingFieldsReadZero) {
  strata_rt_header device = Good();
  device.version_minor = 0;
  device.header_bytes = kRuntimeHeaderBytes1_0;
  device.mxu_array_n = 0xdeadbeef;  // whatever follows the 1.0 header in SMEM
  strata_rt_header h;
  ReadRuntimeHeader(&device, &h);
  EXPECT_TRUE(CheckRuntimeHeader(h, kHbm).ok());
  EXPECT_EQ(h.mxu_array_n, 0u);
  EXPECT_EQ(h.hbm_capacity_bytes, kHbm);
  // The driver's own size and larger keep every field.
  device.header_bytes = sizeof(strata_rt_header) + 64;
  device.mxu_array_n = 16;
  ReadRuntimeHeader(&device, &h);
  EXPECT_EQ(h.mxu_array_n, 16u);
}

TEST(RuntimeHeader, AHeaderShorterThan1_0IsRefusedWithBothSizes) {
  for (const uint32_t bytes : {0u, 4u, kRuntimeHeaderBytes1_0 - 4}) {
    strata_rt_header h = Good();
    h.header_bytes = bytes;
    const Error e = CheckRuntimeHeader(h, kHbm);
    EXPECT_EQ(e.status, STRATA_FAILED_PRECONDITION);
    EXPECT_NE(e.message.find("its header has " + std::to_string(bytes) + " bytes"), std::string::npos) << e.message;
    EXPECT_NE(e.message.find("fewer than the " + std::to_string(kRuntimeHeaderBytes1_0)), std::string::npos)
        << e.message;
  }
}

TEST(RuntimeHeader, AnotherMajorVersionIsRefused) {
  for (const uint16_t major : {0, STRATA_PROTO_VERSION_MAJOR + 1, 0xffff}) {
    strata_rt_header h = Good();
    h.version_major = major;
    const Error e = CheckRuntimeHeader(h, kHbm);
    EXPECT_EQ(e.status, STRATA_FAILED_PRECONDITION);
    EXPECT_NE(e.message.find("the firmware speaks protocol " + std::to_string(major) + "."), std::string::npos)
        << e.message;
  }
}

TEST(RuntimeHeader, OtherRingSizesAreRefused) {
  strata_rt_header h = Good();
  h.sq_entries = STRATA_RT_SQ_ENTRIES * 2;
  EXPECT_EQ(CheckRuntimeHeader(h, kHbm).status, STRATA_FAILED_PRECONDITION);
  h = Good();
  h.cq_entries = 0;
  EXPECT_EQ(CheckRuntimeHeader(h, kHbm).status, STRATA_FAILED_PRECONDITION);
}

TEST(RuntimeHeader, AnotherStagingAreaIsRefused) {
  strata_rt_header h = Good();
  h.staging_slots = STRATA_RT_STAGING_SLOTS + 1;
  EXPECT_EQ(CheckRuntimeHeader(h, kHbm).status, STRATA_FAILED_PRECONDITION);
  h = Good();
  h.staging_slot_bytes = STRATA_RT_STAGING_SLOT_BYTES / 2;
  const Error e = CheckRuntimeHeader(h, kHbm);
  EXPECT_EQ(e.status, STRATA_FAILED_PRECONDITION);
  EXPECT_NE(e.message.find("staging area"), std::string::npos) << e.message;
}

TEST(RuntimeHeader, HbmTheFirmwareDidNotFindIsRefused) {
  for (const uint64_t found : {uint64_t{0}, kHbm - 64, kHbm * 2}) {
    strata_rt_header h = Good();
    h.hbm_capacity_bytes = found;
    const Error e = CheckRuntimeHeader(h, kHbm);
    EXPECT_EQ(e.status, STRATA_FAILED_PRECONDITION);
    EXPECT_NE(e.message.find("found " + std::to_string(found) + " bytes of HBM"), std::string::npos) << e.message;
  }
}

}  // namespace
}  // namespace strata::driver
