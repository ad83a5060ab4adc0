// What a compaction costs on the model, estimated on the host: strata-compare's host backend knows every move Strata's
// allocator makes (the firmware's allocator, the same decisions), and prices each one by the model of its HBM
// preset, fitted on the cycle-level model (docs/comparison.md, "Compaction cycles on the host").
#ifndef STRATA_HOST_COMPARE_COMPACTION_COST_H_
#define STRATA_HOST_COMPARE_COMPACTION_COST_H_

#include <stdint.h>

#include <string>

namespace strata::compare {

// cycles(move) = max(floor_cycles, per_move_cycles + bytes / bytes_per_cycle): a fixed part per move (the DMA
// descriptor, the firmware's loop, the first rows' latency), the bytes at the copy's rate, and a floor that moves
// of a few KiB share (each one's copy overlaps the next one's set-up).
struct CompactionCostModel {
  const char* preset;  // hbm::HbmPresets()'s name
  double floor_cycles;
  double per_move_cycles;
  double bytes_per_cycle;
  double error_bound;  // the largest relative error on the workloads held out of the fit, rounded up
};

// The model of an HBM preset (case-insensitive); nullptr for one not fitted.
const CompactionCostModel* CompactionCostFor(const std::string& preset);
double MoveCycles(const CompactionCostModel& model, uint64_t bytes);

}  // namespace strata::compare

#endif  // STRATA_HOST_COMPARE_COMPACTION_COST_H_
