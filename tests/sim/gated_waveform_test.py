#!/usr/bin/env python3
"""The clock gates of the DMA, the matrix unit and the line memories (tpu_top, tpu_clock_gate) change when
the chip is evaluated, not what any register holds: a GEMM recorded in full with the gates working
(STRATA_SIM_FAST_FORWARD=1) and held open (=0) gives the same waveform for every signal but these:

  - the clock nets and the gates themselves (clk_*, *_gate.*, gates_steady, ...);
  - the matrix unit's tag delay line's ring (u_tag.gen_ring): its pointer stops while the gate is closed,
    so its slots, which all hold the idle tag by then, sit at other positions;
  - loop variables of combinational blocks (unnamedblk*), which Verilator records as it evaluates.

The gates must also have closed in the run (the gated clocks toggle less), or the comparison says nothing.

usage: gated_waveform_test.py STRATA_SIM WORKDIR MAKE_NPY
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vcd_scan  # noqa: E402

ALLOWED = re.compile(r"(^|\.)clk_|_gate\.|gate_bypass_i|gates_steady|_gate_steady|_clk_en|u_tag\.gen_ring\.|"
                     r"unnamedblk")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sim, work, make_npy = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    # Two commands' worth of idle time between DMA and matrix-unit work: the gates open and close.
    a, b = os.path.join(work, "a.npy"), os.path.join(work, "b.npy")
    subprocess.run([sys.executable, make_npy, a, "40", "50", "3"], check=True)
    subprocess.run([sys.executable, make_npy, b, "50", "30", "4"], check=True)
    waves = {}
    for fast in (True, False):
        wave = os.path.join(work, f"gemm_{int(fast)}.fst")
        env = dict(os.environ, STRATA_SIM_FAST_FORWARD="1" if fast else "0")
        try:
            subprocess.run([sim, "gemm", "--a", a, "--b", b, "--out", os.path.join(work, "c.npy"), "--trace", wave],
                           env=env, check=True, stdout=subprocess.DEVNULL, timeout=60)
        except subprocess.TimeoutExpired:
            sys.exit(f"FAIL the GEMM did not finish in 60 s with the gates {'working' if fast else 'held open'}")
        waves[fast] = vcd_scan.histories(wave)
    on, off = waves[True], waves[False]
    if set(on) != set(off):
        sys.exit(f"FAIL the two waveforms record different signals: {sorted(set(on) ^ set(off))[:10]}")
    differ = [n for n in sorted(on) if on[n] != off[n]]
    unexpected = [n for n in differ if not ALLOWED.search(n)]
    for n in unexpected[:20]:
        i = next((i for i, (x, y) in enumerate(zip(on[n], off[n])) if x != y), min(len(on[n]), len(off[n])))
        at = min(w[i][0] for w in (on[n], off[n]) if i < len(w))
        print(f"  {n}: {len(on[n])} changes gated, {len(off[n])} held open; first difference at t={at}")
    if unexpected:
        sys.exit(f"FAIL {len(unexpected)} of {len(on)} signals differ with the gates working")
    for clk in ("strata.tpu_top.clk_dma", "strata.tpu_top.clk_mxu", "strata.tpu_top.clk_mem"):
        if len(on[clk]) * 2 > len(off[clk]):
            sys.exit(f"FAIL {clk} toggled {len(on[clk])} times gated against {len(off[clk])}: the gate hardly closed")
    print(f"ok   {len(on)} signals, the same but for {len(differ)} clock, gate and ring-pointer signals; "
          f"clk_dma toggled {len(on['strata.tpu_top.clk_dma'])} times against {len(off['strata.tpu_top.clk_dma'])}")


if __name__ == "__main__":
    main()
