#!/usr/bin/python3
"""Draws strata-compare's JSON report (strata-compare --json FILE) as three PNG figures per workload.

For every workload in REPORT.json (or only the one --workload names) it writes, in DIR (created if missing):

  <stem>-memory.png        one panel per run (shared axes, x = event index): what the allocator reserves from
                           the device (filled), its bytes in use (line), the trace's live bytes (dashed), the
                           capacity the runs used, and each failed allocation marked by its kind
  <stem>-min-capacity.png  the smallest capacity each contender completes the workload in, as a multiple of
                           the trace's max load (hatched, "> N x": not found, it failed at the largest tried)
  <stem>-occupancy.png     the address space at the event where in-use memory peaks, for each contender the
                           report has one for (skipped, with a note on stderr, when it has none)

<stem> is the workload's name without folder and extension, made safe for a file name (a second workload of the
same name gets <stem>-2); --prefix P is put in front of each file name; --figures picks some of the three. Bytes read in GiB, MiB or KiB, whichever
suits the figure. The paths written are printed on stdout, one a line. Errors (missing or malformed report,
unwritable DIR) are one line on stderr and exit status 2. Run it with Debian's /usr/bin/python3
(python3-matplotlib, installed by scripts/setup.sh).

  /usr/bin/python3 scripts/plot_compare.py REPORT.json --out-dir DIR [--workload NAME] [--prefix P]
                                           [--figures memory,min-capacity,occupancy]
"""
import argparse
import json
import math
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch, Rectangle  # noqa: E402

OOM_STYLE = {  # kind -> (colour, marker)
    "cap": ("#d62728", "v"),
    "fragmentation": ("#9467bd", "x"),
    "capacity": ("#000000", "o"),
    "quota": ("#8c564b", "s"),
}
FAMILY_COLOUR = {"strata": "#2ca02c", "gpu": "#1f77b4"}
RESERVED, IN_USE, LIVE = "#ff7f0e", "#1f77b4", "#555555"
SAVE = {"dpi": 100, "metadata": {"Software": None}}  # no version or time stamp: the same report, the same bytes


def save(fig, out):
    """Writes the figure with the text it draws (title, panel titles, the labels written on bars) in the PNG's Description,
    one line each: the figures a picture shows can then be read, and compared, without looking at it (the doc
    tests' figures marks, docs/doc-tests.md)."""
    lines = [fig._suptitle.get_text()] if fig._suptitle is not None else []
    for ax in fig.axes:
        lines += [t for t in (ax.get_title(),) if t]
        lines += [t.get_text() for t in ax.texts if t.get_text()]
    fig.savefig(out, **dict(SAVE, metadata=dict(SAVE["metadata"], Description="\n".join(lines))))
SERIES = ("event", "live", "in_use", "reserved")
RUN_KEYS = ("contender", "family", "completed", "failed_allocs", "first_oom", "cost", "min_capacity", "series",
            "oom_events")


MALFORMED = (KeyError, TypeError, ValueError, IndexError, AttributeError, ZeroDivisionError)


class ReportError(Exception):
    pass


def need(obj, keys, where):
    if not isinstance(obj, dict):
        raise ReportError(f"{where}: expected an object, found {type(obj).__name__}")
    missing = [k for k in keys if k not in obj]
    if missing:
        raise ReportError(f"{where}: missing key{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    return obj


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise ReportError(f"{path}: {e.strerror}")
    except (ValueError, UnicodeDecodeError) as e:
        raise ReportError(f"{path}: not JSON ({e})")
    need(doc, ("workloads",), path)
    if doc.get("tool", "strata-compare") != "strata-compare" or doc.get("version", 1) != 1:
        raise ReportError(f"{path}: not a strata-compare version 1 report (tool {doc.get('tool')!r}, "
                          f"version {doc.get('version')!r})")
    if not isinstance(doc["workloads"], list) or not doc["workloads"]:
        raise ReportError(f"{path}: workloads: expected a non-empty list")
    for i, w in enumerate(doc["workloads"]):
        need(w, ("name", "max_load_bytes", "capacity_bytes", "runs"), f"{path}: workloads[{i}]")
        for k in ("max_load_bytes", "capacity_bytes"):
            if not isinstance(w[k], (int, float)) or w[k] <= 0:
                raise ReportError(f"{path}: workloads[{i}] ({w['name']}): {k}: expected a positive number")
        if not isinstance(w["runs"], list) or not w["runs"]:
            raise ReportError(f"{path}: workloads[{i}] ({w['name']}): runs: expected a non-empty list")
        for j, r in enumerate(w["runs"]):
            where = f"{path}: workloads[{i}] ({w['name']}) runs[{j}]"
            need(r, RUN_KEYS, where)
            s = need(r["series"], SERIES, f"{where} ({r['contender']}) series")
            if any(not isinstance(s[k], list) for k in SERIES) or len({len(s[k]) for k in SERIES}) != 1:
                raise ReportError(f"{where} ({r['contender']}) series: expected {', '.join(SERIES)} as lists of "
                                  "one length")
            if r["min_capacity"] is not None:
                need(r["min_capacity"], ("found", "bytes", "ratio"), f"{where} ({r['contender']}) min_capacity")
        for j, o in enumerate(w.get("occupancy") or []):
            need(o, ("contender", "event", "extent_bytes", "blocks"), f"{path}: workloads[{i}] occupancy[{j}]")
    return doc


def unit(max_bytes):
    """The binary unit (divisor, name) in which max_bytes reads as a number of at least about one."""
    for shift, name in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if max_bytes >= 0.9 * (1 << shift):
            return float(1 << shift), name
    return 1.0, "bytes"


def human(n):
    div, name = unit(n)
    return f"{n / div:.3g} {name}" if div > 1 else f"{n} bytes"


def stem_of(name):
    return os.path.splitext(os.path.basename(name))[0]


def safe_name(s):
    return re.sub(r"[^A-Za-z0-9._+-]+", "_", s)


def run_title(r):
    first, cost = r["first_oom"], r["cost"]
    if first:
        return (f"{r['contender']} — FAIL at event {first.get('event', '?')} ({first.get('kind', '?')}), "
                f"{r['failed_allocs']} failed")
    if r["failed_allocs"]:
        return f"{r['contender']} — FAIL ({r['failed_allocs']} failed)"
    if not r["completed"]:
        return f"{r['contender']} — did not complete"
    notes = []
    if cost.get("bytes_moved"):
        notes.append(f"{human(cost['bytes_moved'])} moved")
    if cost.get("defragmentations"):
        notes.append(f"{cost['defragmentations']} defragmentations")
    return f"{r['contender']} — ok" + (f" ({', '.join(notes)})" if notes else "")


def plot_memory(w, out):
    runs, cap = w["runs"], w["capacity_bytes"]
    top = max([cap] + [r.get("capacity_bytes") or 0 for r in runs] +
              [max(r["series"][k] or [0]) for r in runs for k in ("live", "in_use", "reserved")])
    div, uname = unit(top)
    ncols = 1 if len(runs) == 1 else 2 if len(runs) <= 4 else 3
    nrows = math.ceil(len(runs) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(max(5.2 * ncols, 8), 2.7 * nrows + 1.0), sharex=True,
                             sharey=True, squeeze=False)
    for ax, r in zip(axes.flat, runs):
        s = r["series"]
        x = np.asarray(s["event"], dtype=float)
        live, in_use, reserved = (np.asarray(s[k], dtype=float) / div for k in ("live", "in_use", "reserved"))
        # The series are samples (downsampled): lines between them, not steps, and marks on the live line.
        ax.fill_between(x, reserved, color=RESERVED, alpha=0.35, linewidth=0, label="reserved")
        ax.plot(x, in_use, color=IN_USE, linewidth=1.2, label="in use")
        ax.plot(x, live, color=LIVE, linewidth=0.8, linestyle="--", label="trace live")
        ax.axhline((r.get("capacity_bytes") or cap) / div, color="black", linewidth=0.9, label="capacity")
        kinds = {}
        for ev, kind in r["oom_events"]:
            kinds.setdefault(kind, []).append(ev)
        for kind, evs in sorted(kinds.items()):
            colour, marker = OOM_STYLE.get(kind, ("#7f7f7f", "D"))
            y = np.interp(evs, x, live) if len(x) else np.full(len(evs), cap / div)
            ax.scatter(evs, y, s=22, color=colour, marker=marker, linewidths=1.0, zorder=3,
                       label=f"failed: {kind}")
        ax.set_title(run_title(r), fontsize=9.5, color="#b00000" if r["failed_allocs"] else "black")
        ax.set_ylim(0, top / div * 1.06)
        ax.grid(True, linewidth=0.3, alpha=0.5)
        ax.tick_params(labelsize=8)
    for ax in axes.flat[len(runs):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("event index", fontsize=9)
    for ax in axes[:, 0]:
        ax.set_ylabel(uname, fontsize=9)
    for ax in axes.flat[len(runs) - ncols:len(runs)]:  # bottom of each column when the last row is short
        ax.xaxis.set_tick_params(labelbottom=True)
    handles = {}
    for ax in axes.flat:
        for h, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, h)
    fig.legend(handles.values(), handles.keys(), loc="lower center", ncol=len(handles), fontsize=9, frameon=False)
    m = w["max_load_bytes"]
    fig.suptitle(f"{w['name']}: memory over the run; capacity {human(cap)} = {cap / m:.2f}x max load "
                 f"({human(m)})" + page_note(w), fontsize=11)
    fig.tight_layout(rect=(0, 0.4 / fig.get_figheight(), 1, 1 - 0.1 / fig.get_figheight()))
    save(fig, out)
    plt.close(fig)


def page_note(w):
    """strata-compare's note when the GPU page, not the policies, decides the GPU rows (small workloads), as a
    second line of a figure's title; empty otherwise (and for reports from before the note)."""
    note = w.get("page_note", "")
    return "\n" + note.replace(". The GPU rows", ".\nThe GPU rows") if note else ""


def plot_min_capacity(w, out):
    runs = [r for r in w["runs"] if r["min_capacity"] is not None]
    for r in (r for r in w["runs"] if r["min_capacity"] is None):
        print(f"plot_compare: {w['name']}: {r['contender']} has no min_capacity, left out", file=sys.stderr)
    runs.sort(key=lambda r: (not r["min_capacity"]["found"], r["min_capacity"]["ratio"], r["contender"]))
    cap_ratio = w["capacity_bytes"] / w["max_load_bytes"]
    fig, ax = plt.subplots(figsize=(9, 1.8 + 0.38 * max(len(runs), 2)))
    top = max([cap_ratio, 1.0] + [r["min_capacity"]["ratio"] for r in runs])
    for i, r in enumerate(runs):
        mc = r["min_capacity"]
        colour = FAMILY_COLOUR.get(r["family"], "#7f7f7f")
        ax.barh(i, mc["ratio"], height=0.65, color=colour if mc["found"] else "white", edgecolor=colour,
                hatch=None if mc["found"] else "///", linewidth=1.2)
        label = (f"{mc['ratio']:.2f}x ({human(mc['bytes'])})" if mc["found"]
                 else f"> {mc['ratio']:.2f}x (failed at {human(mc['bytes'])})")
        ax.text(mc["ratio"] + top * 0.01, i, label, va="center", fontsize=8.5,
                bbox={"facecolor": "white", "edgecolor": "none", "pad": 1})
    ax.set_yticks(range(len(runs)), [r["contender"] for r in runs], fontsize=9)
    ax.invert_yaxis()
    ax.set_xlim(0, top * 1.3)
    ax.axvline(1.0, color="black", linestyle="--", linewidth=0.9)
    ax.axvline(cap_ratio, color="#d62728", linestyle=":", linewidth=1.2)
    ax.set_xlabel("smallest capacity that completes the workload, x the max load", fontsize=9)
    ax.tick_params(axis="x", labelsize=8)
    ax.grid(True, axis="x", linewidth=0.3, alpha=0.5)
    legend = [Patch(color=c, label=f"{f} family") for f, c in FAMILY_COLOUR.items()
              if any(r["family"] == f for r in runs)]
    legend += [Patch(facecolor="white", edgecolor="#555555", hatch="///", label="not found: fails at the largest"),
               Line2D([], [], color="black", linestyle="--", label=f"1.0x = max load ({human(w['max_load_bytes'])})"),
               Line2D([], [], color="#d62728", linestyle=":", label=f"{cap_ratio:.2f}x = the runs' capacity")]
    fig.legend(handles=legend, fontsize=8, loc="lower center", ncol=3, frameon=False)
    ax.set_title(f"{w['name']}: minimum capacity per contender" + page_note(w), fontsize=11)
    fig.tight_layout(rect=(0, 0.5 / fig.get_figheight(), 1, 1))
    save(fig, out)
    plt.close(fig)


def largest_gap(blocks, extent):
    """(offset, bytes) of the largest free range in [0, extent) that no block covers."""
    best, end = (0, 0), 0
    for off, size, _ in sorted(blocks) + [(extent, 0, None)]:
        if off - end > best[1]:
            best = (end, off - end)
        end = max(end, off + size)
    return best


def plot_occupancy(w, out):
    occ = w.get("occupancy") or []
    if not occ:
        print(f"plot_compare: {w['name']}: the report has no occupancy snapshot, no occupancy figure",
              file=sys.stderr)
        return False
    div, uname = unit(max(o["extent_bytes"] for o in occ))
    colours = [c for i, c in enumerate(plt.get_cmap("tab20").colors) if i not in (14, 15)]  # no greys: grey is free
    fig, axes = plt.subplots(len(occ), 1, figsize=(11, 0.6 + 1.45 * len(occ)), sharex=True, squeeze=False)
    for ax, o in zip(axes[:, 0], occ):
        blocks, extent = o["blocks"], o["extent_bytes"]
        ax.add_patch(Rectangle((0, 0), extent / div, 1, color="#dddddd", linewidth=0))
        ax.broken_barh([(b[0] / div, b[1] / div) for b in blocks], (0, 1), edgecolor="white", linewidth=0.4,
                       facecolors=[colours[b[2] % len(colours)] for b in blocks])
        gap_off, gap = largest_gap(blocks, extent)
        if gap:
            ax.add_patch(Rectangle((gap_off / div, -0.14), gap / div, 0.1, color="#d62728", linewidth=0,
                                   clip_on=False))
        used = sum(b[1] for b in blocks)
        ax.set_title(f"{o['contender']} at event {o['event']}: {len(blocks)} blocks, {human(used)} in use of "
                     f"{human(extent)}, largest free gap {human(gap)} (red)", fontsize=9.5)
        ax.set_ylim(-0.18, 1)
        ax.set_yticks([])
        for side in ("left", "right", "top"):
            ax.spines[side].set_visible(False)
        ax.tick_params(labelsize=8)
    axes[0, 0].set_xlim(0, max(o["extent_bytes"] for o in occ) / div)
    axes[-1, 0].set_xlabel(f"address offset ({uname}); grey = free, colours = live blocks by buffer id", fontsize=9)
    fig.suptitle(f"{w['name']}: address space where in-use memory peaks", fontsize=11)
    fig.tight_layout()
    save(fig, out)
    plt.close(fig)
    return True


FIGURES = (("memory", plot_memory), ("min-capacity", plot_min_capacity), ("occupancy", plot_occupancy))


def figure_list(text):
    kinds = [k for k in text.split(",") if k]
    bad = [k for k in kinds if k not in dict(FIGURES)]
    if bad or not kinds:
        raise argparse.ArgumentTypeError(f"{text!r}: a comma-separated list of {', '.join(k for k, _ in FIGURES)}")
    return kinds


def write_all(args):
    doc = load(args.report)
    workloads = doc["workloads"]
    if args.workload is not None:
        workloads = [w for w in workloads if args.workload in (w["name"], os.path.splitext(w["name"])[0],
                                                               stem_of(w["name"]))]
        if not workloads:
            names = ", ".join(w["name"] for w in doc["workloads"])
            raise ReportError(f"{args.report}: no workload {args.workload!r} (it has {names})")
    try:
        os.makedirs(args.out_dir, exist_ok=True)
    except FileExistsError:
        raise ReportError(f"--out-dir {args.out_dir}: exists and is not a directory")
    except OSError as e:
        raise ReportError(f"--out-dir {args.out_dir}: {e.strerror}")
    if not os.access(args.out_dir, os.W_OK | os.X_OK):
        raise ReportError(f"--out-dir {args.out_dir}: not writable")
    stems = set()
    for w in workloads:
        stem = safe_name(args.prefix) + (safe_name(stem_of(w["name"])).strip("._") or "workload")
        base, n = stem, 2
        while stem in stems:  # two workloads of one name: the second gets -2
            stem, n = f"{base}-{n}", n + 1
        stems.add(stem)
        for kind, plot in FIGURES:
            if kind not in args.figures:
                continue
            path = os.path.join(args.out_dir, f"{stem}-{kind}.png")
            try:
                if plot(w, path) is not False:
                    print(path)
            except OSError as e:
                raise ReportError(f"{path}: {e.strerror}")
            except MALFORMED as e:
                raise ReportError(f"{args.report}: {w['name']}: malformed report, drawing {kind} failed "
                                  f"({type(e).__name__}: {e})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("report", metavar="REPORT.json", help="the report strata-compare --json FILE wrote")
    ap.add_argument("--out-dir", required=True, metavar="DIR", help="where the PNGs go (created if missing)")
    ap.add_argument("--workload", metavar="NAME", help="only this workload (its name, with or without extension)")
    ap.add_argument("--prefix", default="", metavar="P", help="put P in front of each file name")
    ap.add_argument("--figures", type=figure_list, default=[k for k, _ in FIGURES], metavar="LIST",
                    help="which figures (default all): memory, min-capacity, occupancy, comma-separated")
    args = ap.parse_args()
    try:
        write_all(args)
    except ReportError as e:
        sys.stderr.write(f"plot_compare: {e}\n")
        sys.exit(2)
    except MALFORMED as e:  # a shape load() does not check, e.g. a string where a number belongs
        sys.stderr.write(f"plot_compare: {args.report}: malformed report ({type(e).__name__}: {e})\n")
        sys.exit(2)


if __name__ == "__main__":
    main()
