// The vector firmware's mailbox (symbol strata_vector_mailbox in SMEM), a host <-> firmware contract: strata-sim
// vector fills the request into the image before reset; the firmware (firmware/apps/vector) writes the result
// fields before it exits. Tensors lie in HBM as rows of `chunks` 64-byte lines (16 fp32 lanes each; the host pads
// a row of `cols` values with a value neutral for the op), one row after the other.
#ifndef STRATA_VECTOR_MAILBOX_H_
#define STRATA_VECTOR_MAILBOX_H_

#include <stdint.h>

#define STRATA_VECTOR_MAILBOX_MAGIC 0x43455656u  // "VVEC"
#define STRATA_VECTOR_MAILBOX_VERSION 1u

// `op` beyond the VPU_OP codes: a kernel of several ops. SOFTMAX: softmax over each row, in the order of
// tests/rtl/vpu_reference.Softmax (the host pads a row's last chunk with -inf, which changes no result).
#define STRATA_VECTOR_OP_SOFTMAX 0x100u

// What the output holds, by op: elementwise ops (every op but the reductions) and SOFTMAX [rows, chunks] lines; ROW_SUM
// and ROW_MAX one line per row (the row's reduction in every lane); ACC_SUM and ACC_MAX one row of chunks lines (the
// reduction down the rows).
struct StrataVectorMailbox {
  uint32_t magic;
  uint32_t version;
  uint32_t op;     // VPU_OP, or STRATA_VECTOR_OP_SOFTMAX
  uint32_t bcast;  // VPU_BCAST: b is [rows, chunks] (NONE), one row of chunks (ROW) or one line (SCALAR)
  uint32_t rows, chunks;
  uint64_t a, b, m, out;  // HBM addresses (b: binary ops; m: SELECT's mask, laid out as a)
  // Results.
  uint32_t status;  // strata_status; 0xffffffff until the firmware finishes
  uint32_t tile_rows;
  uint64_t cycles;
  uint32_t vpu_commands;
  uint32_t dma_descriptors;
  uint32_t vpu_rows;          // result rows the unit wrote
  uint32_t vpu_busy_cycles;   // cycles with a command in flight
  uint32_t vpu_stall_cycles;  // cycles it waited for VMEM port B
  uint32_t reserved;
};

#endif  // STRATA_VECTOR_MAILBOX_H_
