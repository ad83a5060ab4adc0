#!/usr/bin/env python3
"""No two traces of a GTKWave save file show the same name. GTKWave shows a signal by its last dotted component
(the corner PEs' probes all read `a_q[7:0]`) unless the save file gives an alias (`+{name} full.path`).

usage: gtkw_names_test.py SAVEFILE..."""
import re
import sys


def shown_names(path):
    names = []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line[0] in "[*@^-#>":
                continue  # settings, comments, flags, filters, blank/comment traces, vectors
            m = re.match(r"\+\{([^}]*)\}\s+(\S+)$", line)
            if m:
                names.append((m.group(1), m.group(2)))
            else:
                names.append((line.split(".")[-1] if "." in line.split("[")[0] else line, line))
    return names


def main():
    bad = 0
    for path in sys.argv[1:]:
        seen = {}
        for shown, full in shown_names(path):
            if "." in shown:
                print(f"{path}: alias '{shown}' of {full} has a dot (GTKWave would show only what follows it)")
                bad += 1
            if shown in seen:
                print(f"{path}: '{shown}' shown for both {seen[shown]} and {full}")
                bad += 1
            seen[shown] = full
        print(f"{path}: {len(seen)} traces, distinct names")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
