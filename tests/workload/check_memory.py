#!/usr/bin/env python3
"""Checks the importer's resident-memory bounds (docs/workloads.md, "Work and memory"): strata-import's peak
RSS on the densest inputs make_amplifiers.py writes stays under 64x the file plus 32 MiB.
Usage: check_memory.py STRATA_IMPORT OUTDIR"""
import os
import subprocess
import sys

PER_BYTE = 64
BASE = 32 << 20


def peak_rss(argv):
    """Runs argv; returns (exit status, its own peak RSS in bytes) from wait4, which reports that child alone."""
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, usage.ru_maxrss * 1024, proc.stderr.read().decode(errors="replace")


def main():
    tool, outdir = sys.argv[1], sys.argv[2]
    # Written by a separate process: a child's peak RSS counts the pages it shared with this one at fork, so
    # this process stays small.
    here = os.path.dirname(os.path.abspath(__file__))
    shapes = ["amp_empty_dicts.pickle", "amp_one_byte_dicts.pickle", "amp_repeated_entry.pickle",
              "amp_dense_events.pickle", "amp_distinct_labels.pickle", "amp_empty_dicts.json"]
    subprocess.run([sys.executable, os.path.join(here, "make_amplifiers.py"), outdir, "2"] + shapes, check=True)
    failed = False
    for name in shapes:
        path = os.path.join(outdir, name)
        size = os.path.getsize(path)
        rc, rss, err = peak_rss([tool, path, "--summary"])
        bound = PER_BYTE * size + BASE
        ok = rc == 0 and rss <= bound
        print("%s: %d bytes, peak RSS %d (%.1fx), bound %d: %s" %
              (name, size, rss, rss / size, bound, "ok" if ok else "FAILED"))
        if rc != 0:
            print("  exit %d: %s" % (rc, err.strip()))
        failed = failed or not ok
    for name in os.listdir(outdir):
        if name.startswith("amp_"):
            os.remove(os.path.join(outdir, name))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
