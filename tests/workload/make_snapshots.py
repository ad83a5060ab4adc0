#!/usr/bin/env python3
"""Writes PyTorch memory snapshots in the real structure (torch.cuda.memory._snapshot()) with Python's own
pickler, for the strata_workload tests: protocols 2 to 5, a JSON copy, a state-only snapshot and a 2024-style
one. Standard library only; no torch. Usage: make_snapshots.py OUTDIR"""
import json
import os
import pickle
import sys

A = 0x7F0000000000  # 47-bit device addresses, as LONG1 in the pickle
B = A + 0x200
C = A + 0x100000
D = A + 0x200000
E = A + 0x300000
F = A + 0x400
SEG = A
MiB = 1 << 20

# Frame dicts shared between entries, as PyTorch's gathered tracebacks are: the memo stores each once and
# later entries refer back to it (BINGET / LONG_BINGET).
FRAMES = [{"filename": "/opt/conda/lib/python3.11/site-packages/torch/nn/modules/linear.py", "line": 116,
           "name": "forward"},
          {"filename": "/home/ü/train.py", "line": 42, "name": "step"}]


def entry(action, addr, size, t, with_bytes):
    e = {"action": action, "addr": addr, "size": size, "stream": 0, "time_us": 1_700_000_000_000_000 + t,
         "compile_context": "N/A", "user_metadata": "", "frames": FRAMES}
    if with_bytes:
        e["user_metadata"] = b"\x00\x01"  # SHORT_BINBYTES (protocol 3 and later write bytes natively)
    return e


def basic(with_bytes):
    """Device 0: blocks allocated before recording, frees without allocs, address reuse, a free_requested
    with no free_completed, skipped segment/snapshot/oom events. Device 1: a short trace of its own."""
    t0 = [
        {"action": "segment_alloc", "addr": SEG, "size": 2 * MiB, "stream": 0, "time_us": 1, "frames": []},
        entry("alloc", A, 512, 2, with_bytes),
        entry("alloc", B, 1000, 3, with_bytes),
        entry("free_requested", A, 512, 4, with_bytes),
        entry("free_completed", A, 512, 5, with_bytes),
        entry("alloc", A, 256, 6, with_bytes),            # address reuse
        entry("free_completed", C, 4096, 7, with_bytes),  # allocated before recording started
        entry("free_requested", B, 1000, 8, with_bytes),
        entry("free_completed", B, 1000, 9, with_bytes),
        entry("free_requested", D, 64, 10, with_bytes),   # before recording, and never completed
        entry("alloc", E, 128, 11, with_bytes),
        entry("free_requested", E, 128, 12, with_bytes),  # no free_completed follows
        {"action": "snapshot", "addr": 0, "size": 0, "stream": 0, "time_us": 13, "frames": []},
        {"action": "oom", "device_free": 1024, "size": 3 * MiB, "stream": 0, "time_us": 14, "frames": []},
    ]
    t1 = [entry("alloc", 0x1000, 100, 1, False), entry("free_completed", 0x1000, 100, 2, False),
          entry("alloc", 0x1000, 200, 3, False)]
    blocks0 = [
        {"address": A, "size": 512, "requested_size": 256, "state": "active_allocated", "frames": FRAMES},
        {"address": A + 512, "size": 512, "requested_size": 0, "state": "inactive", "frames": []},
        {"address": F, "size": 512, "requested_size": 300, "state": "active_allocated", "frames": FRAMES},
        {"address": F + 512, "size": 2 * MiB - 1536, "requested_size": 0, "state": "inactive", "frames": []},
    ]
    blocks_e = [{"address": E, "size": 512, "requested_size": 128, "state": "active_pending_free", "frames": []}]
    # Many distinct strings: past 256 memo entries protocols 2 and 3 switch to LONG_BINPUT / LONG_BINGET.
    many = [{"filename": "f%d.py" % k, "line": k, "name": "fn%d" % k} for k in range(300)]
    segments = [
        {"device": 0, "address": SEG, "total_size": 2 * MiB, "allocated_size": 1024, "active_size": 1024,
         "requested_size": 556, "stream": 0, "segment_type": "large", "segment_pool_id": (0, 0),
         "is_expandable": False, "frames": many, "blocks": blocks0},
        {"device": 0, "address": E, "total_size": 2 * MiB, "allocated_size": 512, "active_size": 512,
         "requested_size": 128, "stream": 0, "segment_type": "small", "segment_pool_id": (0, 0),
         "is_expandable": True, "frames": [], "blocks": blocks_e},
        {"device": 1, "address": 0x1000, "total_size": 0x2000, "allocated_size": 0x400, "active_size": 0x400,
         "requested_size": 250, "stream": 0, "segment_type": "small", "segment_pool_id": (0, 1),
         "is_expandable": False, "frames": [], "blocks": [
             {"address": 0x1000, "size": 512, "requested_size": 200, "state": "active_allocated", "frames": []},
             {"address": 0x2000, "size": 512, "requested_size": 50, "state": "active_allocated", "frames": []}]},
    ]
    return {
        "segments": segments,
        "device_traces": [t0, t1],
        "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True", "max_split_size": -1,
                               "garbage_collection_threshold": 0.0, "expandable_segments": True,
                               "roundup_power2_divisions": {"1": 0, "32768": 0}, "last_allocator_settings": None},
        "external_annotations": [{"big": 2 ** 70, "negative": -(2 ** 40), "pi": 3.25, "note": "x" * 300}],
    }


def state_only():
    """2024 style, no history recorded: blocks carry no address (they tile their segment) and no
    requested_size; the trace list is empty."""
    return {"segments": [{"device": 0, "address": 0x1000000, "total_size": 2 * MiB, "allocated_size": 2560,
                          "active_size": 2560, "stream": 0, "segment_type": "small",
                          "blocks": [{"size": 512, "state": "active_allocated", "history": []},
                                     {"size": 1024, "state": "inactive", "history": []},
                                     {"size": 2048, "state": "active_allocated", "history": []}]}],
            "device_traces": [[]]}


def quirk_2024():
    """2024 style trace entries (action, addr, size, stream, time_us only): [free_completed, snapshot]."""
    return {"segments": [{"device": 0, "address": 0x2000000, "total_size": 2 * MiB, "allocated_size": 0,
                          "active_size": 0, "stream": 0, "segment_type": "small",
                          "blocks": [{"size": 2 * MiB, "state": "inactive", "history": []}]}],
            "device_traces": [[{"action": "free_completed", "addr": 0x2000000, "size": 512, "stream": 0,
                                "time_us": 5},
                               {"action": "snapshot", "addr": 0, "size": 0, "stream": 0, "time_us": 6}]]}


def to_json(obj):
    if isinstance(obj, dict):
        return {k: to_json(v) for k, v in obj.items() if not isinstance(v, bytes)}
    if isinstance(obj, (list, tuple)):
        return [to_json(v) for v in obj]
    return obj


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for protocol in (2, 3, 4, 5):
        snap = basic(with_bytes=protocol >= 3)
        with open(os.path.join(out, "basic_p%d.pickle" % protocol), "wb") as f:
            pickle.dump(snap, f, protocol=protocol)
    with open(os.path.join(out, "basic.json"), "w") as f:
        json.dump(to_json(basic(False)), f)
    with open(os.path.join(out, "state_only.pickle"), "wb") as f:
        pickle.dump(state_only(), f, protocol=4)
    with open(os.path.join(out, "quirk_2024.pickle"), "wb") as f:
        pickle.dump(quirk_2024(), f, protocol=4)
    # The smallest real one, for the every-truncation test.
    with open(os.path.join(out, "small_p4.pickle"), "wb") as f:
        pickle.dump({"segments": [], "device_traces": [[
            {"action": "alloc", "addr": A, "size": 512, "stream": 0, "time_us": 1},
            {"action": "free_completed", "addr": A, "size": 512, "stream": 0, "time_us": 2}]],
            "x": (1.5, True, None, -7, 2 ** 40, "é")}, f, protocol=4)
    # The value kinds the reader decodes, in the order values_test checks them.
    shared = ["shared"]
    for protocol in (2, 3, 4, 5):
        values = [(1, 2, 3), (), (1,), (1, 2, 3, 4), 2 ** 3000, -(2 ** 3000), -1, -129, 2 ** 31, -(2 ** 31),
                  2 ** 63 - 1, -(2 ** 63), 2 ** 64, 1.5, -0.0, "\u00e9" * 200, True, False, None, {"k": [], 7: "seven"},
                  shared, shared, 65535, 65536]
        if protocol >= 3:
            values.append(b"y" * 300)  # BINBYTES
        with open(os.path.join(out, "values_p%d.pickle" % protocol), "wb") as f:
            pickle.dump(values, f, protocol=protocol)
    # A list that holds itself: Python allows it, the memo builds it, nothing may loop on it.
    cyc = {"segments": [], "device_traces": []}
    cyc["device_traces"].append(cyc["device_traces"])
    with open(os.path.join(out, "cycle.pickle"), "wb") as f:
        pickle.dump(cyc, f, protocol=4)
    with open(os.path.join(out, "basic_p4.pickle"), "rb") as f:
        head = f.read(100)
    with open(os.path.join(out, "truncated_p4.pickle"), "wb") as f:
        f.write(head)
    with open(os.path.join(out, "bad_action.rmm.csv"), "w") as f:
        f.write("Thread,Time,Action,Pointer,Size,Stream\n"
                "140,12:00:00.000001,allocate,0x7f0000000000,256,0x0\n"
                "140,12:00:00.000002,realloc,0x7f0000000000,512,0x0\n")
    with open(os.path.join(out, "not_a_workload.txt"), "w") as f:
        f.write("hello, world\n")
    # A pickle a snapshot never is: it would call os.system on load.
    with open(os.path.join(out, "evil.pickle"), "wb") as f:
        f.write(b"\x80\x04\x95\x1c\x00\x00\x00\x00\x00\x00\x00\x8c\x02os\x94\x8c\x06system\x94\x93\x94\x8c\x04"
                b"true\x94\x85\x94R\x94.")
    # The refusals docs/workloads.md shows, one file each.
    with open(os.path.join(out, "huge_string.pickle"), "wb") as f:
        f.write(b"\x80\x02}X\xff\xff\xff\xff" + b"segments" + b"\x00" * 4)  # a 4 GiB string in a 16-byte file
    with open(os.path.join(out, "deep.pickle"), "wb") as f:
        f.write(b"\x80\x02" + b"(" * 2000 + b".")
    with open(os.path.join(out, "no_size.json"), "w") as f:
        f.write('{"segments": [], "device_traces": [[{"action": "alloc", "addr": 4096}]]}\n')
    with open(os.path.join(out, "cut.json"), "w") as f:
        f.write('{"segments": []')
    with open(os.path.join(out, "bad_pointer.rmm.csv"), "w") as f:
        f.write("Thread,Time,Action,Pointer,Size,Stream\n"
                "140,12:00:00.000001,allocate,0xZZ,256,0x0\n")
    print("wrote snapshots to", out)


if __name__ == "__main__":
    main()
