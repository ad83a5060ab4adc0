// libFuzzer target: arbitrary bytes as an RMM allocation log (workload::ImportRmmLog), and the same bytes
// through Import's format detection. Beyond not crashing: a refusal says "LINE: ...", and an imported trace
// keeps every importer promise (import_check.h), its counts agreeing with the trace.
#include <stddef.h>
#include <stdint.h>

#include <string>
#include <string_view>

#include "import_check.h"
#include "workload.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strata;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  workload::ImportOptions options;
  replay::Trace trace;
  trace.name = "fuzz.rmm.csv";
  workload::ImportStats stats;
  std::string error;
  fuzz::CostMeter cost(size);
  const bool imported = workload::ImportRmmLog(bytes, options, &trace, &stats, &error);
  cost.Check("the RMM import");
  if (imported) {
    fuzz::CheckImportedTrace(trace, stats, /*ids_in_order=*/true);
    FUZZ_CHECK(stats.allocs >= trace.buffers.size() - stats.initially_live);
  } else {
    FUZZ_CHECK(!error.empty() && error[0] >= '0' && error[0] <= '9', error);
    FUZZ_CHECK(trace.buffers.empty());
  }
  // Whatever the detector picks (RMM, trace CSV, torch) must hold to the same promises.
  fuzz::CostMeter auto_cost(size);
  const bool detected = workload::Import(bytes, workload::Format::kAuto, "fuzz", options, &trace, &stats, &error);
  auto_cost.Check("the import by detected format");
  if (detected) {
    fuzz::CheckImportedTrace(trace, stats, workload::DetectFormat(bytes) != workload::Format::kCsv);
  }
  return 0;
}
