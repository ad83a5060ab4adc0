#!/usr/bin/env python3
"""A dump directory with a FIFO named like a module's buffer assignment (issue #45): strata-import, strata-compare and
strata-fit each refuse it at once, naming the file, where they used to block on it forever while choosing the module.
Each tool runs with a timeout, so a hang fails the test. Standard library only.
Usage: special_files.py DATA_DIR TOOL_COMMAND... (each TOOL_COMMAND one argument: the program and its options,
separated by '|'; the dump directory is appended)"""
import os
import shutil
import subprocess
import sys
import tempfile


def main():
    data, commands = sys.argv[1], sys.argv[2:]
    failed = False
    with tempfile.TemporaryDirectory(prefix="strata-xla-fifo-") as tmp:
        for name in os.listdir(data):
            if name.endswith(".txt"):
                shutil.copy(os.path.join(data, name), tmp)
        fifo = os.path.join(tmp, "z-buffer-assignment.txt")
        os.mkfifo(fifo)
        for command in commands:
            argv = command.split("|") + [tmp]
            tool = os.path.basename(argv[0])
            try:
                proc = subprocess.run(argv, capture_output=True, text=True, timeout=30)
            except subprocess.TimeoutExpired:
                print("%s: still running after 30 s (blocked on the FIFO?): FAILED" % tool)
                failed = True
                continue
            want = fifo + ": not a regular file (a FIFO)"
            ok = proc.returncode == 2 and want in proc.stderr
            print("%s: exit %d: %s" % (tool, proc.returncode, "ok" if ok else "FAILED"))
            if not ok:
                print("  wanted exit 2 and '%s'; stderr: %s" % (want, proc.stderr.strip()[:1000]))
            failed = failed or not ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
