// Helpers of the XLA import tests: the committed dumps (tests/xla/data) and reading them.
#ifndef STRATA_TESTS_XLA_XLA_TEST_UTIL_H_
#define STRATA_TESTS_XLA_XLA_TEST_UTIL_H_

#include <dirent.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

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

}  // namespace strata::workload

#endif  // STRATA_TESTS_XLA_XLA_TEST_UTIL_H_
