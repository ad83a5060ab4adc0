#!/usr/bin/env python3
"""strata-compare --timeline agrees with the report it wrote beside it: one process per run, in the report's
order; per process the memory counters peak where the report's peaks are, one OOM instant per failed
allocation (the report keeps the first 1000), and the compaction / Defragment() slices add up to the bytes the
report says were moved. Counter times run forward, and every event has what its phase needs.

usage: check_timeline.py STRATA_COMPARE WORKLOAD.csv... [strata-compare options...]
"""
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict


def main():
    tool, args = sys.argv[1], sys.argv[2:]
    with tempfile.TemporaryDirectory() as tmp:
        report_path, timeline_path = os.path.join(tmp, "report.json"), os.path.join(tmp, "timeline.json")
        out = subprocess.run([tool, *args, "--quiet", "--no-table", "--json", report_path,
                              "--timeline", timeline_path], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"strata-compare failed ({out.returncode}): {out.stderr}")
        with open(report_path) as f:
            report = json.load(f)
        with open(timeline_path) as f:
            events = json.load(f)
    names = {}
    counters = defaultdict(lambda: defaultdict(list))  # pid -> series -> values
    last_ts = {}
    ooms, moved, slices = defaultdict(int), defaultdict(int), defaultdict(int)
    failures = []
    for e in events:
        ph, pid = e["ph"], e["pid"]
        if ph == "M":
            if e["name"] == "process_name":
                names[pid] = e["args"]["name"]
            continue
        if not isinstance(e.get("ts"), (int, float)):
            failures.append(f"no ts: {e}")
            continue
        if ph == "C":
            key = (pid, e["name"])
            if e["ts"] < last_ts.get(key, 0):
                failures.append(f"counter {key} went back at {e['ts']}")
            last_ts[key] = e["ts"]
            for k, v in e["args"].items():
                counters[pid][k].append(v)
        elif ph == "i":
            ooms[pid] += 1
        elif ph == "X":
            slices[pid] += 1
            moved[pid] += e["args"]["bytes"]
        else:
            failures.append(f"unexpected phase {ph}")
    runs = [(w["name"], r) for w in report["workloads"] for r in w["runs"]]
    if [names[p] for p in sorted(names)] != [f"{w}: {r['contender']} ({r['backend']})" for w, r in runs]:
        failures.append(f"processes {sorted(names.items())} are not the report's runs")
    for pid, (_, r) in zip(sorted(names), runs):
        c, what = counters[pid], r["contender"]
        strata = r["family"] == "strata"
        reserved = "footprint (highest address)" if strata else "reserved (pool)"
        if max(c["in use"], default=0) != r["peak_live_bytes"]:
            failures.append(f"{what}: peak in use {max(c['in use'], default=0)} != report {r['peak_live_bytes']}")
        if max(c[reserved], default=0) != r["peak_reserved_bytes"]:
            failures.append(f"{what}: peak {reserved} {max(c[reserved], default=0)} != {r['peak_reserved_bytes']}")
        if ooms[pid] != len(r["oom_events"]):
            failures.append(f"{what}: {ooms[pid]} OOM instants, report {len(r['oom_events'])}")
        cost = r["cost"]
        want = cost["bytes_moved"] if strata else cost["host_bytes_copied"] // 2
        if moved[pid] != want:
            failures.append(f"{what}: slices moved {moved[pid]} B, report {want} B")
        if slices[pid] > (cost["compactions"] if strata else cost["defragmentations"]):
            failures.append(f"{what}: {slices[pid]} slices for fewer compactions")
    if failures:
        sys.exit("check_timeline:\n  " + "\n  ".join(failures))
    print(f"check_timeline: {len(runs)} runs agree with the report")


if __name__ == "__main__":
    main()
