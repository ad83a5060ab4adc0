#!/usr/bin/env python3
"""Draws a Strata timeline (the trace-event JSON of the open option `timeline`, strata-replay / strata-mlp
--timeline) as a PNG: one row of spans per track (host API, commands, firmware, DMA, PCIe, compaction)
above the counters (memory per context and device, HBM traffic); a strata-compare --timeline file as one row
of memory counters per contender. For a quick look or a document; open the JSON itself in
https://ui.perfetto.dev for the interactive view.

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


def draw_processes(plt, events, processes, args):
    """One row per process (strata-compare's contenders): its memory counters as lines, a red tick per OOM,
    a grey band per compaction or Defragment(). The processes share the clock, so moments line up."""
    series = defaultdict(lambda: defaultdict(list))  # pid -> series -> [(t, v)]
    ooms, moves = defaultdict(list), defaultdict(list)
    for e in events:
        pid, ph = e.get("pid"), e.get("ph")
        if ph == "C" and e["name"] == "memory":
            for k, v in e["args"].items():
                series[pid][k].append((e["ts"], v / 2**20))
        elif ph == "i":
            ooms[pid].append(e["ts"])
        elif ph == "X":
            moves[pid].append(e["ts"])
    pids = sorted(processes)
    fig, axes = plt.subplots(len(pids), 1, figsize=(12, 1.25 * len(pids) + 0.8), sharex=True, squeeze=False)
    top = max([v for p in pids for pts in series[p].values() for _, v in pts] + [1])
    for ax, pid in zip(axes[:, 0], pids):
        for name, points in sorted(series[pid].items()):
            # The same colour for the same role in every row: Strata's footprint plays the pool's part.
            style = {"requested (live)": dict(color="0.35", linestyle="--", label="requested (live)"),
                     "in use": dict(color="C1", label="in use")}.get(
                         name, dict(color="C0", label="reserved (pool) / Strata: footprint"))
            ax.step([t for t, _ in points], [v for _, v in points], where="post", linewidth=0.9, **style)
        for t in moves[pid]:
            ax.axvline(t, color="0.6", linewidth=0.8)
        if ooms[pid]:
            ax.plot(ooms[pid], [top * 1.02] * len(ooms[pid]), "|", color="red", markersize=8, label="OOM")
        ax.set_ylim(0, top * 1.1)
        ax.set_ylabel(processes[pid].split(": ", 1)[-1], rotation=0, ha="right", va="center", fontsize=8)
        ax.tick_params(labelsize=7)
    axes[0, 0].legend(fontsize=7, loc="upper left", ncol=5)
    axes[0, 0].set_title(args.title or f"{args.timeline} (MiB)")
    axes[-1, 0].set_xlabel("event index (one allocation or free per step)")
    if args.start is not None or args.end is not None:
        axes[-1, 0].set_xlim(args.start, args.end)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"plot_timeline: wrote {args.out}", file=sys.stderr)


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

    processes = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
    if len(processes) > 1:  # strata-compare --timeline: a process per contender
        draw_processes(plt, events, processes, args)
        return
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
