#include "devices.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace strata::devices {
namespace {

constexpr uint64_t kGiB = 1ull << 30;
// The CUDA context and the libraries a framework loads with it, held from the first CUDA call: a model (it varies by
// driver, CUDA version and lazy loading); an H100's measured 526.8 MiB (docs/gpu-policies.md, "On a real GPU").
constexpr uint64_t kContext = 512ull << 20;

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// "80 GiB", "512 MiB": every figure of the table is a whole number of one of them.
std::string Mib(uint64_t bytes) {
  char b[32];
  if (bytes % kGiB == 0) {
    std::snprintf(b, sizeof b, "%llu GiB", static_cast<unsigned long long>(bytes / kGiB));
  } else {
    std::snprintf(b, sizeof b, "%.0f MiB", static_cast<double>(bytes) / (1 << 20));
  }
  return b;
}

}  // namespace

const std::vector<Device>& All() {
  // GPU totals: the board's marketing GB taken as GiB, as cudaMemGetInfo reports roughly (the exact value varies by
  // board and driver). Compute capabilities: NVIDIA's CUDA GPUs table. TPU figures: docs/jax.md cites each source.
  static const std::vector<Device> table = {
      {"t4", "T4 16GB", Kind::kGpu, 16 * kGiB, kContext, 7, 5, true, "Turing, 16 GB GDDR6"},
      {"v100-16g", "V100 16GB", Kind::kGpu, 16 * kGiB, kContext, 7, 0, true, "Volta, 16 GB HBM2"},
      {"v100-32g", "V100 32GB", Kind::kGpu, 32 * kGiB, kContext, 7, 0, false, "Volta, 32 GB HBM2"},
      {"a10", "A10 24GB", Kind::kGpu, 24 * kGiB, kContext, 8, 6, true, "Ampere, 24 GB GDDR6"},
      {"l4", "L4 24GB", Kind::kGpu, 24 * kGiB, kContext, 8, 9, true, "Ada, 24 GB GDDR6"},
      {"rtx4090", "RTX 4090 24GB", Kind::kGpu, 24 * kGiB, kContext, 8, 9, true, "Ada, 24 GB GDDR6X"},
      {"a100-40g", "A100 40GB", Kind::kGpu, 40 * kGiB, kContext, 8, 0, true, "Ampere, 40 GB HBM2"},
      {"a100-80g", "A100 80GB", Kind::kGpu, 80 * kGiB, kContext, 8, 0, true, "Ampere, 80 GB HBM2e"},
      {"h100-80g", "H100 80GB", Kind::kGpu, 80 * kGiB, kContext, 9, 0, true, "Hopper, 80 GB HBM3 (the default GPU)"},
      {"h200", "H200 141GB", Kind::kGpu, 141 * kGiB, kContext, 9, 0, false, "Hopper, 141 GB HBM3e"},
      {"b200", "B200 180GB", Kind::kGpu, 180 * kGiB, kContext, 10, 0, false, "Blackwell, 180 GB HBM3e"},
      {"tpu-v4", "TPU v4", Kind::kTpu, 32 * kGiB, 0, 0, 0, false, "32 GiB HBM2 per chip (one JAX device per chip)"},
      {"tpu-v5e", "TPU v5e", Kind::kTpu, 16 * kGiB, 0, 0, 0, true, "16 GB HBM2 per chip"},
      {"tpu-v5p", "TPU v5p", Kind::kTpu, 95 * kGiB, 0, 0, 0, true, "95 GiB HBM2e per chip"},
      {"tpu-v6e", "TPU v6e", Kind::kTpu, 32 * kGiB, 0, 0, 0, false, "Trillium: 32 GB HBM per chip"},
      {"tpu-7x", "TPU 7x", Kind::kTpu, 96 * kGiB, 0, 0, 0, false,
       "Ironwood: 192 GiB HBM3E per chip, seen by JAX as two devices of 96 GiB"},
  };
  return table;
}

const Device* Find(const std::string& name) {
  const std::string lower = Lower(name);
  for (const Device& d : All()) {
    if (lower == d.name) return &d;
  }
  return nullptr;
}

std::string Names() {
  std::string s;
  for (const Device& d : All()) s += std::string(s.empty() ? "" : ", ") + d.name;
  return s;
}

std::string Names(Kind kind) {
  std::string s;
  for (const Device& d : All()) {
    if (d.kind == kind) s += std::string(s.empty() ? "" : ", ") + d.name;
  }
  return s;
}

const char* KindName(Kind kind) { return kind == Kind::kGpu ? "gpu" : "tpu"; }

std::string ListText() {
  std::string out = "device     model          kind  memory   context   cc    default  note\n";
  for (const Device& d : All()) {
    char line[256];
    char cc[8] = "-";
    if (d.kind == Kind::kGpu) std::snprintf(cc, sizeof cc, "%u.%u", d.cc_major, d.cc_minor);
    std::snprintf(line, sizeof line, "%-10s %-14s %-5s %-8s %-9s %-5s %-8s %s\n", d.name, d.model, KindName(d.kind),
                  Mib(d.total_bytes).c_str(), d.context_bytes ? Mib(d.context_bytes).c_str() : "-", cc,
                  d.common ? "yes" : "", d.note);
    out += line;
  }
  return out;
}

std::string ListJsonLines() {
  std::string out;
  for (const Device& d : All()) {
    char line[512];
    // Every string of the table is plain ASCII without quotes or backslashes: no escaping needed.
    std::snprintf(line, sizeof line,
                  "{\"name\":\"%s\",\"model\":\"%s\",\"kind\":\"%s\",\"total_bytes\":%llu,\"context_bytes\":%llu,"
                  "\"cc\":\"%u.%u\",\"common\":%s,\"note\":\"%s\"}\n",
                  d.name, d.model, KindName(d.kind), static_cast<unsigned long long>(d.total_bytes),
                  static_cast<unsigned long long>(d.context_bytes), d.cc_major, d.cc_minor, d.common ? "true" : "false",
                  d.note);
    out += line;
  }
  return out;
}

}  // namespace strata::devices
