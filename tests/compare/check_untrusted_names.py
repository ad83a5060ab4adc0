#!/usr/bin/env python3
"""What strata-compare prints from a file name or a report is never run, never a formula, never a terminal escape.

Usage: check_untrusted_names.py STRATA-COMPARE SCRATCH_DIR TRACE.csv [STRATA-REPLAY]

Copies TRACE.csv to a name that holds a newline and a command, and to a name that starts a spreadsheet formula and
holds a terminal escape, then checks (docs/comparison.md):
- --emit-jobs: every job line, run through bash the way a Slurm array does (sed -n "${N}p" jobs.txt | bash), runs
  strata-compare on the file and nothing else (the name's middle line is not a command);
- --csv: every string quoted, a leading = neutralized with ';
- the table (and strata-replay's, when given): control characters escaped (\\x1b), none raw;
- --merge: a run listed twice within one report, and a control character in a run's names, refused (exit status 2).
"""
import json
import os
import shutil
import subprocess
import sys


def run(argv, **kw):
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def main():
    tool, scratch, trace = sys.argv[1:4]
    replay = sys.argv[4] if len(sys.argv) > 4 else None
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(os.path.join(scratch, "jobs"))
    marker = os.path.join(scratch, "PWNED")
    newline_name = os.path.join(scratch, "x\ntouch PWNED\n.csv")
    shutil.copyfile(trace, newline_name)
    formula_name = os.path.join(scratch, '=HYPERLINK("x")\x1b]0;title\x07.csv')
    shutil.copyfile(trace, formula_name)
    common = ["--contenders", "strata,jax", "--no-search", "--quiet"]

    # --emit-jobs: each line through bash on its own.
    out = run([tool, newline_name, *common, "--emit-jobs", os.path.join(scratch, "jobs")], text=True)
    if out.returncode != 0:
        sys.exit(f"check_untrusted_names: --emit-jobs exited {out.returncode}: {out.stderr}")
    jobs = out.stdout.splitlines()
    if len(jobs) != 2:
        sys.exit(f"check_untrusted_names: --emit-jobs printed {len(jobs)} lines for 2 jobs:\n{out.stdout}")
    for n, line in enumerate(jobs, 1):
        job = run(["bash"], input=line + "\n", text=True, cwd=scratch)
        if job.returncode != 0:
            sys.exit(f"check_untrusted_names: job {n} exited {job.returncode}: {job.stderr}")
    if os.path.exists(marker):
        sys.exit("check_untrusted_names: a command in a file name ran from --emit-jobs")
    merged = run([tool, "--merge", os.path.join(scratch, "jobs", "0001.json"), os.path.join(scratch, "jobs", "0002.json"),
                  "--json", "-"], text=True)
    names = [w["name"] for w in json.loads(merged.stdout)["workloads"]]
    if names != [os.path.basename(newline_name)]:
        sys.exit(f"check_untrusted_names: the jobs read {names}, not the file")

    # --csv: quoted, the formula neutralized.
    out = run([tool, formula_name, *common, "--csv", "-"], text=True)
    rows = out.stdout.splitlines()[1:]
    if out.returncode != 0 or not rows or not all(r.startswith('"\'=HYPERLINK(""x"")') for r in rows):
        sys.exit(f"check_untrusted_names: --csv rows not quoted and neutralized: {rows[:1]}")
    if any(',jax,' in r or ',gpu,' in r or ',host,' in r for r in rows):
        sys.exit(f"check_untrusted_names: a string field unquoted: {rows}")

    # The table: escaped.
    out = run([tool, formula_name, *common])
    if out.returncode != 0 or b"\x1b" in out.stdout or b"\x07" in out.stdout or b"\\x1b]0;title\\x07" not in out.stdout:
        sys.exit(f"check_untrusted_names: the table prints the name's control characters raw: {out.stdout[:300]!r}")

    if replay:
        out = run([replay, formula_name])
        if out.returncode != 0 or b"\x1b" in out.stdout or b"\\x1b]0;title\\x07" not in out.stdout:
            sys.exit(f"check_untrusted_names: strata-replay prints the name raw: {out.stdout[:200]!r}")

    # --merge: a run twice in one file, and a control character in a contender's name.
    report = json.loads(run([tool, trace, *common, "--json", "-"], text=True).stdout)
    twice = json.loads(json.dumps(report))
    twice["workloads"][0]["runs"].append(twice["workloads"][0]["runs"][0])
    escape = json.loads(json.dumps(report))
    escape["workloads"][0]["runs"][1]["contender"] = "jax\x1b[2J"
    for name, doc, text in [("twice.json", twice, "appears twice"),
                            ("escape.json", escape, "a control character in its contender")]:
        path = os.path.join(scratch, name)
        with open(path, "w") as f:
            json.dump(doc, f)
        out = run([tool, "--merge", path], text=True)
        if out.returncode != 2 or text not in out.stderr:
            sys.exit(f"check_untrusted_names: --merge {name}: exit status {out.returncode}, {out.stderr!r}")
    print("check_untrusted_names: nothing ran, every CSV string quoted, the table escaped, bad merges refused")


if __name__ == "__main__":
    main()
