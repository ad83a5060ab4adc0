#!/usr/bin/env python3
"""bench/compare/tenant_cost.py times one strata-compare --tenant run against another: the tool against itself gives one
JSON line per run with both wall times and their ratio; a run that is not POLICY:TRACE,POLICY:TRACE and a baseline
that is not a program are refused (exit 2) before anything runs. Usage: check_tenant_cost.py TENANT_COST
STRATA_COMPARE TRACE_A TRACE_B"""
import json
import os
import subprocess
import sys


def fail(message):
    print("check_tenant_cost: FAIL: " + message)
    sys.exit(1)


def run(script, *args):
    return subprocess.run([sys.executable, script, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def main():
    script, tool, a, b = sys.argv[1:5]
    done = run(script, "--baseline", tool, "--tool", tool, "--repeat", "1", f"jax:{a},tf:{b}")
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    if done.returncode != 0 or len(lines) != 1:
        fail(f"the tool against itself: exit {done.returncode}, {done.stdout!r}, {done.stderr!r}")
    line = lines[0]
    want = f"jax:{os.path.basename(a)},tf:{os.path.basename(b)}"
    if line.get("bench") != "tenant_cost" or line.get("run") != want or "baseline_instructions" in line:
        fail(f"the line: {line}")
    if not (line["baseline_wall_s"] > 0 and line["tool_wall_s"] > 0 and line["wall_ratio"] > 0):
        fail(f"the wall times: {line}")

    one = run(script, "--baseline", tool, "--tool", tool, f"jax:{a}")
    if one.returncode != 2 or one.stdout or "two tenants at least" not in one.stderr:
        fail(f"a run of one tenant: exit {one.returncode}, {one.stdout!r}, {one.stderr!r}")
    missing = run(script, "--baseline", os.path.join(os.path.dirname(a), "no-such-tool"), "--tool", tool,
                  f"jax:{a},tf:{b}")
    if missing.returncode != 2 or missing.stdout or "is not an executable file" not in missing.stderr:
        fail(f"a missing baseline: exit {missing.returncode}, {missing.stdout!r}, {missing.stderr!r}")
    print("check_tenant_cost: timed and refused as expected")


if __name__ == "__main__":
    main()
