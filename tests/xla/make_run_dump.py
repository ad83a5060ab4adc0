"""Writes OUT/run_qmm/: XLA's optimized module of run_programs.int8_matmul (its text, without the FileNames and
StackFrames tables that hold this machine's paths), the buffer assignment of the same compile, args.npz (arr_0..)
and expected.npz (JAX's outputs on CPU, out_0..). tests/xla/data/run_qmm is this script's output, committed so that
strata-run's tests (test_run_cli.py) and docs/jax-on-the-model.md run without JAX.

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


def main():
    out = os.path.join(sys.argv[1], "run_qmm")
    os.makedirs(out, exist_ok=True)
    args = run_programs.int8_matmul_args(24, 80, 40)
    with tempfile.TemporaryDirectory() as tmp:
        jax.jit(run_programs.int8_matmul).lower(*args).compile(
            compiler_options={"xla_dump_to": tmp, "xla_dump_hlo_as_text": True})
        text, = glob.glob(os.path.join(tmp, "*.cpu_after_optimizations.txt"))
        name = os.path.basename(text)
        with open(text) as f:
            body = strip_tables(f.read())
        with open(os.path.join(out, name), "w") as f:
            f.write(body)
        shutil.copy(text[:-len(".txt")] + "-buffer-assignment.txt", out)
    np.savez(os.path.join(out, "args.npz"), *args)
    expected = jax.jit(run_programs.int8_matmul)(*args)
    np.savez(os.path.join(out, "expected.npz"), **{f"out_{i}": np.asarray(a) for i, a in enumerate(expected)})
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
