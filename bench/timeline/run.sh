#!/usr/bin/env bash
# Timeline cost (the open option timeline, docs/timelines.md): simulated cycles/s of the same run with the
# timeline on and off, back to back (ROUNDS pairs, default 3), and the file's size per million device cycles.
# Workloads: the main job's first 3 requests (strata-mlp: GEMMs, many DMA rows), a 1024^3 GEMM on strata-sim
# (strata-sim gemm --timeline: DMA rows, matrix unit and core stretches) and a 64 MiB compaction
# (strata-replay needs_compaction.csv on sim: one long HBM->HBM copy).
# usage: bench/timeline/run.sh [BUILD_DIR] [ROUNDS]   (stdout: one JSON object per line; progress on stderr)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
rounds="${2:-3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

one() {  # WORKLOAD ON(0/1)
  local workload="$1" on="$2" tl=() start end cycles
  [ "$on" = 1 ] && tl=(--timeline "$work/t.json")
  rm -f "$work/t.json"
  echo "bench timeline: $workload timeline=$on" >&2
  start=$(date +%s.%N)
  case "$workload" in
    main_job)
      (cd "$work" && "$build/examples/strata-mlp" --steps 3 --quiet --trace none --report "$work/r.json" "${tl[@]}" >/dev/null)
      cycles=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["device_cycles"])' "$work/r.json") ;;
    sim_gemm)  # strata-sim gemm --timeline: a bare firmware run (DMA rows, matrix unit, core), 1024^3 at N = 16
      "$build/sim/strata-sim" gemm --a "$work/a.npy" --b "$work/b.npy" --out "$work/c.npy" --json "${tl[@]}" >"$work/r.json"
      cycles=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cycles"])' "$work/r.json") ;;
    compaction)
      "$build/host/replay/strata-replay" "$root/tests/compare/data/needs_compaction.csv" --backend sim --capacity 1.0x \
        --compaction on-oom --json "${tl[@]}" >"$work/r.json"
      cycles=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["device_cycles"])' "$work/r.json") ;;
  esac
  end=$(date +%s.%N)
  local size=0
  [ -f "$work/t.json" ] && size=$(stat -c %s "$work/t.json")
  python3 -c '
import json, sys
w, on, cycles, t0, t1, size = sys.argv[1], sys.argv[2] == "1", int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
line = {"bench": "timeline", "workload": w, "timeline": on, "device_cycles": cycles, "wall_seconds": round(t1 - t0, 3),
        "sim_cycles_per_second": round(cycles / (t1 - t0))}
if on:
    line["file_bytes"] = size
    line["file_bytes_per_million_cycles"] = round(size / cycles * 1e6)
print(json.dumps(line))' "$workload" "$on" "$cycles" "$start" "$end" "$size"
}

python3 "$root/bench/gemm/make_npy.py" "$work/a.npy" 1024 1024 1
python3 "$root/bench/gemm/make_npy.py" "$work/b.npy" 1024 1024 2
for w in main_job sim_gemm compaction; do
  for ((i = 1; i <= rounds; ++i)); do
    one "$w" 1
    one "$w" 0
  done
done | tee "$work/runs.jsonl"
python3 - "$work/runs.jsonl" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
for w in sorted({r["workload"] for r in runs}):
    on = [r for r in runs if r["workload"] == w and r["timeline"]]
    off = [r for r in runs if r["workload"] == w and not r["timeline"]]
    if {r["device_cycles"] for r in on + off} != {on[0]["device_cycles"]}:
        sys.exit(f"bench timeline: {w}: the timeline changed the device cycles")
    ratios = [a["wall_seconds"] / b["wall_seconds"] for a, b in zip(on, off)]
    print(json.dumps({"bench": "timeline_summary", "workload": w, "device_cycles": on[0]["device_cycles"],
                      "median_wall_ratio_on_over_off": round(statistics.median(ratios), 3),
                      "file_bytes_per_million_cycles": on[0]["file_bytes_per_million_cycles"]}))
PY
