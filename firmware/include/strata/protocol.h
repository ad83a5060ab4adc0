// The host <-> firmware command protocol: ring layout, commands, completions. Shared, never copied,
// by the device runtime (firmware/runtime) and the host driver (host/driver). C and C++.
//
// Picture (docs/runtime.md):
//   host                                   device SMEM (the header is found through its ELF symbol)
//   1. writes command(s) into sq[tail % N] ─► strata_rt_header { magic, version, state, geometry, cq_head }
//   2. rings CTRL DOORBELL with the new     ─► sq[N]  64-byte strata_cmd
//      sq tail (free-running uint32)           cq[N]  32-byte strata_cpl, phase-tagged
//   3. polls cq[head % N] until its phase  ◄─ firmware posts completions (any order; match by seq)
//      matches, then advances cq_head
//   Bulk data never goes through the rings: the host link's copy engine moves bytes between host memory
//   and a staging slot in HBM; a READ/WRITE command names the slot, the firmware resolves the handle,
//   checks bounds, pins the buffer and DMAs slot <-> buffer. The host never learns a buffer's address.
//
// Versioning: MAJOR bumps when an existing field, opcode, size or meaning changes (old peers must refuse
// to talk); MINOR bumps when something is added in a reserved field/opcode that old peers reject cleanly.
#ifndef STRATA_PROTOCOL_H_
#define STRATA_PROTOCOL_H_

#include <stdint.h>

#include "strata/gemm.h"
#include "strata/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STRATA_PROTO_MAGIC 0x50525453u  // "STRP" little-endian
#define STRATA_PROTO_VERSION_MAJOR 1
#define STRATA_PROTO_VERSION_MINOR 2  // 1.1: GEMM defined; header.mxu_array_n. 1.2: GEMM dtype (bf16)
// The first minor whose GEMM reads strata_cmd_gemm.dtype. Only runtime_fp.elf speaks it: runtime.elf, the
// default image, is built without the bf16 path and publishes 1.1 (docs/matrix-unit.md, "Two runtime images"),
// so a host sends a bf16 GEMM only to a firmware that publishes at least this.
#define STRATA_PROTO_MINOR_GEMM_DTYPE 2
#define STRATA_RT_HEADER_SYMBOL "strata_runtime_header"

#define STRATA_RT_SQ_ENTRIES 64u  // powers of two
#define STRATA_RT_CQ_ENTRIES 64u
#define STRATA_RT_MAX_CONTEXTS 16u
#define STRATA_RT_STAGING_SLOTS 4u
#define STRATA_RT_STAGING_SLOT_BYTES (256u * 1024u)  // one READ/WRITE moves at most this much
// The most HBM the runtime probes and manages (1 TiB); a host refuses a larger device instead of letting
// the firmware see less than is there.
#define STRATA_RT_MAX_HBM_BYTES (1ull << 40)
// The least HBM the runtime boots on: the staging slots and a heap at least as large.
#define STRATA_RT_MIN_HBM_BYTES (2ull * STRATA_RT_STAGING_SLOTS * STRATA_RT_STAGING_SLOT_BYTES)

// Ring arithmetic, in one place for the firmware and every host: positions are free-running uint32 counters;
// a completion at position i carries phase 1 on the ring's first pass, 0 on the second, and so on.
static inline uint32_t strata_rt_sq_slot(uint32_t position) { return position % STRATA_RT_SQ_ENTRIES; }
static inline uint32_t strata_rt_cq_slot(uint32_t position) { return position % STRATA_RT_CQ_ENTRIES; }
static inline uint32_t strata_rt_cq_phase(uint32_t position) {
  return ((position / STRATA_RT_CQ_ENTRIES) & 1u) ? 0u : 1u;
}
// HBM address of staging slot `slot` above the heap (header.staging_address).
static inline uint64_t strata_rt_staging_slot_address(uint64_t staging_address, uint32_t slot) {
  return staging_address + (uint64_t)slot * STRATA_RT_STAGING_SLOT_BYTES;
}

// Runtime state in the header.
enum strata_rt_state { STRATA_RT_BOOTING = 0, STRATA_RT_READY = 1, STRATA_RT_FAILED = 2 };

typedef enum strata_opcode {
  STRATA_OP_NOOP = 0,
  STRATA_OP_CREATE_CONTEXT = 1,
  STRATA_OP_DESTROY_CONTEXT = 2,
  STRATA_OP_ALLOC = 3,
  STRATA_OP_FREE = 4,
  STRATA_OP_WRITE = 5,  // staging slot -> buffer (after the host copied its bytes into the slot)
  STRATA_OP_READ = 6,   // buffer -> staging slot (the host then copies the slot out)
  STRATA_OP_COMPACT = 7,
  STRATA_OP_STATS = 8,
  STRATA_OP_GEMM = 9,  // since 1.1; flags: STRATA_GEMM_FLAG_* (strata/gemm.h); since 1.2 a dtype
  STRATA_OP_COUNT = 10
} strata_opcode;

// ALLOC flags.
#define STRATA_ALLOC_NO_COMPACT 0x1u  // fail with RESOURCE_EXHAUSTED rather than defragment on OOM

// Arguments per opcode. Every byte not named by the opcode must be zero (the decoder checks).
typedef struct strata_cmd_create_context {
  uint64_t quota_bytes;  // 0 and quota_ppm 0: no quota (the whole heap)
  uint32_t quota_ppm;    // fraction of the heap in parts per million (1..1e6); exclusive with bytes
  uint32_t reserved;
} strata_cmd_create_context;

typedef struct strata_cmd_alloc {
  uint64_t bytes;      // 1 .. heap size
  uint64_t alignment;  // 0 (the granule) or a power of two <= 2^30
} strata_cmd_alloc;

typedef struct strata_cmd_buffer {  // FREE
  uint64_t handle;
} strata_cmd_buffer;

typedef struct strata_cmd_transfer {  // WRITE, READ
  uint64_t handle;
  uint64_t offset;  // into the buffer; offset + bytes <= requested size
  uint32_t bytes;   // 1 .. STRATA_RT_STAGING_SLOT_BYTES
  uint32_t slot;    // < STRATA_RT_STAGING_SLOTS
} strata_cmd_transfer;

typedef struct strata_cmd_compact {
  uint64_t max_bytes;  // 0: no limit
  uint32_t max_moves;  // 0: no limit
  uint32_t reserved;
} strata_cmd_compact;

// C = A.B (+ C) on the matrix unit; see strata/gemm.h. A, B and C are buffer handles of the calling
// context, each at least as large as its matrix (int8: A m k, B k n, C m n x 4, or m n with INT8; bf16:
// A m k x 2, B k n x 2, C m n x 4, or m n x 2 with OUT_BF16); C is neither A nor B. quant_mult and
// quant_shift are used with INT8 and must be zero without it.
// Completion: value0 = the kernel's device cycles (first DMA to last result), value1 = rows the
// matrix unit streamed.
typedef struct strata_cmd_gemm {
  uint64_t a, b, c;
  uint32_t m, n, k;
  int32_t quant_mult;
  uint32_t quant_shift;  // 0 .. STRATA_GEMM_MAX_QUANT_SHIFT
  uint32_t dtype;        // since 1.2: STRATA_DTYPE_* (a reserved zero, INT8, before; runtime.elf still reads it so)
} strata_cmd_gemm;

typedef struct strata_cmd {
  uint8_t opcode;      // strata_opcode
  uint8_t flags;       // per opcode; unknown bits rejected
  uint16_t reserved0;  // zero
  uint32_t context;    // context id (0 for NOOP, CREATE_CONTEXT and device-wide STATS)
  uint32_t seq;        // chosen by the host, echoed in the completion
  uint32_t reserved1;  // zero
  union {
    strata_cmd_create_context create_context;
    strata_cmd_alloc alloc;
    strata_cmd_buffer buffer;
    strata_cmd_transfer transfer;
    strata_cmd_compact compact;
    strata_cmd_gemm gemm;
    uint32_t words[12];
  } u;
} strata_cmd;

// Which field made a command fail (the completion's `field`), so the host can name it.
typedef enum strata_field {
  STRATA_FIELD_NONE = 0,
  STRATA_FIELD_OPCODE = 1,
  STRATA_FIELD_FLAGS = 2,
  STRATA_FIELD_RESERVED = 3,  // a reserved or unused byte is nonzero
  STRATA_FIELD_CONTEXT = 4,
  STRATA_FIELD_HANDLE = 5,
  STRATA_FIELD_BYTES = 6,
  STRATA_FIELD_OFFSET = 7,  // offset/bytes reach outside the buffer
  STRATA_FIELD_ALIGNMENT = 8,
  STRATA_FIELD_SLOT = 9,
  STRATA_FIELD_QUOTA = 10,   // quota arguments, or the context's quota is exhausted
  STRATA_FIELD_MEMORY = 11,  // the heap (not the quota) has no room
  STRATA_FIELD_BUDGET = 12,
  STRATA_FIELD_CONTEXT_TABLE = 13,  // too many contexts
  STRATA_FIELD_BUFFER_TABLE = 14,   // too many live buffers
  STRATA_FIELD_DMA = 15,            // the DMA engine reported an error
  STRATA_FIELD_SHAPE = 16,          // GEMM m, n, k (since 1.1)
  STRATA_FIELD_BUFFER_A = 17,       // GEMM operand A: its handle, or too small for m x k
  STRATA_FIELD_BUFFER_B = 18,
  STRATA_FIELD_BUFFER_C = 19,
  STRATA_FIELD_QUANT = 20,  // GEMM quant_mult / quant_shift
  STRATA_FIELD_MXU = 21,    // the matrix unit reported an error
  STRATA_FIELD_DTYPE = 22,  // GEMM dtype unknown (since 1.2)
  STRATA_FIELD_COUNT = 23
} strata_field;

// Completion. `phase` is 1 on the first pass over the ring, 0 on the second, and so on (NVMe's trick):
// the host knows an entry is new without reading a tail pointer. The firmware writes `phase` last and it
// is the first word, so a host that reads the entry in address order never sees a new phase with old data.
typedef struct strata_cpl {
  uint32_t phase;
  uint32_t seq;
  uint16_t status;  // strata_status
  uint8_t opcode;
  uint8_t field;  // strata_field: what was wrong (NONE on success)
  uint32_t context;
  uint32_t cycles;  // device cycles the firmware spent on the command (decode to completion)
  uint32_t value1;  // COMPACT: moves; ALLOC: the buffer's heap offset in granules (for timelines)
  uint64_t value0;  // CREATE_CONTEXT: context id; ALLOC: handle; COMPACT: bytes moved
} strata_cpl;

// Memory statistics (the names JAX and TensorFlow use), written by STATS into the header's stats area.
// The fields of strata_rt_stats, listed once: the struct is declared from these lists, and so are the two
// copies (the firmware's from alloc::Stats, the driver's into strata_memory_stats), which use the same
// names. X(type, name).
#define STRATA_RT_STATS_FROM_ALLOCATOR_64(X) \
  X(uint64_t, bytes_in_use)                  \
  X(uint64_t, peak_bytes_in_use)             \
  X(uint64_t, bytes_limit)                   \
  X(uint64_t, bytes_free)                    \
  X(uint64_t, largest_free_block_bytes)      \
  X(uint64_t, num_allocs)                    \
  X(uint64_t, num_frees)                     \
  X(uint64_t, num_failed_allocs)             \
  X(uint64_t, compactions)                   \
  X(uint64_t, compaction_moves)              \
  X(uint64_t, compaction_bytes_moved)        \
  X(uint64_t, compaction_cycles)
#define STRATA_RT_STATS_FROM_RUNTIME_64(X)                              \
  X(uint64_t, context_bytes_in_use) /* of `context` (0: device-wide) */ \
  X(uint64_t, context_quota_bytes)
#define STRATA_RT_STATS_FROM_ALLOCATOR_32(X) \
  X(uint32_t, live_buffers)                  \
  X(uint32_t, fragmentation_ppm)
#define STRATA_RT_STATS_FROM_RUNTIME_32(X) \
  X(uint32_t, contexts)                    \
  X(uint32_t, context_buffers)

#define STRATA_RT_STATS_DECLARE_(type, name) type name;
typedef struct strata_rt_stats {
  uint32_t seq;  // of the STATS command that wrote them
  uint32_t context;
  STRATA_RT_STATS_FROM_ALLOCATOR_64(STRATA_RT_STATS_DECLARE_)
  STRATA_RT_STATS_FROM_RUNTIME_64(STRATA_RT_STATS_DECLARE_)
  STRATA_RT_STATS_FROM_ALLOCATOR_32(STRATA_RT_STATS_DECLARE_)
  STRATA_RT_STATS_FROM_RUNTIME_32(STRATA_RT_STATS_DECLARE_)
} strata_rt_stats;
#undef STRATA_RT_STATS_DECLARE_

// At STRATA_RT_HEADER_SYMBOL. Addresses are device (SMEM) addresses; HBM addresses are 64-bit.
typedef struct strata_rt_header {
  uint32_t magic;
  uint16_t version_major;
  uint16_t version_minor;
  uint32_t header_bytes;  // sizeof(strata_rt_header) of the firmware's version. Growth rule: a minor version
                          // only appends fields (offsets never move); a host accepts any size >= the 1.0
                          // header, reads fields past header_bytes as 0 and ignores what it does not know
                          // (host/driver/runtime_header.h).
  uint32_t state;         // strata_rt_state
  uint32_t sq_address, sq_entries, cq_address, cq_entries;
  uint32_t stats_address;
  uint32_t max_contexts;
  uint64_t hbm_capacity_bytes;  // probed by the firmware
  uint64_t heap_bytes;          // managed by the allocator: [0, heap_bytes)
  uint64_t staging_address;     // HBM: slots of staging_slot_bytes each, above the heap
  uint32_t staging_slots;
  uint32_t staging_slot_bytes;
  uint32_t granule_bytes;
  uint32_t max_live_buffers;
  // Written by the host (BAR): completions consumed. Written by the firmware: commands consumed.
  uint32_t cq_head;
  uint32_t sq_head;
  uint32_t commands_served;
  uint32_t mxu_array_n;  // since 1.1: N of the matrix unit's N x N array (0 in 1.0)
} strata_rt_header;

#ifdef __cplusplus
}  // extern "C"
#define STRATA_PROTO_STATIC_ASSERT static_assert
#else
#define STRATA_PROTO_STATIC_ASSERT _Static_assert
#endif

STRATA_PROTO_STATIC_ASSERT(sizeof(strata_cmd) == 64, "a command is 64 bytes");
STRATA_PROTO_STATIC_ASSERT(sizeof(strata_cmd_gemm) == 48, "GEMM arguments fill the argument words");
STRATA_PROTO_STATIC_ASSERT(sizeof(strata_cpl) == 32, "a completion is 32 bytes");
STRATA_PROTO_STATIC_ASSERT(sizeof(strata_rt_stats) == 136, "stats layout");
STRATA_PROTO_STATIC_ASSERT(sizeof(strata_rt_header) == 96, "header layout");
STRATA_PROTO_STATIC_ASSERT((STRATA_RT_SQ_ENTRIES & (STRATA_RT_SQ_ENTRIES - 1)) == 0, "ring sizes are powers of two");
STRATA_PROTO_STATIC_ASSERT((STRATA_RT_CQ_ENTRIES & (STRATA_RT_CQ_ENTRIES - 1)) == 0, "ring sizes are powers of two");

#endif  // STRATA_PROTOCOL_H_
