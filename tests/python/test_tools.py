"""strata.replay and strata.compare: the tools' JSON as dicts and the CSV as a list of dicts, traces from files
and from rows, bad input as ValueError / TypeError."""
import json
import os
import subprocess
import sys
import threading
import time
import unittest

import strata
import strata.workload
from strata_testing import TRACES, have_sim

SMALL = os.path.join(TRACES, "minimalloc_A.csv")
TRACE_KEYS = ["trace", "policy", "compaction", "buffers", "granule_bytes", "max_load_bytes", "capacity_bytes",
              "footprint_bytes", "footprint_ratio", "failed_allocs", "compactions", "moves", "bytes_moved"]
GPU_KEYS = ["trace", "backend", "policy", "total_bytes", "events", "allocs", "frees", "failed_allocs",
            "first_oom_kind", "peak_bytes_in_use", "peak_pool_bytes", "bytes_limit"]


def rows_of(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
        rows = []
        for line in f:
            if line.strip():
                values = dict(zip(header, line.strip().split(",")))
                rows.append({k: int(values[k]) for k in ("id", "lower", "upper", "size")})
    return rows


class ReplayTest(unittest.TestCase):
    def test_host(self):
        for policy in ("tlsf", "best-fit", "first-fit"):
            for capacity, compaction in ((None, False), ("1.0x", True), ("1.2x", False), (4 << 20, False)):
                with self.subTest(policy=policy, capacity=capacity, compaction=compaction):
                    r = strata.replay(SMALL, policy=policy, capacity=capacity, compaction=compaction)
                    for key in TRACE_KEYS:
                        self.assertIn(key, r)
                    self.assertEqual(r["trace"], "minimalloc_A.csv")
                    self.assertEqual(r["policy"], policy)
                    self.assertEqual(r["compaction"], "on-oom" if compaction else "off")
                    self.assertEqual(r["buffers"], 154)
        unbounded = strata.replay(SMALL)
        self.assertIsNone(unbounded["capacity_bytes"])
        self.assertGreaterEqual(unbounded["footprint_bytes"], unbounded["max_load_bytes"])

    def test_bounded_runs(self):
        for max_events in (1, 10, 307):
            host = strata.replay(SMALL, max_events=max_events, granule=512)
            self.assertEqual((host["events"], host["events_total"], host["granule_bytes"]), (max_events, 308, 512))
            gpu = strata.replay(SMALL, backend="gpu-emu", max_events=max_events)
            self.assertEqual((gpu["events"], gpu["events_total"]), (max_events, 308))
        for bad in (0, -1):
            with self.assertRaises(ValueError):
                strata.replay(SMALL, max_events=bad)
        with self.assertRaises(TypeError):
            strata.replay(SMALL, max_events=1.5)
        with self.assertRaises(ValueError):
            strata.replay(SMALL, backend="gpu-emu", granule=512)  # the policy decides its rounding

    def test_rows_equal_the_file(self):
        rows = rows_of(SMALL)
        from_file = strata.replay(SMALL, capacity="1.0x", compaction=True)
        from_rows = strata.replay(rows, capacity="1.0x", compaction=True)
        tuples = strata.replay([(r["id"], r["lower"], r["upper"], r["size"]) for r in rows], capacity="1.0x",
                               compaction=True)
        for r in (from_rows, tuples):
            for key in ("buffers", "max_load_bytes", "footprint_bytes", "failed_allocs", "moves", "bytes_moved"):
                self.assertEqual(r[key], from_file[key], key)

    def test_gpu_emu_every_policy(self):
        for policy in strata.gpu_policies():
            # 4 KiB pages on 1.5x the max load; a preset's 40 GB in its 2 MiB pages (jax-async walks every page).
            for capacity, options in (("1.5x", {"page_bytes": 4096}), ("a100-40g", None)):
                with self.subTest(policy=policy, capacity=capacity):
                    r = strata.replay(SMALL, backend="gpu-emu", policy=policy, capacity=capacity, options=options)
                    for key in GPU_KEYS:
                        self.assertIn(key, r)
                    self.assertEqual((r["backend"], r["policy"]), ("gpu-emu", policy))
                    self.assertEqual(r["allocs"], 154)
                    self.assertIn(r["first_oom_kind"], ("none", "capacity", "cap", "fragmentation"))

    def test_same_as_the_command_line_tool(self):
        tool = os.environ.get("STRATA_REPLAY_TOOL")
        if not tool or not os.path.exists(tool):
            self.skipTest("STRATA_REPLAY_TOOL (build/host/replay/strata-replay) not given")

        out = subprocess.run([tool, SMALL, "--backend", "gpu-emu", "--policy", "tf", "--capacity", "1.3x",
                              "--option", "page_bytes=4096", "--json"], capture_output=True, text=True)
        cli = json.loads(out.stdout)
        py = strata.replay(SMALL, backend="gpu-emu", policy="tf", capacity="1.3x", options={"page_bytes": 4096})
        cli.pop("wall_seconds")
        py.pop("wall_seconds")
        self.assertEqual(cli, py)

    def test_sim_without_the_backend(self):
        if have_sim():
            self.skipTest("this build has the sim backend (test_sim replays on it)")
        with self.assertRaises(RuntimeError) as cm:
            strata.replay(SMALL, backend="sim")
        self.assertIn("no sim backend", str(cm.exception))

    def test_messages_that_help(self):
        # A GPU framework's policy asked of the host allocator names the backend that replays it.
        with self.assertRaises(ValueError) as cm:
            strata.replay(SMALL, policy="torch")
        self.assertIn("torch is a GPU framework's policy", str(cm.exception))
        self.assertIn('backend="gpu-emu"', str(cm.exception))
        # A file that cannot be opened says why.
        with self.assertRaises(ValueError) as cm:
            strata.replay("/no/such/trace.csv")
        self.assertIn("No such file or directory", str(cm.exception))

    def test_bad_input(self):
        with self.assertRaises(ValueError):
            strata.replay(SMALL, backend="nope")
        with self.assertRaises(ValueError):
            strata.replay(SMALL, policy="nope")
        with self.assertRaises(ValueError):
            strata.replay(SMALL, capacity="lots")
        with self.assertRaises(ValueError):
            strata.replay(SMALL, granule=3)
        with self.assertRaises(ValueError):
            strata.replay("/no/such/trace.csv")
        with self.assertRaises(ValueError):
            strata.replay(SMALL + "\0.txt")
        with self.assertRaises(ValueError):
            strata.replay([{"id": 1, "lower": 5, "upper": 2, "size": 8}])  # ends before it starts
        with self.assertRaises(ValueError):
            strata.replay([{"id": 1, "lower": 0}])
        with self.assertRaises(ValueError):
            strata.replay([(1, 2, 3)])
        with self.assertRaises(ValueError):
            strata.replay(SMALL, options={"mxu_n": 8})  # options need a device backend
        # What the backend refuses at open is input too (docs/python.md): ValueError, as the host's refusals.
        with self.assertRaises(ValueError) as cm:
            strata.replay(SMALL, backend="gpu-emu", policy="no-such-policy")
        self.assertIn("no-such-policy", str(cm.exception))
        with self.assertRaises(ValueError):
            strata.replay(SMALL, backend="gpu-emu", capacity="h999-1g")  # no such GPU preset
        with self.assertRaises(ValueError):
            strata.replay(SMALL, backend="gpu-emu", options={"mem_fraction": "2.5"})
        for bad in (None, 3, b"x.csv", {"id": 1}):
            with self.assertRaises(TypeError):
                strata.replay(bad)
        with self.assertRaises(TypeError):
            strata.replay(SMALL, capacity=1.5)
        with self.assertRaises(TypeError):
            strata.replay([("a", 0, 1, 8)])


class CompareTest(unittest.TestCase):
    def test_report_and_table(self):
        report = strata.compare(SMALL, capacity="1.1x", options={"page_bytes": 4096})
        for key in ("name", "source", "buffers", "events", "max_load_bytes", "capacity", "capacity_bytes", "runs",
                    "occupancy", "table"):
            self.assertIn(key, report)
        self.assertEqual(report["name"], "minimalloc_A.csv")
        self.assertEqual([r["contender"] for r in report["runs"]], strata.contenders())
        self.assertEqual([row["contender"] for row in report["table"]], strata.contenders())
        for row, run in zip(report["table"], report["runs"]):
            self.assertIsInstance(row, dict)
            self.assertIsInstance(row["completed"], bool)
            self.assertEqual(row["completed"], run["completed"])
            self.assertEqual(row["failed_allocs"], run["failed_allocs"])
            self.assertIsInstance(row["min_capacity_ratio"], float)
            self.assertTrue(row["min_capacity_found"])
        strata_row = report["table"][0]
        self.assertEqual(strata_row["contender"], "strata")
        self.assertTrue(strata_row["completed"])

    def test_contenders_rows_and_no_search(self):
        rows = rows_of(SMALL)
        for contenders in (["strata", "torch"], "jax,jax+defrag", ["tf-async"]):
            with self.subTest(contenders=contenders):
                report = strata.compare(rows, contenders=contenders, search=False, capacity=2 << 20)
                names = contenders.split(",") if isinstance(contenders, str) else contenders
                self.assertEqual([row["contender"] for row in report["table"]], names)
                self.assertTrue(all(row["min_capacity_bytes"] is None for row in report["table"]))
                self.assertEqual(report["capacity_bytes"], 2 << 20)

    def test_html(self):
        """html= writes strata-compare --html's page; a path it cannot write, or the workload, is refused first."""
        import pathlib
        import shutil
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            page = pathlib.Path(tmp) / "compare.html"
            report = strata.compare(SMALL, search=False, options={"page_bytes": 4096}, html=page,
                                    contenders=["strata", "jax"])
            text = page.read_text()
            start = text.index('<script type="application/json" id="strata-data">')
            data = json.loads(text[text.index(">", start) + 1:text.index("</script>", start)])
            self.assertEqual(data["workloads"][0]["name"], report["name"])
            self.assertEqual([r["contender"] for r in data["workloads"][0]["runs"]], ["strata", "jax"])
            self.assertIsNotNone(data["workloads"][0]["runs"][0]["places"])
            workload = os.path.join(tmp, "w.csv")
            shutil.copyfile(SMALL, workload)
            before = pathlib.Path(workload).read_bytes()
            with self.assertRaisesRegex(ValueError, "is the workload"):
                strata.compare(workload, html=workload)
            self.assertEqual(pathlib.Path(workload).read_bytes(), before)
            with self.assertRaises(ValueError):
                strata.compare(SMALL, html=os.path.join(tmp, "missing", "x.html"))
            with self.assertRaises(TypeError):
                strata.compare(SMALL, html=3)
            self.assertEqual(sorted(os.listdir(tmp)), ["compare.html", "w.csv"])

    def test_memory_viz(self):
        """memory_viz= writes strata-compare --memory-viz's snapshot: the same bytes as the command line's; bad paths
        and contenders refused first."""
        import pathlib
        import pickle
        import tempfile
        tool = os.path.join(os.path.dirname(os.environ["STRATA_REPLAY_TOOL"]), "..", "compare", "strata-compare")
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp) / "run.pickle"
            strata.compare(SMALL, search=False, contenders=["strata", "torch"], options={"page_bytes": 4096},
                           memory_viz=out, memory_viz_contender="strata")
            data = pickle.loads(out.read_bytes())
            self.assertEqual(len(data["device_traces"]), 1)
            self.assertEqual(sum(e["action"] == "alloc" for e in data["device_traces"][0]),
                             sum(1 for e in data["device_traces"][0] if e["action"] == "free_completed"))
            if os.path.exists(tool):
                again = pathlib.Path(tmp) / "cli.pickle"
                subprocess.run([tool, SMALL, "--no-search", "--contenders", "strata,torch", "--option",
                                "page_bytes=4096", "--no-table", "--memory-viz", str(again),
                                "--memory-viz-contender", "strata"], check=True)
                self.assertEqual(again.read_bytes(), out.read_bytes())
                again.unlink()
            # torch by default (at 1.0x it fails every allocation of this trace: its segments round to 2 MiB)
            strata.compare(SMALL, search=False, contenders=["jax", "torch"], options={"page_bytes": 4096},
                           capacity="8.0x", memory_viz=out)
            self.assertTrue(any(e["action"] == "segment_alloc" for e in pickle.loads(out.read_bytes())
                                ["device_traces"][0]))
            before = out.read_bytes()
            with self.assertRaisesRegex(ValueError, "not among the contenders"):
                strata.compare(SMALL, contenders=["jax"], memory_viz=out, memory_viz_contender="torch")
            with self.assertRaisesRegex(ValueError, "give memory_viz too"):
                strata.compare(SMALL, memory_viz_contender="torch")
            with self.assertRaises(ValueError):
                strata.compare(SMALL, memory_viz=os.path.join(tmp, "missing", "x.pickle"))
            with self.assertRaises(TypeError):
                strata.compare(SMALL, memory_viz=3)
            self.assertEqual(out.read_bytes(), before)
            self.assertEqual(sorted(os.listdir(tmp)), ["run.pickle"])

    def test_bad_input(self):
        with self.assertRaises(ValueError):
            strata.compare(SMALL, contenders="nope")
        with self.assertRaises(ValueError):
            strata.compare(SMALL, capacity="lots")
        with self.assertRaises(ValueError):
            strata.compare(SMALL, backend="gpu")
        with self.assertRaises(ValueError):
            strata.compare(SMALL, format="xml")
        with self.assertRaises(ValueError):
            strata.compare(SMALL, options={"no_such_option": 1})
        with self.assertRaises(ValueError):
            strata.compare(SMALL, resolution=0)
        with self.assertRaises(ValueError):
            strata.compare("/no/such/workload.csv")
        with self.assertRaises(TypeError):
            strata.compare(SMALL, contenders=3)
        with self.assertRaises(TypeError):
            strata.compare(None)


class PolicyListsTest(unittest.TestCase):
    def test_lists(self):
        policies = strata.gpu_policies()
        self.assertIn("jax", policies)
        self.assertIn("torch", policies)
        contenders = strata.contenders()
        self.assertEqual(contenders[:2], ["strata", "strata-no-compact"])
        self.assertTrue(set(policies) <= set(contenders))
        # gpu-emu's "policy" option lists the same names (one list in host/gpu).
        policy_help = next(o["help"] for o in strata.backend_options("gpu-emu") if o["name"] == "policy")
        for p in policies:
            self.assertIn(p, policy_help)


if __name__ == "__main__":
    unittest.main()


class ExplainTest(unittest.TestCase):
    """strata.explain: strata-explain's reading (docs/fit.md) as a dict; the same answer as the tool's --json."""

    # PyTorch 2.x's OutOfMemoryError (c10/cuda/CUDACachingAllocator.cpp): 20.04 GiB allocated + 530 MiB fits in
    # 120.5 MiB free + 38.75 GiB reserved: fragmentation.
    TORCH = ("CUDA out of memory. Tried to allocate 530.00 MiB. GPU 0 has a total capacity of 39.38 GiB of which "
             "120.50 MiB is free. Of the allocated memory 20.04 GiB is allocated by PyTorch, and 18.71 GiB is reserved "
             "by PyTorch but unallocated.")

    def test_pytorch(self):
        e = strata.explain(self.TORCH)
        self.assertEqual(e["format"], "pytorch")
        self.assertEqual(e["kind"], "fragmentation")
        self.assertEqual(e["request_bytes"], 530 << 20)
        self.assertTrue(any("expandable_segments:True" in a for a in e["advice"]))

    def test_settings_already_on(self):
        """settings= is strata-explain --set: advice never names a setting the user has on, and the answer equals the
        tool's own for the same flags."""
        plain = strata.explain(self.TORCH)
        self.assertTrue(any("expandable_segments" in a for a in plain["advice"]))
        on = strata.explain(self.TORCH, settings=["expandable_segments"])
        self.assertFalse(any("expandable_segments" in a for a in on["advice"]), on["advice"])
        self.assertEqual(on["kind"], plain["kind"])
        tool = os.path.join(os.path.dirname(strata.__file__), "..", "..", "host", "fit", "strata-explain")
        if os.path.exists(tool):
            out = subprocess.run([tool, self.TORCH, "--set", "expandable_segments", "--json"], capture_output=True,
                                 text=True, check=True).stdout
            self.assertEqual(json.loads(out)["advice"], on["advice"])
        with self.assertRaises(TypeError):
            strata.explain(self.TORCH, settings="expandable_segments")
        with self.assertRaises(TypeError):
            strata.explain(self.TORCH, settings=[7])

    def test_device_and_bad_input(self):
        # The BFC's summary with a 60 GiB limit: 58 + 4 GiB is over it; on an H100 (79.5 GiB usable) it is a cap.
        msg = ("Allocator (GPU_0_bfc) ran out of memory trying to allocate 4.00GiB (rounded to 4294967296). Current "
               f"allocation summary: bytes_in_use {58 << 30}, pool_bytes {60 << 30}, bytes_limit {60 << 30}, "
               "largest_free_block_bytes 0, regions 1.")
        self.assertEqual(strata.explain(msg, device="h100-80g")["kind"], "cap")
        with self.assertRaisesRegex(ValueError, "not an out-of-memory message"):
            strata.explain("Segmentation fault")
        with self.assertRaisesRegex(ValueError, "unknown device 'h999'"):
            strata.explain(self.TORCH, device="h999")
        with self.assertRaises(TypeError):
            strata.explain(b"bytes")

    def test_long_messages(self):
        """Issue 45: a long run of digits crashed the interpreter (std::regex's recursion overflowed the stack); now a
        60 KB one is read past, and a message over 64 KiB is a ValueError."""
        e = strata.explain(self.TORCH + " " + "7" * 60000)
        self.assertEqual(e["request_bytes"], 530 << 20)
        self.assertEqual(e["kind"], "fragmentation")
        with self.assertRaisesRegex(ValueError, "longer than 65536 bytes"):
            strata.explain(self.TORCH + " " + "9" * (1 << 20))

    def test_other_threads_run(self):
        """Issue 45: the GIL is released while a message is read. The switch interval is set so long that the
        interpreter never takes the GIL from this thread by itself: the counter, which waits for the GIL after every
        step, can only advance during a call if explain lets go of it. Each call is a chance for it to run, so the
        loop tries until it does (at once, normally), within a deadline that only a held GIL reaches."""
        message = self.TORCH + " " + "x" * 60000
        count = 0
        started, stop = threading.Event(), threading.Event()

        def counter():
            nonlocal count
            started.set()
            while not stop.is_set():
                count += 1
                time.sleep(0)  # lets go of the GIL, then waits for it

        interval = sys.getswitchinterval()
        sys.setswitchinterval(1000)
        thread = threading.Thread(target=counter)
        advanced, calls = False, 0
        try:
            thread.start()
            started.wait()
            deadline = time.monotonic() + 20
            while not advanced and time.monotonic() < deadline:
                before = count
                self.assertEqual(strata.explain(message)["kind"], "fragmentation")
                advanced, calls = count != before, calls + 1
        finally:
            stop.set()
            thread.join()
            sys.setswitchinterval(interval)
        self.assertTrue(advanced, f"no other thread ran during {calls} calls of strata.explain: it holds the GIL")


class DevicesTest(unittest.TestCase):
    def test_one_table(self):
        """strata.devices() is strata-fit --list-devices' table; the TPU presets of strata.workload come from it."""
        table = {d["name"]: d for d in strata.devices()}
        self.assertEqual(table["a100-40g"]["total_bytes"], 40 << 30)
        self.assertEqual(table["a100-40g"]["cc"], "8.0")
        self.assertEqual(table["tpu-v5p"]["context_bytes"], 0)
        tpus = {n: d["total_bytes"] for n, d in table.items() if d["kind"] == "tpu"}
        self.assertEqual(strata.workload.TPU_PRESETS, tpus)
        self.assertEqual(tpus["tpu-v5e"], 16 << 30)
