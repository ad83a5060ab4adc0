#!/usr/bin/env python3
"""The int8 GEMM's figures, pinned: bf16 mode (issue [U]) must leave every int8 figure as it was, cycle for cycle.

Runs `strata-sim gemm` (int8, N = 16, HBM2, bench/gemm's inputs) on the shapes docs/matrix-unit.md quotes and
compares each figure the tool reports with the value before bf16 (main at 1b1f409): the GEMM's cycles, its
utilization, the run's cycles, the cycle the firmware starts at, the matrix unit's starved cycles, commands,
descriptors, steps and prefetch waits. A changed figure names what usually moved it.

usage: check_int8_figures.py STRATA_SIM OUTDIR [SHAPE...]   (SHAPE: MxKxN, default all four)
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MAKE_NPY = os.path.join(HERE, "..", "..", "bench", "gemm", "make_npy.py")

# (M, K, N): figures of `strata-sim gemm --json` before bf16. start_cycle is the ELF load (one cycle per word of
# gemm.elf), the same for every shape.
FIGURES = {
    (64, 48, 32): {"cycles": 2130, "utilization": 0.1803, "run_cycles": 3087, "start_cycle": 9349,
                   "starved_cycles": 2367, "mxu_commands": 2, "dma_descriptors": 5, "steps": 1, "dma_waits": 0},
    (256, 256, 256): {"cycles": 71777, "utilization": 0.9131, "run_cycles": 72740, "start_cycle": 9349,
                      "starved_cycles": 5367, "mxu_commands": 16, "dma_descriptors": 34, "steps": 8, "dma_waits": 8},
    (4096, 64, 16): {"cycles": 18772, "utilization": 0.8728, "run_cycles": 19743, "start_cycle": 9349,
                     "starved_cycles": 2866, "mxu_commands": 8, "dma_descriptors": 24, "steps": 8, "dma_waits": 8},
    (512, 512, 512): {"cycles": 541305, "utilization": 0.9686, "run_cycles": 542271, "start_cycle": 9349,
                      "starved_cycles": 5394, "mxu_commands": 128, "dma_descriptors": 196, "steps": 64,
                      "dma_waits": 64},
}

WHY = """what moves int8 figures:
  start_cycle: gemm.elf's loadable size changed (the load writes one word per cycle); the GEMM then starts at
    another phase of the HBM refresh and its cycles move by a few even with identical code (a longer error
    message was enough: docs/matrix-unit.md, "int8 unchanged");
  cycles alone: the int8 path's instructions (kernels/gemm.cc GemmRun<false>, drivers/mxu.cc Submit,
    apps/gemm/main.cc) or the unit's int8 timing (rtl/tpu_mxu.sv) changed."""


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    sim, outdir = sys.argv[1], sys.argv[2]
    shapes = [tuple(int(x) for x in s.split("x")) for s in sys.argv[3:]] or list(FIGURES)
    os.makedirs(outdir, exist_ok=True)
    failures = []
    for m, k, n in shapes:
        want = FIGURES[(m, k, n)]
        a, b = os.path.join(outdir, f"a_{m}_{k}.npy"), os.path.join(outdir, f"b_{k}_{n}.npy")
        subprocess.run([sys.executable, MAKE_NPY, a, str(m), str(k), "1"], check=True)
        subprocess.run([sys.executable, MAKE_NPY, b, str(k), str(n), "2"], check=True)
        p = subprocess.run([sim, "gemm", "--a", a, "--b", b, "--out", os.path.join(outdir, f"c_{m}_{k}_{n}.npy"),
                            "--json"], capture_output=True, text=True)
        if p.returncode != 0:
            failures.append(f"{m}x{k}x{n}: strata-sim gemm exited {p.returncode}: {p.stderr.strip()}")
            continue
        got = json.loads(p.stdout.strip().splitlines()[-1])
        moved = [f"{key} {got.get(key)} (was {value})" for key, value in want.items() if got.get(key) != value]
        if moved:
            failures.append(f"{m}x{k}x{n}: " + ", ".join(moved))
        else:
            print(f"check_int8_figures: {m}x{k}x{n}: {want['cycles']} cycles, utilization {want['utilization']}, "
                  f"run {want['run_cycles']}, starved {want['starved_cycles']}: unchanged")
    if failures:
        print("check_int8_figures: int8 figures moved:\n  " + "\n  ".join(failures) + "\n" + WHY)
        return 1
    print(f"check_int8_figures: {len(shapes)} shapes, every int8 figure as before bf16")
    return 0


if __name__ == "__main__":
    sys.exit(main())
