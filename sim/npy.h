// Strict reader and writer of NumPy .npy files for strata-sim gemm: format versions 1.0 and
// 2.0, little-endian int8 ('|i1'), int32 ('<i4') or float32 ('<f4'), C order, two dimensions. Header-only.
#ifndef STRATA_SIM_NPY_H_
#define STRATA_SIM_NPY_H_

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "regular_file.h"

namespace strata::sim {

struct NpyArray {
  std::string descr;  // "|i1", "<i4" or "<f4"
  uint64_t rows = 0, cols = 0;
  std::vector<uint8_t> data;  // rows * cols * element size bytes, C order
  size_t elem_size() const { return descr == "<i4" || descr == "<f4" ? 4 : 1; }
};

namespace npy_detail {

inline void SkipSpace(const std::string& s, size_t& i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
}

// Parses the header dictionary {'descr': ..., 'fortran_order': ..., 'shape': (..), }.
inline bool ParseHeader(const std::string& h, std::string& descr, bool& fortran, std::vector<uint64_t>& shape,
                        std::string& why) {
  bool have_descr = false, have_fortran = false, have_shape = false;
  size_t i = 0;
  SkipSpace(h, i);
  if (i >= h.size() || h[i] != '{') return why = "header is not a dictionary", false;
  ++i;
  for (;;) {
    SkipSpace(h, i);
    if (i < h.size() && h[i] == '}') break;
    if (i >= h.size() || h[i] != '\'') return why = "malformed header dictionary", false;
    const size_t kend = h.find('\'', i + 1);
    if (kend == std::string::npos) return why = "malformed header key", false;
    const std::string key = h.substr(i + 1, kend - i - 1);
    i = kend + 1;
    SkipSpace(h, i);
    if (i >= h.size() || h[i] != ':') return why = "malformed header dictionary", false;
    ++i;
    SkipSpace(h, i);
    if (key == "descr") {
      if (i >= h.size() || h[i] != '\'') return why = "descr is not a string", false;
      const size_t e = h.find('\'', i + 1);
      if (e == std::string::npos) return why = "malformed descr", false;
      descr = h.substr(i + 1, e - i - 1);
      i = e + 1;
      have_descr = true;
    } else if (key == "fortran_order") {
      if (h.compare(i, 4, "True") == 0) {
        fortran = true;
        i += 4;
      } else if (h.compare(i, 5, "False") == 0) {
        fortran = false;
        i += 5;
      } else {
        return why = "fortran_order is not True or False", false;
      }
      have_fortran = true;
    } else if (key == "shape") {
      if (i >= h.size() || h[i] != '(') return why = "shape is not a tuple", false;
      ++i;
      for (;;) {
        SkipSpace(h, i);
        if (i < h.size() && h[i] == ')') {
          ++i;
          break;
        }
        if (i >= h.size() || h[i] < '0' || h[i] > '9') return why = "shape holds a non-integer", false;
        uint64_t v = 0;
        while (i < h.size() && h[i] >= '0' && h[i] <= '9') {
          if (v > (UINT64_MAX - 9) / 10) return why = "shape dimension too large", false;
          v = v * 10 + static_cast<uint64_t>(h[i++] - '0');
        }
        shape.push_back(v);
        SkipSpace(h, i);
        if (i < h.size() && h[i] == ',') ++i;
      }
      have_shape = true;
    } else {
      return why = "unknown header key '" + key + "'", false;
    }
    SkipSpace(h, i);
    if (i < h.size() && h[i] == ',') ++i;
  }
  if (!have_descr || !have_fortran || !have_shape) return why = "header lacks descr, fortran_order or shape", false;
  return true;
}

}  // namespace npy_detail

// Parses a whole .npy file held in memory; on failure returns false with `error` starting with `name`.
inline bool ParseNpy(std::string_view bytes, const std::string& name, NpyArray& out, std::string& error) {
  auto fail = [&](const std::string& why) {
    error = name + ": not a valid .npy file: " + why;
    return false;
  };
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) return fail("missing \\x93NUMPY magic");
  const uint8_t major = static_cast<uint8_t>(bytes[6]);
  size_t header_len = 0, pos = 0;
  if (major == 1) {
    header_len = static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
    pos = 10;
  } else if (major == 2) {
    if (bytes.size() < 12) return fail("truncated header");
    header_len = 0;
    for (int b = 0; b < 4; ++b) header_len |= static_cast<size_t>(static_cast<uint8_t>(bytes[8 + b])) << (8 * b);
    pos = 12;
  } else {
    return fail("unsupported format version " + std::to_string(major) + " (1.0 and 2.0 are read)");
  }
  if (bytes.size() < pos + header_len) return fail("truncated header");
  const std::string header(bytes.substr(pos, header_len));
  std::string descr, why;
  bool fortran = false;
  std::vector<uint64_t> shape;
  if (!npy_detail::ParseHeader(header, descr, fortran, shape, why)) return fail(why);
  if (descr != "|i1" && descr != "<i4" && descr != "i1" && descr != "<i1" && descr != "<f4") {
    return fail("dtype '" + descr + "' is not int8 ('|i1'), little-endian int32 ('<i4') or float32 ('<f4')");
  }
  if (descr != "<i4" && descr != "<f4") descr = "|i1";
  if (fortran) return fail("Fortran order is not supported (save a C-contiguous array)");
  if (shape.size() != 2) return fail("array has " + std::to_string(shape.size()) + " dimensions, not 2");
  out.descr = descr;
  out.rows = shape[0];
  out.cols = shape[1];
  const uint64_t n = out.rows * out.cols;
  // Neither the element count nor the byte count may wrap (2^62 int32 elements would need 0 bytes).
  if ((out.rows != 0 && n / out.rows != out.cols) || n > UINT64_MAX / out.elem_size()) return fail("shape too large");
  const uint64_t want = n * out.elem_size();
  const uint64_t have = bytes.size() - pos - header_len;
  if (have != want) {
    return fail("data is " + std::to_string(have) + " bytes, the shape needs " + std::to_string(want));
  }
  out.data.assign(bytes.begin() + static_cast<long>(pos + header_len), bytes.end());
  return true;
}

// Reads `path`; on failure returns false with `error` naming the file and the problem.
inline bool ReadNpy(const std::string& path, NpyArray& out, std::string& error) {
  if (const std::string why = tool::CheckRegularFile(path, 4ull << 30); !why.empty()) {
    return error = path + ": " + why, false;
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) return error = path + ": cannot open file", false;
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return ParseNpy(bytes, path, out, error);
}

// The header (format 1.0, padded to 64 bytes) that precedes a 2-D int8 or int32 array's data.
inline std::string NpyHeader(const NpyArray& a) {
  std::string dict = "{'descr': '" + a.descr + "', 'fortran_order': False, 'shape': (" + std::to_string(a.rows) + ", " +
                     std::to_string(a.cols) + "), }";
  size_t total = 10 + dict.size() + 1;
  const size_t pad = (64 - total % 64) % 64;
  dict.append(pad, ' ');
  dict.push_back('\n');
  std::string head = "\x93NUMPY";
  head.push_back('\x01');
  head.push_back('\x00');
  head.push_back(static_cast<char>(dict.size() & 0xff));
  head.push_back(static_cast<char>(dict.size() >> 8));
  return head + dict;
}

// Writes a 2-D int8 or int32 array as format 1.0, whole or not at all (regular_file.h: WriteTextFile).
inline bool WriteNpy(const std::string& path, const NpyArray& a, std::string& error) {
  std::string bytes = NpyHeader(a);
  bytes.append(reinterpret_cast<const char*>(a.data.data()), a.data.size());
  if (const std::string why = tool::WriteTextFile(path, bytes); !why.empty()) {
    return error = path + ": write failed (" + why + ")", false;
  }
  return true;
}

}  // namespace strata::sim

#endif  // STRATA_SIM_NPY_H_
