"""Holds docs/runtime.md's table of measured replays on the model to what strata-replay prints now: for each trace
named, runs `strata-replay TRACE --backend sim --capacity 1.0x --compaction on-oom --json` (the table's command)
and compares every column of the trace's row but the wall time, which varies (docs/doc-tests.md).

usage: check_runtime_table.py --replay STRATA_REPLAY --traces DIR --doc docs/runtime.md TRACE...
Exit status 0: every row matched; 1: a column differs (each reported with the page's line); 2: bad usage, or the
page has no such table or row.
"""
import argparse
import json
import os
import subprocess
import sys

HEADER = ("trace", "failed", "allocs that compacted (plans)", "moves", "bytes moved", "copy cycles",
          "alloc cycles p50 / p99 / max", "free p50 / p99 / max", "wall")


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def table_rows(doc):
    """{trace: (line number, cells)} of the page's table whose header is HEADER."""
    with open(doc, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for i, line in enumerate(lines):
        if line.startswith("|") and tuple(cells(line)) == HEADER:
            rows = {}
            for j in range(i + 2, len(lines)):
                if not lines[j].startswith("|"):
                    break
                row = cells(lines[j])
                rows[row[0]] = (j + 1, row)
            return rows
    raise SystemExit(f"check_runtime_table: {doc}: no table with the header | {' | '.join(HEADER)} |")


def number(text):
    return int(text.replace(",", ""))


def expected_of(row):
    """The row's figures as the JSON fields they show."""
    compacted, _, plans = row[2].partition(" (")
    plans = plans or compacted  # "0": no allocation compacted, no plan made
    alloc = [number(x) for x in row[6].split("/")]
    free = [number(x) for x in row[7].split("/")]
    return {
        "device_failed_allocs": number(row[1]),
        "device_compaction_allocs": number(compacted),
        "device_compactions": number(plans.rstrip(")")),
        "device_moves": number(row[3]),
        "device_bytes_moved": number(row[4]),
        "compaction_cycles": number(row[5]),
        "device_cycles_per_alloc_p50": alloc[0],
        "device_cycles_per_alloc_p99": alloc[1],
        "device_cycles_per_alloc_max": alloc[2],
        "device_cycles_per_free_p50": free[0],
        "device_cycles_per_free_p99": free[1],
        "device_cycles_per_free_max": free[2],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--replay", required=True)
    parser.add_argument("--traces", required=True)
    parser.add_argument("--doc", required=True)
    parser.add_argument("trace", nargs="+")
    args = parser.parse_args()
    rows = table_rows(args.doc)
    failures = 0
    for trace in args.trace:
        if trace not in rows:
            raise SystemExit(f"check_runtime_table: {args.doc} has no row for {trace} (rows: {', '.join(rows)})")
        line, row = rows[trace]
        try:
            expected = expected_of(row)
        except (ValueError, IndexError) as e:
            raise SystemExit(f"check_runtime_table: {args.doc}:{line}: a row of numbers expected: {e}")
        command = [args.replay, os.path.join(args.traces, trace + ".csv"), "--backend", "sim", "--capacity", "1.0x",
                   "--compaction", "on-oom", "--json"]
        proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            print(f"{args.doc}:{line}: {trace}: strata-replay exited with {proc.returncode}: {proc.stderr.strip()}")
            failures += 1
            continue
        actual = json.loads(proc.stdout.strip().split("\n")[-1])
        wrong = [f"{k}: the page shows {v:,}, strata-replay prints {actual.get(k)!r}"
                 for k, v in expected.items() if actual.get(k) != v]
        for w in wrong:
            print(f"{args.doc}:{line}: {trace}: {w}")
        failures += bool(wrong)
        if not wrong:
            print(f"{trace}: all {len(expected)} figures match ({actual['wall_seconds']} s wall here, the page:"
                  f" {row[8]})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
