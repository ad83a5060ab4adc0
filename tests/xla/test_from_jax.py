"""strata.workload.from_jax (python/strata/workload.py) on programs whose buffers are known (tests/xla/programs.py):
the in-process route (memory_analysis()) and the dump route (the importer) agree; sharding divides a weight.

Run by CTest with the project's .venv (scripts/setup.sh); exits 77 (skipped) when JAX is not installed there.
"""
import csv
import io
import os
import sys
import tempfile
import types
import unittest

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
try:
    import jax
    import jax.numpy as jnp
except ImportError as e:  # CTest counts 77 as skipped, never as passed
    print(f"skipped: JAX is not installed in this Python ({sys.executable}): {e}; run scripts/setup.sh")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import programs  # noqa: E402
import strata.workload  # noqa: E402


def rows(text):
    return [{k: int(v) for k, v in r.items()} for r in csv.DictReader(io.StringIO(text))]


class FromJax(unittest.TestCase):
    def check_program(self, name):
        fn, args, donate, options = programs.programs()[name]
        with strata.workload.from_jax(fn, *args, donate_argnums=donate, compiler_options=options, steps=2) as prog:
            m = prog.memory
            report = prog.compare(search=False, contenders="strata")
            runs = {r["contender"]: r for r in report["table"]}
            # xla-static's peak is what the compiler planned: memory_analysis()'s temp size.
            self.assertEqual(runs["xla-static"]["peak_reserved_bytes"], m["temp_size_in_bytes"])
            self.assertLessEqual(runs["lower-bound"]["peak_reserved_bytes"], runs["offline-bfd"]["peak_reserved_bytes"])
            self.assertTrue(all("OVERLAP" not in w.get("note", "") for w in report["runs"]))
            # The steps view: arguments live from time 0; the peak is arguments + temp + two calls' fresh outputs.
            steps = rows(prog.import_csv(view="steps"))
            live_at_zero = sum(r["size"] for r in steps if r["lower"] == 0)
            self.assertGreaterEqual(live_at_zero, m["argument_size_in_bytes"])
            self.assertLessEqual(live_at_zero - m["argument_size_in_bytes"], 64)  # constants: a few scalars at most
            executable = rows(prog.import_csv())
            self.assertEqual(sum(r["size"] for r in executable) > 0, True)
            self.check_routes(prog, report)
            return prog.memory

    def check_routes(self, prog, text_report):
        """The three routes of one compile: the protobuf dump gives the text dump's workload (xla-static at
        memory_analysis()'s temp size; without a while loop the same buffers and max load; xla_proto_test.cc checks
        offsets and lifetimes pair by pair), memory_analysis()'s own proto the same steps view and no executable
        view (it has no trace), and memory_analysis()'s peak is what stays resident around a call."""
        m = prog.memory
        self.assertIsNotNone(prog.hlo_proto)
        self.assertIsNotNone(prog.analysis_proto)
        report = prog.compare(route="proto", search=False, contenders="strata")
        runs = {r["contender"]: r for r in report["table"]}
        text_runs = {r["contender"]: r for r in text_report["table"]}
        self.assertEqual(runs["xla-static"]["peak_reserved_bytes"], m["temp_size_in_bytes"])
        # A while loop's tuple index tables are not in the trace, and SHARE_WITH joins a chunk's values across a
        # gap (docs/jax.md): the proto route has fewer buffers then; without a loop it has the very same ones.
        self.assertLessEqual(report["buffers"], text_report["buffers"])
        text, proto = rows(prog.import_csv()), rows(prog.import_csv(route="proto"))
        if report["buffers"] == text_report["buffers"]:
            self.assertEqual(report["max_load_bytes"], text_report["max_load_bytes"])
            self.assertEqual(runs["lower-bound"]["peak_reserved_bytes"],
                             text_runs["lower-bound"]["peak_reserved_bytes"])
            self.assertEqual(sorted(r["size"] for r in text), sorted(r["size"] for r in proto))
        # memory_analysis()'s peak (CPU, jaxlib 0.10.2): arguments, outputs that alias none, constants; no temp.
        constants = sum(r["size"] for r in rows(prog.import_csv(view="steps")) if r["lower"] == 0) \
            - m["argument_size_in_bytes"]  # the steps view holds the constants and arguments from time 0
        self.assertEqual(m["peak_memory_in_bytes"], m["argument_size_in_bytes"] + m["output_size_in_bytes"]
                         - m["alias_size_in_bytes"] + constants)
        steps = prog.import_csv(view="steps")
        self.assertEqual(prog.import_csv(view="steps", route="proto"), steps)
        self.assertEqual(prog.import_csv(view="steps", route="memory_analysis"), steps)
        with self.assertRaisesRegex(ValueError, "no heap-simulator trace"):
            prog.import_csv(route="memory_analysis")
        with self.assertRaisesRegex(ValueError, "route must be one of"):
            prog.import_csv(route="hlo")

    def test_compare_views(self):
        """JaxProgram.compare takes strata-compare's XLA options: the steps view, its calls, TPU padding; the
        report says which TPU presets hold one device's share."""
        fn, args, donate, options = programs.programs()["donation"]
        with strata.workload.from_jax(fn, *args, donate_argnums=donate, compiler_options=options, steps=2) as prog:
            report = prog.compare(view="steps", steps=4, tpu_pad=True, search=False, contenders="strata")
            self.assertIn("steps, 4 steps, TPU-padded", report["source"])
            self.assertEqual(report["devices"], 1)
            self.assertEqual(report["fits"], {name: True for name in strata.workload.TPU_PRESETS})
            plain = prog.compare(view="steps", search=False, contenders="strata")
            self.assertIn("steps, 2 steps, compiled for the CPU)", plain["source"])
            with self.assertRaisesRegex(ValueError, "--xla-view 'hlo': executable or steps"):
                prog.compare(view="hlo", search=False, contenders="strata")

    def test_chain(self):
        m = self.check_program("chain")
        self.assertEqual(m["argument_size_in_bytes"], 256 * 128 * 4)
        self.assertEqual(m["output_size_in_bytes"], 256 * 128 * 4)

    def test_scan(self):
        m = self.check_program("scan")
        self.assertEqual(m["argument_size_in_bytes"], (64 * 64 + 8 * 64 * 64) * 4)

    def test_donation(self):
        m = self.check_program("donation")
        self.assertEqual(m["alias_size_in_bytes"], 2 * (64 * 256 + 256 + 256 * 32) * 4)

    def test_sharded_weight_is_a_quarter_per_device(self):
        w = jnp.ones((1024, 256), jnp.float32)
        with strata.workload.from_jax(lambda w: jnp.tanh(w) * 2.0, w, devices=1) as one, \
                strata.workload.from_jax(lambda w: jnp.tanh(w) * 2.0, w, devices=4) as four:
            self.assertEqual(one.memory["argument_size_in_bytes"], 1024 * 256 * 4)
            self.assertEqual(four.memory["argument_size_in_bytes"], 1024 * 256 * 4 // 4)
            self.assertEqual(four.memory["output_size_in_bytes"], 1024 * 256 * 4 // 4)
            self.assertLess(four.device_bytes, one.device_bytes)
            self.assertEqual(set(four.fits()), set(strata.workload.TPU_PRESETS))

    def test_twice_into_one_dump_dir(self):
        # The same function and arguments compiled again into the same folder: JAX's in-memory cache answered the
        # second compile, XLA wrote no dump, and from_jax said the dump option was not honoured.
        def fn(w):
            return jnp.tanh(w) * 2.0

        w = jnp.ones((256, 128), jnp.float32)
        with tempfile.TemporaryDirectory() as d:
            with strata.workload.from_jax(fn, w, dump_dir=d) as first, \
                    strata.workload.from_jax(fn, w, dump_dir=d) as second:
                self.assertNotEqual(first.assignment, second.assignment)  # each reads its own compile's dump
                self.assertIn(".jit_fn.", second.module)  # named as fn, as before
                self.assertEqual(first.memory, second.memory)
                self.assertEqual(first.import_csv(view="steps"), second.import_csv(view="steps"))
            self.assertTrue(os.path.isfile(first.assignment))  # the caller's folder: kept

    def test_no_dump_from_the_persistent_cache_says_what_to_do(self):
        # A program served from JAX's persistent cache skips XLA and its dump (the cache key leaves xla_dump_* out).
        config = types.SimpleNamespace(jax_compilation_cache_dir="/tmp/jax-cache", jax_enable_compilation_cache=True)
        message = strata.workload._no_dump_message(types.SimpleNamespace(config=config), "/tmp/dump")
        self.assertIn("persistent compilation cache (/tmp/jax-cache)", message)
        self.assertIn("jax_enable_compilation_cache", message)
        config.jax_enable_compilation_cache = False
        message = strata.workload._no_dump_message(types.SimpleNamespace(config=config), "/tmp/dump")
        self.assertNotIn("persistent", message)

    def test_too_many_devices(self):
        with self.assertRaisesRegex(ValueError, "xla_force_host_platform_device_count"):
            strata.workload.from_jax(lambda w: w + 1, jnp.ones((64,)), devices=len(jax.devices()) * 2)


if __name__ == "__main__":
    unittest.main()
