// DMA and host-link benchmarks on the Verilated device: HBM -> VMEM throughput, HBM -> HBM copy
// throughput against the best the HBM allows (reads and writes share its peak), concurrent
// queues, host <-> HBM copies against the PCIe preset, BAR read latency, and the simulator's
// speed while DMA streams. One JSON object per line on stdout.
// Usage: strata-bench-dma [--quick] [--queue-depth N] [--address-map xor-hash|linear] [--row-hit-cap N]
// (the HBM controller settings, so that the figures can be compared with other controllers).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "device.h"
#include "dma_client.h"
#include "hbm/hbm_model.h"
#include "host_link.h"
#include "json_lines.h"

namespace {

using strata::tool::Json;
using strata::tool::JsonRound;
using strata::tool::PrintJsonLine;

using strata::sim::Device;
using strata::sim::DmaClient;
using strata::sim::DmaDescriptor;

struct Result {
  uint64_t cycles;
  double wall;
};

// Pushes the descriptors (queue, descriptor) and measures cycles until all queues are done.
template <size_t N>
Result Run(Device& dev, DmaClient& dma, const std::pair<uint32_t, DmaDescriptor> (&work)[N]) {
  uint32_t want[2] = {dma.Reg(0, STRATA_DMA_DONE), dma.Reg(1, STRATA_DMA_DONE)};
  const uint64_t c0 = dev.edges();
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto& [q, d] : work) {
    dma.Push(q, d);
    ++want[q];
  }
  dma.WaitDone(0, want[0], 1ull << 32);
  dma.WaitDone(1, want[1], 1ull << 32);
  return {dev.edges() - c0, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
}

// Every line names the HBM controller settings it ran with: the copy figures depend on them.
void Report(const char* bench, const strata::hbm::HbmConfig& hbm, uint64_t bytes, const Result& r,
            double best_bytes_per_cycle, const char* best_what) {
  const double bpc = static_cast<double>(bytes) / r.cycles;
  Json line;
  line["bench"] = bench;
  line["preset"] = hbm.name;
  line["hbm_queue_depth"] = hbm.queue_depth;
  line["hbm_address_map"] = strata::hbm::AddressMapName(hbm.address_map);
  line["hbm_row_hit_cap"] = hbm.row_hit_cap;
  line["bytes"] = bytes;
  line["cycles"] = r.cycles;
  line["bytes_per_cycle"] = JsonRound(bpc, 2);
  line["gb_per_s"] = JsonRound(bpc, 1);
  line["best_bytes_per_cycle"] = JsonRound(best_bytes_per_cycle, 1);
  line["best"] = best_what;
  line["fraction_of_peak"] = JsonRound(bpc / best_bytes_per_cycle, 4);
  line["sim_cycles_per_second"] = std::llround(r.cycles / r.wall);
  PrintJsonLine(line);
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  long queue_depth = -1, row_hit_cap = -1;  // -1: the preset's default
  bool have_map = false;
  strata::hbm::AddressMap address_map = strata::hbm::AddressMap::kXorHash;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    char* end = nullptr;
    if (!std::strcmp(argv[i], "--quick")) {
      quick = true;
    } else if (!std::strcmp(argv[i], "--queue-depth") && has_value) {
      queue_depth = std::strtol(argv[++i], &end, 0);
      if (*end != '\0' || queue_depth < 2) return std::fprintf(stderr, "--queue-depth: a count >= 2\n"), 2;
    } else if (!std::strcmp(argv[i], "--row-hit-cap") && has_value) {
      row_hit_cap = std::strtol(argv[++i], &end, 0);
      if (*end != '\0' || row_hit_cap < 0) return std::fprintf(stderr, "--row-hit-cap: a count >= 0 (0 = no cap)\n"), 2;
    } else if (!std::strcmp(argv[i], "--address-map") && has_value) {
      if (!strata::hbm::AddressMapFromName(argv[++i], &address_map))
        return std::fprintf(stderr, "--address-map: xor-hash or linear\n"), 2;
      have_map = true;
    } else {
      std::fprintf(stderr, "usage: %s [--quick] [--queue-depth N] [--address-map xor-hash|linear] [--row-hit-cap N]\n",
                   argv[0]);
      return 2;
    }
  }
  for (const char* preset : {"HBM2", "HBM2e", "HBM3"}) {
    strata::hbm::HbmConfig cfg;
    strata::hbm::HbmConfig::FromName(preset, &cfg, 4ull << 30);
    if (queue_depth >= 0) cfg.queue_depth = static_cast<uint32_t>(queue_depth);
    if (row_hit_cap >= 0) cfg.row_hit_cap = static_cast<uint32_t>(row_hit_cap);
    if (have_map) cfg.address_map = address_map;
    Device dev(strata::sim::TraceOptions{}, cfg);
    DmaClient dma(dev);
    dev.HoldInReset();
    const double peak = cfg.PeakBytesPerCycle();
    const uint32_t copy_bytes = quick ? (1u << 20) : (8u << 20);

    // HBM -> VMEM: bounded by the 64-byte on-chip line port (one line per cycle).
    const uint32_t vmem = STRATA_VMEM_SIZE;
    Result r = Run(dev, dma, {{0, {STRATA_DMA_TIER_HBM, STRATA_DMA_TIER_VMEM, 0, 0, vmem}}});
    Report("dma_hbm_to_vmem", cfg, vmem, r, std::min(peak, double{STRATA_DMA_LINE_BYTES}), "line_port");

    // HBM -> HBM, one queue; the best possible moves peak/2 bytes per cycle each way.
    r = Run(dev, dma, {{0, {STRATA_DMA_TIER_HBM, STRATA_DMA_TIER_HBM, 0, 1ull << 30, copy_bytes}}});
    Report("dma_hbm_to_hbm", cfg, copy_bytes, r, peak / 2, "hbm_peak_over_2");

    // Both queues copying at once.
    r = Run(dev, dma,
            {{0, {STRATA_DMA_TIER_HBM, STRATA_DMA_TIER_HBM, 0, 1ull << 30, copy_bytes / 2}},
             {1, {STRATA_DMA_TIER_HBM, STRATA_DMA_TIER_HBM, 2ull << 30, 3ull << 30, copy_bytes / 2}}});
    Report("dma_hbm_to_hbm_two_queues", cfg, copy_bytes, r, peak / 2, "hbm_peak_over_2");
  }
  // Host link: bulk copies and a BAR read round trip per PCIe preset.
  for (const auto& pcie : {strata::sim::PcieConfig::Gen4x16(), strata::sim::PcieConfig::Gen5x16()}) {
    Device dev(strata::sim::TraceOptions{}, strata::hbm::HbmConfig::Hbm2(4ull << 30));
    dev.HoldInReset();
    strata::sim::HostLink link(dev, pcie);
    std::vector<uint8_t> buf(quick ? (1u << 20) : (16u << 20), 0x5a);
    for (const bool to_device : {true, false}) {
      const auto t0 = std::chrono::steady_clock::now();
      const uint64_t id =
          to_device ? link.CopyToDevice(buf.data(), 0, buf.size()) : link.CopyFromDevice(0, buf.data(), buf.size());
      const uint64_t cycles = link.Wait(id);
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double bpc = static_cast<double>(buf.size()) / cycles;
      Json line;
      line["bench"] = "hostlink_copy";
      line["link"] = pcie.name;
      line["direction"] = to_device ? "host_to_hbm" : "hbm_to_host";
      line["bytes"] = buf.size();
      line["cycles"] = cycles;
      line["gb_per_s"] = JsonRound(bpc, 2);
      line["preset_gb_per_s"] = JsonRound(pcie.bytes_per_cycle, 2);
      line["fraction_of_peak"] = JsonRound(bpc / pcie.bytes_per_cycle, 4);
      line["sim_cycles_per_second"] = std::llround(cycles / wall);
      PrintJsonLine(line);
    }
    const uint64_t c0 = dev.edges();
    link.Read32(STRATA_CTRL_BASE + STRATA_CTRL_ID);
    PrintJsonLine(Json{{"bench", "hostlink_bar_read"}, {"link", pcie.name}, {"cycles", dev.edges() - c0}});
  }
  return 0;
}
