#!/usr/bin/env python3
"""Draws a Strata timeline (the trace-event JSON of the open option `timeline`, strata-replay / strata-mlp
--timeline) as a PNG: one row of spans per track (host API, commands, firmware, DMA, PCIe, compaction)
above the counters (memory per context and device, HBM traffic). For a quick look or a document; open
the JSON itself in https://ui.perfetto.dev for the interactive view.

usage: plot_timeline.py TIMELINE.json OUT.png [--title TEXT] [--start US] [--end US]
Needs matplotlib (Debian: python3-matplotlib).
"""
import argparse
import json
import sys
from collections import defaultdict


def load(path):
    with open(path) as f:
        events = json.load(f)
    if not isinstance(events, list):
        sys.exit(f"plot_timeline: {path}: not a trace-event array (is it a Strata timeline?)")
    return events


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("timeline")
    ap.add_argument("out")
    ap.add_argument("--title", default="")
    ap.add_argument("--start", type=float, default=None, help="first time shown (us)")
    ap.add_argument("--end", type=float, default=None, help="last time shown (us)")
    args = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_timeline: needs matplotlib (apt-get install python3-matplotlib)")
    try:
        events = load(args.timeline)
    except (OSError, ValueError) as e:
        sys.exit(f"plot_timeline: {args.timeline}: {e}")

    threads, clock = {}, ""
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            threads[e["tid"]] = e["args"]["name"]
        if e.get("ph") == "M" and e.get("name") == "process_labels" and "clock" in e["args"]["labels"]:
            clock = e["args"]["labels"]
    spans = defaultdict(list)  # track -> [(start, duration)]
    begins = {}
    counters = defaultdict(lambda: defaultdict(list))  # counter track -> series -> [(t, v)]
    for e in events:
        ph = e.get("ph")
        if ph == "X":
            spans[threads.get(e["tid"], str(e["tid"]))].append((e["ts"], max(e["dur"], 1e-3)))
        elif ph == "b":
            begins[(e["cat"], e["id"])] = e["ts"]
        elif ph == "e":
            t0 = begins.pop((e["cat"], e["id"]), e["ts"])
            spans[e["cat"]].append((t0, max(e["ts"] - t0, 1e-3)))
        elif ph == "C":
            for k, v in e["args"].items():
                counters[e["name"]][k].append((e["ts"], v))

    order = [t for t in ("host API", "command", "firmware", "mxu", "dma", "pcie", "compaction") if t in spans]
    order += sorted(t for t in spans if t not in order)
    tracks = sorted(counters)
    fig, axes = plt.subplots(1 + len(tracks), 1, figsize=(12, 2.2 + 1.6 * len(tracks)), sharex=True,
                             gridspec_kw={"height_ratios": [max(1.5, 0.45 * len(order))] + [1] * len(tracks)})
    axes = axes if len(tracks) else [axes]
    ax = axes[0]
    colors = plt.get_cmap("tab10")
    for i, track in enumerate(order):
        ax.broken_barh(spans[track], (i - 0.4, 0.8), color=colors(i % 10))
    ax.set_yticks(range(len(order)))
    ax.set_yticklabels(order)
    ax.invert_yaxis()
    ax.set_title(args.title or args.timeline)
    for ax, track in zip(axes[1:], tracks):
        for series, points in sorted(counters[track].items()):
            points.sort()
            ax.step([p[0] for p in points], [p[1] for p in points], where="post", label=series,
                    marker="o" if len(points) < 3 else None)
        ax.set_ylabel(track, fontsize=8)
        ax.legend(fontsize=7, loc="upper right")
    axes[-1].set_xlabel("time (us)" + (f"  [{clock}]" if clock else ""))
    if args.start is not None or args.end is not None:
        axes[-1].set_xlim(args.start, args.end)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"plot_timeline: wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
