"""JAX programs as Strata workloads (docs/jax.md): compile a jitted function with XLA's dump on and read its buffer
assignment (from the text dump, the protobuf dump, or memory_analysis()'s serialized proto: the routes), the
sizes memory_analysis() reports, and Strata's comparison of it.

    import jax.numpy as jnp
    import strata.workload

    prog = strata.workload.from_jax(lambda x: jnp.tanh(x @ x), jnp.ones((512, 512)), devices=1)
    prog.memory            # {"argument_size_in_bytes": ..., "temp_size_in_bytes": ..., ...} per device
    prog.compare()         # strata.compare on the executable's logical buffers: xla-static, offline-bfd, ...

JAX must already be importable (scripts/setup.sh installs it into the project's .venv). This module imports it only
when from_jax is called, so `import strata` works without it.
"""
import functools
import glob
import os
import shutil
import subprocess
import tempfile

from .tools import _tools

MEMORY_FIELDS = ("argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes", "temp_size_in_bytes",
                 "generated_code_size_in_bytes", "peak_memory_in_bytes")

# Where the buffer assignment is read from (docs/jax.md): the text dump (*-buffer-assignment.txt with its live
# ranges), the protobuf dump (*.hlo.pb: the HloProto with the heap-simulator trace), or memory_analysis()'s
# serialized_buffer_assignment_proto (allocations and offsets, no trace: the steps view only).
ROUTES = ("text", "proto", "memory_analysis")

# Both dumps from the one compile (with the proto alone XLA writes no buffer-assignment text).
_DUMP_OPTIONS = {"xla_dump_hlo_as_text": True, "xla_dump_hlo_as_proto": True}


def _tpu_presets():
    """HBM per JAX device of every TPU in the one device table (host/gpu/devices.cc; docs/jax.md the sources)."""
    from .tools import devices
    try:
        return {d["name"]: d["total_bytes"] for d in devices() if d["kind"] == "tpu"}
    except RuntimeError:  # a build without the tools module: no table to read
        return {}


TPU_PRESETS = _tpu_presets()


class JaxProgram:
    """One compiled program: where its dump is, what memory_analysis() said, and how to compare it."""

    def __init__(self, dump_dir, assignment, memory, devices, steps, owned, hlo_proto=None, analysis_proto=None):
        self.dump_dir = dump_dir        # the XLA dump (deleted with close() when from_jax made it)
        self.assignment = assignment    # the entry module's *-buffer-assignment.txt
        self.hlo_proto = hlo_proto      # the entry module's *.hlo.pb (None when XLA wrote none)
        self.analysis_proto = analysis_proto  # memory_analysis()'s serialized buffer assignment, as a file
        self.memory = memory            # memory_analysis() figures, per device
        self.devices = devices
        self.steps = steps
        self._owned = owned

    @property
    def device_bytes(self):
        """What one device holds during a call: arguments, temp, and the outputs that alias no argument."""
        m = self.memory
        return (m["argument_size_in_bytes"] + m["temp_size_in_bytes"] + m["output_size_in_bytes"]
                - m["alias_size_in_bytes"])

    def fits(self):
        """The TPU presets (name -> HBM bytes per device, docs/jax.md) that hold device_bytes."""
        return {name: hbm for name, hbm in TPU_PRESETS.items() if self.device_bytes <= hbm}

    @property
    def module(self):
        return os.path.basename(self.assignment)[:-len("-buffer-assignment.txt")]

    def source(self, route="text"):
        """The file the importer reads for `route` (ROUTES)."""
        paths = {"text": self.assignment, "proto": self.hlo_proto, "memory_analysis": self.analysis_proto}
        if route not in paths:
            raise ValueError(f"route must be one of {', '.join(ROUTES)}, not {route!r}")
        if not paths[route]:
            raise ValueError(f"route {route!r}: XLA wrote no such dump for this program")
        return paths[route]

    def compare(self, route="text", view="executable", steps=None, tpu_pad=False, **kwargs):
        """strata.compare on one view of the program: "executable" (the temp allocation's logical buffers at XLA's
        offsets: every contender plus xla-static, lower-bound and offline-bfd) or "steps" (what the runtime
        allocator sees over `steps` calls, default from_jax's); tpu_pad: TPU tile padding. route: ROUTES. kwargs
        go to strata.compare (capacity="tpu-v5e", contenders=..., search=...). The report gains "devices" and,
        per TPU preset, whether one device holds its share ("fits": preset -> bool, from device_bytes)."""
        from .tools import compare
        kwargs.setdefault("format", "xla")
        report = compare(self.source(route), xla_view=view, xla_steps=steps or self.steps, tpu_pad=tpu_pad,
                         **kwargs)
        report["devices"] = self.devices
        report["device_bytes"] = self.device_bytes
        report["fits"] = {name: self.device_bytes <= hbm for name, hbm in TPU_PRESETS.items()}
        return report

    def import_csv(self, view="executable", steps=None, tpu_pad=False, tool=None, route="text"):
        """The workload as strata-import writes it (CSV text): view "executable" or "steps" (steps calls, default
        the steps given to from_jax); route: ROUTES ("memory_analysis" has no live ranges: the steps view only).
        tool: the strata-import program (default $STRATA_IMPORT_TOOL or PATH)."""
        tool = tool or os.environ.get("STRATA_IMPORT_TOOL") or shutil.which("strata-import")
        if not tool:
            raise FileNotFoundError("strata-import not found: set STRATA_IMPORT_TOOL or put it on PATH")
        cmd = [tool, self.source(route), "--format", "xla", "--xla-view", view,
               "--xla-steps", str(steps or self.steps)] + (["--tpu-pad"] if tpu_pad else [])
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise ValueError(done.stderr.strip())
        return done.stdout

    def close(self):
        if self._owned and self.dump_dir and os.path.isdir(self.dump_dir):
            shutil.rmtree(self.dump_dir)
        self.dump_dir = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _shard(args, devices):
    """Each array argument split along its first axis over `devices` host devices when it divides evenly, else
    replicated: the per-device buffer assignment is then what one device holds."""
    import jax
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    available = jax.devices()
    if devices > len(available):
        raise ValueError(f"devices={devices}, but JAX has {len(available)}: set "
                         f"XLA_FLAGS=--xla_force_host_platform_device_count={devices} before importing jax")
    mesh = Mesh(available[:devices], ("d",))

    def place(a):
        if not hasattr(a, "shape"):
            return a
        split = len(a.shape) > 0 and a.shape[0] % devices == 0
        return jax.device_put(a, NamedSharding(mesh, PartitionSpec("d") if split else PartitionSpec()))

    return jax.tree.map(place, args)


def _fresh(fn):
    """`fn` as a new function object, named as `fn` (XLA's module and dump names come from it). JAX keeps what it
    compiled by the traced function: the same fn, arguments and options again (from_jax twice into one dump_dir)
    would come back from that in-memory cache without a compile, and XLA would write no dump for it."""
    @functools.wraps(fn)
    def program(*args, **kwargs):
        return fn(*args, **kwargs)

    if not hasattr(fn, "__name__") and hasattr(getattr(fn, "func", None), "__name__"):  # functools.partial
        program.__name__ = program.__qualname__ = fn.func.__name__
    return program


def _no_dump_message(jax, dump_dir):
    """Why a compile wrote no buffer assignment into dump_dir, and what to do."""
    try:
        cache_dir = jax.config.jax_compilation_cache_dir if jax.config.jax_enable_compilation_cache else None
    except AttributeError:
        cache_dir = None
    if cache_dir:
        return (f"{dump_dir}: XLA wrote no buffer assignment: JAX took this program from its persistent compilation "
                f"cache ({cache_dir}), which skips XLA and so its dump; run from_jax with that cache off "
                f"(jax.config.update('jax_enable_compilation_cache', False) before JAX's first compile, or "
                f"JAX_ENABLE_COMPILATION_CACHE=false) or clear it")
    return (f"{dump_dir}: XLA wrote no buffer assignment for this compile (does this jaxlib honour "
            f"compiler_options={{'xla_dump_to': ...}}?)")


def from_jax(fn, *args, steps=1, devices=1, donate_argnums=(), static_argnums=(), dump_dir=None, compiler_options=None,
             keep_unused=False):
    """Compiles `fn` for `args` (jax.jit(fn).lower(*args).compile()) with XLA's dump written to `dump_dir` (default a
    temporary directory, removed by close()), sharded over `devices` devices (first axes split where they divide),
    and returns a JaxProgram. `steps` is how many calls the steps view models. Each call compiles anew (a program
    compiled before is not taken from JAX's in-memory cache), so one dump_dir serves many calls: each reads the
    dump its own compile wrote. keep_unused: jax.jit's (True keeps arguments the program never reads as
    parameters, so the entry's parameters are the arguments' leaves one for one: what strata.jax.run needs)."""
    import jax

    if not isinstance(steps, int) or isinstance(steps, bool) or not 1 <= steps <= 1_000_000:
        raise ValueError(f"steps must be 1 to 1000000, not {steps!r}")
    if not isinstance(devices, int) or isinstance(devices, bool) or devices < 1:
        raise ValueError(f"devices must be a positive int, not {devices!r}")
    owned = dump_dir is None
    dump_dir = dump_dir or tempfile.mkdtemp(prefix="strata-xla-")
    os.makedirs(dump_dir, exist_ok=True)
    before = set(glob.glob(os.path.join(dump_dir, "*-buffer-assignment.txt")))
    if devices > 1:
        args = _shard(args, devices)
    options = {"xla_dump_to": dump_dir, **_DUMP_OPTIONS, **(compiler_options or {})}
    compiled = jax.jit(_fresh(fn), donate_argnums=donate_argnums, static_argnums=static_argnums,
                       keep_unused=keep_unused).lower(*args).compile(compiler_options=options)
    analysis = compiled.memory_analysis()
    memory = {k: int(getattr(analysis, k)) for k in MEMORY_FIELDS if hasattr(analysis, k)}
    made = sorted(set(glob.glob(os.path.join(dump_dir, "*-buffer-assignment.txt"))) - before)
    if not made:
        raise RuntimeError(_no_dump_message(jax, dump_dir))
    assignment = made[-1]
    hlo_proto = assignment[:-len("-buffer-assignment.txt")] + ".hlo.pb"
    analysis_proto = None
    serialized = getattr(analysis, "serialized_buffer_assignment_proto", None)
    if serialized:
        analysis_proto = assignment[:-len("-buffer-assignment.txt")] + ".memory-analysis.pb"
        with open(analysis_proto, "wb") as f:
            f.write(serialized)
    return JaxProgram(dump_dir, assignment, memory, devices, steps, owned,
                      hlo_proto if os.path.exists(hlo_proto) else None, analysis_proto)
