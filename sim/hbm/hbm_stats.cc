// Formatting of HBM statistics as JSON and as a text table.
#include "hbm/hbm_stats.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace strata::hbm {

HbmChannelStats& HbmChannelStats::operator+=(const HbmChannelStats& o) {
  reads += o.reads;
  writes += o.writes;
  bytes_read += o.bytes_read;
  bytes_written += o.bytes_written;
  row_hits += o.row_hits;
  row_misses += o.row_misses;
  row_conflicts += o.row_conflicts;
  activates += o.activates;
  precharges += o.precharges;
  refreshes += o.refreshes;
  latency_sum += o.latency_sum;
  latency_count += o.latency_count;
  latency_max = std::max(latency_max, o.latency_max);
  busy_cycles += o.busy_cycles;
  data_bus_milli_cycles += o.data_bus_milli_cycles;
  rejected_full += o.rejected_full;
  return *this;
}

std::string HbmChannelStats::ToJson() const {
  char buf[640];
  std::snprintf(buf, sizeof buf,
                "{\"reads\":%llu,\"writes\":%llu,\"bytes_read\":%llu,\"bytes_written\":%llu,"
                "\"row_hits\":%llu,\"row_misses\":%llu,\"row_conflicts\":%llu,\"activates\":%llu,"
                "\"precharges\":%llu,\"refreshes\":%llu,\"latency_avg\":%.2f,\"latency_max\":%llu,"
                "\"busy_cycles\":%llu,\"data_bus_cycles\":%.1f,\"rejected_full\":%llu}",
                (unsigned long long)reads, (unsigned long long)writes, (unsigned long long)bytes_read,
                (unsigned long long)bytes_written, (unsigned long long)row_hits, (unsigned long long)row_misses,
                (unsigned long long)row_conflicts, (unsigned long long)activates, (unsigned long long)precharges,
                (unsigned long long)refreshes, AverageLatency(), (unsigned long long)latency_max,
                (unsigned long long)busy_cycles, data_bus_milli_cycles / 1000.0, (unsigned long long)rejected_full);
  return buf;
}

HbmChannelStats HbmStats::Channel(uint32_t channel) const {
  HbmChannelStats s;
  for (uint32_t p = 0; p < pseudo_channels_per_channel; ++p) {
    size_t i = static_cast<size_t>(channel) * pseudo_channels_per_channel + p;
    if (i < pc.size()) s += pc[i];
  }
  return s;
}

HbmChannelStats HbmStats::Total() const {
  HbmChannelStats s;
  for (const auto& p : pc) s += p;
  return s;
}

std::string HbmStats::ToJson() const {
  std::ostringstream os;
  os << "{\"cycles\":" << cycles << ",\"total\":" << Total().ToJson() << ",\"channels\":[";
  uint32_t channels = pseudo_channels_per_channel ? pc.size() / pseudo_channels_per_channel : 0;
  for (uint32_t c = 0; c < channels; ++c) os << (c ? "," : "") << Channel(c).ToJson();
  os << "]}";
  return os.str();
}

void HbmStats::Print(std::ostream& os) const {
  char line[256];
  std::snprintf(line, sizeof line, "%-6s %12s %12s %8s %8s %8s %8s %9s %8s %12s %8s\n", "chan", "bytes_rd", "bytes_wr",
                "hits", "misses", "confl", "refresh", "lat_avg", "lat_max", "busy_cyc", "bus_util");
  os << line;
  auto row = [&](const std::string& name, const HbmChannelStats& s, uint32_t npc) {
    double util = cycles ? s.data_bus_milli_cycles / 1000.0 / (static_cast<double>(cycles) * npc) : 0.0;
    std::snprintf(line, sizeof line, "%-6s %12llu %12llu %8llu %8llu %8llu %8llu %9.1f %8llu %12llu %7.1f%%\n",
                  name.c_str(), (unsigned long long)s.bytes_read, (unsigned long long)s.bytes_written,
                  (unsigned long long)s.row_hits, (unsigned long long)s.row_misses, (unsigned long long)s.row_conflicts,
                  (unsigned long long)s.refreshes, s.AverageLatency(), (unsigned long long)s.latency_max,
                  (unsigned long long)s.busy_cycles, 100.0 * util);
    os << line;
  };
  uint32_t channels = pseudo_channels_per_channel ? pc.size() / pseudo_channels_per_channel : 0;
  for (uint32_t c = 0; c < channels; ++c) row(std::to_string(c), Channel(c), pseudo_channels_per_channel);
  row("total", Total(), static_cast<uint32_t>(pc.size()));
}

}  // namespace strata::hbm
