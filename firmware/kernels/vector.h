// One vector-unit op over a tensor in HBM, tiled through VMEM with DMA double buffering (kernels/vector.cc).
#ifndef STRATA_FW_KERNELS_VECTOR_H_
#define STRATA_FW_KERNELS_VECTOR_H_

#include <stdint.h>

#include "strata/status.h"

namespace strata::kernels {

// The layout of strata/vector_mailbox.h: rows of `chunks` 64-byte lines in HBM.
struct VectorParams {
  uint32_t op = 0;     // VPU_OP, or STRATA_VECTOR_OP_SOFTMAX (strata/vector_mailbox.h)
  uint32_t bcast = 0;  // VPU_BCAST (binary ops)
  uint32_t rows = 0, chunks = 0;
  uint64_t a = 0, b = 0, m = 0, out = 0;
};

struct VectorStats {
  uint64_t cycles = 0;
  uint32_t tile_rows = 0;
  uint32_t vpu_commands = 0;
  uint32_t dma_descriptors = 0;
};

// INVALID_ARGUMENT for an unknown op or broadcast mode, zero rows or chunks, or a row too wide for VMEM
// (chunks > VectorMaxChunks()); a DMA or unit error's status otherwise.
strata_status Vector(const VectorParams& p, VectorStats* stats);
uint32_t VectorMaxChunks();

}  // namespace strata::kernels

#endif  // STRATA_FW_KERNELS_VECTOR_H_
