"""strata gemm on gpu-emu: bit-exact against NumPy (int64 reference) over spreads of shapes, seeds and epilogues;
dtype and shape errors from Python, flag and buffer errors from the driver."""
import unittest

import numpy as np

import strata
from strata_testing import open_gpu_emu, random_int8, reference_gemm, wrap32

# (m, k, n): ones, primes, the 16 x 16 array's edges and a few larger.
SHAPES = [(1, 1, 1), (1, 7, 1), (3, 1, 5), (16, 16, 16), (17, 15, 33), (31, 64, 2), (2, 300, 3), (64, 48, 96),
          (128, 32, 1), (1, 129, 200)]


class GemmTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dev = open_gpu_emu()

    @classmethod
    def tearDownClass(cls):
        cls.dev.close()

    def check(self, a, b, **kwargs):
        got = self.dev.gemm(a, b, **kwargs)
        want = reference_gemm(a, b, **kwargs)
        self.assertEqual(got.dtype, want.dtype)
        self.assertEqual(got.shape, (a.shape[0], b.shape[1]))
        np.testing.assert_array_equal(got, want)
        return got

    def test_int32_bit_exact(self):
        for seed, (m, k, n) in enumerate(SHAPES):
            rng = np.random.default_rng(seed)
            with self.subTest(m=m, k=k, n=n, seed=seed):
                self.check(random_int8(rng, (m, k)), random_int8(rng, (k, n)))

    def test_extremes(self):
        for m, k, n in [(4, 1000, 4), (8, 4096, 2)]:
            low = np.full((m, k), -128, np.int8)
            high = np.full((k, n), 127, np.int8)
            self.check(low, low.T.copy())  # +16384 per term
            self.check(low, high)  # -16256 per term

    def test_accumulate(self):
        for seed, (m, k, n) in enumerate(SHAPES[:6]):
            rng = np.random.default_rng(100 + seed)
            with self.subTest(m=m, k=k, n=n):
                a, b = random_int8(rng, (m, k)), random_int8(rng, (k, n))
                c = rng.integers(-(1 << 31), (1 << 31) - 1, size=(m, n), dtype=np.int32, endpoint=True)
                got = self.check(a, b, c=c)
                np.testing.assert_array_equal(got, wrap32(a.astype(np.int64) @ b.astype(np.int64) + c))

    def test_relu(self):
        for seed, (m, k, n) in enumerate(SHAPES[:6]):
            rng = np.random.default_rng(200 + seed)
            with self.subTest(m=m, k=k, n=n):
                got = self.check(random_int8(rng, (m, k)), random_int8(rng, (k, n)), relu=True)
                self.assertTrue((got >= 0).all())

    def test_quantized(self):
        cases = [(1, 0, False), (1, 8, False), (3, 10, True), (-5, 7, True), (77, 12, False), (1 << 20, 30, True),
                 ((1 << 31) - 1, 63, True), (-(1 << 31), 40, False), (12345, 1, True), (0, 5, True)]
        for seed, (mult, shift, rounding) in enumerate(cases):
            m, k, n = SHAPES[seed % len(SHAPES)]
            rng = np.random.default_rng(300 + seed)
            for relu in (False, True):
                with self.subTest(mult=mult, shift=shift, round=rounding, relu=relu, shape=(m, k, n)):
                    got = self.check(random_int8(rng, (m, k)), random_int8(rng, (k, n)), relu=relu,
                                     quant_mult=mult, quant_shift=shift, round=rounding)
                    self.assertEqual(got.dtype, np.int8)

    def test_non_contiguous_inputs(self):
        rng = np.random.default_rng(5)
        a = random_int8(rng, (40, 60))
        b = random_int8(rng, (30, 50))
        self.check(a[::2, ::2], b[:, ::2])  # 20 x 30 and 30 x 25, strided
        self.check(a[:, :30], b.T.copy().T)  # a row slice; b as a transposed view
        self.check(np.asfortranarray(a), random_int8(rng, (60, 7)))

    def test_wrong_dtypes(self):
        good = np.ones((4, 4), np.int8)
        for dtype in (np.uint8, np.int16, np.int32, np.int64, np.float32, np.float64, np.bool_):
            with self.subTest(dtype=np.dtype(dtype).name):
                with self.assertRaises(TypeError) as cm:
                    self.dev.gemm(good.astype(dtype), good)
                self.assertIn("int8", str(cm.exception))
                self.assertIn(np.dtype(dtype).name, str(cm.exception))
                with self.assertRaises(TypeError):
                    self.dev.gemm(good, good.astype(dtype))
        for dtype in (np.int8, np.int64, np.float32):
            with self.assertRaises(TypeError):
                self.dev.gemm(good, good, c=np.zeros((4, 4), dtype))
        for bad in (None, [[1]], 3, "a"):
            with self.assertRaises(TypeError):
                self.dev.gemm(bad, good)

    def test_wrong_shapes(self):
        a = np.ones((4, 5), np.int8)
        with self.assertRaises(ValueError) as cm:
            self.dev.gemm(a, np.ones((4, 5), np.int8))
        self.assertIn("4 x 5", str(cm.exception))
        for bad in (np.ones(5, np.int8), np.ones((1, 4, 5), np.int8), np.ones((), np.int8)):
            with self.assertRaises(ValueError):
                self.dev.gemm(bad, np.ones((5, 2), np.int8))
        with self.assertRaises(ValueError):
            self.dev.gemm(np.ones((0, 5), np.int8), np.ones((5, 2), np.int8))
        with self.assertRaises(ValueError):
            self.dev.gemm(a, np.ones((5, 3), np.int8), c=np.zeros((3, 4), np.int32))

    def test_driver_checks_flags(self):
        # The driver, not the bindings, decides what combinations are legal (strata_gemm's errors).
        a, b = np.ones((2, 2), np.int8), np.ones((2, 2), np.int8)
        with self.assertRaises(strata.InvalidArgumentError):
            self.dev.gemm(a, b, round=True)  # ROUND without INT8
        with self.assertRaises(strata.InvalidArgumentError):
            self.dev.gemm(a, b, c=np.zeros((2, 2), np.int32), quant_mult=1)  # ACCUMULATE with INT8
        with self.assertRaises(strata.InvalidArgumentError):
            self.dev.gemm(a, b, quant_mult=1, quant_shift=strata.GEMM_MAX_QUANT_SHIFT + 1)
        with self.assertRaises(ValueError):
            self.dev.gemm(a, b, quant_mult=1 << 31)  # not an int32
        self.assertEqual(self.dev.memory_stats()["live_buffers"], 0)  # the temporaries were freed

    def test_gemm_buffers(self):
        rng = np.random.default_rng(9)
        ctx = self.dev.create_context()
        m, k, n = 9, 13, 11
        a, b = random_int8(rng, (m, k)), random_int8(rng, (k, n))
        ab, bb, cb = ctx.upload(a), ctx.upload(b), ctx.alloc(m * n * 4)
        ctx.gemm_buffers(ab, bb, cb, m, n, k)
        np.testing.assert_array_equal(cb.read(np.int32, (m, n)), reference_gemm(a, b))
        ctx.gemm_buffers(ab, bb, cb, m, n, k, flags=strata.GEMM_FLAG_ACCUMULATE | strata.GEMM_FLAG_RELU)
        np.testing.assert_array_equal(cb.read(np.int32, (m, n)),
                                      np.maximum(wrap32(2 * reference_gemm(a, b).astype(np.int64)), 0))
        with self.assertRaises(strata.OutOfRangeError) as cm:
            ctx.gemm_buffers(ab, bb, ctx.alloc(16), m, n, k)  # c too small
        self.assertIn("buffer C", cm.exception.message)
        with self.assertRaises(strata.InvalidArgumentError):
            ctx.gemm_buffers(ab, bb, ab, m, n, k)  # c is a
        with self.assertRaises(strata.InvalidArgumentError):
            ctx.gemm_buffers(ab, bb, cb, m, n, k, flags=0xff)  # unknown flags
        with self.assertRaises(strata.InvalidArgumentError):
            ctx.gemm_buffers(ab, bb, cb, 0, n, k)
        with self.assertRaises(TypeError):
            ctx.gemm_buffers(ab.handle, bb, cb, m, n, k)
        other = self.dev.create_context()
        with self.assertRaises(strata.PermissionDeniedError):
            other.gemm_buffers(ab, bb, other.alloc(m * n * 4), m, n, k)
        freed = ctx.alloc(m * n * 4)
        freed.free()
        with self.assertRaises(strata.NotFoundError):
            ctx.gemm_buffers(ab, bb, freed, m, n, k)
        other.destroy()
        ctx.destroy()

    def test_on_every_policy(self):
        rng = np.random.default_rng(21)
        a, b = random_int8(rng, (33, 17)), random_int8(rng, (17, 20))
        for policy in strata.gpu_policies():
            with self.subTest(policy=policy), open_gpu_emu(policy=policy) as dev:
                np.testing.assert_array_equal(dev.gemm(a, b), reference_gemm(a, b))


if __name__ == "__main__":
    unittest.main()
