#!/usr/bin/env python3
"""Draws the address space of a Strata timeline over time: x is time, y is the device address, each buffer a
rectangle of its own colour from its allocation to its free, and each move (a compaction's DMA copy on the
model, JAX's Defragment() on a GPU backend) visible as the buffer jumping to its new place, with the moves
drawn as lines and compactions shaded. The view PyTorch users know from memory_viz, for the device heap.

The input is the trace-event JSON of the open option `timeline` (strata-replay / strata-mlp --timeline): its
"heap" instants (alloc with address and bytes, free, move) and, on the model, the DMA's "hbm_copy" slices
whose source and destination both lie in the heap (the extent instant gives it): those are compaction moves.
strata-compare --timeline has no addresses (memory counters per contender): scripts/plot_timeline.py draws it,
and scripts/plot_compare.py strata-compare's --json report; given either, or its CSV, this script says so.

usage: plot_memory.py TIMELINE.json [OUT.png] [--title TEXT] [--process NAME] [--summary]
  --summary prints one JSON line per process (buffers, moves, bytes moved, overlaps, what is live at the end)
  and needs no matplotlib; drawing needs matplotlib (Debian: python3-matplotlib).
"""
import argparse
import json
import sys
from collections import defaultdict


EXPECTS = ("plot_memory.py reads the timeline of one run with buffer addresses: strata-replay --timeline FILE or "
           "strata-mlp --timeline FILE (docs/timelines.md)")
COMPARE_TIMELINE = "clock: the trace's event index"  # the label strata-compare --timeline gives each contender


def load_events(path):
    """The events of a timeline file: one per line as the writer puts them, or any JSON array. A file of another
    kind (strata-compare's report or CSV, a trace CSV) is named in the error, with the script that reads it."""
    with open(path) as f:
        text = f.read()
    try:
        events = json.loads(text)
    except ValueError:
        # A run that stopped early leaves no closing bracket: the format allows it.
        try:
            events = json.loads(text.rstrip().rstrip(",") + "]")
        except ValueError:
            first = text.split("\n", 1)[0]
            if first.startswith("workload,contender,"):
                raise ValueError("a strata-compare --csv table, not a timeline: scripts/plot_compare.py draws "
                                 "strata-compare's --json report; " + EXPECTS) from None
            raise ValueError("not JSON, so not a timeline; " + EXPECTS) from None
    if isinstance(events, dict) and "workloads" in events:
        raise ValueError("a strata-compare --json report, not a timeline: draw it with scripts/plot_compare.py "
                         "REPORT.json --out-dir DIR; " + EXPECTS)
    if not isinstance(events, list):
        raise ValueError("not a trace-event array, so not a timeline; " + EXPECTS)
    return events


def compare_timeline(events):
    """True for a strata-compare --timeline file: a process per contender with memory counters, no addresses."""
    return any(e.get("ph") == "M" and e.get("name") == "process_labels" and
               COMPARE_TIMELINE in str(e.get("args", {}).get("labels", "")) for e in events if isinstance(e, dict))


class Heap:
    """Replays one process's heap events. Buffers are kept as segments (a DMA row may move part of a buffer);
    every finished segment becomes a rectangle (t0, t1, start, end, buffer)."""

    def __init__(self, name):
        self.name = name
        self.extent = None  # [0, extent) on the model
        self.segments = []  # live: [start, end, buffer, t0]
        self.rects = []
        self.moves = []  # (t, src, dst, bytes)
        self.compactions = []  # (t0, t1)
        self.allocs = self.frees = 0
        self.bytes_moved = 0
        self.overlaps = 0  # a new or moved segment landed on another live one: the events disagree
        self.unmatched = 0  # a move whose source was not (wholly) live
        self.t_end = 0.0

    def _close(self, seg, t):
        if t > seg[3]:
            self.rects.append((seg[3], t, seg[0], seg[1], seg[2]))

    def _place(self, start, end, buf, t):
        for s in self.segments:
            if s[0] < end and start < s[1]:
                self.overlaps += 1
        self.segments.append([start, end, buf, t])

    def alloc(self, t, buf, address, nbytes):
        self.allocs += 1
        self._place(address, address + max(nbytes, 1), buf, t)

    def free(self, t, buf):
        self.frees += 1
        keep = []
        for s in self.segments:
            if s[2] == buf:
                self._close(s, t)
            else:
                keep.append(s)
        self.segments = keep

    def move_buffers(self, moves):
        """Whole buffers to new addresses at once, [(t, buffer, to_address)] (GPU Defragment(): every live
        buffer leaves the pool before any is placed again)."""
        placed = []
        for t, buf, to_address in moves:
            mine = [s for s in self.segments if s[2] == buf]
            if not mine:
                self.unmatched += 1
                continue
            base = min(s[0] for s in mine)
            self.segments = [s for s in self.segments if s[2] != buf]
            for s in mine:
                self._close(s, t)
            placed.append((t, buf, to_address, base, mine))
        for t, buf, to_address, base, mine in placed:
            for s in mine:
                self._place(s[0] - base + to_address, s[1] - base + to_address, buf, t)
            size = sum(s[1] - s[0] for s in mine)
            self.moves.append((t, base, to_address, size))
            self.bytes_moved += size

    def move_range(self, t, src, dst, nbytes):
        """[src, src + nbytes) to dst, whatever buffers lie there (a DMA copy inside the heap)."""
        end = src + nbytes
        moved, keep, covered = [], [], 0
        for s in self.segments:
            if s[0] < end and src < s[1]:
                self._close(s, t)
                lo, hi = max(s[0], src), min(s[1], end)
                covered += hi - lo
                if s[0] < lo:
                    keep.append([s[0], lo, s[2], t])
                if hi < s[1]:
                    keep.append([hi, s[1], s[2], t])
                moved.append((lo - src + dst, hi - src + dst, s[2]))
            else:
                keep.append(s)
        if covered != nbytes:
            self.unmatched += 1
        self.segments = keep
        for lo, hi, buf in moved:
            self._place(lo, hi, buf, t)
        self.moves.append((t, src, dst, nbytes))
        self.bytes_moved += nbytes

    def finish(self, t):
        self.t_end = t
        for s in self.segments:
            self._close(s, max(t, s[3]))

    def live(self):
        bufs = defaultdict(int)
        for s in self.segments:
            bufs[s[2]] += s[1] - s[0]
        return bufs

    def summary(self):
        live = self.live()
        return {"process": self.name, "allocs": self.allocs, "frees": self.frees, "moves": len(self.moves),
                "bytes_moved": self.bytes_moved, "compactions": len(self.compactions), "overlaps": self.overlaps,
                "unmatched_moves": self.unmatched, "live_buffers": len(live), "live_bytes": sum(live.values()),
                "extent_bytes": self.extent}


def replay(events):
    """Heap per process, in the processes' order."""
    names, threads = {}, {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            names[e["pid"]] = e["args"]["name"]
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            threads[(e["pid"], e["tid"])] = e["args"]["name"]
    # What happened when, per process: (time, order, kind, event). At one time frees go first, then moves,
    # then allocations (an allocation that compacted completes after its moves).
    todo = defaultdict(list)
    begins = {}
    last = defaultdict(float)
    for e in events:
        ph, pid = e.get("ph"), e.get("pid")
        if ph in ("X", "b", "e", "i", "C") and "ts" in e:
            last[pid] = max(last[pid], e["ts"] + e.get("dur", 0))
        if ph == "i" and threads.get((pid, e.get("tid"))) == "heap":
            order = {"extent": 0, "free": 1, "move": 2, "alloc": 3}.get(e["name"], 4)
            todo[pid].append((e["ts"], order, "heap", e))
        elif ph == "b" and e.get("cat") == "dma" and e.get("name") == "hbm_copy":
            begins[(pid, e["id"])] = e
        elif ph == "e" and e.get("cat") == "dma" and (pid, e["id"]) in begins:
            b = begins.pop((pid, e["id"]))
            todo[pid].append((e["ts"], 2, "copy", b))
        elif ph == "X" and threads.get((pid, e.get("tid"))) == "compaction":
            todo[pid].append((e["ts"], 5, "compaction", e))
    heaps = []
    for pid in sorted(set(names) | set(todo)):
        h = Heap(names.get(pid, f"process {pid}"))
        pending = []  # Defragment()'s moves at one time: every buffer leaves before any is placed again

        def flush_moves():
            if pending:
                h.move_buffers(pending)
                pending.clear()

        for t, _, kind, e in sorted(todo[pid], key=lambda x: (x[0], x[1])):
            a = e.get("args", {})
            if kind == "heap" and e["name"] == "move":
                if pending and pending[0][0] != t:
                    flush_moves()
                pending.append((t, a.get("buffer"), a.get("to_address", a.get("address"))))
                continue
            flush_moves()
            if kind == "compaction":
                h.compactions.append((e["ts"], e["ts"] + e.get("dur", 0)))
            elif kind == "copy":
                src, dst, n = a.get("src"), a.get("dst"), a.get("bytes", 0)
                inside = h.extent is not None and src is not None and dst is not None and \
                    src + n <= h.extent and dst + n <= h.extent
                if inside and n > 0:
                    h.move_range(t, src, dst, n)
            elif e["name"] == "extent":
                h.extent = a.get("bytes")
            elif e["name"] == "alloc":
                h.alloc(t, a.get("buffer"), a["address"], a.get("bytes", 0))
            elif e["name"] == "free":
                h.free(t, a.get("buffer"))
        flush_moves()
        h.finish(last[pid])
        if h.allocs or h.extent is not None:
            heaps.append(h)
    return heaps


def draw(heaps, out, title, clock):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.collections import LineCollection, PolyCollection
    except ImportError:
        sys.exit("plot_memory: drawing needs matplotlib (apt-get install python3-matplotlib); --summary does not")
    fig, axes = plt.subplots(len(heaps), 1, figsize=(12, 4.2 * len(heaps)), squeeze=False)
    cmap = plt.get_cmap("tab20")
    for ax, h in zip(axes[:, 0], heaps):
        top = max([r[3] for r in h.rects] + [h.extent or 0, 1])
        unit, scale = ("MiB", 2**20) if top >= 2**22 else ("KiB", 2**10)
        base = 0 if h.extent is not None else min([r[2] for r in h.rects] + [top])  # a GPU pool: from its base
        polys, colors = [], []
        for t0, t1, lo, hi, buf in h.rects:
            y0, y1 = (lo - base) / scale, (hi - base) / scale
            polys.append([(t0, y0), (t1, y0), (t1, y1), (t0, y1)])
            colors.append(cmap((hash(buf) * 7919) % 20))
        ax.add_collection(PolyCollection(polys, facecolors=colors, edgecolors="none"))
        for t0, t1 in h.compactions:
            ax.axvspan(t0, max(t1, t0 + 1e-3), color="0.85", zorder=0)
        if h.moves:
            lines = [[(t, (s - base) / scale), (t, (d - base) / scale)] for t, s, d, _ in h.moves]
            ax.add_collection(LineCollection(lines, colors="black", linewidths=0.6, alpha=0.6))
        x1 = max([r[1] for r in h.rects] + [h.t_end, 1])
        ax.set_xlim(0, x1)
        ax.set_ylim(0, ((h.extent - base) if h.extent else top - base) / scale * 1.02)
        ax.set_ylabel(f"address ({unit})" + (" from the pool base" if base else ""))
        s = h.summary()
        ax.set_title(f"{h.name}: {s['allocs']} allocations, {s['moves']} moves "
                     f"({s['bytes_moved'] / 2**20:.1f} MiB moved), {s['live_buffers']} live at the end", fontsize=10)
        ax.set_xlabel("device cycle / 1000 (us at 1 GHz)" if "device cycles" in clock else "API call index")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("timeline")
    ap.add_argument("out", nargs="?", help="the PNG to write (not needed with --summary)")
    ap.add_argument("--title", default="")
    ap.add_argument("--process", default=None, help="only the process whose name contains this")
    ap.add_argument("--summary", action="store_true", help="print one JSON line per process instead of drawing")
    args = ap.parse_args()
    if not args.summary and not args.out:
        ap.error("give OUT.png, or --summary")
    try:
        events = load_events(args.timeline)
    except (OSError, ValueError) as e:
        sys.exit(f"plot_memory: {args.timeline}: {e}")
    if compare_timeline(events):
        sys.exit(f"plot_memory: {args.timeline}: a strata-compare --timeline file: each contender's memory counters, "
                 "OOMs and compactions, but no buffer addresses, so there is no address space to draw. "
                 f"scripts/plot_timeline.py {args.timeline} OUT.png draws it (a row per contender); " + EXPECTS)
    heaps = replay(events)
    if args.process is not None:
        heaps = [h for h in heaps if args.process in h.name]
    if not heaps:
        sys.exit(f"plot_memory: {args.timeline}: no heap events (allocations with addresses); " + EXPECTS)
    if args.summary:
        for h in heaps:
            print(json.dumps(h.summary()))
        return
    clock = ""
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "process_labels" and "clock" in e["args"]["labels"]:
            clock = e["args"]["labels"]
    draw(heaps, args.out, args.title, clock)
    print(f"plot_memory: wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
