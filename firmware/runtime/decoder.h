// Stateless validation of one command word against the protocol (strata/protocol.h): opcode, flags,
// reserved bytes, argument ranges. Pure logic, no hardware includes: unit-tested and fuzzed on the host.
// What needs state (does the context exist, does the handle belong to it, is there room) is the
// runtime's job; a command that passes Decode has only those questions left.
#ifndef STRATA_FW_RUNTIME_DECODER_H_
#define STRATA_FW_RUNTIME_DECODER_H_

#include <stdint.h>

#include "strata/protocol.h"
#include "strata/status.h"

namespace strata::runtime {

struct DecodeLimits {
  uint64_t heap_bytes = 0;  // the allocator's range: no request can be larger
  uint32_t staging_slots = STRATA_RT_STAGING_SLOTS;
  uint32_t staging_slot_bytes = STRATA_RT_STAGING_SLOT_BYTES;
};

struct DecodeResult {
  strata_status status = STRATA_OK;
  strata_field field = STRATA_FIELD_NONE;  // what was wrong
  bool ok() const { return status == STRATA_OK; }
};

constexpr uint64_t kMaxAlignment = uint64_t{1} << 30;

// OK, or the status and field of the first problem found, in field order: opcode, reserved header
// bytes, flags, context, then the arguments.
DecodeResult Decode(const strata_cmd& cmd, const DecodeLimits& limits);

// Name of a field ("handle"), for messages; "unknown" outside the enum.
const char* FieldName(uint32_t field);

}  // namespace strata::runtime

#endif  // STRATA_FW_RUNTIME_DECODER_H_
