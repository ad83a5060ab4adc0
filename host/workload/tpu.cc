// The TPU tile-padding rule over XLA shapes, and the TPU device presets.
#include "tpu.h"

#include <algorithm>
#include <cctype>

#include "devices.h"

namespace strata::workload {
namespace {

bool Number(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 18) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = v;
  return true;
}

uint64_t RoundUp(uint64_t x, uint64_t m) { return (x + m - 1) / m * m; }

// Saturates at 2^62 bytes (the largest buffer a trace holds), never wraps: the element count and the bits per
// element are each checked before they are multiplied (c128[2^61] is 2^65 bytes, not the 0 a wrap would give).
uint64_t Bytes(const std::vector<uint64_t>& dims, uint32_t bits) {
  constexpr uint64_t kMax = uint64_t{1} << 62;
  if (std::find(dims.begin(), dims.end(), 0) != dims.end()) return 0;
  uint64_t elements = 1;
  for (uint64_t d : dims) {
    if (elements > kMax / d) return kMax;
    elements *= d;
  }
  if (bits != 0 && elements / 8 > kMax / bits) return kMax;
  return std::min(kMax, elements / 8 * bits + (elements % 8 * bits + 7) / 8);
}

}  // namespace

uint32_t XlaTypeBits(std::string_view t) {
  if (t == "pred" || t == "s8" || t == "u8" || t.substr(0, 2) == "f8") return 8;
  if (t == "s4" || t == "u4" || t.substr(0, 2) == "f4") return 4;
  if (t == "s2" || t == "u2") return 2;
  if (t == "bf16" || t == "f16" || t == "s16" || t == "u16") return 16;
  if (t == "f32" || t == "s32" || t == "u32") return 32;
  if (t == "f64" || t == "s64" || t == "u64" || t == "c64") return 64;
  if (t == "c128") return 128;
  return 0;
}

bool ParseXlaShape(std::string_view text, XlaShape* shape) {
  *shape = XlaShape{};
  const size_t open = text.find('[');
  const size_t close = text.find(']');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open || open == 0) return false;
  shape->dtype = std::string(text.substr(0, open));
  shape->bits = XlaTypeBits(shape->dtype);
  if (shape->bits == 0) return false;
  std::string_view dims = text.substr(open + 1, close - open - 1);
  while (!dims.empty()) {
    const size_t comma = dims.find(',');
    std::string_view d = dims.substr(0, comma);
    if (!d.empty() && d.front() == '<' && d.substr(0, 2) == "<=") d.remove_prefix(2);  // bounded dynamic: its bound
    uint64_t v = 0;
    if (!Number(d, &v)) return false;
    shape->dims.push_back(v);
    if (comma == std::string_view::npos) break;
    dims.remove_prefix(comma + 1);
  }
  std::string_view rest = text.substr(close + 1);
  if (!rest.empty() && rest.front() == '{') {
    std::string_view layout = rest.substr(1, rest.find_first_of(":}") - 1);
    while (!layout.empty()) {
      const size_t comma = layout.find(',');
      uint64_t v = 0;
      if (!Number(layout.substr(0, comma), &v) || v >= shape->dims.size()) return false;
      shape->minor_to_major.push_back(static_cast<uint32_t>(v));
      if (comma == std::string_view::npos) break;
      layout.remove_prefix(comma + 1);
    }
  }
  if (shape->minor_to_major.size() != shape->dims.size()) {
    shape->minor_to_major.clear();
    for (size_t k = shape->dims.size(); k-- > 0;) shape->minor_to_major.push_back(static_cast<uint32_t>(k));
  }
  return true;
}

uint64_t TpuSecondMinorTile(uint32_t bits) { return bits >= 32 ? 8 : bits == 16 ? 16 : 32; }

uint64_t UnpaddedBytes(const XlaShape& shape) { return Bytes(shape.dims, shape.bits); }

uint64_t TpuPaddedBytes(const XlaShape& shape) {
  std::vector<uint64_t> dims = shape.dims;
  if (dims.empty()) return Bytes(dims, shape.bits);
  dims[shape.minor_to_major[0]] = RoundUp(dims[shape.minor_to_major[0]], 128);
  if (dims.size() >= 2) {
    uint64_t& second = dims[shape.minor_to_major[1]];
    second = RoundUp(second, TpuSecondMinorTile(shape.bits));
  }
  return Bytes(dims, shape.bits);
}

bool TpuPaddedBytes(std::string_view shape_text, uint64_t* bytes) {
  XlaShape s;
  if (!ParseXlaShape(shape_text, &s)) return false;
  *bytes = TpuPaddedBytes(s);
  return true;
}

const std::vector<TpuPreset>& TpuPresets() {
  // The TPUs of the one device table (host/gpu/devices.h).
  static const std::vector<TpuPreset> presets = [] {
    std::vector<TpuPreset> v;
    for (const devices::Device& d : devices::All()) {
      if (d.kind == devices::Kind::kTpu) v.push_back({d.name, d.total_bytes, d.note});
    }
    return v;
  }();
  return presets;
}

bool TpuPresetByName(const std::string& name, TpuPreset* out) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const TpuPreset& p : TpuPresets()) {
    if (lower == p.name) {
      *out = p;
      return true;
    }
  }
  return false;
}

std::string TpuPresetNames() {
  std::string s;
  for (const TpuPreset& p : TpuPresets()) s += std::string(s.empty() ? "" : ", ") + p.name;
  return s;
}

}  // namespace strata::workload
