/* Strata host driver C API: open a device, create contexts, allocate, copy, compact, query memory.
 *
 * Shape (PJRT-like): an opaque device object, integer handles for contexts and buffers (never host
 * pointers, never device addresses), every call returns a strata_status (strata/status.h) whose
 * name is strata_status_name() and whose detail is strata_last_error_message(). Structs passed in or
 * out start with `struct_size` (set it to sizeof) so they can grow at the end.
 *
 * Versioning (STRATA_API_VERSION_*):
 *   MAJOR bumps when a function, type, field or constant changes or disappears, or a documented
 *   behaviour changes: code built against an older major may not work.
 *   MINOR bumps when something is added: a function, a field at the end of a struct (older callers
 *   pass the smaller struct_size and keep working), a flag, a backend, an option. Never removes.
 *   The same rule holds one level down, between this driver and the device's runtime firmware
 *   (strata/protocol.h, strata_rt_header.header_bytes): the firmware's header only grows at the end, and
 *   the driver accepts any header at least as large as the 1.0 header, reading fields it lacks as 0.
 *
 * Threads and blocking: every call is thread-safe; calls on one device are serialised (a device is
 * one command stream). Every call that talks to the device blocks until the device answered it, so
 * host memory passed in may be reused when the call returns; strata_synchronize() additionally waits
 * for any work the driver queued on its own. Blocking calls advance the simulated device clock (sim).
 */
#ifndef STRATA_STRATA_H_
#define STRATA_STRATA_H_

#include <stddef.h>
#include <stdint.h>

#include "strata/gemm.h" /* STRATA_GEMM_FLAG_* */
#include "strata/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STRATA_API_VERSION_MAJOR 1
#define STRATA_API_VERSION_MINOR                                         \
  10 /* 1.1: strata_gemm works; quantized GEMM; device info grew.        \
       1.2: backend registry (strata_list_backends), named open options, \
       a timed-out device fails until closed, handles carry the device;  \
       1.3: event sinks (strata_set_event_sink);                         \
       1.4: events carry device addresses; instants; "heap" track;       \
       1.5: sim open option trace_from_first_gemm;                       \
       1.6: strata_interrupt;                                            \
       1.7: memory stats num_device_alloc, num_device_free;              \
       1.8: strata_get_backend_availability;                             \
       1.9: named context options (a GPU policy per context),            \
            memory stats context_allocated_bytes, _pool_bytes;           \
       1.10: option infos carry their choices and typed defaults;        \
            the standard open option capacity_bytes on every backend;    \
            strata_gemm_args.dtype (bf16 GEMM, sim with runtime_fp.elf) */

typedef struct strata_device strata_device; /* opaque */
typedef uint32_t strata_context;            /* 0 is never a valid context */
typedef uint64_t strata_buffer;             /* 0 is never a valid buffer */

typedef struct strata_version {
  uint32_t struct_size;
  uint32_t api_major, api_minor;
  uint32_t protocol_major, protocol_minor; /* host <-> firmware protocol (strata/protocol.h) */
} strata_version;

/* Never blocks. */
strata_status strata_get_version(strata_version* out);

/* Detail of the calling thread's last failed call ("strata_free: PERMISSION_DENIED: ..."), or "" after a
 * success. Valid until the thread's next call. Never blocks. */
const char* strata_last_error_message(void);

/* Named, typed open options (the shape of PJRT_NamedValue). Each backend declares the options it accepts
 * (strata_get_backend_options); strata_open refuses an unknown name or a value of another type with
 * INVALID_ARGUMENT naming the option and listing the valid ones. */
typedef enum strata_value_type {
  STRATA_VALUE_STRING = 0,
  STRATA_VALUE_INT64 = 1,
  STRATA_VALUE_DOUBLE = 2,
  STRATA_VALUE_BOOL = 3,
} strata_value_type;

typedef struct strata_named_value {
  uint32_t struct_size;
  const char* name;
  strata_value_type type;
  const char* string_value; /* STRING */
  int64_t int64_value;      /* INT64 */
  double double_value;      /* DOUBLE */
  uint8_t bool_value;       /* BOOL: 0 or 1 */
} strata_named_value;

/* The backends this build has: writes up to `capacity` static names into `names` (may be NULL when
 * capacity is 0) and the total into *count. Never blocks. */
strata_status strata_list_backends(const char** names, size_t capacity, size_t* count);

typedef struct strata_option_info {
  uint32_t struct_size;
  const char* name; /* valid while the program runs (as every pointer below) */
  strata_value_type type;
  const char* default_value; /* as text; "" when there is none */
  const char* help;          /* one line */
  /* Since 1.10 (a 1.9 caller's smaller struct gets the fields above only). */
  const char* const* choices; /* the values the backend takes, as text in the option's type ("HBM2", "8"), in the
                               * order a user is shown them, NULL-terminated; NULL when any value of the type goes */
  uint32_t num_choices;       /* entries of `choices` before its NULL */
  int64_t default_int64;      /* INT64: default_value as a number (else 0) */
  double default_double;      /* DOUBLE: default_value as a number (else 0) */
  uint8_t default_bool;       /* BOOL: default_value as 0 or 1 (else 0) */
} strata_option_info;
/* The options `backend` accepts (as strata_list_backends): up to `capacity` into `out`, the total into *count.
 * `out` is an array of structs of the caller's size: every element's struct_size must be the same (out[0]'s is the
 * array's stride), at least the 1.2 struct's (up to `help`). UNIMPLEMENTED for an unknown backend.
 *
 * The standard options (since 1.10), the same name and meaning on every backend that has them:
 *   capacity_bytes (INT64)  the memory the device's contexts may use, in bytes; 0 = the backend's own size.
 *     host: the heap (required). sim: the firmware's heap holds exactly this much for contexts: the backend sizes
 *     the HBM (the heap rounded up to whole HBM rows in every bank, plus the firmware's staging slots, at least
 *     the firmware's minimum) and holds what the heap has beyond it with a pad buffer at offset 0, in a context of
 *     its own made before the first context a caller creates (so the caller's contexts are numbered from 2; the
 *     pad shows in device-wide memory statistics). gpu-emu: free at start (the GPU's total is this plus
 *     context_bytes). cuda: not accepted (the real GPU's memory is what it is). */
strata_status strata_get_backend_options(const char* backend, strata_option_info* out, size_t capacity, size_t* count);
/* Since 1.8. Whether `backend` can open on this machine, without opening it: *reason is "" when nothing is known
 * against it (opening may still fail, for its options or its memory), else why not ("no usable CUDA GPU:
 * cudaGetDeviceCount: ..."), valid until this thread's next call of this function. UNIMPLEMENTED for a backend
 * this build does not have (the message lists those it has). */
strata_status strata_get_backend_availability(const char* backend, const char** reason);

/* The classic options. Each field that is set (non-zero, non-NULL) is the named option of the same name
 * (e.g. hbm_preset -> "hbm_preset"); named_options come after them and win. A field the chosen backend
 * does not accept is refused like an unknown named option. */
typedef struct strata_open_options {
  uint32_t struct_size;
  const char* hbm_preset;      /* sim: "HBM2" (default), "HBM2e", "HBM3" */
  uint64_t hbm_capacity_bytes; /* sim: 0 = 1 GiB; a multiple of the preset's row stripe (256 KiB) */
  const char* pcie_preset;     /* sim: "gen4x16" (default), "gen5x16" */
  const char* trace_path;      /* sim: waveform file (.fst or .vcd); NULL = none */
  const char* firmware_path;   /* sim: runtime ELF; NULL = $STRATA_RUNTIME_FIRMWARE, else the default (docs/sdk.md) */
  uint64_t timeout_cycles;     /* sim: see "Timeouts" below; 0 = the default rule */
  /* Since 1.1 (a 1.0 caller's smaller struct leaves them 0). */
  uint64_t trace_start_cycle; /* sim: record the waveform from this device cycle on */
  uint64_t trace_end_cycle;   /* sim: ... up to this one (exclusive); 0 = to the end */
  /* Since 1.2. */
  const strata_named_value* named_options;
  uint32_t num_named_options;
} strata_open_options;

/* backend: a name from strata_list_backends ("sim": the Strata model in-process). options may be NULL
 * (defaults). Blocks while the device starts. UNIMPLEMENTED for an unknown backend (the message lists the
 * backends this build has), INVALID_ARGUMENT for a bad option, UNAVAILABLE if the device does not start.
 *
 * Timeouts (sim). A call that waits for the device gives up after timeout_cycles device cycles; by default
 * 2e9 cycles, and for strata_gemm 2e9 + 64 * m * n * k / N^2 (N the array size), so that a legal GEMM is
 * never cut off. A call that timed out returns UNAVAILABLE and leaves the device FAILED: the command it
 * gave up on may still be running and would later overwrite its staging memory or its result, so every
 * later call on the device (except strata_get_device_info and strata_close) fails with
 * FAILED_PRECONDITION until the device is closed and opened anew. Nothing a later call reports OK is then
 * wrong.
 *
 * Identity. Buffer handles and context ids carry the identity of the device that made them: passing them to
 * another device fails with INVALID_ARGUMENT. A device pointer that was closed (or never opened) is refused
 * with INVALID_ARGUMENT as long as its address has not been reused by a newer device. */
strata_status strata_open(const char* backend, const strata_open_options* options, strata_device** out);
/* Destroys every context (freeing their buffers) and the device. NULL is OK. Not to be called while another
 * thread uses the device, strata_interrupt excepted. */
strata_status strata_close(strata_device* device);
/* Asks the call now running on `device` to stop at its next wait for the device: that call returns ABORTED
 * ("interrupted") and the device fails until closed, as after a timeout (its state mid-command is unknown). A
 * request made while no call runs is dropped when the next call begins. For Ctrl-C during an hour-long simulated
 * GEMM: callable from any thread and from a signal handler (it only sets a flag: no lock, no last error), never
 * blocks. A device that is closed, or being closed by another thread meanwhile, is refused with INVALID_ARGUMENT
 * as every call refuses a closed device (and it is never touched). sim only; the other backends' calls do not wait
 * on a simulation and ignore it. Since 1.6. */
strata_status strata_interrupt(strata_device* device);

typedef struct strata_device_info {
  uint32_t struct_size;
  const char* backend;         /* static string */
  uint64_t hbm_capacity_bytes; /* as probed by the firmware */
  uint64_t heap_bytes;         /* what the allocator manages (capacity minus staging slots) */
  uint64_t device_cycles;      /* device clock now */
  uint32_t max_contexts;
  uint32_t max_live_buffers;
  uint32_t granule_bytes;
  uint32_t last_command_cycles; /* device cycles the firmware spent on the last command it answered */
  /* Since 1.1 (a 1.0 caller's smaller struct gets the fields above only). */
  uint32_t mxu_array_n;    /* the matrix unit is an N x N systolic array */
  uint64_t hbm_bytes_read; /* HBM traffic since open (DMA, compaction, host-link copies) */
  uint64_t hbm_bytes_written;
  double hbm_peak_bytes_per_cycle; /* the HBM preset's peak, per device cycle */
} strata_device_info;
/* Never talks to the device (does not block). */
strata_status strata_get_device_info(strata_device* device, strata_device_info* out);

/* A context owns buffers; another context's handles are refused with PERMISSION_DENIED. quota_bytes and
 * quota_fraction (of the heap, like XLA_CLIENT_MEM_FRACTION) are exclusive; both 0 = no quota.
 *
 * Named context options (since 1.9; a 1.8 caller's smaller struct gives none), typed as at strata_open. The GPU
 * backends (gpu-emu, cuda) take `policy` and that policy's own settings, the same names, types and checks as their
 * open options of those names: each context is one framework process with its own allocation policy, and what a
 * context does not give is the device's choice at open (its policy; each of the device's settings that the
 * context's policy has). The other backends take none. An unknown name, a value of another type, a setting the
 * context's policy does not have or a bad value is INVALID_ARGUMENT naming it, and no context is created. */
typedef struct strata_context_options {
  uint32_t struct_size;
  uint64_t quota_bytes;
  double quota_fraction; /* (0, 1] */
  /* Since 1.9. */
  const strata_named_value* named_options;
  uint32_t num_named_options;
} strata_context_options;
strata_status strata_context_create(strata_device* device, const strata_context_options* options, strata_context* out);
/* Frees every buffer of the context. NOT_FOUND for an unknown or destroyed context. */
strata_status strata_context_destroy(strata_device* device, strata_context context);

#define STRATA_ALLOC_FLAG_NO_COMPACT 0x1u /* fail instead of defragmenting when memory is fragmented */

/* alignment: 0 (the 256-byte granule) or a power of two up to 1 GiB. RESOURCE_EXHAUSTED when the
 * context's quota or the device memory has no room (after defragment-on-OOM unless NO_COMPACT). */
strata_status strata_alloc(strata_device* device, strata_context context, uint64_t bytes, uint64_t alignment,
                           uint32_t flags, strata_buffer* out);
/* INVALID_ARGUMENT (not a handle), NOT_FOUND (stale or already freed), PERMISSION_DENIED (another context's). */
strata_status strata_free(strata_device* device, strata_context context, strata_buffer buffer);

/* Copies host memory into [offset, offset + bytes) of the buffer (host -> HBM over the host link).
 * OUT_OF_RANGE if the range leaves the buffer's requested size; nothing is written then. */
strata_status strata_write(strata_device* device, strata_context context, strata_buffer buffer, uint64_t offset,
                           const void* src, uint64_t bytes);
/* Copies [offset, offset + bytes) of the buffer into host memory. */
strata_status strata_read(strata_device* device, strata_context context, strata_buffer buffer, uint64_t offset,
                          void* dst, uint64_t bytes);

/* C = A.B (+ C) on the matrix unit, row-major (strata/gemm.h):
 *   dtype STRATA_DTYPE_INT8 (0, what a caller before 1.10 gets): a: int8 m x k, b: int8 k x n, c: int32 m x n,
 *   or int8 m x n with STRATA_GEMM_FLAG_INT8, where each result is sat8(round?((x * quant_mult) >> quant_shift))
 *   (after ReLU with STRATA_GEMM_FLAG_RELU).
 *   dtype STRATA_DTYPE_BF16: a: bf16 m x k, b: bf16 k x n (2 bytes each, the uint16 patterns), c: fp32 m x n, or
 *   bf16 m x n with STRATA_GEMM_FLAG_OUT_BF16 (RNE); ACCUMULATE adds an fp32 c; products exact, fp32 sums
 *   rounded to nearest even in the order docs/matrix-unit.md states. Flags: ACCUMULATE (not with OUT_BF16),
 *   RELU, OUT_BF16.
 *   The sim backend runs it with the runtime image runtime_fp.elf (open option runtime_fp=1): the default
 *   runtime.elf has no bf16 path (FAILED_PRECONDITION naming runtime_fp.elf); gpu-emu and cuda: UNIMPLEMENTED.
 * Each buffer must belong to the context and hold at least its matrix; c must be neither a nor b (a and b
 * may be the same buffer). Blocks until C is in device memory; the work runs after every earlier call's.
 * Errors (nothing is written to c): INVALID_ARGUMENT for a zero or > 2^24 dimension, unknown flags,
 * ACCUMULATE with INT8, ROUND without INT8, quant_* without INT8, quant_shift > 63, a handle that is not
 * one, c equal to a or b, an unknown dtype, INT8 / ROUND / quant_* with BF16, OUT_BF16 without BF16,
 * ACCUMULATE with OUT_BF16; NOT_FOUND for a stale handle; PERMISSION_DENIED for another context's buffer;
 * OUT_OF_RANGE when a buffer is smaller than its matrix (the message names which); FAILED_PRECONDITION for BF16
 * on a runtime image without it. The device cycles the product took are strata_device_info.last_command_cycles
 * afterwards. */
typedef struct strata_gemm_args {
  uint32_t struct_size;
  strata_buffer a, b, c;
  uint32_t m, n, k;
  uint32_t flags; /* STRATA_GEMM_FLAG_ACCUMULATE | _RELU | _INT8 | _ROUND, or with BF16 | _OUT_BF16 */
  /* Since 1.1 (zero for a 1.0 caller's smaller struct). */
  int32_t quant_mult;   /* INT8 only */
  uint32_t quant_shift; /* INT8 only: 0 .. 63 */
  /* Since 1.10 (STRATA_DTYPE_INT8 for an older caller's smaller struct). */
  uint32_t dtype; /* STRATA_DTYPE_INT8 or STRATA_DTYPE_BF16 (strata/gemm.h) */
} strata_gemm_args;
strata_status strata_gemm(strata_device* device, strata_context context, const strata_gemm_args* args);

typedef struct strata_compact_options {
  uint32_t struct_size;
  uint64_t max_bytes; /* 0 = no limit */
  uint32_t max_moves; /* 0 = no limit */
} strata_compact_options;
typedef struct strata_compact_result {
  uint32_t struct_size;
  uint32_t moves;
  uint64_t bytes_moved;
  uint64_t device_cycles; /* of the whole command, as seen by the host */
} strata_compact_result;
/* Defragments device memory (all contexts' buffers; handles stay valid). options and out may be NULL. */
strata_status strata_compact(strata_device* device, strata_context context, const strata_compact_options* options,
                             strata_compact_result* out);

/* The names JAX's Device.memory_stats() and TensorFlow's BFC allocator use. */
typedef struct strata_memory_stats {
  uint32_t struct_size;
  uint32_t live_buffers;
  uint64_t bytes_in_use;
  uint64_t peak_bytes_in_use;
  uint64_t bytes_limit;
  uint64_t bytes_free;
  uint64_t largest_free_block_bytes;
  uint64_t num_allocs;
  uint64_t num_frees;
  uint64_t num_failed_allocs;
  double fragmentation; /* (bytes_free - largest_free_block_bytes) / bytes_free */
  uint64_t compactions;
  uint64_t compaction_moves;
  uint64_t compaction_bytes_moved;
  uint64_t compaction_cycles;
  uint64_t context_bytes_in_use; /* of the context asked about (0 for device-wide) */
  uint64_t context_quota_bytes;
  uint32_t context_buffers;
  uint32_t contexts;
  /* Since 1.2: the GPU policies' figures under their frameworks' names (0 where a backend has no such thing;
   * a 1.1 caller's smaller struct gets the fields above only). On sim, pool_bytes is the heap. */
  uint64_t pool_bytes; /* taken from the device by the allocator: tsl pool_bytes, PyTorch reserved */
  uint64_t peak_pool_bytes;
  uint64_t requested_bytes;      /* live requests as asked (bytes_in_use counts what the allocator charged) */
  uint64_t inactive_split_bytes; /* PyTorch: free parts of split blocks */
  uint64_t largest_alloc_size;
  uint64_t num_alloc_retries; /* PyTorch num_alloc_retries, BFC retries, cudaMallocAsync retries */
  uint64_t device_allocs;     /* cudaMalloc / cuMemCreate calls */
  uint64_t device_frees;
  uint64_t device_syncs; /* full-device synchronisations */
  uint64_t stream_syncs;
  uint64_t maps, unmaps;      /* cuMemMap / cuMemUnmap (VMM policies) */
  uint64_t host_bytes_copied; /* host-bounce defragmentation (JAX's Defragment) */
  uint64_t oom_capacity;      /* failed allocations by kind (strata_oom_kind) */
  uint64_t oom_cap;
  uint64_t oom_fragmentation;
  /* Since 1.7: PyTorch's num_device_alloc / num_device_free as PyTorch counts them (torch policies; 0 elsewhere):
   * one per cudaMalloc / cudaFree, and with expandable segments one per map_block / unmap_block call, where
   * device_allocs counts every cuMemCreate (one per page). */
  uint64_t num_device_alloc;
  uint64_t num_device_free;
  /* Since 1.9, of the context asked about (0 for device-wide, and on backends without a per-context allocator):
   * on the GPU backends its own policy's bytes_in_use (what it charged for the context's live buffers, where
   * context_bytes_in_use counts them as asked) and pool_bytes. */
  uint64_t context_allocated_bytes;
  uint64_t context_pool_bytes;
} strata_memory_stats;
/* context 0: device-wide figures only. */
strata_status strata_get_memory_stats(strata_device* device, strata_context context, strata_memory_stats* out);

/* Why an allocation failed (since 1.2). CAPACITY: live bytes + request exceed the device. CAP: the device has
 * room, but a limit does not (a context quota, a framework's memory fraction). FRAGMENTATION: enough memory
 * is free in the allocator's hands, but no block fits. */
typedef enum strata_oom_kind {
  STRATA_OOM_NONE = 0,
  STRATA_OOM_CAPACITY = 1,
  STRATA_OOM_CAP = 2,
  STRATA_OOM_FRAGMENTATION = 3,
} strata_oom_kind;
const char* strata_oom_kind_name(strata_oom_kind kind); /* "none", "capacity", "cap", "fragmentation" */

typedef struct strata_oom_info {
  uint32_t struct_size;
  strata_oom_kind kind;
  uint64_t request_bytes;
  uint64_t live_bytes;     /* device-wide bytes in use at that moment */
  uint64_t reserved_bytes; /* held by the allocator (pool) at that moment */
  uint64_t largest_free_block_bytes;
  uint64_t limit_bytes; /* the limit that applied (0 = none) */
  uint64_t device_free_bytes;
  uint64_t context_bytes_in_use;
  uint64_t context_quota_bytes; /* 0 = none */
} strata_oom_info;
/* The device's last failed allocation (any context); kind NONE when none has failed since open. */
strata_status strata_get_last_oom(strata_device* device, strata_oom_info* out);

/* Waits until the device has answered everything submitted so far, then makes one no-op round trip. */
strata_status strata_synchronize(strata_device* device);

/* Events (since 1.3): what happens inside a run, timed on the device clock, for timelines and profiles.
 * A span took [begin_cycle, end_cycle); a counter is a value at begin_cycle (== end_cycle). Tracks on sim:
 *   "command"  each command, from its submission to the host seeing its completion; name = the opcode
 *              ("alloc", "write", "gemm", ...), value = its status, id = its sequence number;
 *   "firmware" the firmware's own time on it (the completion's cycle count, ending when the host saw it);
 *   "mxu"      the firmware's time on a GEMM (as "firmware" for other commands; not matrix-unit busy time);
 *   "matrix unit" (since 1.4) "busy": each stretch of cycles with a matrix-unit command queued or in flight;
 *   "pcie"     each host<->HBM copy ("to_device" / "from_device"), value = bytes;
 *   "dma"      each DMA row command at the HBM bridge ("hbm_read", "hbm_write", "hbm_copy"), value = bytes;
 *   "compaction" each strata_compact that succeeded, over its command's cycles ("compact", value = bytes moved).
 *   "heap"     (since 1.4) instants: "alloc" (address = the buffer's first byte, value = bytes it occupies
 *              (sim: rounded to the granule), id = a buffer number the backend uses in its own events),
 *              "free" (id; also for each buffer freed with its context), "move" (GPU backends' Defragment():
 *              address -> to_address), and on sim "extent" (value = the heap's bytes from address 0) each
 *              time the backend's sink is set. On sim a compaction's moves are its "dma" "hbm_copy" rows.
 * Since 1.4 "dma" spans carry their source (address) and destination (to_address), "pcie" spans their HBM
 * address (in both), flagged STRATA_EVENT_FLAG_ADDRESS. Addresses are for pictures of the address space: calls take
 * handles, never addresses. Tracks on GPU backends: "heap", and "compaction" ("defragment": JAX's
 * Defragment(), value = bytes through the host), timed by the backend's event index; on gpu-emu also "device" instants
 * for what the policy asks of the GPU: "malloc" and "free" (cudaMalloc / cudaFree), "map" and "unmap" (cuMemMap /
 * cuMemUnmap), address = the range's first byte, value = its bytes; a sink set later first hears of what is held
 * then, as "malloc" and "map". On the host backend (Strata's
 * allocator in host memory), by its event index: "heap" ("extent", "alloc", "free", "move" for each compaction move,
 * value = granule-rounded bytes) and "compaction" ("slide_baseline": before each defragment-on-OOM, what sliding
 * every live buffer down would copy; "on_oom": an allocation that compacted; "compact"; value = bytes).
 * The sink runs synchronously on the calling thread while the device is locked: it must not call the API
 * on the same device. track and name are static strings. With no sink (the default) nothing is recorded
 * and the run is cycle-for-cycle the same as with one. Backends without events: UNIMPLEMENTED. */
typedef enum strata_event_kind {
  STRATA_EVENT_SPAN = 1,
  STRATA_EVENT_COUNTER = 2,
  STRATA_EVENT_INSTANT = 3 /* since 1.4: at begin_cycle (== end_cycle) */
} strata_event_kind;
#define STRATA_EVENT_FLAG_ADDRESS 1u /* address and to_address hold device addresses */
typedef struct strata_event {
  uint32_t struct_size;
  strata_event_kind kind;
  const char* track;
  const char* name;
  uint64_t begin_cycle, end_cycle;
  int64_t value;
  uint64_t id; /* 0: none */
  /* since 1.4 (struct_size says whether they are there) */
  uint32_t flags; /* STRATA_EVENT_FLAG_* */
  uint64_t address, to_address;
} strata_event;
typedef void (*strata_event_fn)(void* user, const strata_event* event);
/* Sets (fn non-NULL) or removes (fn NULL) the device's one event sink. */
strata_status strata_set_event_sink(strata_device* device, strata_event_fn fn, void* user);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* STRATA_STRATA_H_ */
