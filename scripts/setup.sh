#!/usr/bin/env bash
# Installs the Debian 12 packages Strata needs. Idempotent; silent when everything is present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config python3
  verilator libsystemc-dev zlib1g-dev
  gcc-riscv64-unknown-elf binutils-riscv64-unknown-elf
  googletest libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libcli11-dev
  clang libclang-rt-14-dev clang-format
  gtkwave
  python3-matplotlib  # scripts/plot_compare.py, run with /usr/bin/python3
  parallel            # strata-compare --emit-jobs sweeps (tests/compare/parallel_merge.sh)
  python3-dev pybind11-dev python3-numpy  # import strata (python/)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
