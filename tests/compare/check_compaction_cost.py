#!/usr/bin/env python3
"""strata-compare's host estimate of compaction cycles against the cycle-level model, on workloads the cost model was
not fitted on, for every HBM preset: the same moves and bytes, and cycles within the bound the estimate prints.

The workloads are bench/compaction/cost_model.py's (one compaction sliding n buffers of about S bytes), with sizes and
a seed outside its fit set; their capacities are not multiples of HBM3's 512 KiB rows, which the sim backend must
round up to.

usage: check_compaction_cost.py STRATA_REPLAY STRATA_COMPARE SOURCE_DIR WORK_DIR
"""
import importlib.util
import json
import os
import re
import subprocess
import sys

replay, compare, source, work = sys.argv[1:5]
spec = importlib.util.spec_from_file_location("cost_model", os.path.join(source, "bench", "compaction",
                                                                          "cost_model.py"))
cost_model = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cost_model)
os.makedirs(work, exist_ok=True)


def run(args):
    p = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        sys.exit(f"check_compaction_cost: {args} exited {p.returncode}:\n{p.stderr}")
    return json.loads(p.stdout)


presets = re.search(r"--hbm ([A-Za-z0-9|]+)\]", subprocess.run([replay, "--help"], capture_output=True,
                                                               text=True).stdout).group(1).split("|")
checks = 0
for preset in presets:
    for n, size in ((48, 40 << 10), (10, 3 << 20)):
        path = os.path.join(work, f"{preset}_{n}x{size}.csv")
        cost_model.trace(path, n, size, 11)
        model = run([replay, path, "--backend", "sim", "--hbm", preset, "--capacity", "1.0x", "--compaction", "on-oom",
                     "--json"])
        report = run([compare, path, "--contenders", "strata", "--hbm", preset, "--capacity", "1.0x", "--no-search",
                      "--no-advice", "--quiet", "--json", "-"])
        cost = report["workloads"][0]["runs"][0]["cost"]
        what = f"{preset}, {n} moves of ~{size} B"
        if (cost["moves"], cost["bytes_moved"]) != (model["device_moves"], model["device_bytes_moved"]):
            sys.exit(f"check_compaction_cost: {what}: host moves/bytes {cost['moves']}/{cost['bytes_moved']}, model "
                     f"{model['device_moves']}/{model['device_bytes_moved']}")
        if cost["cycles_source"] != "estimate" or not 0 < cost["cycles_error_bound"] < 0.2:
            sys.exit(f"check_compaction_cost: {what}: no estimate with a bound: {cost}")
        error = cost["compaction_cycles"] / model["compaction_cycles"] - 1
        print(f"{what}: estimate {cost['compaction_cycles']}, model {model['compaction_cycles']}, error {error:+.2%} "
              f"(bound {cost['cycles_error_bound']:.1%})")
        if abs(error) > cost["cycles_error_bound"]:
            sys.exit(f"check_compaction_cost: {what}: error {error:+.2%} beyond the bound")
        checks += 1
print(f"check_compaction_cost: {checks} estimates within their bounds")
