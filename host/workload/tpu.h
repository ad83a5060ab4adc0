// TPU facts the workload side needs: the tile-padding rule applied to XLA shapes, and the TPU device presets.
// docs/jax.md cites the public sources of every figure.
#ifndef STRATA_HOST_WORKLOAD_TPU_H_
#define STRATA_HOST_WORKLOAD_TPU_H_

#include <stdint.h>

#include <string>
#include <string_view>
#include <vector>

namespace strata::workload {

// An array shape as XLA prints it: "f32[128,256]{1,0}" (dims major to minor as written; the layout lists the
// dimensions minor first). Without a layout the last dimension is the minor one.
struct XlaShape {
  std::string dtype;           // "f32", "bf16", "s8", ...
  uint32_t bits = 0;           // per element
  std::vector<uint64_t> dims;  // as written
  std::vector<uint32_t> minor_to_major;
};
// False for tuples, tokens and anything that is not one array shape.
bool ParseXlaShape(std::string_view text, XlaShape* shape);
// Bits of an XLA element type ("pred" 8, "bf16" 16, "f32" 32, "c64" 64, "s4" 4 ...), 0 if unknown.
uint32_t XlaTypeBits(std::string_view dtype);

// The tile rule: the minor dimension rounds up to a multiple of 128; the second-minor to 8 for 32-bit (and wider)
// types, 16 for 16-bit, 32 for 8-bit (and narrower) ones. A rank-1 array pads its only dimension to 128; a
// scalar is not padded.
uint64_t TpuSecondMinorTile(uint32_t bits);
uint64_t TpuPaddedBytes(const XlaShape& shape);
uint64_t UnpaddedBytes(const XlaShape& shape);
bool TpuPaddedBytes(std::string_view shape_text, uint64_t* bytes);  // false when the shape cannot be read

// HBM per device as JAX sees it (a TPU 7x chip is two devices).
struct TpuPreset {
  const char* name;  // "tpu-v4", "tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu-7x"
  uint64_t hbm_bytes;
  const char* note;  // what the figure is
};
const std::vector<TpuPreset>& TpuPresets();
bool TpuPresetByName(const std::string& name, TpuPreset* out);
std::string TpuPresetNames();

}  // namespace strata::workload

#endif  // STRATA_HOST_WORKLOAD_TPU_H_
