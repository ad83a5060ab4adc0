"""strata bf16 GEMM on the sim backend with runtime_fp.elf: Context.gemm(dtype="bf16") bit for bit against
tests/rtl/bf16_reference.py (the matrix unit's order, in NumPy) on float32 inputs rounded by its F32ToBf16, over
unaligned shapes and special values, fp32 and bf16 results; the device cycles reported; what runtime.elf, gpu-emu
and the argument checks refuse."""
import os
import sys
import unittest

import numpy as np

import strata
from strata_testing import SIM, have_sim, open_gpu_emu

try:
    import ml_dtypes
except ImportError:  # the bf16 tests need it; the module says so instead of failing
    ml_dtypes = None

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "rtl"))
import bf16_reference as ref  # noqa: E402

# (m, k, n) at N = 16: ones, unaligned on every side, exact tiles, K over several tiles and N over several blocks.
SHAPES = [(1, 1, 1), (3, 17, 5), (16, 16, 16), (17, 33, 15), (33, 65, 2), (2, 64, 49), (40, 20, 33)]
SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 3.0e38, -3.0e38, 1.0e-38, -1.2e-38, 1.0e-40, -1.0e-45,
                     1.0, -1.0, 0.5, 65504.0, 1.0 + 2.0 ** -8, 1.0 + 3 * 2.0 ** -9], dtype=np.float32)


def want(a, b, n, c=None, relu=False, out_bf16=False):
    """The device's answer as bits: inputs rounded by F32ToBf16, Gemm in the array's order, then ReLU / bf16."""
    a16 = ref.F32ToBf16(a.view(np.uint32))
    b16 = ref.F32ToBf16(b.view(np.uint32))
    bits = ref.Gemm(a16, b16, n, None if c is None else c.view(np.uint32))
    if relu:
        bits = np.where(bits & 0x80000000, np.uint32(0), bits).astype(np.uint32)  # a set sign bit to +0
    return ref.F32ToBf16(bits) if out_bf16 else bits.astype(np.uint32)


@unittest.skipUnless(have_sim(), "this build has no sim backend")
@unittest.skipUnless(ml_dtypes is not None, "ml_dtypes is not installed")
class Bf16GemmTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dev = strata.open("sim", runtime_fp=True, **SIM)
        cls.n = cls.dev.device_info()["mxu_array_n"]

    @classmethod
    def tearDownClass(cls):
        cls.dev.close()

    def check(self, a, b, c=None, relu=False, out_dtype="float32"):
        got = self.dev.gemm(a, b, c, dtype="bf16", relu=relu, out_dtype=out_dtype)
        self.assertEqual(got.shape, (a.shape[0], b.shape[1]))
        self.assertGreater(self.dev.last_gemm_cycles, 0)
        out_bf16 = out_dtype == "bfloat16"
        self.assertEqual(got.dtype, ml_dtypes.bfloat16 if out_bf16 else np.float32)
        np.testing.assert_array_equal(got.view(np.uint16 if out_bf16 else np.uint32),
                                      want(a, b, self.n, c, relu, out_bf16))
        return got

    def test_random_shapes_fp32_and_bf16_results(self):
        for seed, (m, k, n) in enumerate(SHAPES):
            rng = np.random.default_rng(seed)
            a = rng.standard_normal((m, k)).astype(np.float32) * np.float32(4)
            b = rng.standard_normal((k, n)).astype(np.float32)
            for out_dtype in ("float32", "bfloat16"):
                with self.subTest(m=m, k=k, n=n, out_dtype=out_dtype):
                    self.check(a, b, out_dtype=out_dtype)

    def test_cycles_grow_with_the_work(self):
        rng = np.random.default_rng(7)
        cycles = []
        for m, k, n in [(16, 16, 16), (64, 64, 64)]:
            self.check(rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32))
            cycles.append(self.dev.last_gemm_cycles)
        self.assertGreater(cycles[1], cycles[0])

    def test_special_values(self):
        rng = np.random.default_rng(11)
        for m, k, n in [(5, 19, 7), (17, 40, 3)]:
            with self.subTest(m=m, k=k, n=n):
                a = rng.choice(SPECIALS, size=(m, k)).astype(np.float32)
                b = rng.choice(SPECIALS, size=(k, n)).astype(np.float32)
                self.assertTrue(np.isnan(self.check(a, b)).any(), "the spread reaches NaN")
                # Products past fp32's range: columns of +inf and -inf.
                signs = np.full((k, n), 2.0, np.float32)
                signs[:, 1::2] = -2.0
                got = self.check(np.full((m, k), 3.0e38, np.float32), signs)
                np.testing.assert_array_equal(got, np.where(signs[0] > 0, np.inf, -np.inf)[None, :].repeat(m, 0))
                # Mostly-finite operands with a few specials and tiny values: signed zeros, flushed denormals.
                a = rng.standard_normal((m, k)).astype(np.float32)
                a[rng.random((m, k)) < 0.2] = rng.choice(SPECIALS, size=1)[0]
                self.check(a, np.abs(rng.standard_normal((k, n)).astype(np.float32)) * np.float32(1e-30))
                self.check(np.zeros((m, k), np.float32), -np.ones((k, n), np.float32))  # sums of -0 and +0

    def test_accumulate_and_relu(self):
        rng = np.random.default_rng(21)
        for m, k, n in SHAPES[1:5]:
            with self.subTest(m=m, k=k, n=n):
                a = rng.standard_normal((m, k)).astype(np.float32)
                b = rng.standard_normal((k, n)).astype(np.float32)
                c = rng.standard_normal((m, n)).astype(np.float32) * np.float32(10)
                self.check(a, b, c=c)
                got = self.check(a, b, relu=True, out_dtype="bfloat16")
                self.assertTrue((got.astype(np.float32) >= 0).all())
                self.check(a, b, c=c, relu=True)

    def test_bfloat16_inputs_are_taken_as_they_are(self):
        rng = np.random.default_rng(31)
        a = rng.standard_normal((9, 21)).astype(ml_dtypes.bfloat16)
        b = rng.standard_normal((21, 4)).astype(ml_dtypes.bfloat16)
        got = self.dev.gemm(a, b, dtype="bf16")
        np.testing.assert_array_equal(got.view(np.uint32), ref.Gemm(a.view(np.uint16), b.view(np.uint16), self.n))

    def test_gemm_buffers_with_the_dtype(self):
        a16 = ref.F32ToBf16(np.arange(6, dtype=np.float32).reshape(2, 3).view(np.uint32))
        b16 = ref.F32ToBf16(np.ones((3, 2), np.float32).view(np.uint32))
        ctx = self.dev.context
        a, b = ctx.upload(a16), ctx.upload(b16)
        c = ctx.alloc(2 * 2 * 4)
        try:
            cycles = ctx.gemm_buffers(a, b, c, 2, 2, 3, dtype=strata.DTYPE_BF16)
            self.assertGreater(cycles, 0)
            np.testing.assert_array_equal(c.read(np.float32, (2, 2)), [[3, 3], [12, 12]])
            with self.assertRaises(strata.InvalidArgumentError):  # an int8 flag with bf16: the driver refuses
                ctx.gemm_buffers(a, b, c, 2, 2, 3, flags=strata.GEMM_FLAG_INT8, dtype=strata.DTYPE_BF16)
            with self.assertRaises(strata.InvalidArgumentError):
                ctx.gemm_buffers(a, b, c, 2, 2, 3, dtype=7)
            np.testing.assert_array_equal(c.read(np.float32, (2, 2)), [[3, 3], [12, 12]], "refusals wrote nothing")
            small = ctx.alloc(2 * 3 * 2 - 1)
            with self.assertRaises(strata.OutOfRangeError):  # holds the int8 matrix, not the bf16 one
                ctx.gemm_buffers(small, b, c, 2, 2, 3, dtype=strata.DTYPE_BF16)
            small.free()
        finally:
            for buf in (a, b, c):
                buf.free()

    def test_argument_errors(self):
        a = np.ones((2, 3), np.float32)
        b = np.ones((3, 2), np.float32)
        with self.assertRaises(ValueError):
            self.dev.gemm(a, b, dtype="fp8")
        with self.assertRaises(ValueError):
            self.dev.gemm(a, b, dtype="bf16", out_dtype="float16")
        with self.assertRaises(ValueError):
            self.dev.gemm(a, b, dtype="bf16", quant_mult=3)
        with self.assertRaises(ValueError):
            self.dev.gemm(a, b, np.zeros((2, 2), np.float32), dtype="bf16", out_dtype="bfloat16")
        with self.assertRaises(TypeError):
            self.dev.gemm(a.astype(np.float64), b, dtype="bf16")
        with self.assertRaises(ValueError):
            self.dev.gemm(a, np.ones((4, 2), np.float32), dtype="bf16")
        with self.assertRaises(ValueError):
            self.dev.gemm(a.astype(np.int8), b.astype(np.int8), out_dtype="float32")


@unittest.skipUnless(have_sim(), "this build has no sim backend")
@unittest.skipUnless(ml_dtypes is not None, "ml_dtypes is not installed")
class Bf16ElsewhereTest(unittest.TestCase):
    def test_runtime_elf_refuses_and_names_runtime_fp(self):
        with strata.open("sim", **SIM) as dev:
            self.assertGreaterEqual(strata.version()["protocol_minor"], 2, "the driver speaks the dtype minor")
            a = np.ones((2, 3), np.float32)
            with self.assertRaisesRegex(strata.FailedPreconditionError, "runtime_fp.elf"):
                dev.gemm(a, a.T.copy(), dtype="bf16")
            np.testing.assert_array_equal(dev.gemm(np.ones((2, 3), np.int8), np.ones((3, 2), np.int8)), 3)

    def test_gpu_emu_has_no_bf16_gemm(self):
        with open_gpu_emu() as dev:
            with self.assertRaises(strata.UnimplementedError):
                dev.gemm(np.ones((2, 3), np.float32), np.ones((3, 2), np.float32), dtype="bf16")

    def test_runtime_fp_and_firmware_path_are_one_choice(self):
        with self.assertRaisesRegex(strata.InvalidArgumentError, "runtime_fp and firmware_path"):
            strata.open("sim", runtime_fp=True, firmware_path="/nonexistent/runtime.elf", **SIM)


if __name__ == "__main__":
    unittest.main()
