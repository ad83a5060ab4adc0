"""Writes OUT/run_qmm/ (run_programs.int8_matmul) and OUT/run_fragmenting_24/, _30/ (run_programs.fragmenting with 24
and 30 rows): XLA's optimized module (its text, without the FileNames and StackFrames tables that hold this machine's
paths) and the buffer assignment of the same compile; for run_qmm also args.npz (arr_0..) and expected.npz (JAX's
outputs on CPU, out_0..). The fragmenting programs' arguments are a megabyte: their users make them
(run_programs.fragmenting_args, numpy only).
tests/xla/data/run_* is this script's output, committed so that strata-run's tests (test_run_cli.py) and
docs/jax-on-the-model.md run without JAX.

usage: .venv/bin/python tests/xla/make_run_dump.py OUT
"""
import glob
import os
import re
import shutil
import sys
import tempfile

import jax
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_programs  # noqa: E402


def strip_tables(text):
    """The module text without the source-location tables between its header and its first computation."""
    text = re.sub(r"\n(FileNames|FunctionNames|FileLocations|StackFrames)\n(?:[^\n]+\n)*", "\n", text)
    return re.sub(r"\n{3,}", "\n\n", text)


PROGRAMS = {
    "run_qmm": (run_programs.int8_matmul, run_programs.int8_matmul_args(24, 80, 40), {}),
    "run_fragmenting_24": (run_programs.fragmenting, run_programs.fragmenting_args(24),
                           run_programs.FRAGMENTING_OPTIONS),
    "run_fragmenting_30": (run_programs.fragmenting, run_programs.fragmenting_args(30),
                           run_programs.FRAGMENTING_OPTIONS),
}


def write(out, fn, args, options, data):
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        jax.jit(fn).lower(*args).compile(
            compiler_options={"xla_dump_to": tmp, "xla_dump_hlo_as_text": True, **options})
        text, = glob.glob(os.path.join(tmp, "*.cpu_after_optimizations.txt"))
        name = os.path.basename(text)
        with open(text) as f:
            body = strip_tables(f.read())
        with open(os.path.join(out, name), "w") as f:
            f.write(body)
        shutil.copy(text[:-len(".txt")] + "-buffer-assignment.txt", out)
    if not data:
        print(f"wrote {out}")
        return
    np.savez(os.path.join(out, "args.npz"), *args)
    expected = jax.tree.leaves(jax.jit(fn)(*args))
    np.savez(os.path.join(out, "expected.npz"), **{f"out_{i}": np.asarray(a) for i, a in enumerate(expected)})
    print(f"wrote {out}")


def main():
    for name, (fn, args, options) in PROGRAMS.items():
        write(os.path.join(sys.argv[1], name), fn, args, options, data=name == "run_qmm")


if __name__ == "__main__":
    main()
