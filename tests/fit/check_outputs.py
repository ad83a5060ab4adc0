#!/usr/bin/env python3
"""strata-fit's three outputs of one run agree: the JSON's cells, the CSV's rows and the SVG's cells (well-formed
XML, one rect per cell with the cell's text).

usage: check_outputs.py STRATA_FIT WORKLOAD OUT_DIR
"""
import csv
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

fit, workload, out = sys.argv[1:4]
os.makedirs(out, exist_ok=True)
j, c, s = (os.path.join(out, n) for n in ("fit.json", "fit.csv", "fit.svg"))
subprocess.run([fit, workload, "--devices", "a100-40g,l4,tpu-v5e", "--json", j, "--csv", c, "--svg", s, "--quiet",
                "--no-table"], check=True, timeout=300)
report = json.load(open(j))
rows = list(csv.DictReader(open(c)))
svg = ET.parse(s).getroot()
ns = "{http://www.w3.org/2000/svg}"
rects = [r for r in svg.iter(ns + "rect") if r.find(ns + "title") is not None]
cells = report["cells"]
if not (len(cells) == len(rows) == len(rects) == len(report["devices"]) * len(report["policies"])):
    sys.exit(f"check_outputs: {len(cells)} cells, {len(rows)} rows, {len(rects)} rects")
titles = {r.find(ns + "title").text.split(": ")[0]: r for r in rects}
for cell, row in zip(cells, rows):
    if (row["device"], row["policy"]) != (cell["device"], cell["policy"]) or (row["fits"] == "true") != cell["fits"]:
        sys.exit(f"check_outputs: {row} != {cell['device']} {cell['policy']}")
    if f"{cell['device']} / {cell['policy']}" not in titles:
        sys.exit(f"check_outputs: no SVG cell for {cell['device']} / {cell['policy']}")
    # A cell that fits has a least total no larger than the device's, and its headroom is their ratio.
    total = next(d["total_bytes"] for d in report["devices"] if d["name"] == cell["device"])
    if cell["fits"] and cell["headroom"] is not None and abs(cell["headroom"] - total / cell["min_total_bytes"]) > 1e-3:
        sys.exit(f"check_outputs: headroom {cell['headroom']} is not {total} / {cell['min_total_bytes']}")
print(f"check_outputs: JSON, CSV and SVG agree on {len(cells)} cells")
