#!/usr/bin/python3
"""Draws each GPU allocation policy's memory over time on one trace: small multiples for docs/gpu-policies.md.

Replays TRACE under the nine policies with `strata-replay --backend gpu-emu --series` and draws one panel per
policy (shared axes): the trace's live bytes, the policy's bytes in use, what it reserves from the device
(pool_bytes), the device's total, and every failed allocation marked by its kind. Run it with Debian's
/usr/bin/python3 (python3-matplotlib, installed by scripts/setup.sh).

  /usr/bin/python3 scripts/plot_gpu_policies.py [--build DIR] [--trace CSV] [--capacity 1.0x]
                                                [--page-bytes 65536] [--out PNG]
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

POLICIES = ["jax", "jax-growth", "jax-platform", "jax-async", "tf", "tf-growth", "tf-async", "torch",
            "torch-expandable"]
OOM_STYLE = {  # kind -> (colour, marker)
    "cap": ("#d62728", "v"),
    "fragmentation": ("#9467bd", "x"),
    "capacity": ("#000000", "o"),
}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def default_trace():
    shared = os.path.join(ROOT, "..", "shared", "data", "traces", "resnet50.csv")
    return os.path.normpath(shared) if os.path.exists(shared) else os.path.join(ROOT, "tests", "data", "traces",
                                                                                 "resnet50.csv")


def replay(binary, trace, policy, capacity, page_bytes, series_path):
    cmd = [binary, trace, "--backend", "gpu-emu", "--policy", policy, "--capacity", capacity, "--option",
           f"page_bytes={page_bytes}", "--series", series_path, "--json"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in (0, 1):  # 1: some allocations failed, which is what the picture shows
        sys.exit(f"plot_gpu_policies: {' '.join(cmd)}: exit status {p.returncode}\n{p.stderr}")
    summary = json.loads(p.stdout.strip().splitlines()[-1])
    with open(series_path, newline="") as f:
        rows = list(csv.DictReader(f))
    return summary, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="build directory (default build/)")
    ap.add_argument("--trace", default=default_trace(), help="trace CSV (default resnet50.csv)")
    ap.add_argument("--capacity", default="1.0x", help="GPU total memory: <F>x of the trace's max load, or bytes")
    ap.add_argument("--page-bytes", type=int, default=65536, help="the emulated GPU's page (default 64 KiB)")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "images", "gpu-policies-resnet50.png"))
    args = ap.parse_args()
    binary = os.path.join(args.build, "host", "replay", "strata-replay")
    if not os.access(binary, os.X_OK):
        sys.exit(f"plot_gpu_policies: {binary} not found: build strata-replay first (scripts/build.sh)")

    runs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for policy in POLICIES:
            runs[policy] = replay(binary, args.trace, policy, args.capacity, args.page_bytes,
                                  os.path.join(tmp, f"{policy}.csv"))

    gib = 1024.0 ** 3
    fig, axes = plt.subplots(3, 3, figsize=(11, 8), sharex=True, sharey=True)
    for ax, policy in zip(axes.flat, POLICIES):
        summary, rows = runs[policy]
        x = [int(r["event"]) for r in rows]
        live = [int(r["live_bytes"]) / gib for r in rows]
        in_use = [int(r["in_use_bytes"]) / gib for r in rows]
        reserved = [int(r["reserved_bytes"]) / gib for r in rows]
        ax.fill_between(x, live, step="post", color="#cccccc", linewidth=0, label="trace live (requested)")
        ax.step(x, reserved, where="post", color="#ff7f0e", linewidth=2.0, label="reserved (pool_bytes)")
        ax.step(x, in_use, where="post", color="#1f77b4", linewidth=0.9, label="in use (bytes_in_use)")
        ax.axhline(summary["total_bytes"] / gib, color="black", linestyle="--", linewidth=0.8, label="GPU total")
        for kind, (colour, marker) in OOM_STYLE.items():
            pts = [(int(r["event"]), int(r["live_bytes"]) / gib) for r in rows if r["oom"] == kind]
            if pts:
                ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=9, color=colour, marker=marker,
                           linewidths=0.7, zorder=3, label=f"failed: {kind}")
        first = (f", first at {summary['first_oom_event']} ({summary['first_oom_kind']})"
                 if summary["failed_allocs"] else "")
        ax.set_title(f"{policy}: {summary['failed_allocs']} failed{first}", fontsize=9)
        ax.tick_params(labelsize=8)
        ax.grid(True, linewidth=0.3, alpha=0.5)
    for ax in axes[-1]:
        ax.set_xlabel("event (allocation or free, replay order)", fontsize=8)
    for ax in axes[:, 0]:
        ax.set_ylabel("GiB", fontsize=8)
    # One legend for all panels, with every kind of mark any panel has.
    handles = {}
    for ax in axes.flat:
        for h, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, h)
    fig.legend(handles.values(), handles.keys(), loc="lower center", ncol=len(handles), fontsize=8, frameon=False)
    any_run = runs[POLICIES[0]][0]
    fig.suptitle(f"{os.path.basename(args.trace)} on gpu-emu: GPU total = {args.capacity} the trace's max load "
                 f"({any_run['total_bytes'] / gib:.2f} GiB), {args.page_bytes // 1024} KiB pages, no context",
                 fontsize=10)
    fig.tight_layout(rect=(0, 0.04, 1, 0.97))
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    fig.savefig(args.out, dpi=100, metadata={"Software": None})
    print(json.dumps({"bench": "gpu_plots", "trace": os.path.basename(args.trace), "capacity": args.capacity,
                      "page_bytes": args.page_bytes, "image": os.path.relpath(args.out, ROOT),
                      "image_bytes": os.path.getsize(args.out)}))


if __name__ == "__main__":
    main()
