#!/usr/bin/env python3
"""Writes a random matrix as a .npy file (format 1.0, C order): make_npy.py OUT ROWS COLS SEED [f4].

int8 by default (uniform bytes); with f4, float32 values from a standard normal distribution (the bf16 GEMM's
inputs: strata-sim gemm --dtype bf16 rounds them to bf16 on upload). Standard library only."""
import random
import struct
import sys


def main():
    if len(sys.argv) not in (5, 6) or (len(sys.argv) == 6 and sys.argv[5] != "f4"):
        sys.exit(__doc__)
    out, rows, cols, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    f4 = len(sys.argv) == 6
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }" % ("<f4" if f4 else "|i1", rows, cols)
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    rng = random.Random(seed)
    with open(out, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode("latin1"))
        if f4:
            f.write(struct.pack("<%df" % (rows * cols), *(rng.gauss(0.0, 1.0) for _ in range(rows * cols))))
        else:
            f.write(rng.randbytes(rows * cols))


if __name__ == "__main__":
    main()
