// The part of XLA's public protobuf schema the importer reads, by XLA's own names: each struct is one message of
// xla/service/hlo.proto or xla/xla_data.proto, each constant one of its field numbers (or enum values), spelled
// as the schema spells it, so that a reader can hold a line of xla_proto.cc against the schema. Numbers only: no
// schema file is copied and nothing is generated.
#ifndef STRATA_HOST_WORKLOAD_XLA_SCHEMA_H_
#define STRATA_HOST_WORKLOAD_XLA_SCHEMA_H_

#include <stdint.h>

namespace strata::workload::xla {

// hlo.proto: what --xla_dump_hlo_as_proto writes per module (*.hlo.pb).
struct HloProto {
  static constexpr uint32_t hlo_module = 1, buffer_assignment = 3;
};
struct HloModuleProto {
  static constexpr uint32_t name = 1, computations = 3;
};
struct HloComputationProto {
  static constexpr uint32_t instructions = 2;
};
struct HloInstructionProto {
  static constexpr uint32_t name = 1, shape = 3, id = 35;
};

// hlo.proto: the buffer assignment, also alone (jax's memory_analysis().serialized_buffer_assignment_proto).
struct BufferAssignmentProto {
  static constexpr uint32_t logical_buffers = 1, buffer_aliases = 2, buffer_allocations = 3, heap_simulator_traces = 4;
};
struct LogicalBufferProto {
  static constexpr uint32_t id = 1, size = 2, defined_at = 3;
  struct Location {
    static constexpr uint32_t instruction_name = 2, shape_index = 3, instruction_id = 4;
  };
};
struct BufferAllocationProto {
  static constexpr uint32_t index = 1, size = 2, is_thread_local = 3, is_entry_computation_parameter = 5,
                            parameter_number = 6, maybe_live_out = 7, assigned = 9, is_constant = 12;
  struct Assigned {
    static constexpr uint32_t logical_buffer_id = 1, offset = 2, size = 3;
  };
};
struct HeapSimulatorTrace {
  static constexpr uint32_t events = 1;
  struct Event {
    static constexpr uint32_t kind = 1, buffer_id = 2, share_with_canonical_id = 5;
    // Kind.
    static constexpr uint64_t ALLOC = 0, FREE = 1, SHARE_WITH = 2;
  };
};

// xla_data.proto: shapes.
struct ShapeProto {
  static constexpr uint32_t element_type = 2, dimensions = 3, tuple_shapes = 4, layout = 5;
};
struct LayoutProto {
  static constexpr uint32_t minor_to_major = 1;
};

// xla_data.proto, PrimitiveType: TUPLE, and the name XLA prints in a shape ("f32[128,256]{1,0}") for each array
// type; nullptr for a type not known here.
constexpr uint64_t TUPLE = 13;
const char* PrimitiveTypeName(uint64_t type);

}  // namespace strata::workload::xla

#endif  // STRATA_HOST_WORKLOAD_XLA_SCHEMA_H_
