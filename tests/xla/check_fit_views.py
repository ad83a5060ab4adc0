#!/usr/bin/env python3
"""strata-fit and strata-compare answer the right question on XLA dumps (issue 49, item 6), checked against
strata-import's own figures for the same dump:

- strata-fit's default is what the device holds (the steps view: arguments + outputs + temp), its header names the
  view and that the dump was compiled for the CPU; --xla-view executable keeps the temp-only question;
- the TPU columns replay the buffers padded to the TPU's tiles (strata-import --tpu-pad's peak), the GPU columns
  XLA's sizes, and no GPU setting is advised on a TPU;
- a static plan that does not fit fails at a real event with a real kind and says by how much; it is never "the
  best GPU policy"; where no setting helps, one line says so and the levers that do follow;
- strata-explain gives no expandable_segments to a PyTorch-before-2.1 message, and the least max_split_size_mb by
  the policies' own rule.

usage: check_fit_views.py STRATA_FIT STRATA_COMPARE STRATA_IMPORT STRATA_EXPLAIN XLA_DATA FIT_DATA
"""
import json
import re
import subprocess
import sys

fit, compare, importer, explain, data, fit_data = sys.argv[1:7]
checks = 0


def run(args, status=0, stdin=None, stream="stdout"):
    p = subprocess.run(args, capture_output=True, text=True, timeout=300, input=stdin)
    if p.returncode != status:
        sys.exit(f"check_fit_views: {args} exited {p.returncode}, not {status}:\n{p.stdout}\n{p.stderr}")
    return p.stderr if stream == "stderr" else p.stdout


def expect(cond, what):
    global checks
    if not cond:
        sys.exit("check_fit_views: FAILED: " + what)
    checks += 1


def import_peak(*options):
    out = run([importer, f"{data}/donation", "--summary", *options], stream="stderr")  # the summary line
    return int(re.search(r"peak live (\d+) bytes", out).group(1))


# 1. fit's default view: the steps view's peak (arguments, outputs, temp), not the temp allocation's.
steps_peak, executable_peak = import_peak("--xla-view", "steps"), import_peak()
padded_peak = import_peak("--xla-view", "steps", "--tpu-pad")
expect(steps_peak > executable_peak, f"the steps view holds more ({steps_peak}) than the temp alone ({executable_peak})")
report = json.loads(run([fit, f"{data}/donation", "--devices", "t4,tpu-v5e", "--no-search", "--json", "-"]))
expect("(steps, 3 steps, compiled for the CPU)" in report["source"], f"fit's header names the view: {report['source']}")
granule = lambda n: (n + 255) // 256 * 256  # noqa: E731 (fit's max load is in Strata's 256 B granules)
expect(report["max_load_bytes"] >= steps_peak and report["max_load_bytes"] <= granule(steps_peak) + 14 * 256,
       f"fit's peak {report['max_load_bytes']} is the steps view's {steps_peak}")
expect(report.get("tpu_max_load_bytes", 0) >= padded_peak > steps_peak,
       f"the TPU columns replay the padded buffers ({report.get('tpu_max_load_bytes')} >= {padded_peak})")
narrow = json.loads(run([fit, f"{data}/donation", "--devices", "t4", "--no-search", "--json", "-", "--xla-view",
                         "executable"]))
expect("(executable, compiled for the CPU)" in narrow["source"] and narrow["max_load_bytes"] < steps_peak,
       "--xla-view executable keeps the temp allocation's question")
help_text = run([fit, "--help"])
expect(re.search(r"default: steps", help_text) is not None, "strata-fit --help names its default view")
expect(re.search(r"default: executable", run([compare, "--help"])) is not None, "strata-compare's default stays")

# 2. No GPU setting on a TPU column, and one line where nothing helps, with the levers.
text = run([fit, f"{fit_data}/vllm_41268.csv", "--devices", "a100-40g,tpu-v5e", "--no-search"])
tpu_lines = [line for line in text.splitlines() if line.startswith("  tpu-v5e /")]
expect(tpu_lines == ["  tpu-v5e / the 12 policies: no setting helps: the workload needs 26.62 GiB at peak, the TPU "
                     "has 16.00 GiB"], f"one line for the TPU column: {tpu_lines}")
expect("sharding over 2, 4 or 8 devices (at least 13.31 GiB, 6.66 GiB, 3.33 GiB each" in text, "the levers follow")
cells = json.loads(run([fit, f"{fit_data}/vllm_41268.csv", "--devices", "tpu-v5e,tpu-v5p", "--no-search", "--json",
                        "-"]))["cells"]
for c in cells:
    advice = c.get("fix", {}).get("advice", "")
    expect(not re.search(r"XLA_|TF_|PYTORCH_", advice), f"{c['device']} / {c['policy']}: no GPU variable: {advice}")

# 3. A static plan that does not fit: a real event and kind, by how much, never "the best GPU policy".
out = json.loads(run([compare, f"{data}/donation", "--capacity", "200KiB", "--cuda", "off", "--json", "-"]))
runs = {r["contender"]: r for r in out["workloads"][0]["runs"]}
for name, kind, whose in (("xla-static", "compile-time", "XLA's plan needs"),
                          ("offline-bfd", "compile-time", "the offline packing needs"),
                          ("lower-bound", "capacity", "the live buffers at their peak (any allocator) need")):
    oom = runs[name]["first_oom"]
    expect(oom is not None and oom["event"] >= 0 and oom["kind"] == kind, f"{name}: {oom}")
    expect(oom["message"].startswith(f"{whose} 304.00 KiB, 52.00 % more than this capacity (200.00 KiB)"),
           f"{name}'s message says by how much: {oom['message']}")
text = run([compare, f"{data}/donation", "--capacity", "200KiB", "--cuda", "off"])
expect("event -1" not in text and "the best GPU policy, xla-static" not in text, "no sentinel, no mislabel")
expect("    the 12 allocators: no setting helps: the workload needs 304.00 KiB at peak" in text, "one no-setting line")
expect(text.count("no setting helps") == 1, "said once")
expect("sharding over 2, 4 or 8 devices (at least 152.00 KiB, 76.00 KiB, 38.00 KiB each" in text, "the levers")
roomy = run([compare, f"{data}/donation", "--capacity", "2MiB", "--cuda", "off", "--option", "page_bytes=4096"])
expect(re.search(r"least memory: .*; the best GPU policy, (jax|tf|torch)[a-z+-]*, [0-9.]+x; XLA's own plan 1\.000x",
                 roomy) is not None, "least memory names a GPU policy and XLA's plan apart")

# 4. strata-explain: the format's release decides (no expandable_segments before 2.1; one max_split_size_mb rule).
old = ("CUDA out of memory. Tried to allocate 64.00 MiB (GPU 0; 7.93 GiB total capacity; 6.00 GiB already allocated; "
       "10.00 MiB free; 7.50 GiB reserved in total by PyTorch)")
e = json.loads(run([explain, "-", "--json"], stdin=old))
advice = e["advice"]
expect(e["kind"] == "fragmentation", "the old message is fragmentation by its numbers")
expect("expandable_segments" not in str(advice), f"no expandable_segments for PyTorch before 2.1: {advice}")
expect("max_split_size_mb:64" in str(advice), f"max_split_size_mb from the request: {advice}")
small = old.replace("Tried to allocate 64.00 MiB", "Tried to allocate 21.50 MiB")
advice = run([explain, "-"], stdin=small)
expect("max_split_size_mb:21 " in advice, f"at least 21 where the format allows 2.8 or older: {advice}")
new = ("CUDA out of memory. Tried to allocate 64.00 MiB. GPU 0 has a total capacity of 7.93 GiB of which 10.00 MiB is "
       "free. Of the allocated memory 6.00 GiB is allocated by PyTorch, and 1.50 GiB is reserved by PyTorch but "
       "unallocated.")
expect("expandable_segments:True" in run([explain, "-"], stdin=new), "2.1 and newer still get expandable_segments")

print(f"check_fit_views: {checks} checks passed")
