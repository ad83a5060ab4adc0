"""A float MLP's forward pass run on the modelled TPU with strata.jax.run. Today every op of it runs on the host
fallback (float dots wait for the MXU's bf16 mode, elementwise ops for the vector unit) and the report says so;
outputs within rtol 1e-5, atol 1e-6 of JAX on CPU (docs/jax-on-the-model.md). Run from the repository root:

    PYTHONPATH=build/python .venv/bin/python examples/jax/mlp_forward.py
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


def mlp(params, x):
    (w1, b1), (w2, b2) = params
    h = jnp.tanh(x @ w1 + b1)
    logits = jax.nn.relu(h @ w2 + b2)
    return logits, jnp.mean(logits ** 2)


def main():
    rng = np.random.default_rng(1)
    params = ((rng.standard_normal((64, 128), np.float32) * 0.1, np.zeros(128, np.float32)),
              (rng.standard_normal((128, 16), np.float32) * 0.1, np.zeros(16, np.float32)))
    x = rng.standard_normal((32, 64), np.float32)
    want = jax.tree.map(np.asarray, jax.jit(mlp)(params, x))
    for allocation in ("firmware", "xla"):
        out, report = strata.jax.run(mlp, params, x, allocation=allocation)
        for got, ref in zip(out, want):
            np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)
        print(f"== MLP forward, allocation={allocation}: within rtol 1e-5, atol 1e-6 of JAX on CPU")
        print(table(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
