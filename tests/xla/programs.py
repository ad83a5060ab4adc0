"""Small JAX programs whose buffers are known, for the XLA import tests (tests/xla) and their committed dumps.

Each entry: a jitted function, its arguments and what is donated. make_dumps.py compiles each with XLA's dump on
and keeps the entry module's buffer assignment, live ranges and memory_analysis() figures.
"""
import jax
import jax.numpy as jnp


def chain(x):
    """Elementwise ops of one known size (256 x 128 f32 = 128 KiB each); fusion is off so each is a buffer."""
    a = jnp.sin(x)
    b = a * 2.0
    c = jnp.exp(b)
    d = c + x
    return jnp.tanh(d)


def scan(c0, xs):
    """lax.scan: a carry of 64 x 64 f32 through 8 steps, stacking each step's output."""
    def body(c, x):
        c = jnp.tanh(c @ x + c)
        return c, c * 2.0
    return jax.lax.scan(body, c0, xs)


def donation(p, m, x, y):
    """One SGD-with-momentum step of a 2-layer MLP; parameters and momentum are donated (updated in place)."""
    def loss(p):
        h = jnp.tanh(x @ p["w1"] + p["b1"])
        return jnp.mean((h @ p["w2"] - y) ** 2)
    g = jax.grad(loss)(p)
    m = jax.tree.map(lambda a, b: 0.9 * a + b, m, g)
    p = jax.tree.map(lambda a, b: a - 0.01 * b, p, m)
    return p, m


def programs():
    f32 = jnp.float32
    p = {"w1": jnp.ones((64, 256), f32), "b1": jnp.ones((256,), f32), "w2": jnp.ones((256, 32), f32)}
    return {
        # name: (function, args, donate_argnums, compiler options)
        "chain": (chain, (jnp.ones((256, 128), f32),), (), {"xla_disable_hlo_passes": "fusion"}),
        "scan": (scan, (jnp.ones((64, 64), f32), jnp.ones((8, 64, 64), f32)), (), {}),
        "donation": (donation, (p, jax.tree.map(jnp.zeros_like, p), jnp.ones((128, 64), f32),
                                jnp.ones((128, 32), f32)), (0, 1), {}),
    }
