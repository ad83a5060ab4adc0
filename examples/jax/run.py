"""Compiles each program of programs.py with XLA's dump on, imports it into Strata and compares every allocator on
it (docs/jax.md shows the output). Run from the repository root after scripts/build.sh:

    XLA_FLAGS=--xla_force_host_platform_device_count=8 PYTHONPATH=build/python \
        STRATA_IMPORT_TOOL=build/host/workload/strata-import .venv/bin/python examples/jax/run.py [NAME...]

Prints, per program: logical buffers, memory_analysis() sizes, each row's peak over the lower bound (the optimality
gap), the TPU padding overhead and the import + comparison time; then the sharded per-device memory over 1, 2, 4, 8
devices and which TPU presets it fits.
"""
import csv
import io
import os
import sys
import time

try:
    import jax  # noqa: F401
except ImportError as e:  # CTest counts 77 as skipped
    print(f"skipped: JAX is not installed in this Python ({sys.executable}): {e}; run scripts/setup.sh")
    sys.exit(77)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import programs  # noqa: E402
import strata  # noqa: E402
import strata.workload  # noqa: E402

def mib(b):
    return f"{b / (1 << 20):.2f} MiB"


def summarize(name, make, search):
    fn, args, donate, *options = make()
    t0 = time.perf_counter()
    prog = strata.workload.from_jax(fn, *args, donate_argnums=donate, steps=3,
                                    compiler_options=options[0] if options else None)
    t1 = time.perf_counter()
    with prog:
        rows = list(csv.DictReader(io.StringIO(prog.import_csv())))
        padded = list(csv.DictReader(io.StringIO(prog.import_csv(tpu_pad=True))))
        t2 = time.perf_counter()
        report = prog.compare(search=search, capacity="1.0x")
        t3 = time.perf_counter()
    runs = {r["contender"]: r for r in report["table"]}
    bound = runs["lower-bound"]["peak_reserved_bytes"]

    def gap(name):
        r = runs.get(name)
        if r is None:
            return "-"
        if r.get("family") == "static":
            return f"{r['peak_reserved_bytes'] / bound:.3f}x"
        ratio = r.get("min_capacity_ratio")
        return f"{ratio:.3f}x" if isinstance(ratio, float) else "-"

    gpu = [c for c, r in runs.items() if r.get("family") == "gpu" and isinstance(r.get("min_capacity_ratio"), float)]
    best_gpu = min(gpu, key=lambda c: runs[c]["min_capacity_ratio"]) if gpu else None
    unpadded = sum(int(r["size"]) for r in rows)
    pad = sum(int(r["size"]) for r in padded)
    m = prog.memory
    print(f"{name}: {len(rows)} buffers in the temp allocation; args {mib(m['argument_size_in_bytes'])}, "
          f"outputs {mib(m['output_size_in_bytes'])} (aliased {mib(m['alias_size_in_bytes'])}), "
          f"temp {mib(m['temp_size_in_bytes'])}")
    print(f"  gap over the lower bound ({mib(bound)}): xla-static {gap('xla-static')}, offline-bfd "
          f"{gap('offline-bfd')}, strata {gap('strata')}, strata-no-compact {gap('strata-no-compact')}, "
          f"best GPU policy {best_gpu} {gap(best_gpu) if best_gpu else '-'}")
    print(f"  TPU padding: {mib(unpadded)} -> {mib(pad)} (+{100 * (pad - unpadded) / max(unpadded, 1):.1f}%)")
    print(f"  compile+dump {t1 - t0:.2f} s, import {t2 - t1:.2f} s, compare {t3 - t2:.2f} s")
    sys.stdout.flush()


def sharding(name, make, counts):
    import jax
    fn, args, donate, *_ = make()
    print(f"{name} sharded (first axes split over the devices): per-device memory")
    for d in counts:
        if d > len(jax.devices()):
            print(f"  {d} devices: skipped (JAX has {len(jax.devices())})")
            continue
        with strata.workload.from_jax(fn, *args, donate_argnums=donate, devices=d) as prog:
            m = prog.memory
            total = prog.device_bytes
            fits = list(prog.fits())
            print(f"  {d} devices: args {mib(m['argument_size_in_bytes'])}, temp {mib(m['temp_size_in_bytes'])}, "
                  f"per device {mib(total)}; fits {', '.join(fits) if fits else 'none'}")


def main():
    names = [a for a in sys.argv[1:] if not a.startswith("--")] or [p for p in programs.PROGRAMS
                                                                     if p != "transformer-xl"]
    search = "--no-search" not in sys.argv
    for name in names:
        summarize(name, programs.PROGRAMS[name], search)
    if "--no-sharding" not in sys.argv:
        sharding("mlp", programs.PROGRAMS["mlp"], (1, 2, 4, 8))


if __name__ == "__main__":
    main()
