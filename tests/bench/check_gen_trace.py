#!/usr/bin/env python3
"""bench/compare/gen_trace.py: the same seed gives the same bytes (pinned by a SHA-256 of the 100k-buffer trace the
benchmark uses), another seed another trace, every row is a valid buffer (id unique, lower < upper, size > 0), the
mix of sizes and lifetimes is the one the generator's help states, and bad arguments are refused (exit 2) without
writing anything.

Usage: check_gen_trace.py GEN_TRACE_PY
"""
import csv
import hashlib
import os
import subprocess
import sys
import tempfile

# bench/compare/run.sh's trace: --buffers 100000 --seed 1. A change to the generator changes the benchmark's input;
# update this (and docs/comparison.md's figures) on purpose.
PINNED_100K_SEED_1 = "a41cf945aee09cb70267b864628d62c5f56c5aee88ab4d02bb29b2c18d157216"


def fail(msg):
    sys.exit("FAIL: " + msg)


def run(gen, *args):
    return subprocess.run([sys.executable, gen, *args], capture_output=True, text=True)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    gen = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        def make(buffers, seed, name):
            path = os.path.join(tmp, name)
            r = run(gen, "--buffers", str(buffers), "--seed", str(seed), "--out", path)
            if r.returncode != 0:
                fail(f"gen_trace.py --buffers {buffers} --seed {seed} exited {r.returncode}: {r.stderr}")
            return open(path, "rb").read()

        big = make(100000, 1, "big.csv")
        digest = hashlib.sha256(big).hexdigest()
        if digest != PINNED_100K_SEED_1:
            fail(f"the 100k seed-1 trace changed: sha256 {digest}, pinned {PINNED_100K_SEED_1}")
        a, b, c = make(5000, 7, "a.csv"), make(5000, 7, "b.csv"), make(5000, 8, "c.csv")
        if a != b:
            fail("the same seed gave two different traces")
        if a == c:
            fail("seeds 7 and 8 gave the same trace")

        rows = list(csv.DictReader(big.decode().splitlines()))
        if len(rows) != 100000 or list(rows[0].keys()) != ["id", "lower", "upper", "size"]:
            fail("expected 100000 rows with the header id,lower,upper,size")
        ids = set()
        sizes, lives = [], []
        for r in rows:
            i, lo, up, sz = (int(r[k]) for k in ("id", "lower", "upper", "size"))
            if i in ids or not lo < up or sz <= 0:
                fail(f"bad row {r}")
            ids.add(i)
            sizes.append(sz)
            lives.append(up - lo)
        n = len(rows)
        share = lambda xs, pred: sum(1 for x in xs if pred(x)) / n  # noqa: E731
        checks = [
            # a quarter scalars, and activations at the bottom of their range
            ("sizes <= 512 B", share(sizes, lambda s: s <= 512), 0.25, 0.28),
            # a third large, 5% huge, and activations at the top of their range (exactly 1 MiB)
            ("sizes >= 1 MiB", share(sizes, lambda s: s >= (1 << 20)), 0.41, 0.45),
            ("sizes > 64 MiB", share(sizes, lambda s: s > (64 << 20)), 0.045, 0.055),
            # half short-lived; an eighth long-lived plus the weights
            ("lifetimes <= 10 steps", share(lives, lambda t: t <= 10), 0.50, 0.54),
            ("lifetimes >= 2000 steps", share(lives, lambda t: t >= 2000), 0.14, 0.18),
        ]
        for what, got, lo, hi in checks:
            if not lo <= got <= hi:
                fail(f"{what}: {got:.3f}, expected {lo}..{hi}")

        out = os.path.join(tmp, "refused.csv")
        for args in (["--buffers", "0", "--out", out], ["--buffers", "x", "--out", out],
                     ["--buffers", "10", "--seed", "-1", "--out", out], ["--buffers", "10"]):
            r = run(gen, *args)
            if r.returncode != 2 or os.path.exists(out):
                fail(f"gen_trace.py {' '.join(args)}: exit {r.returncode}, wanted 2 and no file")
        r = run(gen, "--buffers", "10", "--out", os.path.join(tmp, "no-such-dir", "x.csv"))
        if r.returncode == 0 or "cannot write" not in r.stderr:
            fail(f"an unwritable --out: exit {r.returncode}, stderr {r.stderr!r}")
        leftovers = [f for f in os.listdir(tmp) if f.startswith(".gen_trace.")]
        if leftovers:
            fail(f"temporary files left behind: {leftovers}")
    print("check_gen_trace: deterministic (pinned), seeds differ, 100000 valid rows in the stated mix, bad input refused")


if __name__ == "__main__":
    main()
