// A safe reader for the data-only subset of Python's pickle format that PyTorch memory snapshots use.
//
// It builds a Document and never imports or calls anything: GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ,
// NEWOBJ, PERSID and every other opcode outside the list in docs/workloads.md is refused with its name and
// byte offset. Every length is checked against the bytes left before anything is allocated, and the
// limits below bound memory whatever the file says.
#ifndef STRATA_HOST_WORKLOAD_PICKLE_READER_H_
#define STRATA_HOST_WORKLOAD_PICKLE_READER_H_

#include <stdint.h>

#include <string>
#include <string_view>

#include "document.h"

namespace strata::workload {

struct PickleLimits {
  uint64_t max_bytes = uint64_t{1} << 30;    // the whole pickle
  uint32_t max_marks = 1024;                 // MARKs open at once (the nesting of MARK-built containers)
  uint64_t max_stack = uint64_t{1} << 22;    // values on the stack at once (bounds nesting by EMPTY_*)
  uint64_t max_memo = uint64_t{1} << 25;     // memo entries
  uint64_t max_objects = uint64_t{1} << 26;  // strings + containers created
};

struct PickleInfo {
  int protocol = 0;  // from PROTO; 0 if the pickle has none
  uint64_t opcodes = 0;
};

// Decodes one pickle that must fill `data` exactly (STOP is the last byte). On error returns false with
// "byte N: what is wrong" in *error, N the offset of the opcode (or argument) that could not be read.
bool ReadPickle(std::string_view data, const PickleLimits& limits, Document* doc, PickleInfo* info, std::string* error);

// The opcode's name as pickletools spells it ("GLOBAL", "BINGET"), or nullptr for a byte that is no opcode.
const char* PickleOpcodeName(uint8_t op);

}  // namespace strata::workload

#endif  // STRATA_HOST_WORKLOAD_PICKLE_READER_H_
