"""The programs of bench/jax-run/run.sh: an int8 layer (its dot on the matrix unit), a float MLP forward (all on the
host fallback today) and tests/xla/run_programs.py's fragmenting program on the smallest sim device (the firmware
placement compacts). One JSON line per program and placement."""
import json
import sys
import time

import numpy as np

import run_programs
import strata.jax


def programs():
    yield "int8_layer_128x256x128", run_programs.int8_matmul, run_programs.int8_matmul_args(128, 256, 128), {}
    params, x = run_programs.mlp_args(batch=64, d_in=128, hidden=256, d_out=64)
    yield "mlp_forward_64x128x256x64", run_programs.mlp, (params, x), {}
    yield ("fragmenting_24_rows_2MiB", run_programs.fragmenting, run_programs.fragmenting_args(24),
           {"compiler_options": run_programs.FRAGMENTING_OPTIONS, "hbm_capacity_bytes": 2 << 20})


def main():
    for name, fn, args, options in programs():
        for allocation in ("firmware", "xla"):
            print(f"bench/jax-run: {name} {allocation}", file=sys.stderr)
            start = time.perf_counter()
            _, r = strata.jax.run(fn, *args, allocation=allocation, **options)
            wall = time.perf_counter() - start  # the compile included
            print(json.dumps({
                "bench": "jax_run", "program": name, "allocation": allocation, "cycles": r["cycles"],
                "wall_seconds": round(wall, 3), "run_seconds": round(r["wall_seconds"], 3),
                "sim_cycles_per_second": round(r["cycles"] / r["wall_seconds"]) if r["wall_seconds"] else None,
                "utilization": round(r["mxu_utilization"], 4),
                "utilization_in_gemms": round(r["mxu_utilization_in_gemms"], 4),
                "host_ops": int(np.sum(list(r["host_ops"].values()))), "units": r["units"],
                "peak_hbm_bytes": r["peak_hbm_bytes"], "xla_peak_bytes": r["xla_peak_bytes"],
                "live_bytes_lower_bound": r["live_bytes_lower_bound"], "num_allocs": r["num_allocs"],
                "compactions": r["compactions"], "compaction_cycles": r["compaction_cycles"],
            }))


if __name__ == "__main__":
    main()
