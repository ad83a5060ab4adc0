#!/usr/bin/env bash
# GEMM benchmark: matrix-unit utilization (MACs / (N^2 cycles)) against its roofline limit under
# the HBM preset, and simulated cycles per second, for 256^3, 1024^3 and a skinny 4096x64x16 GEMM
# at N = 16 (plus 256^3 at N = 8 and 32 when the build has those chips: strata-sim --mxu-n N); then bf16 (strata-sim
# gemm --dtype bf16, float32 inputs rounded to bf16 on upload, fp32 results) at 256^3 and 1024^3 (about 3 minutes:
# the bf16 array simulates about 10x slower than int8). GEMM_BENCH_BF16=0 leaves bf16 out.
# usage: bench/gemm/run.sh [BUILD_DIR]   (stdout: one JSON object per line; progress on stderr)
# GEMM_BENCH_PER_TILE=1 also runs each shape with the old one-command-per-weight-tile issue path (the
# benchmark image rv32/bench/bench_gemm_per_tile.elf).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="${1:-$here/../../build}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

run() {  # SIM M K N [extra strata-sim gemm options; --dtype bf16 first for bf16]
  local sim="$1" m="$2" k="$3" n="$4"
  shift 4
  local dtype=int8 f4=()
  if [ "${1:-}" = "--dtype" ]; then
    dtype="$2"
    f4=(f4)
  fi
  [ -f "$work/a_${dtype}_${m}_${k}.npy" ] || python3 "$here/make_npy.py" "$work/a_${dtype}_${m}_${k}.npy" "$m" "$k" 1 "${f4[@]}"
  [ -f "$work/b_${dtype}_${k}_${n}.npy" ] || python3 "$here/make_npy.py" "$work/b_${dtype}_${k}_${n}.npy" "$k" "$n" 2 "${f4[@]}"
  echo "bench gemm: $(basename "$sim") ${m}x${k}x${n} $*" >&2
  local issue=fused
  [ "${1:-}" = "--firmware" ] && issue=per_tile
  "$sim" gemm --a "$work/a_${dtype}_${m}_${k}.npy" --b "$work/b_${dtype}_${k}_${n}.npy" --out "$work/c.npy" --json "$@" |
    python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
print(json.dumps({"bench": "gemm", "m": r["m"], "k": r["k"], "n": r["n"], "array": r["array_n"],
                  "dtype": sys.argv[2], "issue": sys.argv[1], "hbm": r["hbm"], "cycles": r["cycles"],
                  "utilization": r["utilization"], "roofline_utilization": r["roofline_utilization"],
                  "mxu_commands": r["mxu_commands"], "starved_cycles": r["starved_cycles"],
                  "sim_cycles_per_second": r["sim_cycles_per_second"]}))
' "$issue" "$dtype"
}

sim="$build/sim/strata-sim"
for shape in "256 256 256" "4096 64 16" "1024 1024 1024"; do
  run "$sim" $shape
  if [ "${GEMM_BENCH_PER_TILE:-0}" = 1 ]; then run "$sim" $shape --firmware "$build/rv32/bench/bench_gemm_per_tile.elf"; fi
done
built="$("$sim" --help | sed -n 's/.*--mxu-n N.*this build has \([0-9, ]*\)).*/\1/p')"
for n in 8 32; do
  if [[ ", $built," == *", $n,"* ]]; then run "$sim" 256 256 256 --mxu-n "$n"; fi
done
if [ "${GEMM_BENCH_BF16:-1}" != 0 ]; then
  for shape in "256 256 256" "1024 1024 1024"; do
    run "$sim" $shape --dtype bf16
  done
fi
