#!/usr/bin/env python3
"""strata-fit on the crafted workloads of make_workloads.py, against answers known by arithmetic, and every setting it
recommends replayed again by strata-compare (another tool, the same policies) to complete, with the next smaller
value failing where the setting is a searched number.

usage: check_fit.py STRATA_FIT STRATA_COMPARE STRATA_EXPLAIN DATA_DIR
"""
import json
import subprocess
import sys

fit, compare, explain, data = sys.argv[1:5]
GiB, MiB = 1 << 30, 1 << 20
checks = 0


def run(args, status=0):
    p = subprocess.run(args, capture_output=True, text=True, timeout=600)
    if p.returncode != status:
        sys.exit(f"check_fit: {args} exited {p.returncode}, not {status}:\n{p.stdout}\n{p.stderr}")
    return p


def matrix(workload, devices, policies, options=()):
    args = [fit, f"{data}/{workload}", "--devices", devices, "--policies", policies, "--json", "-", "--quiet"]
    for o in options:
        args += ["--option", o]
    out = run(args)
    report = json.loads(out.stdout)
    return {(c["device"], c["policy"]): c for c in report["cells"]}, report


def completes(workload, policy, device, options):
    """strata-compare's verdict for one policy at a device's memory with the options (NAME=VALUE)."""
    args = [compare, f"{data}/{workload}", "--contenders", policy, "--capacity", device, "--no-search", "--quiet",
            "--json", "-"]
    for o in options:
        args += ["--option", o]
    report = json.loads(run(args).stdout)
    return report["workloads"][0]["runs"][0]["completed"]


def expect(cond, what):
    global checks
    if not cond:
        sys.exit("check_fit: FAILED: " + what)
    checks += 1


# 1. 50 GiB live at once: fits an 80 GB device under every policy that does not cap it, never a 40 GB one (39.5 GiB
# usable after the 512 MiB CUDA context): a capacity OOM there, and "no setting helps".
cells, _ = matrix("fits_80g_not_40g.csv", "a100-80g,a100-40g", "strata,jax,tf,torch,torch-expandable")
for p in ["strata", "jax", "tf", "torch", "torch-expandable"]:
    expect(cells[("a100-80g", p)]["fits"], f"fits_80g_not_40g: {p} fits an A100 80GB")
    c = cells[("a100-40g", p)]
    expect(not c["fits"] and c["outcome"]["first_oom"]["kind"] == "capacity", f"{p} on an A100 40GB: capacity")
    expect(c["fix"]["capacity"] and not c["fix"]["found"], f"{p} on an A100 40GB: no setting")
    expect("no setting helps: the workload needs 50.00 GiB at peak, the device has 39.50 GiB" in c["fix"]["advice"],
           "the capacity advice names both figures")
    # Headroom: the least total that completes is at least the peak plus the context.
    expect(cells[("a100-80g", p)]["min_total_bytes"] >= 50 * GiB, f"{p}: min total >= the peak")

# 2. 62 GiB live: JAX's default region is 0.75 x 80 GiB = 60 GiB (a cap OOM); the least fraction in hundredths that
# holds 62 GiB is ceil(62 / 80, 0.01) = 0.78. strata-compare completes with it and fails with 0.77.
cells, _ = matrix("jax_fraction.csv", "h100-80g", "jax")
c = cells[("h100-80g", "jax")]
expect(not c["fits"] and c["outcome"]["first_oom"]["kind"] == "cap", "jax at 0.75: cap")
expect(c["fix"]["line"] == "XLA_CLIENT_MEM_FRACTION=0.78", "jax: the fraction 0.78, got " + c["fix"]["line"])
expect(completes("jax_fraction.csv", "jax", "h100-80g", ["mem_fraction=0.78"]), "compare: jax completes at 0.78")
expect(not completes("jax_fraction.csv", "jax", "h100-80g", ["mem_fraction=0.77"]), "compare: jax fails at 0.77")
# The BFC message of that failure, read back by strata-explain: a cap, and the same fraction advised.
e = json.loads(run([explain, c["outcome"]["first_oom"]["message"], "--device", "h100-80g", "--json"]).stdout)
expect(e["kind"] == "cap", "explain reads the jax OOM as cap")
expect(any("XLA_CLIENT_MEM_FRACTION=0.78" in a for a in e["advice"]), "explain advises 0.78: " + str(e))

# 3. vllm#41268: 100 layers of a 530 MiB weight freed, then a 270 MiB tensor carved from its segment. PyTorch's
# default needs 100 x 530 MiB = 51.8 GiB of segments (each holding a pinned 260 MiB remainder) for 26.9 GiB live:
# fragmentation on an A100 40GB. max_split_size_mb at the least PyTorch accepts (20 from 2.9, the default; 21 up to 2.8:
# parseMaxSplitSize, docs/gpu-policies.md) keeps the 530 MiB block whole (never split for a 270 MiB request, and too
# large to serve it whole: 530 >= 270 + 20, max_non_split_rounding_mb), so it completes; expandable segments pack the
# tensors. Each version's answer is its own least value, and strata-compare completes with it.
for version, least in (("2.9", 20), ("2.8", 21)):
    cells, _ = matrix("vllm_41268.csv", "a100-40g", "torch,torch-expandable", [f"torch_version={version}"])
    c = cells[("a100-40g", "torch")]
    expect(not c["fits"] and c["outcome"]["first_oom"]["kind"] == "fragmentation", "vllm: torch fragments")
    line = f"PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:{least}"
    expect(c["fix"]["line"] == line, f"vllm, PyTorch {version}: {line}, got " + c["fix"]["line"])
    expect(completes("vllm_41268.csv", "torch", "a100-40g", [f"max_split_size_mb={least}", f"torch_version={version}"]),
           f"compare: torch {version} at {least}")
    expect(cells[("a100-40g", "torch-expandable")]["fits"], "vllm: expandable segments save it")
    expect(any(a["line"] == "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True" for a in c["fix"]["alternatives"]),
           "vllm: expandable segments among the settings that complete")
# 20 under 2.8 is refused by PyTorch's own rule, so strata-compare cannot open that policy (exit status 3).
p = run([compare, f"{data}/vllm_41268.csv", "--contenders", "torch", "--capacity", "a100-40g", "--no-search", "--quiet",
     "--option", "max_split_size_mb=20", "--option", "torch_version=2.8"], status=3)
expect("max_split_size_mb too small, must be > 20" in p.stderr, "2.8 refuses 20: " + p.stderr)
expect(not completes("vllm_41268.csv", "torch", "a100-40g", []), "compare: torch default fails")
# The default (2.9) matrix, for what follows.
cells, _ = matrix("vllm_41268.csv", "a100-40g", "torch,torch-expandable")
c = cells[("a100-40g", "torch")]
# strata-compare's verdict asks the same search at the capacity it ran: the same line as strata-fit's, which then
# completes; --no-advice leaves it out, and so does a policy setting of the user's own (the search starts from the
# defaults).
def compare_runs(extra):
    args = [compare, f"{data}/vllm_41268.csv", "--capacity", "a100-40g", "--no-search", "--quiet", "--json", "-"]
    return {r["contender"]: r for r in json.loads(run(args + extra).stdout)["workloads"][0]["runs"]}
runs = compare_runs([])
expect(runs["torch"].get("advice") == c["fix"]["advice"], "compare's advice is strata-fit's: " + str(runs["torch"]))
expect(all("advice" not in r for r in runs.values() if r["completed"]), "no advice for a run that completes")
expect("advice" not in compare_runs(["--no-advice"])["torch"], "--no-advice: none")
expect("advice" not in compare_runs(["--contenders", "torch", "--option", "max_split_size_mb=4096"])["torch"],
       "a setting of the user's own: no advice")
table = run([compare, f"{data}/vllm_41268.csv", "--capacity", "a100-40g", "--no-search", "--quiet"]).stdout
expect("    torch: PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:20  (reserved" in table, "the verdict's advice line")
e = json.loads(run([explain, c["outcome"]["first_oom"]["message"], "--json"]).stdout)
expect(e["kind"] == "fragmentation", "explain reads the torch OOM as fragmentation")

# 9. tf_version: one 14.52 GiB buffer on a T4 (15.5 GiB free, cc 7.5). TensorFlow 2.5 on keeps 1050 MiB out of its
# pool (limit 14.47 GiB: a cap OOM, saved by TF_DEVICE_MIN_SYS_MEMORY_IN_MB); 2.4 kept 6 % of free memory, 952 MiB
# (limit 14.57 GiB: it fits), and had no such variable to advise.
import os  # noqa: E402
import tempfile  # noqa: E402
with tempfile.TemporaryDirectory() as tmp:
    one = os.path.join(tmp, "one_buffer.csv")
    with open(one, "w") as f:
        f.write(f"id,lower,upper,size\n0,0,1,{int(14.52 * GiB)}\n")
    args = [fit, one, "--devices", "t4", "--policies", "tf,tf-growth", "--json", "-", "--quiet", "--no-search"]
    new = {c["policy"]: c for c in json.loads(run(args).stdout)["cells"]}
    old = {c["policy"]: c for c in json.loads(run(args + ["--option", "tf_version=2.4"]).stdout)["cells"]}
    for p in ("tf", "tf-growth"):
        expect(not new[p]["fits"] and new[p]["outcome"]["first_oom"]["kind"] == "cap", f"{p}, TF 2.21: a cap OOM")
        expect(new[p]["fix"]["found"] and "TF_DEVICE_MIN_SYS_MEMORY_IN_MB=" in new[p]["fix"]["line"],
               f"{p}, TF 2.21: the reserve variable saves it: {new[p]['fix']}")
        expect(old[p]["fits"], f"{p}, TF 2.4: 6 % of free memory leaves room")
    run([fit, one, "--devices", "t4", "--option", "tf_version=3.0"], status=2)

print(f"check_fit: {checks} checks passed")
