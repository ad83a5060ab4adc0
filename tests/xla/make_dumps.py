"""Writes the XLA dumps of tests/xla/programs.py: for each program, OUT/NAME/ holds the entry module's
*-buffer-assignment.txt, *-buffer-assignment-values.txt and *-live-range.txt, and memory.json with
memory_analysis()'s figures. tests/xla/data is this script's output, committed so that the parser tests run
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

KEEP = ("-buffer-assignment.txt", "-buffer-assignment-values.txt", "-live-range.txt")


def dump(name, fn, args, donate, options, out):
    with tempfile.TemporaryDirectory() as tmp:
        compiled = jax.jit(fn, donate_argnums=donate).lower(*args).compile(
            compiler_options={"xla_dump_to": tmp, **options})
        m = compiled.memory_analysis()
        files = [f for f in os.listdir(tmp) if f.endswith(KEEP)]
        os.makedirs(out, exist_ok=True)
        for f in files:
            shutil.copy(os.path.join(tmp, f), os.path.join(out, f))
    figures = {k: getattr(m, k) for k in ("argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes",
                                          "temp_size_in_bytes")}
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
