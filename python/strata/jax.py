"""strata.jax.run: a JAX function compiled by XLA and run on the modelled TPU (docs/jax-on-the-model.md).

    import strata.jax
    outputs, report = strata.jax.run(fn, x, w, allocation="firmware")   # outputs: fn's pytree of NumPy arrays
    report["cycles"], report["host_ops"], report["peak_hbm_bytes"]

The program is compiled once (strata.workload.from_jax, XLA's dump on): the optimized module that compile scheduled
is what runs, and the buffer assignment of that same compile is what allocation="xla" places and what the
report's xla_* figures come from. This module is strata.jax; `import jax` inside it is JAX (absolute imports).
"""
import numpy as np

from . import dump as _dump
from .device import Device
from .device import open as _open
from .executor import execute
from .placement import PLACEMENTS
from .workload import from_jax

__all__ = ["run", "PLACEMENTS"]


def run(fn, *args, allocation="firmware", device=None, compiler_options=None, donate_argnums=(), **options):
    """Runs `fn(*args)` on a Strata device: compiled by XLA for the CPU (the host JAX has), its entry computation
    executed instruction by instruction on `device` (default: a new strata.open("sim", **options), closed
    afterwards; options are the sim backend's open options, hbm_capacity_bytes=...). allocation: "firmware" or
    "xla" (strata.placement). donate_argnums: jax.jit's; a donated argument's buffer is the call's (the firmware
    placement frees it after its last use; XLA's plan may write outputs into it). Returns (outputs in fn's output
    structure as NumPy arrays, report dict)."""
    import jax
    import jax.numpy as jnp

    if allocation not in PLACEMENTS:
        raise ValueError(f"allocation must be one of {', '.join(PLACEMENTS)}, not {allocation!r}")
    if device is not None:
        if not isinstance(device, Device):
            raise TypeError(f"device must be a strata.Device (strata.open(...)), not {type(device).__name__}")
        if options:
            raise TypeError(f"device options ({', '.join(options)}) are for the device run opens; this call was "
                            f"given an open device")
    leaves = [np.asarray(jnp.asarray(x)) for x in jax.tree.leaves(args)]
    out_tree = jax.tree.structure(jax.eval_shape(fn, *args))
    with from_jax(fn, *args, compiler_options=compiler_options, keep_unused=True,
                  donate_argnums=donate_argnums) as prog:
        module, plan = _dump.load(prog.assignment[:-len("-buffer-assignment.txt")] + ".txt")
        memory = dict(prog.memory)
    owned = device is None
    if owned:
        device = _open("sim", **options)
    try:
        outputs, report = execute(module, leaves, device, allocation=allocation, plan=plan)
    finally:
        if owned:
            device.close()
    report["xla_memory_analysis"] = memory
    if len(outputs) != out_tree.num_leaves:
        raise RuntimeError(f"{module.name} returned {len(outputs)} arrays; {getattr(fn, '__name__', 'fn')} returns "
                           f"{out_tree.num_leaves}")
    return jax.tree.unflatten(out_tree, outputs), report
