#!/usr/bin/env python3
"""Every tool's --json line is well-formed whatever the names in it hold (docs/command-line.md).

Usage: check_json_lines.py SCRATCH_DIR TRACE.csv STRATA-REPLAY [STRATA-COMPARE]

Copies TRACE.csv to a name with a quote, a backslash, a tab and a byte that is not UTF-8, runs
strata-replay --json on it (host and gpu-emu backends) and strata-compare --json - on it, and checks that
every line parses as JSON and names the trace (the byte that is not UTF-8 as U+FFFD).
"""
import json
import os
import shutil
import subprocess
import sys


def strings(value):
    """Every string in a JSON document, keys and values."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


def main():
    scratch, trace, replay = sys.argv[1:4]
    compare = sys.argv[4] if len(sys.argv) > 4 else None
    os.makedirs(scratch, exist_ok=True)
    name = b'q"uote\\back\tslash\xe9.csv'
    path = os.path.join(os.fsencode(scratch), name)
    shutil.copyfile(trace, path)
    expected = name.decode("utf-8", errors="replace")
    runs = [[os.fsencode(replay), path, b"--json"],
            [os.fsencode(replay), path, b"--json", b"--backend", b"gpu-emu", b"--policy", b"torch"]]
    if compare:
        runs.append([os.fsencode(compare), path, b"--json", b"-", b"--contenders", b"strata,jax", b"--no-search",
                     b"--quiet"])
    for argv in runs:
        out = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if out.returncode not in (0, 1):
            sys.exit(f"check_json_lines: {argv[0].decode()} exited {out.returncode}: {out.stderr.decode(errors='replace')}")
        lines = [l for l in out.stdout.decode("utf-8").splitlines() if l.strip()]
        if not lines:
            sys.exit(f"check_json_lines: {argv[0].decode()} printed nothing")
        for line in lines:
            doc = json.loads(line)  # raises on a malformed line
            if not any(expected in s for s in strings(doc)):
                sys.exit(f"check_json_lines: the trace's name {expected!r} is not in {line[:200]}")
    print(f"check_json_lines: {len(runs)} runs, every line well-formed")


if __name__ == "__main__":
    main()
