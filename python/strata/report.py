"""The executor's report as text (table: one row per instruction of the schedule with its unit, device cycles, HBM
bytes and HBM in use, then the totals a reader compares between placements; strata-run --table prints it) and as a
timeline (chrome_trace: the Trace Event JSON that Perfetto and chrome://tracing open; strata-run --trace writes it)."""


# How the totals line names each unit of the ops' rows.
_UNIT_NAMES = {"mxu": "matrix unit", "host": "host fallback", "pcie": "host link (arguments, constants, outputs)",
               "allocator": "the call's allocations", "alias": "aliases"}


def table(report):
    rows = [("instruction", "opcode", "unit", "cycles", "bytes", "HBM in use")]
    for op in report["ops"]:
        opcode = op["opcode"] + (f" -> {op['lowered_as']}" if "lowered_as" in op else "")
        rows.append((op["name"], opcode, op["unit"], str(op["cycles"]), str(op["bytes"]), str(op["hbm_in_use_bytes"])))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for r in rows:
        lines.append("  ".join(c.ljust(w) if i < 3 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))))
    host = ", ".join(f"{k} x{v}" for k, v in sorted(report["host_ops"].items())) or "none"
    lines += [
        f"device cycles {report['cycles']}: "
        + ", ".join(f"{name} {report['units'][u]}" for u, name in _UNIT_NAMES.items()
                    if u in report["units"] and u != "alias"),
        f"matrix unit: {report['mxu_macs']} MACs, utilization {report['mxu_utilization']:.4f} over the run, "
        f"{report['mxu_utilization_in_gemms']:.2f} during its GEMMs",
        f"on the host: {host}",
        f"{report['allocation']} placement: peak HBM {report['peak_hbm_bytes']} B in {report['num_allocs']} "
        f"allocations, {report['compactions']} compactions ({report['compaction_cycles']} cycles)",
        f"live bytes without in-place reuse {report['live_bytes_lower_bound']} B; XLA's plan "
        f"{report['xla_peak_bytes']} B (temp {report['xla_temp_bytes']} B)",
    ]
    return "\n".join(lines)


# Timeline tracks, in the order they are drawn: one per unit of the ops' rows.
_TRACKS = ("mxu", "host", "pcie", "allocator", "alias")


def chrome_trace(report):
    """The run as Trace Event JSON (a dict; json.dump it): one track per unit with a span per instruction, at its
    device cycles (1 GHz: a cycle is a nanosecond, "ts" and "dur" in microseconds), and a counter "HBM in use"
    stepping with the run's allocations. Built from the report's rows, not from the device's event sinks: the
    DMA and HBM activity inside a step are not drawn."""
    pid = 1
    busy = {op["unit"] for op in report["ops"] if op["cycles"]}
    tracks = [u for u in _TRACKS if u in busy] + sorted(busy - set(_TRACKS))
    tid = {u: i + 1 for i, u in enumerate(tracks)}
    events = [{"ph": "M", "pid": pid, "name": "process_name",
               "args": {"name": f"{report['module']} ({report['allocation']} placement)"}}]
    for u in tracks:
        events.append({"ph": "M", "pid": pid, "tid": tid[u], "name": "thread_name",
                       "args": {"name": _UNIT_NAMES.get(u, u)}})
    events.append({"ph": "C", "pid": pid, "name": "HBM in use", "ts": 0, "args": {"bytes": 0}})
    for op in report["ops"]:
        if op["cycles"] == 0:
            continue
        args = {k: op[k] for k in ("opcode", "cycles", "bytes", "hbm_in_use_bytes", "lowered_as", "macs",
                                   "cycles_mxu", "utilization", "staging_bytes") if k in op}
        events.append({"ph": "X", "pid": pid, "tid": tid[op["unit"]], "name": op["name"],
                       "ts": op["start_cycle"] / 1000, "dur": op["cycles"] / 1000, "args": args})
        events.append({"ph": "C", "pid": pid, "name": "HBM in use", "ts": (op["start_cycle"] + op["cycles"]) / 1000,
                       "args": {"bytes": op["hbm_in_use_bytes"]}})
    return {"traceEvents": events, "displayTimeUnit": "ns"}
