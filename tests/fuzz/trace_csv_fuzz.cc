// libFuzzer target: arbitrary bytes as a buffer-lifetime trace CSV through replay::ParseTrace (strata-replay's
// and strata-import's reader). Beyond not crashing: an accepted trace holds only valid buffers, the CSV
// exporter writes it and ParseTrace reads that back to the same buffers, and replaying it on an unbounded heap
// (the allocator library called directly, tests/host/direct_replay.h, with Check() after every operation) never
// fails an allocation.
#include <stddef.h>
#include <stdint.h>

#include <sstream>
#include <string>

#include "direct_replay.h"
#include "fuzz_check.h"
#include "replay.h"
#include "workload.h"

namespace {

bool SameBuffers(const strata::replay::Trace& a, const strata::replay::Trace& b) {
  if (a.buffers.size() != b.buffers.size()) return false;
  for (size_t i = 0; i < a.buffers.size(); ++i) {
    const strata::replay::TraceBuffer &x = a.buffers[i], &y = b.buffers[i];
    if (x.id != y.id || x.lower != y.lower || x.upper != y.upper || x.size != y.size) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace strata;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  replay::Trace trace;
  std::string error;
  fuzz::CostMeter cost(size);
  const bool parsed = replay::ParseTrace(in, "fuzz.csv", &trace, &error);
  cost.Check("parsing");
  if (!parsed) {
    FUZZ_CHECK(!error.empty() && error[0] >= '1' && error[0] <= '9', error);  // "LINE: what"
    return 0;
  }
  uint64_t total = 0;
  for (const replay::TraceBuffer& b : trace.buffers) {
    FUZZ_CHECK(b.upper > b.lower && b.size != 0 && b.size <= replay::kMaxTraceBytes - total,
               "line " + std::to_string(b.line));
    total += b.size;
  }
  std::ostringstream csv;
  FUZZ_CHECK(workload::WriteTraceCsv(trace, csv, &error), error);
  std::istringstream back_in(csv.str());
  replay::Trace back;
  FUZZ_CHECK(replay::ParseTrace(back_in, "back.csv", &back, &error), error);
  FUZZ_CHECK(SameBuffers(trace, back));

  const uint64_t load = replay::MaxLoad(trace, 1);
  for (const replay::TraceBuffer& b : trace.buffers) {
    FUZZ_CHECK(load >= b.size);
  }
  FUZZ_CHECK(replay::BuildEvents(trace).size() == 2 * trace.buffers.size());
  replay::ReplayOptions options;
  options.policy = static_cast<alloc::Policy>(size % alloc::kNumPolicies);
  options.check_every_op = true;
  replay::ReplayResult result;
  if (!replay::DirectReplay(trace, options, &result, &error)) {
    // Sizes near 2^62 need more granules than the allocator addresses: refused at Init, nothing else.
    FUZZ_CHECK(error.rfind("allocator Init failed", 0) == 0, error);
    return 0;
  }
  FUZZ_CHECK(result.failed_allocs == 0 && result.events == 2 * trace.buffers.size());
  return 0;
}
