#!/usr/bin/env python3
"""Writes a random int8 matrix as a .npy file (format 1.0, C order): make_npy.py OUT ROWS COLS SEED."""
import random
import sys


def main():
    out, rows, cols, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    header = "{'descr': '|i1', 'fortran_order': False, 'shape': (%d, %d), }" % (rows, cols)
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    rng = random.Random(seed)
    with open(out, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode("latin1"))
        f.write(rng.randbytes(rows * cols))


if __name__ == "__main__":
    main()
