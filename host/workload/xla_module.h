// The XLA importer's module model: one compiled module's buffer assignment (allocations and the logical buffers
// in them, with live ranges), as either parser makes it (xla_text.h from the text dumps, xla_proto.h from the
// protobuf ones) and the workload builder reads it (xla_workload.h). No parsing and no policy here.
#ifndef STRATA_HOST_WORKLOAD_XLA_MODULE_H_
#define STRATA_HOST_WORKLOAD_XLA_MODULE_H_

#include <stdint.h>

#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace strata::workload {

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

// The argument / output / alias / temp / constant bytes of a module from its allocations (what
// memory_analysis() reports).
void SumXlaModule(XlaModule* module);

}  // namespace strata::workload

#endif  // STRATA_HOST_WORKLOAD_XLA_MODULE_H_
