#!/usr/bin/env python3
"""A benchmark runs to the end and every line it prints on stdout is one JSON object naming its bench.

Usage: check_bench_lines.py MIN_LINES -- CMD [ARGS...]

A benchmark is run only when someone wants its figures (scripts/bench.sh); this smoke test, at a small
size, catches a crash or a malformed line before then. Progress on stderr is passed through.
"""
import json
import subprocess
import sys


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit(__doc__)
    min_lines = int(sys.argv[1])
    cmd = sys.argv[3:]
    run = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, errors="replace")
    if run.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited with {run.returncode}")
    lines = run.stdout.splitlines()
    for n, line in enumerate(lines, 1):
        try:
            value = json.loads(line)
        except json.JSONDecodeError as e:
            sys.exit(f"FAIL: line {n} is not JSON ({e}): {line[:200]}")
        if not isinstance(value, dict) or not isinstance(value.get("bench"), str):
            sys.exit(f"FAIL: line {n} is not an object with a \"bench\" name: {line[:200]}")
    if len(lines) < min_lines:
        sys.exit(f"FAIL: {len(lines)} result lines, expected at least {min_lines}")
    print(f"check_bench_lines: {len(lines)} lines, every one a JSON object naming its bench")


if __name__ == "__main__":
    main()
