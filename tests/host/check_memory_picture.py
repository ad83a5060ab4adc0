#!/usr/bin/env python3
"""The memory picture agrees with the run: replays a trace with strata-replay --timeline, rebuilds the address
space from the timeline the way scripts/plot_memory.py draws it, and checks that no two buffers ever overlap,
every move's source was live, the moved bytes are the bytes the run reports as compaction / defragmentation
traffic, every allocation that succeeded is there, and nothing is live after the trace's last free.

usage: check_memory_picture.py STRATA_REPLAY PLOT_MEMORY_PY TRACE.csv [strata-replay options...]
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile


def main():
    replay, plot_path, trace, extra = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    spec = importlib.util.spec_from_file_location("plot_memory", plot_path)
    plot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plot)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "timeline.json")
        out = subprocess.run([replay, trace, *extra, "--timeline", path, "--json"], capture_output=True, text=True)
        if out.returncode not in (0, 1):  # 1: some allocation failed, still a result
            sys.exit(f"strata-replay failed ({out.returncode}): {out.stderr}")
        result = json.loads(out.stdout.strip().splitlines()[-1])
        heaps = plot.replay(plot.load_events(path))
    if len(heaps) != 1:
        sys.exit(f"expected one process with heap events, got {len(heaps)}")
    s = heaps[0].summary()
    print(json.dumps(s))
    failures = []

    def expect(what, got, want):
        if got != want:
            failures.append(f"{what}: {got} != {want}")

    expect("overlapping buffers", s["overlaps"], 0)
    expect("moves whose source was not live", s["unmatched_moves"], 0)
    expect("buffers live after the last free", s["live_buffers"], 0)
    if "defrag_bytes" in result:  # a GPU backend: JAX's Defragment() moved every live buffer
        expect("allocations", s["allocs"], result["allocs"] - result["failed_allocs"])
        expect("bytes moved", s["bytes_moved"], result["defrag_bytes"])
        expect("moves happened", s["moves"] > 0, result["defragmentations"] > 0)
    else:  # sim: the compaction's DMA copies inside the heap
        expect("allocations", s["allocs"], result["device_allocs"] - result["device_failed_allocs"])
        expect("bytes moved", s["bytes_moved"], result["device_bytes_moved"])
        expect("moves happened", s["moves"] > 0, result["device_bytes_moved"] > 0)
    if failures:
        sys.exit("memory picture disagrees with the run:\n  " + "\n  ".join(failures))


if __name__ == "__main__":
    main()
