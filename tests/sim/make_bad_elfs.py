#!/usr/bin/env python3
"""Writes malformed firmware files for strata-sim's bad-input tests into the given directory."""
import os
import struct
import sys

EM_RISCV, EM_386 = 243, 3


def elf32(machine=EM_RISCV, segments=((0x80000000, b"\x13\x00\x00\x00"),), truncate=None):
    """A minimal little-endian ELF32 executable with one PT_LOAD per (address, bytes)."""
    ehsize, phsize = 52, 32
    phoff = ehsize
    data_off = phoff + phsize * len(segments)
    phdrs, blobs, off = b"", b"", data_off
    for addr, blob in segments:
        phdrs += struct.pack("<IIIIIIII", 1, off, addr, addr, len(blob), len(blob), 5, 4)
        blobs += blob
        off += len(blob)
    entry = segments[0][0] if segments else 0x80000000
    ident = b"\x7fELF" + bytes([1, 1, 1]) + bytes(9)
    eh = ident + struct.pack("<HHIIIIIHHHHHH", 2, machine, 1, entry, phoff, 0, 0, ehsize, phsize,
                             len(segments), 40, 0, 0)
    out = eh + phdrs + blobs
    return out[:truncate] if truncate else out


def elf64():
    ident = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    return ident + struct.pack("<HHIQQQIHHHHHH", 2, EM_RISCV, 1, 0x80000000, 64, 0, 0, 64, 56, 0, 64, 0, 0)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    files = {
        "not_elf.bin": b"this is not an ELF file\n",
        "elf64.elf": elf64(),
        "x86.elf": elf32(machine=EM_386),
        "outside_smem.elf": elf32(segments=((0x80000000, b"\x13" * 4), (0x00001000, b"\x00" * 16))),
        "truncated.elf": elf32(segments=((0x80000000, b"\x13" * 64),), truncate=120),
        "no_segments.elf": elf32(segments=()),
    }
    for name, blob in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(blob)


if __name__ == "__main__":
    main()
