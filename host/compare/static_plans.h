// Ahead-of-time plans of a workload whose buffers carry a static planner's offsets (XLA imports): XLA's own plan
// replayed at its offsets (xla-static), the lower bound every allocator needs (the max load), and an offline
// best-fit-decreasing packing. Each becomes a row of strata-compare beside the online allocators, its peak over
// the lower bound the optimality gap (docs/jax.md).
#ifndef STRATA_HOST_COMPARE_STATIC_PLANS_H_
#define STRATA_HOST_COMPARE_STATIC_PLANS_H_

#include <stdint.h>

#include <string>
#include <vector>

#include "compare.h"
#include "trace.h"

namespace strata::compare {

// Replays `offsets` (one per buffer) in replay order: false with "buffer ID at [a, b) overlaps buffer ID at
// [c, d) at time T" when two live buffers share a byte. *peak: the highest end of a live buffer.
bool CheckPlacement(const replay::Trace& trace, const std::vector<uint64_t>& offsets, uint64_t* peak, std::string* why);

// Offline packing: buffers by decreasing size (longer-lived first at equal size), each at the smallest gap
// among the buffers already placed that overlap it in time, or above them all.
std::vector<uint64_t> BestFitDecreasing(const replay::Trace& trace);

// The rows' names, in the order AppendStaticPlanRuns appends them (--merge knows them by these).
inline constexpr const char* kStaticPlanRows[] = {"xla-static", "lower-bound", "offline-bfd"};

// Appends the rows xla-static (only with trace.planned_offsets), lower-bound and offline-bfd to the report; an
// overlap in XLA's plan is a note on its row, not an error. With detail_points (strata-compare --html) each row also
// gets its series in bands and, for a plan with offsets, every buffer's place (Run::bands, places), from `events`
// (the trace's, replay order): in use the live buffers' bytes, reserved the highest end of a placed buffer so far
// (lower-bound: the bound).
void AppendStaticPlanRuns(const replay::Trace& trace, WorkloadReport* report, size_t detail_points = 0,
                          const std::vector<replay::Event>* events = nullptr);

}  // namespace strata::compare

#endif  // STRATA_HOST_COMPARE_STATIC_PLANS_H_
