#!/usr/bin/env python3
"""No tool destroys what it reads or an old output (docs/command-line.md, "Outputs").

Usage: check_outputs.py SCRATCH_DIR TRACE.csv XLA_DUMP_DIR STRATA-IMPORT STRATA-REPLAY STRATA-COMPARE [STRATA-FIT]

Each case runs a tool in a scratch copy of TRACE.csv (and of the XLA dump) and checks the exit status, the message
and that every file that was there still holds what it held and no file was added: an output that is an input
(strata-import X -o X, strata-compare a.csv --csv a.csv, strata-replay T --series T, strata-fit --process
jax:a.csv ... --json a.csv, a file an XLA dump's import reads, the firmware strata-replay boots) or two outputs
that are one file (--json r --csv ./r, the same file by another name through a hard link or ./) refused with exit
status 2 before anything is written; a refused export (sizes past 2^63 in total) leaves -o as it was; a written
output replaces the old one whole and leaves no temporary file beside it, and through a symbolic link the file it
names (the link stays).
"""
import os
import shutil
import subprocess
import sys


def run(argv, cwd):
    return subprocess.run([str(a) for a in argv], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def snapshot(top):
    """Every file under `top`: its path and bytes."""
    files = {}
    for root, _, names in os.walk(top):
        for n in names:
            path = os.path.join(root, n)
            if not os.path.islink(path):
                with open(path, "rb") as f:
                    files[os.path.relpath(path, top)] = f.read()
    return files


def main():
    scratch, trace, xla_dump, import_tool, replay, compare = sys.argv[1:7]
    fit = sys.argv[7] if len(sys.argv) > 7 else None
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    shutil.copytree(xla_dump, os.path.join(scratch, "dump"))
    module = next(n[:-len("-buffer-assignment.txt")] for n in sorted(os.listdir(os.path.join(scratch, "dump")))
                  if n.endswith("-buffer-assignment.txt"))
    assignment, live = f"dump/{module}-buffer-assignment.txt", f"dump/{module}-live-range.txt"
    values = f"dump/{module}-buffer-assignment-values.txt"
    with open(os.path.join(scratch, "fw.elf"), "w") as f:
        f.write("not really firmware\n")
    a = os.path.join(scratch, "a.csv")
    shutil.copyfile(trace, a)
    original = open(a).read()
    os.link(a, os.path.join(scratch, "hard.csv"))
    # Four buffers of 2^62 bytes: each legal, the sum past 2^63, so the exporter (or the importer) refuses it.
    huge = os.path.join(scratch, "huge.csv")
    with open(huge, "w") as f:
        f.write("id,lower,upper,size\n" + "".join(f"{i},0,1,{1 << 62}\n" for i in range(4)))
    old = os.path.join(scratch, "old.csv")
    with open(old, "w") as f:
        f.write("an old output\n")

    cases = [
        # (argv, status, text in stderr)
        ([import_tool, "a.csv", "-o", "a.csv"], 2, "-o a.csv is the input a.csv"),
        ([import_tool, "a.csv", "-o", "hard.csv"], 2, "-o hard.csv is the input a.csv"),
        ([import_tool, "huge.csv", "-o", "old.csv"], None, ""),
        ([compare, "a.csv", "--csv", "a.csv", "--quiet"], 2, "--csv a.csv is the workload a.csv"),
        ([compare, "a.csv", "--json", "r", "--csv", "./r", "--quiet"], 2, "--json r and --csv ./r are the same file"),
        ([compare, "--merge", "a.csv", "--json", "hard.csv"], 2, "--json hard.csv is the report a.csv"),
        ([replay, "a.csv", "--backend", "gpu-emu", "--series", "a.csv"], 2, "--series a.csv is the trace a.csv"),
        ([replay, "a.csv", "--backend", "gpu-emu", "--series", "s.csv", "--timeline", "./s.csv"], 2,
         "--series s.csv and --timeline ./s.csv are the same file"),
        # Issue #45: every input of every mode, by file identity. An XLA dump's module files are inputs too (the
        # directory, or one of the module's files, names them), and so is the firmware strata-replay boots.
        ([import_tool, "dump", "-o", live], 2, f"-o {live} is the input dump/{module}-live-range.txt"),
        ([import_tool, assignment, "-o", "./" + live], 2, f"-o ./{live} is the input {live}"),
        ([compare, "dump", "--json", values, "--quiet"], 2, f"--json {values} is the workload {values}"),
        ([compare, "--tenant", "jax:a.csv", "--tenant", "tf:dump", "--csv", assignment, "--quiet"], 2,
         f"--csv {assignment} is the workload {assignment}"),
        ([replay, "a.csv", "--backend", "gpu-emu", "--firmware", "fw.elf", "--series", "./fw.elf"], 2,
         "--series ./fw.elf is --firmware fw.elf"),
        ([replay, "a.csv", "--backend", "gpu-emu", "--option", "trace_path=./a.csv"], 2,
         "--option trace_path ./a.csv is the trace a.csv"),
        ([replay, "dump", "--backend", "gpu-emu", "--timeline", assignment], 2,
         f"--timeline {assignment} is the trace {assignment}"),
    ]
    if fit:
        cases += [
            ([fit, "a.csv", "--csv", "./a.csv", "--quiet"], 2, "--csv ./a.csv is the workload a.csv"),
            ([fit, "a.csv", "--svg", "hard.csv", "--quiet"], 2, "--svg hard.csv is the workload a.csv"),
            ([fit, "dump", "--json", live, "--quiet"], 2, f"--json {live} is the workload {live}"),
            # --process: the mode the first check missed (its --json overwrote the workload).
            ([fit, "--process", "jax:a.csv:mem_fraction=0.4", "--process", "tf:hard.csv", "--devices", "h100-80g",
              "--json", "a.csv"], 2, "--json a.csv is the workload a.csv"),
            ([fit, "--process", "jax:./a.csv", "--process", "torch:huge.csv", "--devices", "h100-80g",
              "--json", "hard.csv"], 2, "--json hard.csv is the workload ./a.csv"),
            ([fit, "--process", "jax:a.csv", "--process", f"tf:{assignment}", "--devices", "h100-80g",
              "--json", "./" + live], 2, f"--json ./{live} is the workload {live}"),
        ]
    for argv, status, text in cases:
        before = snapshot(scratch)
        out = run(argv, scratch)
        what = " ".join(os.path.basename(str(x)) for x in argv)
        if status is None:
            if out.returncode == 0:
                sys.exit(f"check_outputs: {what}: exit status 0 for sizes past 2^63")
        elif out.returncode != status or text not in out.stderr:
            sys.exit(f"check_outputs: {what}: exit status {out.returncode}, wanted {status} with {text!r}; "
                     f"stderr: {out.stderr}")
        if open(a).read() != original:
            sys.exit(f"check_outputs: {what}: the input a.csv changed")
        if open(old).read() != "an old output\n":
            sys.exit(f"check_outputs: {what}: the old output old.csv changed")
        for name in ("r", "s.csv"):
            if os.path.exists(os.path.join(scratch, name)):
                sys.exit(f"check_outputs: {what}: a refused run created {name}")
        after = snapshot(scratch)
        for name in sorted(set(before) | set(after)):
            if before.get(name) != after.get(name):
                sys.exit(f"check_outputs: {what}: {name} " + ("changed" if name in before and name in after else
                                                               "appeared" if name in after else "vanished"))

    # A written output replaces the old one whole, and nothing is left beside it.
    out = run([import_tool, "a.csv", "-o", "old.csv"], scratch)
    if out.returncode != 0 or open(old).read() != original:
        sys.exit(f"check_outputs: strata-import a.csv -o old.csv: exit status {out.returncode}, {out.stderr}")
    # Through a symbolic link: the file it names is replaced, the link stays a link.
    os.symlink("old.csv", os.path.join(scratch, "link.csv"))
    out = run([compare, "a.csv", "--contenders", "strata", "--no-search", "--quiet", "--no-table", "--csv", "link.csv"],
              scratch)
    if out.returncode != 0 or not os.path.islink(os.path.join(scratch, "link.csv")) or \
            not open(old).read().startswith("workload,"):
        sys.exit(f"check_outputs: --csv through a symbolic link: exit status {out.returncode}, {out.stderr}")
    stray = [n for n in os.listdir(scratch) if n.startswith(".")]
    if stray:
        sys.exit(f"check_outputs: temporary files left: {stray}")
    print(f"check_outputs: {len(cases) + 2} runs, no input or old output lost")


if __name__ == "__main__":
    main()
