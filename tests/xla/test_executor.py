"""strata.jax.run (python/strata/jax.py, executor.py): JAX programs run on the modelled TPU, against JAX on CPU.

- int8 x int8 -> int32 dots run on the matrix unit and are bit-exact with XLA:CPU (the requantize after them, on
  the host fallback, too), over a spread of shapes: below, at and above the 16 x 16 array, batched, transposed;
- a float MLP runs on the host fallback: within rtol 1e-5, atol 1e-6 of JAX (NumPy sums a float dot and a reduce in
  its own order and uses its own tanh), every op listed in host_ops;
- integer and data-movement ops on the host fallback are bit-exact with JAX;
- both placements give the same outputs; the firmware placement's peak is at least the live bytes; the xla
  placement's temp allocation is memory_analysis()'s temp size; donated arguments hold XLA's outputs; too little
  HBM fails saying where; an opcode nobody runs is refused before the device is touched.

Run by CTest with the project's .venv (scripts/setup.sh); exits 77 (skipped) when JAX is not installed there.
"""
import os
import sys
import unittest

try:
    import jax
    import jax.numpy as jnp
except ImportError as e:  # CTest counts 77 as skipped, never as passed
    print(f"skipped: JAX is not installed in this Python ({sys.executable}): {e}; run scripts/setup.sh")
    sys.exit(77)
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_programs  # noqa: E402
import strata  # noqa: E402
import strata.jax  # noqa: E402
from strata.hlo_eval import UnsupportedOpError  # noqa: E402
from strata.placement import PlacementError  # noqa: E402

RTOL, ATOL = 1e-5, 1e-6  # float32 programs on the host fallback (docs/jax-on-the-model.md)


def reference(fn, *args):
    return jax.tree.map(np.asarray, jax.jit(fn)(*args))


class Int8OnTheMxu(unittest.TestCase):
    def test_quantized_matmul_bit_exact(self):
        # m, k, n: one tile, ragged edges, fewer than a tile each way, several tiles each way.
        for m, k, n in ((16, 16, 16), (24, 80, 40), (3, 20, 5), (5, 33, 17), (64, 96, 48)):
            args = run_programs.int8_matmul_args(m, k, n, seed=m + k + n)
            want = reference(run_programs.int8_matmul, *args)
            for allocation in ("firmware", "xla"):
                with self.subTest(m=m, k=k, n=n, allocation=allocation):
                    (acc, y), report = strata.jax.run(run_programs.int8_matmul, *args, allocation=allocation)
                    self.assertEqual(acc.dtype, np.int32)
                    self.assertEqual(y.dtype, np.int8)
                    np.testing.assert_array_equal(acc, want[0])
                    np.testing.assert_array_equal(y, want[1])
                    np.testing.assert_array_equal(acc, args[0].astype(np.int32) @ args[1].astype(np.int32))
                    mxu = [op for op in report["ops"] if op["unit"] == "mxu"]
                    self.assertEqual(len(mxu), 1)
                    self.assertGreater(mxu[0]["cycles"], 0)
                    self.assertGreater(mxu[0]["cycles_mxu"], 0)
                    self.assertEqual(report["mxu_macs"], m * k * n)
                    self.assertNotIn("dot", " ".join(report["host_ops"]))
                    self.assertEqual(sum(report["host_ops"].values()), 1)  # the requantize fusion
                    self.assertGreater(report["mxu_utilization"], 0)
                    self.assertLessEqual(report["mxu_utilization_in_gemms"], 1)

    def test_matrix_vector_is_xla_cpus_s32_dot(self):
        # For very small products (one row; 2 x 7 x 3) XLA:CPU converts both operands to s32 before its dot: no s8
        # dot is left for the MXU, and the s32 dot runs on the host, still exact.
        args = run_programs.int8_matmul_args(1, 7, 3)
        (acc, y), report = strata.jax.run(run_programs.int8_matmul, *args)
        want = reference(run_programs.int8_matmul, *args)
        np.testing.assert_array_equal(acc, want[0])
        np.testing.assert_array_equal(y, want[1])
        self.assertEqual(report["mxu_macs"], 0)
        self.assertIn("dot", report["host_ops"])

    def test_batched_and_transposed_dots(self):
        rng = np.random.default_rng(5)

        def bmm(a, b):  # contract the last dims, batch the first: the host lays each batch out for strata_gemm
            return jax.lax.dot_general(a, b, (((2,), (2,)), ((0,), (0,))), preferred_element_type=jnp.int32)

        a = rng.integers(-128, 128, (3, 20, 40), dtype=np.int8)
        b = rng.integers(-128, 128, (3, 24, 40), dtype=np.int8)
        out, report = strata.jax.run(bmm, a, b)
        np.testing.assert_array_equal(out, reference(bmm, a, b))
        mxu, = [op for op in report["ops"] if op["unit"] == "mxu"]
        self.assertEqual(mxu["gemms"], 3)
        self.assertTrue(mxu["host_layout"])
        self.assertGreater(mxu["staging_bytes"], 0)

    def test_on_a_gpu_policy(self):
        # Any backend runs it: on gpu-emu under JAX's BFC policy the int8 product is the backend's GEMM, the same bits.
        args = run_programs.int8_matmul_args(24, 80, 40, seed=9)
        want = reference(run_programs.int8_matmul, *args)
        with strata.open("gpu-emu", policy="jax", total_bytes=1 << 30) as dev:
            (acc, y), report = strata.jax.run(run_programs.int8_matmul, *args, device=dev)
        np.testing.assert_array_equal(acc, want[0])
        np.testing.assert_array_equal(y, want[1])
        self.assertEqual([op["unit"] for op in report["ops"] if op["name"] == "ynn_fusion"], ["mxu"])
        self.assertEqual(report["hbm_in_use_peak_bytes"], report["peak_hbm_bytes"])

    def test_float_dot_is_not_on_the_mxu(self):
        x = np.ones((8, 8), np.float32)
        _, report = strata.jax.run(lambda a: a @ a, x)
        self.assertEqual([op["unit"] for op in report["ops"] if op["opcode"].startswith("fusion")], ["host"])
        self.assertEqual(report["mxu_macs"], 0)


class HostFallback(unittest.TestCase):
    def test_mlp_within_tolerance_both_placements(self):
        params, x = run_programs.mlp_args()
        want = reference(run_programs.mlp, params, x)
        got = {}
        for allocation in ("firmware", "xla"):
            out, report = strata.jax.run(run_programs.mlp, params, x, allocation=allocation)
            self.assertEqual(sorted(out), ["loss", "rowmax", "y"])
            for key in out:
                self.assertEqual(out[key].dtype, want[key].dtype)
                np.testing.assert_allclose(out[key], want[key], rtol=RTOL, atol=ATOL)
            got[allocation] = (out, report)
            units = {op["unit"] for op in report["ops"]}
            self.assertNotIn("mxu", units)
            self.assertEqual(set(report["host_ops"]), {"fusion(kCustom:__ynn_fusion)", "fusion(kLoop)"})
            self.assertEqual(report["host_ops"]["fusion(kCustom:__ynn_fusion)"], 2)  # the two float dots
            host = [op for op in report["ops"] if op["unit"] == "host"]
            self.assertTrue(all(op["cycles"] > 0 and op["bytes"] > 0 for op in host))
            m = report["xla_memory_analysis"]
            self.assertEqual(report["xla_temp_bytes"], m["temp_size_in_bytes"])
        fw, xla = got["firmware"][1], got["xla"][1]
        for key in got["firmware"][0]:
            np.testing.assert_array_equal(got["firmware"][0][key], got["xla"][0][key])
        self.assertGreaterEqual(fw["peak_hbm_bytes"], fw["live_bytes_lower_bound"])
        # XLA's plan: arguments + outputs + one temp allocation; the run holds exactly that (granule-rounded).
        self.assertGreaterEqual(xla["peak_hbm_bytes"], xla["xla_peak_bytes"])
        self.assertLess(xla["peak_hbm_bytes"] - xla["xla_peak_bytes"], 256 * 16)
        self.assertEqual(xla["unplanned_values"], [])
        self.assertLess(xla["num_allocs"], fw["num_allocs"])  # one temp allocation, not one per value

    def test_integer_and_data_movement_bit_exact(self):
        rng = np.random.default_rng(7)

        def prog(a, b, f):
            c = jnp.concatenate([a, b[:, ::-1]], axis=1)
            p = jnp.pad(c, ((1, 2), (0, 3)), constant_values=7)
            d = jax.lax.div(p, jnp.where(p == 0, 3, p // 5 + 1))
            r = jax.lax.rem(p, 7)
            s = jnp.where(p > 0, p << 2, p >> 1)
            t = jnp.transpose(p)[:, 1:5] + jnp.arange(p.shape[0])[1:5]
            q = jnp.clip(f * 300.0, -1e9, 1e9).astype(jnp.int8)  # saturating convert
            return d, r, s, t, q, jnp.sum(p, axis=0), jnp.max(p), jnp.cumsum(a, axis=1)

        a = rng.integers(-50, 50, (6, 5), dtype=np.int32)
        b = rng.integers(-50, 50, (6, 4), dtype=np.int32)
        f = rng.standard_normal((4, 4)).astype(np.float32)
        want = reference(prog, a, b, f)
        got, report = strata.jax.run(prog, a, b, f)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
        self.assertGreater(len(report["host_ops"]), 0)

    def test_scan_runs_its_loop_on_the_host(self):
        def scan(x):
            def body(c, xi):
                return c * 0.5 + jnp.sin(xi), c
            return jax.lax.scan(body, jnp.zeros(4, jnp.float32), x)

        x = np.random.default_rng(3).standard_normal((5, 4)).astype(np.float32)
        out, report = strata.jax.run(scan, x)
        for g, w in zip(jax.tree.leaves(out), jax.tree.leaves(reference(scan, x))):
            np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL)
        self.assertTrue(any(op in ("while", "call") for op in report["host_ops"]), report["host_ops"])


class ImportTestsPrograms(unittest.TestCase):
    def test_import_tests_programs_both_placements(self):
        # tests/xla/programs.py (a chain with fusion off, a scan, an SGD step), compiled without donation: outputs
        # against JAX, XLA's temp allocation as memory_analysis() sizes it, the firmware placement above the live
        # bytes.
        import programs
        for name, (fn, args, _, options) in programs.programs().items():
            want = jax.tree.leaves(reference(fn, *args))
            outs = {}
            for allocation in ("firmware", "xla"):
                with self.subTest(program=name, allocation=allocation):
                    out, report = strata.jax.run(fn, *args, allocation=allocation, compiler_options=options)
                    outs[allocation] = jax.tree.leaves(out)
                    for g, w in zip(outs[allocation], want):
                        np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL)
                    self.assertEqual(report["xla_temp_bytes"], report["xla_memory_analysis"]["temp_size_in_bytes"])
                    if allocation == "firmware":
                        self.assertGreaterEqual(report["peak_hbm_bytes"], report["live_bytes_lower_bound"])
                    self.assertEqual(report["cycles"], sum(op["cycles"] for op in report["ops"]))
            for g, w in zip(outs["firmware"], outs["xla"]):
                np.testing.assert_array_equal(g, w)


class Donation(unittest.TestCase):
    def test_donated_arguments_hold_the_outputs_under_xla(self):
        # tests/xla/programs.py's SGD step donates its parameters and momentum: XLA writes the updated ones into
        # their buffers, so its plan holds less; the firmware placement frees a donated argument after its last use.
        import programs
        fn, args, donate, _ = programs.programs()["donation"]
        want = jax.tree.leaves(reference(fn, *args))
        peaks = {}
        for donate_argnums in ((), donate):
            for allocation in ("firmware", "xla"):
                out, report = strata.jax.run(fn, *args, allocation=allocation, donate_argnums=donate_argnums)
                for g, w in zip(jax.tree.leaves(out), want):
                    np.testing.assert_allclose(g, w, rtol=RTOL, atol=ATOL)
                peaks[allocation, bool(donate_argnums)] = report
        donated, kept = peaks["xla", True], peaks["xla", False]
        m = donated["xla_memory_analysis"]
        self.assertGreater(m["alias_size_in_bytes"], 0)
        self.assertLess(donated["peak_hbm_bytes"], kept["peak_hbm_bytes"])
        self.assertEqual(donated["unplanned_values"], [])
        # XLA's plan as memory_analysis() sizes it: arguments, temp, and only the outputs that alias no argument,
        # less XLA:CPU's output tuple table (a pointer, 8 B, per output), which the placement does not hold.
        self.assertEqual(donated["xla_peak_bytes"], m["argument_size_in_bytes"] + m["temp_size_in_bytes"]
                         + m["output_size_in_bytes"] - m["alias_size_in_bytes"] - 8 * len(want))
        self.assertLess(donated["peak_hbm_bytes"] - donated["xla_peak_bytes"], 256 * 16)
        for donated_too in (False, True):
            fw = peaks["firmware", donated_too]
            self.assertGreaterEqual(fw["peak_hbm_bytes"], fw["live_bytes_lower_bound"])


class Failures(unittest.TestCase):
    def test_capacity_below_need_says_where(self):
        x = np.ones((512, 512), np.float32)  # 1 MiB in, 1 MiB out; the smallest sim device has 1 MiB of heap

        def f(v):
            return jnp.tanh(v) * 2 + v

        for allocation, where in (("firmware", "step 1 of the schedule"), ("xla", "XLA's allocation")):
            with self.subTest(allocation=allocation):
                with self.assertRaises(PlacementError) as cm:
                    strata.jax.run(f, x, allocation=allocation, hbm_capacity_bytes=2 << 20)
                message = str(cm.exception)
                self.assertIn(f"{allocation} placement: no room for 1048576 B", message)
                self.assertIn(where, message)
                self.assertIn("capacity", message)
        out, report = strata.jax.run(f, x, hbm_capacity_bytes=3 << 20)
        np.testing.assert_allclose(out, reference(f, x), rtol=RTOL, atol=ATOL)

    def test_firmware_compacts_where_xla_plan_does_not(self):
        (x,) = run_programs.fragmenting_args(24)
        runs = {a: strata.jax.run(run_programs.fragmenting, x, allocation=a, hbm_capacity_bytes=2 << 20,
                                  compiler_options=run_programs.FRAGMENTING_OPTIONS) for a in ("firmware", "xla")}
        np.testing.assert_array_equal(runs["firmware"][0], runs["xla"][0])
        want = reference(run_programs.fragmenting, x)
        np.testing.assert_allclose(runs["firmware"][0], want, rtol=RTOL, atol=ATOL * np.abs(want).max())
        self.assertGreaterEqual(runs["firmware"][1]["compactions"], 1)
        self.assertEqual(runs["xla"][1]["compactions"], 0)

    def test_unsupported_opcode_named_before_running(self):
        x = np.ones((4, 6), np.float32)
        with self.assertRaises(UnsupportedOpError) as cm:
            strata.jax.run(lambda v: jnp.argmax(v, axis=1), x)
        self.assertIn("is opcode 'reduce'", str(cm.exception))
        self.assertIn("a reduce of 2 operands", str(cm.exception))

    def test_bad_arguments(self):
        with self.assertRaises(ValueError):
            strata.jax.run(lambda v: v, np.ones(3, np.float32), allocation="bfc")
        with strata.open("sim") as dev:
            with self.assertRaises(TypeError):
                strata.jax.run(lambda v: v, np.ones(3, np.float32), device=dev, hbm_capacity_bytes=2 << 20)
            out, _ = strata.jax.run(lambda v: v + 1, np.ones(3, np.float32), device=dev)
            np.testing.assert_array_equal(out, np.full(3, 2, np.float32))
            self.assertFalse(dev.closed)  # a device given is the caller's to close


if __name__ == "__main__":
    unittest.main()
