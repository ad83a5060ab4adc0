"""strata.replay and strata.compare: strata-replay and strata-compare in-process, results as dicts.

Both run the tools' own libraries (host/replay, host/compare) and parse the JSON (and CSV) those libraries write,
so every figure and key is the one the command-line tools print (docs/comparison.md, docs/gpu-policies.md).
A trace is a path (a trace CSV; compare also takes a PyTorch memory snapshot or an RMM log) or rows: an
iterable of dicts with id, lower, upper, size, or of (id, lower, upper, size) tuples.

    r = strata.replay("resnet50.csv", backend="gpu-emu", policy="torch", capacity="1.0x")
    report = strata.compare("resnet50.csv", capacity="1.1x")
    for row in report["table"]:
        print(row["contender"], row["completed"], row["min_capacity_ratio"])

Input the libraries refuse (a trace that does not parse, an unknown policy, capacity or contender) raises
ValueError with their message; a run that fails (a backend that does not start) raises RuntimeError.
"""
import csv
import io
import json
import os

from . import device as _device

try:
    from . import _tools
except ImportError:  # the build has no strata-compare (nlohmann-json3-dev or the gpu-emu backend missing)
    _tools = None


def _choices(backend, option):
    """The values an open option of a backend takes, as the driver describes them (strata.backend_options); () where
    the build has no such backend."""
    if backend not in _device.backends():
        return ()
    for o in _device.backend_options(backend):
        if o["name"] == option:
            return tuple(o["choices"])
    return ()


# The names a user picks, from the tables the C++ tools use (host/tool/names.h); empty without the tools module.
REPLAY_BACKENDS = tuple(_tools.replay_backends()) if _tools else ()  # strata.replay(backend=...)
FORMATS = tuple(_tools.formats()) if _tools else ()  # strata.compare(format=...)
# strata.replay(hbm_preset=...): the sim backend's, as the driver lists them (empty in a build without it).
HBM_PRESETS = _choices("sim", "hbm_preset")


def _need_tools():
    if _tools is None:
        raise RuntimeError("this build of strata has no replay/compare module (strata-compare was not built: it "
                           "needs nlohmann-json3-dev and the gpu-emu backend)")
    return _tools


def gpu_policies():
    """The GPU framework policies: jax, jax-growth, ..., torch-expandable, as the driver lists the gpu-emu backend's
    `policy` option (empty in a build without it)."""
    return list(_choices("gpu-emu", "policy"))


def contenders():
    """What strata.compare can run: strata, strata-no-compact, every GPU policy and jax+defrag."""
    return list(_need_tools().contenders())


def devices():
    """The one table of devices (strata-fit --list-devices, docs/fit.md): a dict per GPU and TPU with name, model,
    kind, total_bytes, context_bytes, cc, common, note."""
    return [json.loads(line) for line in _need_tools().devices().splitlines()]


def explain(message, device=None, settings=()):
    """strata-explain in-process (docs/fit.md): an OOM message of PyTorch, XLA's BFC, XLA, TensorFlow or the TPU
    runtime read into its numbers, its kind (capacity, cap, fragmentation, or unknown when the message does not say)
    and the settings its numbers support, as a dict. `device`: a device of strata-fit --list-devices, for messages
    that do not state the device's memory. `settings`: names of settings already on (strata-explain --set, e.g.
    "expandable_segments"): no advice names them. A message it cannot read, or one longer than 64 KiB (65536 bytes in
    UTF-8), raises ValueError. Other threads run while it reads (the GIL is released)."""
    if not isinstance(message, str):
        raise TypeError(f"message must be text, not {type(message).__name__}")
    if isinstance(settings, (str, bytes)):
        raise TypeError("settings must be a list of names, not one string")
    settings = list(settings)
    for s in settings:
        if not isinstance(s, str):
            raise TypeError(f"each setting must be text, not {type(s).__name__}")
    tools = _need_tools()
    if not hasattr(tools, "explain"):
        raise RuntimeError("this build of strata has no explain (strata-fit was not built)")
    return json.loads(tools.explain(message, device or "", settings))


def _trace_source(trace, what="trace"):
    """(text or path, is_path, name) for the C++ side."""
    if isinstance(trace, (str, os.PathLike)):
        path = os.fspath(trace)
        if not isinstance(path, str):
            raise TypeError(f"{what} path must be text, not bytes")
        if "\0" in path:
            raise ValueError(f"{what} path holds a NUL character")
        return path, True, os.path.basename(path)
    if isinstance(trace, (bytes, bytearray, dict)) or not hasattr(trace, "__iter__"):
        raise TypeError(f"{what} must be a path or an iterable of rows (id, lower, upper, size), not "
                        f"{type(trace).__name__}")
    lines = ["id,lower,upper,size"]
    for number, row in enumerate(trace, 1):
        if isinstance(row, dict):
            try:
                values = (row["id"], row["lower"], row["upper"], row["size"])
            except KeyError as e:
                raise ValueError(f"{what} row {number} has no {e.args[0]!r}") from None
        else:
            values = tuple(row)
            if len(values) != 4:
                raise ValueError(f"{what} row {number} has {len(values)} values, not 4 (id, lower, upper, size)")
        for value in values:
            if isinstance(value, bool) or not isinstance(value, int) and not hasattr(value, "__index__"):
                raise TypeError(f"{what} row {number}: {value!r} is not an integer")
        lines.append(",".join(str(int(v)) for v in values))
    return "\n".join(lines) + "\n", False, "rows"


def _capacity_text(capacity):
    if capacity is None:
        return ""
    if isinstance(capacity, bool):
        raise TypeError("capacity must be bytes (int) or text (\"1.5x\", \"64MiB\", a GPU preset), not bool")
    if isinstance(capacity, int):
        return str(capacity)
    if isinstance(capacity, str):
        return capacity
    raise TypeError(f"capacity must be bytes (int) or text (\"1.5x\", \"64MiB\", a GPU preset), not "
                    f"{type(capacity).__name__}")


def _options_text(options):
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise TypeError(f"options must be a dict of NAME: VALUE, not {type(options).__name__}")
    text = {str(name): str(value).lower() if isinstance(value, bool) else str(value) for name, value in options.items()}
    if any("\0" in item for pair in text.items() for item in pair):
        raise ValueError("options hold a NUL character")
    return text


def _count(value, what):
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an integer, not {type(value).__name__}")
    if value <= 0 or value >= 1 << 64:
        raise ValueError(f"{what} must be positive, not {value}")
    return value


def replay(trace, backend="host", *, policy=None, capacity=None, compaction=False, granule=None, max_events=None,
           hbm_preset=None, firmware_path=None, options=None):
    """strata-replay TRACE --backend BACKEND ... --json, as a dict.

    backend "host": Strata's firmware allocator on the host (policy tlsf, best-fit or first-fit); "sim": the same,
    then the trace through the driver on the model, whose figures are added (device cycles per command, ...);
    "gpu-emu" or "cuda": the trace under a GPU framework's policy (gpu_policies(); default jax).
    capacity: bytes, or text as strata-replay --capacity takes it ("1.0x", "64MiB", a GPU preset for gpu-emu);
    None: unbounded on host, 1.0x on sim, the default GPU on gpu-emu. compaction: on-OOM compaction (gpu-emu:
    JAX's Defragment()). options: more open options for sim / gpu-emu / cuda (mem_fraction, page_bytes, mxu_n, ...).
    """
    tools = _need_tools()
    if backend not in REPLAY_BACKENDS:
        raise ValueError(f"unknown backend {backend!r} ({', '.join(REPLAY_BACKENDS)})")
    source, is_path, name = _trace_source(trace)
    capacity = _capacity_text(capacity)
    max_events = _count(max_events, "max_events")
    named = _options_text(options)
    for what, value in (("policy", policy), ("hbm_preset", hbm_preset), ("firmware_path", firmware_path)):
        if value is not None and not isinstance(value, (str, os.PathLike)):
            raise TypeError(f"{what} must be text, not {type(value).__name__}")
    if backend in ("gpu-emu", "cuda"):
        if granule is not None or hbm_preset is not None or firmware_path is not None:
            raise ValueError("granule, hbm_preset and firmware_path are for the host and sim backends")
        text = tools.replay_gpu(source, is_path, name, backend, policy or "", bool(compaction), capacity, max_events,
                                named)
    else:
        if backend == "host" and (named or hbm_preset is not None or firmware_path is not None):
            raise ValueError("options, hbm_preset and firmware_path need backend sim, gpu-emu or cuda")
        text = tools.replay_strata(source, is_path, name, backend == "sim", policy or "", bool(compaction), capacity,
                                   _count(granule, "granule") if granule is not None else 0, max_events,
                                   hbm_preset or "", os.fspath(firmware_path) if firmware_path else "", named)
    return json.loads(text)


def _csv_value(text):
    if text in ("true", "false"):
        return text == "true"
    if text == "":
        return None
    for parse in (int, float):
        try:
            return parse(text)
        except ValueError:
            pass
    return text


def compare(workload, *, capacity="1.0x", contenders="all", backend="host", options=None, search=True,
            resolution=0.001, format="auto", device=0, firmware_path=None, xla_view=None, xla_steps=None,
            xla_module=None, tpu_pad=False, html=None, memory_viz=None, memory_viz_contender=None):
    """strata-compare WORKLOAD --json - as a dict: the report's workload object (name, source, buffers, events,
    max_load_bytes, capacity, capacity_bytes, runs, occupancy; docs/comparison.md) plus "table", one plain dict
    per run with strata-compare --csv's columns (contender, completed, first_oom_kind, min_capacity_ratio, ...).

    capacity: "1.0x" (of the workload's max load), bytes, "64MiB", or a GPU preset; contenders: "all", a
    comma-separated string or a list (contenders()); backend: where Strata's run at the capacity happens ("host",
    or "sim" for real device cycles); options: settings for every GPU policy (page_bytes, mem_fraction, ...);
    search=False skips the minimum-capacity search; format: auto, csv, torch, rmm or xla; device: a torch snapshot's.
    XLA dumps (docs/jax.md), as strata-compare's options of the same names: xla_view "executable" or "steps",
    xla_steps (calls in the steps view), xla_module (the module in a dump directory), tpu_pad (TPU tile padding).
    html: a path (str or os.PathLike) to write the comparison to as one self-contained web page, as strata-compare
    --html FILE does (docs/comparison.md); refused with ValueError before anything runs when it cannot be written or is
    the workload.
    memory_viz: a path to write one contender's run to as a PyTorch memory snapshot (pickle) for memory_viz, as
    strata-compare --memory-viz FILE does; memory_viz_contender: which (default: torch when it runs, else the first
    contender). Refused with ValueError, as html is.
    """
    tools = _need_tools()
    if html is not None and not isinstance(html, (str, os.PathLike)):
        raise TypeError(f"html must be a path (str or os.PathLike), not {type(html).__name__}")
    html_path = os.fspath(html) if html is not None else ""
    if html is not None and not html_path:
        raise ValueError("html must not be empty")
    if memory_viz is not None and not isinstance(memory_viz, (str, os.PathLike)):
        raise TypeError(f"memory_viz must be a path (str or os.PathLike), not {type(memory_viz).__name__}")
    memory_viz_path = os.fspath(memory_viz) if memory_viz is not None else ""
    if memory_viz is not None and not memory_viz_path:
        raise ValueError("memory_viz must not be empty")
    if memory_viz_contender is not None and not isinstance(memory_viz_contender, str):
        raise TypeError(f"memory_viz_contender must be a str, not {type(memory_viz_contender).__name__}")
    source, is_path, name = _trace_source(workload, "workload")
    capacity = _capacity_text(capacity)
    if not capacity:
        raise ValueError("capacity must not be empty")
    if isinstance(contenders, (list, tuple)):
        if not all(isinstance(c, str) for c in contenders):
            raise TypeError("contenders must be names (str)")
        contenders = ",".join(contenders)
    if not isinstance(contenders, str):
        raise TypeError(f"contenders must be \"all\", a comma-separated str or a list, not {type(contenders).__name__}")
    for what, value in (("backend", backend), ("format", format)):
        if not isinstance(value, str):
            raise TypeError(f"{what} must be a str, not {type(value).__name__}")
    if isinstance(resolution, bool) or not isinstance(resolution, (int, float)):
        raise TypeError(f"resolution must be a number, not {type(resolution).__name__}")
    if isinstance(device, bool) or not isinstance(device, int) or not 0 <= device <= 1_000_000:
        raise ValueError(f"device must be a device index (0 .. 1000000), not {device!r}")
    xla = {}
    for option, value in (("--xla-view", xla_view), ("--xla-steps", xla_steps), ("--xla-module", xla_module)):
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, (str, int)):
                raise TypeError(f"{option[2:].replace('-', '_')} must be a str or int, not {type(value).__name__}")
            xla[option] = str(value)
    if not isinstance(tpu_pad, bool):
        raise TypeError(f"tpu_pad must be a bool, not {type(tpu_pad).__name__}")
    if tpu_pad:
        xla["--tpu-pad"] = "1"
    text, table = tools.compare(source, is_path, name, format, device, capacity, contenders, backend,
                                os.fspath(firmware_path) if firmware_path else "", bool(search), float(resolution),
                                _options_text(options), xla, html_path, memory_viz_path, memory_viz_contender or "")
    report = json.loads(text)["workloads"][0]
    report["table"] = [{key: _csv_value(value) for key, value in row.items()}
                       for row in csv.DictReader(io.StringIO(table))]
    return report
