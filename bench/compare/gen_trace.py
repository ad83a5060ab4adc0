#!/usr/bin/env python3
"""Writes a synthetic buffer-lifetime trace (CSV `id,lower,upper,size`, the format of tests/data/traces) with
mixed sizes and lifetimes like the shared traces, deterministic from a seed: the same arguments give the same bytes
on any machine (its own generator, splitmix64, and integer arithmetic only where it matters).

Usage: gen_trace.py --buffers N [--seed S] --out FILE

What the shared traces look like (bert_base, resnet50, tiny_bert: SOMAS tensors) and what this draws:
  * sizes: a quarter are scalars and small vectors (1..512 B, powers of two, bert_base's median is 4 B); a
    third are activations of 512 B..1 MiB; a third are large tensors of 1..64 MiB in 256 KiB steps; 5% are
    huge (64..512 MiB, bert_base's largest is 413 MiB);
  * lifetimes: half are short (1..~10 steps, the shared traces' median is 4..111), a third medium
    (10..2000 steps), an eighth long (2000..T/4), and the weights live from their start to the end (2% from
    time 0, 1% later);
  * one new buffer per time step on average (bert_base: 5620 buffers over 6471 steps), a tenth of them
    sharing the step of the one before.
100k buffers (seed 1) give about 4,400 live buffers and a max load of about 109 GB at the peak.
"""
import argparse
import os
import sys
import tempfile

MASK = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n):
        """Uniform integer in [0, n) (n >= 1), without modulo bias."""
        limit = (1 << 64) - (1 << 64) % n
        while True:
            v = self.next()
            if v < limit:
                return v % n

    def between(self, lo, hi):
        """Uniform integer in [lo, hi]."""
        return lo + self.below(hi - lo + 1)

    def log_uniform(self, lo, hi):
        """An integer in [lo, hi] whose logarithm is uniform: 2^(k + f) over 1024 fractional steps, exact."""
        lo_bits, hi_bits = lo.bit_length() - 1, hi.bit_length() - 1
        k = self.between(lo_bits, hi_bits)
        f = self.below(1024)
        # 2^(k + f/1024) ~ 2^k * (1 + f/1024 * ln 2 ...): the linear interpolation between powers of two
        # is close enough for a spread and keeps every step in integers.
        v = (1 << k) + ((1 << k) * f) // 1024
        return max(lo, min(hi, v))


KiB, MiB = 1 << 10, 1 << 20


def draw_size(rng):
    c = rng.below(100)
    if c < 25:
        return 1 << rng.between(0, 9)  # scalars, small vectors
    if c < 60:
        return rng.log_uniform(512, MiB) // 256 * 256 or 256  # activations
    if c < 95:
        return rng.log_uniform(MiB, 64 * MiB) // (256 * KiB) * (256 * KiB)  # large tensors
    return rng.log_uniform(64 * MiB, 512 * MiB) // MiB * MiB  # huge


def generate(buffers, seed):
    rng = SplitMix64(seed)
    rows = []
    t = 0
    for i in range(buffers):
        if i > 0 and rng.below(10) != 0:
            t += 1
        rows.append([i, t, 0, draw_size(rng)])
    end = t + 2
    for row in rows:
        lower = row[1]
        c = rng.below(100)
        if c < 2:
            row[1] = 0  # weights: the whole run
            upper = end
        elif c < 3:
            upper = end  # state created later, kept to the end
        elif c < 53:
            upper = lower + 1 + rng.below(4) + rng.below(4) * rng.below(3)
        elif c < 87:
            upper = lower + rng.log_uniform(10, 2000)
        else:
            upper = lower + rng.log_uniform(2000, max(2000, end // 4))
        row[2] = min(upper, end)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--buffers", type=int, required=True, help="number of buffers (1..10,000,000)")
    ap.add_argument("--seed", type=int, default=1, help="seed (0..2^64-1), default 1")
    ap.add_argument("--out", required=True, help="the CSV to write (written whole or not at all)")
    a = ap.parse_args()
    if not 1 <= a.buffers <= 10_000_000:
        ap.error("--buffers must be 1..10000000")
    if not 0 <= a.seed <= MASK:
        ap.error("--seed must be 0..2^64-1")
    rows = generate(a.buffers, a.seed)
    text = "id,lower,upper,size\n" + "".join(f"{i},{lo},{up},{sz}\n" for i, lo, up, sz in rows)
    directory = os.path.dirname(os.path.abspath(a.out))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".gen_trace.", dir=directory)
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, a.out)
    except OSError as e:
        if "tmp" in locals() and os.path.exists(tmp):
            os.unlink(tmp)
        sys.exit(f"gen_trace.py: cannot write {a.out}: {e.strerror}")


if __name__ == "__main__":
    main()
