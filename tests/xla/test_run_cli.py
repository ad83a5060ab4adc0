"""strata-run (python -m strata.run, python/strata/run.py) on the committed dump data/run_qmm (make_run_dump.py):
outputs bit-exact with what JAX computed on CPU (expected.npz), the int8 dot on the matrix unit, both placements;
bad input (missing files, arguments of the wrong shape or dtype, an opcode nobody runs, too little HBM) refused with
exit status 2 (1 for the HBM) and a message naming it, and no output file written. Needs no JAX.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_programs  # noqa: E402  (its fragmenting_args needs NumPy only)

DUMP = os.path.join(HERE, "data", "run_qmm")
ARGS = os.path.join(DUMP, "args.npz")


def strata_run(*argv):
    return subprocess.run([sys.executable, "-m", "strata.run", *argv], capture_output=True, text=True, check=False,
                          timeout=300)


def fragmenting_reference(x):
    """run_programs.fragmenting in float64 NumPy: what the run must be close to."""
    x = x.astype(np.float64)
    a, b, c, d = np.sin(x), np.cos(x), np.exp(x), np.tanh(x)
    return np.concatenate([a, c, a * c], axis=0) * (b.sum() + d.sum())


class StrataRun(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="strata-run-test-")
        self.out = os.path.join(self.tmp, "out.npz")
        self.json = os.path.join(self.tmp, "report.json")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def refused(self, argv, status, *needles):
        done = strata_run(*argv, "--out", self.out, "--json", self.json)
        self.assertEqual(done.returncode, status, done.stderr)
        for needle in needles:
            self.assertIn(needle, done.stderr)
        self.assertFalse(os.path.exists(self.out) or os.path.exists(self.json), "a refused run wrote a file")
        self.assertEqual([f for f in os.listdir(self.tmp) if f.startswith(".strata-run-")], [])
        return done.stderr

    def test_runs_bit_exact_on_both_placements(self):
        expected = np.load(os.path.join(DUMP, "expected.npz"))
        outputs = {}
        for allocation in ("firmware", "xla"):
            done = strata_run(DUMP, "--inputs", ARGS, "--out", self.out, "--json", self.json,
                              "--allocation", allocation)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertIn("jit_int8_matmul:", done.stdout)
            with np.load(self.out) as got:
                self.assertEqual(sorted(got.files), ["out_0", "out_1"])
                for key in got.files:
                    self.assertEqual(got[key].dtype, expected[key].dtype)
                    np.testing.assert_array_equal(got[key], expected[key])
                outputs[allocation] = {k: got[k] for k in got.files}
            with open(self.json) as f:
                report = json.load(f)
            self.assertEqual(report["allocation"], allocation)
            mxu = [op for op in report["ops"] if op["unit"] == "mxu"]
            self.assertEqual(len(mxu), 1)
            self.assertEqual(mxu[0]["lowered_as"], "dot")
            self.assertGreater(mxu[0]["cycles_mxu"], 0)
            self.assertEqual(mxu[0]["macs"], 24 * 80 * 40)
            self.assertEqual(report["host_ops"], {"fusion(kLoop)": 1})
            self.assertEqual(report["cycles"], sum(op["cycles"] for op in report["ops"]))  # every cycle accounted
            # The memory over the run, kept without asking the device, peaks where the device's own count does.
            self.assertEqual(report["hbm_in_use_peak_bytes"], report["peak_hbm_bytes"])
            self.assertEqual(max(op["hbm_in_use_bytes"] for op in report["ops"]), report["peak_hbm_bytes"])
            self.assertEqual(report["ops"][-1]["hbm_in_use_bytes"], 0)
            self.assertGreater(mxu[0]["utilization"], 0)
            self.assertLessEqual(mxu[0]["utilization"], 1)
            self.assertGreater(report["mxu_utilization"], 0)
            self.assertLessEqual(report["mxu_utilization_in_gemms"], 1.0)
            self.assertGreaterEqual(report["peak_hbm_bytes"], report["live_bytes_lower_bound"])
            # Every value of this program lives in an allocation of its own in XLA's plan (no temp).
            self.assertEqual(report["xla_temp_bytes"], 0)
            self.assertEqual(report.get("unplanned_values", []), [])
        for key in outputs["firmware"]:
            np.testing.assert_array_equal(outputs["firmware"][key], outputs["xla"][key])

    def test_timeline(self):
        trace = os.path.join(self.tmp, "timeline.json")
        done = strata_run(DUMP, "--inputs", ARGS, "--json", self.json, "--trace", trace, "--allocation", "xla")
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(trace) as f:
            events = json.load(f)["traceEvents"]
        with open(self.json) as f:
            report = json.load(f)
        names = {e["tid"]: e["args"]["name"] for e in events if e.get("name") == "thread_name"}
        self.assertEqual(sorted(names.values()), sorted(["matrix unit", "host fallback", "the call's allocations",
                                                         "host link (arguments, constants, outputs)"]))
        spans = sorted((e for e in events if e["ph"] == "X"), key=lambda e: e["ts"])
        # The spans tile the run: each starts where the one before ended, the last ends at the run's cycles.
        end = 0
        for span in spans:
            self.assertAlmostEqual(span["ts"], end / 1000)
            end += span["args"]["cycles"]
        self.assertEqual(end, report["cycles"])
        self.assertEqual([names[e["tid"]] for e in spans if e["name"] == "ynn_fusion"], ["matrix unit"])
        counter = [e["args"]["bytes"] for e in events if e["ph"] == "C"]
        self.assertEqual(max(counter), report["peak_hbm_bytes"])
        self.assertEqual(counter[-1], 0)

    def test_module_file_and_names(self):
        text = [f for f in os.listdir(DUMP) if f.endswith("after_optimizations.txt")][0]
        args = np.load(ARGS)
        named = os.path.join(self.tmp, "named.npz")
        np.savez(named, **{"a.1": args["arr_0"], "b.1": args["arr_1"], "scale.1": args["arr_2"]})
        done = strata_run(os.path.join(DUMP, text), "--inputs", named, "--out", self.out)
        self.assertEqual(done.returncode, 0, done.stderr)
        np.testing.assert_array_equal(np.load(self.out)["out_1"], np.load(os.path.join(DUMP, "expected.npz"))["out_1"])

    def test_help(self):
        done = strata_run("--help")
        self.assertEqual(done.returncode, 0)
        self.assertIn("--allocation {firmware,xla}", done.stdout)

    def test_missing_dump(self):
        self.refused([os.path.join(self.tmp, "nope"), "--inputs", ARGS], 2, "nope: no such file or folder")

    def test_folder_without_module(self):
        empty = tempfile.mkdtemp(dir=self.tmp)
        done = strata_run(empty, "--inputs", ARGS)
        self.assertEqual(done.returncode, 2)
        self.assertIn("no *.after_optimizations.txt", done.stderr)

    def test_missing_inputs(self):
        self.refused([DUMP, "--inputs", os.path.join(HERE, "no-such.npz")], 2, "no-such.npz: no such file")

    def test_inputs_not_npz(self):
        text = [f for f in os.listdir(DUMP) if f.endswith("assignment.txt")][0]
        self.refused([DUMP, "--inputs", os.path.join(DUMP, text)], 2, "not a NumPy .npz")

    def bad_npz(self, **arrays):
        path = os.path.join(tempfile.mkdtemp(dir=self.tmp), "bad.npz")
        np.savez(path, **arrays)
        return path

    def test_wrong_dtype_shape_count(self):
        args = np.load(ARGS)
        a, b, s = args["arr_0"], args["arr_1"], args["arr_2"]
        cases = [
            (dict(arr_0=a.astype(np.int32), arr_1=b, arr_2=s), "argument 0 (a.1) is int32[24, 80]; the program takes "
                                                              "int8[24, 80]"),
            (dict(arr_0=a, arr_1=b.T.copy(), arr_2=s), "argument 1 (b.1) is int8[40, 80]"),
            (dict(arr_0=a, arr_1=b), "no array for parameter 2 (scale.1"),
            (dict(arr_0=a, arr_1=b, arr_2=s, arr_3=s), "arr_3 match no parameter"),
        ]
        for arrays, needle in cases:
            with self.subTest(needle=needle):
                path = self.bad_npz(**arrays)
                done = strata_run(DUMP, "--inputs", path, "--out", self.out, "--json", self.json)
                self.assertEqual(done.returncode, 2, done.stderr)
                self.assertIn(needle, done.stderr)
                self.assertFalse(os.path.exists(self.out) or os.path.exists(self.json))

    def test_unknown_opcode(self):
        text = [f for f in os.listdir(DUMP) if f.endswith("after_optimizations.txt")][0]
        with open(os.path.join(DUMP, text)) as f:
            body = f.read()
        self.assertIn(" clamp(", body)
        bad = os.path.join(tempfile.mkdtemp(dir=self.tmp), text)
        with open(bad, "w") as f:
            f.write(body.replace(" clamp(", " frobnicate("))
        done = strata_run(bad, "--inputs", ARGS, "--out", self.out, "--json", self.json)
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("clamp.1 (line", done.stderr)
        self.assertIn("is opcode 'frobnicate', which Strata runs neither on the chip nor on the host fallback",
                      done.stderr)
        self.assertFalse(os.path.exists(self.out) or os.path.exists(self.json))

    def test_dot_fusion_with_parameters_in_another_order(self):
        # The fusion takes (b, a) and its body numbers them back: the chip still gets a as lhs, b as rhs.
        text = [f for f in os.listdir(DUMP) if f.endswith("after_optimizations.txt")][0]
        with open(os.path.join(DUMP, text)) as f:
            body = f.read()
        swaps = [("%param_0 = s8[24,80]{1,0} parameter(0)", "%param_0 = s8[24,80]{1,0} parameter(1)"),
                 ("%param_1 = s8[80,40]{1,0} parameter(1)", "%param_1 = s8[80,40]{1,0} parameter(0)"),
                 ("fusion(%a.1, %b.1)", "fusion(%b.1, %a.1)")]
        for old, new in swaps:
            self.assertIn(old, body)
            body = body.replace(old, new)
        swapped = os.path.join(tempfile.mkdtemp(dir=self.tmp), text)
        with open(swapped, "w") as f:
            f.write(body)
        done = strata_run(swapped, "--inputs", ARGS, "--out", self.out, "--json", self.json)
        self.assertEqual(done.returncode, 0, done.stderr)
        expected = np.load(os.path.join(DUMP, "expected.npz"))
        with np.load(self.out) as got:
            for key in ("out_0", "out_1"):
                np.testing.assert_array_equal(got[key], expected[key])
        with open(self.json) as f:
            self.assertEqual([op["unit"] for op in json.load(f)["ops"] if op["name"] == "ynn_fusion"], ["mxu"])

    def test_not_hlo(self):
        bad = os.path.join(tempfile.mkdtemp(dir=self.tmp), "m.after_optimizations.txt")
        with open(bad, "w") as f:
            f.write("HloModule m\n\nENTRY %main (a: f32[2]) -> f32[2] {\n  this is not an instruction\n}\n")
        done = strata_run(bad, "--inputs", ARGS)
        self.assertEqual(done.returncode, 2)
        self.assertIn("m.after_optimizations.txt:4: not an HLO instruction", done.stderr)

    def test_out_folder_missing(self):
        done = strata_run(DUMP, "--inputs", ARGS, "--out", os.path.join(self.tmp, "no", "out.npz"))
        self.assertEqual(done.returncode, 2)
        self.assertIn("does not exist", done.stderr)

    def fragmenting(self, rows):
        args = os.path.join(self.tmp, f"fragmenting-{rows}.npz")
        np.savez(args, *run_programs.fragmenting_args(rows))
        return os.path.join(HERE, "data", f"run_fragmenting_{rows}"), args

    def test_firmware_placement_compacts_on_oom(self):
        # 24 rows on a 1 MiB heap: the concatenation finds enough free bytes in two holes and the tail, and the
        # allocator compacts (defragment on OOM); XLA's plan, reusing buffers in place, needs no compaction.
        dump, args = self.fragmenting(24)
        got = {}
        for allocation in ("firmware", "xla"):
            out = os.path.join(self.tmp, f"{allocation}.npz")
            done = strata_run(dump, "--inputs", args, "--out", out, "--json", self.json, "--allocation", allocation,
                              "--hbm-capacity", str(2 << 20))
            self.assertEqual(done.returncode, 0, done.stderr)
            with open(self.json) as f:
                report = json.load(f)
            got[allocation] = (np.load(out)["out_0"], report)
        (fw_out, fw), (xla_out, xla) = got["firmware"], got["xla"]
        np.testing.assert_array_equal(fw_out, xla_out)
        want = fragmenting_reference(np.load(args)["arr_0"])
        np.testing.assert_allclose(fw_out, want, rtol=1e-5, atol=1e-6 * np.abs(want).max())
        self.assertGreaterEqual(fw["compactions"], 1)
        self.assertGreater(fw["compaction_cycles"], 0)
        self.assertGreater(fw["compaction_bytes_moved"], 0)
        self.assertEqual(xla["compactions"], 0)
        for report in (fw, xla):
            self.assertEqual(report["hbm_in_use_peak_bytes"], report["peak_hbm_bytes"])
        self.assertGreater(fw["peak_hbm_bytes"], xla["peak_hbm_bytes"])
        self.assertGreaterEqual(fw["peak_hbm_bytes"], fw["live_bytes_lower_bound"])
        self.assertEqual(xla["peak_hbm_bytes"] // 256, (xla["xla_peak_bytes"] + 255) // 256 + 1)  # + granule rounding

    def test_out_of_memory_says_where_exit_1(self):
        # 30 rows: the firmware placement holds the concatenation and its product at once and runs out at that
        # step; XLA's plan fits.
        dump, args = self.fragmenting(30)
        stderr = self.refused([dump, "--inputs", args, "--hbm-capacity", str(2 << 20)], 1,
                              "firmware placement: no room for 368640 B for wrapped_multiply.1 f32[90,1024]",
                              "step 11 of the schedule (wrapped_multiply.1, fusion(kLoop))", ": capacity (live ")
        self.assertNotIn("Traceback", stderr)
        done = strata_run(dump, "--inputs", args, "--allocation", "xla", "--hbm-capacity", str(2 << 20))
        self.assertEqual(done.returncode, 0, done.stderr)

    def test_capacity_below_the_firmwares_minimum(self):
        # Below the runtime firmware's minimum device (2 MiB: 1 MiB of heap) the sim refuses to open: exit 2.
        done = strata_run(DUMP, "--inputs", ARGS, "--out", self.out, "--hbm-capacity", str(1 << 20))
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("less than the runtime firmware needs", done.stderr)
        self.assertFalse(os.path.exists(self.out))


if __name__ == "__main__":
    unittest.main()
