"""Arrays between their logical order (NumPy, as JAX shows them) and their bytes on the device (the HLO shape's
layout, minor_to_major): what the executor writes to and reads from a buffer, and what a bitcast reinterprets."""
import numpy as np


def _major_to_minor(shape):
    return list(reversed(shape.layout))


def to_bytes(array, shape):
    """`array` (logical dims of `shape`) as the bytes of `shape`'s layout (a 1-D uint8 array)."""
    array = np.asarray(array, dtype=shape.dtype)
    if array.shape != shape.dims:
        raise ValueError(f"array of shape {array.shape} stored as {shape!r}")
    physical = np.ascontiguousarray(array.transpose(_major_to_minor(shape))) if array.ndim > 1 else \
        np.ascontiguousarray(array)
    return physical.reshape(-1).view(np.uint8)


def from_bytes(data, shape):
    """The logical array of `shape` whose bytes in `shape`'s layout are `data`."""
    order = _major_to_minor(shape)
    physical = np.frombuffer(np.ascontiguousarray(data).tobytes(), dtype=shape.dtype)
    physical = physical.reshape([shape.dims[d] for d in order])
    return physical.transpose(np.argsort(order)).copy(order="C")


def is_row_major(shape):
    """Whether the layout is the default one (row-major: dims major to minor in order)."""
    return list(shape.layout) == list(range(len(shape.dims) - 1, -1, -1))
