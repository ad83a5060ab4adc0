"""Programs that strata.jax.run executes in the tests (test_executor.py) and whose dump make_run_dump.py commits
(data/run_qmm/) for the strata-run tests that need no JAX."""
import numpy as np

try:  # fragmenting_args needs NumPy only: test_run_cli.py makes the committed dumps' arguments without JAX
    import jax
    import jax.numpy as jnp
except ImportError:
    jax = jnp = None


def int8_matmul(a, b, scale):
    """An int8-quantized layer: int8 x int8 -> int32 products (the MXU's), then requantized to int8 on the host."""
    acc = jax.lax.dot(a, b, preferred_element_type=jnp.int32)
    y = jnp.clip(jnp.round(acc.astype(jnp.float32) * scale), -128, 127).astype(jnp.int8)
    return acc, y


def int8_matmul_args(m, k, n, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.integers(-128, 128, (m, k), dtype=np.int8), rng.integers(-128, 128, (k, n), dtype=np.int8),
            np.float32(1.0 / (16 * k)))


def mlp(params, x):
    """A float MLP forward: dot, add, tanh, relu and reductions, all on the host fallback today."""
    (w1, b1), (w2, b2) = params
    h = jnp.tanh(x @ w1 + b1)
    y = jax.nn.relu(h @ w2 + b2)
    return {"y": y, "loss": jnp.mean(y ** 2), "rowmax": y.max(axis=1)}


def mlp_args(batch=16, d_in=64, hidden=128, d_out=32, seed=1):
    rng = np.random.default_rng(seed)
    params = ((rng.standard_normal((d_in, hidden), np.float32) * 0.1, rng.standard_normal(hidden, np.float32)),
              (rng.standard_normal((hidden, d_out), np.float32) * 0.1, rng.standard_normal(d_out, np.float32)))
    return params, rng.standard_normal((batch, d_in), np.float32)


def fragmenting(x):
    """With fusion off (FRAGMENTING_OPTIONS), four same-sized values of which two die before a concatenation three
    times their size: on a 1 MiB heap (a 2 MiB sim device) the firmware placement must compact for it at 24 rows,
    and at 26 to 36 rows it runs out where XLA's plan (which reuses buffers in place) still fits."""
    a = jnp.sin(x)
    b = jnp.cos(x)
    c = jnp.exp(x)
    d = jnp.tanh(x)
    s = jnp.sum(b) + jnp.sum(d)
    f = jnp.concatenate([a, c, a * c], axis=0)
    return f * s


FRAGMENTING_OPTIONS = {"xla_disable_hlo_passes": "fusion"}


def fragmenting_args(rows=24):
    return (np.random.default_rng(4).standard_normal((rows, 1024)).astype(np.float32) * 0.1,)
