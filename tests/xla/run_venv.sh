#!/bin/sh
# Runs a Python script with the project's virtual environment (scripts/setup.sh makes it); exits 77, which CTest
# counts as skipped, with the reason when there is none.
# usage: run_venv.sh VENV_PYTHON SCRIPT [ARGS...]
py=$1
shift
if [ ! -x "$py" ]; then
  echo "skipped: no $py (run scripts/setup.sh to create the project's .venv with JAX)"
  exit 77
fi
exec "$py" "$@"
