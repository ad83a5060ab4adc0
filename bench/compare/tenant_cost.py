#!/usr/bin/env python3
"""What a strata-compare --tenant run costs, one build against another: for each run (its tenants comma-separated,
POLICY:TRACE,POLICY:TRACE,...) the best wall time of --repeat runs of each tool and, with --callgrind, the
instructions each executes (valgrind --tool=callgrind: stable from run to run, unlike wall time on a shared machine).

    python3 bench/compare/tenant_cost.py --baseline OLD/strata-compare --tool NEW/strata-compare --callgrind \\
        jax:A.csv,tf:B.csv torch:A.csv,jax-async:A.csv,tf:C.csv -- --option page_bytes=4096

One JSON line per run: {"bench": "tenant_cost", "run", "baseline_wall_s", "tool_wall_s", "wall_ratio" (tool over
baseline), and with --callgrind "baseline_instructions", "tool_instructions", "instruction_ratio"}. Extra
strata-compare options go after --. Exit status 2 on bad usage or a tool that failed. Nothing runs through a shell.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from same_reports import split_extra, tenant_files, tenant_run_name, workload_args  # noqa: E402 (after the path)

COLLECTED = re.compile(r"Collected : (\d+)")


def argv_of(tool, run, extra):
    return [tool] + workload_args(run, True) + ["--cuda", "off", "--jobs", "1", "--json", os.devnull] + extra


def check(done, argv):
    if done.returncode not in (0, 1):  # 1: a contender failed at the capacity, a report all the same
        sys.stderr.write(f"tenant_cost: {' '.join(argv)} exited {done.returncode}: {done.stderr}")
        sys.exit(2)


def wall(tool, run, extra, repeat):
    argv = argv_of(tool, run, extra)
    best = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        seconds = time.perf_counter() - t0
        check(done, argv)
        best = seconds if best is None else min(best, seconds)
    return best


def instructions(tool, run, extra, work):
    out = os.path.join(work, "callgrind.out")
    argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"] + argv_of(tool, run, extra)
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    check(done, argv)
    found = COLLECTED.search(done.stderr)
    if not found:
        sys.stderr.write(f"tenant_cost: callgrind reported no instruction count: {done.stderr[-500:]}")
        sys.exit(2)
    return int(found.group(1))


def main():
    argv, extra = split_extra(sys.argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="the strata-compare before the change")
    parser.add_argument("--tool", required=True, help="the strata-compare after it")
    parser.add_argument("--repeat", type=int, default=3, help="wall-time runs of each tool per run (the best counts)")
    parser.add_argument("--callgrind", action="store_true", help="also count instructions under valgrind")
    parser.add_argument("runs", nargs="+", help="tenant runs: POLICY:TRACE,POLICY:TRACE,...")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat wants a count >= 1")
    for tool in (args.baseline, args.tool):
        if not (os.path.isfile(tool) and os.access(tool, os.X_OK)):
            parser.error(f"'{tool}' is not an executable file")
    if args.callgrind and shutil.which("valgrind") is None:
        parser.error("--callgrind needs valgrind")
    for run in args.runs:
        files = tenant_files(run)
        if files is None or len(files) < 2:
            parser.error(f"'{run}' is not POLICY:TRACE,POLICY:TRACE,... (two tenants at least)")
        for path in files:
            if not os.path.isfile(path):
                parser.error(f"'{path}' is not a file")
    with tempfile.TemporaryDirectory() as work:
        for run in args.runs:
            line = {"bench": "tenant_cost", "run": tenant_run_name(run), "options": " ".join(extra)}
            line["baseline_wall_s"] = round(wall(args.baseline, run, extra, args.repeat), 4)
            line["tool_wall_s"] = round(wall(args.tool, run, extra, args.repeat), 4)
            line["wall_ratio"] = round(line["tool_wall_s"] / line["baseline_wall_s"], 3)
            if args.callgrind:
                line["baseline_instructions"] = instructions(args.baseline, run, extra, work)
                line["tool_instructions"] = instructions(args.tool, run, extra, work)
                line["instruction_ratio"] = round(line["tool_instructions"] / line["baseline_instructions"], 3)
            print(json.dumps(line), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
