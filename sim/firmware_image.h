// Where a firmware image the tools load by default is: installed, or in the build tree.
#ifndef STRATA_SIM_FIRMWARE_IMAGE_H_
#define STRATA_SIM_FIRMWARE_IMAGE_H_

#include <string>

namespace strata::sim {

// The ELF of firmware app `app` (a folder of firmware/apps, e.g. "runtime", "gemm"). An installed copy
// comes first: <dir>/../share/strata/firmware/<app>.elf, where <dir> holds the shared library or program
// this code is linked into (so an install prefix can move); else the build tree's
// rv32/apps/<app>/<app>.elf. Returns the installed path when it exists, else the build tree's (which may
// not exist either: the loader then names it in its error).
std::string FirmwareImagePath(const std::string& app);

// The folder of the shared object or program that holds this code: dladdr names it as it was loaded (the main
// program possibly by a relative name, hence /proc/self/exe when realpath cannot resolve it). Empty if unknown.
std::string ModuleDir();

// How a user runs the GTKWave symbol-view writer from where this program is: the installed
// <prefix>/bin/strata-gtkwave-symbols beside an installed program, else the source tree's
// scripts/gtkwave_symbols.py (a program of the build tree, run from the repository's root).
std::string GtkwaveSymbolsCommand();

}  // namespace strata::sim

#endif  // STRATA_SIM_FIRMWARE_IMAGE_H_
