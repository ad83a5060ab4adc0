// libFuzzer target: arbitrary bytes as a pickled PyTorch memory snapshot: the safe pickle reader
// (workload::ReadPickle, small limits so that no input can run long), then the torch_snapshot importer on
// devices 0 and 1. Beyond not crashing: the Document is well formed (document_check.h), a refusal says
// "byte N: ...", and an imported trace keeps every importer promise (import_check.h).
#include <stddef.h>
#include <stdint.h>

#include <string>
#include <string_view>

#include "document_check.h"
#include "import_check.h"
#include "pickle_reader.h"
#include "workload.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strata;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  workload::ImportOptions options;
  options.pickle.max_marks = 64;
  options.pickle.max_stack = 1 << 12;
  options.pickle.max_memo = 1 << 12;
  options.pickle.max_objects = 1 << 14;
  workload::Document doc;
  workload::PickleInfo info;
  std::string error;
  fuzz::CostMeter read_cost(size);
  if (workload::ReadPickle(bytes, options.pickle, &doc, &info, &error)) {
    fuzz::CheckDocument(doc);
    FUZZ_CHECK(info.opcodes >= 1 && info.opcodes <= size);
  } else {
    FUZZ_CHECK(error.rfind("byte ", 0) == 0, error);
  }
  read_cost.Check("reading");
  if (!bytes.empty() && bytes[0] != '\x80') return 0;  // the importer reads '{' as JSON: torch_json_fuzz's part
  for (int64_t device = 0; device < 2; ++device) {
    options.device = device;
    replay::Trace trace;
    trace.name = "fuzz.pickle";
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
