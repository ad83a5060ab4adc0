#!/usr/bin/env python3
"""The compaction cost model of strata-compare's host backend, fitted on the cycle-level model.

A compaction's copy cycles on the model (strata-replay --backend sim) are, per HBM preset, close to the sum over
its moves of
    cycles(move) = max(floor_cycles, per_move_cycles + bytes / bytes_per_cycle)
a fixed part per move (the DMA descriptor, the firmware's loop, the first rows' latency) and the bytes at the
copy's rate, but never below a floor: moves of a few KiB all take about as long (each one's copy overlaps the next
one's set-up). The host backend sees every move (the same allocator decides), so this is its estimate.

This program builds synthetic workloads whose one compaction moves n buffers of about S bytes (n pairs A_i, B_i
allocated at t=0, every B_i freed at t=1, then one buffer as large as all the B_i at t=2: only compaction places it,
sliding A_2..A_n down; sizes S +- 25%), runs each on the model for each preset, takes the floor as the mean cycles
per move of the runs of 8 KiB moves or less and fits (per_move_cycles, bytes_per_cycle) by least squares on the
relative error of the runs of 32 KiB moves or more, and checks the fit on held-out workloads (other sizes and
seeds) and, with --traces, on real traces the fit never saw (their sim runs take minutes: bert_base about ten).
One JSON object per line; the *_fit lines are what host/compare/compaction_cost.cc holds.

usage: cost_model.py [--build DIR] [--presets HBM2,HBM2e,HBM3] [--traces CSV,...] [--quick]
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

# (moves, move size) of the fit set and of the held-out set (sizes beside and between, other seeds).
FIT = [(16, 4 << 10), (256, 4 << 10), (64, 8 << 10), (64, 32 << 10), (16, 64 << 10), (256, 64 << 10),
       (32, 256 << 10), (8, 1 << 20), (64, 1 << 20), (8, 4 << 20), (2, 16 << 20), (4, 16 << 20)]
HELD_OUT = [(128, 6 << 10), (64, 48 << 10), (24, 192 << 10), (12, 640 << 10), (16, 2 << 20), (3, 32 << 20)]


def trace(path, n, size, seed):
    rng = random.Random(seed)
    sizes = [max(256, (size + rng.randrange(-size // 4, size // 4 + 1)) // 256 * 256) for _ in range(2 * n)]
    with open(path, "w") as f:
        f.write("id,lower,upper,size\n")
        for i in range(n):
            f.write(f"{2 * i},0,3,{sizes[2 * i]}\n")          # A_i: lives to the end
            f.write(f"{2 * i + 1},0,1,{sizes[2 * i + 1]}\n")  # B_i: freed at t=1
        f.write(f"{2 * n},2,3,{sum(sizes[1::2])}\n")         # as large as every hole together


def run(replay, path, preset):
    out = subprocess.run([replay, path, "--backend", "sim", "--hbm", preset, "--capacity", "1.0x",
                          "--compaction", "on-oom", "--json"], capture_output=True, text=True, check=True).stdout
    r = json.loads(out)
    return r["device_moves"], r["device_bytes_moved"], r["compaction_cycles"]


def fit(points):
    """(floor, per_move_cycles, bytes_per_cycle) from (moves, bytes, cycles) runs of one move size each."""
    small = [c / m for m, b, c in points if b / m <= 8 << 10]
    floor = sum(small) / len(small)
    saa = sab = sbb = sa = sb = 0.0
    for m, b, c in points:
        if b / m < 32 << 10:
            continue
        xa, xb = m / c, b / c  # per_move * m / c + (b / c) / bw = 1: the relative error
        saa, sab, sbb, sa, sb = saa + xa * xa, sab + xa * xb, sbb + xb * xb, sa + xa, sb + xb
    det = saa * sbb - sab * sab
    return floor, (sa * sbb - sb * sab) / det, det / (saa * sb - sab * sa)


def estimate(model, moves, bytes_moved):
    """A synthetic run's moves are all about one size: moves x the cost of the mean move."""
    floor, per_move, bw = model
    return moves * max(floor, per_move + bytes_moved / moves / bw)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build"))
    ap.add_argument("--presets", default="HBM2,HBM2e,HBM3")
    ap.add_argument("--traces", default="", help="comma-separated trace CSVs to validate on (slow)")
    ap.add_argument("--quick", action="store_true", help="a third of the shapes (a smoke run)")
    a = ap.parse_args()
    replay = os.path.join(a.build, "host", "replay", "strata-replay")
    fit_set, held = (FIT[::3], HELD_OUT[::3]) if a.quick else (FIT, HELD_OUT)
    with tempfile.TemporaryDirectory() as tmp:
        for preset in a.presets.split(","):
            points = []
            for n, size in fit_set:
                for seed in (1, 2):
                    path = os.path.join(tmp, f"f{n}_{size}_{seed}.csv")
                    trace(path, n, size, seed)
                    m, b, c = run(replay, path, preset)
                    points.append((m, b, c))
                    print(json.dumps({"bench": "compaction_cost", "preset": preset, "role": "fit", "move_bytes": size,
                                      "seed": seed, "moves": m, "bytes_moved": b, "copy_cycles": c}), flush=True)
            model = fit(points)
            print(json.dumps({"bench": "compaction_cost_fit", "preset": preset, "floor_cycles": round(model[0], 1),
                              "per_move_cycles": round(model[1], 1), "bytes_per_cycle": round(model[2], 2),
                              "fit_runs": len(points)}), flush=True)
            worst = 0.0
            cases = [(f"{n}x{size}", n, size) for n, size in held] + [(t, 0, 0) for t in a.traces.split(",") if t]
            for name, n, size in cases:
                if n:
                    path = os.path.join(tmp, f"h{n}_{size}.csv")
                    trace(path, n, size, 7)
                else:
                    path = name
                m, b, c = run(replay, path, preset)
                if m == 0:
                    continue
                est = estimate(model, m, b)
                worst = max(worst, abs(est / c - 1))
                print(json.dumps({"bench": "compaction_cost", "preset": preset,
                                  "role": "held_out" if n else "trace", "case": os.path.basename(name), "moves": m,
                                  "bytes_moved": b, "copy_cycles": c, "estimate": round(est),
                                  "error": round(est / c - 1, 4)}), flush=True)
            print(json.dumps({"bench": "compaction_cost_check", "preset": preset, "cases": len(cases),
                              "worst_error": round(worst, 4)}), flush=True)


if __name__ == "__main__":
    sys.exit(main())
