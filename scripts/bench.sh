#!/usr/bin/env bash
# Builds what the benchmarks need and runs them. stdout carries only JSON lines (one object per
# result); progress goes to stderr. `scripts/bench.sh` runs all; `scripts/bench.sh NAME...` some;
# `scripts/bench.sh --list` names them. A benchmark NAME is bench/NAME/run.sh (given the build
# directory) or, failing that, the host program build/bench/NAME/strata-bench-NAME.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# The benchmarks: each directory with a run.sh or a CMakeLists.txt that builds strata-bench-NAME. Not
# bench/common (headers the benchmarks share) nor bench/firmware (images that bench/core runs).
benchmarks() {
  for d in bench/*/; do
    n=$(basename "$d")
    if [ -x "bench/$n/run.sh" ] || grep -qs "add_executable(strata-bench-$n " "bench/$n/CMakeLists.txt"; then
      echo "$n"
    fi
  done
}
if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'
  echo "available: $(benchmarks | tr '\n' ' ')"
  exit 0
fi
if [ "${1:-}" = "--list" ]; then
  benchmarks
  exit 0
fi
./scripts/build.sh
build="$root/build"
names=("$@")
all=0
if [ ${#names[@]} -eq 0 ]; then
  all=1
  mapfile -t names < <(benchmarks)
fi
status=0
for n in "${names[@]}"; do
  if [ -x "bench/$n/run.sh" ]; then
    echo "bench: $n" >&2
    "bench/$n/run.sh" "$build" || { echo "bench: $n failed" >&2; status=1; }
  elif [ -x "$build/bench/$n/strata-bench-$n" ]; then
    echo "bench: $n" >&2
    "$build/bench/$n/strata-bench-$n" || { echo "bench: $n failed" >&2; status=1; }
  elif [ $all = 1 ]; then
    # Built only where its parts are (a CUDA toolkit, the Verilated model): not this build's to run.
    echo "bench: $n skipped: this build has no strata-bench-$n" >&2
  else
    echo "bench: unknown benchmark '$n' (see scripts/bench.sh --help)" >&2
    status=2
  fi
done
exit $status
