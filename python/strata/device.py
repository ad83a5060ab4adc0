"""Devices, contexts and buffers: the C API (strata/strata.h) with NumPy arrays in and out.

    with strata.open("gpu-emu", policy="jax", total_bytes=1 << 30) as dev:
        c = dev.gemm(a, b)            # int8 a (m x k), b (k x n) -> int32 m x n, computed on the device
        print(dev.memory_stats()["peak_bytes_in_use"])

Arguments are checked before anything reaches the driver: a value of the wrong Python type raises TypeError,
an impossible shape or number ValueError; what the driver refuses raises strata.Error's subclass for its status.
Calls release the GIL while the device works (the sim backend simulates in the calling thread) and keep the
device open until they return. docs/python.md has the walk-through.
"""
import operator
import os
import threading

import numpy as np

from . import _strata
from .errors import Error, error_class

# strata_value_type -> (its name, what Python values an option of that type takes)
_VALUE_TYPES = {
    _strata.VALUE_STRING: "string",
    _strata.VALUE_INT64: "int64",
    _strata.VALUE_DOUBLE: "double",
    _strata.VALUE_BOOL: "bool",
}
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1

# PyTorch's torch.cuda.memory_stats() keys -> the strata_memory_stats field that holds the same figure.
TORCH_STAT_KEYS = {
    "allocated_bytes.all.current": "bytes_in_use",
    "allocated_bytes.all.peak": "peak_bytes_in_use",
    "reserved_bytes.all.current": "pool_bytes",
    "reserved_bytes.all.peak": "peak_pool_bytes",
    "requested_bytes.all.current": "requested_bytes",
    "inactive_split_bytes.all.current": "inactive_split_bytes",
    "active.all.current": "live_buffers",
    "allocation.all.allocated": "num_allocs",
    "allocation.all.freed": "num_frees",
    "num_alloc_retries": "num_alloc_retries",
    "num_ooms": "num_failed_allocs",
    "num_device_alloc": "num_device_alloc",  # PyTorch's count (map_block calls), not device_allocs (pages)
    "num_device_free": "num_device_free",
    "num_sync_all_streams": "device_syncs",
}


def _integer(value, what, low, high):
    """`value` as an int in [low, high]: TypeError for a non-integer (bool and float included), else ValueError."""
    if isinstance(value, bool) or value is None:
        raise TypeError(f"{what} must be an integer, not {type(value).__name__}")
    try:
        number = operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer, not {type(value).__name__}") from None
    if not low <= number <= high:
        raise ValueError(f"{what} must be between {low} and {high}, not {number}")
    return number


def _u64(value, what):
    return _integer(value, what, 0, (1 << 64) - 1)


def _u32(value, what):
    return _integer(value, what, 0, (1 << 32) - 1)


def _typed_default(o):
    """An option's default as its type, from the driver's typed fields (None where the backend declares none)."""
    if o["default"] == "":
        return None
    if o["type"] == _strata.VALUE_INT64:
        return o["default_int64"]
    if o["type"] == _strata.VALUE_DOUBLE:
        return o["default_double"]
    if o["type"] == _strata.VALUE_BOOL:
        return o["default_bool"]
    return o["default"]


def backends(available=None):
    """The backends this build has ("sim", "gpu-emu", "cuda", ...), in the driver's order.

    available=True: only those that can open on this machine; available=False: only those that cannot (cuda
    without a GPU or driver). backend_availability() says why."""
    names = list(_strata.backends())
    if available is None:
        return names
    if not isinstance(available, bool):
        raise TypeError(f"available must be a bool or None, not {type(available).__name__}")
    return [n for n in names if (_strata.backend_unavailable(n) == "") == available]


def backend_availability():
    """{backend: None if nothing is known against it here, else why it cannot open}, for every backend this build
    has, in the driver's order (strata_get_backend_availability; nothing is opened)."""
    return {n: (_strata.backend_unavailable(n) or None) for n in _strata.backends()}


def backend_options(backend):
    """The open options `backend` accepts: a list of {name, type, default, help, choices}; type is "string",
    "int64", "double" or "bool", default the typed default (None where there is none), choices the values the
    backend takes as text in the order it lists them (an empty list where any value of the type goes; e.g. sim's
    hbm_preset, gpu-emu's gpu and policy). UnimplementedError for a backend this build does not have."""
    _check_backend_name(backend)
    return [
        {
            "name": o["name"],
            "type": _VALUE_TYPES.get(o["type"], str(o["type"])),
            "default": _typed_default(o),
            "help": o["help"],
            "choices": list(o["choices"]),
        }
        for o in _strata.backend_options(backend)
    ]


def _check_backend_name(backend):
    if not isinstance(backend, str):
        raise TypeError(f"backend must be a str, not {type(backend).__name__}")
    if "\0" in backend:  # a C string would end there: "sim\0junk" would open sim
        raise ValueError(f"backend name {backend!r} holds a NUL character")


def version():
    """{"api_major", "api_minor", "protocol_major", "protocol_minor"}: the driver's C API and host<->firmware
    protocol versions (strata_get_version)."""
    return dict(_strata.version())


def _typed_option(backend, name, value, value_type):
    """One open option as the (name, type, string, int64, double, bool) tuple _strata.Device takes."""
    kind = _VALUE_TYPES[value_type]
    if value_type == _strata.VALUE_STRING:
        if isinstance(value, os.PathLike):
            value = os.fspath(value)
        if isinstance(value, bool):
            value = "true" if value else "false"  # a policy's setting ("preallocate") is a string option
        elif isinstance(value, (int, float)):
            value = str(value)  # ... and so is mem_fraction: 0.5 means "0.5"
        if not isinstance(value, str):
            raise TypeError(f"option {name} of the {backend} backend is a {kind}, not {type(value).__name__}")
        if "\0" in value:
            raise ValueError(f"option {name} of the {backend} backend holds a NUL character")
        return (name, value_type, value, 0, 0.0, False)
    if value_type == _strata.VALUE_INT64:
        number = _integer(value, f"option {name} of the {backend} backend", _INT64_MIN, _INT64_MAX)
        return (name, value_type, "", number, 0.0, False)
    if value_type == _strata.VALUE_DOUBLE:
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise TypeError(f"option {name} of the {backend} backend is a {kind}, not {type(value).__name__}")
        return (name, value_type, "", 0, float(value), False)
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"option {name} of the {backend} backend is a bool, not {type(value).__name__}")
    return (name, value_type, "", 0, 0.0, bool(value))


def open(backend, **options):  # noqa: A001 (strata.open, like builtins.open, returns a closeable object)
    """Opens a device: strata.open("gpu-emu", policy="torch", total_bytes=8 << 30), strata.open("sim",
    hbm_capacity_bytes=64 << 20). Each keyword is one of backend_options(backend), checked against its type;
    None leaves an option at its default. The driver refuses an unknown name (InvalidArgumentError, listing the
    valid ones) and an unknown backend (UnimplementedError, listing this build's)."""
    return Device(backend, **options)


def _typed_options(backend, options):
    """Keywords as the driver's named values, each typed as the backend's open option of its name (None: left out). A
    name the backend does not declare goes as a string: the driver refuses it by name and lists the valid ones."""
    declared = {o["name"]: o["type"] for o in _strata.backend_options(backend)}
    typed = []
    for name, value in options.items():
        # The driver takes C strings: "policy\0junk" would reach it as "policy" (and set it).
        if "\0" in name:
            raise ValueError(f"option name {name!r} of the {backend} backend holds a NUL character")
        if value is None:
            continue
        if name in declared:
            typed.append(_typed_option(backend, name, value, declared[name]))
        else:
            text = str(value)
            if "\0" in text:
                raise ValueError(f"option {name} of the {backend} backend holds a NUL character")
            typed.append((name, _strata.VALUE_STRING, text, 0, 0.0, False))
    return typed


class Device:
    """An open device. Close it with close() or a with block; garbage collection closes it too."""

    def __init__(self, backend, **options):
        _check_backend_name(backend)
        self._core = _strata.Device(backend, _typed_options(backend, options))
        self._lock = threading.Lock()
        self._default_context = None
        self.last_gemm_cycles = 0  # device cycles of the last gemm on any of this device's contexts

    @property
    def backend(self):
        return self._core.backend

    @property
    def closed(self):
        return self._core.closed

    def close(self):
        """Destroys every context (freeing their buffers) and closes the device. Closing twice is allowed."""
        self._core.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        return f"<strata.Device {self.backend} {'closed' if self.closed else 'open'}>"

    def device_info(self):
        """strata_get_device_info as a dict: backend, hbm_capacity_bytes, heap_bytes, device_cycles,
        max_contexts, max_live_buffers, granule_bytes, last_command_cycles, mxu_array_n, hbm_bytes_read,
        hbm_bytes_written, hbm_peak_bytes_per_cycle."""
        return self._core.info()

    def memory_stats(self, context=None):
        """Device memory figures under the frameworks' names (docs/python.md#memory-stats-the-frameworks-names): every field of
        strata_memory_stats under its C name (JAX's / TensorFlow's where they have one: bytes_in_use,
        peak_bytes_in_use, bytes_limit, num_allocs, largest_alloc_size, largest_free_block_bytes, pool_bytes,
        peak_pool_bytes), plus PyTorch's torch.cuda.memory_stats() keys for the same figures. With a context,
        its context_* figures too."""
        if context is None:
            context_id = 0
        elif isinstance(context, Context):
            context._check_live("memory_stats")
            context_id = context.id
        else:
            raise TypeError(f"context must be a strata.Context or None, not {type(context).__name__}")
        stats = self._core.memory_stats(context_id)
        for torch_key, field in TORCH_STAT_KEYS.items():
            stats[torch_key] = stats[field]
        return stats

    def last_oom(self):
        """The device's last failed allocation (strata_get_last_oom): kind ("none", "capacity", "cap",
        "fragmentation"), request_bytes, live_bytes, reserved_bytes, largest_free_block_bytes, limit_bytes, ..."""
        return self._core.last_oom()

    def synchronize(self):
        self._core.synchronize()

    def create_context(self, quota_bytes=None, quota_fraction=None, **options):
        """A new context. quota_bytes or quota_fraction (of the heap, (0, 1]) caps its memory; not both. The keywords
        are named context options (C API 1.9), typed as the backend's open options of those names: on a GPU backend
        the context's own policy and its settings, create_context(policy="torch", memory_fraction=0.5); what it does
        not give is the device's. A backend without context options (sim) refuses any, naming it."""
        quota = 0 if quota_bytes is None else _u64(quota_bytes, "quota_bytes")
        fraction = 0.0
        if quota_fraction is not None:
            if isinstance(quota_fraction, bool) or not isinstance(quota_fraction, (int, float, np.floating)):
                raise TypeError(f"quota_fraction must be a number, not {type(quota_fraction).__name__}")
            fraction = float(quota_fraction)
        return Context(self, self._core.context_create(quota, fraction, _typed_options(self.backend, options)))

    @property
    def context(self):
        """The device's default context (created on first use): what Device.alloc, gemm and compact use."""
        with self._lock:
            if self._default_context is None or self._default_context.destroyed:
                self._default_context = self.create_context()
            return self._default_context

    def alloc(self, nbytes, alignment=0, compact=True):
        return self.context.alloc(nbytes, alignment, compact)

    def upload(self, array):
        return self.context.upload(array)

    def gemm(self, a, b, c=None, **kwargs):
        return self.context.gemm(a, b, c, **kwargs)

    def compact(self, max_bytes=0, max_moves=0):
        return self.context.compact(max_bytes, max_moves)


class Context:
    """A context of a device: it owns buffers, and a quota if it was given one. destroy() (or the end of a with
    block) frees its buffers."""

    def __init__(self, device, context_id):
        self.device = device
        self.id = context_id
        self.destroyed = False

    def destroy(self):
        """strata_context_destroy: frees every buffer of the context. NotFoundError when it is already gone."""
        self.device._core.context_destroy(self.id)
        self.destroyed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if not self.destroyed and not self.device.closed:
            self.destroy()
        return False

    def __repr__(self):
        return f"<strata.Context {self.id} of {self.device!r}{' destroyed' if self.destroyed else ''}>"

    def _check_live(self, what):
        """NotFoundError for a call on a destroyed context, before it reaches the driver (which refuses the id too)."""
        if self.destroyed:
            raise error_class("NOT_FOUND")(f"{what}: context {self.id} was destroyed; create a new one "
                                           f"(Device.create_context)", "NOT_FOUND")

    def memory_stats(self):
        return self.device.memory_stats(self)

    def alloc(self, nbytes, alignment=0, compact=True):
        """A buffer of `nbytes` bytes. alignment: 0 (the granule) or a power of two; compact=False fails with
        ResourceExhaustedError instead of defragmenting when memory is fragmented."""
        self._check_live("alloc")
        nbytes = _u64(nbytes, "nbytes")
        alignment = _u64(alignment, "alignment")
        flags = 0 if compact else _strata.ALLOC_FLAG_NO_COMPACT
        handle = self.device._core.alloc(self.id, nbytes, alignment, flags)
        return Buffer(self, handle, nbytes)

    def upload(self, array):
        """A new buffer holding `array`'s bytes (row-major)."""
        array = _host_array(array, "array")
        buffer = self.alloc(array.nbytes)
        try:
            buffer.write(array)
        except BaseException:
            buffer.free()
            raise
        return buffer

    def compact(self, max_bytes=0, max_moves=0):
        """Defragments device memory (every context's buffers; handles stay valid): {moves, bytes_moved,
        device_cycles}. max_bytes, max_moves: 0 = no limit."""
        self._check_live("compact")
        return self.device._core.compact(self.id, _u64(max_bytes, "max_bytes"), _u32(max_moves, "max_moves"))

    def gemm(self, a, b, c=None, *, relu=False, quant_mult=None, quant_shift=0, round=False, dtype="int8",
             out_dtype=None):
        """a @ b on the device's matrix unit, returned as a new NumPy array.

        dtype="int8" (default): a int8 (m, k), b int8 (k, n). The result is int32 (m, n), with int32 wrap-around
        sums; with c (int32 (m, n)) it is a @ b + c. relu=True: max(0, x) first. quant_mult=M: requantized to
        int8, clip((x * M [+ 2**(quant_shift-1) with round=True]) >> quant_shift, -128, 127).

        dtype="bf16": a, b float32 (or ml_dtypes.bfloat16), rounded to bf16 on upload as strata-sim gemm --dtype
        bf16 rounds them (RNE by ml_dtypes; float32 denormals to a zero of their sign, NaN to 0x7FC0); products
        exact, fp32 sums rounded to nearest even in the matrix unit's order (docs/matrix-unit.md, bf16 mode).
        out_dtype="float32" (default) returns float32, "bfloat16" ml_dtypes.bfloat16 (RNE on the device); c
        (float32 (m, n)) is added with out_dtype float32 only. Needs a sim device opened with runtime_fp=True.

        The device cycles it took are in device.last_gemm_cycles afterwards.
        """
        self._check_live("gemm")
        if dtype not in ("int8", "bf16"):
            raise ValueError(f"gemm: dtype {dtype!r}: 'int8' or 'bf16'")
        if dtype == "bf16":
            if quant_mult is not None or round or quant_shift != 0:
                raise ValueError("gemm: quant_mult, quant_shift and round are for dtype int8 (requantized int32 "
                                 "sums), not bf16")
            return self._gemm_bf16(a, b, c, relu, "float32" if out_dtype is None else out_dtype)
        if out_dtype is not None:
            raise ValueError("gemm: out_dtype is for dtype bf16 (int8 results are int32, or int8 with quant_mult)")
        a = _matrix(a, "a", np.int8)
        b = _matrix(b, "b", np.int8)
        m, k = a.shape
        if b.shape[0] != k:
            raise ValueError(f"gemm: a is {m} x {k} and b is {b.shape[0]} x {b.shape[1]}: a's columns must equal "
                             f"b's rows")
        n = b.shape[1]
        for dim, size in (("m", m), ("n", n), ("k", k)):
            if not 1 <= size <= _strata.GEMM_MAX_DIM:
                raise ValueError(f"gemm: {dim} = {size}; every dimension must be 1 .. {_strata.GEMM_MAX_DIM}")
        flags = 0
        if c is not None:
            c = _matrix(c, "c", np.int32)
            if c.shape != (m, n):
                raise ValueError(f"gemm: c must be {m} x {n} (a's rows x b's columns), not {c.shape[0]} x "
                                 f"{c.shape[1]}")
            flags |= _strata.GEMM_FLAG_ACCUMULATE
        if relu:
            flags |= _strata.GEMM_FLAG_RELU
        if round:
            flags |= _strata.GEMM_FLAG_ROUND
        mult = 0
        if quant_mult is not None:
            flags |= _strata.GEMM_FLAG_INT8
            mult = _integer(quant_mult, "quant_mult", -(1 << 31), (1 << 31) - 1)
        shift = _u32(quant_shift, "quant_shift")
        out = np.empty((m, n), dtype=np.int8 if quant_mult is not None else np.int32)
        self._run_gemm(a, b, c, out, m, n, k, flags=flags, quant_mult=mult, quant_shift=shift)
        return out

    def _gemm_bf16(self, a, b, c, relu, out_dtype):
        if out_dtype not in ("float32", "bfloat16"):
            raise ValueError(f"gemm: out_dtype {out_dtype!r}: 'float32' or 'bfloat16'")
        a16 = _bf16_matrix(a, "a")
        b16 = _bf16_matrix(b, "b")
        m, k = a16.shape
        if b16.shape[0] != k:
            raise ValueError(f"gemm: a is {m} x {k} and b is {b16.shape[0]} x {b16.shape[1]}: a's columns must equal "
                             f"b's rows")
        n = b16.shape[1]
        for dim, size in (("m", m), ("n", n), ("k", k)):
            if not 1 <= size <= _strata.GEMM_MAX_DIM:
                raise ValueError(f"gemm: {dim} = {size}; every dimension must be 1 .. {_strata.GEMM_MAX_DIM}")
        flags = _strata.GEMM_FLAG_RELU if relu else 0
        if c is not None:
            if out_dtype != "float32":
                raise ValueError("gemm: c (added in fp32) needs out_dtype float32: C is read and written in place")
            c = _matrix(c, "c", np.float32)
            if c.shape != (m, n):
                raise ValueError(f"gemm: c must be {m} x {n} (a's rows x b's columns), not {c.shape[0]} x "
                                 f"{c.shape[1]}")
            flags |= _strata.GEMM_FLAG_ACCUMULATE
        if out_dtype == "bfloat16":
            flags |= _strata.GEMM_FLAG_OUT_BF16
        bits = np.empty((m, n), dtype=np.uint16 if out_dtype == "bfloat16" else np.uint32)
        self._run_gemm(a16, b16, c, bits, m, n, k, flags=flags, dtype=_strata.DTYPE_BF16)
        return bits.view(_ml_dtypes().bfloat16 if out_dtype == "bfloat16" else np.float32)

    def _run_gemm(self, a, b, c, out, m, n, k, **kwargs):
        """Uploads a, b (and c, or room for C the size of out), runs gemm_buffers, reads C into out, frees all."""
        buffers = []
        try:
            buffers.append(self.upload(a))
            buffers.append(self.upload(b))
            buffers.append(self.upload(c) if c is not None else self.alloc(out.nbytes))
            self.gemm_buffers(*buffers, m, n, k, **kwargs)
            buffers[2].read(out=out)
        except BaseException:
            # The call's own error (or Ctrl-C's KeyboardInterrupt) is the one to raise: a device that failed in the
            # call (interrupted, timed out) refuses the frees too.
            for buffer in buffers:
                try:
                    buffer.free()
                except Error:
                    pass
            raise
        for buffer in buffers:
            buffer.free()

    def gemm_buffers(self, a, b, c, m, n, k, flags=0, quant_mult=0, quant_shift=0, dtype=0):
        """strata_gemm on buffers already on the device (row-major, see strata/gemm.h): c = a (m x k) . b (k x n)
        with flags GEMM_FLAG_* and dtype DTYPE_INT8 (0) or DTYPE_BF16 (a, b bf16 bit patterns; c fp32, or bf16
        with GEMM_FLAG_OUT_BF16). Returns the device cycles it took. The driver checks the rest (buffer sizes,
        flag combinations: OutOfRangeError, InvalidArgumentError; bf16 on runtime.elf: FailedPreconditionError)."""
        self._check_live("gemm_buffers")
        for name, buffer in (("a", a), ("b", b), ("c", c)):
            if not isinstance(buffer, Buffer):
                raise TypeError(f"gemm_buffers: {name} must be a strata.Buffer, not {type(buffer).__name__}")
        cycles = self.device._core.gemm(self.id, a.handle, b.handle, c.handle, _u32(m, "m"), _u32(n, "n"),
                                        _u32(k, "k"), _u32(flags, "flags"),
                                        _integer(quant_mult, "quant_mult", -(1 << 31), (1 << 31) - 1),
                                        _u32(quant_shift, "quant_shift"), _u32(dtype, "dtype"))
        self.device.last_gemm_cycles = cycles
        return cycles


def _host_array(data, what):
    """`data` as a C-contiguous NumPy array (a copy only when it is not one already)."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        return np.frombuffer(data, dtype=np.uint8)
    if not isinstance(data, np.ndarray):
        raise TypeError(f"{what} must be a NumPy array or a bytes-like object, not {type(data).__name__}")
    if data.dtype.hasobject:
        raise TypeError(f"{what} has dtype {data.dtype}, which holds Python objects, not bytes")
    return np.ascontiguousarray(data)


def _ml_dtypes():
    try:
        import ml_dtypes
    except ImportError as e:
        raise ImportError("gemm with dtype bf16 needs the ml_dtypes package (pip install ml_dtypes)") from e
    return ml_dtypes


def _bf16_matrix(x, what):
    """x (float32, or ml_dtypes.bfloat16 as it is) as a C-contiguous matrix of bf16 bit patterns (uint16), rounded
    as strata-sim gemm --dtype bf16 rounds: float32 denormals to a zero of their sign (the matrix unit has none),
    NaN to the canonical 0x7FC0, everything else to nearest even (ml_dtypes; overflow to infinity)."""
    bfloat16 = _ml_dtypes().bfloat16
    if not isinstance(x, np.ndarray):
        raise TypeError(f"gemm: {what} must be a NumPy array of float32 or bfloat16, not {type(x).__name__}")
    if x.ndim != 2:
        raise ValueError(f"gemm: {what} must be a 2-D matrix, not {x.ndim}-D (shape {x.shape})")
    if x.dtype == bfloat16:
        return np.ascontiguousarray(x).view(np.uint16)
    if x.dtype != np.float32:
        raise TypeError(f"gemm: {what} must be float32 or bfloat16 for dtype bf16, not {x.dtype.name} (convert it "
                        f"with {what}.astype(numpy.float32))")
    bits = np.ascontiguousarray(x).view(np.uint32)
    denormal = (bits & 0x7F800000) == 0
    flushed = np.where(denormal, bits & 0x80000000, bits).view(np.float32)
    out = flushed.astype(bfloat16).view(np.uint16)
    return np.where(np.isnan(x), np.uint16(0x7FC0), out)


def _matrix(x, what, dtype):
    if not isinstance(x, np.ndarray):
        raise TypeError(f"gemm: {what} must be a NumPy array of {np.dtype(dtype).name}, not {type(x).__name__}")
    if x.dtype != dtype:
        raise TypeError(f"gemm: {what} must be {np.dtype(dtype).name}, not {x.dtype.name} (convert it with "
                        f"{what}.astype(numpy.{np.dtype(dtype).name}) if its values fit)")
    if x.ndim != 2:
        raise ValueError(f"gemm: {what} must be a 2-D matrix, not {x.ndim}-D (shape {x.shape})")
    return np.ascontiguousarray(x)


class Buffer:
    """Device memory of one context. free() (or the end of a with block, or garbage collection) frees it."""

    def __init__(self, context, handle, nbytes):
        self.context = context
        self.handle = handle
        self.nbytes = nbytes
        self.freed = False

    @property
    def device(self):
        return self.context.device

    def __repr__(self):
        state = " freed" if self.freed else ""
        return f"<strata.Buffer {self.handle:#x} {self.nbytes} B in context {self.context.id}{state}>"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if not self.freed and not self.context.destroyed and not self.device.closed:
            self.free()
        return False

    def __del__(self):
        try:
            self._release()
        except Exception:  # interpreter shutdown: modules may be gone
            pass

    def _release(self):
        """Frees unless it is freed or its context or device is gone; errors are dropped (garbage collection)."""
        if self.freed or self.context.destroyed or self.device.closed:
            return
        self.freed = True
        try:
            self.device._core.free(self.context.id, self.handle)
        except Error:
            pass

    def free(self):
        """strata_free. Freeing twice raises NotFoundError (the driver's answer for a stale handle)."""
        self.freed = True
        self.device._core.free(self.context.id, self.handle)

    def write(self, data, offset=0):
        """Copies `data` (a NumPy array of any dtype, row-major, or bytes) to [offset, offset + data.nbytes) of
        the buffer. OutOfRangeError if that leaves the buffer (nothing is written then)."""
        array = _host_array(data, "data")
        self.device._core.write(self.context.id, self.handle, _u64(offset, "offset"), array)

    def read(self, dtype=np.uint8, shape=None, offset=0, out=None):
        """The buffer's bytes from `offset` as a new array of `dtype` and `shape` (default: all bytes from offset
        on, 1-D), or into `out` (a writable C-contiguous array, returned)."""
        offset = _u64(offset, "offset")
        if out is None:
            dtype = np.dtype(dtype)
            if dtype.hasobject or dtype.itemsize == 0:
                raise TypeError(f"read: dtype {dtype} does not describe bytes")
            if shape is None:
                if offset > self.nbytes or (self.nbytes - offset) % dtype.itemsize != 0:
                    raise ValueError(f"read: {self.nbytes - offset if offset <= self.nbytes else 'no'} bytes from "
                                     f"offset {offset} are not a whole number of {dtype.name} ({dtype.itemsize} B); "
                                     f"give a shape")
                shape = ((self.nbytes - offset) // dtype.itemsize,)
            shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
            count = 1
            for dim in shape:
                count *= _integer(dim, "read: each dimension of shape", 0, 1 << 62)
            if count * dtype.itemsize > self.nbytes:  # before allocating host memory for it
                raise ValueError(f"read: shape {shape} of {dtype.name} is {count * dtype.itemsize} B; the buffer "
                                 f"holds {self.nbytes} B")
            out = np.empty(shape, dtype=dtype)
        else:
            if not isinstance(out, np.ndarray):
                raise TypeError(f"read: out must be a NumPy array, not {type(out).__name__}")
            if not out.flags.c_contiguous or not out.flags.writeable:
                raise ValueError("read: out must be a writable C-contiguous array")
            if out.dtype.hasobject:
                raise TypeError(f"read: out has dtype {out.dtype}, which holds Python objects, not bytes")
        self.device._core.read(self.context.id, self.handle, offset, out)
        return out
