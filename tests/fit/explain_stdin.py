#!/usr/bin/env python3
"""Runs `strata-explain - ARGS...` with FILE on standard input and passes on its output and exit status: for the
expect-tests whose messages hold semicolons, which a CTest command line would split into several arguments.

usage: explain_stdin.py STRATA_EXPLAIN FILE [ARGS...]
"""
import subprocess
import sys

with open(sys.argv[2], "rb") as message:
    p = subprocess.run([sys.argv[1], "-", *sys.argv[3:]], stdin=message, capture_output=True, timeout=60)
sys.stdout.buffer.write(p.stdout)
sys.stderr.buffer.write(p.stderr)
sys.exit(p.returncode)
