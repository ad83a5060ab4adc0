"""Strata from Python: the host driver's C API (strata/strata.h) with NumPy arrays, and strata-replay /
strata-compare in-process. docs/python.md walks through it.

    import numpy as np
    import strata

    with strata.open("gpu-emu", policy="jax", total_bytes=1 << 30) as dev:
        a = np.ones((64, 32), np.int8)
        b = np.ones((32, 16), np.int8)
        c = dev.gemm(a, b)                     # int32 (64, 16), on the device
        stats = dev.memory_stats()             # {"bytes_in_use": ..., "allocated_bytes.all.peak": ..., ...}

From the build tree: PYTHONPATH=build/python; from an install prefix P: PYTHONPATH=P/lib/python3/dist-packages.
"""
from . import _strata
from .device import (TORCH_STAT_KEYS, Buffer, Context, Device, backend_availability, backend_options, backends, open,
                     version)
from .errors import *  # noqa: F401,F403 (Error, and InvalidArgumentError, NotFoundError, ...: one per status)
from .errors import __all__ as _error_names
from .tools import FORMATS, HBM_PRESETS, REPLAY_BACKENDS, compare, contenders, devices, explain, gpu_policies, replay

# The C API's constants (strata/strata.h, strata/gemm.h), for Context.gemm_buffers and Context.alloc.
API_VERSION_MAJOR = _strata.API_VERSION_MAJOR
API_VERSION_MINOR = _strata.API_VERSION_MINOR
GEMM_FLAG_ACCUMULATE = _strata.GEMM_FLAG_ACCUMULATE
GEMM_FLAG_RELU = _strata.GEMM_FLAG_RELU
GEMM_FLAG_INT8 = _strata.GEMM_FLAG_INT8
GEMM_FLAG_ROUND = _strata.GEMM_FLAG_ROUND
GEMM_FLAG_OUT_BF16 = _strata.GEMM_FLAG_OUT_BF16
DTYPE_INT8 = _strata.DTYPE_INT8
DTYPE_BF16 = _strata.DTYPE_BF16
GEMM_FLAGS_ALL = _strata.GEMM_FLAGS_ALL
GEMM_MAX_DIM = _strata.GEMM_MAX_DIM
GEMM_MAX_QUANT_SHIFT = _strata.GEMM_MAX_QUANT_SHIFT
ALLOC_FLAG_NO_COMPACT = _strata.ALLOC_FLAG_NO_COMPACT

__version__ = f"{API_VERSION_MAJOR}.{API_VERSION_MINOR}"  # the C API's version this package was built against

__all__ = [
    "API_VERSION_MAJOR", "API_VERSION_MINOR", "ALLOC_FLAG_NO_COMPACT", "Buffer", "Context", "DTYPE_BF16", "DTYPE_INT8",
    "Device", "FORMATS", "GEMM_FLAGS_ALL", "GEMM_FLAG_ACCUMULATE", "GEMM_FLAG_INT8", "GEMM_FLAG_OUT_BF16",
    "GEMM_FLAG_RELU", "GEMM_FLAG_ROUND", "GEMM_MAX_DIM",
    "GEMM_MAX_QUANT_SHIFT", "HBM_PRESETS", "REPLAY_BACKENDS", "TORCH_STAT_KEYS", "backend_availability",
    "backend_options", "backends", "compare", "contenders", "devices", "explain", "gpu_policies", "open", "replay", "version",
] + list(_error_names)
