#!/usr/bin/env bash
# Installs what is missing, configures (the default preset on the first run, the existing cache after) and
# builds: everything, or only the targets given (scripts/run.sh builds the main job's three programs; the
# tests build the rest). Quiet when up to date.
# usage: scripts/build.sh [TARGET...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
./scripts/setup.sh
. ./scripts/compiler-cache.sh
if [ ! -f build/CMakeCache.txt ]; then
  echo "build: configuring (first run)" >&2
  cmake --preset default >/dev/null
else
  # Every time (about a second), keeping the cache's settings: a changed list of RTL sources must reach the
  # Verilator commands before ninja runs them, or the old command line fails first (Verilator's CMake support
  # generates at configure time).
  cmake -S . -B build >/dev/null
fi
targets=()
for t in "$@"; do targets+=(--target "$t"); done
echo "build: building ${*:-everything} (first run takes a few minutes: Verilator compiles the RTL)" >&2
cmake --build --preset default ${targets[@]+"${targets[@]}"} -- -j"${STRATA_JOBS:-$(nproc)}" >&2
