#!/usr/bin/env bash
# Wall time of strata-fit: each shared trace, then the crafted workloads of tests/fit (whose failures run the knob
# search), over the 10 default devices x every policy (12), with the minimum-capacity search and the search of the
# frameworks' settings for every failing cell. One JSON line per workload: wall seconds, cells, failing cells, the
# settings tried, how many failures a setting saves, wall and CPU seconds (the CPU time is the steadier figure on
# a shared machine). Target: <= 30 s per trace on the 2-core machine.
# Usage: run.sh BUILD_DIR
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build=${1:?usage: run.sh BUILD_DIR}
tool="$build/host/fit/strata-fit"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for workload in "$root"/tests/data/traces/*.csv "$root"/tests/fit/data/{fits_80g_not_40g,jax_fraction,vllm_41268}.csv; do
  name=$(basename "$workload" .csv)
  echo "bench/fit: $name" >&2
  python3 - "$tool" "$workload" "$work/$name.json" <<'PY'
import json, resource, subprocess, sys, time
tool, workload, out = sys.argv[1:4]
start = time.monotonic()
subprocess.run([tool, workload, "--quiet", "--no-table", "--json", out], check=True)
wall = time.monotonic() - start
cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
r = json.load(open(out))
cells = r["cells"]
failing = [c for c in cells if not c["fits"]]
print(json.dumps({
    "bench": "fit_wall", "workload": r["workload"], "buffers": r["buffers"], "max_load_bytes": r["max_load_bytes"],
    "devices": len(r["devices"]), "policies": len(r["policies"]), "cells": len(cells), "failing": len(failing),
    "settings_tried": sum(c["fix"]["tried"] for c in failing),
    "saved": sum(1 for c in failing if c["fix"]["found"]),
    "capacity_no_setting": sum(1 for c in failing if c["fix"]["capacity"]),
    "wall_seconds": round(wall, 3), "cpu_seconds": round(cpu.ru_utime + cpu.ru_stime, 3),
}))
PY
done
