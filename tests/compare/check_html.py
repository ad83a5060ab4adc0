#!/usr/bin/env python3
"""strata-compare --html writes one self-contained page whose data is the comparison's, whatever the names.

Usage: check_html.py STRATA-COMPARE SCRATCH_DIR TRACE.csv [XLA_DUMP [STRATA-FIT FIT_WORKLOAD]]

Checks, with Python's standard library only (the browser test, check_html_browser.py, opens the page itself):
- the page: one inline style, one inline script and one JSON data element, nothing that names another file or
  address (no src, href, url(), @import, fetch, XMLHttpRequest, WebSocket), a Content-Security-Policy of
  default-src 'none';
- its data: the table's verdict, every run of the report with bands of equal length, each first OOM among the run's
  OOM marks with its buffer, buffer placements for strata and the first GPU policy, each within the run's events;
- --json with --html is the report --json alone writes (same_report.py rules: wall times aside);
- --tenant: one buffer list of both tenants' buffers (each labelled with its tenant) and placements in every run;
- hostile names: a file named '<!--<script>.csv' and a merged report whose workload is named
  '</script><script>...': the data element's text holds no '<', parses, and gives the name back unchanged;
- an XLA dump (XLA_DUMP): the static plans' rows drawn too, xla-static's placements at XLA's own offsets;
- strata-fit --html (STRATA-FIT on FIT_WORKLOAD): the matrix (a cell per device and policy) and a run per device of
  every policy; --html with --process refused;
- bad input: --html - (usage), a path in a missing folder, --html naming the workload: exit status 2, a message,
  the workload unchanged and nothing written.
"""
import hashlib
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys


def run(argv):
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def fail(why):
    sys.exit(f"check_html: {why}")


class Page(html.parser.HTMLParser):
    """The page's elements that could load anything, and its scripts and styles."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.scripts, self.styles, self.loads, self.csp = [], 0, [], None
        self._in = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for name in ("src", "href", "srcset", "action", "formaction", "data", "poster"):
            if name in a:
                self.loads.append(f"<{tag} {name}={a[name]!r}>")
        if tag == "link":
            self.loads.append("<link>")
        if tag == "meta" and (a.get("http-equiv") or "").lower() == "content-security-policy":
            self.csp = a.get("content")
        if tag == "script":
            self.scripts.append({"attrs": a, "text": ""})
            self._in = "script"
        if tag == "style":
            self.styles += 1

    def handle_endtag(self, tag):
        if tag == "script":
            self._in = None

    def handle_data(self, data):
        if self._in == "script":
            self.scripts[-1]["text"] += data


def read_page(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    page = Page()
    page.feed(text)
    page.close()
    return text, page


def data_of(path):
    """The page's JSON data, checked for its shape."""
    text, page = read_page(path)
    if page.loads:
        fail(f"{path}: loads something: {page.loads}")
    if page.styles != 1 or len(page.scripts) != 2:
        fail(f"{path}: {page.styles} style and {len(page.scripts)} script elements (want 1 and 2)")
    if not page.csp or "default-src 'none'" not in page.csp:
        fail(f"{path}: no Content-Security-Policy of default-src 'none' ({page.csp!r})")
    for needle in ("url(", "@import", "fetch(", "XMLHttpRequest", "WebSocket", "EventSource", "sendBeacon", "<iframe",
                   "<img", "<link"):
        if needle in text:
            fail(f"{path}: holds {needle!r}")
    data_el = [s for s in page.scripts if s["attrs"].get("type") == "application/json"]
    if len(data_el) != 1 or data_el[0]["attrs"].get("id") != "strata-data":
        fail(f"{path}: not one <script type=application/json id=strata-data>")
    raw = data_el[0]["text"]
    if "<" in raw or ">" in raw or "&" in raw:
        fail(f"{path}: the data element's text holds '<', '>' or '&'")
    doc = json.loads(raw)
    if doc.get("tool") != "strata-compare-html" or doc.get("version") != 1:
        fail(f"{path}: data is not strata-compare-html version 1")
    return doc


def main():
    tool, scratch, trace = sys.argv[1:4]
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    page = os.path.join(scratch, "report.html")
    alone = os.path.join(scratch, "alone.json")
    both = os.path.join(scratch, "both.json")
    common = ["--quiet", "--no-search", "--option", "page_bytes=4096"]

    out = run([tool, trace, *common, "--html", page, "--json", both])
    if out.returncode != 0:
        fail(f"--html exited {out.returncode}: {out.stderr}")
    out_alone = run([tool, trace, *common, "--json", alone])
    if out_alone.returncode != 0:
        fail(f"--json exited {out_alone.returncode}: {out_alone.stderr}")
    same = run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "same_report.py"), alone, both])
    if same.returncode != 0:
        fail(f"--json with --html differs from --json alone: {same.stdout}{same.stderr}")
    report = json.load(open(both))["workloads"][0]
    table = run([tool, trace, *common]).stdout

    doc = data_of(page)
    w = doc["workloads"][0]
    if w["name"] != report["name"] or w["verdict"] not in table or not w["verdict"].startswith("verdict at "):
        fail("the page's name or verdict is not the table's")
    if [r["contender"] for r in w["runs"]] != [r["contender"] for r in report["runs"]]:
        fail("the page's runs are not the report's")
    placed = []
    for r, rep in zip(w["runs"], report["runs"]):
        b = r["bands"]
        if len({len(b[k]) for k in ("e0", "e1", "umin", "umax", "rmin", "rmax")}) != 1 or not b["e0"]:
            fail(f"{r['contender']}: bands of different lengths, or none")
        if any(lo > hi for lo, hi in zip(b["umin"], b["umax"])) or max(b["umax"]) != rep["peak_live_bytes"]:
            fail(f"{r['contender']}: bands disagree with the report's peak in use")
        f = rep["first_oom"]
        if f is not None:
            marks = list(zip(r["ooms"]["e"], r["ooms"]["b"], r["ooms"]["k"]))
            if (f["event"], f["buffer_id"], f["kind"]) not in marks:
                fail(f"{r['contender']}: its first OOM is not among its OOM marks")
        if r["places"] is not None:
            p = r["places"]
            if (not p["b"] and r["allocs"] > r["failed_allocs"]) or any(
                    not (t0 < t1 <= w["events"]) for t0, t1 in zip(p["t0"], p["t1"])):
                fail(f"{r['contender']}: placements outside the run's events")
            placed.append(r["contender"])
    first_gpu = next(r["contender"] for r in w["runs"] if r["family"] == "gpu")
    if "strata" not in placed or first_gpu not in placed:
        fail(f"buffer placements for {placed}, not strata and {first_gpu}")
    if len(w["buffer_list"]["id"]) != w["buffers"]:
        fail("the buffer list is not the trace's")

    # A file name that opens a comment and a script, and a merged report whose name closes the script element.
    hostile_file = os.path.join(scratch, "<!--<script>x.csv")
    shutil.copyfile(trace, hostile_file)
    hostile_page = os.path.join(scratch, "hostile-file.html")
    out = run([tool, hostile_file, *common, "--contenders", "strata,jax", "--html", hostile_page, "--no-table"])
    if out.returncode != 0:
        fail(f"--html on a hostile file name exited {out.returncode}: {out.stderr}")
    if data_of(hostile_page)["workloads"][0]["name"] != "<!--<script>x.csv":
        fail("the hostile file name did not come back unchanged")
    hostile_name = "</script><script>window.pwned=1</script><!--"
    rep = json.load(open(both))
    rep["workloads"][0]["name"] = hostile_name
    forged = os.path.join(scratch, "forged.json")
    json.dump(rep, open(forged, "w"))
    merged_page = os.path.join(scratch, "hostile-merge.html")
    out = run([tool, "--merge", forged, "--html", merged_page, "--no-table"])
    if out.returncode != 0:
        fail(f"--merge --html exited {out.returncode}: {out.stderr}")
    merged = data_of(merged_page)["workloads"][0]
    if merged["name"] != hostile_name or merged["runs"][0]["places"] is not None or merged["buffer_list"] is not None:
        fail("the hostile workload name did not come back unchanged (or a merged report has placements)")

    # Tenants (two workloads on one device): one buffer list, the first tenant's buffers then the second's, each
    # labelled with its tenant, and every run's placements over both, each buffer placed at most once at a time.
    tenant_page = os.path.join(scratch, "tenants.html")
    out = run([tool, "--tenant", "jax-growth:" + trace, "--tenant", "torch:" + trace, *common, "--capacity", "2.0x",
               "--no-table", "--html", tenant_page])
    if out.returncode != 0:
        fail(f"--tenant --html exited {out.returncode}: {out.stderr}")
    tw = data_of(tenant_page)["workloads"][0]
    tb = tw["buffer_list"]
    half = tw["buffers"] // 2
    if tb is None or len(tb["id"]) != tw["buffers"] or len(tb["label"]) != tw["buffers"]:
        fail("tenants: no buffer list of both tenants' buffers, labelled")
    tenant_of = [tb["label_text"][k].split(":")[0] for k in tb["label"]]
    if tenant_of != ["jax-growth"] * half + ["torch"] * half:
        fail(f"tenants: buffer labels name {sorted(set(tenant_of))}, not jax-growth's then torch's buffers")
    tenant_placed = 0
    for r in tw["runs"]:
        p = r["places"]
        if p is None:
            fail(f"tenants: {r['contender']} has no placements")
        owners = {b < half for b in p["b"]}
        if owners != {True, False} or any(b >= tw["buffers"] for b in p["b"]) or any(
                not (t0 < t1 <= tw["events"]) for t0, t1 in zip(p["t0"], p["t1"])):
            fail(f"tenants: {r['contender']}'s placements are not both tenants' buffers within the run")
        tenant_placed += 1
    if tenant_placed != 3:
        fail(f"tenants: {tenant_placed} runs placed, want strata, strata-no-compact and the GPU's")

    # An XLA dump: the static plans' rows have bands, and xla-static and offline-bfd their placements.
    if len(sys.argv) > 4:
        xla_page = os.path.join(scratch, "xla.html")
        out = run([tool, sys.argv[4], *common, "--cuda", "off", "--no-table", "--html", xla_page])
        if out.returncode != 0:
            fail(f"--html on an XLA dump exited {out.returncode}: {out.stderr}")
        xw = data_of(xla_page)["workloads"][0]
        rows = {r["contender"]: r for r in xw["runs"]}
        for name in ("xla-static", "lower-bound", "offline-bfd"):
            if name not in rows or not rows[name]["bands"]["e0"]:
                fail(f"XLA dump: no {name} row, or no series for it")
        for name in ("xla-static", "offline-bfd"):
            p = rows[name]["places"]
            if p is None or len(p["b"]) != xw["buffers"]:
                fail(f"XLA dump: {name} has no placement for every buffer")
        if max(o + n for o, n in zip(rows["xla-static"]["places"]["o"], rows["xla-static"]["places"]["n"])) != \
                rows["xla-static"]["peak_reserved_bytes"]:
            fail("XLA dump: xla-static's placements do not reach its peak")

    # strata-fit's page: the matrix, and each device's run of every policy.
    fit_checked = False
    if len(sys.argv) > 6:
        fit_tool, fit_workload = sys.argv[5:7]
        fit_page = os.path.join(scratch, "fit.html")
        devices = ["a100-40g", "a100-80g"]
        out = run([fit_tool, fit_workload, "--quiet", "--no-table", "--no-search", "--devices", ",".join(devices),
                   "--html", fit_page])
        if out.returncode != 0:
            fail(f"strata-fit --html exited {out.returncode}: {out.stderr}")
        doc = data_of(fit_page)
        fit = doc["fit"]
        if len(fit["cells"]) != len(devices) * len(fit["policies"]) or [d["name"] for d in fit["devices"]] != devices:
            fail("strata-fit's page: not a cell per device and policy")
        runs = [[r["contender"] for r in w["runs"]] for w in doc["workloads"]]
        if runs != [fit["policies"]] * len(devices) or not doc["workloads"][0]["name"].endswith(" on a100-40g"):
            fail(f"strata-fit's page: runs {runs}, not every policy on each device")
        for cell in fit["cells"]:
            w = doc["workloads"][devices.index(cell["device"])]
            r = next(r for r in w["runs"] if r["contender"] == cell["policy"])
            if r["completed"] != cell["fits"]:
                fail(f"strata-fit's page: {cell['device']}/{cell['policy']} fits {cell['fits']}, its run says "
                     f"{r['completed']}")
        out = run([fit_tool, "--process", "jax:" + fit_workload, "--process", "tf:" + fit_workload, "--devices",
                   "a100-80g", "--html", os.path.join(scratch, "processes.html")])
        if out.returncode != 2 or "--process writes the table or --json" not in out.stderr:
            fail(f"strata-fit --process --html: exit {out.returncode}, {out.stderr!r}")
        fit_checked = True

    # Bad input: refused before anything runs, the workload unchanged, nothing written.
    digest = hashlib.sha256(open(trace, "rb").read()).hexdigest()
    copy = os.path.join(scratch, "input.csv")
    shutil.copyfile(trace, copy)
    cases = [
        (["--html", "-"], r"--html writes a file, not standard output"),
        (["--html", os.path.join(scratch, "missing", "r.html")], r"missing/r\.html: "),
        (["--html", copy], r"--html .*input\.csv is the workload .*input\.csv"),
        (["--html", page, "--emit-jobs", scratch], r"--html draws a comparison: not with --emit-jobs"),
    ]
    before = sorted(os.listdir(scratch))
    for extra, want in cases:
        out = run([tool, copy, *common, *extra])
        if out.returncode != 2 or not re.search(want, out.stderr):
            fail(f"{extra}: exit {out.returncode}, stderr {out.stderr!r} (want 2 and /{want}/)")
    if sorted(os.listdir(scratch)) != before or hashlib.sha256(open(copy, "rb").read()).hexdigest() != digest:
        fail("a refused run changed the folder or the workload")
    size = os.path.getsize(page)
    print(f"check_html: one self-contained page ({size} bytes, {len(w['runs'])} runs, placements for "
          f"{len(placed)}), tenants placed in {tenant_placed} runs{', the static plans drawn' if len(sys.argv) > 4 else ''}"
          f"{', strata-fit its matrix and runs' if fit_checked else ''}, hostile names inert, bad input refused")


if __name__ == "__main__":
    main()
