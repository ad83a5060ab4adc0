// strata-compare --timeline: every recorded run of a comparison as one process of a trace-event file
// (host/tool/trace_file.h), so that Strata and the GPU policies stack on one screen in Perfetto.
//
// The clock is the trace's event index (1 us = one allocation or free), the same for every contender: the
// contenders replay the same events in the same order, so a moment lines up across the processes. Each
// process has the memory counters of its run (the trace's requested live bytes, what the allocator charges,
// what it holds, its largest free block), a slice per compaction or Defragment() with the bytes it moved,
// and an instant per failed allocation with the OOM's kind.
#ifndef STRATA_HOST_COMPARE_COMPARE_TIMELINE_H_
#define STRATA_HOST_COMPARE_COMPARE_TIMELINE_H_

#include <string>

#include "compare.h"
#include "trace_file.h"

namespace strata::compare {

// `run` with its full-resolution series (before Downsample).
void WriteRunTimeline(timeline::TraceFile& file, const std::string& workload, const Run& run);

}  // namespace strata::compare

#endif  // STRATA_HOST_COMPARE_COMPARE_TIMELINE_H_
