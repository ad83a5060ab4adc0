// Helpers of the XLA import tests: the committed dumps (tests/xla/data) and reading them.
#ifndef STRATA_TESTS_XLA_XLA_TEST_UTIL_H_
#define STRATA_TESTS_XLA_XLA_TEST_UTIL_H_

#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STRATA_XLA_TEST_ASAN 1
#endif
#endif
#ifndef STRATA_XLA_TEST_ASAN
#define STRATA_XLA_TEST_ASAN 0
#endif

namespace strata::workload {

// The committed dumps, or those live_routes.py has just made (STRATA_XLA_DATA_DIR).
inline const std::string kData =
    std::getenv("STRATA_XLA_DATA_DIR") != nullptr ? std::getenv("STRATA_XLA_DATA_DIR") : STRATA_XLA_DATA;

inline std::string Read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The one file in `dir` whose name ends with `suffix`.
inline std::string Find(const std::string& dir, const std::string& suffix) {
  DIR* d = opendir(dir.c_str());
  std::string found;
  while (dirent* e = d ? readdir(d) : nullptr) {
    const std::string n = e->d_name;
    if (n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0) found = n;
  }
  if (d) closedir(d);
  EXPECT_FALSE(found.empty()) << dir << ": no *" << suffix;
  return dir + "/" + found;
}

// The protobuf wire format, written: for tests that craft a message (field numbers as xla_proto.cc reads them).
inline std::string PbVarint(uint64_t v) {
  std::string out;
  for (; v >= 0x80; v >>= 7) out += static_cast<char>((v & 0x7f) | 0x80);
  out += static_cast<char>(v);
  return out;
}
inline std::string PbInt(uint32_t field, uint64_t v) { return PbVarint(uint64_t{field} << 3) + PbVarint(v); }
inline std::string PbBytes(uint32_t field, const std::string& payload) {
  return PbVarint(uint64_t{field} << 3 | 2) + PbVarint(payload.size()) + payload;
}

// What a child process reported: its exit status (128 + the signal that ended it) and the text it wrote.
struct ChildResult {
  int status = 0;
  std::string text;
};

// Runs `run` (bool(std::string* text)) in a child process that SIGALRM ends after `seconds` and that, outside a
// sanitizer (which reserves terabytes of address space), has 1 GiB of address space: a hang or an unbounded read
// fails the test instead of stopping the suite or exhausting the machine. Exit status 0 when `run` returned true.
template <typename Run>
ChildResult InChild(Run run, unsigned seconds = 20) {
  int fds[2];
  if (pipe(fds) != 0) return {-1, "pipe failed"};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    alarm(seconds);
#if !defined(__SANITIZE_ADDRESS__) && !STRATA_XLA_TEST_ASAN
    const rlimit limit{rlim_t{1} << 30, rlim_t{1} << 30};
    setrlimit(RLIMIT_AS, &limit);
#endif
    std::string text;
    const bool ok = run(&text);
    for (size_t at = 0; at < text.size();) {
      const ssize_t n = write(fds[1], text.data() + at, text.size() - at);
      if (n <= 0) break;
      at += static_cast<size_t>(n);
    }
    _exit(ok ? 0 : 1);
  }
  close(fds[1]);
  ChildResult r;
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;) r.text.append(buffer, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

}  // namespace strata::workload

#endif  // STRATA_TESTS_XLA_XLA_TEST_UTIL_H_
