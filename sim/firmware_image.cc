#include "firmware_image.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#ifndef STRATA_RV32_BINARY_DIR
#error "STRATA_RV32_BINARY_DIR: the build tree's rv32 folder (sim/CMakeLists.txt)"
#endif

// Defined only in a program linked against the installed static archive: Strata::driver_static adds the
// install's firmware_dir.cc, which names <prefix>/share/strata/firmware (a static archive cannot find its prefix
// from where it sits, as the shared library does). Weak: null everywhere else.
extern "C" const char strata_installed_firmware_dir[] __attribute__((weak));

namespace strata::sim {
namespace {

bool IsRegularFile(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

std::string ModuleDir() {
  Dl_info info{};
  char resolved[PATH_MAX];
  std::string path;
  if (dladdr(reinterpret_cast<void*>(&FirmwareImagePath), &info) != 0 && info.dli_fname != nullptr &&
      realpath(info.dli_fname, resolved) != nullptr) {
    path = resolved;
  } else if (realpath("/proc/self/exe", resolved) != nullptr) {
    path = resolved;
  }
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

std::string GtkwaveSymbolsCommand() {
  const std::string dir = ModuleDir();
  const std::string installed = dir + "/strata-gtkwave-symbols";
  if (!dir.empty() && IsRegularFile(installed) && IsRegularFile(dir + "/../share/strata/firmware/runtime.elf")) {
    return installed;
  }
  return "scripts/gtkwave_symbols.py";
}

std::string FirmwareImagePath(const std::string& app) {
  if (strata_installed_firmware_dir != nullptr) {
    const std::string installed = std::string(strata_installed_firmware_dir) + "/" + app + ".elf";
    if (IsRegularFile(installed)) return installed;
  }
  const std::string dir = ModuleDir();
  if (!dir.empty()) {
    const std::string installed = dir + "/../share/strata/firmware/" + app + ".elf";
    if (IsRegularFile(installed)) return installed;
  }
  return std::string(STRATA_RV32_BINARY_DIR) + "/apps/" + app + "/" + app + ".elf";
}

}  // namespace strata::sim
