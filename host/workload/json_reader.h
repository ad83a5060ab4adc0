// Reads a JSON memory snapshot (newer PyTorch and MemoryViz accept one) into the same Document as a pickle.
#ifndef STRATA_HOST_WORKLOAD_JSON_READER_H_
#define STRATA_HOST_WORKLOAD_JSON_READER_H_

#include <stdint.h>

#include <string>
#include <string_view>

#include "document.h"

namespace strata::workload {

struct JsonLimits {
  uint64_t max_bytes = uint64_t{1} << 30;
  uint32_t max_depth = 256;                  // arrays and objects inside each other
  uint64_t max_objects = uint64_t{1} << 26;  // strings + containers created
};

// On error returns false with "byte N: what is wrong" in *error. Containers and strings record the byte
// offset where they start (nlohmann's lexer reads one character ahead, so scalars are placed at the
// character after them).
bool ReadJson(std::string_view data, const JsonLimits& limits, Document* doc, std::string* error);

// Where a JSON text's value starts: after a UTF-8 byte-order mark (which Windows editors and PowerShell
// write, and which ReadJson skips) and blanks; npos when nothing follows them.
size_t JsonValueStart(std::string_view data);

}  // namespace strata::workload

#endif  // STRATA_HOST_WORKLOAD_JSON_READER_H_
