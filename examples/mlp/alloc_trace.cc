#include "alloc_trace.h"

#include <sstream>

#include "regular_file.h"
#include "workload.h"

namespace strata::mlp {

Buffer AllocTrace::Alloc(Context& context, uint64_t bytes) {
  Buffer b = context.Alloc(bytes);
  if (!live_.emplace(b.handle(), trace_.buffers.size()).second) {  // a live handle handed out again: not a trace
    throw Error(STRATA_INTERNAL, "alloc trace: buffer handle " + std::to_string(b.handle()) + " is already live");
  }
  replay::TraceBuffer row;
  row.id = static_cast<int64_t>(trace_.buffers.size());
  row.lower = ++events_;
  row.size = bytes;
  trace_.buffers.push_back(row);
  return b;
}

void AllocTrace::Free(Buffer& buffer) {
  const strata_buffer handle = buffer.handle();
  buffer.Free();
  const auto it = live_.find(handle);
  if (it == live_.end()) {
    throw Error(STRATA_INTERNAL, "alloc trace: freed buffer handle " + std::to_string(handle) + " was not recorded");
  }
  trace_.buffers[it->second].upper = ++events_;
  live_.erase(it);
}

std::string AllocTrace::Write(const std::string& path) const {
  replay::Trace closed = trace_;
  for (replay::TraceBuffer& b : closed.buffers) {
    if (b.upper == 0) b.upper = events_ + 1;  // still live at the end
  }
  std::ostringstream csv;
  std::string error;
  if (!workload::WriteTraceCsv(closed, csv, &error)) return error;
  return tool::WriteTextFile(path, csv.str());
}

}  // namespace strata::mlp
