#!/usr/bin/env bash
# Simulator speed, A against B: simulated cycles per second of two strata-sim binaries (say, before and
# after a change to the model's C++), run in turn A B A B ... so that drift of a shared machine's speed
# falls on both alike. Workloads: the GEMM firmware on an N^3 product (N = AB_GEMM_N, default 512; DMA, HBM
# bridge and matrix unit busy) and the first 4 M cycles of the allocator benchmark firmware (control core and
# SMEM busy). Each run's CPU time (user + system, bash's `time`) is recorded beside its wall clock: on a
# shared machine the CPU-time ratio is the figure to quote.
# usage: bench/sim/ab_speed.sh SIM_A APPS_A SIM_B APPS_B [ROUNDS]
#   APPS_*: the firmware images' directory of that build (BUILD/rv32/apps: gemm/gemm.elf,
#   alloc_bench/alloc_bench.elf). Extra options for both binaries: AB_SIM_ARGS (e.g. "--mxu-n 16").
# stdout: one JSON line per run, then one summary line per workload with the medians and the medians of the
# pairwise ratios A/B (simulated cycles/s and CPU seconds); progress on stderr.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[ $# -ge 4 ] || { sed -n 2,10p "${BASH_SOURCE[0]}" >&2; exit 2; }
sim_a="$1" apps_a="$2" sim_b="$3" apps_b="$4" rounds="${5:-5}"
read -r -a extra <<<"${AB_SIM_ARGS:-}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
gemm_n="${AB_GEMM_N:-512}"
python3 "$here/../gemm/make_npy.py" "$work/a.npy" "$gemm_n" "$gemm_n" 1
python3 "$here/../gemm/make_npy.py" "$work/b.npy" "$gemm_n" "$gemm_n" 2
TIMEFORMAT='%U %S'

one() {  # LABEL SIM APPS WORKLOAD: prints {"side", "workload", "sim_cycles_per_second", "cpu_seconds", ...}
  local side="$1" sim="$2" apps="$3" workload="$4"
  case "$workload" in
    gemm) { time "$sim" gemm "${extra[@]}" --firmware "$apps/gemm/gemm.elf" --a "$work/a.npy" --b "$work/b.npy" \
              --out "$work/c.npy" --json >"$work/out" 2>/dev/null; } 2>"$work/cpu" ;;
    # The first 4 M cycles (the whole benchmark is 13 M): --max-cycles ends it with exit status 3.
    alloc) { time "$sim" "${extra[@]}" --json --max-cycles 4000000 "$apps/alloc_bench/alloc_bench.elf" \
               >"$work/out" 2>/dev/null || true; } 2>"$work/cpu" ;;
  esac
  python3 -c '
import json, sys
r = json.loads(open(sys.argv[3]).read().strip().splitlines()[-1])
user, system = (float(x) for x in open(sys.argv[4]).read().split())
print(json.dumps({"bench": "sim_ab_speed", "side": sys.argv[1], "workload": sys.argv[2],
                  "cycles": r.get("run_cycles", r.get("cycles")), "wall_seconds": r["wall_seconds"],
                  "cpu_seconds": round(user + system, 3), "sim_cycles_per_second": r["sim_cycles_per_second"]}))' \
    "$side" "$workload" "$work/out" "$work/cpu"
}

for workload in gemm alloc; do
  for ((i = 1; i <= rounds; ++i)); do
    echo "ab_speed: $workload round $i/$rounds" >&2
    one A "$sim_a" "$apps_a" "$workload"
    one B "$sim_b" "$apps_b" "$workload"
  done
done | tee "$work/runs.jsonl"
python3 - "$work/runs.jsonl" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
for w in sorted({r["workload"] for r in runs}):
    a = [r["sim_cycles_per_second"] for r in runs if r["workload"] == w and r["side"] == "A"]
    b = [r["sim_cycles_per_second"] for r in runs if r["workload"] == w and r["side"] == "B"]
    ratios = [x / y for x, y in zip(a, b)]
    cpu = [x["cpu_seconds"] / y["cpu_seconds"] for x, y in
           zip([r for r in runs if r["workload"] == w and r["side"] == "A"],
               [r for r in runs if r["workload"] == w and r["side"] == "B"])]
    print(json.dumps({"bench": "sim_ab_speed_summary", "workload": w, "rounds": len(ratios),
                      "median_a": statistics.median(a), "median_b": statistics.median(b),
                      "median_ratio_a_over_b": round(statistics.median(ratios), 4),
                      "min_ratio": round(min(ratios), 4), "max_ratio": round(max(ratios), 4),
                      "median_cpu_ratio_a_over_b": round(statistics.median(cpu), 4),
                      "min_cpu_ratio": round(min(cpu), 4), "max_cpu_ratio": round(max(cpu), 4)}))
PY
