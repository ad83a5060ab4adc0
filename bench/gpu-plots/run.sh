#!/usr/bin/env bash
# The picture of each GPU policy's memory over time on one trace (docs/images/gpu-policies-resnet50-memory.png,
# in docs/gpu-policies.md): resnet50.csv at 1.0x of its max load, 64 KiB pages, the nine policies, replayed by
# strata-compare and drawn by scripts/plot_compare.py with Debian's matplotlib. One JSON line: the image and
# its size. Usage: run.sh BUILD_DIR
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build=${1:?usage: run.sh BUILD_DIR}
trace="$root/tests/data/traces/resnet50.csv"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/host/compare/strata-compare" "$trace" --capacity 1.0x --option page_bytes=65536 --no-search \
  --contenders jax,jax-growth,jax-platform,jax-async,tf,tf-growth,tf-async,torch,torch-expandable \
  --quiet --no-table --json "$work/report.json"
image=$(/usr/bin/python3 "$root/scripts/plot_compare.py" "$work/report.json" --out-dir "$root/docs/images" \
          --prefix gpu-policies- --figures memory)
python3 -c 'import json, os, sys; print(json.dumps({"bench": "gpu_plots", "trace": "resnet50.csv", "capacity": "1.0x",
    "page_bytes": 65536, "image": os.path.relpath(sys.argv[1], sys.argv[2]), "bytes": os.path.getsize(sys.argv[1])}))' \
  "$image" "$root"
