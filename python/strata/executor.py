"""Runs an optimized, scheduled HLO module on a Strata device: the entry computation's instructions in schedule
order, each where the lowering table (strata.lowering) puts it (int8 dot on the matrix unit, everything else on
the host fallback), its values placed in HBM by one of the two placements (strata.placement), and a report of
cycles, units and memory (docs/jax-on-the-model.md lists its fields).

    module = strata.hlo.parse_module(open("module.cpu_after_optimizations.txt").read())
    with strata.open("sim") as dev:
        outputs, report = strata.executor.execute(module, [x, w], dev, allocation="firmware")

Nested computations (fusion bodies, while/conditional/call bodies) run on the host as one step of the entry's
schedule: only the entry computation's values live in device memory.
"""
import time

import numpy as np

from . import lowering
from .hlo_eval import Evaluator
from .errors import Error
from .layout import from_bytes, to_bytes
from .placement import Ledger, PlacementError, make

__all__ = ["execute", "ExecutionError", "PlacementError", "live_bytes_lower_bound", "check_arguments"]


class ExecutionError(RuntimeError):
    """The program could not run as given (arguments that do not match its parameters, a value the device
    refused): the message names what."""


class Value:
    """An array value of the entry computation and where its bytes are (region None: an empty array)."""

    def __init__(self, shape, region):
        self.shape = shape
        self.region = region


def _leaves(value):
    if isinstance(value, tuple):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def _shape_leaves(shape):
    return [s for _, s in shape.leaves()]


def check_arguments(module, args):
    """`args` as arrays matching the entry's parameters (count, shape, dtype): ExecutionError naming the first
    one that does not."""
    params = module.entry.parameters()
    if len(args) != len(params):
        raise ExecutionError(f"{module.name} takes {len(params)} arguments ({', '.join(p.name for p in params)}), "
                             f"not {len(args)}")
    out = []
    for i, (p, a) in enumerate(zip(params, args)):
        if p.shape.is_tuple:
            raise ExecutionError(f"parameter {i} ({p.name}) is a tuple {p.shape!r}: not supported")
        a = np.asarray(a)
        try:
            dtype = p.shape.dtype
        except ValueError as e:
            raise ExecutionError(f"parameter {i} ({p.name}): {e}") from None
        if tuple(a.shape) != p.shape.dims or a.dtype != dtype:
            raise ExecutionError(f"argument {i} ({p.name}) is {a.dtype.name}{list(a.shape)}; the program takes "
                                 f"{p.shape.dtype.name}{list(p.shape.dims)} ({p.shape.element_type})")
        out.append(a)
    return out


def _liveness(module):
    """For the entry's schedule: each instruction's buffer leaves (alias instructions share their operands'), the
    step after which each leaf is dead, and which leaves each step defines. Leaves of the root and the parameters
    stay live to the end (the caller owns them, as PJRT's arguments and outputs), but for donated parameters."""
    entry = module.entry
    leaves = {}
    defined = {}
    for i, ins in enumerate(entry.instructions):
        if ins.opcode == "tuple":
            leaves[ins.name] = tuple(leaves[o] for o in ins.operands)
        elif ins.opcode == "get-tuple-element":
            leaves[ins.name] = leaves[ins.operands[0]][int(ins.attribute("index"))]
        elif ins.opcode == "bitcast":
            leaves[ins.name] = leaves[ins.operands[0]]
        else:
            def build(shape, index):
                if shape.is_tuple:
                    return tuple(build(s, index + (j,)) for j, s in enumerate(shape.tuple_shapes))
                return (ins.name, index)
            leaves[ins.name] = build(ins.shape, ())
            defined[i] = _flat(leaves[ins.name])
    end = len(entry.instructions)
    last = {}
    for i, ins in enumerate(entry.instructions):
        for leaf in defined.get(i, []):
            last[leaf] = i
        for o in ins.operands:
            for leaf in _flat(leaves[o]):
                last[leaf] = i
    for leaf in _flat(leaves[entry.root.name]):
        last[leaf] = end
    donated = module.donated_parameters()
    for p in entry.parameters():
        if int(p.literal) in donated:
            continue  # given to the call (PJRT's donation): free after its last use like any value
        for leaf in _flat(leaves[p.name]):
            last[leaf] = end
    return leaves, defined, last


def _flat(tree):
    if isinstance(tree, tuple) and (not tree or isinstance(tree[0], tuple)):
        return [leaf for t in tree for leaf in _flat(t)]
    return [tree]


def live_bytes_lower_bound(module):
    """The most bytes live at once over the entry's schedule (values as they are, no granule or alignment): what
    any placement must hold at that step."""
    entry = module.entry
    _, defined, last = _liveness(module)
    size = {}
    for ins in entry.instructions:
        for index, shape in ins.shape.leaves():
            size[(ins.name, index)] = shape.nbytes
    peak = 0
    for i in range(len(entry.instructions)):
        live = sum(size[leaf] for j, leaves in defined.items() if j <= i for leaf in leaves if last[leaf] >= i)
        peak = max(peak, live)
    return peak


class _Executor:
    def __init__(self, module, ctx, placement, ledger):
        self.module = module
        self.ctx = ctx
        self.ledger = ledger
        self.placement = placement
        self.evaluator = Evaluator(module)
        self.values = {}
        self.current = None
        self.step = 0
        self.staged = []

    # --- what the lowering functions call ------------------------------------------------------------------------
    def where(self):
        return f"step {self.step} of the schedule ({self.current.name}, {lowering.label(self.current)})"

    def allocate(self, ins):
        def build(shape, index):
            if shape.is_tuple:
                return tuple(build(s, index + (j,)) for j, s in enumerate(shape.tuple_shapes))
            return Value(shape, self.placement.place(ins.name, index, shape, self.where()))
        value = build(ins.shape, ())
        self.values[ins.name] = value
        return value

    def write(self, value, array):
        if isinstance(value, tuple):
            for v, a in zip(value, array):
                self.write(v, a)
            return
        if value.region is None:
            return
        value.region.buffer.write(to_bytes(array, value.shape), value.region.offset)

    def define(self, ins, array):
        value = self.allocate(ins)
        self.write(value, array)
        return value

    def read(self, value):
        if isinstance(value, tuple):
            return tuple(self.read(v) for v in value)
        if value.region is None:
            return np.zeros(value.shape.dims, value.shape.dtype)
        data = value.region.buffer.read(np.uint8, value.region.nbytes, value.region.offset)
        return from_bytes(data, value.shape)

    def whole_buffer(self, value):
        """Whether the value fills a buffer of its own from byte 0 (what strata_gemm can address)."""
        return (not isinstance(value, tuple) and value.region is not None and value.region.offset == 0
                and value.region.buffer.nbytes == value.region.nbytes)

    def stage(self, nbytes):
        """A scratch buffer outside the program's plan (a GEMM operand the C API cannot address in place)."""
        buffer = self.ledger.alloc(nbytes, f"GEMM staging, {self.where()}", self.placement.name)
        self.staged.append(buffer)
        return buffer

    def unstage(self, buffer):
        self.ledger.free(buffer)
        self.staged.remove(buffer)


def _alias(ex, ins):
    ops = [ex.values[o] for o in ins.operands]
    if ins.opcode == "tuple":
        return tuple(ops)
    if ins.opcode == "get-tuple-element":
        return ops[0][int(ins.attribute("index"))]
    # bitcast: the operand's bytes under the new shape and layout
    return Value(ins.shape, ops[0].region)


def execute(module, args, device, allocation="firmware", plan=None):
    """Runs `module`'s entry computation on `device` (an open strata.Device) with `args` (NumPy arrays, one per
    entry parameter, in order). Returns (outputs, report): outputs a list of the root's arrays (a tuple root's
    leaves in order, else one array). plan: the parsed buffer assignment (strata.xla_plan), needed for
    allocation="xla" and for the report's xla_* figures."""
    lowering.check_supported(module)
    args = check_arguments(module, args)
    entry = module.entry
    ctx = device.create_context()
    ledger = Ledger(ctx, device.device_info()["granule_bytes"])
    placement = make(allocation, ledger, plan)
    ex = _Executor(module, ctx, placement, ledger)
    _, defined, last = _liveness(module)
    dying = {}
    for leaf, step in last.items():
        dying.setdefault(step, []).append(leaf)
    regions = {}  # leaf -> Region, for freeing

    stats0 = device.memory_stats()  # a device command: before the run's first cycle is read
    info0 = device.device_info()
    start = time.perf_counter()
    records = []
    host_seconds = 0.0
    outputs = None

    def run_step(step, ins):
        nonlocal host_seconds
        ex.step, ex.current = step, ins
        before = device.device_info()
        io0 = before["hbm_bytes_read"] + before["hbm_bytes_written"]
        record = {"name": ins.name, "opcode": lowering.label(ins)}
        t0 = time.perf_counter()
        if ins.opcode == "parameter":
            ex.define(ins, args[int(ins.literal)])
            record["unit"] = "pcie"
        elif ins.opcode == "constant":
            ex.define(ins, ex.evaluator.evaluate(ins, []))
            record["unit"] = "pcie"
        elif ins.opcode in lowering.ALIASES:
            ex.values[ins.name] = _alias(ex, ins)
            record["unit"] = "alias"
        else:
            rule, dot, operands = lowering.lower(module, ins, ins.operands)
            record["unit"] = rule.unit
            if dot is not ins:
                record["lowered_as"] = dot.opcode
            record.update(rule.run(ex, ins, dot, [ex.values[o] for o in operands]))
            if rule.unit == "host":
                host_seconds += time.perf_counter() - t0
        for leaf in defined.get(step, []):
            regions[leaf] = _find(ex.values[ins.name], leaf, ins)
        for leaf in dying.get(step, []):
            placement.release(regions.get(leaf))
        # The step's cycles include the frees of the values that die at it.
        after = device.device_info()
        record["cycles"] = after["device_cycles"] - before["device_cycles"]
        record["bytes"] = after["hbm_bytes_read"] + after["hbm_bytes_written"] - io0
        record["hbm_in_use_bytes"] = ledger.in_use
        if "macs" in record and record.get("cycles_mxu"):
            n = after["mxu_array_n"]
            record["utilization"] = record["macs"] / (n * n * record["cycles_mxu"]) if n else 0.0
        records.append(record)

    steps = list(enumerate(entry.instructions))
    try:
        # The arguments are on the device before the call (PJRT's BufferFromHostBuffer), then the call's own
        # allocations are made (XLA's temp and outputs under "xla"), then the schedule runs.
        for step, ins in steps:
            if ins.opcode == "parameter":
                run_step(step, ins)
        before = device.device_info()
        placement.start()
        after = device.device_info()
        if after["device_cycles"] != before["device_cycles"]:
            records.append({"name": "(call)", "opcode": "alloc", "unit": "allocator",
                            "cycles": after["device_cycles"] - before["device_cycles"], "bytes": 0,
                            "hbm_in_use_bytes": ledger.in_use})
        for step, ins in steps:
            if ins.opcode != "parameter":
                run_step(step, ins)
        root = ex.values[entry.root.name]
        before = device.device_info()
        outputs = [ex.read(v) for v in _leaves(root)] if isinstance(root, tuple) else [ex.read(root)]
        for leaf, region in regions.items():  # the outputs and arguments: handed back to the caller, as PJRT does
            placement.release(region)
        placement.finish()
        after = device.device_info()
        records.append({"name": "(outputs)", "opcode": "read", "unit": "pcie",
                        "cycles": after["device_cycles"] - before["device_cycles"],
                        "bytes": sum(o.nbytes for o in outputs), "hbm_in_use_bytes": ledger.in_use})
        info1 = device.device_info()
        stats1 = device.memory_stats()
    except BaseException:
        # The run's own error (an OOM, Ctrl-C's KeyboardInterrupt) is the one to raise: destroying the context frees
        # what the run still holds, and a device that failed in the run refuses that too.
        try:
            ctx.destroy()
        except Error:
            pass
        raise
    ctx.destroy()
    at = 0
    for record in records:  # every cycle is in one row, in order: each row starts where the one before ended
        record["start_cycle"] = at
        at += record["cycles"]
    report = _report(module, records, info0, info1, stats0, stats1, placement, plan,
                     time.perf_counter() - start, host_seconds)
    report["hbm_in_use_peak_bytes"] = ledger.peak
    return outputs, report


def _find(value, leaf, ins):
    """The Region of `leaf` ((name, index)) in the value `ins` defined."""
    for i in leaf[1]:
        value = value[i]
    return value.region


def _report(module, records, info0, info1, stats0, stats1, placement, plan, wall, host_seconds):
    cycles = info1["device_cycles"] - info0["device_cycles"]
    n = info1["mxu_array_n"]
    macs = sum(r.get("macs", 0) for r in records)
    mxu_cycles = sum(r.get("cycles_mxu", 0) for r in records)
    host_ops = {}
    for r in records:
        if r["unit"] == "host":
            host_ops[r["opcode"]] = host_ops.get(r["opcode"], 0) + 1
    report = {
        "module": module.name,
        # The text's order is XLA's schedule only in a scheduled module (an optimized one); otherwise it is the
        # printer's post-order, still a valid order, and the live ranges are that order's.
        "scheduled": module.is_scheduled,
        "allocation": placement.name,
        "cycles": cycles,
        "ops": records,
        "host_ops": host_ops,
        "units": {u: sum(r["cycles"] for r in records if r["unit"] == u)
                  for u in sorted({r["unit"] for r in records})},
        "mxu_cycles": mxu_cycles,
        "mxu_macs": macs,
        # MACs done / what the N x N array could do in the run's device cycles, and in its GEMMs' cycles.
        "mxu_utilization": macs / (n * n * cycles) if cycles and n else 0.0,
        "mxu_utilization_in_gemms": macs / (n * n * mxu_cycles) if mxu_cycles and n else 0.0,
        "peak_hbm_bytes": stats1["peak_bytes_in_use"],
        "num_allocs": stats1["num_allocs"] - stats0["num_allocs"],
        "compactions": stats1["compactions"] - stats0["compactions"],
        "compaction_bytes_moved": stats1["compaction_bytes_moved"] - stats0["compaction_bytes_moved"],
        "compaction_cycles": stats1["compaction_cycles"] - stats0["compaction_cycles"],
        "live_bytes_lower_bound": live_bytes_lower_bound(module),
        "staging_bytes": max((r.get("staging_bytes", 0) for r in records), default=0),
        "hbm_bytes": (info1["hbm_bytes_read"] + info1["hbm_bytes_written"]
                      - info0["hbm_bytes_read"] - info0["hbm_bytes_written"]),
        "mxu_array_n": n,
        "wall_seconds": wall,
        "host_seconds": host_seconds,
    }
    report["xla_peak_bytes"] = plan.device_bytes() if plan is not None else None
    report["xla_temp_bytes"] = plan.temp_bytes if plan is not None else None
    if placement.name == "xla":
        report["unplanned_values"] = list(placement.unplanned)
    return report
