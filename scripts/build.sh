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
  cmake --preset default >/dev/null
fi
targets=()
for t in "$@"; do targets+=(--target "$t"); done
echo "build: building ${*:-everything} (first run takes a few minutes: Verilator compiles the RTL)" >&2
cmake --build --preset default ${targets[@]+"${targets[@]}"} -- -j"${STRATA_JOBS:-$(nproc)}" >&2
