"""`strata-sim gemm --dtype bf16` against tests/rtl/bf16_reference.py's Gemm, bit for bit.

For each case: float32 A [M, K] and B [K, N] (and C_in [M, N] with --c) from a seed, with special values mixed in
(+-0, +-inf, NaN, huge and tiny normals, float32 denormals), run through the chip; the expected result is
Gemm(F32ToBf16(A), F32ToBf16(B), n, C_in) (the upload's rounding, then the matrix unit's stated order), then
ReLU (a set sign bit becomes +0) and, with --out-dtype bf16, F32ToBf16. Every output bit pattern must match,
signed zeros and the canonical NaN included.

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
    print(f"PASS: {tag} bit-exact ({got.size} results; {nan} inf/NaN, {zeros} zeros)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
