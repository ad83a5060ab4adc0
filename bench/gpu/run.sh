#!/usr/bin/env bash
# GPU policies on the emulated GPU: every shared trace under every policy at 1.0x and 1.5x of its max load
# (64 KiB pages so that small traces are not all page rounding), through strata-replay --backend gpu-emu.
# One JSON line per run: outcome (failed allocations, first OOM and its kind), peak reserved, driver calls,
# host wall time per replayed event. First, strata-bench-gpu-policy: ns per alloc+free pair of every policy and
# of the firmware allocator on one request stream, and strata-bench-cuda-calls: the real GPU's calls, where
# there is one. Usage: run.sh BUILD_DIR
set -euo pipefail
build="$1"
replay="$build/host/replay/strata-replay"
traces="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/tests/data/traces"
policies="jax jax-growth jax-platform jax-async tf tf-growth tf-async torch torch-expandable"
# ns per alloc+free pair of each policy beside the firmware allocator, in one process.
"$build/bench/gpu/strata-bench-gpu-policy"
# The real GPU's calls as the cuda backend makes them (one "skipped" line where there is no GPU; absent in a
# build without the CUDA toolkit).
if [ -x "$build/bench/gpu/strata-bench-cuda-calls" ]; then
  "$build/bench/gpu/strata-bench-cuda-calls"
fi
for t in "$traces"/*.csv; do
  for cap in 1.0x 1.5x; do
    for p in $policies; do
      echo "bench gpu: $(basename "$t") $p $cap" >&2
      out=$("$replay" "$t" --backend gpu-emu --policy "$p" --capacity "$cap" --option page_bytes=65536 --json || true)
      python3 - "$cap" "$out" <<'PY'
import json, sys
cap, line = sys.argv[1], sys.argv[2].strip().splitlines()[-1]
r = json.loads(line)
print(json.dumps({"bench": "gpu_replay", "trace": r["trace"], "policy": r["policy"], "capacity": cap,
                  "total_bytes": r["total_bytes"], "failed_allocs": r["failed_allocs"],
                  "first_oom_event": r["first_oom_event"], "first_oom_kind": r["first_oom_kind"],
                  "oom_capacity": r["oom_capacity"], "oom_cap": r["oom_cap"],
                  "oom_fragmentation": r["oom_fragmentation"], "peak_pool_bytes": r["peak_pool_bytes"],
                  "device_allocs": r["device_allocs"], "device_syncs": r["device_syncs"], "maps": r["maps"],
                  "wall_seconds": r["wall_seconds"],
                  "ns_per_event": round(r["wall_seconds"] * 1e9 / max(r["events"], 1), 1)}))
PY
    done
  done
done
