// Command decoder: every field of every command checked before the runtime touches any state.
#include "runtime/decoder.h"

#include <stddef.h>

namespace strata::runtime {
namespace {

constexpr uint32_t kArgWords = sizeof(strata_cmd{}.u.words) / sizeof(uint32_t);

DecodeResult Fail(strata_status status, strata_field field) { return DecodeResult{status, field}; }

// The argument words an opcode does not use must all be zero (room for MINOR additions).
bool TailZero(const strata_cmd& cmd, uint32_t first_unused_word) {
  uint32_t any = 0;
  for (uint32_t i = first_unused_word; i < kArgWords; ++i) any |= cmd.u.words[i];
  return any == 0;
}

bool IsPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

DecodeResult DecodeTransfer(const strata_cmd& cmd, const DecodeLimits& limits) {
  const strata_cmd_transfer& t = cmd.u.transfer;
  if (t.handle == 0) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_HANDLE);
  if (t.bytes == 0 || t.bytes > limits.staging_slot_bytes) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_BYTES);
  if (t.slot >= limits.staging_slots) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_SLOT);
  if (t.offset > UINT64_MAX - t.bytes || t.offset + t.bytes > limits.heap_bytes) {
    return Fail(STRATA_OUT_OF_RANGE, STRATA_FIELD_OFFSET);
  }
  if (!TailZero(cmd, sizeof(strata_cmd_transfer) / 4)) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_RESERVED);
  return {};
}

}  // namespace

DecodeResult Decode(const strata_cmd& cmd, const DecodeLimits& limits) {
  if (cmd.opcode >= STRATA_OP_COUNT) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_OPCODE);
  if (cmd.opcode == STRATA_OP_GEMM) return Fail(STRATA_UNIMPLEMENTED, STRATA_FIELD_OPCODE);
  if (cmd.reserved0 != 0 || cmd.reserved1 != 0) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_RESERVED);
  const uint32_t allowed_flags = cmd.opcode == STRATA_OP_ALLOC ? STRATA_ALLOC_NO_COMPACT : 0u;
  if ((cmd.flags & ~allowed_flags) != 0) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_FLAGS);

  // Which commands act inside a context: all but NOOP and CREATE_CONTEXT; STATS may be device-wide (0).
  const bool context_free = cmd.opcode == STRATA_OP_NOOP || cmd.opcode == STRATA_OP_CREATE_CONTEXT;
  if (context_free && cmd.context != 0) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_CONTEXT);
  if (!context_free && cmd.opcode != STRATA_OP_STATS && cmd.context == 0) {
    return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_CONTEXT);
  }

  switch (static_cast<strata_opcode>(cmd.opcode)) {
    case STRATA_OP_NOOP:
    case STRATA_OP_DESTROY_CONTEXT:
    case STRATA_OP_STATS:
      if (!TailZero(cmd, 0)) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_RESERVED);
      return {};
    case STRATA_OP_CREATE_CONTEXT: {
      const strata_cmd_create_context& c = cmd.u.create_context;
      if (c.reserved != 0 || !TailZero(cmd, sizeof(c) / 4)) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_RESERVED);
      if (c.quota_bytes != 0 && c.quota_ppm != 0) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_QUOTA);
      if (c.quota_ppm > 1000000u || c.quota_bytes > limits.heap_bytes) {
        return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_QUOTA);
      }
      return {};
    }
    case STRATA_OP_ALLOC: {
      const strata_cmd_alloc& a = cmd.u.alloc;
      if (!TailZero(cmd, sizeof(a) / 4)) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_RESERVED);
      if (a.bytes == 0) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_BYTES);
      if (a.alignment != 0 && (!IsPowerOfTwo(a.alignment) || a.alignment > kMaxAlignment)) {
        return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_ALIGNMENT);
      }
      // Larger than the whole heap: no amount of freeing or compaction can serve it.
      if (a.bytes > limits.heap_bytes) return Fail(STRATA_RESOURCE_EXHAUSTED, STRATA_FIELD_MEMORY);
      return {};
    }
    case STRATA_OP_FREE:
      if (!TailZero(cmd, sizeof(strata_cmd_buffer) / 4)) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_RESERVED);
      if (cmd.u.buffer.handle == 0) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_HANDLE);
      return {};
    case STRATA_OP_WRITE:
    case STRATA_OP_READ:
      return DecodeTransfer(cmd, limits);
    case STRATA_OP_COMPACT: {
      const strata_cmd_compact& c = cmd.u.compact;
      if (c.reserved != 0 || !TailZero(cmd, sizeof(c) / 4)) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_RESERVED);
      return {};
    }
    case STRATA_OP_GEMM:
    case STRATA_OP_COUNT:
      break;
  }
  return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_OPCODE);
}

const char* FieldName(uint32_t field) {
  switch (field) {
    case STRATA_FIELD_NONE: return "none";
    case STRATA_FIELD_OPCODE: return "opcode";
    case STRATA_FIELD_FLAGS: return "flags";
    case STRATA_FIELD_RESERVED: return "reserved bytes";
    case STRATA_FIELD_CONTEXT: return "context";
    case STRATA_FIELD_HANDLE: return "handle";
    case STRATA_FIELD_BYTES: return "bytes";
    case STRATA_FIELD_OFFSET: return "offset";
    case STRATA_FIELD_ALIGNMENT: return "alignment";
    case STRATA_FIELD_SLOT: return "staging slot";
    case STRATA_FIELD_QUOTA: return "quota";
    case STRATA_FIELD_MEMORY: return "device memory";
    case STRATA_FIELD_BUDGET: return "budget";
    case STRATA_FIELD_CONTEXT_TABLE: return "context table";
    case STRATA_FIELD_BUFFER_TABLE: return "buffer table";
    case STRATA_FIELD_DMA: return "dma";
    default: return "unknown";
  }
}

}  // namespace strata::runtime
