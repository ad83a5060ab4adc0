"""The matrix unit's bf16 product and fp32 add, and the READOUT's fp32 -> bf16 rounding (rtl/tpu_fp_pkg.sv, Verilated
behind fp_units_harness) against the NumPy reference (bf16_reference.py), bit for bit, over spreads of inputs:
every bf16 value against a set of edge values, random bit patterns over all exponents, signed zeros, denormals,
infinities, NaNs with several payloads, the overflow and underflow boundaries, cancellations and exact RNE ties;
the rounding for every upper half of an fp32 with the lower halves that decide it (0, just below, at and just
above the tie, all ones) and a random one. The NumPy reference is itself checked
against the integer route (ExactMul/ExactAdd) on a sample, and the bf16 conversions against ml_dtypes where it is
installed.

usage: fp_units_test.py HARNESS [SEEDS...]    exit 0 pass, 1 a difference, 77 no NumPy (skipped)
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

BF16_EDGES = [
    0x0000, 0x8000,  # +-0
    0x0001, 0x007F, 0x8001, 0x807F,  # denormals (read as zeros)
    0x0080, 0x8080, 0x0081,  # the smallest normals
    0x3F80, 0xBF80, 0x3FFF, 0x3F81, 0x4000, 0xC040,  # ordinary values
    0x7F7F, 0xFF7F, 0x7F00, 0x5F80, 0x5FFF, 0x1F80, 0x2000, 0x2080, 0x1FFF, 0x20FF,  # near the range limits
    0x7F80, 0xFF80,  # +-inf
    0x7FC0, 0xFFC0, 0x7F81, 0xFFFF, 0x7FA5,  # NaNs: quiet, negative, signalling, payloads
]
F32_EDGES = [
    0x00000000, 0x80000000, 0x00000001, 0x007FFFFF, 0x80400000,  # zeros, denormals
    0x00800000, 0x80800000, 0x00800001, 0x00FFFFFF, 0x01000000,  # smallest normals
    0x3F800000, 0xBF800000, 0x3F800001, 0x4B800000, 0x33800000, 0x33C00000, 0xB3800000,  # 1, ties around 1
    0x7F7FFFFF, 0xFF7FFFFF, 0x7F000000, 0x7EFFFFFF,  # the largest
    0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFFFFFFF, 0x7FA00005,  # inf, NaNs
]


def Run(harness, a, b, x, y):
    lines = "".join(f"{p:04x} {q:04x} {r:08x} {s:08x}\n" for p, q, r, s in zip(a.tolist(), b.tolist(), x.tolist(),
                                                                              y.tolist()))
    out = subprocess.run([harness], input=lines, capture_output=True, text=True, check=True).stdout.split()
    got = np.array([int(v, 16) for v in out], dtype=np.uint32).reshape(-1, 4)
    assert got.shape[0] == a.size, f"harness answered {got.shape[0]} of {a.size} lines"
    return got[:, 0], got[:, 1], got[:, 2], got[:, 3].astype(np.uint16)


def Vectors(seed):
    """(a, b, x, y, what): bf16 a, b and fp32 x, y in groups, each group named."""
    rng = np.random.default_rng(seed)
    groups = []
    edges16 = np.array(BF16_EDGES, dtype=np.uint16)
    edges32 = np.array(F32_EDGES, dtype=np.uint32)

    def Add(what, a, b, x, y):
        size = max(np.size(a), np.size(b), np.size(x), np.size(y))
        groups.append((np.broadcast_to(np.asarray(a, np.uint16), size), np.broadcast_to(np.asarray(b, np.uint16), size),
                       np.broadcast_to(np.asarray(x, np.uint32), size), np.broadcast_to(np.asarray(y, np.uint32), size),
                       what))

    # Products: every bf16 value against a third of the edges (seeds 1, 2, 3 cover them all) and two random values
    # (x + a * b with x an edge value too).
    every = np.arange(1 << 16, dtype=np.uint16)
    for e in list(BF16_EDGES[(seed - 1) % 3::3]) + rng.integers(0, 1 << 16, 2).tolist():
        Add(f"every bf16 x {e:#06x}", every, e, rng.choice(edges32, every.size), rng.integers(0, 1 << 32, every.size))
    Add("edge x edge", np.repeat(edges16, edges16.size), np.tile(edges16, edges16.size), 0, 0)
    # Random bf16 over all exponents; products with exponents near the overflow/underflow limits.
    r = 20000
    Add("random bf16", rng.integers(0, 1 << 16, r), rng.integers(0, 1 << 16, r), rng.integers(0, 1 << 32, r),
        rng.integers(0, 1 << 32, r))
    ea = rng.integers(0, 256, r)
    eb = np.clip(127 + rng.integers(-3, 4, r) + np.where(rng.random(r) < 0.5, 127, -126) - ea, 0, 255)
    sign_mant = lambda: (rng.integers(0, 2, r) << 15) | rng.integers(0, 128, r)  # noqa: E731
    Add("products at the range limits", sign_mant() | (ea << 7), sign_mant() | (eb << 7), 0x80000000,
        rng.integers(0, 1 << 32, r))
    # Sums: edges against edges, random bit patterns, close exponents (cancellation), ties, range limits.
    Add("f32 edge + edge", 0, 0, np.repeat(edges32, edges32.size), np.tile(edges32, edges32.size))
    Add("random f32", 0, 0, rng.integers(0, 1 << 32, r), rng.integers(0, 1 << 32, r))
    x = rng.integers(0, 1 << 32, r, dtype=np.uint32)
    d = rng.integers(-3, 4, r).astype(np.int64)
    ey = np.clip(((x >> 23) & 0xFF).astype(np.int64) + d, 0, 255).astype(np.uint32)
    y = (rng.integers(0, 2, r, dtype=np.uint32) << 31) | (ey << 23) | rng.integers(0, 1 << 23, r, dtype=np.uint32)
    Add("close exponents", 0, 0, x, y)
    y_cancel = (x ^ 0x80000000) ^ rng.integers(0, 1 << 4, r, dtype=np.uint32)  # -x and its neighbours
    Add("cancellation", 0, 0, x, y_cancel)
    # Exact ties: y is half an ulp of x (or 1.5, 2.5 ... ulps below x's last place), either sign.
    ex = rng.integers(30, 220, r).astype(np.uint32)
    x = (rng.integers(0, 2, r, dtype=np.uint32) << 31) | (ex << 23) | rng.integers(0, 1 << 23, r, dtype=np.uint32)
    k = rng.integers(0, 3, r).astype(np.uint32)  # y = 2^(ex-24) * (1, 1.5, 1.25): ties and near-ties
    y = (rng.integers(0, 2, r, dtype=np.uint32) << 31) | ((ex - 24) << 23) | np.choose(k, [0, 1 << 22, 1 << 21])
    Add("ties", 0, 0, x, y.astype(np.uint32))
    # Near the largest and the smallest normals: overflow to inf, results below 2^-126 flushed.
    big = (rng.integers(0, 2, r, dtype=np.uint32) << 31) | (np.uint32(0xFE) << 23) | rng.integers(0, 1 << 23, r,
                                                                                                  dtype=np.uint32)
    Add("overflow", 0, 0, big, big ^ (rng.integers(0, 2, r, dtype=np.uint32) << 31))
    tiny = (rng.integers(1, 3, r, dtype=np.uint32) << 23) | rng.integers(0, 1 << 23, r, dtype=np.uint32)
    Add("underflow", 0, 0, tiny, (tiny ^ 0x80000000) + rng.integers(-(1 << 22), 1 << 22, r).astype(np.uint32))
    # fp32 -> bf16 (every group also rounds its x): every upper half (every bf16 pattern: zeros, denormals, the
    # largest finite values whose round-up carries into inf, infinities, NaNs) with two of the deciding lower
    # halves per seed (seeds 1, 2, 3 cover all six) and a random one.
    lows = [0x0000, 0x7FFF, 0x8000, 0x8001, 0xFFFF, 0x0001]
    upper = np.arange(1 << 16, dtype=np.uint32) << 16
    for low in lows[2 * ((seed - 1) % 3):2 * ((seed - 1) % 3) + 2]:
        Add(f"to bf16, every upper half | {low:#06x}", 0, 0, upper | low, 0)
    Add("to bf16, every upper half | random", 0, 0, upper | rng.integers(0, 1 << 16, upper.size, dtype=np.uint32), 0)
    return groups


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    harness = sys.argv[1]
    seeds = [int(s) for s in sys.argv[2:]] or [1, 2, 3]
    failures = 0
    total = 0
    for seed in seeds:
        for a, b, x, y, what in Vectors(seed):
            mul, add, mac, cvt = Run(harness, a, b, x, y)
            want = (ref.Mul(a, b), ref.Add(x, y), ref.Mac(x, a, b), ref.F32ToBf16(x))
            for name, got, exp in zip(("mul", "add", "mac", "to_bf16"), (mul, add, mac, cvt), want):
                bad = np.nonzero(got != exp)[0]
                total += got.size
                if bad.size:
                    failures += bad.size
                    for i in bad[:5]:
                        print(f"FAIL seed {seed} {what} {name}: a {a[i]:#06x} b {b[i]:#06x} x {x[i]:#010x} "
                              f"y {y[i]:#010x}: RTL {got[i]:#010x}, reference {exp[i]:#010x}")
            # The NumPy route against the integer route, on a sample of each group.
            idx = np.random.default_rng(seed).choice(a.size, min(a.size, 400), replace=False)
            for i in idx:
                em, ea = ref.ExactMul(a[i], b[i]), ref.ExactAdd(x[i], y[i])
                if em != want[0][i] or ea != want[1][i]:
                    failures += 1
                    print(f"FAIL reference {what}: a {a[i]:#06x} b {b[i]:#06x} -> numpy {want[0][i]:#010x} exact "
                          f"{em:#010x}; x {x[i]:#010x} y {y[i]:#010x} -> numpy {want[1][i]:#010x} exact {ea:#010x}")
    try:
        import ml_dtypes

        every = np.arange(1 << 16, dtype=np.uint16)
        vals = every.view(ml_dtypes.bfloat16).astype(np.float32)
        finite = np.isfinite(vals) & ((every & 0x7F80) != 0)
        if not np.array_equal(vals.view(np.uint32)[finite], ref.Bf16ToF32Bits(every)[finite]):
            failures += 1
            print("FAIL Bf16ToF32Bits differs from ml_dtypes")
        f = np.random.default_rng(9).integers(0x00800000, 0x7F800000, 200000, dtype=np.uint32)
        f = f | (np.random.default_rng(10).integers(0, 2, f.size, dtype=np.uint32) << 31)
        ml = f.view(np.float32).astype(ml_dtypes.bfloat16).view(np.uint16)
        if not np.array_equal(ml, ref.F32ToBf16(f)):
            failures += 1
            print("FAIL F32ToBf16 differs from ml_dtypes (RNE) on normal fp32 inputs")
        total += 2
    except ImportError:
        print("note: ml_dtypes is not installed; the bf16 conversions are not cross-checked")
    print(f"{'FAIL' if failures else 'PASS'}: {total} results over seeds {seeds}, {failures} differences")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
