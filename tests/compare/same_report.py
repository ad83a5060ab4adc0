#!/usr/bin/env python3
"""Two strata-compare JSON reports are equal but for wall times.

usage: same_report.py A.json B.json
"""
import json
import sys


def strip(node):
    if isinstance(node, dict):
        return {k: strip(v) for k, v in node.items() if k != "wall_seconds"}
    if isinstance(node, list):
        return [strip(v) for v in node]
    return node


def main():
    a, b = (strip(json.load(open(p))) for p in sys.argv[1:3])
    if a != b:
        for wa, wb in zip(a["workloads"], b["workloads"]):
            for ra, rb in zip(wa["runs"], wb["runs"]):
                if ra != rb:
                    sys.exit(f"differ: {wa['name']} {ra['contender']} vs {rb['contender']}")
        sys.exit("reports differ (workloads or occupancy)")
    runs = sum(len(w["runs"]) for w in a["workloads"])
    print(f"same_report: equal ({len(a['workloads'])} workloads, {runs} runs)")


if __name__ == "__main__":
    main()
