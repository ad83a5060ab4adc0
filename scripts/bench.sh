#!/usr/bin/env bash
# Builds what the benchmarks need and runs them. stdout carries only JSON lines (one object per
# result); progress goes to stderr. `scripts/bench.sh` runs all; `scripts/bench.sh NAME...` some.
# A benchmark NAME is bench/NAME/run.sh (given the build directory) or, failing that, the host
# program build/bench/NAME/strata-bench-NAME.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'
  echo "available: $(ls -d bench/*/ | xargs -n1 basename | grep -v '^firmware$' | tr '\n' ' ')"
  exit 0
fi
./scripts/build.sh
build="$root/build"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for d in bench/*/; do
    n=$(basename "$d")
    [ "$n" = firmware ] || names+=("$n")
  done
fi
status=0
for n in "${names[@]}"; do
  if [ -x "bench/$n/run.sh" ]; then
    echo "bench: $n" >&2
    "bench/$n/run.sh" "$build" || { echo "bench: $n failed" >&2; status=1; }
  elif [ -x "$build/bench/$n/strata-bench-$n" ]; then
    echo "bench: $n" >&2
    "$build/bench/$n/strata-bench-$n" || { echo "bench: $n failed" >&2; status=1; }
  else
    echo "bench: unknown benchmark '$n' (see scripts/bench.sh --help)" >&2
    status=2
  fi
done
exit $status
