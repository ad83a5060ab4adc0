#!/usr/bin/env python3
"""strata-sim vector on the model, bit for bit against the vector unit's NumPy reference (tests/rtl/vpu_reference.py).

usage: vector_cli_test.py STRATA_SIM ops|shapes|bad|fast_forward
  ops     every VPU_OP by name (rtl/regmap.json's list) on two shapes, values spread over the specials
  shapes  a few ops over shapes 1..4L+1 columns (L = 16 lanes) and rows past one VMEM tile, each broadcast mode
  bad     unknown op, mismatched shapes, bad dtype, missing operands: exit status 2, a message naming the problem,
          no output file
  fast_forward  the same results and device cycles with the simulator's fast paths off (--no-fast-forward)

The expected values compose the reference's ops as the vector kernel runs them (firmware/kernels/vector.cc):
elementwise ops lane by lane; SOFTMAX vpu_reference.Softmax over the row padded with -inf; ROW_SUM / ROW_MAX a running ACC over the row's 16-lane chunks (the last one padded with
-0 / -inf), then the pairwise tree of that chunk; ACC_SUM / ACC_MAX sequentially down the rows from -0 / -inf.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "rtl"))
import vpu_reference as ref  # noqa: E402

LANES = 16
SIGN = 0x80000000
NEG_INF = 0xFF800000


def Values(rng, shape, op):
    """fp32 bit patterns: random normals of several magnitudes and the specials (+-0, denormals, +-inf, NaN with
    payloads, limits); raw integers for the ops that read integer lanes."""
    n = int(np.prod(shape))
    if op in ("s32_to_f32", "s8_to_f32", "bf16_to_f32"):
        return rng.integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32).reshape(shape)
    v = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(np.float32).view(np.uint32)
    specials = np.array([0, SIGN, 1, 0x807FFFFF, 0x7F800000, NEG_INF, 0x7FC00001, 0xFFFFFFFF, 0x7F7FFFFF,
                         0x00800000, 0x3F800000, 0xBF800000, 0x4F000000, 0xCF000000, 0x42FE0000, 0xC3010000],
                        dtype=np.uint32)
    pick = rng.random(n) < 0.2
    v[pick] = specials[rng.integers(0, len(specials), int(pick.sum()))]
    return v.reshape(shape)


def Expected(op, a, b=None, m=None):
    """The kernel's result for op on bit arrays a [R, C] (b [R, C], [1, C] or [1, 1]; m [R, C])."""
    r, c = a.shape
    if op == "softmax":  # the host pads the last chunk with -inf
        chunks = (c + LANES - 1) // LANES
        padded = np.full((r, chunks * LANES), NEG_INF, dtype=np.uint32)
        padded[:, :c] = a
        return ref.Softmax(padded, LANES)[:, :c]
    if op in ref.ROW_REDUCE or op in ref.ACC_REDUCE:
        step = ref.ROW_REDUCE[op] if op in ref.ROW_REDUCE else ref.ACC_REDUCE[op][0]
        ident = SIGN if op.endswith("sum") else NEG_INF
        if op in ref.ACC_REDUCE:
            acc = np.full(c, ident, dtype=np.uint32)
            for i in range(r):
                acc = step(acc, a[i])
            return acc.reshape(1, c)
        chunks = (c + LANES - 1) // LANES
        padded = np.full((r, chunks * LANES), ident, dtype=np.uint32)
        padded[:, :c] = a
        acc = np.full((r, LANES), ident, dtype=np.uint32)
        for j in range(chunks):
            acc = step(acc, padded[:, j * LANES:(j + 1) * LANES])
        return ref.RowTree(step, acc).reshape(r, 1)
    if b is not None:
        b = np.broadcast_to(b, a.shape)
    if op in ref.BINARY:
        return ref.BINARY[op](a, b)
    if op in ref.COMPARE:
        return np.where(ref.CmpMask(op, a, b), np.uint32(ref.ONE), np.uint32(0))
    if op == "select":
        return np.where((m & 0x7FFFFFFF) != 0, a, b)
    return ref.UNARY[op](a)


class Sim:
    def __init__(self, sim, work):
        self.sim, self.work, self.n = sim, work, 0

    def Save(self, bits, dtype=np.float32):
        self.n += 1
        path = os.path.join(self.work, f"in{self.n}.npy")
        np.save(path, bits.view(dtype) if dtype != np.uint32 else bits)
        return path

    def Run(self, op, a, b=None, m=None, extra=()):
        args = [self.sim, "vector", op.upper(), "--a", self.Save(a), "--json"]
        if b is not None:
            args += ["--b", self.Save(b)]
        if m is not None:
            args += ["--mask", self.Save(m)]
        out = os.path.join(self.work, "out.npy")
        if os.path.exists(out):
            os.remove(out)
        p = subprocess.run(args + ["--out", out, *extra], capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            raise AssertionError(f"{' '.join(args)}: exit {p.returncode}\n{p.stderr}")
        got = np.load(out)
        assert got.dtype == np.float32, got.dtype
        return got.view(np.uint32), json.loads(p.stdout.strip().splitlines()[-1])


def Check(sim, op, a, b=None, m=None):
    got, summary = sim.Run(op, a, b, m)
    want = Expected(op, a, b, m)
    if got.shape != want.shape or not np.array_equal(got, want):
        bad = np.argwhere(got != want) if got.shape == want.shape else []
        where = tuple(bad[0]) if len(bad) else None
        detail = f"first at {where}: got {got[where]:#010x} want {want[where]:#010x}" if where else "shape"
        raise AssertionError(f"{op} {a.shape} b {None if b is None else b.shape}: {len(bad)} lanes differ; "
                             f"{detail} (got shape {got.shape}, want {want.shape})")
    assert summary["cycles"] > 0 and summary["op"] == op.upper(), summary
    return summary


def Ops(sim, rng):
    names = sorted(ref.OPS, key=lambda n: ref.OPS[n])
    assert len(names) == 29, names
    for op in names:
        for shape in ((3, 21), (2, 64)):
            a = Values(rng, shape, op)
            b = Values(rng, shape, op) if ref.IsBinary(op) else None
            m = Values(rng, shape, op) if op == "select" else None
            s = Check(sim, op, a, b, m)
        print(f"{op}: 2 shapes bit for bit ({s['cycles']} cycles at {shape[0]}x{shape[1]})")


def Shapes(sim, rng):
    for cols in (1, 2, 15, 16, 17, 31, 33, 48, 63, 64, 65):
        for op in ("add", "exp", "row_sum", "acc_max"):
            rows = 1 + int(rng.integers(0, 9))
            a = Values(rng, (rows, cols), op)
            b = Values(rng, (rows, cols), op) if op == "add" else None
            Check(sim, op, a, b)
    for cols in (1, 15, 16, 17, 33, 64, 65):
        Check(sim, "softmax", Values(rng, (1 + int(rng.integers(0, 9)), cols), "softmax"))
    print("cols 1..65: add, exp, row_sum, acc_max, softmax bit for bit")
    # Rows past one VMEM tile (several tiles, double buffering, the column reductions' carry), each broadcast mode.
    a = Values(rng, (1100, 40), "add")
    for op in ("acc_sum", "row_max", "tanh", "softmax"):
        s = Check(sim, op, a)
        assert s["tile_rows"] < 1100, s
    Check(sim, "mul", a, Values(rng, (1100, 40), "mul"))
    Check(sim, "sub", a, Values(rng, (1, 40), "sub"))
    Check(sim, "div", a, Values(rng, (1, 1), "div"))
    Check(sim, "select", a, Values(rng, (1, 1), "select"), Values(rng, (1100, 40), "select"))
    print("1100x40 over several tiles: acc_sum, row_max, tanh, softmax, mul, sub (ROW), div (SCALAR), select bit for "
          "bit")


def FastForward(sim, rng):
    a = Values(rng, (300, 40), "add")
    b = Values(rng, (1, 40), "add")
    for op, bb in (("add", b), ("row_sum", None), ("exp", None)):
        fast, s_fast = sim.Run(op, a, bb)
        slow, s_slow = sim.Run(op, a, bb, extra=("--no-fast-forward",))
        assert np.array_equal(fast, slow), op
        assert s_fast["cycles"] == s_slow["cycles"] and s_fast["run_cycles"] == s_slow["run_cycles"], (s_fast, s_slow)
    print("add (ROW), row_sum, exp at 300x40: the same results and cycles with the fast paths off")


def Bad(sim_path, work):
    a = os.path.join(work, "a.npy")
    np.save(a, np.ones((3, 5), dtype=np.float32))
    np.save(os.path.join(work, "b_shape.npy"), np.ones((2, 5), dtype=np.float32))
    np.save(os.path.join(work, "b_f64.npy"), np.ones((3, 5), dtype=np.float64))
    np.save(os.path.join(work, "a_i8.npy"), np.ones((3, 5), dtype=np.int8))
    np.save(os.path.join(work, "a_3d.npy"), np.ones((3, 5, 2), dtype=np.float32))
    np.save(os.path.join(work, "a_wide.npy"), np.ones((1, 4097), dtype=np.float32))
    w = lambda f: os.path.join(work, f)  # noqa: E731
    cases = [
        (["FROB", "--a", a], "unknown op 'FROB'"),
        (["add", "--a", a, "--b", w("b_shape.npy")], "shape mismatch: A is 3x5 but B is 2x5"),
        (["add", "--a", a, "--b", w("b_f64.npy")], "b_f64.npy: .*dtype '<f8'"),
        (["exp", "--a", w("a_i8.npy")], "a_i8.npy: A must be float32 \\('<f4'\\) or int32"),
        (["exp", "--a", w("a_3d.npy")], "3 dimensions"),
        (["exp", "--a", w("a_wide.npy")], "4097 columns; at most 4096"),
        (["add", "--a", a], "ADD is a binary op: it needs --b|add is a binary op: it needs --b"),
        (["exp", "--a", a, "--b", a], "reads no --b"),
        (["select", "--a", a, "--b", a], "SELECT needs --mask"),
        (["exp", "--a", w("missing.npy")], "missing.npy"),
    ]
    import re
    for args, pattern in cases:
        out = os.path.join(work, "never.npy")
        p = subprocess.run([sim_path, "vector", *args, "--out", out], capture_output=True, text=True, timeout=60)
        msg = p.stdout + p.stderr
        if p.returncode != 2 or not re.search(pattern, msg) or os.path.exists(out):
            raise AssertionError(f"{args}: exit {p.returncode}, output {'written' if os.path.exists(out) else 'none'}"
                                 f", expected /{pattern}/ in:\n{msg}")
    print(f"{len(cases)} bad inputs: exit 2, the problem named, no output")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    sim_path, what = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(46)
    with tempfile.TemporaryDirectory() as work:
        sim = Sim(sim_path, work)
        {"ops": lambda: Ops(sim, rng), "shapes": lambda: Shapes(sim, rng), "bad": lambda: Bad(sim_path, work),
         "fast_forward": lambda: FastForward(sim, rng)}[what]()
    return 0


if __name__ == "__main__":
    sys.exit(main())
