"""An int8-quantized layer run on the modelled TPU with strata.jax.run: int8 x int8 -> int32 on the matrix unit,
the requantize to int8 on the host fallback; both placements, checked bit for bit against JAX on CPU
(docs/jax-on-the-model.md). Run from the repository root after scripts/build.sh:

    PYTHONPATH=build/python .venv/bin/python examples/jax/int8_matmul.py [M K N]
"""
import sys

try:
    import jax
    import jax.numpy as jnp
except ImportError as e:  # CTest counts 77 as skipped
    print(f"skipped: JAX is not installed in this Python ({sys.executable}): {e}; run scripts/setup.sh")
    sys.exit(77)
import numpy as np

import strata.jax
from strata.report import table


def layer(x, w, scale):
    acc = jax.lax.dot(x, w, preferred_element_type=jnp.int32)
    return jnp.clip(jnp.round(acc.astype(jnp.float32) * scale), -128, 127).astype(jnp.int8)


def main():
    m, k, n = (int(v) for v in sys.argv[1:4]) if len(sys.argv) >= 4 else (64, 128, 64)
    rng = np.random.default_rng(0)
    x = rng.integers(-128, 128, (m, k), dtype=np.int8)
    w = rng.integers(-128, 128, (k, n), dtype=np.int8)
    scale = np.float32(1 / (16 * k))
    want = np.asarray(jax.jit(layer)(x, w, scale))
    for allocation in ("firmware", "xla"):
        y, report = strata.jax.run(layer, x, w, scale, allocation=allocation)
        if not np.array_equal(y, want):
            print(f"int8_matmul: {allocation}: {np.count_nonzero(y != want)} outputs differ from JAX")
            return 1
        print(f"== {m}x{k} @ {k}x{n}, allocation={allocation}: bit-exact with JAX on CPU")
        print(table(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
