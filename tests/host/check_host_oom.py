#!/usr/bin/env python3
"""Host out of memory is a message and exit status 1 in every tool, not SIGABRT (tool_cli.h: RunMain).

Usage: check_host_oom.py SCRATCH_DIR TOOL...

Writes a trace of 1.5 million buffers (37 MB) and runs each tool on it with its address space limited to 64 MiB
(RLIMIT_AS, as `ulimit -v 65536` does): reading it needs more, so the tool must end with "PROG: out of host memory"
on stderr and exit status 1.
"""
import os
import resource
import subprocess
import sys

LIMIT = 64 << 20
BUFFERS = 1_500_000


def limited():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def main():
    scratch, tools = sys.argv[1], sys.argv[2:]
    os.makedirs(scratch, exist_ok=True)
    trace = os.path.join(scratch, "big.csv")
    if not os.path.exists(trace) or os.path.getsize(trace) < 30_000_000:
        with open(trace, "w") as f:
            f.write("id,lower,upper,size\n")
            f.writelines(f"{i},{i},{i + 5},4096\n" for i in range(BUFFERS))
    for tool in tools:
        name = os.path.basename(tool)
        out = subprocess.run([tool, trace], preexec_fn=limited, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True, errors="replace")
        if out.returncode != 1 or not out.stderr.endswith(f"{name}: out of host memory\n"):
            sys.exit(f"check_host_oom: {name} under a {LIMIT >> 20} MiB address space: exit status "
                     f"{out.returncode}, stderr: {out.stderr[-300:]!r}")
    print(f"check_host_oom: {len(tools)} tools out of host memory, each with a message and exit status 1")


if __name__ == "__main__":
    main()
