"""The executor's HLO reading and host fallback without a device or JAX (python/strata/hlo.py, layout.py,
hlo_eval.py): shapes, layouts and attributes parsed from module text; bad text refused naming its line; bytes in a
layout against NumPy transposes; ops with edge semantics (pad with negative and interior padding, reduce-window,
integer divide and remainder by zero and of negatives, shifts past the width, saturating converts, batched dots,
clamped dynamic slices, bitcasts across layouts) against references written with plain loops and Python integers."""
import itertools
import unittest

import numpy as np

from strata.hlo import HloParseError, parse_module, parse_shape
from strata.hlo_eval import Evaluator, UnsupportedOpError
from strata.layout import from_bytes, to_bytes


def run(params, body, *args, extra=""):
    """Evaluates a one-instruction ENTRY: params "a: s32[3]", body "%r = s32[3] negate(%a)"."""
    names = [p.split(":")[0].strip() for p in params]
    lines = [f"  %{n} = {p.split(':', 1)[1].strip()} parameter({i})" for i, (n, p) in enumerate(zip(names, params))]
    text = (f"HloModule m, is_scheduled=true\n\n{extra}\nENTRY %main ({', '.join(params)}) -> f32[] {{\n"
            + "\n".join(lines) + f"\n  ROOT {body}\n}}\n")
    module = parse_module(text)
    return Evaluator(module).call("main", list(args))


class Parsing(unittest.TestCase):
    def test_shapes_layouts_and_attributes(self):
        shape, rest = parse_shape("(f32[8,4]{0,1}, /*index=1*/s8[], (pred[2]{0}))  tail")
        self.assertTrue(shape.is_tuple)
        self.assertEqual(rest.strip(), "tail")
        f, s, inner = shape.tuple_shapes
        self.assertEqual((f.element_type, f.dims, f.layout), ("f32", (8, 4), (0, 1)))
        self.assertEqual(s.nbytes, 1)
        self.assertEqual(inner.tuple_shapes[0].nbytes, 2)
        self.assertEqual([i for i, _ in shape.leaves()], [(0,), (1,), (2, 0)])
        module = parse_module(
            'HloModule m\n\nENTRY %e (a: f32[2,3]) -> f32[3] {\n'
            '  %a = f32[2,3]{1,0} parameter(0), metadata={op_name="x, y" source_file="{"}\n'
            '  %c = f32[] constant(0)\n'
            '  ROOT %r = f32[3]{0} reduce(f32[2,3]{1,0} %a, f32[] %c), dimensions={0}, to_apply=%add, '
            'backend_config={"a":{"b":[1,2]}}\n}\n')
        r = module.entry.root
        self.assertEqual((r.opcode, r.operands, r.ints("dimensions"), r.called("to_apply")),
                         ("reduce", ["a", "c"], (0,), "add"))
        self.assertEqual(r.attribute("backend_config"), '{"a":{"b":[1,2]}}')
        self.assertEqual(module.entry.by_name["a"].attribute("metadata"), '{op_name="x, y" source_file="{"}')

    def test_bad_text_names_the_line(self):
        cases = [
            ("HloModule m\nENTRY %e () -> f32[] {\n  %x = f32[] frob\n}\n", ":3: "),
            ("HloModule m\nENTRY %e () -> f32[] {\n  ROOT %x = f32[] negate(%nope)\n}\n", "uses nope"),
            ("HloModule m\n%f () -> f32[] {\n  ROOT %x = f32[] constant(1)\n}\n", "no ENTRY computation"),
            ("HloModule m\nENTRY %e () -> f32[] {\n  ROOT %x = f32[] constant(1)\n", "is not closed"),
            ("HloModule m\nENTRY %e () -> f32[] {\n  ROOT %x = q9[2] constant(1)\n}\n", "unknown element type 'q9'"),
        ]
        for text, needle in cases:
            with self.subTest(needle=needle):
                with self.assertRaises(HloParseError) as cm:
                    parse_module(text, "t.txt")
                self.assertIn(needle, str(cm.exception))

    def test_elided_constant_refused(self):
        with self.assertRaises(ValueError) as cm:
            run(["a: f32[]"], "%r = f32[4]{0} constant({...})", np.float32(0))
        self.assertIn("elided", str(cm.exception))


class Layouts(unittest.TestCase):
    def test_every_layout_against_numpy(self):
        rng = np.random.default_rng(0)
        for dims in ((3,), (2, 5), (2, 3, 4), (1, 3, 1, 2)):
            logical = rng.integers(-100, 100, dims).astype(np.int16)
            for perm in itertools.permutations(range(len(dims))):
                shape = parse_shape(f"s16[{','.join(map(str, dims))}]{{{','.join(map(str, perm))}}}")[0]
                want = np.ascontiguousarray(logical.transpose(list(reversed(perm)))).tobytes()
                self.assertEqual(to_bytes(logical, shape).tobytes(), want)
                np.testing.assert_array_equal(from_bytes(np.frombuffer(want, np.uint8), shape), logical)

    def test_bitcast_keeps_bytes_across_layouts(self):
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        got = run(["a: f32[2,3]"], "%r = f32[3,2]{0,1} bitcast(%a)", x)
        # {0,1}: column-major, so the row-major bytes 0..5 read as columns of a 3 x 2 array.
        np.testing.assert_array_equal(got, np.arange(6, dtype=np.float32).reshape(2, 3).T)


class HostOps(unittest.TestCase):
    def test_pad_negative_and_interior(self):
        rng = np.random.default_rng(1)
        x = rng.integers(1, 9, (3, 4)).astype(np.int32)
        for spec in ("1_2_1x0_0_0", "-1_0_2x2_-3_1", "0_0_0x-2_-1_0", "2_1_0x1_1_3"):
            dims = [tuple(int(t) for t in s.split("_")) for s in spec.split("x")]
            out_dims = [lo + hi + n + max(n - 1, 0) * i for (lo, hi, i), n in zip(dims, x.shape)]
            want = np.full(out_dims, -5, np.int32)
            for (r, c), v in np.ndenumerate(x):  # each element lands at lo + index * (interior + 1)
                rr, cc = dims[0][0] + r * (dims[0][2] + 1), dims[1][0] + c * (dims[1][2] + 1)
                if 0 <= rr < out_dims[0] and 0 <= cc < out_dims[1]:
                    want[rr, cc] = v
            with self.subTest(spec=spec):
                got = run(["a: s32[3,4]", "p: s32[]"],
                          f"%r = s32[{out_dims[0]},{out_dims[1]}]{{1,0}} pad(%a, %p), padding={spec}",
                          x, np.int32(-5))
                np.testing.assert_array_equal(got, want)

    def test_reduce_window_against_loops(self):
        add = "%add (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n" \
              "  ROOT %s = f32[] add(%x, %y)\n}\n\n%max (x: f32[], y: f32[]) -> f32[] {\n" \
              "  %x.1 = f32[] parameter(0)\n  %y.1 = f32[] parameter(1)\n  ROOT %m = f32[] maximum(%x.1, %y.1)\n}\n"
        x = np.random.default_rng(2).integers(-9, 9, (5, 7)).astype(np.float32)
        for reducer, init, fn in (("add", 0.0, sum), ("max", -np.inf, max)):
            size, stride = (2, 3), (2, 2)  # pad=1_0x1_2: one row above, one column left, two right
            padded = np.full((5 + 1, 7 + 3), init, np.float32)
            padded[1:, 1:8] = x
            rows = (padded.shape[0] - size[0]) // stride[0] + 1
            cols = (padded.shape[1] - size[1]) // stride[1] + 1
            want = np.array([[fn(padded[i * 2 + a, j * 2 + b] for a in range(2) for b in range(3))
                              for j in range(cols)] for i in range(rows)], np.float32)
            got = run(["a: f32[5,7]", "i: f32[]"],
                      f"%r = f32[{rows},{cols}]{{1,0}} reduce-window(%a, %i), window={{size=2x3 stride=2x2 "
                      f"pad=1_0x1_2}}, to_apply=%{reducer}", x, np.float32(init), extra=add)
            np.testing.assert_array_equal(got, want)

    def test_integer_divide_and_remainder(self):
        a = np.array([7, -7, 7, -7, 5, -2147483648, 0, 9], np.int32)
        b = np.array([2, 2, -2, -2, 0, -1, 3, 0], np.int32)

        def trunc_div(p, q):  # C semantics; XLA: x / 0 = -1, x % 0 = x, INT_MIN / -1 wraps to INT_MIN
            if q == 0:
                return -1, p
            d = abs(p) // abs(q) * (1 if (p < 0) == (q < 0) else -1)
            return ((d + 2**31) % 2**32) - 2**31, p - q * d
        want_q, want_r = zip(*(trunc_div(int(p), int(q)) for p, q in zip(a, b)))
        q = run(["a: s32[8]", "b: s32[8]"], "%r = s32[8]{0} divide(%a, %b)", a, b)
        r = run(["a: s32[8]", "b: s32[8]"], "%r = s32[8]{0} remainder(%a, %b)", a, b)
        np.testing.assert_array_equal(q, np.array(want_q, np.int32))
        np.testing.assert_array_equal(r, np.array(want_r, np.int32))

    def test_shifts_past_the_width(self):
        a = np.array([1, -8, -8, 5, -1, 3], np.int8)
        s = np.array([3, 1, 9, 8, 7, -1], np.int8)
        left = run(["a: s8[6]", "s: s8[6]"], "%r = s8[6]{0} shift-left(%a, %s)", a, s)
        arith = run(["a: s8[6]", "s: s8[6]"], "%r = s8[6]{0} shift-right-arithmetic(%a, %s)", a, s)
        logical = run(["a: s8[6]", "s: s8[6]"], "%r = s8[6]{0} shift-right-logical(%a, %s)", a, s)

        def ref(v, n, kind):
            if not 0 <= n < 8:
                return (-1 if v < 0 else 0) if kind == "arith" else 0
            u = v & 0xFF
            out = {"left": (u << n) & 0xFF, "arith": (v >> n) & 0xFF, "logical": u >> n}[kind]
            return out - 256 if out > 127 else out
        for got, kind in ((left, "left"), (arith, "arith"), (logical, "logical")):
            np.testing.assert_array_equal(got, [ref(int(v), int(n), kind) for v, n in zip(a, s)])

    def test_convert_saturates(self):
        x = np.array([1e10, -1e10, 127.9, -128.9, np.nan, 2.5, -2.5, np.inf], np.float32)
        got = run(["a: f32[8]"], "%r = s8[8]{0} convert(%a)", x)
        np.testing.assert_array_equal(got, np.array([127, -128, 127, -128, 0, 2, -2, 127], np.int8))

    def test_batched_dot(self):
        rng = np.random.default_rng(3)
        a = rng.integers(-128, 128, (2, 3, 5)).astype(np.int8)
        b = rng.integers(-128, 128, (5, 2, 4)).astype(np.int8)
        got = run(["a: s8[2,3,5]", "b: s8[5,2,4]"],
                  "%r = s32[2,3,4]{2,1,0} dot(%a, %b), lhs_batch_dims={0}, rhs_batch_dims={1}, "
                  "lhs_contracting_dims={2}, rhs_contracting_dims={0}", a, b)
        want = np.einsum("bmk,kbn->bmn", a.astype(np.int64), b.astype(np.int64)).astype(np.int32)
        np.testing.assert_array_equal(got, want)

    def test_dynamic_slices_clamp(self):
        x = np.arange(20, dtype=np.int32).reshape(4, 5)
        got = run(["a: s32[4,5]", "i: s32[]", "j: s32[]"],
                  "%r = s32[2,3]{1,0} dynamic-slice(%a, %i, %j), dynamic_slice_sizes={2,3}",
                  x, np.int32(9), np.int32(-4))
        np.testing.assert_array_equal(got, x[2:4, 0:3])
        upd = np.full((2, 2), -1, np.int32)
        got = run(["a: s32[4,5]", "u: s32[2,2]", "i: s32[]", "j: s32[]"],
                  "%r = s32[4,5]{1,0} dynamic-update-slice(%a, %u, %i, %j)", x, upd, np.int32(1), np.int32(7))
        want = x.copy()
        want[1:3, 3:5] = -1
        np.testing.assert_array_equal(got, want)

    def test_strided_slice_and_iota(self):
        x = np.arange(30, dtype=np.float32).reshape(5, 6)
        got = run(["a: f32[5,6]"], "%r = f32[2,2]{1,0} slice(%a), slice={[1:5:2], [0:6:4]}", x)
        np.testing.assert_array_equal(got, x[1:5:2, 0:6:4])
        got = run(["a: f32[]"], "%r = s32[2,3]{1,0} iota(), iota_dimension=1", np.float32(0))
        np.testing.assert_array_equal(got, [[0, 1, 2], [0, 1, 2]])

    def test_unknown_opcode(self):
        with self.assertRaises(UnsupportedOpError) as cm:
            run(["a: f32[2]"], "%r = f32[2]{0} frobnicate(%a)", np.zeros(2, np.float32))
        self.assertIn("'frobnicate'", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
