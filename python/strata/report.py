"""The executor's report as text: one row per instruction of the schedule (unit, device cycles, HBM bytes), then the
totals a reader compares between placements (strata.jax.run and strata-run --table print it)."""


# How the totals line names each unit of the ops' rows.
_UNIT_NAMES = {"mxu": "matrix unit", "host": "host fallback", "pcie": "host link (arguments, constants, outputs)",
               "allocator": "the call's allocations"}


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
        + ", ".join(f"{name} {report['units'][u]}" for u, name in _UNIT_NAMES.items() if u in report["units"]),
        f"matrix unit: {report['mxu_macs']} MACs, utilization {report['mxu_utilization']:.4f} over the run, "
        f"{report['mxu_utilization_in_gemms']:.2f} during its GEMMs",
        f"on the host: {host}",
        f"{report['allocation']} placement: peak HBM {report['peak_hbm_bytes']} B in {report['num_allocs']} "
        f"allocations, {report['compactions']} compactions ({report['compaction_cycles']} cycles)",
        f"live bytes without in-place reuse {report['live_bytes_lower_bound']} B; XLA's plan "
        f"{report['xla_peak_bytes']} B (temp {report['xla_temp_bytes']} B)",
    ]
    return "\n".join(lines)
