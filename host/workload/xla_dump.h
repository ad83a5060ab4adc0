// XLA buffer assignments (the text dumps XLA_FLAGS=--xla_dump_to=DIR writes for every backend) as workloads:
// the logical buffers inside one executable at XLA's own offsets, or what the runtime allocator sees over N
// steps of a loop that calls it. docs/jax.md has the rules and the modelled PJRT order.
#ifndef STRATA_HOST_WORKLOAD_XLA_DUMP_H_
#define STRATA_HOST_WORKLOAD_XLA_DUMP_H_

#include <stdint.h>

#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "trace.h"

namespace strata::workload {

struct ImportOptions;
struct ImportStats;

// The text a module's names and shapes view: each distinct string stored once, whatever number of values name it
// (a protobuf dump names one instruction, and its shape, from any number of logical buffers, so copies per value
// would grow with the product of the two). Views into it stay valid as it grows; a module shares it with every copy
// of itself and with the traces made from it.
class XlaStrings {
 public:
  std::string_view Intern(std::string_view text);
  uint64_t bytes() const { return bytes_; }  // of the distinct strings

 private:
  std::deque<std::string> store_;  // never moves an element it holds
  std::unordered_set<std::string_view> index_;
  uint64_t bytes_ = 0;
};

// One logical buffer (an HloValue). Its name and shape view the module's XlaStrings.
struct XlaValue {
  int64_t id = 0;
  std::string_view name;         // the instruction: "fusion.3", "tuple"; empty when a protobuf names none
  std::string_view index;        // its shape index as the live-range file writes it: "{}", "{1}", "{1,0}"
  uint64_t size = 0;             // bytes
  uint64_t offset = 0;           // within its allocation
  std::string_view shape;        // "f32[128,256]{1,0}"
  int64_t start = -1, end = -1;  // live range in the instruction sequence (inclusive), -1: not in the live-range file
  uint32_t line = 0;             // 1-based line in the buffer-assignment text

  // "fusion.3{}", "tuple{1}": the name the live-range file gives it ("value.ID{}" when it has none).
  std::string FullName() const {
    return (name.empty() ? "value." + std::to_string(id) : std::string(name)) + std::string(index);
  }
};

// One allocation: a parameter, an output, the preallocated temp, a constant or a thread-local buffer.
struct XlaAllocation {
  uint64_t index = 0, size = 0;
  int64_t parameter = -1;  // entry parameter number, -1 if none
  bool live_out = false;   // maybe-live-out: an output (a parameter that is live out is donated / aliased)
  bool temp = false;       // preallocated-temp: what the heap simulator packed
  bool thread_local_ = false;
  bool constant = false;
  std::vector<XlaValue> values;
  uint32_t line = 0;
};

struct XlaModule {
  std::string name;  // file name of the buffer assignment, without "-buffer-assignment.txt"
  std::shared_ptr<XlaStrings> strings = std::make_shared<XlaStrings>();  // what the values' names and shapes view
  uint64_t input_bytes = 0;  // of the text or protobuf it was parsed from: bounds the steps view (BuildXlaWorkload)
  std::vector<XlaAllocation> allocations;
  int64_t sequence_length = 0;  // the live-range file's "max": times run 0 .. max
  // What memory_analysis() reports, recomputed from the allocations.
  uint64_t argument_bytes = 0, output_bytes = 0, alias_bytes = 0, temp_bytes = 0, constant_bytes = 0;
  uint64_t values = 0;
};

// Parses a buffer-assignment text and, when given (non-empty), the live-range text of the same module. Errors
// read "LINE: what" (buffer assignment) or "live-range LINE: what"; allocations whose sizes add up to more than
// 2^63 bytes are refused at the one that passes it (the module's sums then never wrap).
bool ParseXlaModule(std::string_view assignment, std::string_view live_range, XlaModule* module, std::string* error);

enum class XlaView { kExecutable, kSteps };
const char* XlaViewName(XlaView view);  // "executable", "steps"

struct XlaWorkloadOptions {
  XlaView view = XlaView::kExecutable;
  uint64_t steps = 3;    // kSteps: calls of the executable
  bool tpu_pad = false;  // apply the TPU tile-padding rule to every value from its shape (drops XLA's offsets)
};

struct XlaWorkloadStats {
  uint64_t values = 0, buffers = 0;               // logical buffers read, workload buffers made (aliases merged)
  uint64_t unpadded_bytes = 0, padded_bytes = 0;  // sum over the workload's buffers (equal without tpu_pad)
  uint64_t unparsed_shapes = 0;                   // tpu_pad: values whose shape could not be read (left unpadded)
  uint64_t skipped_thread_local = 0, skipped_no_live_range = 0;
};

// The most buffers the steps view makes of a module read from `input_bytes` bytes: 2^17 plus one per 4 input bytes,
// so that the trace (about 112 bytes a buffer at strata-import's peak, the CSV being written) stays within the
// importers' memory bound of 64x the input plus 32 MiB (docs/workloads.md) however large --xla-steps is.
uint64_t XlaStepsBufferLimit(uint64_t input_bytes);

// The workload of one module. kExecutable: the temp allocation's values, aliases (values at one offset whose
// live ranges touch or overlap) merged into one buffer, each with XLA's offset (Trace::planned_offsets, made
// absolute over the temp allocations laid end to end) and shape. kSteps: the PJRT order of docs/jax.md, refused
// before anything is allocated when it would make more than XlaStepsBufferLimit buffers. Either view is refused,
// naming the buffer, when a buffer would pass 2^62 bytes (padded) or the sizes would add up to more than 2^63 (what
// a trace holds, replay/trace.h): no sum over the workload wraps.
bool BuildXlaWorkload(const XlaModule& module, const XlaWorkloadOptions& options, replay::Trace* trace,
                      XlaWorkloadStats* stats, std::string* error);

// A dump directory, a *-buffer-assignment.txt file or a *-live-range.txt file (its sibling is read), or a
// protobuf dump (*.pb, or any file that is not a buffer-assignment text). In a directory, `module` picks the
// module whose file name contains it; without it, the module with the most logical buffers; the text dumps are
// read when there are any, else the *.hlo.pb ones (the largest file). Every file is read as the other inputs are
// (tool::ReadRegularFile): a regular file of at most `max_input_bytes`, never a FIFO or a device, whether it is the
// module read or one only counted to choose it. Errors read "PATH: ..." or "PATH:LINE: ...".
bool ImportXlaPath(const std::string& path, const std::string& module, const XlaWorkloadOptions& options,
                   uint64_t max_input_bytes, replay::Trace* trace, ImportStats* stats, XlaModule* parsed,
                   std::string* error);

// The buffer-assignment text alone (no live ranges): refused with a message that names the live-range file.
// Data that is not such a text is read as a protobuf (ImportXlaProto).
bool ImportXlaText(std::string_view data, const XlaWorkloadOptions& options, replay::Trace* trace, ImportStats* stats,
                   std::string* error);

// An HloProto or BufferAssignmentProto (xla_proto.h) as a workload; `name` names the trace (default: the
// module's). Errors read "byte N: what". The executable view needs the heap-simulator trace, which only the
// HloProto dump carries; the steps view needs only the allocations.
bool ImportXlaProto(std::string_view data, const std::string& name, const XlaWorkloadOptions& options,
                    replay::Trace* trace, ImportStats* stats, XlaModule* parsed, std::string* error);
// A *.pb file: errors read "PATH: byte N: what".
bool ImportXlaProtoFile(const std::string& path, const XlaWorkloadOptions& options, uint64_t max_input_bytes,
                        replay::Trace* trace, ImportStats* stats, XlaModule* parsed, std::string* error);

// The argument / output / alias / temp / constant bytes of a module from its allocations (what
// memory_analysis() reports).
void SumXlaModule(XlaModule* module);

// The workload of a parsed module and the import stats every importer fills; `source` names the route.
bool FinishXlaImport(XlaModule&& module, const std::string& source, const XlaWorkloadOptions& options,
                     replay::Trace* trace, ImportStats* stats, XlaModule* parsed, std::string* error);

// True when the text starts like a buffer assignment ("BufferAssignment:").
bool LooksLikeXlaAssignment(std::string_view data);

// The files beside `path` that ImportXlaPath may read with it: in a dump directory, every module file it could pick
// (*-buffer-assignment.txt, its -values and -live-range files, *.hlo.pb); for a module's text file, the other two
// of its module. Empty for anything else. Listed by name only, nothing opened: for the tools' check that no output
// lands on a file the import reads (tool::CheckOutputsApart).
std::vector<std::string> XlaDumpFiles(const std::string& path);

}  // namespace strata::workload

#endif  // STRATA_HOST_WORKLOAD_XLA_DUMP_H_
