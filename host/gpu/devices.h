// The one table of devices every tool reads: GPUs (total memory as cudaMemGetInfo reports it, the CUDA context a
// process holds, the compute capability TensorFlow's reserve rule reads) and TPUs (HBM per device as JAX sees it).
// The GPU presets of the gpu-emu backend (emu_gpu.h), the TPU presets (host/workload/tpu.h), --capacity NAME,
// strata-fit's --devices and every tool's --list-devices come from here. docs/fit.md lists them with sources.
#ifndef STRATA_HOST_GPU_DEVICES_H_
#define STRATA_HOST_GPU_DEVICES_H_

#include <cstdint>
#include <string>
#include <vector>

namespace strata::devices {

enum class Kind : uint8_t { kGpu, kTpu };

struct Device {
  const char* name;   // what tools take: "h100-80g", "a100-40g", "tpu-v5e", ... (matched case-insensitively)
  const char* model;  // as a user names it: "H100 80GB", "TPU v5e"
  Kind kind;
  uint64_t total_bytes;    // GPU: cudaMemGetInfo's total; TPU: HBM per JAX device
  uint64_t context_bytes;  // GPU: the CUDA context and libraries a process holds (free at start = total - this); TPU: 0
  uint32_t cc_major, cc_minor;  // GPU compute capability (TensorFlow's reserve rule); TPU: 0
  bool common;                  // in strata-fit's default set
  const char* note;             // what the figure is
};

// Every device, GPUs first (by memory), then TPUs.
const std::vector<Device>& All();
// By name, case-insensitively; nullptr when unknown.
const Device* Find(const std::string& name);
// The names, comma-separated (every device, or one kind), for help and error messages.
std::string Names();
std::string Names(Kind kind);
const char* KindName(Kind kind);  // "gpu", "tpu"
// The table as text: one line per device (name, model, memory, context, compute capability, note), with a header.
std::string ListText();
// The table as JSON: one object per line (name, model, kind, total_bytes, context_bytes, cc, common, note).
std::string ListJsonLines();

}  // namespace strata::devices

#endif  // STRATA_HOST_GPU_DEVICES_H_
