#!/usr/bin/env bash
# Simulation speed with quiescent-cycle skipping on and off (STRATA_SIM_FAST_FORWARD=1 / 0), each pair
# run back to back so that a shared machine's drift falls on both alike. Cycle counts are the same
# both ways (tests: sim.fast_forward.*); only wall time differs. Workloads:
#   busy_core   the compute loop (bench_sim_loop): core busy, DMA and matrix unit idle, 20 M cycles
#   idle_chip   the runtime firmware waiting for doorbells: the whole chip idle, 20 M cycles
#   gemm_512    strata-sim gemm 512^3 at N = 16: matrix unit and DMA busy
#   main_job    strata-mlp as scripts/run.sh runs it (24 requests, waveform window, allocation trace)
#   bert_replay strata-replay bert_base.csv --backend sim --capacity 1.0x --compaction on-oom (about
#               5 minutes a run; SIM_BENCH_BERT=0 leaves it out)
# usage: bench/sim/run.sh [BUILD_DIR]   (stdout: one JSON object per line; progress on stderr)
# The A/B comparison of two builds (a change to the model's C++) is bench/sim/ab_speed.sh.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"  # absolute: the main job runs in its own directory
sim="$build/sim/strata-sim"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 "$here/../gemm/make_npy.py" "$work/a.npy" 512 512 1
python3 "$here/../gemm/make_npy.py" "$work/b.npy" 512 512 2

# one WORKLOAD FAST: runs it, prints {"bench":"sim_speed","workload",...,"fast_forward",...}
one() {
  local workload="$1" ff="$2" cycles="" skipped=null start end
  echo "bench sim: $workload fast_forward=$ff" >&2
  start=$(date +%s.%N)
  case "$workload" in
    busy_core | idle_chip)
      local elf="$build/rv32/bench/bench_sim_loop.elf"
      [ "$workload" = idle_chip ] && elf="$build/rv32/apps/runtime/runtime.elf"
      STRATA_SIM_FAST_FORWARD=$ff "$sim" --json --max-cycles 20000000 "$elf" >"$work/out" || true ;;
    gemm_512)
      STRATA_SIM_FAST_FORWARD=$ff "$sim" gemm --a "$work/a.npy" --b "$work/b.npy" --out "$work/c.npy" --json \
        >"$work/out" ;;
    main_job)
      (cd "$work" && STRATA_SIM_FAST_FORWARD=$ff "$build/examples/strata-mlp" --quiet \
        --alloc-trace "$work/allocs.csv" --report "$work/report.json" --trace "$work/mlp.fst" >/dev/null)
      python3 -c 'import json,sys; print(json.dumps({"cycles": json.load(open(sys.argv[1]))["device_cycles"]}))' \
        "$work/report.json" >"$work/out" ;;
    bert_replay)
      STRATA_SIM_FAST_FORWARD=$ff "$build/host/replay/strata-replay" "$root/tests/data/traces/bert_base.csv" \
        --backend sim --capacity 1.0x --compaction on-oom --json >"$work/out" 2>/dev/null ;;
  esac
  end=$(date +%s.%N)
  python3 - "$workload" "$ff" "$start" "$end" "$work/out" <<'PY'
import json, sys
workload, ff, start, end, out = sys.argv[1], sys.argv[2] == "1", float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
r = json.loads(open(out).read().strip().splitlines()[-1])
cycles = r.get("device_cycles", r.get("run_cycles", r.get("cycles")))
wall = end - start
line = {"bench": "sim_speed", "workload": workload, "fast_forward": ff, "device_cycles": cycles,
        "wall_seconds": round(wall, 3), "sim_cycles_per_second": round(cycles / wall)}
if "skipped_cycles" in r:
    line["skipped_cycles"] = r["skipped_cycles"]
print(json.dumps(line))
PY
}

workloads=(busy_core idle_chip gemm_512 main_job)
[ "${SIM_BENCH_BERT:-1}" = 0 ] || workloads+=(bert_replay)
for w in "${workloads[@]}"; do
  on=$(one "$w" 1)
  off=$(one "$w" 0)
  echo "$on"
  echo "$off"
  python3 - "$on" "$off" <<'PY'
import json, sys
on, off = json.loads(sys.argv[1]), json.loads(sys.argv[2])
if on["device_cycles"] != off["device_cycles"]:
    sys.exit(f"bench sim: {on['workload']}: device cycles differ with the fast path on and off")
print(json.dumps({"bench": "sim_speed_fast_forward", "workload": on["workload"], "device_cycles": on["device_cycles"],
                  "wall_seconds_on": on["wall_seconds"], "wall_seconds_off": off["wall_seconds"],
                  "speedup": round(off["wall_seconds"] / on["wall_seconds"], 3)}))
PY
done
