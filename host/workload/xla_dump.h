// The XLA importer's routes: which files of a dump (XLA_FLAGS=--xla_dump_to=DIR) to read, which parser reads them
// (xla_text.h for the text dumps, xla_proto.h for the protobuf ones) and the workload made of the module
// (xla_workload.h). The parsers know nothing of files or of each other; only this layer calls both.
#ifndef STRATA_HOST_WORKLOAD_XLA_DUMP_H_
#define STRATA_HOST_WORKLOAD_XLA_DUMP_H_

#include <stdint.h>

#include <string>
#include <string_view>
#include <vector>

#include "trace.h"
#include "xla_module.h"
#include "xla_workload.h"

namespace strata::workload {

struct ImportStats;

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

// The files beside `path` that ImportXlaPath may read with it: in a dump directory, every module file it could pick
// (*-buffer-assignment.txt, its -values and -live-range files, *.hlo.pb); for a module's text file, the other two
// of its module. Empty for anything else. Listed by name only, nothing opened: for the tools' check that no output
// lands on a file the import reads (tool::CheckOutputsApart).
std::vector<std::string> XlaDumpFiles(const std::string& path);

}  // namespace strata::workload

#endif  // STRATA_HOST_WORKLOAD_XLA_DUMP_H_
