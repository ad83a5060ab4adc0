// The cuda backend's GEMM on the GPU: int8 A (m x k) . int8 B (k x n) -> int32 C, or int8 C requantized, with the
// model's epilogue (ACCUMULATE, RELU, INT8, ROUND). Bit-exact with reference::Gemm: the sums wrap modulo 2^32 in
// any order, and the requantization is the reference's own function.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "strata/reference_gemm.h"

namespace strata::gpu {
namespace {

constexpr int kTile = 16;                  // a block computes a kTile x kTile tile of C
constexpr uint64_t kMaxBlocks = 1u << 16;  // blocks loop over the tiles beyond this (m, n up to 2^24)

struct Epilogue {
  bool accumulate, relu, int8, round;
  int64_t mult;
  uint32_t shift;
};

__global__ void GemmKernel(const int8_t* __restrict__ a, const int8_t* __restrict__ b, void* c, uint64_t m, uint64_t n,
                           uint64_t k, Epilogue e) {
  __shared__ int32_t a_tile[kTile][kTile];
  __shared__ int32_t b_tile[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const uint64_t tiles_n = (n + kTile - 1) / kTile;
  const uint64_t tiles = (m + kTile - 1) / kTile * tiles_n;
  for (uint64_t t = blockIdx.x; t < tiles; t += gridDim.x) {  // the same count of iterations for the whole block
    const uint64_t row = t / tiles_n * kTile + ty, col = t % tiles_n * kTile + tx;
    uint32_t acc = 0;  // int32 wrap-around, as the reference and the matrix unit
    for (uint64_t k0 = 0; k0 < k; k0 += kTile) {
      a_tile[ty][tx] = row < m && k0 + tx < k ? a[row * k + k0 + tx] : 0;
      b_tile[ty][tx] = k0 + ty < k && col < n ? b[(k0 + ty) * n + col] : 0;
      __syncthreads();
#pragma unroll
      for (int i = 0; i < kTile; ++i) acc += static_cast<uint32_t>(a_tile[ty][i] * b_tile[i][tx]);
      __syncthreads();
    }
    if (row >= m || col >= n) continue;
    const uint64_t at = row * n + col;
    if (e.accumulate) acc += static_cast<uint32_t>(static_cast<const int32_t*>(c)[at]);
    int32_t x = static_cast<int32_t>(acc);
    if (e.relu && x < 0) x = 0;
    if (e.int8) {
      static_cast<int8_t*>(c)[at] = reference::Requantize(x, e.mult, e.shift, e.round);
    } else {
      static_cast<int32_t*>(c)[at] = x;
    }
  }
}

}  // namespace

cudaError_t LaunchGemm(const int8_t* a, const int8_t* b, void* c, const reference::GemmSpec& spec, bool accumulate) {
  const uint64_t tiles = (spec.m + kTile - 1) / kTile * ((spec.n + kTile - 1) / kTile);
  const Epilogue e{accumulate, spec.relu, spec.int8, spec.round, spec.quant_mult, spec.quant_shift};
  GemmKernel<<<static_cast<unsigned>(std::min(tiles, kMaxBlocks)), dim3(kTile, kTile)>>>(a, b, c, spec.m, spec.n,
                                                                                         spec.k, e);
  return cudaGetLastError();
}

}  // namespace strata::gpu
