#!/usr/bin/env bash
# Wall time of strata-compare on each shared trace and on a generated 100k-buffer trace (gen_trace.py, seed 1: mixed
# sizes and lifetimes like the shared traces): every contender (Strata's allocator on the host, with and without
# compaction, and the ten GPU policy rows on gpu-emu) at 1.0x, with the minimum-capacity search. One JSON line per
# trace: wall and CPU seconds, the replays the search ran, and the headline ratios. With --baseline TOOL another
# strata-compare (e.g. one built from an older commit) runs each trace too, in the same run: a second line per trace
# with "tool": "baseline" and the current tool's speedup over it. --large N sets the generated trace's buffers
# (0: none). With --figures DIR the shared traces' reports are also drawn (scripts/plot_compare.py, Debian's matplotlib) into DIR,
# as in docs/comparison.md.
# Usage: run.sh BUILD_DIR [--figures DIR] [--baseline TOOL] [--large N]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build=${1:?usage: run.sh BUILD_DIR [--figures DIR] [--baseline TOOL] [--large N]}
shift
figures="" baseline="" large=100000
while [ $# -gt 0 ]; do
  case "$1" in
    --figures) figures=${2:?--figures needs a directory}; shift 2 ;;
    --baseline) baseline=${2:?--baseline needs a strata-compare}; shift 2 ;;
    --large) large=${2:?--large needs a number of buffers}; shift 2 ;;
    *) echo "run.sh: unknown option '$1' (usage: run.sh BUILD_DIR [--figures DIR] [--baseline TOOL] [--large N])" >&2
       exit 2 ;;
  esac
done
case "$large" in '' | *[!0-9]*) echo "run.sh: --large wants a number of buffers, not '$large'" >&2; exit 2 ;; esac
tool="$build/host/compare/strata-compare"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
traces=("$root"/tests/data/traces/*.csv)
if [ "$large" -gt 0 ]; then
  python3 "$root/bench/compare/gen_trace.py" --buffers "$large" --seed 1 --out "$work/generated_$large.csv"
  traces+=("$work/generated_$large.csv")
fi
# One replay of strata-compare: its JSON line on stdout (wall from the clock, CPU from the kernel's accounting of the
# child: on a loaded machine CPU time is what a quiet one would take as wall time).
measure() {  # TOOL LABEL TRACE REPORT
  python3 - "$@" <<'PY'
import json, os, subprocess, sys, time
tool, label, trace, path = sys.argv[1:5]
start = time.monotonic()
before = os.times()
subprocess.run([tool, trace, "--quiet", "--no-table", "--cuda", "off", "--json", path], check=True)
after = os.times()
wall = time.monotonic() - start
cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
report = json.load(open(path))
w = report["workloads"][0]
runs = w["runs"]
found = [r for r in runs if r["min_capacity"] and r["min_capacity"]["found"]]
best = {fam: min((r for r in found if r["family"] == fam), key=lambda r: r["min_capacity"]["bytes"], default=None)
        for fam in ("strata", "gpu")}
print(json.dumps({
    "bench": "compare_wall", "tool": label, "trace": w["name"], "buffers": w["buffers"],
    "max_load_bytes": w["max_load_bytes"], "contenders": len(runs),
    "replays": len(runs) + sum(r["min_capacity"]["probes"] for r in runs if r["min_capacity"]),
    "wall_seconds": round(wall, 3), "cpu_seconds": round(cpu, 3),
    "slowest": max(runs, key=lambda r: r["wall_seconds"])["contender"],
    "completed_at_1x": [r["contender"] for r in runs if r["completed"]],
    "strata_min_ratio": round(best["strata"]["min_capacity"]["ratio"], 4) if best["strata"] else None,
    "best_gpu": best["gpu"]["contender"] if best["gpu"] else None,
    "best_gpu_min_ratio": round(best["gpu"]["min_capacity"]["ratio"], 4) if best["gpu"] else None,
}))
PY
}
for trace in "${traces[@]}"; do
  name=$(basename "$trace" .csv)
  echo "bench/compare: $name" >&2
  line=$(measure "$tool" current "$trace" "$work/$name.json")
  if [ -n "$baseline" ]; then
    echo "bench/compare: $name (baseline)" >&2
    base=$(measure "$baseline" baseline "$trace" "$work/$name.baseline.json")
    echo "$base"
    # The speedup from CPU seconds (wall on a shared machine measures the other jobs too).
    line=$(python3 -c 'import json, sys; a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2]);
a["cpu_speedup_over_baseline"] = round(b["cpu_seconds"] / max(a["cpu_seconds"], 1e-3), 2); print(json.dumps(a))' \
      "$line" "$base")
  fi
  echo "$line"
  if [ -n "$figures" ] && [ "$trace" != "$work/generated_$large.csv" ]; then
    /usr/bin/python3 "$root/scripts/plot_compare.py" "$work/$name.json" --out-dir "$figures" >&2
    cp "$work/$name.json" "$figures/$name.json"
  fi
done
