#!/usr/bin/env bash
# Installs what is missing, configures (once) and builds the default preset. Quiet when up to date.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
./scripts/setup.sh
if [ ! -f build/CMakeCache.txt ]; then
  echo "build: configuring (first run)" >&2
  cmake --preset default >/dev/null
fi
echo "build: building (first run takes a few minutes: Verilator compiles the RTL)" >&2
cmake --build --preset default -- -j"${STRATA_JOBS:-$(nproc)}" >&2
