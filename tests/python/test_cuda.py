"""import strata on the cuda backend (a real GPU under a framework's policy): GEMM bit-exact, buffers, stats. Skipped
with the driver's UNAVAILABLE message where the build has no cuda backend or the machine no usable GPU."""
import unittest

import numpy as np

import strata
from strata_testing import random_int8, reference_gemm


def open_cuda(**options):
    if "cuda" not in strata.backends():
        raise unittest.SkipTest("this build has no cuda backend")
    try:
        return strata.open("cuda", **options)
    except strata.UnavailableError as e:
        raise unittest.SkipTest(e.message) from None


class CudaTest(unittest.TestCase):
    def test_opens_or_says_unavailable(self):
        if "cuda" not in strata.backends():
            self.skipTest("this build has no cuda backend")
        try:
            strata.open("cuda").close()
        except strata.UnavailableError as e:  # no GPU or driver here: the status and the CUDA error
            self.assertEqual(e.status, "UNAVAILABLE")
            self.assertIn("strata_open", e.message)
            # ... and the list of backends a person reads says so (an unknown name's message lists them).
            with self.assertRaises(strata.UnimplementedError) as cm:
                strata.open("nope")
            self.assertIn("cuda (unavailable: no CUDA device", cm.exception.message)
        else:
            with self.assertRaises(strata.UnimplementedError) as cm:
                strata.open("nope")
            self.assertNotIn("cuda (unavailable", cm.exception.message)

    def test_gemm_and_buffers(self):
        with open_cuda(policy="torch") as dev:
            for seed, (m, k, n) in enumerate([(1, 1, 1), (17, 33, 5), (64, 200, 48)]):
                rng = np.random.default_rng(seed)
                a, b = random_int8(rng, (m, k)), random_int8(rng, (k, n))
                np.testing.assert_array_equal(dev.gemm(a, b), reference_gemm(a, b))
                np.testing.assert_array_equal(dev.gemm(a, b, relu=True, quant_mult=5, quant_shift=9, round=True),
                                              reference_gemm(a, b, relu=True, quant_mult=5, quant_shift=9, round=True))
            x = np.arange(1000, dtype=np.float64)
            np.testing.assert_array_equal(dev.upload(x).read(np.float64), x)
            stats = dev.memory_stats()
            self.assertGreater(stats["reserved_bytes.all.current"], 0)
            self.assertEqual(stats["num_allocs"], stats["allocation.all.allocated"])


if __name__ == "__main__":
    unittest.main()
