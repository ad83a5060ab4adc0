"""compare.page_note: on workloads and devices of a few GPU pages, strata-compare says that the page decides
(the table's note, the why: lines, the report's page_note) and names --option page_bytes=; above that it says
nothing. A policy limit above the device is shown as such. The rule is recomputed here from the report's own
numbers (max load, capacity, page), over the repository's small PyTorch and RMM fixtures and the shared traces,
at several pages and capacities.

usage: check_page_note.py STRATA_COMPARE TORCH_PICKLE RMM_LOG TRACES_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

PAGES_THAT_DECIDE = 16  # host/compare/compare.h kPagesThatDecide


def main():
    tool, pickle, rmm, traces = sys.argv[1:5]
    resnet = os.path.join(traces, "resnet50.csv")
    minimalloc = os.path.join(traces, "minimalloc_A.csv")
    cases = [
        ([pickle], True), ([rmm], True),
        ([pickle, "--option", "page_bytes=4096"], True),
        ([pickle, "--option", "page_bytes=4096", "--capacity", "65536"], True),  # a device of 16 pages, a load of 2
        ([minimalloc, "--option", "page_bytes=65536", "--capacity", "983040"], True),  # a device of 15 pages
        ([minimalloc], True), ([minimalloc, "--option", "page_bytes=4096"], False),
        ([minimalloc, "--option", "page_bytes=65536"], False),  # 16 pages of 64 KiB: 1 MiB
        ([minimalloc, "--option", "page_bytes=131072"], True),
        ([resnet, "--contenders", "jax,torch"], False),
        ([minimalloc, "--contenders", "strata,strata-no-compact"], False),  # no GPU contender, no page
    ]
    checked = limits = 0
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        for args, expect_note in cases:
            cmd = [tool] + args + ["--no-search", "--quiet", "--cuda", "off", "--json", report]
            out = subprocess.run(cmd, capture_output=True, text=True)
            assert out.returncode == 0, (cmd, out.stderr)
            w = json.load(open(report))["workloads"][0]
            page, cap, load = w["gpu_page_bytes"], w["capacity_bytes"], w["max_load_bytes"]
            gpu = any(r["family"] == "gpu" for r in w["runs"])
            decides = gpu and min(cap, load) < PAGES_THAT_DECIDE * page
            assert decides == expect_note, (cmd, page, cap, load)
            note_lines = [l for l in out.stdout.split("\n") if l.startswith("note: ")]
            if decides:
                assert w["page_note"] and "--option page_bytes=" in w["page_note"], (cmd, w["page_note"])
                assert note_lines == ["note: " + w["page_note"]], (cmd, note_lines)
                if cap < page:
                    assert "is smaller than one" in w["page_note"], w["page_note"]
            else:
                assert w["page_note"] == "" and not note_lines, (cmd, w["page_note"], note_lines)
            why = [l for l in out.stdout.split("\n") if l.startswith("  ") and " at event " in l]
            for r in w["runs"]:
                oom = r["first_oom"]
                if not oom:
                    continue
                line = [l for l in why if l.startswith(f"  {r['contender']}: ")]
                assert len(line) == 1, (cmd, r["contender"], why)
                assert ("--option page_bytes=" in line[0]) == (decides and r["family"] == "gpu"), (cmd, line[0])
                over = oom["limit_bytes"] > r["capacity_bytes"]
                assert (" > device " in line[0]) == over, (cmd, line[0], oom["limit_bytes"], r["capacity_bytes"])
                limits += over
            checked += 1
    assert limits > 0, "no case had a limit above the device"
    print(f"check_page_note: {checked} reports agree with the page rule, {limits} limits above the device shown")


if __name__ == "__main__":
    main()
