"""python.wheel: `pip wheel .` over the repository, then the wheel installed into a fresh virtual environment with
its NumPy from PyPI's wheel, and used from there as a pip user would: import strata, a GEMM on gpu-emu, a replay,
and the console scripts strata-replay, strata-compare and strata-import.

No network: the wheel is built with --no-build-isolation by the project's .venv (scikit-build-core and pybind11,
installed there by scripts/setup.sh) and the fresh venv installs with --no-index from the wheel just built and
.venv/wheelhouse (NumPy). Without those it exits 77 (skipped) and says what is missing.

usage: wheel_test.py SOURCE_DIR WORK_DIR (WORK_DIR/build is the CMake build directory, kept for the next run)
"""
import json
import os
import shutil
import subprocess
import sys

SKIP = 77


def run(cmd, **kw):
    print("+", " ".join(cmd), flush=True)
    return subprocess.run(cmd, check=True, **kw)


def main():
    source, work = (os.path.abspath(a) for a in sys.argv[1:3])
    venv_python = os.path.join(source, ".venv", "bin", "python")
    wheelhouse = os.path.join(source, ".venv", "wheelhouse")
    if not os.access(venv_python, os.X_OK):
        print(f"skipped: no {venv_python} (scripts/setup.sh creates it; it needs PyPI once)")
        return SKIP
    probe = subprocess.run([venv_python, "-c", "import scikit_build_core, pybind11"], capture_output=True)
    if probe.returncode != 0:
        print("skipped: .venv has no scikit-build-core or pybind11 (scripts/setup.sh installs them; it needs PyPI once)")
        return SKIP
    if not os.path.isdir(wheelhouse) or not any(f.startswith("numpy-") for f in os.listdir(wheelhouse)):
        print(f"skipped: no NumPy wheel in {wheelhouse} (scripts/setup.sh downloads it; it needs PyPI once)")
        return SKIP

    dist, fresh = os.path.join(work, "dist"), os.path.join(work, "fresh-venv")
    for d in (dist, fresh):
        shutil.rmtree(d, ignore_errors=True)
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
    env.pop("PYTHONPATH", None)
    run([venv_python, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-index", "-w", dist,
         f"--config-settings=build-dir={os.path.join(work, 'build')}", source], env=env)
    wheels = [f for f in os.listdir(dist) if f.startswith("strata-") and f.endswith(".whl")]
    assert len(wheels) == 1, wheels

    run(["/usr/bin/python3", "-m", "venv", fresh], env=env)
    python = os.path.join(fresh, "bin", "python")
    run([python, "-m", "pip", "install", "-q", "--no-index", "--find-links", dist, "--find-links", wheelhouse,
         "strata"], env=env)

    # From an empty folder, so that nothing of the source tree or the build tree can be imported by accident.
    cwd = os.path.join(work, "cwd")
    os.makedirs(cwd, exist_ok=True)
    trace = os.path.join(source, "tests", "data", "traces", "resnet50.csv")
    check = r"""
import os, sys
import numpy as np
import strata
venv = os.path.realpath(sys.argv[1])
for module in (strata, strata._strata, strata._tools, np):
    assert os.path.realpath(module.__file__).startswith(venv), module.__file__
with open("/proc/self/maps") as f:
    libs = {line.split()[-1] for line in f if "libstrata.so" in line}
assert libs and all(os.path.realpath(lib).startswith(venv) for lib in libs), libs
with strata.open("gpu-emu", policy="torch", total_bytes=64 << 20, context_bytes=0) as dev:
    a = np.arange(12, dtype=np.int8).reshape(3, 4)
    assert (dev.gemm(a, a.T.copy()) == a.astype(np.int64) @ a.T.astype(np.int64)).all()
with open(sys.argv[2]) as f:
    buffers = sum(1 for line in f if line.strip() and not line.startswith("#")) - 1  # less the header
r = strata.replay(sys.argv[2], backend="gpu-emu", policy="torch", capacity="1.0x")
assert r["allocs"] == buffers and r["failed_allocs"] > 0, r  # PyTorch's policy fragments at 1.0x (docs/python.md)
print(json.dumps(r, sort_keys=True))
"""
    check = "import json\n" + check
    module_json = run([python, "-c", check, fresh, trace], env=env, cwd=cwd, capture_output=True,
                      text=True).stdout
    print("import strata from the fresh venv:", module_json[:200])
    bindir = os.path.join(fresh, "bin")
    # Exit status 1: allocations failed (strata-replay's rule), as the module's failed_allocs says.
    replay_cli = subprocess.run([os.path.join(bindir, "strata-replay"), trace, "--backend", "gpu-emu", "--policy",
                                 "torch", "--capacity", "1.0x", "--json"], env=env, cwd=cwd, capture_output=True,
                                text=True)
    assert replay_cli.returncode == 1, (replay_cli.returncode, replay_cli.stderr)
    out = replay_cli.stdout
    # The console script runs the same replay as the module: the same object (wall time aside).
    cli, module = json.loads(out.strip().split("\n")[-1]), json.loads(module_json)
    for d in (cli, module):
        for k in [k for k in d if "wall" in k or "seconds" in k]:
            del d[k]
    assert cli == module, (cli, module)
    for tool in ("strata-compare", "strata-import"):
        help_text = run([os.path.join(bindir, tool), "--help"], env=env, cwd=cwd, capture_output=True,
                        text=True).stdout
        assert "usage" in help_text.lower(), help_text
    # A bad argument: the tool's own message and exit status come through the console script.
    bad = subprocess.run([os.path.join(bindir, "strata-replay"), os.path.join(cwd, "no-such.csv")], env=env, cwd=cwd,
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "no-such.csv" in bad.stderr, (bad.returncode, bad.stderr)
    print("python.wheel: built", wheels[0], "and used it from a fresh venv")
    return 0


if __name__ == "__main__":
    sys.exit(main())
