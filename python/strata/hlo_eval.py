"""The host fallback: HLO ops computed by NumPy on the host, one function per opcode (HOST_OPS), and whole computations
(fusion bodies, reducers, while/conditional/call bodies) evaluated instruction by instruction.

Arithmetic is NumPy's in the HLO element type: integer ops wrap as XLA's do, integer divide truncates toward zero,
float ops compute in the operand type (float32 stays float32). Results are bit-exact with XLA:CPU for integer and
data-movement ops and for float add/subtract/multiply/divide/compare/min/max; a float dot or reduce sums in
NumPy's order and transcendental ops (tanh, exp, log, ...) use NumPy's libm, so those may differ from XLA:CPU in the
last bits (docs/jax-on-the-model.md states the tolerance). An opcode missing here raises UnsupportedOpError naming
it; nothing is silently approximated.
"""
import numpy as np

from .hlo import parse_literal
from .layout import from_bytes, to_bytes


class UnsupportedOpError(NotImplementedError):
    """An HLO opcode (or a form of one) the host fallback does not compute."""


def _same(x, like):
    return np.asarray(x).astype(like.dtype, copy=False)


def _int_divide(a, b):
    if a.dtype.kind in "iu":
        with np.errstate(divide="ignore", invalid="ignore"):
            safe = np.where(b == 0, 1, b)
            q = np.abs(a.astype(np.int64)) // np.abs(safe.astype(np.int64))
            q = np.where((a < 0) != (safe < 0), -q, q)
            # XLA: x / 0 is -1 (all bits set) for integers.
            return np.where(b == 0, -1, q).astype(a.dtype)
    return np.divide(a, b)


def _remainder(a, b):
    if a.dtype.kind in "iu":
        safe = np.where(b == 0, 1, b)
        return np.where(b == 0, a, np.fmod(a, safe)).astype(a.dtype)
    return np.fmod(a, b)


def _round_afz(x):
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t).astype(x.dtype)


def _shift(op):
    def f(a, b):
        bits = a.dtype.itemsize * 8
        big = (b.astype(np.int64) >= bits) | (b.astype(np.int64) < 0)
        s = np.where(big, 0, b).astype(a.dtype)
        if op == "left":
            return np.where(big, 0, np.left_shift(a, s)).astype(a.dtype)
        if op == "arith":
            return np.where(big, np.where(a < 0, -1, 0), np.right_shift(a, s)).astype(a.dtype)
        unsigned = a.view(np.dtype(f"u{a.dtype.itemsize}"))
        return np.where(big, 0, np.right_shift(unsigned, s.view(unsigned.dtype))).view(a.dtype)
    return f


def _convert(x, dtype):
    """XLA's convert: float -> integer saturates (NaN -> 0), as XLA:CPU does."""
    if x.dtype.kind == "f" and dtype.kind in "iu":
        info = np.iinfo(dtype)
        y = np.nan_to_num(x.astype(np.float64), nan=0.0)
        return np.clip(np.trunc(y), info.min, info.max).astype(dtype)
    if dtype == np.bool_:
        return x != 0
    return x.astype(dtype)


UNARY = {
    "abs": np.abs, "negate": np.negative, "exponential": np.exp, "exponential-minus-one": np.expm1,
    "log": np.log, "log-plus-one": np.log1p, "tanh": np.tanh, "sqrt": np.sqrt, "cbrt": np.cbrt,
    "rsqrt": lambda x: _same(1 / np.sqrt(x), x), "sine": np.sin, "cosine": np.cos, "tan": np.tan,
    "floor": np.floor, "ceil": np.ceil, "round-nearest-even": np.rint, "round-nearest-afz": _round_afz,
    "sign": np.sign, "is-finite": np.isfinite, "logistic": lambda x: _same(1 / (1 + np.exp(-x)), x),
    "not": lambda x: np.logical_not(x) if x.dtype == np.bool_ else np.invert(x),
    "popcnt": lambda x: _same(np.unpackbits(x.view(np.uint8)).reshape(x.shape + (-1,)).sum(-1), x),
    "real": lambda x: x, "copy": lambda x: x.copy(),
}

BINARY = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": _int_divide,
    "remainder": _remainder, "maximum": np.maximum, "minimum": np.minimum, "power": np.power,
    "atan2": np.arctan2, "and": lambda a, b: np.logical_and(a, b) if a.dtype == np.bool_ else np.bitwise_and(a, b),
    "or": lambda a, b: np.logical_or(a, b) if a.dtype == np.bool_ else np.bitwise_or(a, b),
    "xor": lambda a, b: np.logical_xor(a, b) if a.dtype == np.bool_ else np.bitwise_xor(a, b),
    "shift-left": _shift("left"), "shift-right-arithmetic": _shift("arith"),
    "shift-right-logical": _shift("logical"),
}

_COMPARE = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal, "GT": np.greater,
            "GE": np.greater_equal}

# Reducers a reduce's to_apply computation may be: root op over its two parameters -> NumPy's reduction.
_REDUCERS = {"add": np.add, "multiply": np.multiply, "maximum": np.maximum, "minimum": np.minimum,
             "and": np.logical_and, "or": np.logical_or}


def dot_general(ins, lhs, rhs):
    """dot with its dimension numbers: batch dims first, then lhs free, then rhs free (XLA's result order)."""
    lb, rb = ins.ints("lhs_batch_dims"), ins.ints("rhs_batch_dims")
    lc, rc = ins.ints("lhs_contracting_dims"), ins.ints("rhs_contracting_dims")
    lf = [d for d in range(lhs.ndim) if d not in lb and d not in lc]
    rf = [d for d in range(rhs.ndim) if d not in rb and d not in rc]
    out_dtype = ins.shape.dtype
    acc = out_dtype
    if out_dtype.kind in "iu":
        acc = np.dtype(np.int64)  # wraps to the result type below, as an int32 accumulator wraps
    elif out_dtype.itemsize < 4:
        acc = np.dtype(np.float32)
    a = lhs.transpose(list(lb) + lf + list(lc)).astype(acc)
    b = rhs.transpose(list(rb) + list(rc) + rf).astype(acc)
    nb = int(np.prod([lhs.shape[d] for d in lb], dtype=np.int64))
    k = int(np.prod([lhs.shape[d] for d in lc], dtype=np.int64))
    a = a.reshape(nb, -1, k)
    b = b.reshape(nb, k, -1)
    out = np.matmul(a, b)
    return out.astype(out_dtype).reshape(ins.shape.dims)


class Evaluator:
    """Evaluates HLO on host NumPy arrays. evaluate(ins, operands) computes one instruction; call(comp, args) a
    whole computation (values: arrays, or tuples of values)."""

    def __init__(self, module):
        self.module = module

    def call(self, comp_name, args):
        comp = self.module.computations.get(comp_name)
        if comp is None:
            raise UnsupportedOpError(f"computation {comp_name} is not in the module")
        params = comp.parameters()
        if len(params) != len(args):
            raise ValueError(f"{comp_name} takes {len(params)} parameters, was given {len(args)}")
        env = {}
        for p, a in zip(params, args):
            env[p.name] = a
        for ins in comp.instructions:
            if ins.opcode == "parameter":
                continue
            env[ins.name] = self.evaluate(ins, [env[o] for o in ins.operands],
                                          [comp.by_name[o].shape for o in ins.operands])
        return env[comp.root.name]

    def evaluate(self, ins, ops, operand_shapes=None):
        op = ins.opcode
        shape = ins.shape
        if op in UNARY:
            x = ops[0]
            with np.errstate(all="ignore"):
                return _same(UNARY[op](x), x) if op != "is-finite" else UNARY[op](x)
        if op in BINARY:
            with np.errstate(all="ignore"):
                return _same(BINARY[op](ops[0], ops[1]), ops[0])
        handler = getattr(self, "_" + op.replace("-", "_"), None)
        if handler is None:
            raise UnsupportedOpError(f"opcode {op!r} ({ins.name}) has no host implementation")
        if op == "bitcast":
            return handler(ins, ops, operand_shapes)
        return handler(ins, ops)

    # --- data movement and structure ---------------------------------------------------------------------------
    def _constant(self, ins, ops):
        return parse_literal(ins.literal, ins.shape)

    def _tuple(self, ins, ops):
        return tuple(ops)

    def _get_tuple_element(self, ins, ops):
        return ops[0][int(ins.attribute("index"))]

    def _bitcast(self, ins, ops, operand_shapes):
        # A bitcast keeps the bytes: in logical terms, the operand's physical order read under the new layout.
        return from_bytes(to_bytes(ops[0], operand_shapes[0]), ins.shape)

    def _reshape(self, ins, ops):
        return ops[0].reshape(ins.shape.dims)

    def _transpose(self, ins, ops):
        return ops[0].transpose(ins.ints("dimensions"))

    def _broadcast(self, ins, ops):
        dims = ins.ints("dimensions")
        x = ops[0]
        shape = [1] * len(ins.shape.dims)
        for i, d in enumerate(dims):
            shape[d] = x.shape[i]
        return np.broadcast_to(x.reshape(shape), ins.shape.dims).copy()

    def _convert(self, ins, ops):
        return _convert(ops[0], ins.shape.dtype)

    def _bitcast_convert(self, ins, ops):
        x = ops[0]
        dtype = ins.shape.dtype
        return np.ascontiguousarray(x).view(dtype).reshape(ins.shape.dims)

    def _slice(self, ins, ops):
        spec = ins.attribute("slice").strip("{}")
        index = []
        for part in spec.split(","):
            nums = [int(t) for t in part.strip().strip("[]").split(":")]
            start, limit = nums[0], nums[1]
            step = nums[2] if len(nums) > 2 else 1
            index.append(slice(start, limit, step))
        return ops[0][tuple(index)].copy()

    def _dynamic_slice(self, ins, ops):
        x = ops[0]
        sizes = ins.ints("dynamic_slice_sizes")
        starts = [int(np.clip(int(s), 0, x.shape[d] - sizes[d])) for d, s in enumerate(ops[1:])]
        return x[tuple(slice(s, s + n) for s, n in zip(starts, sizes))].copy()

    def _dynamic_update_slice(self, ins, ops):
        x, update = ops[0].copy(), ops[1]
        starts = [int(np.clip(int(s), 0, x.shape[d] - update.shape[d])) for d, s in enumerate(ops[2:])]
        x[tuple(slice(s, s + n) for s, n in zip(starts, update.shape))] = update
        return x

    def _concatenate(self, ins, ops):
        return np.concatenate(ops, axis=ins.ints("dimensions")[0])

    def _pad(self, ins, ops):
        x, value = ops[0], ops[1]
        specs = []
        for spec in ins.attribute("padding").split("x"):
            lo, hi, *interior = [int(t) for t in spec.split("_")]
            specs.append((lo, hi, interior[0] if interior else 0))
        # Pad with the non-negative parts (interior too), then crop what negative padding removes.
        full, place, crop = [], [], []
        for d, (lo, hi, inner) in enumerate(specs):
            n = x.shape[d]
            body = n + (n - 1) * inner if n else 0
            size = max(lo, 0) + body + max(hi, 0)
            full.append(size)
            place.append(slice(max(lo, 0), max(lo, 0) + body, inner + 1))
            crop.append(slice(-min(lo, 0), size + min(hi, 0)))
        out = np.full(full, value, dtype=x.dtype)
        out[tuple(place)] = x
        return out[tuple(crop)].copy()

    def _reverse(self, ins, ops):
        return np.flip(ops[0], axis=ins.ints("dimensions")).copy()

    def _iota(self, ins, ops):
        d = int(ins.attribute("iota_dimension"))
        shape = [1] * len(ins.shape.dims)
        shape[d] = ins.shape.dims[d]
        return np.broadcast_to(np.arange(ins.shape.dims[d]).reshape(shape), ins.shape.dims).astype(ins.shape.dtype)

    # --- arithmetic with attributes ----------------------------------------------------------------------------
    def _compare(self, ins, ops):
        return _COMPARE[ins.attribute("direction")](ops[0], ops[1])

    def _select(self, ins, ops):
        return np.where(ops[0], ops[1], ops[2])

    def _clamp(self, ins, ops):
        lo, x, hi = ops
        return _same(np.minimum(np.maximum(x, lo), hi), x)

    def _dot(self, ins, ops):
        return dot_general(ins, ops[0], ops[1])

    def _reduce(self, ins, ops):
        n = len(ops) // 2
        if n != 1:
            raise UnsupportedOpError(f"reduce {ins.name} with {n} operands (a variadic reduce, e.g. argmax) has no "
                                     f"host implementation")
        x, init = ops[0], ops[1]
        dims = ins.ints("dimensions")
        ufunc = self.reducer_of(ins)
        if x.dtype == np.bool_:
            r = ufunc.reduce(x, axis=dims)
            return np.asarray(ufunc(r, init), dtype=x.dtype)
        # NumPy's order (pairwise for an add): for integers any order gives the same wrapped sum; for floats it
        # may differ from XLA:CPU's in the last bits (the tolerance docs/jax-on-the-model.md states).
        r = ufunc.reduce(x, axis=dims) if x.size else np.full(ins.shape.dims, init, dtype=x.dtype)
        return _same(ufunc(r, init), x)

    def _reduce_window(self, ins, ops):
        if len(ops) != 2:
            raise UnsupportedOpError(f"reduce-window {ins.name} with {len(ops) // 2} operands has no host "
                                     f"implementation")
        x, init = ops
        ufunc = self.reducer_of(ins)
        fields = dict(part.split("=", 1) for part in ins.attribute("window").strip("{}").split())
        rank = x.ndim

        def field(key, default):
            if key not in fields:
                return [default] * rank
            return fields[key].split("x")

        size = [int(v) for v in field("size", 1)]
        stride = [int(v) for v in field("stride", 1)]
        pads = [tuple(int(t) for t in str(v).split("_")) if v != 0 else (0, 0) for v in field("pad", 0)]
        dilate = [int(v) for v in field("rhs_dilate", 1)]
        if any(int(v) != 1 for v in field("lhs_dilate", 1)):
            raise UnsupportedOpError(f"reduce-window {ins.name}: base dilation (lhs_dilate) has no host "
                                     f"implementation")
        padded = np.pad(x, pads, constant_values=init)
        out = np.full(ins.shape.dims, init, dtype=x.dtype)
        # One strided slice per window position: the window's elements are combined in row-major order.
        for offset in np.ndindex(*size):
            index = tuple(slice(o * d, o * d + (n - 1) * s + 1, s)
                          for o, d, n, s in zip(offset, dilate, ins.shape.dims, stride))
            out = _same(ufunc(out, padded[index]), x)
        return out

    def reducer_of(self, ins):
        """The NumPy ufunc of a reduce's to_apply computation (one of _REDUCERS over its two parameters)."""
        comp = self.module.computations[ins.called("to_apply")]
        root = comp.root
        params = {p.name for p in comp.parameters()}
        if root.opcode not in _REDUCERS or set(root.operands) != params or len(comp.instructions) != 3:
            raise UnsupportedOpError(f"{ins.opcode} {ins.name}: reducer {comp.name} ({root.opcode}) is not one of "
                                     f"{', '.join(_REDUCERS)} over its two parameters")
        return _REDUCERS[root.opcode]

    # --- calls -------------------------------------------------------------------------------------------------
    def _fusion(self, ins, ops):
        return self.call(ins.called("calls"), ops)

    def _call(self, ins, ops):
        return self.call(ins.called("to_apply"), ops)

    def _while(self, ins, ops):
        state = ops[0]
        cond, body = ins.called("condition"), ins.called("body")
        while bool(self.call(cond, [state])):
            state = self.call(body, [state])
        return state

    def _conditional(self, ins, ops):
        pred = ops[0]
        if "branch_computations" in ins.attrs:
            branches = [b.strip().lstrip("%") for b in ins.attribute("branch_computations").strip("{}").split(",")]
            i = int(pred)
            i = i if 0 <= i < len(branches) else len(branches) - 1
            return self.call(branches[i], [ops[1 + i]])
        branch = ins.called("true_computation") if bool(pred) else ins.called("false_computation")
        return self.call(branch, [ops[1] if bool(pred) else ops[2]])


# Every opcode the host fallback computes (lowering.check_supported refuses the others before a run starts).
HOST_HANDLERS = frozenset(UNARY) | frozenset(BINARY) | frozenset(
    name[1:].replace("_", "-") for name in vars(Evaluator) if name.startswith("_") and not name.startswith("__"))
