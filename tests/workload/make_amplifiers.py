#!/usr/bin/env python3
"""Writes the inputs that once made the workload importers' cost or memory grow faster than the file (issue
#32): small snapshots whose pickle memo (or JSON repetition) multiplies the importer's work, sizes whose sum
wraps 64 bits, and a large snapshot of the densest shape for the memory bound. Standard library only.
Usage: make_amplifiers.py OUTDIR [SCALE [NAME...]] (SCALE multiplies the counts, 1 is what the tests use;
NAMEs limit the files written)."""
import json
import os
import pickle
import sys


def write(outdir, name, data):
    with open(os.path.join(outdir, name), "wb") as f:
        f.write(data)


def dump(obj):
    return pickle.dumps(obj, protocol=4)


def shared_blocks(n):
    """One blocks list of n blocks, named by n segments through the memo: n*n segment x block pairs from a
    file of about 4n bytes (n = 10^5: 10^10 pairs from 400 KB)."""
    block = {"address": 0, "size": 512, "requested_size": 512, "state": "inactive"}
    blocks = [block] * n
    segs = [{"device": 0, "address": 4096 * k, "blocks": blocks} for k in range(0, 1)] * n
    return dump({"segments": segs, "device_traces": [[]]})


def distinct_shared_blocks(n):
    """As shared_blocks, but every segment its own dict (its own address) over the one blocks list: a pass
    that visits each segment once is still n*n."""
    block = {"size": 512, "state": "inactive"}
    blocks = [block] * n
    segs = [{"address": 4096 * k, "blocks": blocks} for k in range(n)]
    return dump({"segments": segs, "device_traces": [[]]})


def junk_keys(n):
    """One trace entry with n junk keys after 'action', 'addr' and 'size', shared by n entries: a lookup that
    scans the dict costs n per key, n*n in all."""
    entry = {"action": "alloc", "addr": 4096, "size": 512}
    for k in range(n):
        entry["j%d" % k] = 0
    return dump({"segments": [], "device_traces": [[entry] * n]})


def distinct_actions(n, as_json=False):
    """n entries with n distinct unknown actions: a linear search of the skipped list costs n*n/2."""
    trace = [{"action": "x%d" % k} for k in range(n)]
    doc = {"segments": [], "device_traces": [trace]}
    return json.dumps(doc).encode() if as_json else dump(doc)


def requested_chain(n):
    """n allocations at one address, then n free_requested there: a search of the queue for the first one not
    yet requested costs n*n/2."""
    alloc = {"action": "alloc", "addr": 4096, "size": 512}
    req = {"action": "free_requested", "addr": 4096, "size": 512}
    return dump({"segments": [], "device_traces": [[alloc] * n + [req] * n]})


def huge_sizes():
    """Four live 2^62-byte buffers: their sum is 2^64, 0 when wrapped."""
    trace = [{"action": "alloc", "addr": 4096 * (k + 1), "size": 1 << 62} for k in range(4)]
    return dump({"segments": [], "device_traces": [trace]})


def huge_sizes_rmm():
    rows = ["Thread,Time,Action,Pointer,Size,Stream"]
    rows += ["1,0.%d,allocate,0x%x,%d,0x0" % (k, 4096 * (k + 1), 1 << 62) for k in range(4)]
    return ("\n".join(rows) + "\n").encode()


def dense_events(n):
    """The densest real shape: n entries, each its own small dict with distinct addresses (the keys and the
    action memoized), for the resident-memory bound."""
    trace = []
    for k in range(n):
        trace.append({"action": "alloc", "addr": 4096 * (k + 1), "size": 512})
    return dump({"segments": [], "device_traces": [trace]})


def distinct_labels(n):
    """n alloc entries, each with a stack of its own whose one frame names a long file (memoized, written once) at a
    distinct line: a new 160-byte label per entry from about 30 bytes of file, for the labels' memory bound."""
    name = "/" + "u" * 200 + ".py"
    trace = [{"action": "alloc", "addr": 4096 * (k + 1), "size": 512,
              "frames": [{"filename": name, "line": k, "name": "f"}]} for k in range(n)]
    return dump({"segments": [], "device_traces": [trace]})


def repeated_entry(n):
    """One alloc entry named n times (a 2-byte memo reference each): the most buffers per byte Python's pickler
    writes."""
    entry = {"action": "alloc", "addr": 4096, "size": 512}
    return dump({"segments": [], "device_traces": [[entry] * n]})


def empty_dicts(n):
    """A list of n empty dicts: one byte of pickle each, the most Document per byte."""
    return dump({"segments": [{} for _ in range(n)], "device_traces": [[]]})


def one_byte_dicts(n):
    """The densest pickle there is, assembled by hand (Python's pickler memoizes each dict): a list of n
    EMPTY_DICTs, one byte each, as the bare segment list."""
    return b"\x80\x04](" + b"}" * n + b"e."


def json_empty_dicts(n):
    """The densest JSON: a bare segment list of n empty objects, three bytes each."""
    return b"[" + b",".join([b"{}"] * n) + b"]"


def main():
    outdir = sys.argv[1]
    scale = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    only = set(sys.argv[3:])  # file names to write; all when none
    os.makedirs(outdir, exist_ok=True)
    inputs = {
        "amp_shared_blocks.pickle": lambda: shared_blocks(100_000 * scale),
        "amp_distinct_shared_blocks.pickle": lambda: distinct_shared_blocks(30_000 * scale),
        "amp_junk_keys.pickle": lambda: junk_keys(30_000 * scale),
        "amp_distinct_actions.pickle": lambda: distinct_actions(200_000 * scale),
        "amp_distinct_actions.json": lambda: distinct_actions(150_000 * scale, as_json=True),
        "amp_requested_chain.pickle": lambda: requested_chain(200_000 * scale),
        "amp_huge_sizes.pickle": huge_sizes,
        "amp_huge_sizes.rmm.csv": huge_sizes_rmm,
        "amp_dense_events.pickle": lambda: dense_events(200_000 * scale),
        "amp_distinct_labels.pickle": lambda: distinct_labels(100_000 * scale),
        "amp_empty_dicts.pickle": lambda: empty_dicts(1_000_000 * scale),
        "amp_repeated_entry.pickle": lambda: repeated_entry(1_000_000 * scale),
        "amp_one_byte_dicts.pickle": lambda: one_byte_dicts(2_000_000 * scale),
        "amp_empty_dicts.json": lambda: json_empty_dicts(1_000_000 * scale),
    }
    for name, make in inputs.items():
        if not only or name in only:
            write(outdir, name, make())


if __name__ == "__main__":
    main()
