#!/usr/bin/env bash
# Control-core benchmarks: CPI and M-extension latency (firmware), and simulator speed on a
# compute-bound loop with tracing off and on. Usage: run.sh BUILD_DIR
set -euo pipefail
build="$1"
sim="$build/sim/strata-sim"
"$sim" --quiet "$build/rv32/bench/bench_core_cpi.elf"

# Simulator speed: the loop never ends, so --max-cycles stops it (exit status 3 by design).
speed() {  # speed LABEL CYCLES [strata-sim options...]
  local label="$1" cycles="$2"
  shift 2
  local out
  out=$("$sim" --json --max-cycles "$cycles" "$@" "$build/rv32/bench/bench_sim_loop.elf" || true)
  python3 - "$label" "$out" <<'PY'
import json, sys
label, line = sys.argv[1], sys.argv[2].strip().splitlines()[-1]
r = json.loads(line)
print(json.dumps({"bench": "sim_speed", "tracing": label, "cycles": r["cycles"],
                  "instructions": r["instructions"], "cpi": r["cpi"],
                  "wall_seconds": r["wall_seconds"], "sim_cycles_per_second": r["sim_cycles_per_second"]}))
PY
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
speed off 20000000
speed fst 2000000 --trace "$tmp/t.fst"
