#!/usr/bin/env python3
"""strata-sim --timeline: the run reports the same cycles with and without the timeline; the file parses,
its async DMA slices pair up and carry source, destination and bytes; the matrix unit is busy at least the
cycles its MACs need at full rate and no longer than the run; the core's spans (the reset and ELF
load, then each stretch awake) do not overlap and end with the run; the DMA moved at least what the GEMM
must read and write once (A, B in; C out).

usage: check_sim_timeline.py STRATA_SIM A.npy B.npy OUTDIR
"""
import json
import os
import subprocess
import sys


def run(sim, a, b, out, extra):
    p = subprocess.run([sim, "gemm", "--a", a, "--b", b, "--out", out, "--json", *extra], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"strata-sim gemm failed ({p.returncode}): {p.stderr}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    sim, a, b, outdir = sys.argv[1:5]
    path = os.path.join(outdir, "gemm_timeline.json")
    quiet = run(sim, a, b, os.path.join(outdir, "c_quiet.npy"), [])
    listened = run(sim, a, b, os.path.join(outdir, "c_timeline.npy"), ["--timeline", path])
    failures = []
    for key in ("cycles", "run_cycles", "starved_cycles", "dma_descriptors"):
        if quiet[key] != listened[key]:
            failures.append(f"{key}: {quiet[key]} without the timeline, {listened[key]} with it")
    with open(path) as f:
        events = json.load(f)
    threads = {e["tid"]: e["args"]["name"] for e in events if e.get("name") == "thread_name"}
    open_slices, read_bytes, write_bytes, core, mxu_busy = {}, 0, 0, [], 0.0
    end_us = listened["run_cycles"] / 1000.0
    for e in events:
        ph = e["ph"]
        if ph == "b":
            a = e["args"]
            if not all(k in a for k in ("bytes", "src", "dst")):
                failures.append(f"DMA slice without bytes/src/dst: {e}")
            open_slices[e["id"]] = e
            read_bytes += a["bytes"] if e["name"] == "hbm_read" else 0
            write_bytes += a["bytes"] if e["name"] == "hbm_write" else 0
        elif ph == "e":
            if open_slices.pop(e["id"], None) is None:
                failures.append(f"an end without a begin: {e}")
        elif ph == "X" and threads.get(e["tid"]) == "core":
            core.append((e["ts"], e["ts"] + e["dur"], e["name"]))
        elif ph == "X" and threads.get(e["tid"]) == "matrix unit":
            mxu_busy += e["dur"] * 1000.0
    if open_slices:
        failures.append(f"{len(open_slices)} DMA slices never end")
    core.sort()
    if not core or core[0][2] != "reset and ELF load" or core[0][0] != 0:
        failures.append("the core's first span is not the reset and ELF load from cycle 0")
    for (s0, e0, _), (s1, e1, _) in zip(core, core[1:]):
        if s1 < e0:
            failures.append(f"core spans overlap: [{s0}, {e0}) and [{s1}, {e1})")
    # run_cycles counts from the release of reset, when the load span ends.
    if core and core[-1][1] > core[0][1] + end_us + 1e-9:
        failures.append(f"a core span ends at {core[-1][1]} us, after the run ({core[0][1]} + {end_us} us)")
    m, k, n = listened["m"], listened["k"], listened["n"]
    if read_bytes < m * k + k * n:
        failures.append(f"DMA read {read_bytes} B, less than A and B ({m * k + k * n} B)")
    if write_bytes < m * n * 4:
        failures.append(f"DMA wrote {write_bytes} B, less than C ({m * n * 4} B)")
    # The array does m*k*n MACs at most n_array^2 per cycle: it is busy at least that long, and within the run.
    least = m * k * n / listened["array_n"] ** 2
    if not least <= mxu_busy <= listened["run_cycles"]:
        failures.append(f"matrix unit busy {mxu_busy:.0f} cycles, outside [{least:.0f}, {listened['run_cycles']}]")
    if failures:
        sys.exit("check_sim_timeline:\n  " + "\n  ".join(failures))
    print(f"check_sim_timeline: {listened['cycles']} cycles either way, {len(core)} core spans, "
          f"{read_bytes} B read and {write_bytes} B written by the DMA, matrix unit busy {mxu_busy:.0f} cycles")


if __name__ == "__main__":
    main()
