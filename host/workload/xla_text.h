// The text parser of the XLA importer: the buffer-assignment, live-range and values dumps that
// XLA_FLAGS=--xla_dump_to=DIR writes for every backend, into the module model (xla_module.h). Reads text only:
// which files to read is the import routes' choice (xla_dump.h).
#ifndef STRATA_HOST_WORKLOAD_XLA_TEXT_H_
#define STRATA_HOST_WORKLOAD_XLA_TEXT_H_

#include <string>
#include <string_view>

#include "xla_module.h"

namespace strata::workload {

// Parses a buffer-assignment text and, when given (non-empty), the live-range text of the same module. Errors
// read "LINE: what" (buffer assignment) or "live-range LINE: what"; allocations whose sizes add up to more than
// 2^63 bytes are refused at the one that passes it (the module's sums then never wrap).
bool ParseXlaText(std::string_view assignment, std::string_view live_range, XlaModule* module, std::string* error);

// The -buffer-assignment-values.txt text of a module parsed from `assignment`: when it states a total ("Total
// bytes used: N") that the allocations match, it must list as many values as the module has. A buffer assignment
// cut short after a whole line is caught so. Errors read "LINE: what", LINE the assignment's last.
bool CheckXlaValuesText(std::string_view values, std::string_view assignment, const XlaModule& module,
                        std::string* error);

// True when the text starts like a buffer assignment ("BufferAssignment:").
bool LooksLikeXlaAssignment(std::string_view data);

}  // namespace strata::workload

#endif  // STRATA_HOST_WORKLOAD_XLA_TEXT_H_
