#!/usr/bin/env python3
"""Names from files reach strata-fit's and strata-import's outputs only made safe (issue #45, item 11).

Usage: check_untrusted_names.py STRATA-FIT STRATA-IMPORT SCRATCH_DIR TRACE.csv

Copies TRACE.csv to names that hold a terminal escape and a newline, a spreadsheet formula (=cmd|' \\C calc'!A0:
a file name holds no /), other formula starts (-, @, tab) and the bytes 0xff 0xfe (not UTF-8), then checks:
- strata-import's summary on stderr: one line, control characters escaped (\\x1b, \\n), none raw;
- strata-fit --csv: every string field quoted (RFC 4180: 14 fields a row, as Python's csv module reads them), a
  leading =, +, -, @, tab or CR neutralized with ';
- strata-fit --svg: well-formed XML (xml.etree parses it) whatever the name's bytes, the name shown;
- strata-fit --json: well-formed; the table: no raw control character.
"""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET


def run(argv, **kw):
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120, **kw)


def fail(message):
    sys.exit(f"check_untrusted_names: {message}")


def main():
    fit, import_tool, scratch, trace = sys.argv[1:5]
    scratch = os.fsencode(scratch)
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    names = [b"esc\x1b]0;title\x07\nnext line.csv", b"=cmd|' \\C calc'!A0.csv", b"bad\xff\xfeutf8.csv",
             b"-2+3.csv", b"@SUM(1).csv", b"\tlead & <tag> \"q\" 'a'.csv"]
    checks = 0
    for name in names:
        path = os.path.join(scratch, name)
        shutil.copyfile(trace, path)

        # strata-import: the summary line, escaped.
        out = run([import_tool, path, "--summary"])
        line = out.stderr
        if out.returncode != 0 or not line.startswith(b"strata-import: "):
            fail(f"strata-import {name!r}: exit status {out.returncode}, {line!r}")
        if line.count(b"\n") != 1 or any(c < 0x20 and c != 0x0a or c == 0x7f for c in line):
            fail(f"strata-import {name!r}: a raw control character in the summary: {line!r}")
        if b"\x1b" in name and b"\\x1b]0;title\\x07\\nnext line.csv" not in line:
            fail(f"strata-import {name!r}: the name is not shown escaped: {line!r}")
        checks += 1

        # strata-fit: CSV, SVG, JSON and the table from one run.
        c, s, j = (os.path.join(scratch, n) for n in (b"fit.csv", b"fit.svg", b"fit.json"))
        out = run([fit, path, "--devices", "l4,tpu-v5e", "--policies", "strata,jax,torch", "--no-search", "--no-fixes",
                   "--quiet", "--csv", c, "--svg", s, "--json", j])
        if out.returncode != 0:
            fail(f"strata-fit {name!r}: exit status {out.returncode}, {out.stderr!r}")
        if any(ch < 0x20 and ch != 0x0a or ch == 0x7f for ch in out.stdout):
            fail(f"strata-fit {name!r}: a raw control character in the table: {out.stdout[:300]!r}")
        text = open(c, "rb").read().decode("utf-8", "surrogateescape")
        rows = list(csv.reader(io.StringIO(text, newline="")))
        if len(rows) != 1 + 6 or any(len(r) != 14 for r in rows):
            fail(f"strata-fit {name!r}: --csv does not read back as 6 rows of 14 fields: {rows}")
        for raw in text.splitlines()[1:] if b"\n" not in name else []:
            if not raw.startswith('"'):
                fail(f"strata-fit {name!r}: the workload field is not quoted: {raw!r}")
        for row in rows[1:]:
            for field in row:
                # A number (first_oom_event is -1 without an OOM) is written bare; any other text is neutralized.
                if field and field[0] in "=+-@\t\r" and not re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", field):
                    fail(f"strata-fit {name!r}: a CSV field starts a formula: {field!r}")
            if row[0].lstrip("'") != os.fsdecode(os.path.basename(name)):
                fail(f"strata-fit {name!r}: the workload field reads {row[0]!r}")
        try:
            root = ET.parse(os.fsdecode(s)).getroot()
        except ET.ParseError as e:
            fail(f"strata-fit {name!r}: --svg is not well-formed XML: {e}")
        title = next(t for t in root.iter("{http://www.w3.org/2000/svg}text"))
        if "Will it fit?" not in "".join(title.itertext()):
            fail(f"strata-fit {name!r}: the SVG's title is missing: {ET.tostring(title)!r}")
        try:
            report = json.load(open(j, encoding="utf-8"))
        except ValueError as e:
            fail(f"strata-fit {name!r}: --json is not well-formed: {e}")
        if len(report["cells"]) != 6:
            fail(f"strata-fit {name!r}: --json has {len(report['cells'])} cells")
        checks += 1
    print(f"check_untrusted_names: {checks} runs, every name escaped, quoted, neutralized or replaced")


if __name__ == "__main__":
    main()
