// libFuzzer target: arbitrary bytes as an XLA HloProto or BufferAssignmentProto (workload::ImportXlaProto, by the
// protobuf wire format), in both workload views. Beyond not crashing: the decoder stays within its work budget, a
// refusal says why (a decoding error "byte N: ..."), and an imported trace keeps every importer promise
// (import_check.h).
#include <stddef.h>
#include <stdint.h>

#include <string>
#include <string_view>

#include "import_check.h"
#include "workload.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strata;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  workload::XlaModule module;
  workload::XlaProtoInfo info;
  std::string error;
  fuzz::CostMeter cost(size);
  const bool parsed = workload::ParseXlaProto(bytes, &module, &info, &error);
  cost.Check("the XLA proto decode");
  FUZZ_CHECK(info.fields <= workload::WalkBudget(size), std::to_string(info.fields) + " fields");
  if (!parsed) {
    FUZZ_CHECK(error.rfind("byte ", 0) == 0, error);
    return 0;
  }
  for (workload::XlaView view : {workload::XlaView::kExecutable, workload::XlaView::kSteps}) {
    workload::XlaWorkloadOptions options;
    options.view = view;
    options.tpu_pad = size % 2 == 1;
    replay::Trace trace;
    workload::ImportStats stats;
    fuzz::CostMeter build_cost(size);
    if (workload::ImportXlaProto(bytes, "fuzz", options, &trace, &stats, nullptr, &error)) {
      fuzz::CheckImportedTrace(trace, stats, /*ids_in_order=*/false);
    } else {
      FUZZ_CHECK(!error.empty());
    }
    build_cost.Check("the XLA proto import");
  }
  return 0;
}
