"""import strata on the sim backend (the Strata model): GEMM bit-exact, stats, compaction and a replay, kept to a
few seconds. Skipped where the build has no sim backend (STRATA_BUILD_SIM=OFF or no firmware images)."""
import os
import signal
import sys
import threading
import time
import unittest

import numpy as np

import strata
from strata_testing import SIM, have_sim, random_int8, reference_gemm


@unittest.skipUnless(have_sim(), "this build has no sim backend")
class SimTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dev = strata.open("sim", **SIM)

    @classmethod
    def tearDownClass(cls):
        cls.dev.close()

    def test_options_are_typed(self):
        options = {o["name"]: o for o in strata.backend_options("sim")}
        self.assertEqual(options["hbm_capacity_bytes"]["type"], "int64")
        self.assertEqual(options["fast_forward"]["type"], "bool")
        self.assertIsInstance(options["fast_forward"]["default"], bool)
        with self.assertRaises(TypeError):
            strata.open("sim", hbm_capacity_bytes="8M")
        with self.assertRaises(TypeError):
            strata.open("sim", fast_forward="yes")
        with self.assertRaises(strata.InvalidArgumentError):
            strata.open("sim", hbm_preset="HBM9")

    def test_device_info(self):
        info = self.dev.device_info()
        self.assertEqual(info["backend"], "sim")
        self.assertEqual(info["hbm_capacity_bytes"], SIM["hbm_capacity_bytes"])
        self.assertGreater(info["mxu_array_n"], 0)
        self.assertGreater(info["device_cycles"], 0)

    def test_gemm_bit_exact(self):
        for seed, (m, k, n, kwargs) in enumerate([(16, 16, 16, {}), (17, 33, 5, {}), (3, 40, 20, {"relu": True}),
                                                   (20, 24, 9, {"quant_mult": 3, "quant_shift": 6, "round": True})]):
            rng = np.random.default_rng(seed)
            a, b = random_int8(rng, (m, k)), random_int8(rng, (k, n))
            with self.subTest(m=m, k=k, n=n, **kwargs):
                np.testing.assert_array_equal(self.dev.gemm(a, b, **kwargs), reference_gemm(a, b, **kwargs))
                self.assertGreater(self.dev.last_gemm_cycles, 0)

    def test_calls_release_the_gil(self):
        # Another Python thread runs at full speed while the model simulates a GEMM. With a short switch interval a
        # held GIL would give it a few 0.1 ms slices between the upload, GEMM and read calls, not the whole call.
        rng = np.random.default_rng(3)
        a, b = random_int8(rng, (128, 256)), random_int8(rng, (256, 128))
        counter, stop = [0], threading.Event()

        def spin():
            while not stop.is_set():
                counter[0] += 1

        interval = sys.getswitchinterval()
        sys.setswitchinterval(1e-4)
        spinner = threading.Thread(target=spin)
        spinner.start()
        try:
            start = counter[0]
            time.sleep(0.1)  # sleeping releases the GIL: the spinner's rate alone
            rate = (counter[0] - start) / 0.1
            start, t0 = counter[0], time.perf_counter()
            c = self.dev.gemm(a, b)
            seconds, spun = time.perf_counter() - t0, counter[0] - start
        finally:
            stop.set()
            spinner.join()
            sys.setswitchinterval(interval)
        np.testing.assert_array_equal(c, reference_gemm(a, b))
        self.assertGreater(spun, 0.25 * rate * seconds, f"{spun} spins in {seconds:.3f} s at {rate:.0f}/s alone")

    def test_ctrl_c_stops_a_device_call(self):
        # SIGINT while the main thread waits on a long simulated GEMM: the device stops (strata_interrupt) and
        # KeyboardInterrupt comes at once, not when the GEMM ends; the interrupted device then refuses calls.
        rng = np.random.default_rng(4)
        a, b = random_int8(rng, (512, 1024)), random_int8(rng, (1024, 512))
        dev = strata.open("sim", hbm_capacity_bytes=64 << 20)
        timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
        try:
            t0 = time.perf_counter()
            timer.start()
            with self.assertRaises(KeyboardInterrupt):
                dev.gemm(a, b)
            seconds = time.perf_counter() - t0
            self.assertLess(seconds, 10, "KeyboardInterrupt waited for the call")
            with self.assertRaises(strata.FailedPreconditionError):
                dev.alloc(256)
        finally:
            timer.cancel()
            dev.close()

    def test_ctrl_c_leaves_another_threads_call_alone(self):
        # SIGINT while the main thread waits in a call behind a worker thread's long GEMM on the same device: only a
        # call the main thread makes may be stopped, so the worker's GEMM completes, bit-exact, the device stays
        # usable, and the main thread gets its KeyboardInterrupt once its own call returns.
        rng = np.random.default_rng(5)
        m, k, n = 512, 768, 512  # seconds of simulation
        a, b = random_int8(rng, (m, k)), random_int8(rng, (k, n))
        dev = strata.open("sim", hbm_capacity_bytes=64 << 20)
        ctx = dev.create_context()
        buffers = [ctx.upload(a), ctx.upload(b), ctx.alloc(m * n * 4)]
        outcome, started = {}, threading.Event()

        def worker():
            started.set()
            try:
                outcome["cycles"] = ctx.gemm_buffers(*buffers, m, n, k)
                outcome["ended"] = time.perf_counter()
            except BaseException as e:  # noqa: B036 (whatever it is, the test reports it)
                outcome["error"] = e

        def ctrl_c():
            outcome["sigint"] = time.perf_counter()
            os.kill(os.getpid(), signal.SIGINT)

        thread = threading.Thread(target=worker)
        timer = threading.Timer(0.3, ctrl_c)
        interrupted = False
        try:
            thread.start()
            started.wait()
            time.sleep(0.2)  # the worker is inside its GEMM
            timer.start()
            try:
                dev.synchronize()  # waits for the worker's GEMM: the main thread is in a call when SIGINT comes
                deadline = time.monotonic() + 10
                while time.monotonic() < deadline:
                    time.sleep(0.01)  # Python raises the KeyboardInterrupt between bytecodes
            except KeyboardInterrupt:
                interrupted = True
            thread.join()
            self.assertTrue(interrupted, "SIGINT raised no KeyboardInterrupt in the main thread")
            self.assertNotIn("error", outcome)
            self.assertGreater(outcome["ended"], outcome["sigint"], "the GEMM ended before SIGINT: nothing tested")
            self.assertGreater(outcome["cycles"], 0)
            np.testing.assert_array_equal(buffers[2].read(np.int32, (m, n)), reference_gemm(a, b))
            np.testing.assert_array_equal(dev.gemm(a[:16, :32], b[:32, :8]), reference_gemm(a[:16, :32], b[:32, :8]))
        finally:
            timer.cancel()
            if thread.ident is not None:
                thread.join()
            dev.close()

    def test_stats_and_compaction(self):
        with self.dev.create_context() as ctx:
            buffers = [ctx.alloc(64 << 10) for _ in range(16)]
            for b in buffers[::2]:
                b.free()
            stats = self.dev.memory_stats(ctx)
            self.assertEqual(stats["context_buffers"], 8)
            self.assertGreater(stats["fragmentation"], 0)
            self.assertEqual(stats["bytes_limit"], self.dev.device_info()["heap_bytes"])
            result = ctx.compact()
            self.assertGreater(result["bytes_moved"], 0)
            self.assertGreater(result["device_cycles"], 0)
            self.assertEqual(self.dev.memory_stats()["fragmentation"], 0)
            data = np.arange(64 << 10, dtype=np.uint8)
            buffers[1].write(data)
            np.testing.assert_array_equal(buffers[1].read(), data)  # handles survive compaction

    def test_errors_carry_statuses(self):
        with self.assertRaises(strata.ResourceExhaustedError):
            self.dev.alloc(1 << 40)
        buffer = self.dev.alloc(256)
        buffer.free()
        with self.assertRaises(strata.NotFoundError):
            buffer.free()
        with self.assertRaises(strata.OutOfRangeError):
            self.dev.alloc(16).write(np.zeros(17, np.uint8))

    def test_replay(self):
        rows = [(i, i % 7, i % 7 + 3, 1000 * (i + 1)) for i in range(24)]
        r = strata.replay(rows, backend="sim", capacity="1.0x", compaction=True)
        self.assertEqual(r["buffers"], 24)  # the host replay's figures ...
        self.assertEqual(r["backend"], "sim")  # ... and the model's
        self.assertEqual(r["device_allocs"], 24)
        self.assertEqual(r["device_failed_allocs"], r["failed_allocs"])
        self.assertGreater(r["device_cycles"], 0)
        self.assertGreater(r["device_cycles_per_alloc_p50"], 0)

        with self.assertRaises(ValueError):
            strata.replay(rows, backend="sim", policy="first-fit")  # the runtime places with tlsf only

    def test_compare_on_the_model(self):
        rows = [(i, i % 5, i % 5 + 2, 4096 * (1 + i % 3)) for i in range(20)]
        report = strata.compare(rows, contenders=["strata", "strata-no-compact", "jax"], backend="sim", search=False)
        backends = {row["contender"]: row["backend"] for row in report["table"]}
        self.assertEqual(backends, {"strata": "sim", "strata-no-compact": "sim", "jax": "gpu-emu"})
        self.assertTrue(report["table"][0]["completed"])


if __name__ == "__main__":
    unittest.main()
