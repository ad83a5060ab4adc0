// The C API: argument checks, struct_size handling, per-device locking, error messages; backends do the work.
#include "strata/strata.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#include "backend.h"
#include "strata/protocol.h"

struct strata_device {
  std::mutex mutex;
  std::unique_ptr<strata::driver::Backend> backend;
};

namespace {

using strata::driver::Error;

thread_local std::string t_last_error;

strata_status Fail(const char* call, strata_status status, const std::string& what) {
  t_last_error = std::string(call) + ": " + strata_status_name(status) + ": " + what;
  return status;
}

strata_status Report(const char* call, const Error& e) {
  if (e.ok()) {
    t_last_error.clear();
    return STRATA_OK;
  }
  return Fail(call, e.status, e.message);
}

// A struct passed in must be at least as large as API 1.0's; an older caller's smaller struct is
// accepted as long as it holds every field this version needs.
template <typename T>
bool SizeOk(const T* s, size_t v1_size) {
  return s != nullptr && s->struct_size >= v1_size;
}

// Copies a fully populated result into the caller's struct, no further than its struct_size.
template <typename T>
void CopyOut(const T& full, T* out) {
  const uint32_t n = out->struct_size < sizeof(T) ? out->struct_size : static_cast<uint32_t>(sizeof(T));
  std::memcpy(reinterpret_cast<char*>(out) + sizeof(uint32_t), reinterpret_cast<const char*>(&full) + sizeof(uint32_t),
              n - sizeof(uint32_t));
}

#define STRATA_CHECK_DEVICE(call, device) \
  if ((device) == nullptr) return Fail(call, STRATA_INVALID_ARGUMENT, "device is NULL")

}  // namespace

extern "C" {

strata_status strata_get_version(strata_version* out) {
  if (!SizeOk(out, sizeof(strata_version))) {
    return Fail("strata_get_version", STRATA_INVALID_ARGUMENT, "out is NULL or its struct_size is too small");
  }
  strata_version v{};
  v.struct_size = sizeof v;
  v.api_major = STRATA_API_VERSION_MAJOR;
  v.api_minor = STRATA_API_VERSION_MINOR;
  v.protocol_major = STRATA_PROTO_VERSION_MAJOR;
  v.protocol_minor = STRATA_PROTO_VERSION_MINOR;
  CopyOut(v, out);
  t_last_error.clear();
  return STRATA_OK;
}

const char* strata_last_error_message(void) { return t_last_error.c_str(); }

strata_status strata_open(const char* backend, const strata_open_options* options, strata_device** out) {
  constexpr const char* kCall = "strata_open";
  if (out == nullptr) return Fail(kCall, STRATA_INVALID_ARGUMENT, "out is NULL");
  *out = nullptr;
  if (backend == nullptr) return Fail(kCall, STRATA_INVALID_ARGUMENT, "backend name is NULL");
  if (options != nullptr && options->struct_size < offsetof(strata_open_options, trace_start_cycle)) {
    return Fail(kCall, STRATA_INVALID_ARGUMENT, "options->struct_size is too small");
  }
  if (std::strcmp(backend, "sim") != 0) {
    return Fail(kCall, STRATA_UNIMPLEMENTED, std::string("unknown backend '") + backend + "' (available: sim)");
  }
  strata::driver::SimOptions sim;
  if (options != nullptr) {
    if (options->hbm_preset != nullptr) sim.hbm_preset = options->hbm_preset;
    if (options->hbm_capacity_bytes != 0) sim.hbm_capacity_bytes = options->hbm_capacity_bytes;
    if (options->pcie_preset != nullptr) sim.pcie_preset = options->pcie_preset;
    if (options->trace_path != nullptr) sim.trace_path = options->trace_path;
    if (options->firmware_path != nullptr) sim.firmware_path = options->firmware_path;
    if (options->timeout_cycles != 0) sim.timeout_cycles = options->timeout_cycles;
    if (options->struct_size >= sizeof(strata_open_options)) {
      sim.trace_start_cycle = options->trace_start_cycle;
      if (options->trace_end_cycle != 0) sim.trace_end_cycle = options->trace_end_cycle;
      if (sim.trace_end_cycle <= sim.trace_start_cycle) {
        return Fail(kCall, STRATA_INVALID_ARGUMENT, "trace_end_cycle must be above trace_start_cycle");
      }
    }
  }
  if (sim.firmware_path.empty()) {
    const char* env = std::getenv("STRATA_RUNTIME_FIRMWARE");
    sim.firmware_path = env != nullptr && *env != '\0' ? env : STRATA_RUNTIME_FIRMWARE_DEFAULT;
  }
  auto device = std::make_unique<strata_device>();
  const Error e = strata::driver::OpenSimBackend(sim, &device->backend);
  if (!e.ok()) return Report(kCall, e);
  *out = device.release();
  return Report(kCall, {});
}

strata_status strata_close(strata_device* device) {
  delete device;
  t_last_error.clear();
  return STRATA_OK;
}

strata_status strata_get_device_info(strata_device* device, strata_device_info* out) {
  constexpr const char* kCall = "strata_get_device_info";
  STRATA_CHECK_DEVICE(kCall, device);
  if (!SizeOk(out, offsetof(strata_device_info, mxu_array_n))) {
    return Fail(kCall, STRATA_INVALID_ARGUMENT, "out is NULL or too small");
  }
  std::lock_guard<std::mutex> lock(device->mutex);
  strata_device_info info{};
  info.struct_size = sizeof info;
  const Error e = device->backend->GetInfo(&info);
  if (e.ok()) CopyOut(info, out);
  return Report(kCall, e);
}

strata_status strata_context_create(strata_device* device, const strata_context_options* options,
                                    strata_context* out) {
  constexpr const char* kCall = "strata_context_create";
  STRATA_CHECK_DEVICE(kCall, device);
  if (out == nullptr) return Fail(kCall, STRATA_INVALID_ARGUMENT, "out is NULL");
  uint64_t quota_bytes = 0;
  uint32_t quota_ppm = 0;
  if (options != nullptr) {
    if (options->struct_size < sizeof(strata_context_options)) {
      return Fail(kCall, STRATA_INVALID_ARGUMENT, "options->struct_size is too small");
    }
    const double f = options->quota_fraction;
    if (options->quota_bytes != 0 && f != 0) {
      return Fail(kCall, STRATA_INVALID_ARGUMENT, "quota_bytes and quota_fraction are exclusive");
    }
    if (f != 0 && !(f > 0 && f <= 1)) return Fail(kCall, STRATA_INVALID_ARGUMENT, "quota_fraction must lie in (0, 1]");
    quota_bytes = options->quota_bytes;
    if (f != 0) quota_ppm = static_cast<uint32_t>(std::max(1.0, std::round(f * 1e6)));
  }
  std::lock_guard<std::mutex> lock(device->mutex);
  return Report(kCall, device->backend->CreateContext(quota_bytes, quota_ppm, out));
}

strata_status strata_context_destroy(strata_device* device, strata_context context) {
  STRATA_CHECK_DEVICE("strata_context_destroy", device);
  std::lock_guard<std::mutex> lock(device->mutex);
  return Report("strata_context_destroy", device->backend->DestroyContext(context));
}

strata_status strata_alloc(strata_device* device, strata_context context, uint64_t bytes, uint64_t alignment,
                           uint32_t flags, strata_buffer* out) {
  constexpr const char* kCall = "strata_alloc";
  STRATA_CHECK_DEVICE(kCall, device);
  if (out == nullptr) return Fail(kCall, STRATA_INVALID_ARGUMENT, "out is NULL");
  if ((flags & ~STRATA_ALLOC_FLAG_NO_COMPACT) != 0) return Fail(kCall, STRATA_INVALID_ARGUMENT, "unknown flags");
  std::lock_guard<std::mutex> lock(device->mutex);
  return Report(kCall, device->backend->Alloc(context, bytes, alignment, flags, out));
}

strata_status strata_free(strata_device* device, strata_context context, strata_buffer buffer) {
  STRATA_CHECK_DEVICE("strata_free", device);
  std::lock_guard<std::mutex> lock(device->mutex);
  return Report("strata_free", device->backend->Free(context, buffer));
}

strata_status strata_write(strata_device* device, strata_context context, strata_buffer buffer, uint64_t offset,
                           const void* src, uint64_t bytes) {
  constexpr const char* kCall = "strata_write";
  STRATA_CHECK_DEVICE(kCall, device);
  if (src == nullptr && bytes != 0) return Fail(kCall, STRATA_INVALID_ARGUMENT, "src is NULL");
  if (offset > UINT64_MAX - bytes) return Fail(kCall, STRATA_OUT_OF_RANGE, "offset + bytes overflows");
  if (bytes == 0) return Report(kCall, {});
  std::lock_guard<std::mutex> lock(device->mutex);
  return Report(kCall, device->backend->Write(context, buffer, offset, src, bytes));
}

strata_status strata_read(strata_device* device, strata_context context, strata_buffer buffer, uint64_t offset,
                          void* dst, uint64_t bytes) {
  constexpr const char* kCall = "strata_read";
  STRATA_CHECK_DEVICE(kCall, device);
  if (dst == nullptr && bytes != 0) return Fail(kCall, STRATA_INVALID_ARGUMENT, "dst is NULL");
  if (offset > UINT64_MAX - bytes) return Fail(kCall, STRATA_OUT_OF_RANGE, "offset + bytes overflows");
  if (bytes == 0) return Report(kCall, {});
  std::lock_guard<std::mutex> lock(device->mutex);
  return Report(kCall, device->backend->Read(context, buffer, offset, dst, bytes));
}

strata_status strata_gemm(strata_device* device, strata_context context, const strata_gemm_args* args) {
  constexpr const char* kCall = "strata_gemm";
  STRATA_CHECK_DEVICE(kCall, device);
  if (!SizeOk(args, offsetof(strata_gemm_args, quant_mult))) {
    return Fail(kCall, STRATA_INVALID_ARGUMENT, "args is NULL or too small");
  }
  strata_gemm_args full{};
  std::memcpy(&full, args, std::min<size_t>(args->struct_size, sizeof full));
  full.struct_size = sizeof full;
  if ((full.flags & ~STRATA_GEMM_FLAGS_ALL) != 0) return Fail(kCall, STRATA_INVALID_ARGUMENT, "unknown flags");
  std::lock_guard<std::mutex> lock(device->mutex);
  return Report(kCall, device->backend->Gemm(context, full));
}

strata_status strata_compact(strata_device* device, strata_context context, const strata_compact_options* options,
                             strata_compact_result* out) {
  constexpr const char* kCall = "strata_compact";
  STRATA_CHECK_DEVICE(kCall, device);
  if (options != nullptr && options->struct_size < sizeof(strata_compact_options)) {
    return Fail(kCall, STRATA_INVALID_ARGUMENT, "options->struct_size is too small");
  }
  if (out != nullptr && out->struct_size < sizeof(strata_compact_result)) {
    return Fail(kCall, STRATA_INVALID_ARGUMENT, "out->struct_size is too small");
  }
  strata_compact_result result{};
  result.struct_size = sizeof result;
  std::lock_guard<std::mutex> lock(device->mutex);
  const Error e = device->backend->Compact(context, options ? options->max_bytes : 0, options ? options->max_moves : 0,
                                           &result);
  if (e.ok() && out != nullptr) CopyOut(result, out);
  return Report(kCall, e);
}

strata_status strata_get_memory_stats(strata_device* device, strata_context context, strata_memory_stats* out) {
  constexpr const char* kCall = "strata_get_memory_stats";
  STRATA_CHECK_DEVICE(kCall, device);
  if (!SizeOk(out, sizeof(strata_memory_stats))) return Fail(kCall, STRATA_INVALID_ARGUMENT, "out is NULL or too small");
  strata_memory_stats stats{};
  stats.struct_size = sizeof stats;
  std::lock_guard<std::mutex> lock(device->mutex);
  const Error e = device->backend->MemoryStats(context, &stats);
  if (e.ok()) CopyOut(stats, out);
  return Report(kCall, e);
}

strata_status strata_synchronize(strata_device* device) {
  STRATA_CHECK_DEVICE("strata_synchronize", device);
  std::lock_guard<std::mutex> lock(device->mutex);
  return Report("strata_synchronize", device->backend->Synchronize());
}

}  // extern "C"
