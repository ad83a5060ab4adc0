"""The systolic array in bf16 mode (rtl/tpu_systolic_array.sv through systolic_array_harness) against the NumPy
reference (bf16_reference.ColumnSums): every result row bit for bit, and on the cycle the int8 contract gives
(a row pushed in cycle t comes out in cycle t + 2N). Schedules stream tiles back to back with the next tile
loading under the current one's rows, bf16 and int8 tiles interleaved (the mode travels with each row), over
values that exercise the arithmetic: ordinary magnitudes with cancellation, columns of signed zeros, denormals, huge values whose
sums overflow, infinities and NaNs.

usage: systolic_array_bf16_test.py HARNESS [SEEDS...]    exit 0 pass, 1 a difference, 77 no NumPy (skipped)
"""

import os
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("skipped: NumPy is not installed for", sys.executable)
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bf16_reference as ref  # noqa: E402

SPECIALS = np.array([0x0000, 0x8000, 0x0001, 0x8040, 0x7F80, 0xFF80, 0x7FC0, 0x7F81, 0x7F7F, 0xFF7F, 0x0080],
                    dtype=np.uint16)


def Bf16Values(rng, shape, kind):
    """bf16 bit patterns: 'plain' (exponents around 1, both signs), 'wide' (any finite exponent), 'special'
    (plain with specials sprinkled in)."""
    sign = rng.integers(0, 2, shape).astype(np.uint16) << 15
    mant = rng.integers(0, 128, shape).astype(np.uint16)
    if kind == "wide":
        exp = rng.integers(1, 255, shape).astype(np.uint16)
    else:
        exp = rng.integers(120, 135, shape).astype(np.uint16)
    v = sign | (exp << 7) | mant
    if kind == "special":
        mask = rng.random(shape) < 0.08
        v = np.where(mask, rng.choice(SPECIALS, shape), v)
    return v.astype(np.uint16)


def RowHex(row8):
    return "".join(f"{int(b):02x}" for b in row8)


class Schedule:
    def __init__(self, n):
        self.n = n
        self.cycles = []  # per cycle: dict of the inputs

    def Cycle(self, i):
        while len(self.cycles) <= i:
            self.cycles.append(dict(av=0, afp=0, alo=[0] * self.n, ahi=[0] * self.n, wv=0, wfp=0, wlo=[0] * self.n,
                                    whi=[0] * self.n, swap=0))
        return self.cycles[i]

    def Text(self):
        return "".join(f"{c['av']} {c['afp']} {RowHex(c['alo'])} {RowHex(c['ahi'])} {c['wv']} {c['wfp']} "
                       f"{RowHex(c['wlo'])} {RowHex(c['whi'])} {c['swap']}\n" for c in self.cycles)


def Split(v16):
    v16 = np.asarray(v16, dtype=np.uint16)
    return (v16 & 0xFF).tolist(), (v16 >> 8).tolist()


def Build(n, rng, tiles):
    """tiles: list of (mode, rows, kind). Tile t's N weight rows load in the N cycles before its swap (for the
    first) or under the previous tile's rows; its first activation row carries the swap. Returns the schedule and
    the expected rows: {cycle out: (mode, N fp32 bits or int32)}."""
    s = Schedule(n)
    expected = {}
    start = n  # the first tile's weights load in cycles 0 .. n-1
    load_at = 0
    for mode, rows, kind in tiles:
        fp = mode == "bf16"
        if fp and kind == "zeros":
            # Signed zeros: products of +0 (or a +denormal) weights and mostly -0 activations, so many columns
            # sum only -0 (the column starts from -0 and stays there) and the others +0.
            w = rng.choice(np.array([0x0000, 0x0001], dtype=np.uint16), (n, n))
            a = np.where(rng.random((rows, n)) < 0.93, 0x8000, 0x0000).astype(np.uint16)
            c = ref.ColumnSums(a, w)
        elif fp:
            w = Bf16Values(rng, (n, n), kind)
            a = Bf16Values(rng, (rows, n), kind)
            c = ref.ColumnSums(a, w)
        else:
            w = rng.integers(-128, 128, (n, n))
            a = rng.integers(-128, 128, (rows, n))
            c = (a.astype(np.int64) @ w.astype(np.int64)).astype(np.int32).view(np.uint32)
        for k in range(n):
            cy = s.Cycle(load_at + k)
            cy["wv"], cy["wfp"] = 1, int(fp)
            if fp:
                cy["wlo"], cy["whi"] = Split(w[k])
            else:
                cy["wlo"] = (w[k] & 0xFF).tolist()
        for r in range(rows):
            cy = s.Cycle(start + r)
            cy["av"], cy["afp"], cy["swap"] = 1, int(fp), int(r == 0)
            if fp:
                cy["alo"], cy["ahi"] = Split(a[r])
            else:
                cy["alo"] = (a[r] & 0xFF).tolist()
            expected[start + r + 2 * n] = (mode, np.asarray(c[r], dtype=np.uint32))
        # The next tile loads under this one's rows (legal from this swap on) and swaps in right after them.
        load_at = start
        start = start + max(rows, n)
    s.Cycle(start + 2 * n + 2)  # idle cycles until the last result is out
    return s, expected


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    harness = sys.argv[1]
    seeds = [int(v) for v in sys.argv[2:]] or [1, 2, 3]
    failures = checked = 0
    for seed in seeds:
        rng = np.random.default_rng(seed)
        n = None
        for plan in (
            [("bf16", 40, "plain"), ("bf16", 24, "wide"), ("bf16", 33, "special"), ("bf16", 12, "zeros")],
            [("int8", 20, None), ("bf16", 17, "plain"), ("int8", 16, None), ("bf16", 30, "special"), ("int8", 9, None)],
        ):
            if n is None:
                first = subprocess.run([harness], input="", capture_output=True, text=True, check=True).stdout
                n = int(first.split()[1])
            sched, expected = Build(n, rng, plan)
            run = subprocess.run([harness], input=sched.Text(), capture_output=True, text=True)
            if run.returncode != 0:
                print(f"FAIL seed {seed} plan {plan}: harness exit {run.returncode}\n{run.stdout[-2000:]}{run.stderr}")
                failures += 1
                continue
            got = {}
            for line in run.stdout.splitlines()[1:]:
                f = line.split()
                got[int(f[0])] = np.array([int(x, 16) for x in f[1:]], dtype=np.uint32)
            if sorted(got) != sorted(expected):
                failures += 1
                print(f"FAIL seed {seed} plan {plan}: result rows in cycles {sorted(got)[:8]}..., expected "
                      f"{sorted(expected)[:8]}...")
                continue
            for cycle, (mode, want) in expected.items():
                checked += 1
                if not np.array_equal(got[cycle], want):
                    failures += 1
                    if failures <= 5:
                        print(f"FAIL seed {seed} {mode} row out in cycle {cycle}:\n  RTL       "
                              f"{' '.join(f'{v:08x}' for v in got[cycle])}\n  reference "
                              f"{' '.join(f'{v:08x}' for v in want)}")
    print(f"{'FAIL' if failures else 'PASS'}: {checked} result rows at N = {n} over seeds {seeds}, "
          f"{failures} differences")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
