#!/usr/bin/env bash
# Installs the Debian 12 packages Strata needs to build and run (the main job and every tool: about 1.5 GB, a few
# minutes the first time). With --python it also makes the project's own Python virtual environment .venv/ with JAX
# for CPU, TensorFlow's compiled BFC allocator and Selenium (about 1.9 GB from PyPI, 5-10 minutes the first time),
# and Debian's chromium, which only the tests use (docs/jax.md's JAX tests, fidelity.bfc.*, compare.html_browser), and
# PyTorch's torch/cuda/_memory_viz.py out of its wheel (compare.memory_viz_pytorch):
# scripts/test.sh asks for them, scripts/run.sh does not. STRATA_NO_VENV=1 leaves them out.
# Idempotent; silent when all is present.
# usage: scripts/setup.sh [--python]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
with_venv=0
for arg in "$@"; do
  case "$arg" in
    --python) with_venv=1 ;;
    -h|--help) sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup: unknown argument '$arg' (usage: scripts/setup.sh [--python])" >&2; exit 2 ;;
  esac
done
[ "${STRATA_NO_VENV:-0}" = 1 ] && with_venv=0

packages=(
  build-essential cmake ninja-build pkg-config python3
  ccache  # scripts/compiler-cache.sh
  verilator libsystemc-dev zlib1g-dev
  gcc-riscv64-unknown-elf binutils-riscv64-unknown-elf
  googletest libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libcli11-dev
  clang libclang-rt-14-dev clang-format
  gtkwave xvfb x11-apps x11-utils imagemagick  # scripts/waveform-screenshot.sh and its tests (docs.screenshot.*)
  python3-matplotlib  # scripts/plot_compare.py, run with /usr/bin/python3
  parallel            # strata-compare --emit-jobs sweeps (tests/compare/parallel_merge.sh)
  python3-dev pybind11-dev python3-numpy  # import strata (python/)
  python3-venv python3-pip  # .venv/ (below)
)
# Only the tests (--python): Debian's chromium, which opens strata-compare --html's page headless in test
# compare.html_browser (driven by Selenium from .venv, below).
if [ "$with_venv" = 1 ]; then
  packages+=(chromium chromium-driver)
fi

# JAX in a virtual environment the project owns (never the machine's Python). The version is pinned so that the
# committed XLA dumps (tests/xla/data) and docs/jax.md's figures stay reproducible. Without PyPI the JAX tests skip.
jax_version=0.10.2
# The same venv builds the Python package the way pip does (pyproject.toml: scikit-build-core and pybind11, used
# with --no-build-isolation by test python.wheel), and keeps the wheels a fresh venv needs to install strata without
# the network in .venv/wheelhouse (NumPy, as in .venv).
build_tools=(scikit-build-core==1.1.2 pybind11==3.1.0)
venv() {
  local py="$root/.venv/bin/python" stamp="$root/.venv/strata-jax-$jax_version"
  local wheel_stamp="$root/.venv/strata-wheel-tools-${build_tools[*]// /-}"
  if ! { [ -x "$py" ] && [ -f "$stamp" ]; }; then
    echo "setup: creating .venv with jax[cpu]==$jax_version (for the tests; about 1 GB from PyPI, a few minutes)" >&2
    if ! { /usr/bin/python3 -m venv "$root/.venv" >&2 &&
           "$py" -m pip install -q --disable-pip-version-check "jax[cpu]==$jax_version" >&2 && touch "$stamp"; }; then
      echo "setup: warning: could not install jax into .venv (the JAX tests will skip)" >&2
      return 0
    fi
  fi
  [ -f "$wheel_stamp" ] && return 0
  echo "setup: adding ${build_tools[*]} to .venv and NumPy's wheel to .venv/wheelhouse" >&2
  local numpy
  if ! { "$py" -m pip install -q --disable-pip-version-check "${build_tools[@]}" >&2 &&
         numpy=$("$py" -c 'import numpy; print(numpy.__version__)') &&
         "$py" -m pip download -q --disable-pip-version-check --only-binary=:all: --no-deps \
           -d "$root/.venv/wheelhouse" "numpy==$numpy" >&2 && touch "$wheel_stamp"; }; then
    echo "setup: warning: could not add the wheel build tools to .venv (test python.wheel will skip)" >&2
  fi
}

# venv_pkg NAME VERSION WHAT SKIPS [PIP-ARGUMENTS...]: NAME==VERSION into .venv once (a stamp file remembers it);
# WHAT says what it is for, SKIPS which tests skip without it.
venv_pkg() {
  local name=$1 version=$2 what=$3 skips=$4
  shift 4
  local py="$root/.venv/bin/python" stamp="$root/.venv/strata-$name-$version"
  [ -f "$stamp" ] && return 0
  [ -x "$py" ] || return 0
  echo "setup: installing $name==$version into .venv ($what)" >&2
  if "$py" -m pip install -q --disable-pip-version-check "$@" "$name==$version" >&2; then
    touch "$stamp"
  else
    echo "setup: warning: could not install $name into .venv ($skips will skip)" >&2
  fi
}

# TensorFlow's compiled BFC allocator (libtensorflow_framework.so.2 and its headers), the reference the
# fidelity.bfc.* tests replay traces through beside the emulated jax/tf policies (docs/gpu-policies.md). Only the
# library is used, never `import tensorflow`, so the wheel goes in without its Python dependencies (which would
# move the numpy that jax is pinned with). Pinned: the docs name this version's rules. Without PyPI those tests skip.
tf_wheel() {
  venv_pkg tensorflow-cpu 2.21.0 "its BFC allocator, for fidelity.bfc.*" "fidelity.bfc.*" --no-deps
}

# (Installed before tensorflow-cpu: pip's resolver, run for selenium, would list the dependencies tensorflow-cpu was
# installed without as conflicts, under an ERROR heading, though nothing is wrong.)
# Selenium drives Debian's chromium (through chromium-driver, above) in test compare.html_browser, which opens
# strata-compare --html's page headless. Pinned, as the rest of .venv; without PyPI that test skips.
selenium_pkg() {
  venv_pkg selenium 4.51.0 "for compare.html_browser" "compare.html_browser"
}

# PyTorch's reader of memory snapshots, torch/cuda/_memory_viz.py, which test compare.memory_viz_pytorch runs on
# strata-compare --memory-viz's exports. It imports only Python's standard library, so the one file is taken out of
# the torch wheel into .venv/share/strata/memory_viz/ (with its version in VERSION) and torch is never installed: the
# wheel fetched is macOS's (80 MB, CPU only; the file is the same pure Python in every wheel of a release), not Linux's
# (a CUDA build of about 900 MB). Pinned: 2.11.0 is the newest release with a CPython 3.11 wheel for macOS on arm64.
# Without PyPI that test skips.
torch_memory_viz_version=2.11.0
memory_viz_file() {
  local py="$root/.venv/bin/python" dir="$root/.venv/share/strata/memory_viz"
  local stamp="$root/.venv/strata-torch-memory-viz-$torch_memory_viz_version"
  [ -f "$stamp" ] && return 0
  [ -x "$py" ] || return 0
  echo "setup: taking torch/cuda/_memory_viz.py out of torch==$torch_memory_viz_version's wheel into .venv (for" \
    "compare.memory_viz_pytorch; an 80 MB download, torch is not installed)" >&2
  local tmp
  tmp=$(mktemp -d)
  if "$py" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: --platform macosx_11_0_arm64 \
       --python-version 3.11 -d "$tmp" "torch==$torch_memory_viz_version" >&2 &&
     "$py" - "$tmp" "$dir" "$torch_memory_viz_version" <<'PY' >&2 && touch "$stamp"; then
import glob, os, sys, zipfile
tmp, out, version = sys.argv[1:]
(wheel,) = glob.glob(os.path.join(tmp, "torch-*.whl"))
os.makedirs(out, exist_ok=True)
with zipfile.ZipFile(wheel) as z:
    text = z.read("torch/cuda/_memory_viz.py")
with open(os.path.join(out, "_memory_viz.py"), "wb") as f:
    f.write(text)
with open(os.path.join(out, "VERSION"), "w") as f:
    f.write(version + "\n")
PY
    :
  else
    echo "setup: warning: could not take _memory_viz.py out of torch's wheel (compare.memory_viz_pytorch will" \
      "skip)" >&2
  fi
  rm -rf "$tmp"
}

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  [ "$with_venv" = 0 ] || { venv; selenium_pkg; tf_wheel; memory_viz_file; }
  exit 0
fi

echo "setup: installing ${#missing[@]} Debian packages with apt-get (about 1.5 GB and a few minutes on a new" \
  "machine; once): ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
[ "$with_venv" = 0 ] || { venv; selenium_pkg; tf_wheel; memory_viz_file; }
