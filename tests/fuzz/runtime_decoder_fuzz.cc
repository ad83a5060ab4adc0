// libFuzzer target: arbitrary command words through the runtime's decoder, with limits from the input.
// Checks that an accepted command obeys the protocol's stated rules.
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "runtime/decoder.h"
#include "strata/protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < sizeof(strata_cmd) + 8) return 0;
  strata_cmd cmd;
  memcpy(&cmd, data, sizeof cmd);
  strata::runtime::DecodeLimits limits;
  memcpy(&limits.heap_bytes, data + sizeof cmd, 8);
  limits.heap_bytes &= (uint64_t{1} << 44) - 1;
  const strata::runtime::DecodeResult r = strata::runtime::Decode(cmd, limits);
  if ((r.status == STRATA_OK) != (r.field == STRATA_FIELD_NONE)) __builtin_trap();
  if (strata::runtime::FieldName(r.field) == nullptr) __builtin_trap();
  if (r.status != STRATA_OK) return 0;
  if (cmd.opcode >= STRATA_OP_COUNT || cmd.reserved0 != 0 || cmd.reserved1 != 0) {
    __builtin_trap();
  }
  switch (cmd.opcode) {
    case STRATA_OP_ALLOC:
      if (cmd.u.alloc.bytes == 0 || cmd.u.alloc.bytes > limits.heap_bytes) __builtin_trap();
      if (cmd.u.alloc.alignment & (cmd.u.alloc.alignment - 1)) __builtin_trap();
      break;
    case STRATA_OP_WRITE:
    case STRATA_OP_READ:
      if (cmd.u.transfer.bytes == 0 || cmd.u.transfer.bytes > limits.staging_slot_bytes ||
          cmd.u.transfer.slot >= limits.staging_slots ||
          cmd.u.transfer.offset + cmd.u.transfer.bytes > limits.heap_bytes ||
          cmd.u.transfer.offset + cmd.u.transfer.bytes < cmd.u.transfer.offset) {
        __builtin_trap();
      }
      break;
    case STRATA_OP_GEMM: {
      const strata_cmd_gemm& g = cmd.u.gemm;
      // runtime.elf's decoder (this build): the dtype word is reserved, as in protocol 1.1.
      if (g.a == 0 || g.b == 0 || g.c == 0 || g.c == g.a || g.c == g.b || g.dtype != 0) __builtin_trap();
      if (g.m == 0 || g.n == 0 || g.k == 0 || g.m > STRATA_GEMM_MAX_DIM || g.n > STRATA_GEMM_MAX_DIM ||
          g.k > STRATA_GEMM_MAX_DIM) {
        __builtin_trap();
      }
      if (uint64_t{g.m} * g.k > limits.heap_bytes || uint64_t{g.k} * g.n > limits.heap_bytes) __builtin_trap();
      if ((cmd.flags & STRATA_GEMM_FLAG_INT8) == 0 && (g.quant_mult != 0 || g.quant_shift != 0)) __builtin_trap();
      break;
    }
    default:
      break;
  }
  return 0;
}
