// libFuzzer target: arbitrary bytes as a JSON PyTorch memory snapshot: the JSON reader (workload::ReadJson,
// small limits), then the torch_snapshot importer on devices 0 and 1. Beyond not crashing: the Document is
// well formed (document_check.h), a refusal says "byte N: ...", and an imported trace keeps every importer
// promise (import_check.h).
#include <stddef.h>
#include <stdint.h>

#include <string>
#include <string_view>

#include "document_check.h"
#include "import_check.h"
#include "json_reader.h"
#include "workload.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strata;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  workload::ImportOptions options;
  options.json.max_depth = 64;
  options.json.max_objects = 1 << 14;
  workload::Document doc;
  std::string error;
  fuzz::CostMeter read_cost(size);
  if (workload::ReadJson(bytes, options.json, &doc, &error)) {
    fuzz::CheckDocument(doc);
  } else {
    FUZZ_CHECK(error.rfind("byte ", 0) == 0, error);
  }
  read_cost.Check("reading");
  const size_t first = workload::JsonValueStart(bytes);
  if (first == std::string_view::npos || (bytes[first] != '{' && bytes[first] != '[')) return 0;  // a pickle
  for (int64_t device = 0; device < 2; ++device) {
    options.device = device;
    replay::Trace trace;
    trace.name = "fuzz.json";
    workload::ImportStats stats;
    fuzz::CostMeter import_cost(size);
    const bool imported = workload::ImportTorchSnapshot(bytes, options, &trace, &stats, &error);
    import_cost.Check("the import");
    fuzz::CheckWalkBudget(stats, size);
    if (imported) {
      fuzz::CheckImportedTrace(trace, stats, /*ids_in_order=*/true);
    } else {
      FUZZ_CHECK(error.rfind("byte ", 0) == 0, error);
      FUZZ_CHECK(trace.buffers.empty());
    }
  }
  return 0;
}
