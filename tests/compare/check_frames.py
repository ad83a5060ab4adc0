#!/usr/bin/env python3
"""A PyTorch snapshot's frames reach strata-compare's page and its memory_viz export as each buffer's label.

Usage: check_frames.py STRATA-COMPARE SCRATCH_DIR

Writes a snapshot with Python's own pickler (standard library only, no torch) whose entries carry stacks as PyTorch
gathers them, innermost frame first: C++ frames, torch's own Python frames, then the user's. Checks:
- --html: the page's buffer list has a label per buffer (an index into one table of distinct texts): the innermost
  user frame "file:line:function" for each buffer whose allocation was recorded, none for the one whose was not;
  hostile frame text (markup, quotes, 20 kB) comes back cut to 160 bytes, and the data element holds no '<';
- --memory-viz: each alloc's frame is its label's (file, line, function), not the synthetic "buffer N" frame.
"""
import json
import os
import pickle
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_html import data_of  # noqa: E402  (the page's shape checks, shared)

TORCH = {"filename": "/usr/lib/python3/site-packages/torch/nn/modules/linear.py", "line": 116, "name": "forward"}
CPP = {"filename": "/pytorch/c10/cuda/CUDACachingAllocator.cpp", "line": 1000, "name": "malloc"}
HOSTILE_FILE = "/x/</script><!--\"'&" + "a" * 20000 + ".py"


def fail(why):
    sys.exit(f"check_frames: {why}")


def user(line, name="step"):
    return {"filename": "/home/me/train.py", "line": line, "name": name}


def snapshot():
    """Five buffers: four with stacks (one of them hostile), one freed with no recorded allocation."""
    MiB = 1 << 20

    def e(action, addr, size, frames):
        return {"action": action, "addr": addr, "size": size, "stream": 0, "time_us": 0, "frames": frames}

    trace = [
        e("free_completed", 0x9000, MiB, [CPP, user(1, "before")]),  # allocated before recording: no label
        e("alloc", 0x1000, 2 * MiB, [CPP, TORCH, user(10)]),
        e("alloc", 0x3000, MiB, [CPP, user(20, "loss")]),
        e("alloc", 0x5000, MiB, [CPP, {"filename": HOSTILE_FILE, "line": 7, "name": "<b onmouseover=x>"}]),
        e("free_completed", 0x1000, 2 * MiB, []),
        e("alloc", 0x1000, 3 * MiB, [TORCH]),  # torch's frames only: its innermost Python frame
        e("free_completed", 0x3000, MiB, []),
        e("free_completed", 0x5000, MiB, []),
        e("free_completed", 0x1000, 3 * MiB, []),
    ]
    return {"segments": [], "device_traces": [trace]}


def main():
    tool, scratch = sys.argv[1:3]
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    snap = os.path.join(scratch, "frames.pickle")
    with open(snap, "wb") as f:
        pickle.dump(snapshot(), f, protocol=4)
    page, export = os.path.join(scratch, "frames.html"), os.path.join(scratch, "frames_viz.pickle")
    out = subprocess.run([tool, snap, "--quiet", "--no-search", "--no-table", "--contenders", "strata,torch",
                          "--capacity", "64M",
                          "--html", page, "--memory-viz", export, "--memory-viz-contender", "torch"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if out.returncode != 0:
        fail(f"strata-compare exited {out.returncode}: {out.stderr}")

    w = data_of(page)["workloads"][0]
    bl = w["buffer_list"]
    if "label" not in bl or len(bl["label"]) != len(bl["id"]) or len(bl["id"]) != 5:
        fail(f"the page's buffer list has no label per buffer: {sorted(bl)}")
    labels = [bl["label_text"][k] if k >= 0 else None for k in bl["label"]]
    by_size = dict(zip(bl["size"], labels))
    MiB = 1 << 20
    want = {2 * MiB: "/home/me/train.py:10:step", 3 * MiB: TORCH["filename"] + ":116:forward"}
    for size, label in want.items():
        if by_size.get(size) != label:
            fail(f"the {size}-byte buffer's label is {by_size.get(size)!r}, want {label!r}")
    if labels.count(None) != 1 or "/home/me/train.py:20:loss" not in labels:
        fail(f"labels {labels}: want the unrecorded allocation alone unlabelled, and the 'loss' frame")
    if len(bl["label_text"]) != len(set(bl["label_text"])):
        fail("the label table repeats a text")
    hostile = [t for t in labels if t and t.endswith(":7:<b onmouseover=x>")]
    if len(hostile) != 1 or len(hostile[0].encode()) > 160 or not hostile[0].startswith("...a"):
        fail(f"the hostile frame's label is not cut to its tail within 160 bytes: {hostile!r}")

    with open(export, "rb") as f:
        viz = pickle.load(f)
    allocs = [(e["size"], e["frames"][0]) for e in viz["device_traces"][0] if e["action"] == "alloc" and e["frames"]]
    got = {size: frame for size, frame in allocs if not re.fullmatch(r"buffer \d+", frame["name"])}
    if got.get(2 * MiB) != {"filename": "/home/me/train.py", "line": 10, "name": "step"}:
        fail(f"the export's frame for the 2 MiB buffer is {got.get(2 * MiB)!r}")
    if got.get(3 * MiB, {}).get("filename") != TORCH["filename"]:
        fail(f"the export's frame for the 3 MiB buffer is {got.get(3 * MiB)!r}")
    synthetic = [frame for _, frame in allocs if re.fullmatch(r"buffer \d+", frame["name"])]
    if len(synthetic) != labels.count(None) or any(frame["filename"] != "frames.pickle" for frame in synthetic):
        fail(f"{len(synthetic)} allocs with the synthetic frame, want one per unlabelled buffer ({labels.count(None)})")
    print(f"check_frames: {sum(t is not None for t in labels)} of {len(labels)} buffers labelled from their frames "
          f"({len(bl['label_text'])} texts), in the page and the memory_viz export; hostile text cut and inert")


if __name__ == "__main__":
    main()
