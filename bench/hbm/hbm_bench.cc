// HBM model benchmark: sequential read/write/copy bandwidth against the preset's peak, strided reads
// (power-of-two strides, the address map's test), a row-conflict stream (the row-hit cap's test),
// isolated random 64-byte read latency (row hit, closed bank, row conflict) against the timing, and
// model speed ("hbm_model_speed": simulated cycles per wall second of a saturating copy and of
// random reads and writes, the load a compaction puts on it). Prints one JSON object per line on
// stdout, each naming the queue depth, address map and row-hit cap it ran with; progress on stderr.
// Usage: strata-bench-hbm [--cycles N] [--queue-depth N] [--address-map xor-hash|linear]
//                         [--row-hit-cap N] [--preset HBM2|HBM2e|HBM3]...
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "hbm/hbm_model.h"
#include "json_lines.h"

namespace {

using strata::hbm::AddressMap;
using strata::hbm::HbmConfig;
using strata::hbm::HbmLocation;
using strata::hbm::HbmModel;
using strata::hbm::HbmRequest;
using strata::hbm::HbmResponse;
using strata::hbm::RefreshMode;

double Seconds() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

using strata::tool::Json;
using strata::tool::JsonRound;
void Print(const Json& line) { strata::tool::PrintJsonLine(line); }

// A line that starts with the bench name and the settings every line names, so that a bandwidth is never quoted
// without its queue depth.
Json ConfigJson(const char* bench, const HbmConfig& cfg) {
  Json j;
  j["bench"] = bench;
  j["preset"] = cfg.name;
  j["refresh"] = strata::hbm::RefreshModeName(cfg.refresh);
  j["queue_depth"] = cfg.queue_depth;
  j["address_map"] = strata::hbm::AddressMapName(cfg.address_map);
  j["row_hit_cap"] = cfg.row_hit_cap;
  j["row_hit_count"] = strata::hbm::RowHitCountName(cfg.row_hit_count);
  return j;
}

// An in-order producer (like one DMA queue) submits 64-byte requests, as many per cycle as the
// queues take; next_request(n, &req) sets the address and direction of the n-th request.
void Stream(const HbmConfig& cfg, uint64_t cycles, const char* name, const Json& extra_json,
            const std::function<void(uint64_t, HbmRequest*)>& next_request) {
  HbmModel model(cfg);
  const uint64_t warmup = 20000;
  uint64_t next = 0, bytes = 0;
  HbmRequest req;
  req.len = 64;
  for (uint32_t i = 0; i < 64; ++i) req.data[i] = static_cast<uint8_t>(i);
  HbmResponse resp;
  double t0 = 0;
  for (uint64_t t = 0; t < warmup + cycles; ++t) {
    if (t == warmup) {
      model.ResetStats();
      bytes = 0;
      t0 = Seconds();
    }
    for (int k = 0; k < 64; ++k) {
      next_request(next, &req);
      req.tag = next;
      if (!model.Submit(req)) break;
      ++next;
    }
    model.Tick();
    while (model.PopResponse(&resp)) bytes += resp.len;
  }
  const double secs = Seconds() - t0;
  const double bpc = static_cast<double>(bytes) / cycles;
  const auto total = model.Stats().Total();
  Json line = ConfigJson(name, cfg);
  line.update(extra_json);
  line["cycles"] = cycles;
  line["bytes"] = bytes;
  line["bytes_per_cycle"] = JsonRound(bpc, 2);
  line["gb_per_s"] = JsonRound(bpc * cfg.core_clock_ghz, 1);
  line["peak_gb_per_s"] = JsonRound(cfg.PeakBytesPerSecond() / 1e9, 1);
  line["fraction_of_peak"] = JsonRound(bpc / cfg.PeakBytesPerCycle(), 4);
  line["row_hit_rate"] = JsonRound(total.RowHitRate(), 4);
  line["columns_per_act"] =
      JsonRound(total.activates ? static_cast<double>(total.reads + total.writes) / total.activates : 0, 2);
  line["latency_avg"] = JsonRound(total.AverageLatency(), 1);
  line["latency_max"] = total.latency_max;
  line["sim_cycles_per_second"] = std::llround(cycles / secs);
  Print(line);
}

// Sequential 64-byte reads, writes, or a copy that alternates a read of one half of the device with
// a write of the other.
void Sequential(const HbmConfig& cfg, uint64_t cycles) {
  const uint64_t half = cfg.capacity_bytes / 2;
  Stream(cfg, cycles, "hbm_seq_read", Json::object(), [&](uint64_t n, HbmRequest* r) {
    r->addr = (n * 64) % half;
    r->is_write = false;
  });
  Stream(cfg, cycles, "hbm_seq_write", Json::object(), [&](uint64_t n, HbmRequest* r) {
    r->addr = (n * 64) % half;
    r->is_write = true;
  });
  Stream(cfg, cycles, "hbm_seq_copy", Json::object(), [&](uint64_t n, HbmRequest* r) {
    r->is_write = n & 1;
    r->addr = (n / 2 * 64) % half + (r->is_write ? half : 0);
  });
}

// 64-byte reads `stride` bytes apart; when the walk wraps at the end of the device it moves on by
// 64 bytes, so it never rereads.
void Strided(const HbmConfig& cfg, uint64_t cycles, uint64_t stride) {
  const uint64_t per_pass = cfg.capacity_bytes / stride;
  Stream(cfg, cycles, "hbm_stride_read", Json{{"stride_bytes", stride}}, [&](uint64_t n, HbmRequest* r) {
    r->addr = ((n % per_pass) * stride + (n / per_pass) * 64) % cfg.capacity_bytes;
    r->is_write = false;
  });
}

// Two sequential read streams into two rows of every bank at once (the second stream 64 rows
// behind in the same banks): FR-FCFS without a cap serves a whole queue of hits per activation.
// With row_hit_cap the rows take turns after the cap.
void RowConflict(const HbmConfig& cfg, uint64_t cycles) {
  HbmModel probe(cfg);
  const strata::hbm::HbmAddressMap& map = probe.address_map();
  Stream(cfg, cycles, "hbm_row_conflict_read", Json::object(), [&](uint64_t n, HbmRequest* r) {
    // The same (pseudo-channel, bank, column) for both streams, rows 64 apart.
    HbmLocation l = map.Decode((n / 2 * 64) % (cfg.capacity_bytes / 2));
    if (n & 1) l.row = (l.row + 64) % map.rows_per_bank();
    r->addr = map.Encode(l) & ~63ull;
    r->is_write = false;
  });
}

// Issue [T]'s streams, in one bank of each pseudo-channel of channel 0 (a 64-byte request is one
// column in each): reads rotating over K rows (request n to row K*floor(n/32K) + n mod K, column
// floor(n/K) mod 32, every address distinct), K = 2 being the alternating two-row stream on which
// the row-hit cap's count decides the columns per ACT.
void OneBank(const HbmConfig& cfg, uint64_t cycles) {
  HbmModel probe(cfg);
  const strata::hbm::HbmAddressMap& map = probe.address_map();
  for (const uint64_t k : {2u, 8u, 16u}) {
    Stream(cfg, cycles, "hbm_one_bank_rows", Json{{"rows", k}}, [&](uint64_t n, HbmRequest* r) {
      HbmLocation l{};
      l.row = (k * (n / (32 * k)) + n % k) % map.rows_per_bank();
      l.column = static_cast<uint32_t>((n / k) % 32);
      r->addr = map.Encode(l) & ~63ull;
      r->is_write = false;
    });
  }
}

struct Dist {
  std::vector<uint64_t> v;
  uint64_t Pct(double p) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
  }
};

// Isolated 64-byte reads at random places (one at a time, so no queueing): `kind` 0 = row hit (same
// row as the previous access to that bank), 1 = closed bank, 2 = another row open in the bank.
void Latency(const HbmConfig& cfg, int kind, uint32_t samples) {
  HbmModel model(cfg);
  std::mt19937_64 rng(42);
  const auto& map = model.address_map();
  Dist d;
  HbmResponse resp;
  auto run = [&](uint64_t addr) {
    HbmRequest r;
    r.addr = addr;
    r.len = 64;
    model.Submit(r);
    while (!model.PopResponse(&resp)) model.Tick();
    for (int i = 0; i < 60; ++i) model.Tick();  // past tRAS/tRC so samples do not interact
    return resp.Latency();
  };
  for (uint32_t s = 0; s < samples; ++s) {
    uint64_t addr = (rng() % (cfg.capacity_bytes / 64)) * 64;
    HbmLocation l = map.Decode(addr);
    if (kind == 0) {
      run(addr);  // opens the row
      l.column = (l.column + 2 + rng() % (cfg.row_bytes / 32 - 2)) % (cfg.row_bytes / 32) & ~1u;
    } else if (kind == 2) {
      HbmLocation o = l;
      o.row = (l.row + 1) % map.rows_per_bank();
      run(map.Encode(o) & ~63ull);
    } else {
      // Close the bank the way the controller does: a per-bank refresh of it, or a conflict we then
      // leave to age out is not observable; instead use a fresh model per sample (cheap: banks closed).
      model.~HbmModel();
      new (&model) HbmModel(cfg);
    }
    d.v.push_back(run(map.Encode(l) & ~63ull));
  }
  const char* names[] = {"hbm_rand_read_latency_row_hit", "hbm_rand_read_latency_row_closed",
                         "hbm_rand_read_latency_row_conflict"};
  uint64_t implied = kind == 0   ? model.RowHitLatency()
                     : kind == 1 ? model.RowMissLatency()
                                 : model.RowConflictLatency();
  uint64_t p50 = d.Pct(0.5), p99 = d.Pct(0.99), mx = d.v.back();
  Json line = ConfigJson(names[kind], cfg);
  line["samples"] = samples;
  line["p50"] = p50;
  line["p99"] = p99;
  line["max"] = mx;
  line["implied_cycles"] = implied;
  line["p50_minus_implied"] = static_cast<int64_t>(p50) - static_cast<int64_t>(implied);
  Print(line);
}

// Ticks of an idle device (refresh still runs): the cost the model adds to the platform loop.
void IdleSpeed(const HbmConfig& cfg, uint64_t cycles) {
  HbmModel model(cfg);
  double t0 = Seconds();
  for (uint64_t t = 0; t < cycles; ++t) model.Tick();
  double secs = Seconds() - t0;
  Json line = ConfigJson("hbm_idle_tick", cfg);
  line["cycles"] = cycles;
  line["sim_cycles_per_second"] = std::llround(cycles / secs);
  line["refreshes"] = model.Stats().Total().refreshes;
  Print(line);
}

// The model's own speed under load: `cycles` cycles of a workload that keeps every queue full, as
// the DMA bridge does during a compaction (it submits until the model refuses). Wall time only;
// the simulated figures are the Stream lines'.
void ModelSpeed(const HbmConfig& cfg, uint64_t cycles, const char* workload) {
  HbmModel model(cfg);
  const uint64_t half = cfg.capacity_bytes / 2;
  const bool copy = std::strcmp(workload, "copy") == 0;
  std::mt19937_64 rng(7);
  HbmRequest req;
  req.len = 64;
  HbmResponse resp;
  uint64_t next = 0, bytes = 0;
  bool have = false;
  const double t0 = Seconds();
  for (uint64_t t = 0; t < cycles; ++t) {
    for (int k = 0; k < 64; ++k) {
      if (!have) {
        if (copy) {
          req.is_write = next & 1;
          req.addr = (next / 2 * 64) % half + (req.is_write ? half : 0);
        } else {
          req.is_write = rng() & 1;
          req.addr = rng() % (cfg.capacity_bytes / 64) * 64;
        }
        req.tag = next++;
        have = true;
      }
      if (!model.Submit(req)) break;
      have = false;
    }
    model.Tick();
    while (model.PopResponse(&resp)) bytes += resp.len;
  }
  const double secs = Seconds() - t0;
  Json line = ConfigJson("hbm_model_speed", cfg);
  line["workload"] = workload;
  line["cycles"] = cycles;
  line["bytes_per_cycle"] = JsonRound(static_cast<double>(bytes) / cycles, 2);
  line["wall_seconds"] = JsonRound(secs, 3);
  line["sim_cycles_per_second"] = std::llround(cycles / secs);
  line["ns_per_cycle"] = JsonRound(secs * 1e9 / cycles, 1);
  Print(line);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t cycles = 200000;
  uint32_t queue_depth = 0;  // 0: the preset's default
  long row_hit_cap = -1;     // -1: the default
  const char* row_hit_count = nullptr;
  bool have_map = false;
  AddressMap address_map = AddressMap::kXorHash;
  std::vector<std::string> presets;
  auto usage = [&](const char* why) {
    if (why) std::fprintf(stderr, "%s: %s\n", argv[0], why);
    std::fprintf(stderr,
                 "usage: %s [--cycles N] [--queue-depth N] [--address-map xor-hash|linear] [--row-hit-cap N]\n"
                 "          [--row-hit-count since-act|bypasses] [--preset HBM2|HBM2e|HBM3]...\n",
                 argv[0]);
    return 2;
  };
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--cycles") && i + 1 < argc) {
      cycles = std::strtoull(argv[++i], nullptr, 0);
    } else if (!std::strcmp(argv[i], "--queue-depth") && i + 1 < argc) {
      queue_depth = static_cast<uint32_t>(std::strtoul(argv[++i], nullptr, 0));
    } else if (!std::strcmp(argv[i], "--address-map") && i + 1 < argc) {
      if (!strata::hbm::AddressMapFromName(argv[++i], &address_map)) return usage("--address-map: xor-hash or linear");
      have_map = true;
    } else if (!std::strcmp(argv[i], "--row-hit-cap") && i + 1 < argc) {
      char* end = nullptr;
      row_hit_cap = std::strtol(argv[++i], &end, 0);
      if (*end != '\0' || row_hit_cap < 0) return usage("--row-hit-cap: a count >= 0 (0 = no cap)");
    } else if (!std::strcmp(argv[i], "--row-hit-count") && i + 1 < argc) {
      row_hit_count = argv[++i];
      strata::hbm::RowHitCount probe;
      if (!strata::hbm::RowHitCountFromName(row_hit_count, &probe)) {
        return usage(("--row-hit-count: one of " + strata::hbm::RowHitCountChoices()).c_str());
      }
    } else if (!std::strcmp(argv[i], "--preset") && i + 1 < argc) {
      presets.push_back(argv[++i]);
    } else {
      return usage(nullptr);
    }
  }
  if (presets.empty()) presets = {"HBM2", "HBM2e", "HBM3"};
  for (const std::string& p : presets) {
    HbmConfig cfg;
    if (!HbmConfig::FromName(p, &cfg)) {
      std::fprintf(stderr, "unknown preset %s\n", p.c_str());
      return 2;
    }
    if (queue_depth) cfg.queue_depth = queue_depth;
    if (have_map) cfg.address_map = address_map;
    if (row_hit_cap >= 0) cfg.row_hit_cap = static_cast<uint32_t>(row_hit_cap);
    if (row_hit_count) strata::hbm::RowHitCountFromName(row_hit_count, &cfg.row_hit_count);
    if (const std::string why = cfg.Validate(); !why.empty()) return usage(why.c_str());
    std::fprintf(stderr, "hbm bench: %s\n", cfg.name.c_str());
    Sequential(cfg, cycles);
    HbmConfig all = cfg;
    all.refresh = RefreshMode::kAllBank;
    Stream(all, cycles, "hbm_seq_read", Json::object(), [&](uint64_t n, HbmRequest* r) {
      r->addr = (n * 64) % (cfg.capacity_bytes / 2);
      r->is_write = false;
    });
    for (uint64_t stride : {512u, 1024u, 2048u, 4096u}) Strided(cfg, cycles, stride);
    RowConflict(cfg, cycles);
    OneBank(cfg, cycles);
    for (int kind = 0; kind < 3; ++kind) Latency(cfg, kind, 2000);
    IdleSpeed(cfg, 10 * cycles);
    for (const char* workload : {"copy", "random"}) ModelSpeed(cfg, 5 * cycles, workload);
  }
  return 0;
}
