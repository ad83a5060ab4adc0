#!/usr/bin/env python3
"""--list-devices prints one table, the same from every tool that takes a device name (strata-fit, strata-compare,
strata-replay): the text and the JSON lines byte for byte, and the JSON lines parse to the devices the text names.

usage: check_device_lists.py STRATA_FIT STRATA_COMPARE STRATA_REPLAY
"""
import json
import subprocess
import sys

fit, compare, replay = sys.argv[1:4]


def out(args):
    p = subprocess.run(args, capture_output=True, text=True, timeout=60)
    if p.returncode != 0 or p.stderr:
        sys.exit(f"check_device_lists: {args} exited {p.returncode}: {p.stderr}")
    return p.stdout


text = {tool: out([tool, "--list-devices"]) for tool in (fit, compare, replay)}
lines = {tool: out([tool, "--list-devices", *flag]) for tool, flag in
         ((fit, ["--json", "-"]), (compare, ["--json", "-"]), (replay, ["--json"]))}
for what, by_tool in (("text", text), ("JSON lines", lines)):
    if len(set(by_tool.values())) != 1:
        sys.exit(f"check_device_lists: the tools print different {what}:\n" +
                 "\n".join(f"--- {t}\n{o}" for t, o in by_tool.items()))
names = [json.loads(line)["name"] for line in lines[fit].splitlines()]
listed = [row.split()[0] for row in text[fit].splitlines()[1:]]
if not names or names != listed:
    sys.exit(f"check_device_lists: JSON names {names} differ from the table's {listed}")
print(f"check_device_lists: 3 tools print the same {len(names)} devices")
