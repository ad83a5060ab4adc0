"""Both import routes on dumps made now, by the JAX of the project's .venv: make_dumps.py writes the known programs'
(programs.py) text and protobuf dumps, memory_analysis()'s serialized buffer assignment and its figures into a
temporary directory, and xla_import_test's per-program tests run on it (STRATA_XLA_DATA_DIR): the text route, the
*.hlo.pb route and memory_analysis()'s proto give the same allocations and workloads, with memory_analysis()'s
sizes. Exits 77 (skipped) when JAX is not installed there.

usage: .venv/bin/python tests/xla/live_routes.py XLA_IMPORT_TEST
"""
import os
import subprocess
import sys
import tempfile

try:
    import jax  # noqa: F401
except ImportError as e:  # CTest counts 77 as skipped, never as passed
    print(f"skipped: JAX is not installed in this Python ({sys.executable}): {e}; run scripts/setup.sh")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_dumps  # noqa: E402
import programs  # noqa: E402


def main():
    test = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="strata-xla-live-") as tmp:
        for name, (fn, args, donate, options) in programs.programs().items():
            print(name, make_dumps.dump(name, fn, args, donate, options, os.path.join(tmp, name)), flush=True)
        env = dict(os.environ, STRATA_XLA_DATA_DIR=tmp)
        return subprocess.run([test, "--gtest_filter=Xla/*"], env=env, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
