#!/usr/bin/env python3
"""The minimum capacity strata-compare reports holds: each contender completes at it and fails at the
capacity reported just below it (within the stated resolution), replayed again one contender at a time.

usage: check_min_capacity.py STRATA_COMPARE TRACE...
"""
import json
import subprocess
import sys


def run(tool, args):
    out = subprocess.run([tool] + args + ["--quiet", "--json", "-"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def main():
    tool, traces = sys.argv[1], sys.argv[2:]
    checked = 0
    for trace in traces:
        report = run(tool, [trace])
        for w in report["workloads"]:
            for r in w["runs"]:
                m = r["min_capacity"]
                if m is None or not m["found"]:
                    continue
                if m["bytes"] - m["fails_at_bytes"] > m["resolution_bytes"] and m["fails_at_bytes"] != 0:
                    sys.exit(f"{w['name']} {r['contender']}: bracket {m['fails_at_bytes']}..{m['bytes']} wider "
                             f"than the resolution {m['resolution_bytes']}")
                for capacity, want in ((m["bytes"], True), (m["fails_at_bytes"], False)):
                    if capacity == 0:
                        continue
                    again = run(tool, [trace, "--contenders", r["contender"], "--capacity", str(capacity),
                                       "--no-search"])
                    got = again["workloads"][0]["runs"][0]["completed"]
                    if got != want:
                        sys.exit(f"{w['name']} {r['contender']} at {capacity} B: completed={got}, expected {want}")
                checked += 1
    print(f"check_min_capacity: {checked} minimum capacities hold (complete there, fail just below)")


if __name__ == "__main__":
    main()
