// strata-compare's outputs: the aligned table, the JSON report (which scripts/plot_compare.py draws and
// --merge reads back), the CSV (one row per run) and the merge of many partial reports into one.
#ifndef STRATA_HOST_COMPARE_REPORT_H_
#define STRATA_HOST_COMPARE_REPORT_H_

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "compare.h"

namespace strata::compare {

constexpr int kReportVersion = 1;

// The whole report: {"tool":"strata-compare","version":1,"workloads":[...]} (docs/comparison.md).
std::string ToJson(const std::vector<WorkloadReport>& reports);
// Reads a report back. False with "what is wrong" (the JSON parser's byte offset, or the missing key).
bool FromJson(const std::string& text, std::vector<WorkloadReport>* reports, std::string* error);

// A run's first OOM as the JSON report holds it (null when the run had none); the --html page carries the same.
nlohmann::ordered_json FirstOomJson(const FirstOom& f);

std::string CsvHeader();                          // with its newline
std::string ToCsv(const WorkloadReport& report);  // one line per run

std::string ToTable(const WorkloadReport& report);
// The table's closing lines: "verdict at C:", who completes, who fails (earliest first), what would have saved each
// failed run, least memory (names escaped as in the table).
std::string Verdict(const WorkloadReport& report);
// When no allocator setting can help a workload of this peak: the levers that do (a smaller batch, rematerialization,
// sharding, with the per-device bound over 2, 4 and 8 devices), as one line.
std::string Levers(uint64_t peak);

// Partial reports of one sweep (one contender each, --emit-jobs) into the report one process would have
// written: runs of a workload at one capacity gathered in AllContenders() order. False when two parts
// disagree about a workload (its max load, buffers or events) or hold the same run twice.
bool Merge(const std::vector<std::vector<WorkloadReport>>& parts, std::vector<WorkloadReport>* merged,
           std::string* error);

}  // namespace strata::compare

#endif  // STRATA_HOST_COMPARE_REPORT_H_
