#!/usr/bin/env bash
# Installs what is missing, configures (once) and builds the default preset: everything, or only the
# targets given (scripts/run.sh builds the main job's three programs; the tests build the rest). Quiet when
# up to date.
# usage: scripts/build.sh [TARGET...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
./scripts/setup.sh
if [ ! -f build/CMakeCache.txt ]; then
  echo "build: configuring (first run)" >&2
fi
# Every time (about a second): a changed list of RTL sources must reach the Verilator commands before ninja
# runs them, or the old command line fails first (Verilator's CMake support generates at configure time).
cmake --preset default >/dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
echo "build: building ${*:-everything} (first run takes a few minutes: Verilator compiles the RTL)" >&2
cmake --build --preset default ${targets[@]+"${targets[@]}"} -- -j"${STRATA_JOBS:-$(nproc)}" >&2
