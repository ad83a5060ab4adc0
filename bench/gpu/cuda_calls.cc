// What the real GPU's calls cost the framework policies: the `cuda` backend's driver (gpu::CudaGpu) timed call
// by call, the figures the emulator (gpu-emu) assumes or leaves out. One JSON line for the device (its size,
// the CUDA context's share of it, the page granularity), then one per call and size: the median and the
// fastest of --reps calls, in microseconds. Without a usable GPU it prints one line saying so and exits 0.
//
// Usage: strata-bench-cuda-calls [--reps N]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "cuda_gpu.h"
#include "json_lines.h"
#include "tool_cli.h"

namespace {

using strata::tool::Json;
using strata::tool::JsonRound;
using strata::tool::PrintJsonLine;

constexpr uint64_t kMiB = 1ull << 20;

// Times `op` `reps` times; `setup` runs untimed before each, `teardown` untimed after each that succeeded.
void Measure(const char* call, uint64_t bytes, int reps, const std::function<void()>& setup,
             const std::function<bool()>& op, const std::function<void()>& teardown) {
  std::vector<double> us;
  us.reserve(static_cast<size_t>(reps));
  for (int i = 0; i < reps; ++i) {
    setup();
    const auto t0 = std::chrono::steady_clock::now();
    const bool ok = op();
    const auto t1 = std::chrono::steady_clock::now();
    if (!ok) {
      Json line;
      line["bench"] = "cuda_call";
      line["call"] = call;
      line["bytes"] = bytes;
      line["error"] = "the call failed";
      PrintJsonLine(line);
      return;
    }
    teardown();
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  std::sort(us.begin(), us.end());
  Json line;
  line["bench"] = "cuda_call";
  line["call"] = call;
  line["bytes"] = bytes;
  line["reps"] = reps;
  line["median_us"] = JsonRound(us[us.size() / 2], 2);
  line["min_us"] = JsonRound(us.front(), 2);
  PrintJsonLine(line);
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t reps_arg = 50;
  CLI::App app{"Times the cuda backend's driver calls on GPU 0 (one JSON line each); without a GPU, one skipped line.",
               "strata-bench-cuda-calls"};
  strata::cli::Setup(app, "strata-bench-cuda-calls [--reps N]",
                     "Exit status: 0 done or no GPU, 1 the GPU could not be opened, 2 bad arguments.");
  strata::cli::AddTaken(
      app, "--reps", "N", [&](const std::string& v) { return strata::cli::TakeCount(v, 1, 100000, &reps_arg); },
      "calls timed per figure, 1..100000 (default 50)");
  if (const int rc = strata::cli::Parse(app, argc, argv); rc != strata::cli::kContinue) return rc;
  const int reps = static_cast<int>(reps_arg);

  std::string error;
  bool no_device = false;
  const auto t_open = std::chrono::steady_clock::now();
  auto gpu = strata::gpu::CudaGpu::Open(0, &error, &no_device);
  const double open_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_open).count();
  if (!gpu) {
    Json line;
    line["bench"] = "cuda_device";
    line["skipped"] = error;
    PrintJsonLine(line);
    return no_device ? 0 : 1;
  }
  const uint64_t page = gpu->page_bytes();
  Json dev;
  dev["bench"] = "cuda_device";
  dev["name"] = gpu->device_name();
  dev["cc"] = std::to_string(gpu->cc_major()) + "." + std::to_string(gpu->cc_minor());
  const uint64_t free_at_open = gpu->free_bytes();
  dev["total_bytes"] = gpu->total_bytes();
  dev["free_bytes_at_open"] = free_at_open;
  dev["context_and_others_bytes"] = gpu->total_bytes() - free_at_open;  // the CUDA context, and any other user
  dev["page_bytes"] = page;
  dev["vmm"] = gpu->has_vmm();
  dev["open_ms"] = JsonRound(open_ms, 1);
  PrintJsonLine(dev);

  auto nothing = [] {};
  for (const uint64_t bytes : {page, 64 * kMiB, 1024 * kMiB}) {
    uint64_t va = 0;
    Measure(
        "cudaMalloc", bytes, reps, nothing, [&] { return (va = gpu->Malloc(bytes)) != 0; }, [&] { gpu->Free(va); });
    Measure(
        "cudaFree", bytes, reps, [&] { va = gpu->Malloc(bytes); }, [&] { return va != 0 && gpu->Free(va); }, nothing);
  }
  if (gpu->has_vmm()) {
    const uint64_t span = 64 * page;
    const uint64_t base = gpu->ReserveVa(span);
    if (base != 0) {
      for (const uint64_t pages : {uint64_t{1}, uint64_t{16}}) {
        const uint64_t bytes = pages * page;
        Measure(
            "map", bytes, reps, nothing, [&] { return gpu->Map(base, bytes); }, [&] { gpu->Unmap(base, bytes); });
        Measure(
            "unmap", bytes, reps, [&] { gpu->Map(base, bytes); }, [&] { return gpu->Unmap(base, bytes); }, nothing);
      }
    }
  }
  for (const bool device : {true, false}) {
    Measure(
        device ? "cudaDeviceSynchronize" : "cudaStreamSynchronize", 0, reps, nothing,
        [&] {
          if (device) {
            gpu->DeviceSynchronize();
          } else {
            gpu->StreamSynchronize();
          }
          return true;
        },
        nothing);
  }
  const uint64_t buf_bytes = 64 * kMiB;
  const uint64_t buf = gpu->Malloc(buf_bytes);
  if (buf != 0) {
    std::vector<uint8_t> host(buf_bytes, 0x5a);
    Measure(
        "cudaMemcpy_h2d", buf_bytes, std::min(reps, 20), nothing,
        [&] { return gpu->Write(buf, host.data(), buf_bytes); }, nothing);
    Measure(
        "cudaMemcpy_d2h", buf_bytes, std::min(reps, 20), nothing,
        [&] { return gpu->Read(buf, host.data(), buf_bytes); }, nothing);
    gpu->Free(buf);
  }
  return 0;
}
