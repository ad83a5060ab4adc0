// Internal interface between the C API (strata.cc) and a device backend. Not installed.
#ifndef STRATA_HOST_DRIVER_BACKEND_H_
#define STRATA_HOST_DRIVER_BACKEND_H_

#include <cstdint>
#include <memory>
#include <string>

#include "strata/strata.h"

namespace strata::driver {

// What a failed call reports: the status and a message naming what was wrong.
struct Error {
  strata_status status = STRATA_OK;
  std::string message;
  bool ok() const { return status == STRATA_OK; }
};

// One device. Calls arrive serialised (the C API holds the device's lock).
class Backend {
 public:
  virtual ~Backend() = default;
  virtual const char* name() const = 0;
  virtual Error GetInfo(strata_device_info* out) = 0;  // every field but struct_size
  virtual Error CreateContext(uint64_t quota_bytes, uint32_t quota_ppm, strata_context* out) = 0;
  virtual Error DestroyContext(strata_context context) = 0;
  virtual Error Alloc(strata_context context, uint64_t bytes, uint64_t alignment, uint32_t flags,
                      strata_buffer* out) = 0;
  virtual Error Free(strata_context context, strata_buffer buffer) = 0;
  virtual Error Write(strata_context context, strata_buffer buffer, uint64_t offset, const void* src,
                      uint64_t bytes) = 0;
  virtual Error Read(strata_context context, strata_buffer buffer, uint64_t offset, void* dst, uint64_t bytes) = 0;
  virtual Error Gemm(strata_context context, const strata_gemm_args& args) = 0;
  virtual Error Compact(strata_context context, uint64_t max_bytes, uint32_t max_moves,
                        strata_compact_result* out) = 0;
  virtual Error MemoryStats(strata_context context, strata_memory_stats* out) = 0;
  // Waits for everything outstanding, then a NOOP round trip (the device has seen all that came before).
  virtual Error Synchronize() = 0;
};

struct SimOptions {
  std::string hbm_preset = "HBM2";
  uint64_t hbm_capacity_bytes = 1ull << 30;
  std::string pcie_preset = "gen4x16";
  std::string trace_path;
  uint64_t trace_start_cycle = 0;
  uint64_t trace_end_cycle = UINT64_MAX;
  std::string firmware_path;
  uint64_t timeout_cycles = 2'000'000'000ull;
};

// The Strata model in-process (sim_backend.cc).
Error OpenSimBackend(const SimOptions& options, std::unique_ptr<Backend>* out);

}  // namespace strata::driver

#endif  // STRATA_HOST_DRIVER_BACKEND_H_
