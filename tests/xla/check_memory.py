#!/usr/bin/env python3
"""Checks the XLA importers against the memory bound docs/workloads.md states for every importer (peak RSS under 64x
the input plus 32 MiB), on the dumps that once multiplied it (issue #45): a protobuf where thousands of logical
buffers name one instruction with a long name and a long shape (a copy of both per buffer: 0.56 MB made 5.9 GB,
and --tpu-pad parsed every copy), and a text dump whose steps view makes outputs x --xla-steps buffers (97 KB made
1.2 GB at 10,000 steps: now refused past the stated limit, and the most steps it names are imported within the
bound). Each run has 1 GiB of address space, so that a build without these bounds fails here instead of exhausting
the machine. Standard library only.
Usage: check_memory.py STRATA_IMPORT OUTDIR"""
import os
import re
import resource
import subprocess
import sys
import time

PER_BYTE = 64
BASE = 32 << 20
ADDRESS_SPACE = 1 << 30


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def num(field, v):
    return varint(field << 3) + varint(v)


def msg(field, payload):
    return varint(field << 3 | 2) + varint(len(payload)) + payload


def shared_names_proto(buffers, name_bytes, rank):
    """An HloProto (hlo.proto: hlo_module 1, buffer_assignment 3) of one instruction (id 7) named by every logical
    buffer, its name `name_bytes` long and its shape f32 of `rank` dimensions of 1 with a layout; one temp
    allocation holding every buffer at offset 0, and a heap-simulator trace that allocates and frees each in turn."""
    dims = b"".join(varint(1) for _ in range(rank))
    layout = b"".join(varint(rank - 1 - k) for k in range(rank))
    shape = num(2, 11) + msg(3, dims) + msg(5, msg(1, layout))  # ShapeProto: F32, dimensions, minor_to_major
    instruction = msg(1, b"n" * name_bytes) + msg(3, shape) + num(35, 7)
    module = msg(1, b"shared") + msg(3, msg(2, instruction))
    logical = b"".join(msg(1, num(1, k) + num(2, 4) + msg(3, num(4, 7))) for k in range(buffers))
    assigned = b"".join(msg(9, num(1, k) + num(2, 0) + num(3, 4)) for k in range(buffers))
    events = b"".join(msg(1, num(1, 0) + num(2, k)) + msg(1, num(1, 1) + num(2, k)) for k in range(buffers))
    assignment = logical + msg(3, num(1, 0) + num(2, 4) + assigned) + msg(4, events)
    return msg(1, module) + msg(3, assignment)


def many_outputs_dump(outdir, outputs, shape_rank):
    """A text dump (XLA_FLAGS=--xla_dump_to) of `outputs` output allocations, each of one value with a long shape."""
    shape = "f32[%s]{%s}" % (",".join(["1"] * shape_rank), ",".join(str(k) for k in range(shape_rank - 1, -1, -1)))
    a = ["BufferAssignment:"]
    live = ["HloLiveRange (max 1):", "  BufferLiveRange:"]
    for k in range(outputs):
        a.append("allocation %d: size 4, maybe-live-out:" % k)
        a.append(" value: <%d out.%d @0> (size=4,offset=0): %s" % (k, k, shape))
        live.append("    out.%d{}:0-1" % k)
    live.append("  Live ranges at 0 (peak):")
    os.makedirs(outdir, exist_ok=True)
    for name, lines in (("m-buffer-assignment.txt", a), ("m-live-range.txt", live)):
        with open(os.path.join(outdir, name), "w") as f:
            f.write("\n".join(lines) + "\n")
    return sum(os.path.getsize(os.path.join(outdir, n)) for n in ("m-buffer-assignment.txt", "m-live-range.txt"))


def limit_address_space():
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def run(argv):
    """Runs argv; returns (exit status, its own peak RSS in bytes from wait4, stderr, seconds)."""
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=limit_address_space)
    err = proc.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(proc.pid, 0)
    return os.waitstatus_to_exitcode(status), usage.ru_maxrss * 1024, err, time.monotonic() - start


def main():
    tool, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    failed = False

    def check(what, argv, size, want_rc=0, want=None):
        nonlocal failed
        rc, rss, err, seconds = run(argv)
        bound = PER_BYTE * size + BASE
        ok = rc == want_rc and rss <= bound and (want is None or re.search(want, err) is not None)
        print("%s: %d bytes, exit %d, peak RSS %d (%.1fx), bound %d, %.1f s: %s" %
              (what, size, rc, rss, rss / size, bound, seconds, "ok" if ok else "FAILED"))
        if not ok:
            print("  " + err.strip()[:2000])
        failed = failed or not ok
        return err

    # 30,000 buffers naming one 32 KiB name and a rank-3000 shape (about 12 KB of text): a 0.9 MB file that asked
    # for 30,000 copies of both (1.3 GB) before.
    pb = os.path.join(outdir, "shared.hlo.pb")
    with open(pb, "wb") as f:
        f.write(shared_names_proto(30000, 32 << 10, 3000))
    size = os.path.getsize(pb)
    csv = os.path.join(outdir, "out.csv")
    check("shared names, executable view", [tool, pb, "-o", csv], size)
    check("shared names, executable view, --tpu-pad", [tool, pb, "--tpu-pad", "--summary"], size)
    check("shared names, steps view, --tpu-pad", [tool, pb, "--xla-view", "steps", "--tpu-pad", "--summary"], size)

    # 2,000 outputs with 1 KB shapes: every step makes 2,000 buffers. 10,000 steps are refused before anything is
    # allocated, naming the most that fit; that many are imported, written out, within the bound.
    dump = os.path.join(outdir, "outputs")
    size = many_outputs_dump(dump, 2000, 250)
    err = check("many outputs, steps view, 10000 steps", [tool, dump, "--xla-view", "steps", "--xla-steps", "10000",
                                                          "-o", csv], size, 2,
                r"--xla-steps 10000: the steps view would make 20000000 buffers \(2000 per step\), over the limit")
    most = re.search(r"at most --xla-steps (\d+)", err)
    if most is None:
        print("many outputs: the refusal names no number of steps that fit")
        failed = True
    else:
        check("many outputs, steps view, %s steps" % most.group(1),
              [tool, dump, "--xla-view", "steps", "--xla-steps", most.group(1), "-o", csv], size)
    # One output in a dump of a few hundred bytes: the limit's fixed part alone, against the bound's 32 MiB.
    tiny = os.path.join(outdir, "tiny")
    size = many_outputs_dump(tiny, 1, 1)
    err = check("one output, steps view, 1000000 steps", [tool, tiny, "--xla-view", "steps", "--xla-steps", "1000000",
                                                          "-o", csv], size, 2, r"at most --xla-steps \d+")
    most = re.search(r"at most --xla-steps (\d+)", err)
    if most is not None:
        check("one output, steps view, %s steps" % most.group(1),
              [tool, tiny, "--xla-view", "steps", "--xla-steps", most.group(1), "-o", csv], size)
    for name in ("shared.hlo.pb", "out.csv", "outputs/m-buffer-assignment.txt", "outputs/m-live-range.txt",
                 "tiny/m-buffer-assignment.txt", "tiny/m-live-range.txt"):
        if os.path.exists(os.path.join(outdir, name)):
            os.remove(os.path.join(outdir, name))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
