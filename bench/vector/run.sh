#!/usr/bin/env bash
# Vector-unit benchmark: device cycles and simulated cycles per second of strata-sim vector (one VPU op over a
# 4096 x 1024 float32 tensor through VMEM with DMA double buffering: elementwise unary and binary, a row
# broadcast, a row reduction, and softmax over each row: seven ops chained).
# usage: bench/vector/run.sh [BUILD_DIR]   (stdout: one JSON object per line; progress on stderr)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="${1:-$here/../../build}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rows="${VECTOR_BENCH_ROWS:-4096}" cols="${VECTOR_BENCH_COLS:-1024}"
python3 "$here/make_npy.py" "$work/a.npy" "$rows" "$cols" 1
python3 "$here/make_npy.py" "$work/b.npy" "$rows" "$cols" 2
python3 "$here/make_npy.py" "$work/r.npy" 1 "$cols" 3
run() {  # OP [--b FILE]
  echo "bench vector: $1 ${rows}x${cols}" >&2
  "$build/sim/strata-sim" vector "$@" --a "$work/a.npy" --out "$work/c.npy" --json |
    python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
print(json.dumps({"bench": "vector", "op": r["op"], "rows": r["rows"], "cols": r["cols"], "bcast": r["bcast"],
                  "cycles": r["cycles"], "vpu_busy_cycles": r["vpu_busy_cycles"], "vpu_rows": r["vpu_rows"],
                  "cycles_per_vpu_row": round(r["cycles"] / max(1, r["vpu_rows"]), 3),
                  "sim_cycles_per_second": r["sim_cycles_per_second"]}))'
}
run exp
run add --b "$work/b.npy"
run mul --b "$work/r.npy"
run row_sum
run softmax
