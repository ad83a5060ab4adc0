// runtime_fp.elf's bf16 GEMM command (firmware/runtime, STRATA_RUNTIME_FP=1) end to end on the host chip model:
// operand sizes of 2-byte elements, fp32 or bf16 C, the flags and arguments a bf16 GEMM refuses (nothing queued on
// the matrix unit, C's bytes untouched), and the mode bits the kernel gives every command. Expectations come from
// the protocol (strata/protocol.h, strata/gemm.h) and the register map, not from the runtime's state.
#include <gtest/gtest.h>

#include <vector>

#include "runtime_host.h"
#include "strata/protocol.h"
#include "strata/regmap.h"
#include "strata/status.h"

namespace strata {
namespace {

using host_model::HostRuntime;

static_assert(STRATA_RUNTIME_FP, "this test is runtime_fp.elf's");

struct Fixture {
  HostRuntime rt;
  uint32_t ctx = 0;
  uint64_t granule = 0;

  Fixture() {
    ctx = static_cast<uint32_t>(rt.Call(HostRuntime::Command(STRATA_OP_CREATE_CONTEXT)).value0);
    granule = rt.header().granule_bytes;
  }
  // A buffer of `bytes` and its HBM offset (the ALLOC completion's value1, in granules).
  uint64_t Alloc(uint64_t bytes, uint64_t* offset = nullptr) {
    strata_cmd c = HostRuntime::Command(STRATA_OP_ALLOC, ctx);
    c.u.alloc.bytes = bytes;
    const strata_cpl cpl = rt.Call(c);
    EXPECT_EQ(cpl.status, STRATA_OK);
    if (offset != nullptr) *offset = uint64_t{cpl.value1} * granule;
    return cpl.value0;
  }
  strata_cpl Gemm(uint64_t a, uint64_t b, uint64_t c, uint32_t m, uint32_t n, uint32_t k, uint8_t flags,
                  uint32_t dtype = STRATA_DTYPE_BF16, int32_t quant_mult = 0, uint32_t quant_shift = 0) {
    strata_cmd cmd = HostRuntime::Command(STRATA_OP_GEMM, ctx);
    cmd.flags = flags;
    cmd.u.gemm = {a, b, c, m, n, k, quant_mult, quant_shift, dtype};
    return rt.Call(cmd);
  }
};

std::string Describe(const strata_cpl& c) {
  return std::string(strata_status_name(static_cast<strata_status>(c.status))) + " field " + std::to_string(c.field);
}

TEST(RuntimeFp, PublishesTheDtypeMinor) {
  HostRuntime rt;
  EXPECT_EQ(rt.header().version_minor, STRATA_PROTO_VERSION_MINOR);
  EXPECT_GE(rt.header().version_minor, STRATA_PROTO_MINOR_GEMM_DTYPE);
}

// A bf16 GEMM needs 2 bytes per operand and 4 (fp32) or 2 (OUT_BF16) per result: a buffer one byte short of that
// is OUT_OF_RANGE naming it, although it would hold the int8 matrix; the exact sizes run, and every command the
// kernel queued carries the BF16 mode (READOUT also OUT_BF16 when asked).
TEST(RuntimeFp, Bf16OperandsAreTwoBytesAndEveryCommandCarriesTheMode) {
  for (const bool out_bf16 : {false, true}) {
    Fixture f;
    const uint32_t m = 37, k = 50, n = 19;  // unaligned to the 16-wide array
    const uint64_t c_bytes = uint64_t{m} * n * (out_bf16 ? 2 : 4);
    const uint64_t a = f.Alloc(m * k * 2), b = f.Alloc(k * n * 2), c = f.Alloc(c_bytes);
    const uint64_t a_short = f.Alloc(m * k * 2 - 1), b_short = f.Alloc(k * n * 2 - 1), c_short = f.Alloc(c_bytes - 1);
    const uint8_t flags = out_bf16 ? STRATA_GEMM_FLAG_OUT_BF16 : 0;
    const size_t pushed0 = f.rt.device().mxu_pushed().size();
    strata_cpl r = f.Gemm(a_short, b, c, m, n, k, flags);
    EXPECT_EQ(r.status, STRATA_OUT_OF_RANGE) << Describe(r);
    EXPECT_EQ(r.field, STRATA_FIELD_BUFFER_A);
    r = f.Gemm(a, b_short, c, m, n, k, flags);
    EXPECT_EQ(r.field, STRATA_FIELD_BUFFER_B) << Describe(r);
    r = f.Gemm(a, b, c_short, m, n, k, flags);
    EXPECT_EQ(r.field, STRATA_FIELD_BUFFER_C) << Describe(r);
    EXPECT_EQ(f.rt.device().mxu_pushed().size(), pushed0) << "a refused GEMM queues nothing";

    r = f.Gemm(a, b, c, m, n, k, flags);
    ASSERT_EQ(r.status, STRATA_OK) << Describe(r);
    const uint32_t array_n = f.rt.header().mxu_array_n;
    EXPECT_EQ(r.value1, m * ((n + array_n - 1) / array_n) * ((k + array_n - 1) / array_n)) << "rows streamed";
    const auto& pushed = f.rt.device().mxu_pushed();
    ASSERT_GT(pushed.size(), pushed0);
    uint32_t readouts = 0;
    for (size_t i = pushed0; i < pushed.size(); ++i) {
      const uint32_t cmd = pushed[i].at(STRATA_MXU_CMD);
      EXPECT_NE(cmd & STRATA_MXU_CMD_BF16_MASK, 0u) << "command " << i;
      EXPECT_EQ(cmd & STRATA_MXU_CMD_INT8_MASK, 0u) << "command " << i;
      const uint32_t op = (cmd & STRATA_MXU_CMD_OP_MASK) >> STRATA_MXU_CMD_OP_LSB;
      if (op == STRATA_MXU_OP_READOUT) {
        ++readouts;
        EXPECT_EQ((cmd & STRATA_MXU_CMD_OUT_BF16_MASK) != 0, out_bf16) << "command " << i;
      }
    }
    // fp32 C without ReLU goes from ACC to HBM by DMA; bf16 C through READOUT (docs/matrix-unit.md).
    EXPECT_EQ(readouts != 0, out_bf16);
  }
}

// What a bf16 GEMM refuses, before touching the matrix unit or C: an unknown dtype, the int8 requantization flags
// and arguments, OUT_BF16 on an int8 GEMM.
TEST(RuntimeFp, RefusedBf16GemmsChangeNothing) {
  Fixture f;
  const uint32_t m = 8, k = 8, n = 8;
  uint64_t c_offset = 0;
  const uint64_t a = f.Alloc(m * k * 2), b = f.Alloc(k * n * 2), c = f.Alloc(m * n * 4, &c_offset);
  std::vector<uint8_t>& hbm = f.rt.device().hbm();
  for (uint64_t i = 0; i < m * n * 4; ++i) hbm[c_offset + i] = static_cast<uint8_t>(i * 7 + 3);
  const std::vector<uint8_t> before(hbm.begin() + c_offset, hbm.begin() + c_offset + m * n * 4);
  const size_t pushed0 = f.rt.device().mxu_pushed().size();
  struct Case {
    const char* what;
    uint8_t flags;
    uint32_t dtype;
    int32_t quant_mult;
    uint32_t quant_shift;
    strata_status status;
    strata_field field;
  } cases[] = {
      {"dtype 2", 0, 2, 0, 0, STRATA_INVALID_ARGUMENT, STRATA_FIELD_DTYPE},
      {"dtype 0xffffffff", 0, 0xffffffffu, 0, 0, STRATA_INVALID_ARGUMENT, STRATA_FIELD_DTYPE},
      {"INT8", STRATA_GEMM_FLAG_INT8, STRATA_DTYPE_BF16, 0, 0, STRATA_INVALID_ARGUMENT, STRATA_FIELD_FLAGS},
      {"ROUND", STRATA_GEMM_FLAG_ROUND, STRATA_DTYPE_BF16, 0, 0, STRATA_INVALID_ARGUMENT, STRATA_FIELD_FLAGS},
      {"quant_mult", 0, STRATA_DTYPE_BF16, 3, 0, STRATA_INVALID_ARGUMENT, STRATA_FIELD_QUANT},
      {"quant_shift", 0, STRATA_DTYPE_BF16, 0, 2, STRATA_INVALID_ARGUMENT, STRATA_FIELD_QUANT},
      {"OUT_BF16 on int8", STRATA_GEMM_FLAG_OUT_BF16, STRATA_DTYPE_INT8, 0, 0, STRATA_INVALID_ARGUMENT,
       STRATA_FIELD_FLAGS},
      {"ACCUMULATE with OUT_BF16", STRATA_GEMM_FLAG_ACCUMULATE | STRATA_GEMM_FLAG_OUT_BF16, STRATA_DTYPE_BF16, 0, 0,
       STRATA_INVALID_ARGUMENT, STRATA_FIELD_FLAGS},
      {"unknown flag 0x40", 0x40, STRATA_DTYPE_BF16, 0, 0, STRATA_INVALID_ARGUMENT, STRATA_FIELD_FLAGS},
  };
  for (const Case& t : cases) {
    const strata_cpl r = f.Gemm(a, b, c, m, n, k, t.flags, t.dtype, t.quant_mult, t.quant_shift);
    EXPECT_EQ(r.status, t.status) << t.what << ": " << Describe(r);
    EXPECT_EQ(r.field, t.field) << t.what << ": " << Describe(r);
  }
  EXPECT_EQ(f.rt.device().mxu_pushed().size(), pushed0);
  EXPECT_TRUE(std::equal(before.begin(), before.end(), hbm.begin() + c_offset)) << "C untouched";
  // The same operands with a legal bf16 command do run (the refusals were the arguments, not the buffers).
  EXPECT_EQ(f.Gemm(a, b, c, m, n, k, STRATA_GEMM_FLAG_RELU | STRATA_GEMM_FLAG_ACCUMULATE).status, STRATA_OK);
}

}  // namespace
}  // namespace strata
