"""The vector unit (rtl/tpu_vpu.sv, Verilated behind vpu_harness) against the NumPy reference (vpu_reference.py),
bit for bit, and the reference against float64 within the bounds docs/vector-unit.md states:

  - every unary op over every bf16 input (65,536 values as fp32) and over spreads of fp32 (edges: +-0,
    denormals, the smallest and largest normals, inf, NaNs with payloads; random bit patterns; dense grids of the
    ops' useful ranges); every binary op over edge x edge pairs and random pairs, with each broadcast mode;
  - error against float64 (ulps of the fp32 result) over every bf16 input and a dense fp32 sweep, against the
    table in docs/vector-unit.md ("Measured error"): the test fails when a measured maximum exceeds the stated
    bound or differs from the figure the page prints;
  - row and across-row reductions bit-exact against the reference's tree and order, and within the first-order
    bound of that order against float64;
  - refused commands (unknown op, unknown broadcast mode, broadcast on an op without b): error flag, nothing to
    write, counted once per command; the pipeline's latency and one row per cycle; the same results under
    seeded input gaps and output stalls.

usage: vpu_test.py HARNESS [exact|errors] [--table]    exit 0 pass, 1 a difference, 77 no NumPy (skipped)
       vpu_test.py HARNESS wave OUT.fst
exact (default) runs everything but the error table (CTest rtl.vpu); errors measures the table (rtl.vpu.errors);
--table prints it as docs/vector-unit.md shows it; wave runs one softmax row through the unit, command after
command, checks it and writes its waveform (docs/vector-unit.md's picture, rtl/tpu_vpu.gtkw).
"""

import os
import re
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("skipped: NumPy is not installed for", sys.executable)
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vpu_reference as ref  # noqa: E402

LATENCY = 3  # rtl/tpu_vpu.sv: a row's result is taken at the third edge after the row
F32_EDGES = [
    0x00000000, 0x80000000, 0x00000001, 0x007FFFFF, 0x80400000,  # zeros, denormals
    0x00800000, 0x80800000, 0x00800001, 0x00FFFFFF, 0x01000000,  # smallest normals
    0x3F800000, 0xBF800000, 0x3F800001, 0x3F7FFFFF, 0x40000000, 0x3F000000, 0x3FB504F3, 0x3F3504F3,  # near 1
    0x4B000000, 0x4B800000, 0x4F000000, 0xCF000000, 0x4EFFFFFF, 0xCF000001, 0x42FE0000, 0xC3000000,  # int limits
    0x3F200000, 0x3F1FFFFF, 0xBF200000, 0x42B17218, 0x42B20000, 0xC2D00000, 0xC2AEAC50, 0x42B17217,  # op limits
    0x3F000001, 0xBEFFFFFF, 0x3FC00000, 0x40200000, 0xC0200000,  # ties for conversions
    0x7F7FFFFF, 0xFF7FFFFF, 0x7F000000, 0x7EFFFFFF,  # the largest
    0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFFFFFFF, 0x7FA00005,  # inf, NaNs
]


class Harness:
    def __init__(self, path):
        self.path = path
        self.lanes = None

    def Stream(self, rows, stall_seed=0, wave=None):
        """rows: structured list of (op, bcast, first, last, mask, a [L], b [L]) as arrays; returns (data [n, L],
        mask [n], flags [n], err_count, cycles, latency)."""
        op, bcast, flags, mask, a, b = rows
        n = len(op)
        words = np.concatenate([np.stack([op, bcast, flags, mask], axis=1).astype(np.uint32), a, b], axis=1)
        args = [self.path, str(stall_seed)] + ([wave] if wave else [])
        out = subprocess.run(args, input=words.astype("<u4").tobytes(), capture_output=True, check=True).stdout
        w = np.frombuffer(out, dtype="<u4")
        lanes = int(w[-1])
        assert lanes == a.shape[1], f"harness has {lanes} lanes, rows have {a.shape[1]}"
        body = w[:-4].reshape(n, lanes + 2)
        return body[:, :lanes], body[:, lanes], body[:, lanes + 1], int(w[-4]), int(w[-3]), int(w[-2])

    def Lanes(self):
        if self.lanes is None:
            z = np.zeros((1, 256), dtype=np.uint32)  # any width: the harness says its own
            words = np.concatenate([np.array([[ref.OPS["add"], 0, 3, 0]], dtype=np.uint32), z], axis=1)
            for lanes in (8, 16, 32, 64, 128):
                rows = words[:, : 4 + 2 * lanes]
                r = subprocess.run([self.path], input=rows.astype("<u4").tobytes(), capture_output=True)
                if r.returncode == 0:
                    self.lanes = int(np.frombuffer(r.stdout, dtype="<u4")[-1])
                    break
        return self.lanes


def Rows(op, a, b=None, lanes=16, bcast=0, mask=None, rows_per_cmd=None):
    """Values a (and b) laid out as rows of `lanes`, padded with +1.0; every row its own command unless
    rows_per_cmd is given."""
    a = np.asarray(a, dtype=np.uint32).ravel()
    n = -(-a.size // lanes)
    pad = n * lanes - a.size
    A = np.concatenate([a, np.full(pad, ref.ONE, np.uint32)]).reshape(n, lanes)
    if b is None:
        B = np.zeros_like(A)
    else:
        b = np.asarray(b, dtype=np.uint32).ravel()
        B = np.concatenate([b, np.full(n * lanes - b.size, ref.ONE, np.uint32)]).reshape(n, lanes)
    per = rows_per_cmd or 1
    idx = np.arange(n)
    flags = ((idx % per == 0).astype(np.uint32)) | (((idx % per == per - 1) | (idx == n - 1)).astype(np.uint32) << 1)
    m = np.zeros(n, np.uint32) if mask is None else np.asarray(mask, np.uint32)
    return (np.full(n, op, np.uint32), np.full(n, bcast, np.uint32), flags, m, A, B)


class Check:
    def __init__(self):
        self.failures = 0
        self.results = 0

    def Equal(self, what, got, want, inputs=()):
        got, want = np.asarray(got), np.asarray(want)
        self.results += got.size
        bad = np.argwhere(got != want)
        if bad.size:
            self.failures += len(bad)
            for i in bad[:5]:
                i = tuple(i)
                extra = " ".join(f"{n} {np.asarray(v)[i]:#010x}" for n, v in inputs)
                print(f"FAIL {what} at {i}: {extra} RTL {got[i]:#010x}, reference {want[i]:#010x}")
        return not bad.size

    def That(self, what, ok):
        self.results += 1
        if not ok:
            self.failures += 1
            print(f"FAIL {what}")


def Spread(rng, n):
    """fp32 bit patterns: the edges, random patterns over every exponent, values near 1 and the ops' ranges."""
    with np.errstate(over="ignore"):
        huge = ref.Bits(np.exp(rng.uniform(-90, 90, n)).astype(np.float32))
    parts = [np.array(F32_EDGES, np.uint32), rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32),
             ref.Bits(rng.uniform(-12, 12, n).astype(np.float32)),
             ref.Bits(rng.uniform(-100, 100, n).astype(np.float32)),
             ref.Bits((rng.standard_normal(n) * 1e-3).astype(np.float32)), huge]
    return np.concatenate(parts)


def EveryBf16():
    return (np.arange(1 << 16, dtype=np.uint32) << 16).astype(np.uint32)


def DenseF32():
    """A dense sweep of fp32: every 2^12-th bit pattern over both signs (2^20 values, 2^11 in every binade), with
    a varying low part so the mantissas are not all alike."""
    base = np.arange(0, 1 << 32, 1 << 12, dtype=np.uint64)
    low = (base * 2654435761) >> 20 & 0xFFF
    return (base | low).astype(np.uint32)


ERROR_OPS = ["exp", "log", "tanh", "logistic", "rsqrt", "sqrt", "recip"]


def MeasureErrors():
    """{op: (max ulps over every bf16 input, max ulps over the dense fp32 sweep)} of the reference (which the RTL
    equals bit for bit on every bf16 input and on the spreads), plus the exact-special checks."""
    table = {}
    special_bad = []
    bf, dense = EveryBf16(), DenseF32()
    for op in ERROR_OPS:
        maxima = []
        for x in (bf, dense):
            got = ref.UNARY[op](x)
            truth = ref.Truth(op, x)
            err = ref.UlpError(got, truth)
            maxima.append(float(np.nanmax(err)))
            # Where the truth is inf, NaN, or below 2^-126 the result is exactly inf, NaN or a zero.
            g = ref.F(got).astype(np.float64)
            with np.errstate(all="ignore"):
                tiny = np.isfinite(truth) & (np.abs(truth) < 2.0**-126)
                big = np.isfinite(truth) & (np.abs(truth) >= 2.0**128)
            ok = np.where(np.isnan(truth), np.isnan(g), True)
            ok &= np.where(np.isinf(truth), g == truth, True)
            ok &= np.where(tiny, (g == 0) | (np.abs(g) == 2.0**-126), True)
            ok &= np.where(big, np.isinf(g), True)
            if not ok.all():
                i = np.nonzero(~ok)[0][0]
                special_bad.append(f"{op}({x[i]:#010x}) = {got[i]:#010x}, float64 {truth[i]!r}")
        table[op] = tuple(maxima)
    return table, special_bad


def DocTable():
    """{op: (bf16 max, f32 max, bound)} from docs/vector-unit.md's "Measured error" table."""
    path = os.path.join(ref.ROOT, "docs", "vector-unit.md")
    rows = {}
    for line in open(path, encoding="utf-8"):
        m = re.match(r"\|\s*`?(\w+)`?\s*\|\s*([\d.]+)\s*\|\s*([\d.]+)\s*\|\s*([\d.]+)\s*\|", line)
        if m and m.group(1) in ERROR_OPS:
            rows[m.group(1)] = (m.group(2), m.group(3), m.group(4))
    return rows


def IeeeAgrees(check, name, got, a, b=None):
    """Where the operands and NumPy's IEEE float32 result are normal numbers, the correctly rounded ops equal it bit
    for bit (an independent check of the rounding: NumPy's float32 arithmetic is IEEE)."""
    fa = ref.F(a)
    fb = None if b is None else ref.F(b)
    with np.errstate(all="ignore"):
        ieee = {"add": lambda: fa + fb, "sub": lambda: fa - fb, "mul": lambda: fa * fb, "div": lambda: fa / fb,
                "sqrt": lambda: np.sqrt(fa), "recip": lambda: np.float32(1) / fa}[name]()
    normal = lambda v: np.isfinite(v) & (np.abs(v) >= np.float32(2.0**-126))  # noqa: E731
    with np.errstate(invalid="ignore"):
        use = normal(fa) & normal(ieee) & (True if fb is None else normal(fb))
    check.That(f"{name}: {int(use.sum())} normal results equal IEEE float32",
               bool(use.sum() > 1000) and np.array_equal(got[use], ref.Bits(ieee)[use]))


def Commands(h, op, a, b=None, bcast="none", L=16):
    """One command per row r of a [R, k, L] (k rows each; b likewise, or [R, 1, L] for a broadcast): the output
    rows [R, k, L]."""
    r, k, _ = a.shape
    bb = np.zeros_like(a) if b is None else np.broadcast_to(b, a.shape) if bcast == "none" else \
        np.concatenate([np.broadcast_to(b[:, :1], (r, 1, L)), np.zeros((r, k - 1, L), np.uint32)], axis=1)
    idx = np.arange(r * k) % k
    flags = (idx == 0).astype(np.uint32) | ((idx == k - 1).astype(np.uint32) << 1)
    rows = (np.full(r * k, ref.OPS[op], np.uint32), np.full(r * k, ref.BCAST[bcast], np.uint32), flags,
            np.zeros(r * k, np.uint32), a.reshape(-1, L).astype(np.uint32), bb.reshape(-1, L).astype(np.uint32))
    data, _, flags_o, errs, _, _ = h.Stream(rows)
    assert errs == 0 and (flags_o & 1).sum() == 0, f"{op}: refused"
    return data.reshape(r, k, L)


def Kernels(h, check, rng):
    """Softmax and layer norm rows of 4 chunks, run command by command through the unit as a firmware kernel
    would, against vpu_reference.Softmax / LayerNorm bit for bit and against float64."""
    L = h.Lanes()
    n = 4 * L
    x = np.concatenate([rng.standard_normal((24, n)) * 3, rng.uniform(-80, 80, (4, n)),
                        rng.standard_normal((4, n)) * 1e-3]).astype(np.float32)
    x[0, :5] = [0.0, -0.0, 88.0, -100.0, 1e-40]  # zeros, a big and a tiny exponent, a denormal
    xb = ref.Bits(x)
    r = len(x)
    c = xb.reshape(r, 4, L)
    last = lambda v: v[:, -1:]  # noqa: E731  (an accumulator's value: its command's last row)
    m = last(Commands(h, "row_max", last(Commands(h, "acc_max", c, L=L)), L=L))
    e = Commands(h, "exp", Commands(h, "sub", c, m, "scalar", L), L=L)
    s = last(Commands(h, "row_sum", last(Commands(h, "acc_sum", e, L=L)), L=L))
    y = Commands(h, "div", e, s, "scalar", L).reshape(r, n)
    check.Equal("softmax", y, ref.Softmax(xb, L))
    x64 = ref.F(ref.Daz(xb)).astype(np.float64)
    t = np.exp(x64 - x64.max(axis=1, keepdims=True))
    t /= t.sum(axis=1, keepdims=True)
    # Relative error: a few ulps from exp, the sum and the division, plus the rounding of x - max (half an ulp of
    # the difference, which exp turns into a relative error): 2^-24 (8 + 2 max|x - max|) per row.
    err = np.abs(ref.F(y) - t) / np.maximum(t, 2.0**-126)
    bound = 2.0**-24 * (8 + 2 * np.abs(x64 - x64.max(axis=1, keepdims=True)).max(axis=1, keepdims=True))
    big = t > 2.0**-100  # away from the flush
    check.That(f"softmax: relative error at most {(err / bound)[big].max():.2f} of the bound 2^-24 (8 + 2 max|x - m|)",
               (err <= bound)[big].all() and np.abs(ref.F(y) - t)[~big].max(initial=0) <= 2.0**-100)
    inv_n = np.full((r, 1, L), ref.Bits(np.float32(1.0 / n)), np.uint32)
    mean = Commands(h, "mul", last(Commands(h, "row_sum", last(Commands(h, "acc_sum", c, L=L)), L=L)), inv_n, L=L)
    d = Commands(h, "sub", c, mean, "scalar", L)
    dd = Commands(h, "mul", d, d, L=L)
    var = Commands(h, "mul", last(Commands(h, "row_sum", last(Commands(h, "acc_sum", dd, L=L)), L=L)), inv_n, L=L)
    eps = np.full((r, 1, L), 0x3727C5AC, np.uint32)
    scale = Commands(h, "rsqrt", Commands(h, "add", var, eps, L=L), L=L)
    y = Commands(h, "mul", d, scale, "scalar", L).reshape(r, n)
    check.Equal("layer norm", y, ref.LayerNorm(xb, L))
    mu = x64.mean(axis=1, keepdims=True)
    t = (x64 - mu) / np.sqrt(((x64 - mu) ** 2).mean(axis=1, keepdims=True) + 1e-5)
    err = np.abs(ref.F(y) - t).max()
    check.That(f"layer norm: absolute error {err:.3g} against float64 (bound 2^-16)", err <= 2.0**-16)


def Mixed(h, check, rng):
    """A random stream: commands of 1..6 rows with any op (refused codes too) and broadcast mode, back to back,
    plain and under two stall patterns, against vpu_reference.Run: the pipeline's hand-over from one op, command,
    broadcast row or accumulator to the next."""
    L = h.Lanes()
    spread = Spread(rng, 500)
    codes = list(ref.OPS.values()) + [12, 40, 63]
    beats = []
    while len(beats) < 3000:
        op = int(rng.choice(codes))
        name = ref.OP_NAMES.get(op, "")
        bc = int(rng.choice([0, 1, 2, 3])) if ref.IsBinary(name) or rng.random() < 0.05 else 0
        k = int(rng.integers(1, 7))
        for r in range(k):
            beats.append(dict(op=op, bcast=bc, first=r == 0, last=r == k - 1, a=rng.choice(spread, L),
                              b=rng.choice(spread, L), mask=int(rng.integers(0, 1 << L))))
    rows = (np.array([b["op"] for b in beats], np.uint32), np.array([b["bcast"] for b in beats], np.uint32),
            np.array([int(b["first"]) | int(b["last"]) << 1 for b in beats], np.uint32),
            np.array([b["mask"] for b in beats], np.uint32), np.stack([b["a"] for b in beats]).astype(np.uint32),
            np.stack([b["b"] for b in beats]).astype(np.uint32))
    want, want_mask, want_err, _, want_count = ref.Run(beats, L)
    for seed in (0, 3, 4):
        data, mask, flags, errs, _, _ = h.Stream(rows, stall_seed=seed)
        check.Equal(f"mixed stream (stall seed {seed})", data, want, [("a", rows[4]), ("b", rows[5])])
        check.Equal(f"mixed stream mask (stall seed {seed})", mask, want_mask.astype(np.uint32))
        check.Equal(f"mixed stream err (stall seed {seed})", flags & 1, want_err.astype(np.uint32))
        check.That(f"mixed stream: error count {errs}, reference {want_count}", errs == want_count)


def Exact(h, check):
    """Everything bit for bit: unary, binary, broadcast, reductions, refused commands, latency, stalls."""
    L = h.Lanes()
    rng = np.random.default_rng(46)

    # ---- every unary op: every bf16 input and the spread, one stream per op.
    spread = Spread(rng, 4000)
    every = EveryBf16()
    for name, fn in ref.UNARY.items():
        if name == "bf16_to_f32":
            x = np.concatenate([np.arange(1 << 16, dtype=np.uint32), spread])  # every bf16 pattern, junk above
        elif name == "s8_to_f32":
            x = np.concatenate([np.arange(1 << 16, dtype=np.uint32), spread])  # every int8, junk above
        elif name == "s32_to_f32":
            x = np.concatenate([spread, np.array([0, 1, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0x01000001, 0x01000003,
                                                  0xFEFFFFFF, 0x00FFFFFF], np.uint32)])
        else:
            x = np.concatenate([every, spread])
        rows = Rows(ref.OPS[name], x, lanes=L)
        data, _, flags, errs, _, _ = h.Stream(rows)
        want = fn(rows[4].ravel()).reshape(-1, L)
        check.Equal(f"{name}", data, want, [("a", rows[4])])
        if name in ("sqrt", "recip"):
            IeeeAgrees(check, name, data, rows[4])
        check.That(f"{name}: every row written, no error", bool((flags == 2 | (4 * ((rows[2] >> 1) & 1))).all())
                   and errs == 0)

    # ---- binary ops: edge x edge, random pairs, close values; then scalar and row broadcast.
    edges = np.array(F32_EDGES, np.uint32)
    ea, eb = np.repeat(edges, edges.size), np.tile(edges, edges.size)
    ra, rb = Spread(rng, 3000), Spread(rng, 3000)
    rng.shuffle(rb)
    near = ra ^ rng.integers(0, 8, ra.size, dtype=np.uint32)  # neighbours: ties of compare, cancellation
    xa, xb = np.concatenate([ea, ra, ra]), np.concatenate([eb, rb, near])
    mask_bits = rng.integers(0, 1 << L, -(-xa.size // L), dtype=np.uint64).astype(np.uint32)
    for name in list(ref.BINARY) + list(ref.COMPARE) + ["select"]:
        rows = Rows(ref.OPS[name], xa, xb, lanes=L, mask=mask_bits)
        data, mask, flags, errs, _, _ = h.Stream(rows)
        A, B = rows[4], rows[5]
        if name in ref.BINARY:
            want = ref.BINARY[name](A, B)
            want_mask = np.zeros(len(A), np.uint32)
        elif name in ref.COMPARE:
            m = ref.CmpMask(name, A, B)
            want = np.where(m, np.uint32(ref.ONE), np.uint32(0))
            want_mask = (m.astype(np.uint64) << np.arange(L, dtype=np.uint64)).sum(axis=1).astype(np.uint32)
        else:
            bits = ((mask_bits[:, None] >> np.arange(L, dtype=np.uint32)) & 1).astype(bool)
            want = np.where(bits, A, B)
            want_mask = np.zeros(len(A), np.uint32)
        check.Equal(name, data, want, [("a", A), ("b", B)])
        if name in ("add", "sub", "mul", "div"):
            IeeeAgrees(check, name, data, A, B)
        check.Equal(f"{name} mask", mask, want_mask)
        check.That(f"{name}: no error", errs == 0)

    # Broadcast: commands of 1..5 rows, scalar and row modes, every binary op; the reference walks the rows.
    beats = []
    for name in list(ref.BINARY) + list(ref.COMPARE) + ["select"]:
        for bc in ("scalar", "row"):
            for rows_in_cmd in (1, 3, 5):
                for r in range(rows_in_cmd):
                    beats.append(dict(op=ref.OPS[name], bcast=ref.BCAST[bc], first=r == 0, last=r == rows_in_cmd - 1,
                                      a=rng.choice(spread, L), b=rng.choice(spread, L),
                                      mask=int(rng.integers(0, 1 << L))))
    # Reductions: rows with specials, and commands of 1..9 rows for the accumulators.
    for name in ("row_sum", "row_max"):
        for _ in range(300):
            pick = spread if rng.random() < 0.3 else ref.Bits(rng.standard_normal(L).astype(np.float32))
            beats.append(dict(op=ref.OPS[name], bcast=0, first=True, last=True, a=rng.choice(pick, L),
                              b=np.zeros(L, np.uint32), mask=0))
    for name in ("acc_sum", "acc_max"):
        for rows_in_cmd in (1, 2, 5, 9, 9, 9):
            for r in range(rows_in_cmd):
                pick = spread if rng.random() < 0.2 else ref.Bits(rng.standard_normal(L).astype(np.float32))
                beats.append(dict(op=ref.OPS[name], bcast=0, first=r == 0, last=r == rows_in_cmd - 1,
                                  a=rng.choice(pick, L), b=np.zeros(L, np.uint32), mask=0))
    # Refused commands, between good ones: unknown ops, broadcast mode 3, broadcast on unary and reduction ops;
    # a 3-row command refused in its middle row counts once.
    bad_cmds = 0
    for op, bc in [(10, 0), (15, 0), (25, 0), (31, 0), (38, 0), (47, 0), (52, 0), (63, 0), (ref.OPS["add"], 3),
                   (ref.OPS["exp"], ref.BCAST["scalar"]), (ref.OPS["row_sum"], ref.BCAST["row"]),
                   (ref.OPS["acc_sum"], ref.BCAST["scalar"])]:
        beats.append(dict(op=op, bcast=bc, first=True, last=True, a=rng.choice(spread, L), b=rng.choice(spread, L),
                          mask=0))
        beats.append(dict(op=ref.OPS["add"], bcast=0, first=True, last=True, a=rng.choice(spread, L),
                          b=rng.choice(spread, L), mask=0))
        bad_cmds += 1
    for r, op in enumerate([ref.OPS["acc_sum"], 60, ref.OPS["acc_sum"]]):
        beats.append(dict(op=op, bcast=0, first=r == 0, last=r == 2, a=rng.choice(spread, L),
                          b=np.zeros(L, np.uint32), mask=0))
    bad_cmds += 1
    rows = (np.array([b["op"] for b in beats], np.uint32), np.array([b["bcast"] for b in beats], np.uint32),
            np.array([int(b["first"]) | int(b["last"]) << 1 for b in beats], np.uint32),
            np.array([b["mask"] for b in beats], np.uint32), np.stack([b["a"] for b in beats]).astype(np.uint32),
            np.stack([b["b"] for b in beats]).astype(np.uint32))
    want, want_mask, want_err, want_write, want_count = ref.Run(beats, L)
    data, mask, flags, errs, cycles, latency = h.Stream(rows)
    check.Equal("broadcast, reductions, refused", data, want, [("a", rows[4]), ("b", rows[5])])
    check.Equal("broadcast, reductions, refused: mask", mask, want_mask.astype(np.uint32))
    check.Equal("flags", flags, (want_err.astype(np.uint32) | want_write.astype(np.uint32) << 1 |
                                 ((rows[2] >> 1) & 1) << 2))
    check.That(f"error count {errs}, reference {want_count}, refused commands {bad_cmds}",
               errs == want_count == bad_cmds)
    check.That(f"refused rows are written as zeros: {int(want_err.sum())} rows", not data[want_err].any())
    # Pipelined: the first result LATENCY edges after the first row, then one row a cycle.
    n = len(beats)
    check.That(f"latency {latency} edges (stated {LATENCY})", latency == LATENCY)
    check.That(f"{n} rows in {cycles} cycles (one a cycle: {n + LATENCY})", cycles == n + LATENCY)
    # Under input gaps and output stalls, the same results.
    for seed in (1, 2):
        d2, m2, f2, e2, c2, _ = h.Stream(rows, stall_seed=seed)
        check.That(f"stall seed {seed}: same results ({c2} cycles)", np.array_equal(d2, data) and
                   np.array_equal(m2, mask) and np.array_equal(f2, flags) and e2 == errs and c2 > cycles)

    # The reduction's order against float64: |got - sum| <= levels * 2^-24 * sum|x| (first order, + a margin of
    # one ulp of the tiny terms), for rows of finite normal values whose result is finite.
    for i, b in enumerate(beats):
        if b["op"] == ref.OPS["row_sum"] and not want_err[i]:
            with np.errstate(invalid="ignore"):
                x = ref.F(ref.Daz(b["a"])).astype(np.float64)
            got = float(ref.F(want[i, 0]))
            if np.isfinite(x).all() and np.isfinite(got):
                bound = np.log2(L) * 2.0**-24 * np.abs(x).sum() * (1 + 1e-6) + 2.0**-126
                check.That(f"row_sum row {i}: error {abs(got - x.sum()):.3g} within {bound:.3g}",
                           abs(got - x.sum()) <= bound)

    # ACC_SUM's sequential order against float64, lane by lane, at each command's last row:
    # |got - sum| <= (R - 1) * 2^-24 * sum|x| (first order, with a margin) for finite rows and results.
    rows_x = []
    for i, b in enumerate(beats):
        if b["op"] != ref.OPS["acc_sum"] or want_err[i]:
            continue
        if b["first"]:
            rows_x = []
        with np.errstate(invalid="ignore"):
            rows_x.append(ref.F(ref.Daz(b["a"])).astype(np.float64))
        if b["last"]:
            x = np.stack(rows_x)
            got = ref.F(want[i]).astype(np.float64)
            ok = np.isfinite(x).all(axis=0) & np.isfinite(got)
            bound = (len(rows_x) - 1) * 2.0**-24 * np.abs(x).sum(axis=0) * (1 + 1e-6) + 2.0**-126
            err = np.abs(got - x.sum(axis=0))
            check.That(f"acc_sum command ending at row {i} ({len(rows_x)} rows): error within the bound",
                       bool((err[ok] <= bound[ok]).all()))

    Kernels(h, check, rng)
    Mixed(h, check, rng)

    # The reference's bf16 conversions against ml_dtypes (RNE), where it is installed, on the values where the
    # rules agree (ml_dtypes keeps denormals and NaN payloads).
    try:
        import ml_dtypes

        b16 = np.arange(1 << 16, dtype=np.uint16)
        vals = b16.view(ml_dtypes.bfloat16).astype(np.float32)
        normal = np.isfinite(vals) & ((b16 & 0x7F80) != 0)
        check.That("Bf16ToF32 equals ml_dtypes on every normal bf16",
                   np.array_equal(vals.view(np.uint32)[normal], ref.Bf16ToF32(b16)[normal]))
        f = rng.integers(0x00800000, 0x7F800000, 200000, dtype=np.uint32)
        f |= rng.integers(0, 2, 200000, np.uint32) << 31
        ml = f.view(np.float32).astype(ml_dtypes.bfloat16).view(np.uint16).astype(np.uint32)
        check.That("F32ToBf16 equals ml_dtypes (RNE) on normal fp32", np.array_equal(ml, ref.F32ToBf16(f)))
    except ImportError:
        print("note: ml_dtypes is not installed; the bf16 conversions are not cross-checked")

    print(f"{'FAIL' if check.failures else 'PASS'}: {check.results} results, {check.failures} differences "
          f"(L = {L}, latency {LATENCY})")
    return 1 if check.failures else 0


def Errors(h, check):
    """Error against float64, over every bf16 input and the dense fp32 sweep; the page's table."""
    L = h.Lanes()
    table, special_bad = MeasureErrors()
    for line in special_bad:
        check.That(f"special value: {line}", False)
    doc = DocTable()
    if "--table" in sys.argv:
        print("| op | every bf16 input | dense fp32 sweep | stated bound |")
        for op, (m_bf, m_f) in table.items():
            print(f"| `{op}` | {m_bf:.3f} | {m_f:.3f} | {doc.get(op, ('', '', '?'))[2]} |")
    for op, (m_bf, m_f) in table.items():
        if op not in doc:
            check.That(f"docs/vector-unit.md: no row for {op} in the error table", False)
            continue
        d_bf, d_f, bound = doc[op]
        check.That(f"{op}: measured {m_bf:.3f} / {m_f:.3f} ulp, stated bound {bound}",
                   max(m_bf, m_f) <= float(bound))
        check.That(f"{op}: docs/vector-unit.md prints {d_bf} / {d_f}, measured {m_bf:.3f} / {m_f:.3f}",
                   f"{m_bf:.3f}" == d_bf and f"{m_f:.3f}" == d_f)
    # The package's constants are what their definitions give (and the reference reads every one of them).
    derived = ref.DerivedConstants()
    for name, bits in sorted(ref.K.items()):
        if name == "F32QNaN":
            continue
        check.That(f"constant {name} = {bits:#010x}, its definition gives {derived.get(name, 0):#010x}",
                   derived.get(name) == bits)
    # The RTL on the dense sweep too (a sample: the reference equals it bit for bit wherever it is compared).
    sample = DenseF32()[:: 16]
    for op in ERROR_OPS:
        rows = Rows(ref.OPS[op], sample, lanes=L)
        data, _, _, _, _, _ = h.Stream(rows)
        check.Equal(f"{op} (dense sweep sample)", data, ref.UNARY[op](rows[4]), [("a", rows[4])])

    print(f"{'FAIL' if check.failures else 'PASS'}: error table, {check.results} results, {check.failures} "
          f"differences")
    return 1 if check.failures else 0


def Wave(h, check, path):
    """One softmax row of 4 L values as the unit's commands: ACC_MAX (4 rows), ROW_MAX, SUB (scalar), EXP,
    ACC_SUM, ROW_SUM, DIV (scalar); each command waits for the previous one's last result (2 idle cycles after
    its last row), and takes its operands from those results (here: from the reference, which equals them)."""
    L = h.Lanes()
    rng = np.random.default_rng(7)
    x = ref.Bits((rng.standard_normal(4 * L) * 2).astype(np.float32)).reshape(4, L)
    ops = ref.OPS
    acc_max = ref.Run([dict(op=ops["acc_max"], bcast=0, first=i == 0, last=i == 3, a=x[i], b=x[i], mask=0)
                       for i in range(4)], L)[0][-1]
    m = ref.RowTree(ref.Max, acc_max)
    d = ref.Sub(x, m)
    e = ref.Exp(d)
    acc = np.full(L, ref.SIGN, np.uint32)
    for i in range(4):
        acc = ref.Add(acc, e[i])
    s = ref.RowTree(ref.Add, acc)
    zero = np.zeros(L, np.uint32)
    cmds = [("acc_max", 0, x, [zero] * 4), ("row_max", 0, [acc_max], [zero]),
            ("sub", ref.BCAST["scalar"], x, [np.full(L, m, np.uint32)] * 4), ("exp", 0, d, [zero] * 4),
            ("acc_sum", 0, e, [zero] * 4), ("row_sum", 0, [acc], [zero]),
            ("div", ref.BCAST["scalar"], e, [np.full(L, s, np.uint32)] * 4)]
    beats, gaps = [], []
    for c, (name, bc, a_rows, b_rows) in enumerate(cmds):
        for i, (a, b) in enumerate(zip(a_rows, b_rows)):
            beats.append(dict(op=ops[name], bcast=bc, first=i == 0, last=i == len(a_rows) - 1, a=np.asarray(a),
                              b=np.asarray(b), mask=0))
            gaps.append(LATENCY - 1 if i == 0 and c > 0 else 0)
    rows = (np.array([b["op"] for b in beats], np.uint32), np.array([b["bcast"] for b in beats], np.uint32),
            np.array([int(b["first"]) | int(b["last"]) << 1 | g << 8 for b, g in zip(beats, gaps)], np.uint32),
            np.zeros(len(beats), np.uint32), np.stack([b["a"] for b in beats]).astype(np.uint32),
            np.stack([b["b"] for b in beats]).astype(np.uint32))
    want = ref.Run(beats, L)[0]
    data, _, _, errs, cycles, _ = h.Stream(rows, stall_seed=0, wave=path)
    check.Equal("softmax row, command by command", data, want)
    check.Equal("softmax row: the result", data[-4:].reshape(1, -1), ref.Softmax(x.reshape(1, -1), L))
    print(f"softmax of one row of {4 * L} values: {len(beats)} rows in 7 commands, {cycles} cycles; wave {path}")
    print(f"{'FAIL' if check.failures else 'PASS'}: {check.results} results, {check.failures} differences")
    return 1 if check.failures else 0


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    h = Harness(sys.argv[1])
    assert h.Lanes(), "the harness did not answer"
    if "errors" in sys.argv[2:]:
        return Errors(h, Check())
    if sys.argv[2:3] == ["wave"]:
        return Wave(h, Check(), sys.argv[3])
    return Exact(h, Check())


if __name__ == "__main__":
    sys.exit(main())
