"""What the import strata tests share: how they open devices, the NumPy GEMM reference, the trace folder."""
import os

import numpy as np

import strata

TRACES = os.path.join(os.environ.get("STRATA_TEST_DATA", os.path.join(os.path.dirname(__file__), "..", "data")),
                      "traces")

# An emulated GPU small enough that tests run in host memory: 256 MiB, no CUDA context, 64 KiB pages.
GPU_EMU = {"total_bytes": 256 << 20, "context_bytes": 0, "page_bytes": 64 << 10}
# The model with a small HBM (boot and every call are faster) and the default 16 x 16 matrix unit.
SIM = {"hbm_capacity_bytes": 8 << 20}


def open_gpu_emu(**options):
    return strata.open("gpu-emu", **{**GPU_EMU, **options})


def have_sim():
    return "sim" in strata.backends()


def wrap32(x):
    """int64 values as int32 wrap-around sums."""
    return (((np.asarray(x, dtype=np.int64) + (1 << 31)) % (1 << 32)) - (1 << 31)).astype(np.int32)


def reference_gemm(a, b, c=None, relu=False, quant_mult=None, quant_shift=0, round=False):
    """strata/gemm.h's product in NumPy int64 (Python ints for the requantization, which can pass 2^63)."""
    x = a.astype(np.int64) @ b.astype(np.int64)
    if c is not None:
        x = x + c.astype(np.int64)
    x = wrap32(x).astype(np.int64)
    if relu:
        x = np.maximum(x, 0)
    if quant_mult is None:
        return x.astype(np.int32)
    p = x.astype(object) * int(quant_mult)
    if round and quant_shift > 0:
        p = p + (1 << (quant_shift - 1))
    p = np.vectorize(lambda v: v >> quant_shift, otypes=[object])(p)
    return np.clip(p.astype(np.float64), -128, 127).astype(np.int8)


def random_int8(rng, shape, low=-128, high=127):
    return rng.integers(low, high, size=shape, endpoint=True, dtype=np.int8)
