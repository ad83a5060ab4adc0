#!/usr/bin/env bash
# Allocator benchmarks: host (ns per alloc+free pair per policy, harness throughput, every shared trace; a host
# replay through the C API against the direct one) and device (core cycles per allocate/free on strata-sim). Usage: run.sh BUILD_DIR [--quick]
# stdout: JSON lines only; progress and the firmware's other console lines go to stderr.
set -euo pipefail
build="${1:?usage: run.sh BUILD_DIR [--quick]}"
shift
host="$build/bench/alloc/alloc_bench"
sim="$build/sim/strata-sim"
elf="$build/rv32/apps/alloc_bench/alloc_bench.elf"
status=0

# JSON lines to stdout, everything else to stderr.
split() { while IFS= read -r line; do case "$line" in "{"*) printf '%s\n' "$line" ;; *) printf '%s\n' "$line" >&2 ;; esac; done; }

if [ -x "$host" ]; then
  echo "alloc: host benchmark ($host)" >&2
  "$host" "$@" | split || { echo "alloc: host benchmark failed" >&2; status=1; }
else
  echo "alloc: no host benchmark at $host" >&2
  status=1
fi

# The C API's cost on a host replay: bert_base and a generated 100k-buffer trace (bench/compare/gen_trace.py, seed 1),
# the allocator called directly (replay::DirectReplay) against strata.h on the host backend (host_api_bench).
api="$build/bench/alloc/host_api_bench"
if [ -x "$api" ]; then
  echo "alloc: host replay through the C API ($api)" >&2
  work=$(mktemp -d)
  large=100000
  [ "${1:-}" = "--quick" ] && large=10000
  python3 "$(dirname "$0")/../compare/gen_trace.py" --buffers "$large" --seed 1 --out "$work/generated_$large.csv"
  "$api" "$(dirname "$0")/../../tests/data/traces/bert_base.csv" "$work/generated_$large.csv" | split ||
    { echo "alloc: host_api_bench failed" >&2; status=1; }
  rm -rf "$work"
else
  echo "alloc: no host_api_bench at $api" >&2
  status=1
fi

if [ -x "$sim" ] && [ -f "$elf" ]; then
  echo "alloc: device benchmark ($elf on strata-sim)" >&2
  out=$("$sim" --quiet "$elf") || { echo "alloc: device benchmark failed (strata-sim exit $?)" >&2; status=1; }
  printf '%s\n' "$out" | split
  printf '%s\n' "$out" | grep -qx 'PASS' || { echo "alloc: device benchmark did not PASS" >&2; status=1; }
else
  echo "alloc: no strata-sim or firmware image under $build (sim/strata-sim, rv32/apps/alloc_bench/alloc_bench.elf)" >&2
  status=1
fi
exit $status
