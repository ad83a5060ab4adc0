// TensorFlow's reserve for the CUDA context and libraries, shared by the tf (BFC) and tf-async policies.
#ifndef STRATA_HOST_GPU_TF_MEMORY_H_
#define STRATA_HOST_GPU_TF_MEMORY_H_

#include <cstdint>
#include <string>

namespace strata::gpu {

// The TensorFlow release whose reserve rule the tf policies follow (option tf_version, default kDefaultTfVersion,
// docs/gpu-policies.md "TensorFlow releases"). Up to 2.4 the reserve was a share of free memory; tensorflow#44810
// (November 2020, first released in 2.5) replaced it with a fixed reserve by compute capability and added
// TF_DEVICE_MIN_SYS_MEMORY_IN_MB.
constexpr const char* kDefaultTfVersion = "2.21";
struct TfRelease {
  std::string text = kDefaultTfVersion;
  bool fixed_reserve = true;  // 2.5 and later
};
// "MAJOR.MINOR" (2.0 to 2.99) into *out; false when it is not one.
inline bool ParseTfVersion(const std::string& s, TfRelease* out) {
  const size_t dot = s.find('.');
  if (dot == std::string::npos || s.compare(0, dot, "2") != 0 || dot + 1 >= s.size() || s.size() - dot - 1 > 2) {
    return false;
  }
  unsigned minor = 0;
  for (size_t i = dot + 1; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    minor = minor * 10 + static_cast<unsigned>(s[i] - '0');
  }
  if (s.size() - dot - 1 == 2 && s[dot + 1] == '0') return false;  // 2.05
  out->text = s;
  out->fixed_reserve = minor >= 5;
  return true;
}

// MinSystemMemory(available, cc_major) of tensorflow/core/common_runtime/gpu/gpu_device.cc, optimised build
// (non-optimised builds double it). 2.5 on: 225 MiB below 2 GiB free, else by compute capability (the newest
// source read, 2.21, adds 1800 MiB for 9.x and later; the release that added that step is not pinned here). Up to
// 2.4: 225 MiB below 2 GiB, else the larger of 300 MiB and 6 % of free memory.
inline uint64_t TfMinSystemMemory(uint64_t available, uint32_t cc_major, const TfRelease& release = TfRelease{}) {
  constexpr uint64_t kMiB = 1ull << 20;
  if (available < (2ull << 30)) return 225 * kMiB;
  if (!release.fixed_reserve) {
    // int64 x float: the product is computed in float, as TensorFlow's `available_memory * 0.06f` is.
    const auto share = static_cast<uint64_t>(static_cast<float>(available) * 0.06f);
    return share > 300 * kMiB ? share : 300 * kMiB;
  }
  if (cc_major <= 6) return 500 * kMiB;
  if (cc_major <= 7) return 1050 * kMiB;
  if (cc_major <= 8) return 1536 * kMiB;
  return 1800 * kMiB;
}

}  // namespace strata::gpu

#endif  // STRATA_HOST_GPU_TF_MEMORY_H_
