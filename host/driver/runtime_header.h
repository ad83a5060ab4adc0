// Checking the header a runtime firmware image publishes at boot (strata/protocol.h) before the sim backend
// trusts it: the protocol's major version, the header's size, the ring sizes, and the HBM the firmware found
// against the HBM the model was built with.
//
// The size rule (beside the C API's struct_size rule in strata.h): fields are only ever appended, in a new
// minor version, and offsets never move. So a header of any size at least the 1.0 header is accepted: the
// driver reads the fields it knows that the firmware's header holds, takes the ones an older firmware does
// not have as 0 (e.g. mxu_array_n before 1.1), and ignores whatever a newer firmware appended.
#ifndef STRATA_HOST_DRIVER_RUNTIME_HEADER_H_
#define STRATA_HOST_DRIVER_RUNTIME_HEADER_H_

#include <cstddef>
#include <cstdint>

#include "backend.h"
#include "strata/protocol.h"

namespace strata::driver {

// The 1.0 header: everything before mxu_array_n.
constexpr uint32_t kRuntimeHeaderBytes1_0 = offsetof(strata_rt_header, mxu_array_n);

// Copies the header as read from the device (`words`, sizeof(strata_rt_header) bytes) into *out, zeroing the
// fields past the firmware's header_bytes.
void ReadRuntimeHeader(const void* words, strata_rt_header* out);

// OK, or FAILED_PRECONDITION with what does not match. `hbm_capacity_bytes` is the model's.
Error CheckRuntimeHeader(const strata_rt_header& header, uint64_t hbm_capacity_bytes);

}  // namespace strata::driver

#endif  // STRATA_HOST_DRIVER_RUNTIME_HEADER_H_
