// Command decoder: every field of every command checked before the runtime touches any state.
#include "runtime/decoder.h"

#include <stddef.h>

#ifndef STRATA_RUNTIME_FP
#define STRATA_RUNTIME_FP 0  // 1 in runtime_fp.elf's build: the bf16 GEMM (runtime.h)
#endif

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

#if STRATA_RUNTIME_FP
// A bf16 GEMM (runtime_fp.elf): the int8 checks' order, with 2-byte operands, fp32 or bf16 C and no
// requantization (INT8 and ROUND name int32 results, quant_* their arguments).
DecodeResult DecodeGemmBf16(const strata_cmd& cmd, const DecodeLimits& limits) {
  const strata_cmd_gemm& g = cmd.u.gemm;
  if ((cmd.flags & ~STRATA_GEMM_FLAGS_BF16) != 0) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_FLAGS);
  // C is one buffer: an fp32 C_in cannot be read from where bf16 results are being written (as int8 C, below).
  if ((cmd.flags & STRATA_GEMM_FLAG_ACCUMULATE) != 0 && (cmd.flags & STRATA_GEMM_FLAG_OUT_BF16) != 0) {
    return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_FLAGS);
  }
  if (g.a == 0) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_BUFFER_A);
  if (g.b == 0) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_BUFFER_B);
  if (g.c == 0 || g.c == g.a || g.c == g.b) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_BUFFER_C);
  const auto dim_ok = [](uint32_t d) { return d >= 1 && d <= STRATA_GEMM_MAX_DIM; };
  if (!dim_ok(g.m) || !dim_ok(g.n) || !dim_ok(g.k)) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_SHAPE);
  if (g.quant_mult != 0 || g.quant_shift != 0) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_QUANT);
  const uint64_t c_bytes = uint64_t{g.m} * g.n * ((cmd.flags & STRATA_GEMM_FLAG_OUT_BF16) != 0 ? 2u : 4u);
  if (uint64_t{g.m} * g.k * 2 > limits.heap_bytes || uint64_t{g.k} * g.n * 2 > limits.heap_bytes ||
      c_bytes > limits.heap_bytes) {
    return Fail(STRATA_OUT_OF_RANGE, STRATA_FIELD_SHAPE);
  }
  return {};
}
#endif

DecodeResult DecodeGemm(const strata_cmd& cmd, const DecodeLimits& limits) {
  const strata_cmd_gemm& g = cmd.u.gemm;
#if STRATA_RUNTIME_FP
  if (g.dtype == STRATA_DTYPE_BF16) return DecodeGemmBf16(cmd, limits);
  if (g.dtype != STRATA_DTYPE_INT8) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_DTYPE);
  if ((cmd.flags & ~STRATA_GEMM_FLAGS_INT8) != 0) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_FLAGS);
#else
  // runtime.elf speaks protocol 1.1, where this word is reserved: a bf16 GEMM is refused here as any nonzero
  // reserved word is (a host checks the published version first and names runtime_fp.elf).
  if (g.dtype != 0) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_RESERVED);
#endif
  if (g.a == 0) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_BUFFER_A);
  if (g.b == 0) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_BUFFER_B);
  // C is written while A and B are still being read, tile by tile: it must not be either of them.
  if (g.c == 0 || g.c == g.a || g.c == g.b) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_BUFFER_C);
  const auto dim_ok = [](uint32_t d) { return d >= 1 && d <= STRATA_GEMM_MAX_DIM; };
  if (!dim_ok(g.m) || !dim_ok(g.n) || !dim_ok(g.k)) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_SHAPE);
  const bool int8 = (cmd.flags & STRATA_GEMM_FLAG_INT8) != 0;
  if ((cmd.flags & STRATA_GEMM_FLAG_ACCUMULATE) != 0 && int8) {
    return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_FLAGS);  // C cannot be int32 input and int8 output
  }
  if ((cmd.flags & STRATA_GEMM_FLAG_ROUND) != 0 && !int8) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_FLAGS);
  if (int8 ? g.quant_shift > STRATA_GEMM_MAX_QUANT_SHIFT : (g.quant_mult != 0 || g.quant_shift != 0)) {
    return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_QUANT);
  }
  // Dimensions are < 2^24, so the products fit in 64 bits. No buffer can hold a matrix larger than the heap.
  const uint64_t c_bytes = uint64_t{g.m} * g.n * (int8 ? 1u : 4u);
  if (uint64_t{g.m} * g.k > limits.heap_bytes || uint64_t{g.k} * g.n > limits.heap_bytes ||
      c_bytes > limits.heap_bytes) {
    return Fail(STRATA_OUT_OF_RANGE, STRATA_FIELD_SHAPE);
  }
  return {};
}

// The flags a GEMM may carry at all; DecodeGemm narrows them by dtype.
#if STRATA_RUNTIME_FP
constexpr uint32_t kGemmFlags = STRATA_GEMM_FLAGS_ALL;
#else
constexpr uint32_t kGemmFlags = STRATA_GEMM_FLAGS_INT8;
#endif

uint32_t AllowedFlags(uint8_t opcode) {
  switch (opcode) {
    case STRATA_OP_ALLOC:
      return STRATA_ALLOC_NO_COMPACT;
    case STRATA_OP_GEMM:
      return kGemmFlags;
    default:
      return 0;
  }
}

}  // namespace

DecodeResult Decode(const strata_cmd& cmd, const DecodeLimits& limits) {
  if (cmd.opcode >= STRATA_OP_COUNT) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_OPCODE);
  if (cmd.reserved0 != 0 || cmd.reserved1 != 0) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_RESERVED);
  if ((cmd.flags & ~AllowedFlags(cmd.opcode)) != 0) return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_FLAGS);

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
      return DecodeGemm(cmd, limits);
    case STRATA_OP_COUNT:
      break;
  }
  return Fail(STRATA_INVALID_ARGUMENT, STRATA_FIELD_OPCODE);
}

const char* FieldName(uint32_t field) {
  switch (field) {
    case STRATA_FIELD_NONE:
      return "none";
    case STRATA_FIELD_OPCODE:
      return "opcode";
    case STRATA_FIELD_FLAGS:
      return "flags";
    case STRATA_FIELD_RESERVED:
      return "reserved bytes";
    case STRATA_FIELD_CONTEXT:
      return "context";
    case STRATA_FIELD_HANDLE:
      return "handle";
    case STRATA_FIELD_BYTES:
      return "bytes";
    case STRATA_FIELD_OFFSET:
      return "offset";
    case STRATA_FIELD_ALIGNMENT:
      return "alignment";
    case STRATA_FIELD_SLOT:
      return "staging slot";
    case STRATA_FIELD_QUOTA:
      return "quota";
    case STRATA_FIELD_MEMORY:
      return "device memory";
    case STRATA_FIELD_BUDGET:
      return "budget";
    case STRATA_FIELD_CONTEXT_TABLE:
      return "context table";
    case STRATA_FIELD_BUFFER_TABLE:
      return "buffer table";
    case STRATA_FIELD_DMA:
      return "dma";
    case STRATA_FIELD_SHAPE:
      return "shape (m, n, k)";
    case STRATA_FIELD_BUFFER_A:
      return "buffer A";
    case STRATA_FIELD_BUFFER_B:
      return "buffer B";
    case STRATA_FIELD_BUFFER_C:
      return "buffer C";
    case STRATA_FIELD_QUANT:
      return "quantization (quant_mult, quant_shift)";
    case STRATA_FIELD_MXU:
      return "matrix unit";
    case STRATA_FIELD_DTYPE:
      return "dtype";
    default:
      return "unknown";
  }
}

}  // namespace strata::runtime
