// Reading a user's file safely: only a regular file, and only up to a size bound, so that a directory, a FIFO
// (which would block), /dev/zero (which never ends) or a huge file gets a clear error instead of a hang or
// memory exhaustion (CheckRegularFile; ReadRegularFile reads such a file whole). Header-only, POSIX; used by the ELF
// and .npy loaders, the trace reader, the importers and strata-compare's --merge.
// And the same for a file to write: checked before a run without creating it, so output that cannot be written
// fails fast; written under a temporary name beside it and renamed over it once complete (ReplacingFile), so a
// refused, failed or killed run leaves the old file or none, never a partial one; and kept apart from the run's
// inputs and other outputs (CheckOutputsApart), so a tool never overwrites what it reads.
#ifndef STRATA_HOST_TOOL_REGULAR_FILE_H_
#define STRATA_HOST_TOOL_REGULAR_FILE_H_

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace strata::tool {

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

// What kind of file `st` is, when it is not a regular one: "a directory", "a FIFO", "a device or socket".
inline const char* NotRegularKind(const struct stat& st) {
  return S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" : "a device or socket";
}

// Opens the regular file `path` of at most `limit` bytes for reading: its descriptor (the caller closes it), with
// its size in *size. -1 with *error set to "PATH: cannot open: WHY", "PATH: not a regular file (a FIFO)" or "PATH:
// byte 0: the file is N bytes, over the limit of LIMIT" otherwise. The type is checked before the open (a device
// is never opened: opening some has effects) and again on the descriptor, which is opened non-blocking: a FIFO
// put in the file's place between the two cannot block the open, and is refused by the second check.
inline int OpenRegularFile(const std::string& path, uint64_t limit, uint64_t* size, std::string* error) {
  // True, with *error set, when `st` is not a regular file within the limit.
  auto refused = [&](const struct stat& st) -> bool {
    if (!S_ISREG(st.st_mode)) {
      *error = path + ": not a regular file (" + NotRegularKind(st) + ")";
      return true;
    }
    if (static_cast<uint64_t>(st.st_size) > limit) {
      *error = path + ": byte 0: the file is " + std::to_string(st.st_size) + " bytes, over the limit of " +
               std::to_string(limit);
      return true;
    }
    return false;
  };
  struct stat named {};
  if (::stat(path.c_str(), &named) != 0) {
    *error = path + ": cannot open: " + std::strerror(errno);
    return -1;
  }
  if (refused(named)) return -1;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    *error = path + ": cannot open: " + std::strerror(errno);
    return -1;
  }
  struct stat opened {};
  if (::fstat(fd, &opened) != 0) {
    *error = path + ": cannot open: " + std::strerror(errno);
    ::close(fd);
    return -1;
  }
  if (refused(opened)) {
    ::close(fd);
    return -1;
  }
  if (opened.st_dev != named.st_dev || opened.st_ino != named.st_ino) {
    *error = path + ": cannot open: the file was replaced while it was opened";
    ::close(fd);
    return -1;
  }
  *size = static_cast<uint64_t>(opened.st_size);
  return fd;
}

// Reads at most `max` bytes at the start of `fd` into `out` (retrying short reads and EINTR): how many were read,
// fewer only at the end of the file; -1 on a read error (errno set).
inline int64_t ReadFully(int fd, char* out, uint64_t max) {
  uint64_t done = 0;
  while (done < max) {
    const ssize_t n = ::read(fd, out + done, static_cast<size_t>(std::min<uint64_t>(max - done, 1u << 30)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) break;
    done += static_cast<uint64_t>(n);
  }
  return static_cast<int64_t>(done);
}

// Reads the regular file `path` of at most `limit` bytes whole into *data. False with *error set to "PATH: cannot
// open: WHY", "PATH: not a regular file (a FIFO)", "PATH: byte 0: the file is N bytes, over the limit of LIMIT" or
// "PATH: read error" otherwise (OpenRegularFile); *data is then unspecified. The one reader of a whole input file
// (importers, reports to merge): never blocks on a FIFO, never reads past the size it checked against the limit.
inline bool ReadRegularFile(const std::string& path, uint64_t limit, std::string* data, std::string* error) {
  uint64_t size = 0;
  const int fd = OpenRegularFile(path, limit, &size, error);
  if (fd < 0) return false;
  data->assign(static_cast<size_t>(size), '\0');
  const int64_t got = ReadFully(fd, data->data(), size);
  const int err = errno;
  ::close(fd);
  if (got < 0 || static_cast<uint64_t>(got) != size) {
    *error = path + ": read error" + (got < 0 ? std::string(" (") + std::strerror(err) + ")" : " (the file shrank)");
    return false;
  }
  return true;
}

// The directory `path` is in ("." for a bare name).
inline std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// "" when `path` can be written: an existing regular file this user may write in a directory it may write (it is
// replaced through a temporary file there), a character device such as /dev/null, or a new file in a directory this
// user may write; else why not ("not a regular file (a directory)", the errno text). Creates and opens nothing, so
// a refused run leaves no empty file behind and a FIFO cannot block.
inline std::string CheckWritableFile(const std::string& path) {
  if (path.empty()) return "an empty file name";
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return "not a regular file (a directory)";
    if (S_ISFIFO(st.st_mode)) return "not a regular file (a FIFO)";
    if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) return "not a regular file (a socket or block device)";
    if (::access(path.c_str(), W_OK) != 0) return std::strerror(errno);
    // Written in place (ReplacingFile): a device, or a name under /dev or /proc such as /dev/stdout.
    if (S_ISCHR(st.st_mode) || path.rfind("/dev/", 0) == 0 || path.rfind("/proc/", 0) == 0) return "";
  } else if (errno != ENOENT) {
    return std::strerror(errno);
  }
  if (::access(DirectoryOf(path).c_str(), W_OK | X_OK) != 0) return std::strerror(errno);
  return "";
}

// A file written whole or not at all: Open writes to a temporary file beside `path` (same directory, so the rename
// cannot cross file systems), Commit flushes it to the disk and renames it over `path`; destroyed without Commit
// (an error, a refused export, an exception) it removes the temporary file and `path` keeps what it had. A kill
// between the two leaves at most a stray ".NAME.XXXXXX" beside the target. A character device (/dev/null, /dev/full)
// cannot be renamed over, and a name under /dev or /proc (/dev/stdout: the caller's open descriptor) must not be: both
// are written in place. A symbolic link is followed: the file it names is replaced, the link stays.
class ReplacingFile {
 public:
  ReplacingFile() = default;
  ReplacingFile(const ReplacingFile&) = delete;
  ReplacingFile& operator=(const ReplacingFile&) = delete;
  ~ReplacingFile() { Abandon(); }

  // "" when the temporary file is open for writing; else the errno text.
  std::string Open(const std::string& path) {
    Abandon();
    path_ = path;
    struct stat st {};
    const bool exists = ::stat(path.c_str(), &st) == 0;
    if ((exists && S_ISCHR(st.st_mode)) || path.rfind("/dev/", 0) == 0 || path.rfind("/proc/", 0) == 0) {
      file_ = std::fopen(path.c_str(), "w");
      return file_ == nullptr ? std::strerror(errno) : "";
    }
    if (exists) {
      if (char* real = ::realpath(path.c_str(), nullptr)) {
        path_ = real;
        std::free(real);
      }
    }
    const size_t slash = path_.find_last_of('/');
    temp_ = (slash == std::string::npos ? std::string() : path_.substr(0, slash + 1)) + "." +
            path_.substr(slash == std::string::npos ? 0 : slash + 1) + ".XXXXXX";
    const int fd = ::mkstemp(&temp_[0]);
    if (fd < 0) {
      const int err = errno;
      temp_.clear();
      return std::strerror(err);
    }
    // The mode the file would have had: the old file's, else what the umask leaves of rw-rw-rw-.
    mode_t mode = st.st_mode & 07777;
    if (!exists) {
      const mode_t mask = ::umask(0);
      ::umask(mask);
      mode = 0666 & ~mask;
    }
    ::fchmod(fd, mode);
    file_ = ::fdopen(fd, "w");
    if (file_ == nullptr) {
      const int err = errno;
      ::close(fd);
      Abandon();
      return std::strerror(err);
    }
    return "";
  }

  std::FILE* get() const { return file_; }

  // "" when every byte reached the disk and the file is in place under its name; else why not (the errno text of
  // the write, flush, sync, close or rename: a full disk often shows only at the flush). Either way it is closed.
  std::string Commit() {
    if (file_ == nullptr) return "not open";
    int err = std::ferror(file_) ? (errno != 0 ? errno : EIO) : 0;
    if (err == 0 && std::fflush(file_) != 0) err = errno;
    if (err == 0 && !temp_.empty() && ::fsync(::fileno(file_)) != 0) err = errno;
    std::FILE* f = file_;
    file_ = nullptr;
    if (std::fclose(f) != 0 && err == 0) err = errno;
    if (err == 0 && !temp_.empty() && std::rename(temp_.c_str(), path_.c_str()) != 0) err = errno;
    if (err != 0) {
      Abandon();
      return std::strerror(err);
    }
    temp_.clear();
    return "";
  }

  // Closes and removes the temporary file; the target keeps what it had (idempotent).
  void Abandon() {
    if (file_ != nullptr) std::fclose(file_);
    file_ = nullptr;
    if (!temp_.empty()) ::unlink(temp_.c_str());
    temp_.clear();
  }

 private:
  std::string path_;
  std::string temp_;  // empty when writing in place (a character device) or when done
  std::FILE* file_ = nullptr;
};

// Writes `text` to `path` through a ReplacingFile. "" when all of it is in place, else why not.
inline std::string WriteTextFile(const std::string& path, const std::string& text) {
  ReplacingFile out;
  if (std::string why = out.Open(path); !why.empty()) return why;
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), out.get()) != text.size()) {
    const int err = errno != 0 ? errno : EIO;
    out.Abandon();
    return std::strerror(err);
  }
  return out.Commit();
}

// A tool's output: `text` to `path`, or to standard output when `path` is "-". "" when all of it was written, else
// "PATH: why" ("standard output: write failed").
inline std::string WriteOutput(const std::string& path, const std::string& text) {
  if (path == "-") {
    const bool ok = std::fwrite(text.data(), 1, text.size(), stdout) == text.size() && std::fflush(stdout) == 0;
    return ok ? "" : "standard output: write failed";
  }
  const std::string why = WriteTextFile(path, text);
  return why.empty() ? why : path + ": " + why;
}

// A file a tool reads or writes, as the user named it: `role` is how a message names it ("the input", "--csv").
struct NamedFile {
  std::string role;
  std::string path;
};

// Whether two paths name one file: by device and inode when both exist, else by normalized path (the real path
// of the directory and the name), so an output not yet written is still matched. Character devices are never
// "one file" (two outputs to /dev/null are fine), nor is "-" (standard input or output).
inline bool SameFile(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty() || a == "-" || b == "-") return false;
  struct stat sa {
  }, sb{};
  const bool ea = ::stat(a.c_str(), &sa) == 0, eb = ::stat(b.c_str(), &sb) == 0;
  if ((ea && S_ISCHR(sa.st_mode)) || (eb && S_ISCHR(sb.st_mode))) return false;
  if (ea && eb) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (ea != eb) return false;
  auto normalized = [](const std::string& p) {
    const size_t slash = p.find_last_of('/');
    const std::string name = slash == std::string::npos ? p : p.substr(slash + 1);
    char* dir = ::realpath(DirectoryOf(p).c_str(), nullptr);
    if (dir == nullptr) return p;
    std::string n = std::string(dir) + "/" + name;
    std::free(dir);
    return n;
  };
  return normalized(a) == normalized(b);
}

// "" when no output is one of the inputs or another output; else what clashes: "--csv a.csv is the input a.csv"
// or "--json r and --csv r are the same file". Empty paths and "-" are left out. For a tool to refuse, before it
// runs, a run that would overwrite what it reads or write two outputs over each other.
inline std::string CheckOutputsApart(const std::vector<NamedFile>& inputs, const std::vector<NamedFile>& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const NamedFile& out = outputs[i];
    for (const NamedFile& in : inputs) {
      if (SameFile(out.path, in.path)) {
        return out.role + " " + out.path + " is " + in.role + " " + in.path + " (an output never overwrites an input)";
      }
    }
    for (size_t j = 0; j < i; ++j) {
      if (SameFile(out.path, outputs[j].path)) {
        return outputs[j].role + " " + outputs[j].path + " and " + out.role + " " + out.path +
               " are the same file (each output needs its own)";
      }
    }
  }
  return "";
}

}  // namespace strata::tool

#endif  // STRATA_HOST_TOOL_REGULAR_FILE_H_
