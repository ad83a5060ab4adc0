// Reading a user's file safely: only a regular file, and only up to a size bound, so that a directory, a FIFO
// (which would block), /dev/zero (which never ends) or a huge file gets a clear error instead of a hang or
// memory exhaustion. Header-only, POSIX; used by the ELF and .npy loaders and strata-replay's trace reader.
#ifndef STRATA_SIM_REGULAR_FILE_H_
#define STRATA_SIM_REGULAR_FILE_H_

#include <sys/stat.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

namespace strata::sim {

// "" when `path` names a regular file of at most `max_bytes`; else what is wrong ("not a regular file
// (a directory)", "larger than 1024 MiB", the errno text).
inline std::string CheckRegularFile(const std::string& path, uint64_t max_bytes) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::string("cannot open file (") + std::strerror(errno) + ")";
  if (S_ISDIR(st.st_mode)) return "not a regular file (a directory)";
  if (S_ISFIFO(st.st_mode)) return "not a regular file (a FIFO)";
  if (!S_ISREG(st.st_mode)) return "not a regular file (a device or socket)";
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    return "larger than " + std::to_string(max_bytes >> 20) + " MiB (" + std::to_string(st.st_size) + " bytes)";
  }
  return "";
}

}  // namespace strata::sim

#endif  // STRATA_SIM_REGULAR_FILE_H_
