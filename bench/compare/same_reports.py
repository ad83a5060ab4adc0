#!/usr/bin/env python3
"""Holds one strata-compare to another, report by report: the table, the --json report and the --csv rows of each
trace, byte for byte, with only the wall-clock figures masked (the table's wall column, the JSON's and the CSV's
wall_seconds). For a change that must not move any output (issue [Q] item 1, the runner): build the tool before and
after, then

    python3 bench/compare/same_reports.py --baseline OLD/strata-compare --tool NEW/strata-compare TRACE.csv...

One JSON line per trace and output ("table", "json", "csv"), with "same" and, when they differ, the first line that
does; exit status 1 when any differs, 2 on bad usage or a tool that failed. Extra strata-compare options go after
--: `... TRACE.csv -- --option page_bytes=4096`. Nothing runs through a shell.

Tenant runs (strata-compare --tenant): with --tenants each argument is one run, its tenants comma-separated,

    python3 bench/compare/same_reports.py --baseline OLD --tool NEW --tenants jax:A.csv,tf:B.csv torch:A.csv,torch:C.csv
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

# The table's last column: the contender's wall time, "0.00 s".
WALL_COLUMN = re.compile(r"\s\d+\.\d+ s$")


def masked_table(text):
    return "\n".join(WALL_COLUMN.sub(" <wall> s", line) for line in text.split("\n"))


def masked_json(text):
    def drop(value):
        if isinstance(value, dict):
            return {k: ("<wall>" if k == "wall_seconds" else drop(v)) for k, v in value.items()}
        if isinstance(value, list):
            return [drop(v) for v in value]
        return value

    return json.dumps(drop(json.loads(text)), indent=1, sort_keys=False)


def masked_csv(text):
    lines = text.split("\n")
    if not lines or not lines[0]:
        return text
    header = lines[0].split(",")
    if header[-1] != "wall_seconds":
        return text
    return "\n".join([lines[0]] + [line.rsplit(",", 1)[0] + ",<wall>" if line else line for line in lines[1:]])


def workload_args(trace, tenants):
    """strata-compare's arguments for one run: the trace, or with tenants one --tenant per POLICY:TRACE."""
    if not tenants:
        return [trace]
    args = []
    for tenant in trace.split(","):
        args += ["--tenant", tenant]
    return args


def tenant_files(run_text):
    """The trace files of a --tenants run ("jax:A.csv,tf:B.csv"); None when a tenant is not POLICY:FILE."""
    files = []
    for tenant in run_text.split(","):
        policy, sep, path = tenant.partition(":")
        if not policy or not sep or not path:
            return None
        files.append(path)
    return files


def run(tool, trace, extra, work, label, tenants=False):
    json_path = os.path.join(work, label + ".json")
    csv_path = os.path.join(work, label + ".csv")
    argv = [tool] + workload_args(trace, tenants) + ["--cuda", "off", "--json", json_path, "--csv", csv_path] + extra
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode not in (0, 1):  # 1: a contender failed at the capacity, a report all the same
        sys.stderr.write(f"same_reports: {tool} {trace} exited {done.returncode}: {done.stderr}")
        sys.exit(2)
    with open(json_path, encoding="utf-8") as f:
        report_json = f.read()
    with open(csv_path, encoding="utf-8") as f:
        report_csv = f.read()
    return {
        "table": masked_table(done.stdout + done.stderr),
        "json": masked_json(report_json),
        "csv": masked_csv(report_csv),
    }


def first_difference(a, b):
    for n, (x, y) in enumerate(zip(a.split("\n"), b.split("\n")), start=1):
        if x != y:
            return {"line": n, "baseline": x, "tool": y}
    return {"line": min(a.count("\n"), b.count("\n")) + 1, "baseline": "<end>", "tool": "<end>"}


def split_extra(argv):
    """(the script's own arguments, the strata-compare options after --)."""
    if "--" not in argv:
        return argv, []
    return argv[:argv.index("--")], argv[argv.index("--") + 1:]


def tenant_run_name(run):
    """"jax:A.csv,tf:B.csv" for the run "jax:/path/A.csv,tf:/path/B.csv"."""
    return ",".join(t.split(":", 1)[0] + ":" + os.path.basename(t.split(":", 1)[1]) for t in run.split(","))


def main():
    argv, extra = split_extra(sys.argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="the strata-compare before the change")
    parser.add_argument("--tool", required=True, help="the strata-compare after it")
    parser.add_argument("--tenants", action="store_true",
                        help="each argument is a tenant run: POLICY:TRACE,POLICY:TRACE,...")
    parser.add_argument("traces", nargs="+", help="trace files (CSV or any format strata-compare reads)")
    args = parser.parse_args(argv)
    for tool in (args.baseline, args.tool):
        if not (os.path.isfile(tool) and os.access(tool, os.X_OK)):
            parser.error(f"'{tool}' is not an executable file")
    for trace in args.traces:
        files = tenant_files(trace) if args.tenants else [trace]
        if files is None:
            parser.error(f"'{trace}' is not POLICY:TRACE,POLICY:TRACE,...")
        for path in files:
            if not os.path.isfile(path):
                parser.error(f"'{path}' is not a file")
    differ = False
    with tempfile.TemporaryDirectory() as work:
        for trace in args.traces:
            before = run(args.baseline, trace, extra, work, "baseline", args.tenants)
            after = run(args.tool, trace, extra, work, "tool", args.tenants)
            name = tenant_run_name(trace) if args.tenants else os.path.basename(trace)
            for output in ("table", "json", "csv"):
                line = {"bench": "same_reports", "trace": name, "output": output,
                        "same": before[output] == after[output]}
                if not line["same"]:
                    differ = True
                    line["first_difference"] = first_difference(before[output], after[output])
                print(json.dumps(line), flush=True)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
