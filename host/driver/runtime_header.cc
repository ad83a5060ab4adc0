#include "runtime_header.h"

#include <cstring>
#include <string>

namespace strata::driver {

void ReadRuntimeHeader(const void* words, strata_rt_header* out) {
  std::memcpy(out, words, sizeof *out);
  if (out->header_bytes >= kRuntimeHeaderBytes1_0 && out->header_bytes < sizeof *out) {
    std::memset(reinterpret_cast<char*>(out) + out->header_bytes, 0, sizeof *out - out->header_bytes);
  }
}

Error CheckRuntimeHeader(const strata_rt_header& h, uint64_t hbm_capacity_bytes) {
  const std::string versions = "the firmware speaks protocol " + std::to_string(h.version_major) + "." +
                               std::to_string(h.version_minor) + ", the driver " +
                               std::to_string(STRATA_PROTO_VERSION_MAJOR) + ".x";
  if (h.version_major != STRATA_PROTO_VERSION_MAJOR) return {STRATA_FAILED_PRECONDITION, versions};
  if (h.header_bytes < kRuntimeHeaderBytes1_0) {
    return {STRATA_FAILED_PRECONDITION, versions + ", but its header has " + std::to_string(h.header_bytes) +
                                            " bytes, fewer than the " + std::to_string(kRuntimeHeaderBytes1_0) +
                                            " of protocol " + std::to_string(STRATA_PROTO_VERSION_MAJOR) + ".0"};
  }
  if (h.sq_entries != STRATA_RT_SQ_ENTRIES || h.cq_entries != STRATA_RT_CQ_ENTRIES) {
    return {STRATA_FAILED_PRECONDITION, "the firmware's command rings have " + std::to_string(h.sq_entries) + "/" +
                                            std::to_string(h.cq_entries) + " entries, the driver's " +
                                            std::to_string(STRATA_RT_SQ_ENTRIES) + "/" +
                                            std::to_string(STRATA_RT_CQ_ENTRIES)};
  }
  if (h.staging_slots != STRATA_RT_STAGING_SLOTS || h.staging_slot_bytes != STRATA_RT_STAGING_SLOT_BYTES) {
    return {STRATA_FAILED_PRECONDITION, "the firmware's staging area is " + std::to_string(h.staging_slots) + " x " +
                                            std::to_string(h.staging_slot_bytes) + " bytes, the driver's " +
                                            std::to_string(STRATA_RT_STAGING_SLOTS) + " x " +
                                            std::to_string(STRATA_RT_STAGING_SLOT_BYTES)};
  }
  if (h.hbm_capacity_bytes != hbm_capacity_bytes) {
    return {STRATA_FAILED_PRECONDITION, "the firmware found " + std::to_string(h.hbm_capacity_bytes) +
                                            " bytes of HBM on a device of " + std::to_string(hbm_capacity_bytes)};
  }
  return {};
}

}  // namespace strata::driver
