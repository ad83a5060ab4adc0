"""XLA import and full comparison time for each JAX example (examples/jax/programs.py), on both dump routes: one
JSON object per program and route. Run from the repository root after scripts/build.sh:

    PYTHONPATH=build/python STRATA_IMPORT_TOOL=build/host/workload/strata-import \
        .venv/bin/python bench/xla/import_compare.py [NAME...]      (default: every program, transformer-xl too)

Fields: program, route (text: *-buffer-assignment.txt + live ranges; proto: the *.hlo.pb HloProto), logical
buffers in the module, buffers in the executable view, compile_s (jit + dump, once per program), import_s
(strata-import of the executable view to CSV, a process), compare_s (strata.compare in-process: import plus every
contender with the capacity search), rows (contenders compared). docs/jax.md quotes the figures; the >= 10k-buffer
transformer-xl must import and compare in <= 10 s.
"""
import csv
import io
import json
import os
import sys
import time

try:
    import jax  # noqa: F401
except ImportError as e:
    print(f"skipped: JAX is not installed in this Python ({sys.executable}): {e}; run scripts/setup.sh")
    sys.exit(77)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "jax"))
import programs  # noqa: E402
import strata.workload  # noqa: E402


def logical_buffers(assignment):
    with open(assignment) as f:
        return sum(line.startswith(" value: ") for line in f)


def main():
    names = sys.argv[1:] or list(programs.PROGRAMS)
    for name in names:
        fn, args, donate, *options = programs.PROGRAMS[name]()
        t0 = time.perf_counter()
        prog = strata.workload.from_jax(fn, *args, donate_argnums=donate, steps=3,
                                        compiler_options=options[0] if options else None)
        compile_s = time.perf_counter() - t0
        with prog:
            values = logical_buffers(prog.assignment)
            for route in ("text", "proto"):
                t1 = time.perf_counter()
                rows = list(csv.DictReader(io.StringIO(prog.import_csv(route=route))))
                t2 = time.perf_counter()
                report = prog.compare(route=route, capacity="1.0x", search=True)
                t3 = time.perf_counter()
                print(json.dumps({"bench": "xla_import_compare", "program": name, "route": route,
                                  "logical_buffers": values, "buffers": len(rows), "compile_s": round(compile_s, 2),
                                  "import_s": round(t2 - t1, 3), "compare_s": round(t3 - t2, 3),
                                  "rows": len(report["table"])}), flush=True)


if __name__ == "__main__":
    main()
