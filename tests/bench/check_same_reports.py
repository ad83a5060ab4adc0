#!/usr/bin/env python3
"""bench/compare/same_reports.py holds one strata-compare to another: the same tool on both sides is the same on all
three outputs (exit 0); a tool whose reports differ (the same one with the GPU page at 4 KiB) differs on each of
them, with the first differing line named (exit 1); a baseline that is not a program is refused (exit 2) before
anything runs; tenant runs (--tenants) are held alike, and one that names no policy is refused. Usage:
check_same_reports.py SAME_REPORTS STRATA_COMPARE TRACE"""
import json
import os
import subprocess
import sys
import tempfile


def fail(message):
    print("check_same_reports: FAIL: " + message)
    sys.exit(1)


def run(script, *args):
    return subprocess.run([sys.executable, script, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def lines_of(done):
    return [json.loads(line) for line in done.stdout.splitlines()]


def main():
    script, tool, trace = sys.argv[1:4]
    name = os.path.basename(trace)

    same = run(script, "--baseline", tool, "--tool", tool, trace)
    got = lines_of(same)
    if same.returncode != 0 or [(g["trace"], g["output"], g["same"]) for g in got] != [
            (name, o, True) for o in ("table", "json", "csv")]:
        fail(f"the tool against itself: exit {same.returncode}, {got}, {same.stderr}")

    # Tenant runs (--tenants): one run per argument, its tenants comma-separated; a run that is not POLICY:FILE,... is
    # refused before anything runs.
    tenants = f"jax:{trace},tf:{trace}"
    same = run(script, "--baseline", tool, "--tool", tool, "--tenants", tenants)
    got = lines_of(same)
    if same.returncode != 0 or [(g["trace"], g["output"], g["same"]) for g in got] != [
            (f"jax:{name},tf:{name}", o, True) for o in ("table", "json", "csv")]:
        fail(f"a tenant run against itself: exit {same.returncode}, {got}, {same.stderr}")
    bad = run(script, "--baseline", tool, "--tool", tool, "--tenants", trace)
    if bad.returncode != 2 or bad.stdout or "is not POLICY:TRACE" not in bad.stderr:
        fail(f"a tenant run without a policy: exit {bad.returncode}, {bad.stdout!r}, {bad.stderr!r}")

    with tempfile.TemporaryDirectory() as work:
        wrapper = os.path.join(work, "strata-compare-4k")
        with open(wrapper, "w", encoding="utf-8") as f:
            f.write(f"#!{sys.executable}\nimport os, sys\n"
                    f"os.execv({tool!r}, [{tool!r}] + sys.argv[1:] + ['--option', 'page_bytes=4096'])\n")
        os.chmod(wrapper, 0o755)
        differ = run(script, "--baseline", tool, "--tool", wrapper, trace)
        got = lines_of(differ)
        if differ.returncode != 1 or [g["output"] for g in got] != ["table", "json", "csv"] or any(
                g["same"] or "first_difference" not in g for g in got):
            fail(f"a tool with 4 KiB pages: exit {differ.returncode}, {got}, {differ.stderr}")
        json_line = got[1]["first_difference"]
        if "gpu_page_bytes" not in json_line["baseline"] or "4096" not in json_line["tool"]:
            fail(f"the JSON's first difference is not the page size: {json_line}")

        bad = run(script, "--baseline", os.path.join(work, "missing"), "--tool", tool, trace)
        if bad.returncode != 2 or bad.stdout or "is not an executable file" not in bad.stderr:
            fail(f"a missing baseline: exit {bad.returncode}, {bad.stdout!r}, {bad.stderr!r}")

    print("check_same_reports: same, different and refused as expected")


if __name__ == "__main__":
    main()
