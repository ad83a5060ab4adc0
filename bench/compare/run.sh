#!/usr/bin/env bash
# Wall time of strata-compare on each shared trace: every contender (Strata's allocator on the host, with and
# without compaction, and the ten GPU policy rows on gpu-emu) at 1.0x, with the minimum-capacity search. One
# JSON line per trace: wall seconds, the replays the search ran, and the headline ratios. With --figures DIR
# the reports are also drawn (scripts/plot_compare.py, Debian's matplotlib) into DIR, as in docs/comparison.md.
# Usage: run.sh BUILD_DIR [--figures DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build=${1:?usage: run.sh BUILD_DIR [--figures DIR]}
figures=""
[ "${2:-}" = "--figures" ] && figures=${3:?--figures needs a directory}
tool="$build/host/compare/strata-compare"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for trace in "$root"/tests/data/traces/*.csv; do
  name=$(basename "$trace" .csv)
  echo "bench/compare: $name" >&2
  start=$(date +%s.%N)
  "$tool" "$trace" --quiet --no-table --json "$work/$name.json"
  end=$(date +%s.%N)
  python3 - "$work/$name.json" "$start" "$end" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
w = report["workloads"][0]
runs = w["runs"]
found = [r for r in runs if r["min_capacity"] and r["min_capacity"]["found"]]
best = {fam: min((r for r in found if r["family"] == fam), key=lambda r: r["min_capacity"]["bytes"], default=None)
        for fam in ("strata", "gpu")}
print(json.dumps({
    "bench": "compare_wall", "trace": w["name"], "buffers": w["buffers"], "max_load_bytes": w["max_load_bytes"],
    "contenders": len(runs), "replays": len(runs) + sum(r["min_capacity"]["probes"] for r in runs if r["min_capacity"]),
    "wall_seconds": round(float(sys.argv[3]) - float(sys.argv[2]), 3),
    "completed_at_1x": [r["contender"] for r in runs if r["completed"]],
    "strata_min_ratio": round(best["strata"]["min_capacity"]["ratio"], 4) if best["strata"] else None,
    "best_gpu": best["gpu"]["contender"] if best["gpu"] else None,
    "best_gpu_min_ratio": round(best["gpu"]["min_capacity"]["ratio"], 4) if best["gpu"] else None,
}))
PY
  if [ -n "$figures" ]; then
    /usr/bin/python3 "$root/scripts/plot_compare.py" "$work/$name.json" --out-dir "$figures" >&2
    cp "$work/$name.json" "$figures/$name.json"
  fi
done
