"""Writes the XLA dumps of tests/xla/programs.py: for each program, OUT/NAME/ holds the entry module's
*-buffer-assignment.txt, *-buffer-assignment-values.txt and *-live-range.txt, its *.hlo.pb (the HloProto with the
buffer assignment and the heap-simulator trace), memory-analysis.pb (memory_analysis()'s
serialized_buffer_assignment_proto) and memory.json with memory_analysis()'s figures. tests/xla/data is this script's output, committed so that the parser tests run
without JAX.

usage: .venv/bin/python tests/xla/make_dumps.py OUT
"""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jax  # noqa: E402
import programs  # noqa: E402

KEEP = ("-buffer-assignment.txt", "-buffer-assignment-values.txt", "-live-range.txt", "after_optimizations.hlo.pb")
# Both dumps, text and protobuf, from the one compile.
DUMP = {"xla_dump_hlo_as_text": True, "xla_dump_hlo_as_proto": True}


def _varint(data, at):
    value, shift = 0, 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def _encode_varint(value):
    out = bytearray()
    while True:
        out.append((value & 0x7F) | (0x80 if value > 0x7F else 0))
        value >>= 7
        if not value:
            return bytes(out)


def _fields(data):
    """(field number, the field's bytes whole, payload or None) of one protobuf message, by the wire format."""
    at = 0
    while at < len(data):
        start = at
        tag, at = _varint(data, at)
        kind, payload = tag & 7, None
        if kind == 0:
            _, at = _varint(data, at)
        elif kind == 1:
            at += 8
        elif kind == 5:
            at += 4
        elif kind == 2:
            n, at = _varint(data, at)
            payload, at = data[at:at + n], at + n
        else:
            raise ValueError(f"wire type {kind}")
        yield tag >> 3, data[start:at], payload


def strip_stack_frames(hlo_proto):
    """The HloProto without its module's stack_frame_index (hlo.proto: HloProto.hlo_module = 1,
    HloModuleProto.stack_frame_index = 17): it holds this machine's paths of the Python files."""
    out = bytearray()
    for number, whole, payload in _fields(hlo_proto):
        if number == 1 and payload is not None:
            module = b"".join(w for n, w, _ in _fields(payload) if n != 17)
            whole = b"\x0a" + _encode_varint(len(module)) + module
        out += whole
    return bytes(out)


def dump(name, fn, args, donate, options, out):
    with tempfile.TemporaryDirectory() as tmp:
        compiled = jax.jit(fn, donate_argnums=donate).lower(*args).compile(
            compiler_options={"xla_dump_to": tmp, **DUMP, **options})
        m = compiled.memory_analysis()
        entry = [f for f in os.listdir(tmp) if f.endswith("-buffer-assignment.txt")]
        module = max(entry, key=lambda f: os.path.getsize(os.path.join(tmp, f))).split("-buffer-assignment")[0]
        files = [f for f in os.listdir(tmp) if f.startswith(module) and f.endswith(KEEP)]
        os.makedirs(out, exist_ok=True)
        for f in files:
            if f.endswith(".pb"):
                with open(os.path.join(tmp, f), "rb") as src, open(os.path.join(out, f), "wb") as dst:
                    dst.write(strip_stack_frames(src.read()))
            else:
                shutil.copy(os.path.join(tmp, f), os.path.join(out, f))
        with open(os.path.join(out, "memory-analysis.pb"), "wb") as f:
            f.write(m.serialized_buffer_assignment_proto)
    figures = {k: getattr(m, k) for k in ("argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes",
                                          "temp_size_in_bytes", "peak_memory_in_bytes")}
    figures["jax"] = jax.__version__
    with open(os.path.join(out, "memory.json"), "w") as f:
        json.dump(figures, f, indent=1, sort_keys=True)
        f.write("\n")
    return figures


def main():
    out = sys.argv[1]
    for name, (fn, args, donate, options) in programs.programs().items():
        print(name, dump(name, fn, args, donate, options, os.path.join(out, name)))


if __name__ == "__main__":
    main()
