"""NumPy reference of the matrix unit's bf16 mode (docs/matrix-unit.md, "bf16 mode"), bit for bit.

Every value is carried as its bit pattern (uint16 for bf16, uint32 for fp32) so that signed zeros and NaN
payloads stay visible. The arithmetic:

  - Denormals are zero, on input and on output (a TPU has no subnormals): an operand with a zero exponent field
    is read as a zero of its sign; a result below 2^-126 in magnitude becomes a zero of its sign.
  - NaN: every NaN result is the canonical quiet NaN 0x7FC00000 (bf16: 0x7FC0), whatever the inputs' payloads.
  - Product (MUL): bf16 x bf16 is exact in fp32 (8 x 8 significand bits = 16 <= 24), so it is formed as an fp32
    with no rounding; outside fp32's normal range it overflows to +-inf (|p| >= 2^128) or flushes to +-0
    (|p| < 2^-126). inf x 0 is NaN.
  - Sum (ADD): one IEEE fp32 addition, round to nearest, ties to even; overflow to +-inf; x + (-x) = +0;
    (-0) + (-0) = -0; inf + (-inf) = NaN.
  - A column of the systolic array starts at -0 (the identity of ADD: -0 + x = x for every x, +0 and -0 too) and
    adds the products of k = 0..N-1 in that order: s = (((-0 + p0) + p1) + ...) + p_{N-1}. A GEMM with K > N adds
    its K tiles' column sums onto the ACC value in tile order: C = (((C_in + s_0) + s_1) + ...), or
    C = ((s_0 + s_1) + ...) without C_in. Rows of a padded K tile (k >= K) have weight +0.

NumPy's float32 operations are IEEE operations with round-to-nearest-even and gradual underflow; the functions
below apply the flushes and the NaN rule around them. For addition the flush of a result is exact: a sum of two
fp32 normals is a multiple of 2^-149, so one below 2^-126 is exact as a denormal and IEEE rounding never touched
it. For products likewise (16 significand bits: a product that lands below 2^-126 is either exact on the
denormal grid or far below it, never rounded up to 2^-126).

ExactAdd / ExactMul re-derive the same results from integers (Python's unbounded ints, explicit RNE), as an
independent check of the NumPy route (test_fp_units.py compares the two).
"""

import numpy as np

F32_QNAN = 0x7FC00000
BF16_QNAN = 0x7FC0
F32_SIGN = 0x80000000
F32_EXP = 0x7F800000
F32_MANT = 0x007FFFFF


def _u32(x):
    return np.asarray(x, dtype=np.uint32)


def Ftz(bits):
    """fp32 bits with denormals replaced by a zero of their sign."""
    bits = _u32(bits)
    return np.where((bits & F32_EXP) == 0, bits & F32_SIGN, bits).astype(np.uint32)


def CanonNan(bits):
    bits = _u32(bits)
    nan = ((bits & F32_EXP) == F32_EXP) & ((bits & F32_MANT) != 0)
    return np.where(nan, np.uint32(F32_QNAN), bits).astype(np.uint32)


def Bf16ToF32Bits(b16):
    return (np.asarray(b16, dtype=np.uint32) << 16).astype(np.uint32)


def _AsF32(bits):
    return _u32(bits).view(np.float32)


def _Bits(f32):
    return np.asarray(f32, dtype=np.float32).view(np.uint32)


def Mul(a16, b16):
    """bf16 x bf16 -> fp32 bits (exact in range; flush, overflow, NaN as in the module docstring)."""
    fa = _AsF32(Ftz(Bf16ToF32Bits(a16)))
    fb = _AsF32(Ftz(Bf16ToF32Bits(b16)))
    with np.errstate(all="ignore"):
        p = fa * fb
    return CanonNan(Ftz(_Bits(p)))


def Add(x32, y32):
    """fp32 + fp32 -> fp32 bits, RNE, denormals flushed on input and output, canonical NaN."""
    fx = _AsF32(Ftz(x32))
    fy = _AsF32(Ftz(y32))
    with np.errstate(all="ignore"):
        s = fx + fy
    return CanonNan(Ftz(_Bits(s)))


def Mac(acc32, a16, b16):
    """What one PE does: acc + a * b, the product exact (Mul), then one RNE add."""
    return Add(acc32, Mul(a16, b16))


def F32ToBf16(bits):
    """fp32 bits -> bf16 bits, round to nearest even, overflow to inf, canonical NaN, denormal results flushed."""
    bits = Ftz(bits).astype(np.uint64)
    nan = ((bits & F32_EXP) == F32_EXP) & ((bits & F32_MANT) != 0)
    lsb = (bits >> 16) & 1
    r = ((bits + 0x7FFF + lsb) >> 16) & 0xFFFF
    r = np.where((r & 0x7F80) == 0, r & 0x8000, r)  # (cannot happen from a normal input; kept for the rule)
    return np.where(nan, BF16_QNAN, r).astype(np.uint16)


def ColumnSums(a16, w16):
    """One array pass: a16 [M, n] bf16 rows, w16 [n, N] bf16 weights -> [M, N] fp32 bits, each column folded
    from -0 over k = 0..n-1."""
    a16 = np.asarray(a16, dtype=np.uint16)
    w16 = np.asarray(w16, dtype=np.uint16)
    m, n = a16.shape
    assert w16.shape[0] == n
    s = np.full((m, w16.shape[1]), F32_SIGN, dtype=np.uint32)
    for k in range(n):
        s = Mac(s, a16[:, k : k + 1], w16[k : k + 1, :])
    return s


def Gemm(a16, b16, n, c_in=None):
    """C = A . B (+ C_in) on an n x n array: A [M, K] bf16, B [K, N] bf16, C_in [M, N] fp32 bits or None.
    K is cut into tiles of n (the last padded with zero weights); each tile's column sums (ColumnSums) are added
    onto the running value in tile order."""
    a16 = np.asarray(a16, dtype=np.uint16)
    b16 = np.asarray(b16, dtype=np.uint16)
    m, k = a16.shape
    assert b16.shape[0] == k
    tiles = max(1, -(-k // n))
    c = None if c_in is None else _u32(c_in).copy()
    for t in range(tiles):
        a_t = np.zeros((m, n), dtype=np.uint16)
        w_t = np.zeros((n, b16.shape[1]), dtype=np.uint16)
        cols = min(n, k - t * n)
        a_t[:, :cols] = a16[:, t * n : t * n + cols]
        w_t[:cols, :] = b16[t * n : t * n + cols, :]
        s = ColumnSums(a_t, w_t)
        c = s if c is None else Add(c, s)
    return c


# ---------------------------------------------------------------- the integer route, for cross-checking


def _Decode(bits, mant_bits):
    """(sign, kind, significand, exponent) with value = (-1)^sign * significand * 2^exponent; kind is 'zero'
    (denormals included), 'inf', 'nan' or 'num'."""
    exp_bits = 8
    sign = bits >> (mant_bits + exp_bits)
    e = (bits >> mant_bits) & 0xFF
    m = bits & ((1 << mant_bits) - 1)
    if e == 0:
        return sign, "zero", 0, 0
    if e == 0xFF:
        return sign, ("inf" if m == 0 else "nan"), 0, 0
    return sign, "num", m | (1 << mant_bits), e - 127 - mant_bits


def _EncodeF32(sign, sig, exp):
    """Rounds (-1)^sign * sig * 2^exp (sig > 0, any size) to fp32 RNE with unbounded exponent, then overflow to
    inf and flush below 2^-126."""
    nbits = sig.bit_length()
    shift = nbits - 24
    if shift > 0:
        q, r = sig >> shift, sig & ((1 << shift) - 1)
        half = 1 << (shift - 1)
        if r > half or (r == half and (q & 1)):
            q += 1
        sig, exp = q, exp + shift
        if sig >> 24:
            sig, exp = sig >> 1, exp + 1
    else:
        sig, exp = sig << -shift, exp + shift
    e = exp + 23 + 127  # biased exponent of 1.f * 2^(exp + 23)
    if e >= 0xFF:
        return (sign << 31) | F32_EXP
    if e <= 0:
        return sign << 31
    return (sign << 31) | (e << 23) | (sig & F32_MANT)


def ExactMul(a16, b16):
    sa, ka, ma, ea = _Decode(int(a16), 7)
    sb, kb, mb, eb = _Decode(int(b16), 7)
    s = sa ^ sb
    if "nan" in (ka, kb) or {ka, kb} == {"inf", "zero"}:
        return F32_QNAN
    if "inf" in (ka, kb):
        return (s << 31) | F32_EXP
    if "zero" in (ka, kb):
        return s << 31
    return _EncodeF32(s, ma * mb, ea + eb)


def ExactAdd(x32, y32):
    sx, kx, mx, ex = _Decode(int(x32), 23)
    sy, ky, my, ey = _Decode(int(y32), 23)
    if "nan" in (kx, ky) or (kx == ky == "inf" and sx != sy):
        return F32_QNAN
    if kx == "inf" or ky == "inf":
        return ((sx if kx == "inf" else sy) << 31) | F32_EXP
    if kx == "zero" and ky == "zero":
        return (sx & sy) << 31
    if kx == "zero":
        return int(Ftz(int(y32)))
    if ky == "zero":
        return int(Ftz(int(x32)))
    e = min(ex, ey)
    v = (-1) ** sx * (mx << (ex - e)) + (-1) ** sy * (my << (ey - e))
    if v == 0:
        return 0
    return _EncodeF32(1 if v < 0 else 0, abs(v), e)
