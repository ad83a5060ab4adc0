#!/usr/bin/env python3
"""strata-compare's report drawn by scripts/plot_compare.py: three figures per workload, each a valid PNG
(signature, IHDR chunk, a sane size) that is not blank.

usage: check_figures.py STRATA_COMPARE PLOT_SCRIPT WORKDIR TRACE
"""
import os
import struct
import subprocess
import sys


def main():
    tool, script, work, trace = sys.argv[1:5]
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("check_figures: skipped: this python3 has no matplotlib (scripts/setup.sh installs it)")
        return
    os.makedirs(work, exist_ok=True)
    report = os.path.join(work, "report.json")
    subprocess.run([tool, trace, "--quiet", "--json", report], check=True, capture_output=True)
    out = subprocess.run([sys.executable, script, report, "--out-dir", os.path.join(work, "fig")], check=True,
                         capture_output=True, text=True).stdout.split()
    stem = os.path.splitext(os.path.basename(trace))[0]
    want = {f"{stem}-memory.png", f"{stem}-min-capacity.png", f"{stem}-occupancy.png"}
    if {os.path.basename(p) for p in out} != want:
        sys.exit(f"check_figures: wrote {out}, expected {sorted(want)}")
    for path in out:
        data = open(path, "rb").read()
        if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
            sys.exit(f"check_figures: {path} is not a PNG")
        width, height = struct.unpack(">II", data[16:24])
        if not (400 <= width <= 4000 and 200 <= height <= 4000) or len(data) < 10000:
            sys.exit(f"check_figures: {path}: {width}x{height}, {len(data)} bytes: not a figure")
    print(f"check_figures: {len(out)} PNG figures")


if __name__ == "__main__":
    main()
