// What every importer promises about a trace it returns (shared by the workload fuzz targets): buffers in
// lower order with ids 0, 1, ... and the CSV line each will have, valid intervals and sizes, stats that agree
// with the trace, and a CSV export that replay::ParseTrace reads back to the same buffers.
#ifndef STRATA_TESTS_FUZZ_IMPORT_CHECK_H_
#define STRATA_TESTS_FUZZ_IMPORT_CHECK_H_

#include <sstream>
#include <string>

#include "fuzz_check.h"
#include "trace.h"
#include "workload.h"

namespace strata::fuzz {

inline void CheckImportedTrace(const replay::Trace& trace, const workload::ImportStats& stats, bool ids_in_order) {
  uint64_t total = 0, initially_live = 0;
  for (size_t i = 0; i < trace.buffers.size(); ++i) {
    const replay::TraceBuffer& b = trace.buffers[i];
    FUZZ_CHECK(b.upper > b.lower, "buffer " + std::to_string(i));
    FUZZ_CHECK(b.size != 0 && b.size <= replay::kMaxTraceBytes, "buffer " + std::to_string(i));
    if (ids_in_order) {
      FUZZ_CHECK(b.id == static_cast<int64_t>(i) && b.line == i + 2, "buffer " + std::to_string(i));
      FUZZ_CHECK(i == 0 || trace.buffers[i - 1].lower <= b.lower, "buffer " + std::to_string(i));
    }
    if (b.lower == 0) ++initially_live;
    total += b.size > UINT64_MAX - total ? UINT64_MAX - total : b.size;  // saturating: the check is below
  }
  FUZZ_CHECK(stats.initially_live == initially_live);
  FUZZ_CHECK(stats.peak_live_bytes == replay::MaxLoad(trace, 1));
  std::ostringstream csv;
  std::string error;
  FUZZ_CHECK(workload::WriteTraceCsv(trace, csv, &error), error + " (sizes add up to " + std::to_string(total) + ")");
  std::istringstream in(csv.str());
  replay::Trace back;
  FUZZ_CHECK(replay::ParseTrace(in, trace.name, &back, &error), error);
  FUZZ_CHECK(back.buffers.size() == trace.buffers.size());
  for (size_t i = 0; i < back.buffers.size(); ++i) {
    const replay::TraceBuffer &x = trace.buffers[i], &y = back.buffers[i];
    FUZZ_CHECK(x.id == y.id && x.lower == y.lower && x.upper == y.upper && x.size == y.size,
               "buffer " + std::to_string(i));
  }
}

// The torch walk stays within its work budget (workload::WalkBudget), refused or not.
inline void CheckWalkBudget(const workload::ImportStats& stats, size_t input_bytes) {
  FUZZ_CHECK(stats.visits <= workload::WalkBudget(input_bytes) + 64,
             std::to_string(stats.visits) + " visits for " + std::to_string(input_bytes) + " bytes");
}

}  // namespace strata::fuzz

#endif  // STRATA_TESTS_FUZZ_IMPORT_CHECK_H_
