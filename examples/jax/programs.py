"""The JAX programs of docs/jax.md: an MLP training step with an Adam-style optimizer, a transformer (attention and
MLP blocks) at three sizes, a CNN and a scan. Each is a function, its arguments and what it donates."""
import jax
import jax.numpy as jnp


def _init(key, shapes):
    keys = jax.random.split(key, len(shapes))
    return {name: jax.random.normal(k, shape, jnp.float32) * 0.02 for k, (name, shape) in zip(keys, shapes.items())}


def _adam(p, m, v, g, lr=1e-3):
    m = jax.tree.map(lambda a, b: 0.9 * a + 0.1 * b, m, g)
    v = jax.tree.map(lambda a, b: 0.999 * a + 0.001 * b * b, v, g)
    p = jax.tree.map(lambda w, a, b: w - lr * a / (jnp.sqrt(b) + 1e-8), p, m, v)
    return p, m, v


def mlp(batch=256, width=1024, depth=4):
    shapes = {f"w{i}": (width, width) for i in range(depth)}
    p = _init(jax.random.PRNGKey(0), shapes)

    def loss(p, x, y):
        h = x
        for i in range(depth):
            h = jax.nn.gelu(h @ p[f"w{i}"])
        return jnp.mean((h - y) ** 2)

    def step(p, m, v, x, y):
        g = jax.grad(loss)(p, x, y)
        return _adam(p, m, v, g)

    zeros = jax.tree.map(jnp.zeros_like, p)
    x = jnp.ones((batch, width), jnp.float32)
    return step, (p, zeros, zeros, x, x), (0, 1, 2)


def transformer(layers=2, d=256, heads=4, seq=128, batch=8):
    shapes = {}
    for i in range(layers):
        shapes.update({f"qkv{i}": (d, 3 * d), f"o{i}": (d, d), f"up{i}": (d, 4 * d), f"down{i}": (4 * d, d)})
    p = _init(jax.random.PRNGKey(1), shapes)

    def block(p, i, h):
        b, s, _ = h.shape
        q, k, v = jnp.split(h @ p[f"qkv{i}"], 3, axis=-1)
        q, k, v = (t.reshape(b, s, heads, d // heads).transpose(0, 2, 1, 3) for t in (q, k, v))
        a = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / (d // heads) ** 0.5, axis=-1) @ v
        h = h + a.transpose(0, 2, 1, 3).reshape(b, s, d) @ p[f"o{i}"]
        return h + jax.nn.gelu(h @ p[f"up{i}"]) @ p[f"down{i}"]

    def loss(p, x):
        h = x
        for i in range(layers):
            h = block(p, i, h)
        return jnp.mean(h ** 2)

    def step(p, m, v, x):
        return _adam(p, m, v, jax.grad(loss)(p, x))

    zeros = jax.tree.map(jnp.zeros_like, p)
    return step, (p, zeros, zeros, jnp.ones((batch, seq, d), jnp.float32)), (0, 1, 2)


def cnn(batch=32, size=32, channels=(3, 32, 64)):
    shapes = {f"k{i}": (3, 3, channels[i], channels[i + 1]) for i in range(len(channels) - 1)}
    p = _init(jax.random.PRNGKey(2), shapes)

    def loss(p, x):
        h = x
        for i in range(len(channels) - 1):
            h = jax.lax.conv_general_dilated(h, p[f"k{i}"], (1, 1), "SAME",
                                             dimension_numbers=("NHWC", "HWIO", "NHWC"))
            h = jax.nn.relu(h)
        return jnp.mean(h)

    def step(p, x):
        g = jax.grad(loss)(p, x)
        return jax.tree.map(lambda w, d: w - 0.01 * d, p, g)

    return step, (p, jnp.ones((batch, size, size, channels[0]), jnp.float32)), (0,)


def scan(steps=64, width=512):
    w = jax.random.normal(jax.random.PRNGKey(3), (width, width), jnp.float32) * 0.02

    def run(w, h0):
        def body(h, _):
            h = jnp.tanh(h @ w)
            return h, h.sum()
        return jax.lax.scan(body, h0, None, length=steps)

    return run, (w, jnp.ones((64, width), jnp.float32)), ()


PROGRAMS = {
    "mlp": mlp,
    "transformer-s": lambda: transformer(layers=2, d=128),
    "transformer-m": lambda: transformer(layers=4, d=256),
    "transformer-l": lambda: transformer(layers=24, d=256, seq=64),
    # The >= 10k-logical-buffer program: 120 thin layers with XLA's fusion off (18524 values, 1956 temp buffers;
    # about 3 minutes to compile here, so CTest leaves it out). A fourth element is compiler options.
    "transformer-xl": lambda: transformer(layers=120, d=64, heads=2, seq=16, batch=2) + (
        {"xla_disable_hlo_passes": "fusion"},),
    "cnn": cnn,
    "scan": scan,
}
