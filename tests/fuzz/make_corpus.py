#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (a few small valid inputs each) into tests/fuzz/corpus/<target>/.
The output is committed; rerun after a format changes. Standard library only. Usage:
  make_corpus.py [FIRMWARE.elf ...]   (real rv32 images to add to the ELF seeds, e.g. build/rv32/isa/isa_add.elf,
                                       best stripped of debug sections first)"""
import json
import os
import pickle
import shutil
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
SMEM = 0x80000000


def put(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def elf32(segments, symbols=(), entry=SMEM):
    """ELF32 RISC-V executable: one PT_LOAD per (address, bytes, memsz); a symbol table and string table
    with the given (name, value, info) symbols, so the loader's tohost and symbol paths run too."""
    ehsize, phsize, shsize = 52, 32, 40
    phoff = ehsize
    off = phoff + phsize * len(segments)
    phdrs, blobs = b"", b""
    for addr, blob, memsz in segments:
        phdrs += struct.pack("<IIIIIIII", 1, off + len(blobs), addr, addr, len(blob), memsz, 5, 4)
        blobs += blob
    body = phdrs + blobs
    strtab = b"\0" + b"".join(n.encode() + b"\0" for n, _, _ in symbols)
    symtab = struct.pack("<IIIBBH", 0, 0, 0, 0, 0, 0)
    pos = 1
    for name, value, info in symbols:
        symtab += struct.pack("<IIIBBH", pos, value, 0, info, 0, 1)
        pos += len(name) + 1
    symtab_off = ehsize + len(body)
    strtab_off = symtab_off + len(symtab)
    shoff = strtab_off + len(strtab)
    shdrs = bytes(shsize)  # SHN_UNDEF
    shdrs += struct.pack("<IIIIIIIIII", 0, 2, 0, 0, symtab_off, len(symtab), 2, 1, 4, 16)  # SHT_SYMTAB
    shdrs += struct.pack("<IIIIIIIIII", 0, 3, 0, 0, strtab_off, len(strtab), 0, 0, 1, 0)  # SHT_STRTAB
    ident = b"\x7fELF" + bytes([1, 1, 1]) + bytes(9)
    eh = ident + struct.pack("<HHIIIIIHHHHHH", 2, 243, 1, entry, phoff, shoff, 0, ehsize, phsize,
                             len(segments), shsize, 3, 0)
    return eh + body + symtab + strtab + shdrs


def npy(descr, shape, data, major=1):
    d = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, ", ".join(map(str, shape)) +
                                                                      ("," if len(shape) == 1 else ""))
    prefix = 10 if major == 1 else 12
    d += " " * ((64 - (prefix + len(d) + 1) % 64) % 64) + "\n"
    head = b"\x93NUMPY" + bytes([major, 0])
    head += struct.pack("<H" if major == 1 else "<I", len(d))
    return head + d.encode() + data


def main():
    shutil.rmtree(CORPUS, ignore_errors=True)

    # ELF: code only; code + data + bss with tohost and symbols; an image whose entry is not the first segment.
    nop = b"\x13\x00\x00\x00"
    glob_obj, glob_func = 0x11, 0x12  # STB_GLOBAL << 4 | STT_OBJECT / STT_FUNC
    put("elf_loader_fuzz", "code_only.elf", elf32([(SMEM, nop * 4, 16)]))
    put("elf_loader_fuzz", "tohost.elf", elf32([(SMEM, nop * 8, 32), (SMEM + 0x1000, b"\1\0\0\0", 64)],
                                               [("_start", SMEM, glob_func), ("tohost", SMEM + 0x1000, glob_obj),
                                                ("strata_runtime_header", SMEM + 0x1010, glob_obj)]))
    put("elf_loader_fuzz", "two_code.elf", elf32([(SMEM + 0x100, nop * 2, 8), (SMEM, nop, 4)],
                                                 [("main", SMEM + 0x100, glob_func)], entry=SMEM + 0x100))
    for path in sys.argv[1:]:
        with open(path, "rb") as f:
            put("elf_loader_fuzz", os.path.basename(path), f.read())

    # .npy: int8 and int32, format 1.0 and 2.0, an empty array, a spelling NumPy also writes ('<i1').
    put("npy_fuzz", "int8_2x3.npy", npy("|i1", (2, 3), bytes([1, 2, 3, 255, 128, 0])))
    put("npy_fuzz", "int32_2x2.npy", npy("<i4", (2, 2), struct.pack("<4i", 1, -2, 3, 1 << 30)))
    put("npy_fuzz", "int8_1x4_v2.npy", npy("<i1", (1, 4), b"\x01\x02\x03\x04", major=2))
    put("npy_fuzz", "int8_0x5.npy", npy("|i1", (0, 5), b""))

    # Trace CSV: the plain header; reordered and extra columns, blanks and CRLF; negative ids, reuse of times.
    put("trace_csv_fuzz", "plain.csv", "id,lower,upper,size\n0,0,3,256\n1,1,2,1024\n2,2,5,64\n")
    put("trace_csv_fuzz", "columns.csv", "size,upper,lower,id,name\r\n100,9,1,7,a\r\n\r\n200,4,3,-8,b\r\n")
    put("trace_csv_fuzz", "many.csv", "id,lower,upper,size\n" +
        "".join("%d,%d,%d,%d\n" % (i, i % 5, i % 5 + 1 + i % 3, 1 << (i % 12)) for i in range(24)))

    # PyTorch snapshots: the structure torch.cuda.memory._snapshot() returns, small.
    a = 0x7F0000000000
    frames = [{"filename": "train.py", "line": 42, "name": "step"}]
    def ev(action, addr, size, t):
        return {"action": action, "addr": addr, "size": size, "stream": 0, "time_us": t, "frames": frames}
    trace0 = [ev("segment_alloc", a, 2 << 20, 1), ev("alloc", a, 512, 2), ev("alloc", a + 512, 1000, 3),
              ev("free_requested", a, 512, 4), ev("free_completed", a, 512, 5), ev("alloc", a, 256, 6),
              ev("free_completed", a + 0x100000, 4096, 7), ev("free_requested", a + 0x200000, 64, 8),
              {"action": "oom", "device_free": 1024, "size": 3 << 20, "stream": 0, "time_us": 9, "frames": []}]
    trace1 = [ev("alloc", 0x1000, 100, 1), ev("free_completed", 0x1000, 100, 2)]
    blocks = [{"address": a, "size": 512, "requested_size": 256, "state": "active_allocated", "frames": frames},
              {"address": a + 512, "size": 1024, "requested_size": 1000, "state": "active_pending_free"},
              {"address": a + 1536, "size": (2 << 20) - 1536, "requested_size": 0, "state": "inactive"}]
    segments = [{"device": 0, "address": a, "total_size": 2 << 20, "allocated_size": 1536, "active_size": 1536,
                 "requested_size": 1256, "stream": 0, "segment_type": "large", "blocks": blocks}]
    snap = {"segments": segments, "device_traces": [trace0, trace1],
            "allocator_settings": {"expandable_segments": False, "max_split_size": -1}}
    state_only = {"segments": [{"device": 0, "address": 0x1000000, "total_size": 2 << 20, "stream": 0,
                                "blocks": [{"size": 512, "state": "active_allocated", "history": []},
                                           {"size": 2048, "state": "inactive", "history": []}]}],
                  "device_traces": [[]]}
    for protocol in (2, 3, 4):
        put("torch_pickle_fuzz", "snapshot_p%d.pickle" % protocol, pickle.dumps(snap, protocol=protocol))
    put("torch_pickle_fuzz", "state_only_p4.pickle", pickle.dumps(state_only, protocol=4))
    put("torch_pickle_fuzz", "values_p4.pickle",
        pickle.dumps([(1, 2), 2 ** 70, -1, 1.5, "é", b"xy", True, None, {"k": [], 7: "v"}], protocol=4))
    put("torch_json_fuzz", "snapshot.json", json.dumps(snap))
    put("torch_json_fuzz", "state_only.json", json.dumps(state_only))
    put("torch_json_fuzz", "segments_only.json", json.dumps(segments))  # a bare segment list
    put("torch_json_fuzz", "values.json", json.dumps({"device_traces": [[ev("alloc", 16, 2 ** 40, 1)]],
                                                      "x": [1.5e300, -0.0, "\u00e9\n", None, True, {}]}))

    # RMM logs: allocate / free / allocate failure, address reuse, frees of blocks from before logging.
    head = "Thread,Time,Action,Pointer,Size,Stream\n"
    put("rmm_log_fuzz", "basic.rmm.csv", head +
        "140,12:00:00.000001,allocate,0x7f0000000000,256,0x0\n"
        "140,12:00:00.000002,allocate,0x7f0000000100,512,0x0\n"
        "140,12:00:00.000003,free,0x7f0000000000,256,0x0\n"
        "140,12:00:00.000004,allocate failure,(nil),1099511627776,0x0\n"
        "140,12:00:00.000005,allocate,0x7F0000000000,128,0x0\r\n"
        "141,12:00:00.000006,free,0x7f00000ff000,64,0x1\n")
    put("rmm_log_fuzz", "columns.rmm.csv", "Time,Size,Pointer,Action,Thread,Stream,Extra\n"
        "1,64,0x10,allocate,1,0,x\n2,64,0x10,free,1,0,y\n3,32,0x10,allocate,1,0,z\n")

    # XLA protobufs: the HloProto dump and memory_analysis()'s BufferAssignmentProto of tests/xla's chain program.
    xla = os.path.join(HERE, "..", "xla", "data", "chain")
    for name in sorted(os.listdir(xla)):
        if name.endswith(".pb"):
            with open(os.path.join(xla, name), "rb") as f:
                put("xla_proto_fuzz", "hlo.pb" if name.endswith(".hlo.pb") else "memory_analysis.pb", f.read())

    # The decoder: a command (64 bytes) and the heap size (8 bytes) it is decoded against.
    def cmd(opcode, flags=0, context=0, seq=1, args=b""):
        return struct.pack("<BBHIII", opcode, flags, 0, context, seq, 0) + args.ljust(48, b"\0")
    heap = struct.pack("<Q", 3 << 20)
    put("runtime_decoder_fuzz", "alloc", cmd(3, 0, 0x101, 1, struct.pack("<QQ", 4096, 256)) + heap)
    put("runtime_decoder_fuzz", "write", cmd(5, 0, 0x101, 2, struct.pack("<QQII", 1, 0, 4096, 1)) + heap)
    put("runtime_decoder_fuzz", "gemm", cmd(9, 1, 0x101, 3, struct.pack("<QQQIIIiII", 1, 2, 3, 16, 16, 16, 3, 8, 0)) +
        heap)
    put("runtime_decoder_fuzz", "context", cmd(1, 0, 0, 4, struct.pack("<QII", 0, 500000, 0)) + heap)

    # The allocator harness: two configuration bytes, then an operation stream (any bytes are one).
    put("alloc_fuzz", "tlsf", bytes([0, 3]) + bytes(range(0, 256, 3)))
    put("alloc_fuzz", "best_fit", bytes([1, 0x42]) + bytes((i * 37) & 0xff for i in range(200)))
    put("alloc_fuzz", "first_fit_small", bytes([2, 0xf1]) + bytes((i * 11 + 5) & 0xff for i in range(120)))

    # The runtime: two bytes of HBM size, then host turns: [take, progress, batch - 1, commands...] where each
    # command is an opcode byte and its choices (runtime_fuzz.cc, BuildOne). One command per turn here.
    def turn(*cmds):
        return bytes([1, 3, len(cmds) - 1]) + b"".join(cmds)
    u16 = lambda v: struct.pack("<H", v)
    u32 = lambda v: struct.pack("<I", v)
    create = bytes([1, 0])
    def alloc(ctx, size, shift=0, align=None, no_compact=False):
        return bytes([3, ctx, shift | (0x40 if align is not None else 0) | (0x80 if no_compact else 0)]) + \
            u16(size) + (bytes([align]) if align is not None else b"")
    def xfer(op, ctx, buf, slot, offset, length):
        return bytes([op, ctx, buf, slot]) + u32(offset) + bytes([0 if length > 4096 else 1]) + u32(length - 1)
    write = lambda *a: xfer(6, *a)
    read = lambda *a: xfer(8, *a)
    free = lambda ctx, buf: bytes([5, ctx, buf])
    gemm = lambda ctx, a, b, c, flags, m: bytes([9, ctx, a, b, c, flags, m]) + u16(64)
    compact = bytes([10, 0, 0])
    stats = bytes([11, 1, 0])
    basic = b"\0\0" + turn(create) + turn(alloc(0, 4095)) + turn(alloc(0, 1000, 2)) + turn(alloc(0, 300)) + \
        turn(write(0, 0, 0, 0, 4096)) + turn(read(0, 0, 1, 0, 4096)) + turn(gemm(0, 0, 1, 2, 0, 4)) + \
        turn(read(0, 2, 2, 0, 300)) + turn(stats) + turn(free(0, 1)) + turn(compact) + turn(read(0, 0, 3, 8, 100)) + \
        turn(bytes([2, 0]))
    put("runtime_fuzz", "basic", basic)
    # Fill the heap with buffers, free every other one, write, then ask for more than any hole: defragment on OOM.
    frag = b"\x00\x00" + turn(create)
    for i in range(12):
        frag += turn(alloc(0, 0xffff, 2))  # 256 KiB each
    for i in range(0, 12, 2):
        frag += turn(free(0, i // 2 * 1))
    frag += turn(write(0, 0, 0, 0, 65536)) + turn(write(0, 0, 3, 1000, 5000))
    frag += turn(alloc(0, 0xffff, 4)) + turn(read(0, 0, 1, 0, 65536)) + turn(stats)
    put("runtime_fuzz", "defragment", frag)
    # Transfers in flight while the ring fills: several writes and reads in one batch, DMA held back.
    pipe = b"\x10\x00" + turn(create) + turn(create) + turn(alloc(0, 5000)) + turn(alloc(1, 6000))
    pipe += bytes([1, 0, 5]) + write(0, 0, 0, 0, 5000) + write(1, 0, 1, 0, 6000) + read(0, 0, 2, 0, 5000) + \
        read(1, 0, 3, 7, 10) + bytes([11, 0]) + compact
    pipe += bytes([0, 1, 0]) + bytes([0]) + turn(stats) + turn(read(0, 0, 0, 0, 5000))
    put("runtime_fuzz", "in_flight", pipe)
    # Raw commands: a FREE with another context's handle, a WRITE past the end, garbage.
    raw = lambda cmd, fix, pick: bytes([0xe0]) + cmd.ljust(64, b"\0") + bytes([fix, pick])
    hdr = lambda op, flags=0: struct.pack("<BBHIII", op, flags, 0, 0, 0, 0)
    raws = b"\x00\x00" + turn(create) + turn(create) + turn(alloc(0, 100)) + turn(alloc(1, 200)) + \
        turn(raw(hdr(4), 0x2b, 1)) + turn(raw(hdr(5) + struct.pack("<QQII", 0, 150, 100, 0), 0xab, 0)) + \
        turn(raw(bytes(range(64)), 0, 0)) + turn(raw(hdr(3) + struct.pack("<QQ", 64, 0), 0x0b, 0)) + turn(stats)
    put("runtime_fuzz", "raw", raws)
    put("runtime_fuzz", "small_hbm", b"\xff\x10" + turn(create))
    print("wrote", CORPUS)


if __name__ == "__main__":
    main()
