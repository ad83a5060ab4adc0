#!/usr/bin/env python3
"""Writes a random float32 matrix as a .npy file (format 1.0, C order), values uniform in [-LIMIT, LIMIT):
make_npy.py OUT ROWS COLS SEED [LIMIT] (LIMIT default 4). Standard library only, as bench/gemm/make_npy.py."""
import random
import struct
import sys


def main():
    out, rows, cols, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    limit = float(sys.argv[5]) if len(sys.argv) > 5 else 4.0
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    rng = random.Random(seed)
    values = [rng.uniform(-limit, limit) for _ in range(rows * cols)]
    with open(out, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode("latin1"))
        f.write(struct.pack("<%df" % len(values), *values))


if __name__ == "__main__":
    main()
