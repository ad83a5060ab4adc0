// The runtime's command decoder on the host: every malformed command word gets its precise status and
// names the field; well-formed ones pass; random words never crash it.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <utility>

#include "runtime/decoder.h"
#include "strata/protocol.h"

namespace strata::runtime {
namespace {

constexpr uint64_t kHeap = 64ull << 20;
const DecodeLimits kLimits{kHeap, STRATA_RT_STAGING_SLOTS, STRATA_RT_STAGING_SLOT_BYTES};

strata_cmd Valid(uint8_t opcode) {
  strata_cmd c{};
  c.opcode = opcode;
  c.seq = 7;
  switch (opcode) {
    case STRATA_OP_NOOP:
    case STRATA_OP_CREATE_CONTEXT:
      break;
    default:
      c.context = 0x101;
      break;
  }
  switch (opcode) {
    case STRATA_OP_CREATE_CONTEXT:
      c.u.create_context.quota_bytes = 1 << 20;
      break;
    case STRATA_OP_ALLOC:
      c.u.alloc = {4096, 0};
      break;
    case STRATA_OP_FREE:
      c.u.buffer.handle = 0x100000001ull;
      break;
    case STRATA_OP_WRITE:
    case STRATA_OP_READ:
      c.u.transfer = {0x100000001ull, 128, 4096, 1};
      break;
    case STRATA_OP_COMPACT:
      c.u.compact = {1 << 20, 8, 0};
      break;
    case STRATA_OP_GEMM:
      c.u.gemm = {0x100000001ull, 0x100000002ull, 0x100000003ull, 33, 17, 65, 0, 0, 0};
      break;
    default:
      break;
  }
  return c;
}

// How many leading argument words each opcode uses (the rest must be zero).
uint32_t UsedWords(uint8_t opcode) {
  switch (opcode) {
    case STRATA_OP_CREATE_CONTEXT:
      return 3;  // quota_bytes, quota_ppm (word 3 is reserved)
    case STRATA_OP_ALLOC:
      return 4;
    case STRATA_OP_FREE:
      return 2;
    case STRATA_OP_WRITE:
    case STRATA_OP_READ:
      return 6;
    case STRATA_OP_COMPACT:
      return 3;
    case STRATA_OP_GEMM:
      return 11;  // word 11 is reserved
    default:
      return 0;
  }
}

void ExpectFail(const strata_cmd& c, strata_status status, strata_field field, const char* what) {
  const DecodeResult r = Decode(c, kLimits);
  EXPECT_EQ(r.status, status) << what << ": " << strata_status_name(r.status);
  EXPECT_EQ(r.field, field) << what << ": " << FieldName(r.field);
}

TEST(RuntimeDecoder, WellFormedCommandsPass) {
  for (uint8_t op = 0; op < STRATA_OP_COUNT; ++op) {
    const DecodeResult r = Decode(Valid(op), kLimits);
    EXPECT_TRUE(r.ok()) << "opcode " << int{op} << ": " << strata_status_name(r.status) << " " << FieldName(r.field);
  }
  strata_cmd stats = Valid(STRATA_OP_STATS);
  stats.context = 0;  // device-wide
  EXPECT_TRUE(Decode(stats, kLimits).ok());
  strata_cmd alloc = Valid(STRATA_OP_ALLOC);
  alloc.flags = STRATA_ALLOC_NO_COMPACT;
  alloc.u.alloc.alignment = 1u << 20;
  EXPECT_TRUE(Decode(alloc, kLimits).ok());
  strata_cmd ppm = Valid(STRATA_OP_CREATE_CONTEXT);
  ppm.u.create_context = {0, 1000000, 0};
  EXPECT_TRUE(Decode(ppm, kLimits).ok());
  strata_cmd last = Valid(STRATA_OP_WRITE);
  last.u.transfer = {1, kHeap - STRATA_RT_STAGING_SLOT_BYTES, STRATA_RT_STAGING_SLOT_BYTES,
                     STRATA_RT_STAGING_SLOTS - 1};
  EXPECT_TRUE(Decode(last, kLimits).ok());
}

TEST(RuntimeDecoder, UnknownOpcodes) {
  for (int op : {int{STRATA_OP_COUNT}, 11, 127, 255}) {
    strata_cmd c{};
    c.opcode = static_cast<uint8_t>(op);
    ExpectFail(c, STRATA_INVALID_ARGUMENT, STRATA_FIELD_OPCODE, "unknown opcode");
  }
}

TEST(RuntimeDecoder, ReservedHeaderBytesAndFlags) {
  for (uint8_t op = 0; op < STRATA_OP_COUNT; ++op) {
    strata_cmd c = Valid(op);
    c.reserved0 = 1;
    ExpectFail(c, STRATA_INVALID_ARGUMENT, STRATA_FIELD_RESERVED, "reserved0");
    c = Valid(op);
    c.reserved1 = 0x80000000u;
    ExpectFail(c, STRATA_INVALID_ARGUMENT, STRATA_FIELD_RESERVED, "reserved1");
    for (uint32_t bit = 0; bit < 8; ++bit) {
      c = Valid(op);
      c.flags = static_cast<uint8_t>(1u << bit);
      if (op == STRATA_OP_ALLOC && c.flags == STRATA_ALLOC_NO_COMPACT) continue;
      // ACCUMULATE, RELU and INT8 are GEMM flags on their own; ROUND needs INT8 (GemmFlagsAndQuantization).
      if (op == STRATA_OP_GEMM && (c.flags & STRATA_GEMM_FLAGS_INT8 & ~STRATA_GEMM_FLAG_ROUND) != 0) continue;
      ExpectFail(c, STRATA_INVALID_ARGUMENT, STRATA_FIELD_FLAGS, "flags");
    }
  }
}

TEST(RuntimeDecoder, EveryUnusedArgumentWordMustBeZero) {
  for (uint8_t op = 0; op < STRATA_OP_COUNT; ++op) {
    for (uint32_t w = UsedWords(op); w < 12; ++w) {
      strata_cmd c = Valid(op);
      c.u.words[w] = 0x10;
      SCOPED_TRACE(testing::Message() << "opcode " << int{op} << " word " << w);
      ExpectFail(c, STRATA_INVALID_ARGUMENT, STRATA_FIELD_RESERVED, "unused word");
    }
  }
}

TEST(RuntimeDecoder, ContextIdWhereItBelongs) {
  strata_cmd c = Valid(STRATA_OP_NOOP);
  c.context = 1;
  ExpectFail(c, STRATA_INVALID_ARGUMENT, STRATA_FIELD_CONTEXT, "noop with a context");
  c = Valid(STRATA_OP_CREATE_CONTEXT);
  c.context = 1;
  ExpectFail(c, STRATA_INVALID_ARGUMENT, STRATA_FIELD_CONTEXT, "create inside a context");
  for (uint8_t op : {STRATA_OP_DESTROY_CONTEXT, STRATA_OP_ALLOC, STRATA_OP_FREE, STRATA_OP_WRITE, STRATA_OP_READ,
                     STRATA_OP_COMPACT, STRATA_OP_GEMM}) {
    c = Valid(op);
    c.context = 0;
    ExpectFail(c, STRATA_INVALID_ARGUMENT, STRATA_FIELD_CONTEXT, "missing context");
  }
}

TEST(RuntimeDecoder, CreateContextQuota) {
  strata_cmd c = Valid(STRATA_OP_CREATE_CONTEXT);
  c.u.create_context = {1 << 20, 500000, 0};
  ExpectFail(c, STRATA_INVALID_ARGUMENT, STRATA_FIELD_QUOTA, "bytes and fraction");
  c.u.create_context = {0, 1000001, 0};
  ExpectFail(c, STRATA_INVALID_ARGUMENT, STRATA_FIELD_QUOTA, "fraction above 1");
  c.u.create_context = {kHeap + 1, 0, 0};
  ExpectFail(c, STRATA_INVALID_ARGUMENT, STRATA_FIELD_QUOTA, "quota above the heap");
  c.u.create_context = {0, 0, 1};
  ExpectFail(c, STRATA_INVALID_ARGUMENT, STRATA_FIELD_RESERVED, "reserved");
}

TEST(RuntimeDecoder, AllocArguments) {
  strata_cmd c = Valid(STRATA_OP_ALLOC);
  c.u.alloc.bytes = 0;
  ExpectFail(c, STRATA_INVALID_ARGUMENT, STRATA_FIELD_BYTES, "zero bytes");
  c = Valid(STRATA_OP_ALLOC);
  c.u.alloc.bytes = kHeap + 1;
  ExpectFail(c, STRATA_RESOURCE_EXHAUSTED, STRATA_FIELD_MEMORY, "larger than the heap");
  c.u.alloc.bytes = UINT64_MAX;
  ExpectFail(c, STRATA_RESOURCE_EXHAUSTED, STRATA_FIELD_MEMORY, "UINT64_MAX bytes");
  for (uint64_t a : {uint64_t{3}, uint64_t{96}, uint64_t{1} << 31, uint64_t{1} << 63, uint64_t{UINT64_MAX}}) {
    c = Valid(STRATA_OP_ALLOC);
    c.u.alloc.alignment = a;
    ExpectFail(c, STRATA_INVALID_ARGUMENT, STRATA_FIELD_ALIGNMENT, "alignment");
  }
}

TEST(RuntimeDecoder, FreeAndTransferArguments) {
  strata_cmd c = Valid(STRATA_OP_FREE);
  c.u.buffer.handle = 0;
  ExpectFail(c, STRATA_INVALID_ARGUMENT, STRATA_FIELD_HANDLE, "null handle");
  for (uint8_t op : {STRATA_OP_WRITE, STRATA_OP_READ}) {
    c = Valid(op);
    c.u.transfer.handle = 0;
    ExpectFail(c, STRATA_INVALID_ARGUMENT, STRATA_FIELD_HANDLE, "null handle");
    c = Valid(op);
    c.u.transfer.bytes = 0;
    ExpectFail(c, STRATA_INVALID_ARGUMENT, STRATA_FIELD_BYTES, "zero bytes");
    c.u.transfer.bytes = STRATA_RT_STAGING_SLOT_BYTES + 1;
    ExpectFail(c, STRATA_INVALID_ARGUMENT, STRATA_FIELD_BYTES, "more than a slot");
    c = Valid(op);
    c.u.transfer.slot = STRATA_RT_STAGING_SLOTS;
    ExpectFail(c, STRATA_INVALID_ARGUMENT, STRATA_FIELD_SLOT, "slot");
    c = Valid(op);
    c.u.transfer.offset = UINT64_MAX - 10;
    ExpectFail(c, STRATA_OUT_OF_RANGE, STRATA_FIELD_OFFSET, "offset overflow");
    c.u.transfer.offset = kHeap;
    ExpectFail(c, STRATA_OUT_OF_RANGE, STRATA_FIELD_OFFSET, "beyond the heap");
  }
}

TEST(RuntimeDecoder, GemmOperandsAndShape) {
  const std::pair<uint64_t strata_cmd_gemm::*, strata_field> operands[] = {
      {&strata_cmd_gemm::a, STRATA_FIELD_BUFFER_A},
      {&strata_cmd_gemm::b, STRATA_FIELD_BUFFER_B},
      {&strata_cmd_gemm::c, STRATA_FIELD_BUFFER_C}};
  strata_cmd c;
  for (const auto& [handle, field] : operands) {
    c = Valid(STRATA_OP_GEMM);
    c.u.gemm.*handle = 0;
    ExpectFail(c, STRATA_INVALID_ARGUMENT, field, "null operand");
  }
  c.u.gemm.c = c.u.gemm.a;
  ExpectFail(c, STRATA_INVALID_ARGUMENT, STRATA_FIELD_BUFFER_C, "C is A");
  c.u.gemm.c = c.u.gemm.b;
  ExpectFail(c, STRATA_INVALID_ARGUMENT, STRATA_FIELD_BUFFER_C, "C is B");
  c = Valid(STRATA_OP_GEMM);
  c.u.gemm.b = c.u.gemm.a;  // A . A^T-like uses of one buffer are reads only: fine
  EXPECT_TRUE(Decode(c, kLimits).ok());
  for (uint32_t strata_cmd_gemm::*dim : {&strata_cmd_gemm::m, &strata_cmd_gemm::n, &strata_cmd_gemm::k}) {
    for (uint32_t bad : {0u, STRATA_GEMM_MAX_DIM + 1, 0xffffffffu}) {
      c = Valid(STRATA_OP_GEMM);
      c.u.gemm.*dim = bad;
      ExpectFail(c, STRATA_INVALID_ARGUMENT, STRATA_FIELD_SHAPE, "dimension");
    }
  }
  c = Valid(STRATA_OP_GEMM);
  c.u.gemm.m = 1;
  c.u.gemm.n = 1;
  c.u.gemm.k = STRATA_GEMM_MAX_DIM;
  EXPECT_TRUE(Decode(c, kLimits).ok());
  c.u.gemm.m = c.u.gemm.k = STRATA_GEMM_MAX_DIM;  // A alone is 2^48 bytes: no buffer can hold it
  ExpectFail(c, STRATA_OUT_OF_RANGE, STRATA_FIELD_SHAPE, "A larger than the heap");
  c = Valid(STRATA_OP_GEMM);
  c.u.gemm.m = c.u.gemm.n = 4097;  // C: 4097^2 x 4 > 64 MiB
  ExpectFail(c, STRATA_OUT_OF_RANGE, STRATA_FIELD_SHAPE, "int32 C larger than the heap");
  c.flags = STRATA_GEMM_FLAG_INT8;  // ... but 16 MiB as int8
  EXPECT_TRUE(Decode(c, kLimits).ok());
}

TEST(RuntimeDecoder, GemmFlagsAndQuantization) {
  strata_cmd c = Valid(STRATA_OP_GEMM);
  c.flags = STRATA_GEMM_FLAG_ACCUMULATE | STRATA_GEMM_FLAG_RELU;
  EXPECT_TRUE(Decode(c, kLimits).ok());
  c.flags = STRATA_GEMM_FLAG_INT8 | STRATA_GEMM_FLAG_ROUND | STRATA_GEMM_FLAG_RELU;
  c.u.gemm.quant_mult = -7;
  c.u.gemm.quant_shift = STRATA_GEMM_MAX_QUANT_SHIFT;
  EXPECT_TRUE(Decode(c, kLimits).ok());
  c.u.gemm.quant_shift = STRATA_GEMM_MAX_QUANT_SHIFT + 1;
  ExpectFail(c, STRATA_INVALID_ARGUMENT, STRATA_FIELD_QUANT, "shift above 63");
  c = Valid(STRATA_OP_GEMM);
  c.flags = STRATA_GEMM_FLAG_ACCUMULATE | STRATA_GEMM_FLAG_INT8;
  ExpectFail(c, STRATA_INVALID_ARGUMENT, STRATA_FIELD_FLAGS, "accumulate into int8");
  c.flags = STRATA_GEMM_FLAG_ROUND;
  ExpectFail(c, STRATA_INVALID_ARGUMENT, STRATA_FIELD_FLAGS, "round without int8");
  c = Valid(STRATA_OP_GEMM);
  c.u.gemm.quant_mult = 1;
  ExpectFail(c, STRATA_INVALID_ARGUMENT, STRATA_FIELD_QUANT, "multiplier without int8");
  c.u.gemm.quant_mult = 0;
  c.u.gemm.quant_shift = 1;
  ExpectFail(c, STRATA_INVALID_ARGUMENT, STRATA_FIELD_QUANT, "shift without int8");
}

// Random words: the decoder never reads out of bounds (ASan build) and never accepts a command that
// breaks the rules it states.
TEST(RuntimeDecoder, RandomWordsAreRejectedOrWellFormed) {
  std::mt19937_64 rng(42);
  uint32_t accepted = 0;
  for (int i = 0; i < 200000; ++i) {
    strata_cmd c{};
    uint32_t* w = reinterpret_cast<uint32_t*>(&c);
    for (uint32_t k = 0; k < 16; ++k) w[k] = (rng() % 4 == 0) ? static_cast<uint32_t>(rng()) : 0;
    c.opcode = static_cast<uint8_t>(rng() % 12);
    const DecodeResult r = Decode(c, kLimits);
    ASSERT_NE(r.status == STRATA_OK, r.field != STRATA_FIELD_NONE);
    if (!r.ok()) continue;
    ++accepted;
    ASSERT_LT(c.opcode, STRATA_OP_COUNT);
    if (c.opcode == STRATA_OP_GEMM) {
      ASSERT_TRUE(c.u.gemm.a != 0 && c.u.gemm.b != 0 && c.u.gemm.c != c.u.gemm.a);
    }
    ASSERT_EQ(c.reserved0 | c.reserved1, 0u);
  }
  EXPECT_GT(accepted, 0u);
}

}  // namespace
}  // namespace strata::runtime
