"""memory_stats(): the frameworks' key names (JAX / TensorFlow flat names, PyTorch's dotted ones) and figures that
follow what the program did, under every GPU policy."""
import unittest

import numpy as np

import strata
from strata_testing import open_gpu_emu

# JAX's Device.memory_stats() / tsl::AllocatorStats names the C API provides.
JAX_KEYS = ["num_allocs", "bytes_in_use", "peak_bytes_in_use", "largest_alloc_size", "bytes_limit",
            "largest_free_block_bytes", "pool_bytes", "peak_pool_bytes"]
# torch.cuda.memory_stats() keys the bindings add.
TORCH_KEYS = ["allocated_bytes.all.current", "allocated_bytes.all.peak", "reserved_bytes.all.current",
              "reserved_bytes.all.peak", "requested_bytes.all.current", "inactive_split_bytes.all.current",
              "active.all.current", "allocation.all.allocated", "allocation.all.freed", "num_alloc_retries",
              "num_ooms", "num_device_alloc", "num_device_free", "num_sync_all_streams"]
# Strata's own figures (compaction, contexts, OOM kinds).
STRATA_KEYS = ["live_buffers", "bytes_free", "num_frees", "num_failed_allocs", "fragmentation", "compactions",
               "compaction_moves", "compaction_bytes_moved", "compaction_cycles", "context_bytes_in_use",
               "context_quota_bytes", "context_buffers", "contexts", "requested_bytes", "inactive_split_bytes",
               "device_allocs", "device_frees", "device_syncs", "stream_syncs", "maps", "unmaps",
               "host_bytes_copied", "oom_capacity", "oom_cap", "oom_fragmentation", "context_allocated_bytes",
               "context_pool_bytes"]


class MemoryStatsTest(unittest.TestCase):
    def test_keys(self):
        with open_gpu_emu() as dev:
            stats = dev.memory_stats()
        for key in JAX_KEYS + TORCH_KEYS + STRATA_KEYS:
            self.assertIn(key, stats)
        self.assertEqual(set(stats), set(JAX_KEYS + TORCH_KEYS + STRATA_KEYS))
        self.assertEqual(set(strata.TORCH_STAT_KEYS), set(TORCH_KEYS))
        for key, value in stats.items():
            self.assertIsInstance(value, float if key == "fragmentation" else int, key)

    def test_torch_keys_mirror_the_c_fields(self):
        with open_gpu_emu(policy="torch") as dev:
            kept = [dev.alloc(size) for size in (1000, 70000, 3 << 20)]
            stats = dev.memory_stats()
            for torch_key, field in strata.TORCH_STAT_KEYS.items():
                self.assertEqual(stats[torch_key], stats[field], torch_key)
            self.assertEqual(stats["active.all.current"], len(kept))
            self.assertGreaterEqual(stats["reserved_bytes.all.current"], stats["allocated_bytes.all.current"])
            self.assertEqual(stats["requested_bytes.all.current"], 1000 + 70000 + (3 << 20))

    def test_num_device_alloc_counts_map_block_calls(self):
        # PyTorch counts one num_device_alloc per map_block call; the driver one cuMemCreate per 20 MiB page.
        with open_gpu_emu(policy="torch-expandable", total_bytes=1 << 30) as dev:
            kept = dev.alloc(50 << 20)
            stats = dev.memory_stats()
            self.assertEqual(stats["reserved_bytes.all.current"], 60 << 20)
            self.assertEqual(stats["num_device_alloc"], 1)
            self.assertEqual(stats["device_allocs"], 3)
            del kept
        with open_gpu_emu(policy="jax") as dev:
            kept = dev.alloc(1 << 20)
            self.assertEqual(dev.memory_stats()["num_device_alloc"], 0)  # not a PyTorch figure

    def test_figures_follow_the_program(self):
        for policy in strata.gpu_policies():
            with self.subTest(policy=policy), open_gpu_emu(policy=policy) as dev:
                rng = np.random.default_rng(len(policy))
                sizes = [int(s) for s in rng.integers(1, 1 << 20, size=12)]
                buffers = [dev.alloc(s) for s in sizes]
                stats = dev.memory_stats()
                self.assertEqual(stats["num_allocs"], len(sizes))
                self.assertEqual(stats["live_buffers"], len(sizes))
                self.assertGreaterEqual(stats["bytes_in_use"], sum(sizes))
                self.assertEqual(stats["largest_alloc_size"] >= max(sizes), True)
                self.assertGreaterEqual(stats["peak_bytes_in_use"], stats["bytes_in_use"])
                self.assertGreater(stats["bytes_limit"], 0)
                in_use = stats["bytes_in_use"]
                for b in buffers[::2]:
                    b.free()
                after = dev.memory_stats()
                self.assertEqual(after["num_frees"], len(buffers[::2]))
                self.assertLess(after["bytes_in_use"], in_use)
                self.assertEqual(after["peak_bytes_in_use"], stats["peak_bytes_in_use"])
                with self.assertRaises(strata.ResourceExhaustedError):
                    dev.alloc(1 << 40)
                failed = dev.memory_stats()
                self.assertEqual(failed["num_failed_allocs"], 1)
                self.assertEqual(failed["num_ooms"], 1)
                self.assertEqual(failed["oom_capacity"] + failed["oom_cap"] + failed["oom_fragmentation"], 1)

    def test_context_figures(self):
        with open_gpu_emu() as dev:
            a = dev.create_context(quota_bytes=4 << 20)
            b = dev.create_context()
            kept = [a.alloc(1 << 20), b.alloc(3 << 20)]  # noqa: F841 (a dropped buffer is freed)
            sa, sb, device_wide = a.memory_stats(), b.memory_stats(), dev.memory_stats()
            self.assertEqual(sa["context_quota_bytes"], 4 << 20)
            self.assertEqual(sb["context_quota_bytes"], 0)
            self.assertGreaterEqual(sa["context_bytes_in_use"], 1 << 20)
            self.assertGreaterEqual(sb["context_bytes_in_use"], 3 << 20)
            self.assertEqual(sa["context_buffers"], 1)
            self.assertEqual(device_wide["context_bytes_in_use"], 0)  # context 0: device-wide only
            self.assertEqual(device_wide["contexts"], 2)
            self.assertEqual(dev.memory_stats(a), sa)
            with self.assertRaises(TypeError):
                dev.memory_stats(a.id)


if __name__ == "__main__":
    unittest.main()
