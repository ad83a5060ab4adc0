#!/usr/bin/env python3
"""The main job's default waveform follows its first GEMM: the window starts at the cycle the GEMM is issued (the
report's first_gemm_cycle), holds kFirstGemmTraceCycles cycles, and the matrix unit works inside it -- for the
default chip and for another array size and HBM (where the GEMM comes at another cycle). --trace-cycles still
records the absolute window it names.

usage: mlp_trace_window.py STRATA_MLP WORKDIR"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "sim"))
import vcd_scan  # noqa: E402

WINDOW = 12000  # examples/mlp/main.cc kFirstGemmTraceCycles
BUSY = "strata.tpu_top.u_mxu.x_busy_q"
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def run(mlp, work, name, args):
    wave, report = os.path.join(work, name + ".fst"), os.path.join(work, name + ".json")
    p = subprocess.run([mlp, "--steps", "1", "--quiet", "--trace", wave, "--report", report] + args,
                       capture_output=True, text=True)
    check(p.returncode == 0, f"{name}: strata-mlp exited {p.returncode}\n{p.stdout}\n{p.stderr}")
    with open(report) as f:
        r = json.load(f)
    first = last = busy_at = None
    for t, v in vcd_scan.scan(wave, [BUSY]):
        first = t if first is None else first
        last = t
        if busy_at is None and v[BUSY] == 1:
            busy_at = t
    print(f"{name}: report trace_cycles {r['trace_cycles']}, first GEMM issued at {r['first_gemm_cycle']}; "
          f"waveform {first}..{last} ps, matrix unit busy from {busy_at} ps; {p.stdout.strip().splitlines()[-1:]}")
    return r, first, last, busy_at, p.stdout


def main():
    mlp, work = sys.argv[1:3]
    os.makedirs(work, exist_ok=True)
    cycles = {}
    for name, args in (("default", []), ("n32_hbm3", ["--mxu-n", "32", "--hbm", "HBM3"])):
        r, first, last, busy_at, out = run(mlp, work, name, args)
        g = r["first_gemm_cycle"]
        cycles[name] = g
        check(r["trace_cycles"] == [g, g + WINDOW], f"{name}: trace_cycles {r['trace_cycles']}, want [{g}, {g + WINDOW}]")
        check(first == g * 1000, f"{name}: the waveform starts at {first} ps, not at the GEMM's issue {g * 1000} ps")
        check(last is not None and last < (g + WINDOW) * 1000, f"{name}: the waveform ends at {last} ps")
        check(busy_at is not None and first <= busy_at <= last, f"{name}: the matrix unit is never busy in the window")
        check(f"device cycles {g}..{g + WINDOW} = waveform ns: the first GEMM" in out, f"{name}: the summary's waveform line:\n{out}")
    check(cycles["default"] != cycles["n32_hbm3"], f"the first GEMM at the same cycle on both chips ({cycles}): "
          "the test shows nothing")
    # An explicit window is absolute, as before.
    r, first, last, _, _ = run(mlp, work, "explicit", ["--trace-cycles", "1000:1500"])
    check(r["trace_cycles"] == [1000, 1500], f"explicit: trace_cycles {r['trace_cycles']}")
    check(first == 1000 * 1000 and last < 1500 * 1000, f"explicit: the waveform holds {first}..{last} ps")
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
