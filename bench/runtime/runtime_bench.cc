// Runtime benchmarks through the host API on the sim backend (JSON lines on stdout):
//   runtime_command  device cycles per command (alloc, free, 4 KiB write, no-op round trip): `cycles` as the
//                    host sees them (submit to completion seen, PCIe latencies included) and
//                    `firmware_cycles` (decode to completion on the control core)
//   runtime_compaction  HBM->HBM compaction throughput in bytes per cycle against the HBM copy peak
//   runtime_host_ops    host API operations per second (wall clock) for alloc+free and 256-byte writes
//   runtime_gemm     strata_gemm through the API: device cycles as the host sees them and on the control core,
//                    matrix-unit utilization MACs / (N^2 x firmware cycles)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "hbm/hbm_config.h"
#include "json_lines.h"
#include "strata/strata.h"

namespace {

using strata::tool::Json;
using strata::tool::JsonRound;
using strata::tool::PrintJsonLine;

#define CHECK_OK(call)                                                             \
  do {                                                                             \
    const strata_status s_ = (call);                                               \
    if (s_ != STRATA_OK) {                                                         \
      std::fprintf(stderr, "%s failed: %s\n", #call, strata_last_error_message()); \
      std::exit(1);                                                                \
    }                                                                              \
  } while (0)

strata_device_info Info(strata_device* d) {
  strata_device_info i{};
  i.struct_size = sizeof i;
  CHECK_OK(strata_get_device_info(d, &i));
  return i;
}

struct Samples {
  std::vector<uint64_t> host, fw;
  void Add(uint64_t h, uint64_t f) {
    host.push_back(h);
    fw.push_back(f);
  }
};

uint64_t Pct(std::vector<uint64_t> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5))];
}

// "runtime_host_ops": `n` operations in `seconds` of wall time and `cycles` device cycles.
void HostOpsLine(const char* op, int n, double seconds, uint64_t cycles) {
  Json line;
  line["bench"] = "runtime_host_ops";
  line["op"] = op;
  line["n"] = n;
  line["ops_per_second"] = std::llround(n / seconds);
  line["device_cycles_per_op"] = std::llround(static_cast<double>(cycles) / n);
  line["sim_cycles_per_second"] = std::llround(cycles / seconds);
  PrintJsonLine(line);
}

void Report(const char* command, const Samples& s, const char* pcie) {
  Json line;
  line["bench"] = "runtime_command";
  line["command"] = command;
  line["pcie"] = pcie;
  line["n"] = s.host.size();
  line["cycles"] = Pct(s.host, 0.5);
  line["p50"] = Pct(s.host, 0.5);
  line["p99"] = Pct(s.host, 0.99);
  line["max"] = Pct(s.host, 1.0);
  line["firmware_cycles"] = Pct(s.fw, 0.5);
  line["firmware_p99"] = Pct(s.fw, 0.99);
  PrintJsonLine(line);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) {  // no options: --help, or anything else, is answered with the usage
    const bool help = std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0;
    std::fprintf(help ? stdout : stderr,
                 "usage: strata-bench-runtime\n"
                 "Device cycles per runtime command, a compaction, host operations and a 256^3 GEMM on the sim\n"
                 "backend: one JSON object per result line on stdout.\n");
    return help ? 0 : 2;
  }
  constexpr uint64_t kCapacity = 256ull << 20;
  strata_open_options o{};
  o.struct_size = sizeof o;
  o.hbm_capacity_bytes = kCapacity;
  o.pcie_preset = "gen4x16";
  strata_device* dev = nullptr;
  CHECK_OK(strata_open("sim", &o, &dev));
  strata_context ctx = 0;
  CHECK_OK(strata_context_create(dev, nullptr, &ctx));

  // ---- device cycles per command ----
  constexpr int kReps = 200;
  Samples alloc, free_, write, noop;
  std::vector<uint8_t> page(4096, 0x5a);
  std::vector<strata_buffer> bufs(kReps);
  for (int i = 0; i < kReps; ++i) {
    uint64_t t0 = Info(dev).device_cycles;
    CHECK_OK(strata_alloc(dev, ctx, 4096, 0, 0, &bufs[i]));
    strata_device_info after = Info(dev);
    alloc.Add(after.device_cycles - t0, after.last_command_cycles);
    t0 = after.device_cycles;
    CHECK_OK(strata_write(dev, ctx, bufs[i], 0, page.data(), page.size()));
    after = Info(dev);
    write.Add(after.device_cycles - t0, after.last_command_cycles);
    t0 = after.device_cycles;
    CHECK_OK(strata_synchronize(dev));
    after = Info(dev);
    noop.Add(after.device_cycles - t0, after.last_command_cycles);
  }
  for (int i = 0; i < kReps; ++i) {
    const uint64_t t0 = Info(dev).device_cycles;
    CHECK_OK(strata_free(dev, ctx, bufs[i]));
    const strata_device_info after = Info(dev);
    free_.Add(after.device_cycles - t0, after.last_command_cycles);
  }
  Report("alloc", alloc, o.pcie_preset);
  Report("free", free_, o.pcie_preset);
  Report("write_4KiB", write, o.pcie_preset);
  Report("noop_round_trip", noop, o.pcie_preset);

  // ---- compaction throughput: 64 MiB of 64..512 KiB buffers, every other one freed ----
  std::mt19937_64 rng(7);
  std::vector<strata_buffer> live;
  uint64_t total = 0;
  while (total < (64ull << 20)) {
    const uint64_t size = (64 + rng() % 449) << 10;
    strata_buffer b = 0;
    CHECK_OK(strata_alloc(dev, ctx, size, 0, 0, &b));
    live.push_back(b);
    total += size;
  }
  for (size_t i = 0; i < live.size(); i += 2) CHECK_OK(strata_free(dev, ctx, live[i]));
  strata_memory_stats before{};
  before.struct_size = sizeof before;
  CHECK_OK(strata_get_memory_stats(dev, 0, &before));
  strata_compact_result r{};
  r.struct_size = sizeof r;
  const auto w0 = std::chrono::steady_clock::now();
  CHECK_OK(strata_compact(dev, ctx, nullptr, &r));
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  strata_memory_stats after{};
  after.struct_size = sizeof after;
  CHECK_OK(strata_get_memory_stats(dev, 0, &after));
  const uint64_t copy_cycles = after.compaction_cycles - before.compaction_cycles;
  strata::hbm::HbmConfig hbm = strata::hbm::HbmConfig::Hbm2(kCapacity);
  const double peak = hbm.PeakBytesPerCycle() / 2;  // a copy reads and writes: half the pins each way
  const double bpc = copy_cycles ? static_cast<double>(r.bytes_moved) / copy_cycles : 0;
  {
    Json line;
    line["bench"] = "runtime_compaction";
    line["hbm"] = hbm.name;
    line["moves"] = r.moves;
    line["bytes_moved"] = r.bytes_moved;
    line["cycles"] = copy_cycles;
    line["command_cycles"] = r.device_cycles;
    line["bytes_per_cycle"] = JsonRound(bpc, 2);
    line["peak_bytes_per_cycle"] = JsonRound(peak, 2);
    line["fraction_of_peak"] = JsonRound(bpc / peak, 4);
    line["fragmentation_before"] = JsonRound(before.fragmentation, 4);
    line["fragmentation_after"] = JsonRound(after.fragmentation, 4);
    line["sim_cycles_per_second"] = std::llround(r.device_cycles / wall);
    PrintJsonLine(line);
  }
  for (size_t i = 1; i < live.size(); i += 2) CHECK_OK(strata_free(dev, ctx, live[i]));

  // ---- host API operations per second ----
  {
    constexpr int kOps = 2000;
    const uint64_t c0 = Info(dev).device_cycles;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kOps; ++i) {
      strata_buffer b = 0;
      CHECK_OK(strata_alloc(dev, ctx, 1024, 0, 0, &b));
      CHECK_OK(strata_free(dev, ctx, b));
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const uint64_t cycles = Info(dev).device_cycles - c0;
    HostOpsLine("alloc_free_pair", kOps, s, cycles);
  }
  {
    constexpr int kOps = 2000;
    strata_buffer b = 0;
    CHECK_OK(strata_alloc(dev, ctx, 1 << 20, 0, 0, &b));
    std::vector<uint8_t> small(256, 1);
    const uint64_t c0 = Info(dev).device_cycles;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kOps; ++i)
      CHECK_OK(strata_write(dev, ctx, b, (i * 256) % (1 << 20), small.data(), small.size()));
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const uint64_t cycles = Info(dev).device_cycles - c0;
    HostOpsLine("write_256B", kOps, s, cycles);
  }
  // ---- GEMM through the API ----
  for (uint32_t dim : {256u, 512u}) {
    const uint64_t ab = uint64_t{dim} * dim;
    strata_buffer a = 0, b = 0, c = 0;
    CHECK_OK(strata_alloc(dev, ctx, ab, 0, 0, &a));
    CHECK_OK(strata_alloc(dev, ctx, ab, 0, 0, &b));
    CHECK_OK(strata_alloc(dev, ctx, ab * 4, 0, 0, &c));
    std::vector<uint8_t> data(ab);
    for (auto& x : data) x = static_cast<uint8_t>(rng());
    CHECK_OK(strata_write(dev, ctx, a, 0, data.data(), ab));
    CHECK_OK(strata_write(dev, ctx, b, 0, data.data(), ab));
    strata_gemm_args g{};
    g.struct_size = sizeof g;
    g.a = a;
    g.b = b;
    g.c = c;
    g.m = g.n = g.k = dim;
    const uint64_t c0 = Info(dev).device_cycles;
    const auto t0 = std::chrono::steady_clock::now();
    CHECK_OK(strata_gemm(dev, ctx, &g));
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const strata_device_info after = Info(dev);
    const uint64_t cycles = after.device_cycles - c0;
    const double macs = static_cast<double>(ab) * dim, n2 = double(after.mxu_array_n) * after.mxu_array_n;
    Json line;
    line["bench"] = "runtime_gemm";
    line["m"] = dim;
    line["n"] = dim;
    line["k"] = dim;
    line["array"] = after.mxu_array_n;
    line["cycles"] = cycles;
    line["firmware_cycles"] = after.last_command_cycles;
    line["utilization"] = JsonRound(macs / (n2 * after.last_command_cycles), 4);
    line["utilization_host_view"] = JsonRound(macs / (n2 * cycles), 4);
    line["sim_cycles_per_second"] = std::llround(cycles / s);
    PrintJsonLine(line);
    for (strata_buffer h : {a, b, c}) CHECK_OK(strata_free(dev, ctx, h));
  }
  strata_close(dev);
  return 0;
}
