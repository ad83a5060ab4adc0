// The protobuf parser of the XLA importer: buffer assignments decoded by the wire format (proto_wire.h) and the
// field numbers of XLA's public schema (xla_schema.h: hlo.proto, xla_data.proto; no schema file is copied): the
// HloProto that XLA_FLAGS="--xla_dump_to=DIR --xla_dump_hlo_as_proto" writes per module (*.hlo.pb: the module and its
// BufferAssignmentProto with the heap simulator's ALLOC/FREE/SHARE_WITH trace), or the bare BufferAssignmentProto
// of jax's compiled.memory_analysis().serialized_buffer_assignment_proto (allocations and offsets, no trace).
// Both become the XlaModule of xla_module.h, as the text dumps do (xla_text.h), so every workload of docs/jax.md
// comes from either route. Reads bytes only: which file is the import routes' choice (xla_dump.h).
#ifndef STRATA_HOST_WORKLOAD_XLA_PROTO_H_
#define STRATA_HOST_WORKLOAD_XLA_PROTO_H_

#include <stdint.h>

#include <string>
#include <string_view>

#include "xla_module.h"

namespace strata::workload {

struct XlaProtoInfo {
  bool hlo_proto = false;  // an HloProto (module + buffer assignment), else a bare BufferAssignmentProto
  uint64_t logical_buffers = 0;
  uint64_t traces = 0, events = 0;  // heap-simulator traces and their events
  uint64_t fields = 0;              // fields read: the work done, at most one per 2 input bytes
};

// Decodes `data` into *module: allocations with their assigned logical buffers (sizes, offsets; names and shapes
// when the HloModuleProto is there), and live ranges from the heap-simulator trace: time is the event's position
// in the traces (concatenated, from 1), a value lives from its ALLOC (or SHARE_WITH) to its FREE inclusive, and
// buffers sharing one chunk (SHARE_WITH) get the union of their ranges, as XLA extends the canonical buffer's.
// Values the trace does not name (a while loop's tuple index tables) have no live range. Without a trace no value
// has one (sequence_length 0). Errors read "byte N: what".
bool ParseXlaProto(std::string_view data, XlaModule* module, XlaProtoInfo* info, std::string* error);

// True for a file name XLA gives its protobuf dumps (*.pb).
bool IsXlaProtoName(std::string_view path);

}  // namespace strata::workload

#endif  // STRATA_HOST_WORKLOAD_XLA_PROTO_H_
