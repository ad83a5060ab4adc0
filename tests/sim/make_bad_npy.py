#!/usr/bin/env python3
"""Writes malformed and mismatched .npy files for the strata-sim gemm bad-input tests (stdlib only)."""
import os
import struct
import sys


def npy(path, descr, shape, data, fortran=False, version=1):
    d = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (
        descr, "True" if fortran else "False", "".join("%d, " % s for s in shape) if len(shape) != 1 else "%d," % shape[0])
    head_len = 10 if version == 1 else 12
    pad = (64 - (head_len + len(d) + 1) % 64) % 64
    d = d + " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY" + bytes([version, 0]))
        f.write(struct.pack("<H" if version == 1 else "<I", len(d)))
        f.write(d.encode())
        f.write(data)


out = sys.argv[1]
os.makedirs(out, exist_ok=True)
p = lambda n: os.path.join(out, n)
npy(p("a.npy"), "|i1", (3, 4), bytes(range(12)))
npy(p("a_v2.npy"), "|i1", (3, 4), bytes(range(12)), version=2)
npy(p("b.npy"), "|i1", (4, 2), bytes(8))
npy(p("b_mismatch.npy"), "|i1", (5, 2), bytes(10))
npy(p("float.npy"), "<f4", (3, 4), bytes(48))
npy(p("float_b.npy"), "<f4", (4, 2), bytes(32))  # with float.npy: a valid --dtype bf16 pair
npy(p("int32_a.npy"), "<i4", (3, 4), bytes(48))
npy(p("fortran.npy"), "|i1", (3, 4), bytes(12), fortran=True)
npy(p("three_d.npy"), "|i1", (2, 3, 2), bytes(12))
npy(p("truncated.npy"), "|i1", (3, 4), bytes(7))
npy(p("c_wrong_shape.npy"), "<i4", (3, 3), bytes(36))
npy(p("c_int8.npy"), "|i1", (3, 2), bytes(6))
with open(p("not_npy.npy"), "wb") as f:
    f.write(b"hello, this is not numpy\n")
with open(p("version3.npy"), "wb") as f:
    f.write(b"\x93NUMPY\x03\x00" + bytes(60))
