"""`strata-sim gemm --dtype bf16` against tests/rtl/bf16_reference.py's Gemm, bit for bit.

For each case: float32 A [M, K] and B [K, N] (and C_in [M, N] with --c) from a seed, with special values mixed in
(+-0, +-inf, NaN, huge and tiny normals, float32 denormals), run through the chip; the expected result is
Gemm(F32ToBf16(A), F32ToBf16(B), n, C_in) (the upload's rounding, then the matrix unit's stated order), then
ReLU (a set sign bit becomes +0) and, with --out-dtype bf16, F32ToBf16. Every output bit pattern must match,
signed zeros and the canonical NaN included; and every finite result lies within the error bound the stated
order implies of the exact product of the bf16 operands, computed in float64 (Float64Bound).

usage: gemm_bf16_check.py STRATA_SIM OUTDIR M K N SEED [--mxu-n N] [--c] [--relu] [--out-bf16] [--specials]
exit 0 pass, 1 a difference or a failed run, 77 no NumPy (skipped)
"""

import argparse
import os
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("skipped: NumPy is not installed for", sys.executable)
    sys.exit(77)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "rtl"))
import bf16_reference as ref  # noqa: E402

SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 3.0e38, -3.0e38, 1.0e-38, -1.0e-38, 1.0e-45, 1.5, -2.0],
                    dtype=np.float32)


def Operand(rng, shape, specials, scale):
    x = (rng.standard_normal(shape) * scale).astype(np.float32)
    # Exponents over a wide range too, so that sums lose bits and round.
    x *= np.exp2(rng.integers(-20, 21, size=shape)).astype(np.float32)
    if specials:
        # Sparse enough that most results stay finite; whole rows of signed zeros give signed-zero sums.
        mask = rng.random(shape) < 0.02
        x[mask] = rng.choice(SPECIALS, size=int(mask.sum()))
        x[0, :] = -0.0
        if shape[0] > 1:
            x[1, :] = 0.0
    return x


def main():
    p = argparse.ArgumentParser()
    p.add_argument("sim")
    p.add_argument("outdir")
    p.add_argument("m", type=int)
    p.add_argument("k", type=int)
    p.add_argument("n", type=int)
    p.add_argument("seed", type=int)
    p.add_argument("--mxu-n", type=int, default=16)
    p.add_argument("--c", action="store_true")
    p.add_argument("--relu", action="store_true")
    p.add_argument("--out-bf16", action="store_true")
    p.add_argument("--specials", action="store_true")
    args = p.parse_args()

    rng = np.random.default_rng(args.seed)
    a = Operand(rng, (args.m, args.k), args.specials, 1.0)
    b = Operand(rng, (args.k, args.n), args.specials, 1.0)
    c = Operand(rng, (args.m, args.n), args.specials, 4.0) if args.c else None
    os.makedirs(args.outdir, exist_ok=True)
    tag = f"{args.m}x{args.k}x{args.n}_{args.seed}"
    pa, pb, pc, po = (os.path.join(args.outdir, f"{x}_{tag}.npy") for x in "abco")
    np.save(pa, a)
    np.save(pb, b)
    cmd = [args.sim, "gemm", "--dtype", "bf16", "--a", pa, "--b", pb, "--out", po, "--mxu-n", str(args.mxu_n)]
    if c is not None:
        np.save(pc, c)
        cmd += ["--c", pc]
    if args.relu:
        cmd.append("--relu")
    if args.out_bf16:
        cmd += ["--out-dtype", "bf16"]
    run = subprocess.run(cmd, capture_output=True, text=True)
    print(run.stdout, end="")
    if run.returncode != 0:
        print(run.stderr, end="")
        print(f"FAIL: strata-sim exited {run.returncode}")
        return 1
    got = np.load(po)
    if got.dtype != np.float32 or got.shape != (args.m, args.n):
        print(f"FAIL: output is {got.dtype} {got.shape}, not float32 ({args.m}, {args.n})")
        return 1
    got = got.view(np.uint32)

    a16 = ref.F32ToBf16(a.view(np.uint32))
    b16 = ref.F32ToBf16(b.view(np.uint32))
    want = ref.Gemm(a16, b16, args.mxu_n, None if c is None else c.view(np.uint32))
    if args.relu:
        want = np.where((want & ref.F32_SIGN) != 0, np.uint32(0), want).astype(np.uint32)
    if args.out_bf16:
        want = ref.Bf16ToF32Bits(ref.F32ToBf16(want))
    bad = np.argwhere(got != want)
    if bad.size:
        for i, j in bad[:10]:
            print(f"  C[{i}][{j}]: chip 0x{int(got[i, j]):08x}, reference 0x{int(want[i, j]):08x}")
        print(f"FAIL: {tag}: {len(bad)} of {got.size} results differ")
        return 1
    nan = int(((want & ref.F32_EXP) == ref.F32_EXP).sum())
    zeros = int(((want & ~np.uint32(ref.F32_SIGN)) == 0).sum())
    checked, worst = Float64Bound(a16, b16, c, got, args)
    if checked < 0:
        return 1
    print(f"PASS: {tag} bit-exact ({got.size} results; {nan} inf/NaN, {zeros} zeros); {checked} within the float64 "
          f"bound (worst {worst:.3f} of it)")
    return 0


def Float64Bound(a16, b16, c, got, args):
    """The chip's results against the exact product of the bf16 operands (float64: each product is exact), within
    the bound the stated order implies: a term passes through at most m = (n - 1) + T fp32 roundings (its tile's
    fold, then the T tile sums added onto ACC, one more with C_in), so |chip - exact| <= gamma_m * (sum |p_k| +
    |C_in|) with gamma_m = m u / (1 - m u), u = 2^-24, plus 2^-126 for every flushed product, sum and input (denormals
    are zero), plus the float64 sum's own error; bf16 output adds half a bf16 ulp (2^-8 relative). Results whose
    row of A or column of B holds an inf or NaN, or whose products or sum leave fp32's range, are skipped.
    Returns (results checked, the largest error as a fraction of its bound), or (-1, 0) after printing a failure."""
    a64 = ref.Bf16ToF32Bits(a16).view(np.float32).astype(np.float64)
    b64 = ref.Bf16ToF32Bits(b16).view(np.float32).astype(np.float64)
    m_rows, k = a64.shape
    tiles = max(1, -(-k // args.mxu_n))
    rounds = (args.mxu_n - 1) + tiles + (c is not None)
    u = 2.0**-24
    gamma = rounds * u / (1 - rounds * u)
    tiny = 2.0**-126
    with np.errstate(invalid="ignore", over="ignore"):
        p = a64[:, :, None] * b64[None, :, :]
        exact = p.sum(axis=1)
        mag = np.abs(p).sum(axis=1)
        if c is not None:
            c64 = c.astype(np.float64)
            c64 = np.where(np.abs(c64) < tiny, 0.0, c64)  # a denormal C_in reads as zero (within the slack)
            exact = exact + c64
            mag = mag + np.abs(c64)
        finite = np.isfinite(a64).all(axis=1)[:, None] & np.isfinite(b64).all(axis=0)[None, :]
        if c is not None:
            finite &= np.isfinite(c64)
        finite &= (np.abs(p).max(axis=1) < 2.0**127) & (mag < 2.0**127)
        bound = gamma * mag + (k + rounds + 1) * tiny + k * 2.0**-52 * mag
        if args.relu:
            exact = np.maximum(exact, 0.0)
        chip = got.view(np.float32).astype(np.float64)
        if args.out_bf16:
            bound = bound + 2.0**-8 * np.abs(chip) + tiny
        err = np.abs(chip - exact)
    ok = ~finite | (err <= bound)
    if not ok.all():
        for i, j in np.argwhere(~ok)[:10]:
            print(f"  C[{i}][{j}]: chip {chip[i, j]!r}, exact {exact[i, j]!r}, error {err[i, j]:.3e} > bound "
                  f"{bound[i, j]:.3e}")
        print(f"FAIL: {int((~ok).sum())} results outside the float64 bound")
        return -1, 0.0
    checked = int(finite.sum())
    worst = float((err[finite] / bound[finite]).max()) if checked else 0.0
    return checked, worst


if __name__ == "__main__":
    sys.exit(main())
