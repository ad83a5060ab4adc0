// Reading a user's file safely: only a regular file, and only up to a size bound, so that a directory, a FIFO
// (which would block), /dev/zero (which never ends) or a huge file gets a clear error instead of a hang or
// memory exhaustion. Header-only, POSIX; used by the ELF and .npy loaders and strata-replay's trace reader.
// And the same for a file to write: checked before a run, so output that cannot be written fails fast.
#ifndef STRATA_SIM_REGULAR_FILE_H_
#define STRATA_SIM_REGULAR_FILE_H_

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
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

// "" when `path` can be created (or opened to be overwritten) as a file to write; else why not ("not a
// regular file (a directory)", the errno text). Opens without blocking, so a FIFO cannot hang the caller; a
// directory, FIFO or socket is refused, a character device such as /dev/null is allowed. Creates the file if
// it is missing.
inline std::string CheckWritableFile(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) {
    return S_ISDIR(st.st_mode)    ? "not a regular file (a directory)"
           : S_ISFIFO(st.st_mode) ? "not a regular file (a FIFO)"
                                  : "not a regular file (a socket or block device)";
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd < 0) return std::strerror(errno);
  const bool ok = ::fstat(fd, &st) == 0 && (S_ISREG(st.st_mode) || S_ISCHR(st.st_mode));
  ::close(fd);
  return ok ? "" : "not a regular file";
}

// Writes `text` to `path` (created or truncated). "" when all of it reached the file, else why not: the errno
// text of the open, the write or the close (a full disk often shows only at close).
inline std::string WriteTextFile(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return std::strerror(errno);
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const int write_errno = errno;
  if (std::fclose(f) != 0) return std::strerror(errno);
  return written ? "" : std::strerror(write_errno);
}

}  // namespace strata::sim

#endif  // STRATA_SIM_REGULAR_FILE_H_
