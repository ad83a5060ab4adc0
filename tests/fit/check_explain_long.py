#!/usr/bin/env python3
"""strata-explain on long messages (issue 45): read in linear time, without a stack overflow, up to its 64 KiB cap.

Before, a run of 10 KB of digits took std::regex over a minute and 30-40 KB crashed it (SIGSEGV, a recursion per
digit): this test's CTest TIMEOUT (20 s) and each call's exit status catch both. A message over 64 KiB is refused
with exit 2 and a line that says so, whether it comes as the argument or on standard input (`-`).

usage: check_explain_long.py STRATA_EXPLAIN
"""
import json
import subprocess
import sys

explain = sys.argv[1]
CAP = 64 * 1024
checks = 0


def run(args, stdin=None):
    try:
        return subprocess.run([explain, *args], input=stdin, capture_output=True, text=True, timeout=10)
    except subprocess.TimeoutExpired:
        sys.exit(f"check_explain_long: FAILED: strata-explain took over 10 s on a {len(stdin or args[0])}-byte message")


def expect(cond, what, detail=""):
    global checks
    if not cond:
        if isinstance(detail, subprocess.CompletedProcess):
            detail = f"exit {detail.returncode}\n{detail.stdout[:2000]}{detail.stderr[:2000]}"
        sys.exit(f"check_explain_long: FAILED: {what}: {detail}")
    checks += 1


def read(message, what):
    p = run([message, "--json"])
    expect(p.returncode == 0, what, p)
    return json.loads(p.stdout)


torch = "CUDA out of memory. Tried to allocate 2.00 GiB. "
digits = "7" * 60000
# A 60 KB run of digits in the text of a PyTorch message: read past, the request read.
m = read(torch + digits + " is what the log held.", "a 60 KB digit run")
expect(m["request_bytes"] == 2 << 30 and m["kind"] == "unknown", "the request beside a digit run", m)
# The same run where PyTorch's sizes are, before and after their phrases: a size of 60,000 characters, refused as out
# of range.
for before, after in (("(GPU 0; ", " total capacity;"), ("(GPU 0; ", " already allocated;"), ("(GPU 0; ", " free;"),
                      ("memory in use. ", " allowed;"), ("(GPU 0; ", " reserved in total by PyTorch)"),
                      ("GPU 0 has a total capacity of ", " GiB"), ("of which ", " is free."),
                      ("Of the allocated memory ", " is allocated by PyTorch")):
    p = run([torch + before + digits + after, "--json"])
    expect(p.returncode == 2 and "out of range: '777" in p.stderr and "(60000 characters)" in p.stderr,
           f"a 60 KB size in {before}...{after}", p)
p = run(["Allocator (GPU_0_bfc) ran out of memory trying to allocate 4.00GiB\nInUse: " + digits, "--json"])
expect(p.returncode == 2 and "out of range" in p.stderr, "a 60 KB InUse", p)
# TensorFlow's shape with 30,000 dimensions of 1: float, 4 bytes.
m = read("OOM when allocating tensor with shape[" + "1," * 29999 + "1] and type float", "a 60 KB shape")
expect(m["request_bytes"] == 4, "a 60 KB shape's request", m)
# The cap: 64 KiB is read (standard input, the whole of it), one byte more is refused; an argument of 100 KB and a
# 1 MB standard input too.
padding = " " * (CAP - len(torch))
p = run(["-", "--json"], stdin=torch + padding)
expect(p.returncode == 0 and json.loads(p.stdout)["request_bytes"] == 2 << 30, "a message of exactly 64 KiB", p)
refused = "strata-explain: the message is longer than 65536 bytes (64 KiB), the most strata-explain reads"
p = run(["-", "--json"], stdin=torch + padding + " ")
expect(p.returncode == 2 and refused in p.stderr and p.stdout == "", "a message of 64 KiB + 1 byte", p)
p = run([torch + "x" * 100000, "--json"])
expect(p.returncode == 2 and refused in p.stderr and p.stdout == "", "a 100 KB argument", p)
p = run(["-"], stdin=torch + "9" * (1 << 20))
expect(p.returncode == 2 and refused in p.stderr and p.stdout == "", "a 1 MB message on standard input", p)
print(f"check_explain_long: {checks} checks passed")
