#!/usr/bin/env python3
"""strata-compare --memory-viz writes a contender's run as a PyTorch memory snapshot that reads back as the same run.

Usage: check_memory_viz.py STRATA-COMPARE STRATA-IMPORT SCRATCH_DIR TRACES_DIR CRAFTED_DIR

For each case (a workload, a capacity, a contender; torch, torch-expandable, jax, jax-async, tf-growth, jax+defrag,
strata and strata-no-compact, with and without OOMs), with Python's own pickle reader and the comparison's --json report
of the same command as the references:
- the pickle is a dict with 'segments' and 'device_traces' as torch.cuda.memory._snapshot() gives them, every field
  of every segment, block and entry present with its type;
- allocations: one 'alloc' per buffer that did not fail, plus one per move (Strata: the report's moves; jax+defrag:
  twice their bytes are the report's bytes through the host), each freed by a
  free_requested then a free_completed of the same address and size; no address handed out twice at once;
- OOMs: one 'oom' entry per failed allocation of the report, the first at the report's first OOM (its event as
  time_us, its buffer in the frames, its request as size, on a GPU the device's free memory its message gives);
- segments: the bytes held (segment_alloc + segment_map - segment_free - segment_unmap) peak at the report's peak
  reserved bytes (Strata: one segment, its capacity), every allocation lies in what is held then and every release
  in what was taken; at the end, the segments cover what the trace leaves held, their blocks tile each segment
  exactly, and the active blocks are the buffers still live;
- round trip: strata-import reads the pickle back (Strata's own PyTorch snapshot importer) and gives the trace's
  buffers again, those that failed left out, in the same order of allocations and frees with the same sizes;
- bad input: an unknown --memory-viz-contender, one that is not among --contenders, --memory-viz -, a path in a
  missing folder, two workloads: exit status 2 with a message, and the file there before left unchanged;
- the default contender: torch when it runs (the same bytes as naming it), else the first contender.
"""
import json
import os
import pickle
import re
import subprocess
import sys

SEGMENT_KEYS = {"device": int, "address": int, "total_size": int, "allocated_size": int, "active_size": int,
                "requested_size": int, "stream": int, "segment_type": str, "is_expandable": bool, "frames": list,
                "blocks": list}
BLOCK_KEYS = {"address": int, "size": int, "requested_size": int, "state": str, "frames": list}
ENTRY_KEYS = {"action": str, "size": int, "stream": int, "time_us": int, "frames": list}


def fail(why):
    sys.exit(f"check_memory_viz: {why}")


def run(argv):
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def read_trace(path):
    """The buffers of a trace CSV: (id, lower, upper, size) in file order."""
    with open(path) as f:
        lines = [line.strip() for line in f if line.strip()]
    head = lines[0].split(",")
    col = {name: head.index(name) for name in ("id", "lower", "upper", "size")}
    out = []
    for line in lines[1:]:
        cells = line.split(",")
        out.append(tuple(int(cells[col[k]]) for k in ("id", "lower", "upper", "size")))
    return out


def replay_order(buffers):
    """A replay's events (docs/workloads.md): by time, frees before allocations, then file order. Each event as
    (kind, size, rank of the buffer's allocation): what stays the same whatever the buffers' ids and times."""
    events = []
    for i, (_, lower, upper, size) in enumerate(buffers):
        events.append((lower, 1, i))
        events.append((upper, 0, i))
    events.sort()
    rank, out = {}, []
    for _, kind, i in events:
        if kind == 1:
            rank[i] = len(rank)
        out.append(("alloc" if kind else "free", buffers[i][3], rank[i]))
    return out


def merged(ranges):
    """Byte ranges sorted, overlapping ones refused, touching ones joined."""
    out = []
    for a, b in sorted(ranges):
        if out and a < out[-1][1]:
            fail(f"ranges overlap: {out[-1]} and {(a, b)}")
        if out and a == out[-1][1]:
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def cut(ranges, a, b, what):
    """The ranges without [a, b), which must lie inside one of them."""
    for i, (lo, hi) in enumerate(ranges):
        if lo <= a and b <= hi:
            return ranges[:i] + [r for r in ((lo, a), (b, hi)) if r[0] < r[1]] + ranges[i + 1:]
    fail(f"{what}: releases [{a}, {b}), which is not held")


def check_types(what, d, keys):
    for key, kind in keys.items():
        if key not in d:
            fail(f"{what}: no '{key}' in {sorted(d)}")
        if not isinstance(d[key], kind) or (kind is int and isinstance(d[key], bool)):
            fail(f"{what}: '{key}' is {type(d[key]).__name__}, not {kind.__name__}")


def buffer_of(entry):
    """The buffer id an entry's frames name ('buffer N'), or None."""
    for f in entry["frames"]:
        if f["name"].startswith("buffer "):
            return int(f["name"].split()[1])
    return None


def export(tool, workload, capacity, contender, out_dir, name, default=False):
    pkl = os.path.join(out_dir, name + ".pickle")
    rep = os.path.join(out_dir, name + ".json")
    argv = [tool, workload, "--contenders", contender, "--capacity", capacity, "--no-search", "--no-advice",
            "--quiet", "--no-table", "--json", rep, "--memory-viz", pkl]
    if not default:
        argv += ["--memory-viz-contender", contender.split(",")[0]]
    r = run(argv)
    if r.returncode != 0:
        fail(f"{' '.join(argv)}: exit status {r.returncode}: {r.stderr.strip()}")
    with open(pkl, "rb") as f:
        data = pickle.load(f)
    with open(rep) as f:
        report = json.load(f)
    return pkl, data, report


def check_case(tool, importer, workload, capacity, contender, out_dir, want_actions, want_oom):
    name = f"{os.path.basename(workload)}-{capacity}-{contender}".replace("+", "_")
    pkl, data, report = export(tool, workload, capacity, contender, out_dir, name)
    what = f"{name}"
    buffers = read_trace(workload)
    run_ = next(r for r in report["workloads"][0]["runs"] if r["contender"] == contender)
    if not isinstance(data, dict) or set(data) < {"segments", "device_traces"}:
        fail(f"{what}: not a snapshot dict: {type(data).__name__}")
    if len(data["device_traces"]) != 1:
        fail(f"{what}: {len(data['device_traces'])} device traces, not 1")
    entries = data["device_traces"][0]
    for k, e in enumerate(entries):
        check_types(f"{what} entry {k}", e, ENTRY_KEYS)
        check_types(f"{what} entry {k}", e, {"device_free": int} if e["action"] == "oom" else {"addr": int})
    actions = {e["action"] for e in entries}
    if not want_actions <= actions:
        fail(f"{what}: actions {sorted(actions)} lack {sorted(want_actions - actions)}")
    if actions - {"alloc", "free_requested", "free_completed", "oom", "segment_alloc", "segment_free", "segment_map",
                  "segment_unmap"}:
        fail(f"{what}: unexpected actions {sorted(actions)}")

    # Allocations and frees pair up; no byte is handed out twice at once.
    live, allocs_of = {}, {}
    for k, e in enumerate(entries):
        if e["action"] == "alloc":
            for a, (s, _) in live.items():
                if a < e["addr"] + e["size"] and e["addr"] < a + s:
                    fail(f"{what} entry {k}: alloc at {e['addr']} overlaps the live block at {a}")
            live[e["addr"]] = (e["size"], buffer_of(e))
            allocs_of[buffer_of(e)] = allocs_of.get(buffer_of(e), 0) + 1
        elif e["action"] == "free_requested":
            if live.get(e["addr"], (None,))[0] != e["size"] or entries[k + 1]["action"] != "free_completed" or \
                    entries[k + 1]["addr"] != e["addr"]:
                fail(f"{what} entry {k}: free_requested of {e['addr']} without its alloc or free_completed")
            del live[e["addr"]]
    oom_entries = [e for e in entries if e["action"] == "oom"]
    failed_ids = [buffer_of(e) for e in oom_entries]
    if len(oom_entries) != run_["failed_allocs"]:
        fail(f"{what}: {len(oom_entries)} oom entries, the report has {run_['failed_allocs']} failed allocations")
    if want_oom != bool(oom_entries):
        fail(f"{what}: {'no' if want_oom else 'an'} OOM expected, {len(oom_entries)} found")
    if oom_entries:
        first, ref = oom_entries[0], run_["first_oom"]
        if (first["time_us"], buffer_of(first), first["size"]) != \
                (ref["event"], ref["buffer_id"], ref["request_bytes"]):
            fail(f"{what}: first oom at event {first['time_us']} buffer {buffer_of(first)} of {first['size']} B, the "
                 f"report's at event {ref['event']} buffer {ref['buffer_id']} of {ref['request_bytes']} B")
        # A GPU backend's message gives the device's free memory then, as memory_viz's oom entry does.
        said = re.search(r"device free ([0-9.]+) MiB", ref["message"])
        if said and f"{first['device_free'] / 2**20:.2f}" != said.group(1):
            fail(f"{what}: the first oom's device_free is {first['device_free']} B, the message says {said.group(0)}")
    moves = sum(n - 1 for n in allocs_of.values())
    if contender.startswith("strata") and moves != run_["cost"]["moves"]:
        fail(f"{what}: {moves} buffers allocated again (moved), the report says {run_['cost']['moves']} moves")
    if moves and contender not in ("strata", "jax+defrag"):
        fail(f"{what}: {moves} moves under a contender that never moves a buffer")
    if contender == "jax+defrag":  # Defragment() takes every byte it moves to the host and back
        placed, moved = set(), 0
        for e in entries:
            if e["action"] == "alloc":
                moved += e["size"] if buffer_of(e) in placed else 0
                placed.add(buffer_of(e))
        if not moves or 2 * moved != run_["cost"]["host_bytes_copied"]:
            fail(f"{what}: {moves} moves of {moved} B; the report copied {run_['cost']['host_bytes_copied']} B "
                 f"through the host")
    ok_buffers = [b for b in buffers if b[0] not in failed_ids]
    if len(allocs_of) != len(ok_buffers) or set(allocs_of) != {b[0] for b in ok_buffers}:
        fail(f"{what}: {len(allocs_of)} buffers allocated, the trace has {len(ok_buffers)} that did not fail")

    # The bytes held from the device over the run, against the report's peak; every allocation inside what is held
    # then (memory_viz's segment view places each block in its segment at every step), every release of what is held.
    held = peak = 0
    ranges = []  # (start, end) held, sorted, touching ones merged
    for k, e in enumerate(entries):
        if e["action"] in ("segment_alloc", "segment_map"):
            held += e["size"]
            ranges = merged(ranges + [(e["addr"], e["addr"] + e["size"])])
        elif e["action"] in ("segment_free", "segment_unmap"):
            held -= e["size"]
            ranges = cut(ranges, e["addr"], e["addr"] + e["size"], f"{what} entry {k}")
        elif e["action"] == "alloc" and not any(a <= e["addr"] and e["addr"] + e["size"] <= b for a, b in ranges):
            fail(f"{what} entry {k}: alloc at {e['addr']} of {e['size']} B outside what is held {ranges[:4]}...")
        peak = max(peak, held)
    ends = merged([(s["address"], s["address"] + s["total_size"]) for s in data["segments"]])
    if ends != ranges:
        fail(f"{what}: the segments at the end cover {ends[:4]}..., the trace leaves {ranges[:4]}... held")
    strata = contender.startswith("strata")
    want_peak = run_["capacity_bytes"] if strata else run_["peak_reserved_bytes"]
    if peak != want_peak:
        fail(f"{what}: the segments peak at {peak} B held, the report's {'capacity' if strata else 'peak reserved'} "
             f"is {want_peak} B")
    # The segments at the end: as many bytes as the trace leaves held, each tiled by its blocks.
    total = 0
    for i, seg in enumerate(data["segments"]):
        check_types(f"{what} segment {i}", seg, SEGMENT_KEYS)
        at = seg["address"]
        for j, b in enumerate(seg["blocks"]):
            check_types(f"{what} segment {i} block {j}", b, BLOCK_KEYS)
            if b["address"] != at:
                fail(f"{what} segment {i} block {j}: at {b['address']}, the block before ends at {at}")
            if b["state"] == "active_allocated" and (live.get(b["address"], (None,))[0] is None or
                                                     b["requested_size"] != live[b["address"]][0]):
                fail(f"{what} segment {i} block {j}: active at {b['address']} but no buffer of that size is live there")
            at += b["size"]
        if at != seg["address"] + seg["total_size"]:
            fail(f"{what} segment {i}: its blocks end at {at}, the segment at {seg['address'] + seg['total_size']}")
        total += seg["total_size"]
    active = sum(1 for s in data["segments"] for b in s["blocks"] if b["state"] == "active_allocated")
    if total != held or active != len(live):
        fail(f"{what}: the segments at the end hold {total} B with {active} active blocks; the trace leaves {held} B "
             f"held and {len(live)} buffers live")

    # Round trip through Strata's own importer.
    csv = os.path.join(out_dir, name + ".csv")
    r = run([importer, pkl, "-o", csv])
    if r.returncode != 0:
        fail(f"strata-import {pkl}: exit status {r.returncode}: {r.stderr.strip()}")
    back = read_trace(csv)
    if moves == 0:
        if replay_order(back) != replay_order(ok_buffers):
            fail(f"{what}: strata-import gives back another trace ({len(back)} buffers, {len(ok_buffers)} expected)")
    elif len(back) != len(ok_buffers) + moves:
        fail(f"{what}: strata-import gives back {len(back)} buffers, not {len(ok_buffers)} + {moves} moves")
    return len(entries), len(oom_entries), moves


def refused(argv, why, out, before):
    r = run(argv)
    if r.returncode != 2 or why not in r.stderr:
        fail(f"{' '.join(argv)}: exit status {r.returncode} and {r.stderr.strip()!r}, not 2 and '{why}'")
    if os.path.exists(out):
        with open(out, "rb") as f:
            if f.read() != before:
                fail(f"{' '.join(argv)} changed {out}")


def main():
    if len(sys.argv) != 6:
        fail(__doc__.strip().splitlines()[2])
    tool, importer, out_dir, traces, crafted = sys.argv[1:]
    os.makedirs(out_dir, exist_ok=True)
    tiny = os.path.join(traces, "tiny_bert.csv")
    cases = [
        # workload, capacity, contender, actions it must have, an OOM expected
        (tiny, "1.5x", "torch", {"segment_alloc", "alloc", "free_requested", "free_completed"}, False),
        (tiny, "1.5x", "torch-expandable", {"segment_map", "alloc"}, False),
        (tiny, "1.5x", "jax", {"segment_alloc", "alloc"}, False),
        (tiny, "1.5x", "jax-async", {"segment_map", "alloc"}, False),
        (tiny, "1.5x", "tf-growth", {"segment_alloc", "alloc"}, False),
        (tiny, "1.5x", "strata-no-compact", {"segment_alloc", "alloc"}, False),
        (tiny, "0.9x", "torch", {"segment_alloc", "oom"}, True),
        (tiny, "0.9x", "torch-expandable", {"segment_map", "oom"}, True),
        (os.path.join(crafted, "jax_cap.csv"), "1.0x", "jax", {"segment_alloc", "oom"}, True),
        (os.path.join(crafted, "needs_compaction.csv"), "1.0x", "strata", {"segment_alloc", "alloc"}, False),
        (os.path.join(crafted, "needs_compaction.csv"), "1.0x", "strata-no-compact", {"oom"}, True),
        (os.path.join(crafted, "tf_growth_gc.csv"), "838860800", "tf-growth", {"segment_free"}, False),
        (tiny, "1.2x", "jax+defrag", {"segment_alloc", "oom"}, True),
    ]
    entries = ooms = moves = 0
    for workload, capacity, contender, actions, oom in cases:
        e, o, m = check_case(tool, importer, workload, capacity, contender, out_dir, actions, oom)
        entries, ooms, moves = entries + e, ooms + o, moves + m

    # The default contender.
    pkl, _, _ = export(tool, tiny, "1.5x", "jax,torch", out_dir, "default-torch", default=True)
    with open(pkl, "rb") as f, open(os.path.join(out_dir, "tiny_bert.csv-1.5x-torch.pickle"), "rb") as g:
        if f.read() != g.read():
            fail("--contenders jax,torch without --memory-viz-contender does not export torch's run")
    _, data, report = export(tool, tiny, "1.5x", "strata-no-compact,jax", out_dir, "default-first", default=True)
    if [s["total_size"] for s in data["segments"]] != [report["workloads"][0]["capacity_bytes"]]:
        fail("--contenders strata-no-compact,jax without --memory-viz-contender does not export the first (Strata)")

    # Bad input: refused before anything runs, the file there before untouched.
    out = os.path.join(out_dir, "kept.pickle")
    before = b"not a pickle, and it must stay so\n"
    with open(out, "wb") as f:
        f.write(before)
    base = [tool, tiny, "--no-search", "--quiet", "--no-table"]
    refused(base + ["--memory-viz", out, "--memory-viz-contender", "pytorch"], "is not among the contenders", out,
            before)
    refused(base + ["--contenders", "jax", "--memory-viz", out, "--memory-viz-contender", "torch"],
            "is not among the contenders", out, before)
    refused(base + ["--memory-viz", "-"], "--memory-viz writes a file", out, before)
    refused(base + ["--memory-viz", os.path.join(out_dir, "missing", "x.pickle")], "x.pickle", out, before)
    refused(base + ["--memory-viz-contender", "torch"], "add --memory-viz FILE", out, before)
    refused(base + [tiny, "--memory-viz", out], "one workload", out, before)
    with open(tiny, "rb") as f:
        workload = f.read()
    refused(base + ["--memory-viz", tiny], "--memory-viz", tiny, workload)
    print(f"check_memory_viz: {len(cases)} runs exported ({entries} trace entries, {ooms} OOMs, {moves} moves), read "
          f"back by pickle and strata-import as the same runs, defaults and bad input right")


if __name__ == "__main__":
    main()
