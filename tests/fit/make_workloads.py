#!/usr/bin/env python3
"""Writes the crafted workloads of tests/fit/data (trace CSVs: id,lower,upper,size; times are event order).

Each has an answer known by arithmetic, independent of the tool (tests/fit/CMakeLists.txt states each one):
  fits_80g_not_40g.csv  five 10 GiB buffers live together: 50 GiB at peak, over an A100 40GB's 39.5 GiB usable
  jax_fraction.csv      thirty-one 2 GiB buffers live together: 62 GiB, over JAX's 0.75 x 80 GiB = 60 GiB region
  proc_jax.csv, proc_torch.csv  19 and 30 buffers of 1 GiB live together, for two processes on one GPU
  vllm_41268.csv        100 layers: a 530 MiB weight allocated and freed, then a 270 MiB tensor that stays live,
                        carved by PyTorch's best fit from the freed 530 MiB segment (a pinned 260 MiB remainder)
Run it from this directory to regenerate them: python3 make_workloads.py
"""
import os

MiB, GiB = 1 << 20, 1 << 30


def write(name, buffers):
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", name), "w") as f:
        f.write("id,lower,upper,size\n")
        for i, (lo, hi, size) in enumerate(buffers):
            f.write(f"{i},{lo},{hi},{size}\n")


write("fits_80g_not_40g.csv", [(i, 10, 10 * GiB) for i in range(5)])
write("jax_fraction.csv", [(i, 40, 2 * GiB) for i in range(31)])
layers, t, v = 100, 0, []
for _ in range(layers):
    v.append((t, t + 1, 530 * MiB))  # the weight, freed at once
    v.append((t + 2, 10 * layers, 270 * MiB))  # live to the end
    t += 3
write("vllm_41268.csv", v)
# Two processes on an A100 80GB: JAX with 19 x 1 GiB live, PyTorch with 30 x 1 GiB live.
write("proc_jax.csv", [(i, 40, GiB) for i in range(19)])
write("proc_torch.csv", [(i, 40, GiB) for i in range(30)])
