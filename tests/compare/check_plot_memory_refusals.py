#!/usr/bin/env python3
"""scripts/plot_memory.py given what strata-compare writes (--timeline, --json, --csv) says which file it reads
and which script draws the one it was given, exits 1 and writes no picture (docs/timelines.md).

usage: check_plot_memory_refusals.py STRATA_COMPARE PLOT_MEMORY WORKLOAD WORKDIR"""
import os
import shutil
import subprocess
import sys


def main():
    tool, plot, workload, work = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    files = {k: os.path.join(work, f"cmp.{k}") for k in ("timeline", "json", "csv")}
    subprocess.run([tool, workload, "--contenders", "strata,jax", "--quiet", "--no-table", "--timeline",
                    files["timeline"], "--json", files["json"], "--csv", files["csv"]], check=True)
    expect = {  # what the message must name for each kind of file
        "timeline": ["a strata-compare --timeline file", "no buffer addresses", "scripts/plot_timeline.py"],
        "json": ["a strata-compare --json report", "scripts/plot_compare.py"],
        "csv": ["a strata-compare --csv table", "scripts/plot_compare.py"],
    }
    failures = 0
    for kind, path in files.items():
        png = os.path.join(work, f"{kind}.png")
        p = subprocess.run([sys.executable, plot, path, png], capture_output=True, text=True)
        message = p.stderr.strip().replace(work + "/", "")
        missing = [w for w in expect[kind] + ["strata-replay --timeline"] if w not in message]
        if p.returncode != 1 or missing or os.path.exists(png):
            print(f"FAIL {kind}: exit {p.returncode}, picture {'written' if os.path.exists(png) else 'not written'}, "
                  f"message lacks {missing}: {message}")
            failures += 1
        else:
            print(f"{kind}: {message.split(';')[0]}")
    print(f"check_plot_memory_refusals: {3 - failures} of 3 files named")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
