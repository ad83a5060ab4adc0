"""import strata: backends and options, devices, contexts, buffers and NumPy arrays, on gpu-emu (every build has it)."""
import gc
import pathlib
import threading
import unittest

import numpy as np

import strata
from strata_testing import GPU_EMU, open_gpu_emu

DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64, np.float16, np.float32,
          np.float64, np.complex64, np.complex128, np.bool_]


class BackendsTest(unittest.TestCase):
    def test_backends_lists_gpu_emu(self):
        names = strata.backends()
        self.assertIsInstance(names, list)
        self.assertIn("gpu-emu", names)
        self.assertTrue(all(isinstance(n, str) and n for n in names))

    def test_availability_agrees_with_open(self):
        # The independent reference: what opening says. A backend reported unavailable refuses to open with
        # UNAVAILABLE and the same cause; gpu-emu (an emulator) is always available.
        avail = strata.backend_availability()
        self.assertEqual(list(avail), strata.backends())
        self.assertIsNone(avail["gpu-emu"])
        self.assertEqual(sorted(strata.backends(available=True) + strata.backends(available=False)),
                         sorted(strata.backends()))
        self.assertEqual(strata.backends(available=False), [n for n, why in avail.items() if why])
        for name, why in avail.items():
            if why is None or name == "sim":
                continue
            self.assertIsInstance(why, str)
            with self.assertRaises(strata.UnavailableError) as cm:
                strata.open(name)
            self.assertIn(why.split(": ")[-1], cm.exception.message)  # the same cause (cudaErrorInsufficientDriver)
        with self.assertRaises(TypeError):
            strata.backends(available="yes")
        with self.assertRaises(strata.UnimplementedError) as cm:
            strata._strata.backend_unavailable("no-such-backend")
        self.assertIn("gpu-emu", cm.exception.message)

    def test_backend_options_are_typed(self):
        for backend in strata.backends():
            options = strata.backend_options(backend)
            self.assertTrue(options, backend)
            for o in options:
                self.assertEqual(set(o), {"name", "type", "default", "help", "choices"})
                self.assertIn(o["type"], ("string", "int64", "double", "bool"))
                want = {"string": str, "int64": int, "double": float, "bool": bool}[o["type"]]
                if o["default"] is not None:
                    self.assertIsInstance(o["default"], want, (backend, o))
                # Choices are text in the option's type, none twice, and the default is one of them.
                self.assertIsInstance(o["choices"], list)
                self.assertEqual(len(set(o["choices"])), len(o["choices"]), (backend, o))
                for c in o["choices"]:
                    self.assertIsInstance(c, str)
                    if o["type"] == "int64":
                        int(c)
                if o["choices"] and o["default"] is not None:
                    self.assertIn(str(o["default"]), o["choices"], (backend, o))
        by_name = {o["name"]: o for o in strata.backend_options("gpu-emu")}
        self.assertEqual(by_name["total_bytes"]["type"], "int64")
        self.assertEqual(by_name["policy"]["type"], "string")
        self.assertIn(by_name["policy"]["default"], strata.gpu_policies())
        self.assertEqual(by_name["policy"]["choices"], strata.gpu_policies())
        self.assertEqual(by_name["capacity_bytes"]["default"], 0)
        self.assertEqual(by_name["total_bytes"]["choices"], [])  # any int64

    def test_unknown_backend(self):
        for call in (lambda: strata.open("no-such-backend"), lambda: strata.backend_options("no-such-backend")):
            with self.assertRaises(strata.UnimplementedError) as cm:
                call()
            self.assertEqual(cm.exception.status, "UNIMPLEMENTED")
            self.assertIsInstance(cm.exception, strata.Error)
            self.assertIn("no-such-backend", cm.exception.message)
            self.assertIn("gpu-emu", cm.exception.message)  # the message lists what this build has

    def test_backend_must_be_text(self):
        for bad in (None, 3, b"gpu-emu"):
            with self.assertRaises(TypeError):
                strata.open(bad)
            with self.assertRaises(TypeError):
                strata.backend_options(bad)

    def test_version(self):
        v = strata.version()
        self.assertEqual(set(v), {"api_major", "api_minor", "protocol_major", "protocol_minor"})
        self.assertEqual((v["api_major"], v["api_minor"]), (strata.API_VERSION_MAJOR, strata.API_VERSION_MINOR))
        self.assertEqual(strata.__version__, f"{v['api_major']}.{v['api_minor']}")

    def test_status_classes_come_from_the_c_api(self):
        self.assertEqual(strata.STATUS_CODES["INVALID_ARGUMENT"], 3)
        for name, code in strata.STATUS_CODES.items():
            if name == "OK":
                continue
            cls = strata.error_class(name)
            self.assertTrue(issubclass(cls, strata.Error))
            self.assertEqual(cls.status, name)
            self.assertEqual(cls("x").code, code)
            self.assertIs(getattr(strata, cls.__name__), cls)
        self.assertIs(strata.error_class("NO_SUCH_STATUS"), strata.Error)


class OpenTest(unittest.TestCase):
    def test_options_reach_the_backend(self):
        with strata.open("gpu-emu", total_bytes=64 << 20, context_bytes=0, policy="torch") as dev:
            self.assertEqual(dev.backend, "gpu-emu")
            self.assertEqual(dev.device_info()["hbm_capacity_bytes"], 64 << 20)
        with strata.open("gpu-emu", total_bytes=64 << 20, context_bytes=16 << 20, policy="jax",
                         mem_fraction=0.5, preallocate=False) as dev:  # a float and a bool for string options
            dev.alloc(1 << 20)
            stats = dev.memory_stats()
            self.assertEqual(stats["bytes_limit"], 32 << 20)  # XLA_PYTHON_CLIENT_MEM_FRACTION of the total
            self.assertLess(stats["pool_bytes"], 32 << 20)  # not preallocated

    def test_none_leaves_the_default(self):
        with strata.open("gpu-emu", total_bytes=1 << 30, context_bytes=None, policy=None) as dev:
            self.assertEqual(dev.device_info()["hbm_capacity_bytes"], 1 << 30)
            with_none = dev.memory_stats()
        with strata.open("gpu-emu", total_bytes=1 << 30) as dev:
            self.assertEqual(dev.memory_stats(), with_none)

    def test_wrong_option_types(self):
        for name, value in [("total_bytes", "64"), ("total_bytes", 1.5), ("total_bytes", True), ("policy", [1]),
                            ("policy", b"jax"), ("context_bytes", object())]:
            with self.subTest(name=name, value=value), self.assertRaises(TypeError) as cm:
                strata.open("gpu-emu", **{name: value})
            self.assertIn(name, str(cm.exception))
        with self.assertRaises(ValueError):
            strata.open("gpu-emu", total_bytes=1 << 63)
        with self.assertRaises(ValueError):
            strata.open("gpu-emu", policy="jax\0torch")  # C strings end at the NUL

    def test_nul_in_a_name_is_refused(self):
        # The driver reads C strings: "policy\0junk" reached it as "policy" and set the policy to torch.
        for options in ({"policy\0junk": "torch"}, {"no_such\0": 1}, {"policy\0": None}):
            with self.subTest(options=options), self.assertRaises(ValueError) as cm:
                strata.open("gpu-emu", **options)
            self.assertIn("NUL", str(cm.exception))
            self.assertIn("option name", str(cm.exception))
        with self.assertRaisesRegex(ValueError, "NUL"):
            strata.open("gpu-emu", no_such_option="a\0b")  # an undeclared option's value
        for call in (lambda: strata.open("gpu-emu\0junk"), lambda: strata.backend_options("gpu-emu\0")):
            with self.assertRaisesRegex(ValueError, "backend name .* NUL"):
                call()
        with open_gpu_emu() as dev:
            with self.assertRaisesRegex(ValueError, "option name .* NUL"):
                dev.create_context(**{"policy\0junk": "torch"})
            self.assertEqual(dev.memory_stats()["contexts"], 0)  # nothing was created

    def test_nul_is_refused_below_the_python_layer_too(self):
        # _strata itself refuses, whoever builds its option tuples.
        from strata import _strata
        for options in ([("policy\0junk", _strata.VALUE_STRING, "torch", 0, 0.0, False)],
                        [("policy", _strata.VALUE_STRING, "torch\0jax", 0, 0.0, False)]):
            with self.subTest(options=options), self.assertRaisesRegex(ValueError, "NUL"):
                _strata.Device("gpu-emu", options)
        with self.assertRaisesRegex(ValueError, "NUL"):
            _strata.Device("gpu-emu\0", [])

    def test_unknown_option(self):
        with self.assertRaises(strata.InvalidArgumentError) as cm:
            strata.open("gpu-emu", no_such_option=1)
        self.assertEqual(cm.exception.status, "INVALID_ARGUMENT")
        self.assertIn("no_such_option", str(cm.exception))
        self.assertIn("total_bytes", str(cm.exception))  # the valid names are listed

    def test_bad_option_value(self):
        with self.assertRaises(strata.Error) as cm:
            strata.open("gpu-emu", policy="no-such-policy")
        self.assertEqual(cm.exception.status, "INVALID_ARGUMENT")

    def test_close(self):
        dev = open_gpu_emu()
        self.assertFalse(dev.closed)
        self.assertIn("open", repr(dev))
        dev.close()
        self.assertTrue(dev.closed)
        dev.close()  # twice is fine
        for call in (dev.device_info, dev.memory_stats, dev.synchronize, dev.last_oom, dev.create_context,
                     lambda: dev.alloc(256), lambda: dev.compact()):
            with self.assertRaises(strata.FailedPreconditionError) as cm:
                call()
            self.assertEqual(cm.exception.status, "FAILED_PRECONDITION")
            self.assertIn("closed", cm.exception.message)

    def test_with_closes_on_error(self):
        with self.assertRaises(ZeroDivisionError):
            with open_gpu_emu() as dev:
                1 / 0
        self.assertTrue(dev.closed)

    def test_device_info(self):
        with open_gpu_emu() as dev:
            info = dev.device_info()
        for key in ("backend", "hbm_capacity_bytes", "heap_bytes", "device_cycles", "max_contexts",
                    "max_live_buffers", "granule_bytes", "last_command_cycles", "mxu_array_n", "hbm_bytes_read",
                    "hbm_bytes_written", "hbm_peak_bytes_per_cycle"):
            self.assertIn(key, info)
        self.assertEqual(info["backend"], "gpu-emu")
        self.assertEqual(info["hbm_capacity_bytes"], GPU_EMU["total_bytes"])


class ContextTest(unittest.TestCase):
    def setUp(self):
        self.dev = open_gpu_emu()

    def tearDown(self):
        self.dev.close()

    def test_create_and_destroy(self):
        contexts = [self.dev.create_context() for _ in range(5)]
        self.assertEqual(len({c.id for c in contexts}), 5)
        self.assertEqual(self.dev.memory_stats()["contexts"], 5)
        for c in contexts:
            c.destroy()
            self.assertTrue(c.destroyed)
        self.assertEqual(self.dev.memory_stats()["contexts"], 0)
        with self.assertRaises(strata.NotFoundError) as cm:
            contexts[0].destroy()
        self.assertEqual(cm.exception.status, "NOT_FOUND")

    def test_a_destroyed_context_refuses_calls(self):
        ctx = self.dev.create_context()
        buffer = ctx.alloc(4096)
        ctx.destroy()
        other = self.dev.create_context()  # takes the destroyed one's place on the device
        for name, call in (("alloc", lambda: ctx.alloc(256)), ("upload", lambda: ctx.upload(b"abc")),
                           ("compact", ctx.compact), ("memory_stats", ctx.memory_stats),
                           ("gemm", lambda: ctx.gemm(np.ones((2, 2), np.int8), np.ones((2, 2), np.int8)))):
            with self.subTest(call=name), self.assertRaises(strata.NotFoundError) as cm:
                call()
            self.assertIn("destroyed", cm.exception.message)
        with self.assertRaises(strata.NotFoundError):
            buffer.read()
        self.assertEqual(self.dev.memory_stats()["live_buffers"], 0)  # nothing landed in the other context
        self.assertEqual(other.memory_stats()["context_buffers"], 0)

    def test_a_stale_context_id_names_no_later_context(self):
        # The driver refuses the id too, once a new context has taken the destroyed one's place: ids carry a
        # generation on gpu-emu as on sim, so a stale id never allocates in the next tenant's context.
        old = self.dev.create_context()
        old_id = old.id
        old.destroy()
        new = self.dev.create_context()
        self.assertNotEqual(new.id, old_id)
        stale = strata.Context(self.dev, old_id)  # as a caller holding on to the number would
        with self.assertRaises(strata.NotFoundError) as cm:
            stale.alloc(4096)
        self.assertIn("no such context", cm.exception.message)
        self.assertEqual(new.memory_stats()["context_buffers"], 0)
        with self.assertRaises(strata.NotFoundError):
            stale.destroy()
        new.alloc(256)  # the new context is still there
        self.assertEqual(self.dev.memory_stats()["contexts"], 1)

    def test_with_destroys(self):
        with self.dev.create_context() as ctx:
            ctx.alloc(4096)
        self.assertTrue(ctx.destroyed)
        with self.assertRaises(strata.NotFoundError):
            ctx.alloc(256)

    def test_quota_bytes(self):
        for quota in (1 << 20, 3 << 20, 8 << 20):
            with self.subTest(quota=quota), self.dev.create_context(quota_bytes=quota) as ctx:
                self.assertEqual(ctx.memory_stats()["context_quota_bytes"], quota)
                kept = [ctx.alloc(quota // 4) for _ in range(4)]
                with self.assertRaises(strata.ResourceExhaustedError) as cm:
                    ctx.alloc(quota // 4)
                self.assertEqual(cm.exception.status, "RESOURCE_EXHAUSTED")
                self.assertEqual(self.dev.last_oom()["kind"], "cap")
                kept[0].free()
                ctx.alloc(quota // 4)

    def test_quota_fraction(self):
        with self.dev.create_context(quota_fraction=0.25) as ctx:
            quota = ctx.memory_stats()["context_quota_bytes"]
            self.assertGreater(quota, 0)
            with self.assertRaises(strata.ResourceExhaustedError):
                ctx.alloc(quota + (1 << 20))

    def test_bad_quotas(self):
        with self.assertRaises(strata.InvalidArgumentError):
            self.dev.create_context(quota_bytes=1 << 20, quota_fraction=0.5)
        for fraction in (-0.5, 1.5, float("nan")):
            with self.assertRaises(strata.InvalidArgumentError):
                self.dev.create_context(quota_fraction=fraction)
        for bad in ("1", 1.5, -1):
            with self.assertRaises((TypeError, ValueError)):
                self.dev.create_context(quota_bytes=bad)
        with self.assertRaises(TypeError):
            self.dev.create_context(quota_fraction="half")

    def test_a_policy_per_context(self):
        # Named context options (C API 1.9): each context its own policy; what one does not give is the device's (jax).
        jax = self.dev.create_context()
        torch = self.dev.create_context(policy="torch", memory_fraction=0.1)
        kept = [jax.alloc(1), torch.alloc(1)]
        self.assertEqual(jax.memory_stats()["context_allocated_bytes"], 256)  # BFC's 256-byte granule
        self.assertEqual(torch.memory_stats()["context_allocated_bytes"], 512)  # PyTorch's 512-byte block
        self.assertEqual(self.dev.memory_stats()["context_allocated_bytes"], 0)  # device-wide: no context's
        with self.assertRaises(strata.ResourceExhaustedError):
            torch.alloc(GPU_EMU["total_bytes"] // 8)  # its own memory_fraction caps it (the device has room)
        self.assertEqual(self.dev.last_oom()["kind"], "cap")
        for bad, named in (({"polcy": "torch"}, "polcy"), ({"policy": "torch", "mem_fraction": 0.5}, "mem_fraction"),
                           ({"policy": "jaxx"}, "jaxx")):
            with self.subTest(options=bad), self.assertRaises(strata.InvalidArgumentError) as cm:
                self.dev.create_context(**bad)
            self.assertIn(named, cm.exception.message)
        self.assertEqual(self.dev.memory_stats()["contexts"], 2)  # the refused ones created nothing
        del kept

    def test_default_context(self):
        a = self.dev.context
        self.assertIs(self.dev.context, a)
        buffer = self.dev.alloc(1024)
        self.assertIs(buffer.context, a)
        a.destroy()
        self.assertIsNot(self.dev.context, a)  # a new one once the old is gone


class BufferTest(unittest.TestCase):
    def setUp(self):
        self.dev = open_gpu_emu()
        self.ctx = self.dev.create_context()

    def tearDown(self):
        self.dev.close()

    def test_round_trip_every_dtype_and_shape(self):
        rng = np.random.default_rng(7)
        for seed, dtype in enumerate(DTYPES):
            for shape in [(1,), (7,), (3, 5), (2, 3, 4), (64, 33), (1, 1, 1, 1)]:
                with self.subTest(dtype=np.dtype(dtype).name, shape=shape):
                    x = (rng.standard_normal(shape) * 100).astype(dtype)
                    buffer = self.ctx.upload(x)
                    self.assertEqual(buffer.nbytes, x.nbytes)
                    y = buffer.read(dtype, x.shape)
                    self.assertEqual(y.dtype, x.dtype)
                    self.assertEqual(y.shape, x.shape)
                    np.testing.assert_array_equal(x, y)
                    out = np.empty_like(x)
                    self.assertIs(buffer.read(out=out), out)
                    np.testing.assert_array_equal(x, out)
                    buffer.free()

    def test_offsets(self):
        rng = np.random.default_rng(11)
        buffer = self.ctx.alloc(4096)
        whole = np.zeros(4096, np.uint8)
        for _ in range(50):
            offset = int(rng.integers(0, 4096))
            size = int(rng.integers(1, 4096 - offset + 1))
            part = rng.integers(0, 256, size, dtype=np.uint8)
            buffer.write(part, offset=offset)
            whole[offset:offset + size] = part
            np.testing.assert_array_equal(buffer.read(), whole)
            np.testing.assert_array_equal(buffer.read(np.uint8, size, offset=offset), part)

    def test_non_contiguous_and_bytes(self):
        x = np.arange(64 * 64, dtype=np.int32).reshape(64, 64)
        for view in (x.T, x[::2, 1::3], x[:, 5], np.asfortranarray(x)):
            buffer = self.ctx.upload(view)
            np.testing.assert_array_equal(buffer.read(view.dtype, view.shape), view)
        buffer = self.ctx.alloc(6)
        buffer.write(b"strata")
        self.assertEqual(buffer.read().tobytes(), b"strata")
        buffer.write(bytearray(b"STR"), offset=3)
        self.assertEqual(buffer.read().tobytes(), b"straSTR"[:3] + b"STR")

    def test_read_defaults_and_checks(self):
        buffer = self.ctx.upload(np.arange(10, dtype=np.int32))
        np.testing.assert_array_equal(buffer.read(np.int32), np.arange(10))
        np.testing.assert_array_equal(buffer.read(np.int32, offset=8), np.arange(2, 10))
        with self.assertRaises(ValueError):
            buffer.read(np.complex128)  # 40 bytes are not whole 16-byte values
        with self.assertRaises(ValueError):
            buffer.read(np.int32, (11,))  # more than the buffer holds
        with self.assertRaises(ValueError):
            buffer.read(np.uint8, (1 << 40,))  # refused before any host memory is taken
        with self.assertRaises(TypeError):
            buffer.read(object)
        with self.assertRaises(ValueError):
            buffer.read(out=np.empty((4, 4), np.int32)[:, ::2])  # not contiguous
        readonly = np.empty(10, np.int32)
        readonly.flags.writeable = False
        with self.assertRaises(ValueError):
            buffer.read(out=readonly)
        with self.assertRaises(TypeError):
            buffer.read(out=[0] * 10)

    def test_out_of_range_carries_the_status(self):
        buffer = self.ctx.alloc(100)
        with self.assertRaises(strata.OutOfRangeError) as cm:
            buffer.write(np.zeros(101, np.uint8))
        self.assertEqual(cm.exception.status, "OUT_OF_RANGE")
        self.assertIn("strata_write", cm.exception.message)
        with self.assertRaises(strata.OutOfRangeError):
            buffer.write(np.zeros(10, np.uint8), offset=95)
        with self.assertRaises(strata.OutOfRangeError):
            buffer.read(out=np.zeros(10, np.uint8), offset=95)

    def test_bad_data(self):
        buffer = self.ctx.alloc(64)
        for bad in (None, [1, 2, 3], "text", 3, np.array([None, 1], dtype=object)):
            with self.subTest(bad=repr(bad)), self.assertRaises(TypeError):
                buffer.write(bad)
        for bad in (-1, 1.5, None, "0"):
            with self.subTest(offset=bad), self.assertRaises((TypeError, ValueError)):
                buffer.write(b"x", offset=bad)

    def test_bad_sizes(self):
        for bad in (-1, 1 << 64, 2.0, None, "1"):
            with self.subTest(nbytes=bad), self.assertRaises((TypeError, ValueError)):
                self.ctx.alloc(bad)
        for huge in (1 << 40, 1 << 62, (1 << 63) + 1):
            with self.assertRaises(strata.ResourceExhaustedError):
                self.ctx.alloc(huge)
        with self.assertRaises(strata.Error) as cm:
            self.ctx.alloc(256, alignment=3)
        self.assertEqual(cm.exception.status, "INVALID_ARGUMENT")

    def test_largest_size_fails(self):  # once rounded up to 0 by the policy, and served
        with self.assertRaises(strata.ResourceExhaustedError):
            self.ctx.alloc((1 << 64) - 1)

    def test_double_free(self):
        buffer = self.ctx.alloc(256)
        buffer.free()
        self.assertTrue(buffer.freed)
        with self.assertRaises(strata.NotFoundError) as cm:
            buffer.free()
        self.assertEqual(cm.exception.status, "NOT_FOUND")
        with self.assertRaises(strata.NotFoundError):
            buffer.write(b"x")

    def test_another_contexts_buffer(self):
        other = self.dev.create_context()
        theirs = other.alloc(256)
        mine = strata.Buffer(self.ctx, theirs.handle, 256)  # a handle passed to the wrong context
        with self.assertRaises(strata.PermissionDeniedError) as cm:
            mine.free()
        self.assertEqual(cm.exception.status, "PERMISSION_DENIED")
        theirs.free()

    def test_another_devices_handles(self):
        with open_gpu_emu() as other:
            theirs = other.context.alloc(256)
            stranger = strata.Buffer(self.ctx, theirs.handle, 256)
            with self.assertRaises(strata.InvalidArgumentError) as cm:
                stranger.write(b"x")
            self.assertIn("another device", cm.exception.message)
            stranger.freed = True  # not ours to free at garbage collection
            with self.assertRaises(strata.InvalidArgumentError):
                self.dev.memory_stats(other.context)  # another device's context
            with self.assertRaises(strata.InvalidArgumentError):
                self.ctx.gemm_buffers(theirs, theirs, self.ctx.alloc(256), 1, 1, 1)

    def test_garbage_collection_frees(self):
        before = self.dev.memory_stats()["live_buffers"]
        for _ in range(20):
            self.ctx.alloc(1 << 16)
        gc.collect()
        self.assertEqual(self.dev.memory_stats()["live_buffers"], before)
        with self.ctx.alloc(256) as buffer:
            self.assertEqual(self.dev.memory_stats()["live_buffers"], before + 1)
        self.assertTrue(buffer.freed)
        self.assertEqual(self.dev.memory_stats()["live_buffers"], before)
        with self.ctx.alloc(256) as buffer:
            buffer.free()  # freed inside the block: nothing left to do at its end

    def test_buffers_outlive_their_device_quietly(self):
        dev = open_gpu_emu()
        buffer = dev.alloc(256)
        dev.close()
        with self.assertRaises(strata.FailedPreconditionError):
            buffer.read()
        with self.assertRaises(strata.FailedPreconditionError):
            buffer.free()
        del buffer, dev
        gc.collect()

    def test_compact_and_synchronize(self):
        kept = []
        for i in range(32):
            b = self.ctx.alloc(1 << 16)
            if i % 2:
                b.free()
            else:
                kept.append(b)
        result = self.ctx.compact()
        self.assertEqual(set(result), {"moves", "bytes_moved", "device_cycles"})
        self.assertEqual(set(self.ctx.compact(max_bytes=1 << 20, max_moves=1)), set(result))
        self.dev.synchronize()
        with self.assertRaises((TypeError, ValueError)):
            self.ctx.compact(max_bytes=-1)

    def test_last_oom(self):
        self.assertEqual(self.dev.last_oom()["kind"], "none")
        with self.assertRaises(strata.ResourceExhaustedError):
            self.ctx.alloc(1 << 40)
        oom = self.dev.last_oom()
        self.assertEqual(oom["kind"], "capacity")
        self.assertEqual(oom["request_bytes"], 1 << 40)


class ThreadsTest(unittest.TestCase):
    def test_threads_share_a_device(self):
        errors = []
        with open_gpu_emu() as dev:
            def work(seed):
                try:
                    rng = np.random.default_rng(seed)
                    with dev.create_context() as ctx:
                        for _ in range(20):
                            x = rng.integers(0, 256, int(rng.integers(1, 5000)), dtype=np.uint8)
                            b = ctx.upload(x)
                            np.testing.assert_array_equal(b.read(), x)
                            b.free()
                except Exception as e:  # noqa: BLE001 (reported by the main thread)
                    errors.append(e)

            threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        self.assertEqual(errors, [])

    def test_close_waits_for_calls(self):
        dev = open_gpu_emu()
        stop = threading.Event()
        failures = []

        def churn():
            while not stop.is_set():
                try:
                    dev.memory_stats()
                except strata.FailedPreconditionError:
                    return  # closed under us: refused, not a crash
                except Exception as e:  # noqa: BLE001
                    failures.append(e)
                    return

        t = threading.Thread(target=churn)
        t.start()
        dev.close()
        stop.set()
        t.join()
        self.assertEqual(failures, [])


class PathOptionTest(unittest.TestCase):
    def test_path_like_string_option(self):
        # A pathlib.Path is accepted where the backend takes a string (here a timeline file).
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp) / "timeline.json"
            with open_gpu_emu(timeline=path) as dev:
                dev.alloc(4096).free()
            self.assertTrue(path.exists())


if __name__ == "__main__":
    unittest.main()
