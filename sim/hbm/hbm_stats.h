// Per-pseudo-channel counters of the HBM model, and their text and JSON forms.
#ifndef STRATA_SIM_HBM_HBM_STATS_H_
#define STRATA_SIM_HBM_HBM_STATS_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace strata::hbm {

// Counters of one pseudo-channel (or a sum of several). Bytes count data-bus bursts (32 B each), so
// a 4-byte write counts 32 bytes: that is what the bus carried. Latency is per 32-byte access, from
// the cycle it was submitted to the cycle its last data beat left the bus.
struct HbmChannelStats {
  uint64_t reads = 0;   // column read accesses
  uint64_t writes = 0;  // column write accesses
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;
  uint64_t row_hits = 0;       // the row was already open
  uint64_t row_misses = 0;     // the bank was closed: ACT first
  uint64_t row_conflicts = 0;  // another row was open: PRE, then ACT
  uint64_t activates = 0;
  uint64_t precharges = 0;  // explicit PRE commands (refresh preparation included)
  uint64_t refreshes = 0;   // REFab or REFsb commands
  uint64_t latency_sum = 0;
  uint64_t latency_count = 0;
  uint64_t latency_max = 0;
  uint64_t busy_cycles = 0;            // cycles with at least one queued access
  uint64_t data_bus_milli_cycles = 0;  // time the data bus carried data, in 1/1000 cycle
  uint64_t rejected_full = 0;          // Submit refused because this queue was full

  double AverageLatency() const { return latency_count ? static_cast<double>(latency_sum) / latency_count : 0.0; }
  double RowHitRate() const {
    uint64_t n = row_hits + row_misses + row_conflicts;
    return n ? static_cast<double>(row_hits) / n : 0.0;
  }
  HbmChannelStats& operator+=(const HbmChannelStats& o);
  // One JSON object (no trailing newline).
  std::string ToJson() const;
};

// Stats of every pseudo-channel of a device, indexed by pc_index = channel * pseudo_channels + pc.
struct HbmStats {
  uint32_t pseudo_channels_per_channel = 2;
  uint64_t cycles = 0;
  std::vector<HbmChannelStats> pc;

  HbmChannelStats Channel(uint32_t channel) const;  // both pseudo-channels summed
  HbmChannelStats Total() const;
  // {"cycles":..,"total":{..},"channels":[{..},..]} with one entry per channel.
  std::string ToJson() const;
  // A fixed-width table, one row per channel and a total row.
  void Print(std::ostream& os) const;
};

}  // namespace strata::hbm

#endif  // STRATA_SIM_HBM_HBM_STATS_H_
