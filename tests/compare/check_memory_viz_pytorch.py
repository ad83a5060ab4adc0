#!/usr/bin/env python3
"""PyTorch's own reader of memory snapshots, torch/cuda/_memory_viz.py, reads strata-compare --memory-viz's exports.

Usage: check_memory_viz_pytorch.py STRATA-COMPARE SCRATCH_DIR TRACES_DIR CRAFTED_DIR MEMORY_VIZ_PY

MEMORY_VIZ_PY is that file as a torch release ships it (scripts/setup.sh --python takes it out of the pinned torch
wheel into .venv/share/strata/memory_viz/; it imports only Python's standard library). Without it: exit 77 (skipped)
with the reason. For runs of torch, torch-expandable (with OOMs), jax and strata (a compaction move):
- `stats` (segsum, which checks that every segment's blocks add up to it): as many segments and as many bytes
  reserved as the export holds; the command line `_memory_viz.py stats FILE` too;
- `trace`: an entry line per trace entry, a cudaMalloc line per segment_alloc, an allocation line per alloc, each
  inside a segment where the run's segments are cudaMalloc'd ones, an OutOfMemoryError line per oom;
- `segments` (its flamegraph's input lines): a line per block (and one for its gap, the part beyond its requested
  bytes), whose sizes add up to the bytes reserved;
- `trace_plot` and `segment_plot`: a page naming its view whose embedded snapshot unpickles to the export.
"""
import base64
import importlib.util
import json
import os
import pickle
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_memory_viz  # noqa: E402  (the export helper)


def fail(why):
    sys.exit(f"check_memory_viz_pytorch: {why}")


def main():
    if len(sys.argv) != 6:
        fail(__doc__.strip().splitlines()[2])
    tool, out_dir, traces, crafted, viz_path = sys.argv[1:]
    if not os.path.isfile(viz_path):
        print(f"skipped: no {viz_path} (scripts/setup.sh --python takes torch/cuda/_memory_viz.py out of the pinned "
              f"torch wheel; without PyPI it cannot)")
        sys.exit(77)
    version_file = os.path.join(os.path.dirname(viz_path), "VERSION")
    version = open(version_file).read().strip() if os.path.isfile(version_file) else "unknown"
    spec = importlib.util.spec_from_file_location("torch_memory_viz", viz_path)
    viz = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(viz)
    os.makedirs(out_dir, exist_ok=True)
    tiny = os.path.join(traces, "tiny_bert.csv")
    cases = [(tiny, "1.5x", "torch"), (tiny, "0.9x", "torch-expandable"), (tiny, "1.5x", "jax"),
             (os.path.join(crafted, "needs_compaction.csv"), "1.0x", "strata")]
    for workload, capacity, contender in cases:
        name = f"pt-{os.path.basename(workload)}-{capacity}-{contender}"
        what = f"{contender} on {os.path.basename(workload)} at {capacity}"
        pkl, data, _ = check_memory_viz.export(tool, workload, capacity, contender, out_dir, name)
        entries = data["device_traces"][0]
        count = {a: sum(1 for e in entries if e["action"] == a) for a in ("alloc", "segment_alloc", "oom")}
        reserved = sum(s["total_size"] for s in data["segments"])

        stats = viz.segsum(data)
        want = [f"segments: {len(data['segments'])}", f"total_reserved: {viz.Bytes(reserved)}"]
        for line in want:
            if line not in stats.splitlines():
                fail(f"{what}: stats has no line '{line}':\n{stats}")
        r = subprocess.run([sys.executable, viz_path, "stats", pkl], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        if r.returncode != 0 or want[0] not in r.stdout.splitlines():
            fail(f"{what}: _memory_viz.py stats {pkl}: exit status {r.returncode}: {r.stderr.strip()[-500:]}")

        text = viz.trace(data).splitlines()
        if f"{len(entries)} entries" not in text:
            fail(f"{what}: trace does not count {len(entries)} entries")
        mallocs = sum(1 for t in text if "= cudaMalloc(" in t)
        allocs = [t for t in text if re.match(r"^\w+ = \w+\[\d+:", t)]
        ooms = sum(1 for t in text if t.startswith("raise OutOfMemoryError"))
        if (mallocs, len(allocs), ooms) != (count["segment_alloc"], count["alloc"], count["oom"]):
            fail(f"{what}: trace shows {mallocs} cudaMalloc, {len(allocs)} allocations, {ooms} OOMs; the export has "
                 f"{count['segment_alloc']}, {count['alloc']}, {count['oom']}")
        if count["segment_alloc"] and any(" = MEM[" in t for t in allocs):
            fail(f"{what}: trace places an allocation outside every segment: "
                 f"{next(t for t in allocs if ' = MEM[' in t)}")

        lines = viz.segments(data, format_flamegraph=lambda s: s).splitlines()
        # A line per block with its requested bytes, and a '<gaps>' line for the rest of it when there is a rest.
        blocks = sum(1 + (b["size"] != b["requested_size"]) for s in data["segments"] for b in s["blocks"])
        total = sum(int(line.rsplit(" ", 1)[1]) for line in lines)
        if len(lines) != blocks or total != reserved:
            fail(f"{what}: segments gives {len(lines)} lines of {total} B, the export's blocks {blocks} of "
                 f"{reserved} B")

        for plot, view in ((viz.trace_plot, "Active Memory Timeline"), (viz.segment_plot, "Allocator State History")):
            page = plot(data)
            m = re.search(r"const local_files = (\[.*?\])\n", page)
            if view not in page or not m:
                fail(f"{what}: {plot.__name__} does not name '{view}' or embed the snapshot")
            embedded = pickle.loads(base64.b64decode(json.loads(m.group(1))[0]["base64"]).rstrip(b"\0"))
            if embedded != data:
                fail(f"{what}: {plot.__name__}'s embedded snapshot is not the export")
            with open(os.path.join(out_dir, f"{name}-{plot.__name__}.html"), "w") as f:
                f.write(page)
    print(f"check_memory_viz_pytorch: torch {version}'s _memory_viz.py reads {len(cases)} exports: stats, trace, "
          f"segments, trace_plot and segment_plot agree with them")


if __name__ == "__main__":
    main()
