#!/usr/bin/env python3
"""Quiescent-cycle skipping and falling edges applied without an evaluation change no cycle count: runs
one workload with the fast paths on and off (STRATA_SIM_FAST_FORWARD=1 / 0, which every Device in the
process obeys) and compares everything the runs report except wall time.

usage:
  fast_forward_identity.py isa SIM ELF...          every ISA image: result, cycles, instructions
  fast_forward_identity.py gemm SIM WORKDIR PER_TILE_ELF
                                                    a table of GEMM shapes: the JSON summary and C.npy (one
                                                    shape on the per-tile benchmark image); the fast runs
                                                    of the larger shapes must have elided most falling edges
  fast_forward_identity.py elf SIM ELF CYCLES MIN   a firmware image for CYCLES cycles; the fast run must
                                                    have skipped at least MIN percent of them
  fast_forward_identity.py gates SIM ELF CYCLES MIN a firmware image that leaves the DMA and the matrix unit
                                                    idle: the fast run's clock gates must have stopped both
                                                    blocks in at least MIN percent of the evaluated cycles
  fast_forward_identity.py tool FILE -- CMD...      any command (strata-replay, strata-mlp): its stdout,
                                                    and FILE if not '-' (JSON reports), minus wall times
"""
import json
import os
import subprocess
import sys

# Keys (and report lines) that measure the host, not the device.
WALL_KEYS = ("wall", "per_second", "ns_per_", "skipped_cycles", "elided_falling_edges", "gated_cycles")


def run(cmd, fast, check=True):
    env = dict(os.environ, STRATA_SIM_FAST_FORWARD="1" if fast else "0")
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and p.returncode not in (0, 3):  # 3: strata-sim's --max-cycles
        sys.exit(f"{' '.join(cmd)} (fast path {'on' if fast else 'off'}) exited {p.returncode}:\n{p.stderr}")
    return p


def strip(value):
    """The report without host timings, recursively."""
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if not any(w in k for w in WALL_KEYS)}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value


def last_json(text):
    return json.loads(text.strip().splitlines()[-1])


def same(what, fast, slow):
    if fast != slow:
        sys.exit(f"FAIL {what}: the fast path changed what the run reports\n  on:  {fast}\n  off: {slow}")
    print(f"ok   {what}")


def check_isa(sim, elfs):
    for elf in elfs:
        a, b = (strip(last_json(run([sim, "--json", elf], f).stdout)) for f in (True, False))
        same(os.path.basename(elf), a, b)


# bench/gemm's writer of random int8 .npy matrices (OUT ROWS COLS SEED).
MAKE_NPY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench", "gemm", "make_npy.py")


def write_npy(path, rows, cols, seed):
    subprocess.run([sys.executable, MAKE_NPY, path, str(rows), str(cols), str(seed)], check=True)


# The share of a GEMM's evaluated cycles whose falling edge the fast path applies without an evaluation:
# all but the cycles in which the mesh clock gate changes, the host port is written or the waveform records.
MIN_ELIDED_GEMM = 90.0


def check_elided(what, report, fast, min_percent):
    elided = report["elided_falling_edges"]
    if not fast and elided != 0:
        sys.exit(f"FAIL {what}: STRATA_SIM_FAST_FORWARD=0 still elided {elided} falling edges")
    for block in ("dma", "mxu"):
        if not fast and report[f"{block}_gated_cycles"] != 0:
            sys.exit(f"FAIL {what}: STRATA_SIM_FAST_FORWARD=0 still stopped the {block}'s clock")
    evaluated = report.get("run_cycles", report["cycles"]) - report["skipped_cycles"]  # gemm: cycles is the kernel's
    if fast and evaluated > 0 and 100.0 * elided / evaluated < min_percent:
        sys.exit(f"FAIL {what}: {elided} of {evaluated} falling edges elided; expected at least {min_percent}%")


def check_gemm(sim, work, per_tile_elf):
    os.makedirs(work, exist_ok=True)
    # Shapes of the sim.gemm.* table: edges below and above N = 16, a long K, tall and wide, several blocks.
    for m, k, n, extra in ((7, 13, 5, []), (17, 17, 17, []), (9, 1000, 11, []), (700, 20, 3, []),
                           (2, 40, 300, []), (257, 260, 40, []), (37, 101, 53, ["--firmware", per_tile_elf]),
                           (33, 70, 20, ["--int8", "3,9", "--relu"])):
        a, b = os.path.join(work, f"a_{m}_{k}.npy"), os.path.join(work, f"b_{k}_{n}.npy")
        write_npy(a, m, k, m * 7 + k)
        write_npy(b, k, n, k * 5 + n)
        out = {}
        for fast in (True, False):
            c = os.path.join(work, f"c_{int(fast)}.npy")
            full = last_json(run([sim, "gemm", "--a", a, "--b", b, "--out", c, "--json"] + extra, fast).stdout)
            check_elided(f"gemm {m}x{k}x{n}", full, fast, MIN_ELIDED_GEMM)
            out[fast] = (strip(full), open(c, "rb").read())
        same(f"gemm {m}x{k}x{n} {' '.join(map(os.path.basename, extra))}".strip(), out[True][0], out[False][0])
        if out[True][1] != out[False][1]:
            sys.exit(f"FAIL gemm {m}x{k}x{n}: the results differ")


def check_elf(sim, elf, cycles, min_percent):
    runs = {f: run([sim, "--json", "--max-cycles", cycles, elf], f) for f in (True, False)}
    fast, slow = (last_json(runs[f].stdout) for f in (True, False))
    same(f"{os.path.basename(elf)} for {cycles} cycles", strip(fast), strip(slow))
    same(f"{os.path.basename(elf)} console", runs[True].stdout.splitlines()[:-1], runs[False].stdout.splitlines()[:-1])
    skipped = 100.0 * fast["skipped_cycles"] / fast["cycles"]
    if slow["skipped_cycles"] != 0:
        sys.exit("FAIL STRATA_SIM_FAST_FORWARD=0 still skipped cycles")
    if skipped < float(min_percent):
        sys.exit(f"FAIL the fast path skipped {skipped:.1f}% of the cycles; expected at least {min_percent}%")
    print(f"ok   skipped {skipped:.1f}% of the cycles")


def check_gates(sim, elf, cycles, min_percent):
    runs = {f: last_json(run([sim, "--json", "--max-cycles", cycles, elf], f).stdout) for f in (True, False)}
    same(f"{os.path.basename(elf)} for {cycles} cycles", strip(runs[True]), strip(runs[False]))
    for fast in (True, False):
        check_elided(os.path.basename(elf), runs[fast], fast, 0.0)
    evaluated = runs[True]["cycles"] - runs[True]["skipped_cycles"]
    for block in ("dma", "mxu"):
        share = 100.0 * runs[True][f"{block}_gated_cycles"] / evaluated
        if share < float(min_percent):
            sys.exit(f"FAIL the {block}'s clock was stopped in {share:.2f}% of {evaluated} evaluated cycles; "
                     f"expected at least {min_percent}%")
        print(f"ok   the {block}'s clock stopped in {share:.2f}% of the evaluated cycles")


def check_tool(report, cmd):
    out = {}
    for fast in (True, False):
        p = run(cmd, fast)
        lines = [l for l in p.stdout.splitlines() if "wall" not in l and "cycles/s" not in l]
        doc = None
        if report != "-":
            with open(report) as f:
                doc = strip(json.load(f))
        out[fast] = (lines, doc)
    same(f"{os.path.basename(cmd[0])} stdout", out[True][0], out[False][0])
    if report != "-":
        same(f"{os.path.basename(cmd[0])} {os.path.basename(report)}", out[True][1], out[False][1])


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "isa":
        check_isa(args[0], args[1:])
    elif mode == "gemm":
        check_gemm(*args)
    elif mode == "elf":
        check_elf(*args)
    elif mode == "gates":
        check_gates(*args)
    elif mode == "tool" and len(args) >= 3 and args[1] == "--":
        check_tool(args[0], args[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
