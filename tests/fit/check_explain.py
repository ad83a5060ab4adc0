#!/usr/bin/env python3
"""strata-explain on messages written from each framework's own format string, with the numbers checked against
the arithmetic of the classification rule (capacity / cap / fragmentation) done here by hand.

usage: check_explain.py STRATA_EXPLAIN
"""
import json
import subprocess
import sys

explain = sys.argv[1]
MiB, GiB = 1 << 20, 1 << 30
checks = 0


def read(message, *args, status=0):
    p = subprocess.run([explain, message, "--json", *args], capture_output=True, text=True, timeout=60)
    if p.returncode != status:
        sys.exit(f"check_explain: exit {p.returncode} for {message!r}: {p.stdout}{p.stderr}")
    return json.loads(p.stdout) if status == 0 else p.stderr


def expect(cond, what):
    global checks
    if not cond:
        sys.exit("check_explain: FAILED: " + what)
    checks += 1


# PyTorch 2.x, c10/cuda/CUDACachingAllocator.cpp, DeviceCachingAllocator::malloc(): "CUDA out of memory. Tried to
# allocate " format_size(alloc_size) ". GPU " device " has a total capacity of " format_size(device_total) " of which "
# format_size(device_free) " is free. " proc_info allowed_info "Of the allocated memory " format_size(allocated_bytes)
# " is allocated by PyTorch, and " format_size(reserved - allocated) " is reserved by PyTorch but unallocated. ..."
# format_size prints "%.2f" with KiB / MiB / GiB. Fragmentation: 20.04 GiB + 530 MiB fits in 120.5 MiB free +
# 38.75 GiB held; the process is not capped.
m = read("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 530.00 MiB. GPU 0 has a total capacity of "
         "39.38 GiB of which 120.50 MiB is free. Including non-PyTorch memory, this process has 39.26 GiB memory in "
         "use. Of the allocated memory 20.04 GiB is allocated by PyTorch, and 18.71 GiB is reserved by PyTorch but "
         "unallocated. If reserved but unallocated memory is large try setting "
         "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.")
expect(m["format"] == "pytorch" and m["request_bytes"] == 530 * MiB, "pytorch request")
expect(m["live_bytes"] == round(20.04 * GiB) and m["reserved_bytes"] == round(20.04 * GiB) + round(18.71 * GiB),
       "pytorch allocated and reserved")
expect(m["kind"] == "fragmentation", "pytorch fragmentation")
expect(any("expandable_segments:True" in a for a in m["advice"]), "pytorch advice: expandable segments")
# The same format with 1 GiB free and 20.5 GiB allocated of a 24 GiB GPU asking 4 GiB: 24.5 > 1 + 21 = 22: capacity.
m = read("CUDA out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total capacity of 23.64 GiB of which 1.00 GiB "
         "is free. Of the allocated memory 20.50 GiB is allocated by PyTorch, and 512.00 MiB is reserved by PyTorch "
         "but unallocated.")
expect(m["kind"] == "capacity" and any(a.startswith("no setting helps") for a in m["advice"]), "pytorch capacity")
# With set_per_process_memory_fraction: allowed_info is format_size(allowed_memory_maximum) " allowed; ".
m = read("CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.11 GiB of which 40.00 GiB "
         "is free. Including non-PyTorch memory, this process has 39.11 GiB memory in use. 39.55 GiB allowed; Of the "
         "allocated memory 38.00 GiB is allocated by PyTorch, and 1.00 GiB is reserved by PyTorch but unallocated.")
expect(m["kind"] == "cap" and m["limit_bytes"] == round(39.55 * GiB), "pytorch cap by the fraction")
expect(any("set_per_process_memory_fraction(0.51)" in a for a in m["advice"]), "pytorch fraction advice " + str(m))
# PyTorch before 2.1, the same file: "CUDA out of memory. Tried to allocate X (GPU 0; T total capacity; A already
# allocated; F free; R reserved in total by PyTorch)". 36 MiB into 47 MiB free + 188 MiB held: fragmentation.
m = read("RuntimeError: CUDA out of memory. Tried to allocate 36.00 MiB (GPU 0; 7.93 GiB total capacity; 130.35 MiB "
         "already allocated; 47.06 MiB free; 188.00 MiB reserved in total by PyTorch)")
expect(m["kind"] == "fragmentation" and m["total_bytes"] == round(7.93 * GiB), "old pytorch format")

# XLA's BFC (xla/tsl/framework/bfc_allocator.cc, BFCAllocator::AllocateRaw): "Allocator (" Name() ") ran out of memory
# trying to allocate " HumanReadableNumBytes(num_bytes) " (rounded to " rounded_bytes ")" ..., then Stats::DebugString
# ("Limit:", "InUse:", "MaxInUse:", "NumAllocs:", "MaxAllocSize:", "Reserved:", "PeakReserved:", "LargestFreeBlock:").
# 58 GiB in use + 4 GiB over a 60 GiB limit on an 80 GB H100 (79.5 GiB usable): cap; the fraction is ceil(62/80).
stats = ("Allocator (GPU_0_bfc) ran out of memory trying to allocate 4.00GiB (rounded to 4294967296)requested by op \n"
         "Stats: \nLimit:                     64424509440\nInUse:                     62277025792\n"
         "MaxInUse:                  62277025792\nNumAllocs:                         29\n"
         "MaxAllocSize:               2147483648\nReserved:                  64424509440\n"
         "PeakReserved:              64424509440\nLargestFreeBlock:           2147483648\n")
m = read(stats, "--device", "h100-80g")
expect(m["format"] == "xla-bfc" and m["request_bytes"] == 4 * GiB and m["limit_bytes"] == 60 * GiB, "bfc numbers")
expect(m["kind"] == "cap", "bfc cap")
expect(any("XLA_CLIENT_MEM_FRACTION=0.78" in a for a in m["advice"]), "bfc fraction advice " + str(m))
# The same stats with 50 GiB in use: 54 GiB is within the limit, the largest free chunk 2 GiB: fragmentation.
m = read(stats.replace("62277025792", str(50 * GiB)))
expect(m["kind"] == "fragmentation" and any("cuda_async" in a for a in m["advice"]), "bfc fragmentation")
# A request over the whole H100 (58 GiB in use + 30 GiB > 79.5 GiB usable): capacity, whatever the limit.
m = read(stats.replace("4.00GiB (rounded to 4294967296)", "30.00GiB (rounded to 32212254720)"), "--device", "h100-80g")
expect(m["kind"] == "capacity", "bfc capacity with --device")

# XLA's device allocator (xla/stream_executor/integrations/tf_allocator_adapter.cc, TfAllocatorAdapter::Allocate):
# "Out of memory while trying to allocate %d bytes." Only the request: the kind is unknown.
m = read("jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate "
         "17179869184 bytes.")
expect(m["format"] == "xla" and m["request_bytes"] == 16 * GiB and m["kind"] == "unknown", "xla request only")

# TensorFlow (tensorflow/core/framework/op_kernel.cc, OpKernelContext::allocate_tensor): "OOM when allocating tensor
# with shape" shape.DebugString() " and type " DataTypeString(type) " on " device " by allocator " name.
# [32,1024,64,64] float = 32 x 1024 x 64 x 64 x 4 bytes = 512 MiB.
m = read("ResourceExhaustedError: OOM when allocating tensor with shape[32,1024,64,64] and type float on "
         "/job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc")
expect(m["format"] == "tensorflow" and m["request_bytes"] == 512 * MiB, "tensorflow shape x type")

# The TPU runtime (libtpu; closed source, the text as JAX users report it): "Attempting to allocate X. That was not
# possible. There are Y free. Due to fragmentation, the largest contiguous region of free memory is Z."
m = read("RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 500.00M. That was not possible. "
         "There are 785.61M free. Due to fragmentation, the largest contiguous region of free memory is 256.00M.; "
         "(0x0x0_HBM0)")
expect(m["format"] == "tpu" and m["kind"] == "fragmentation" and m["largest_free_bytes"] == 256 * MiB, "tpu frag")
m = read("Attempting to allocate 1.00G. That was not possible. There are 785.61M free. Due to fragmentation, the "
         "largest contiguous region of free memory is 512.00M.")
expect(m["kind"] == "capacity", "tpu capacity")
# The runtime loading a program (libtpu): "Attempting to reserve R at the bottom of memory. That was not possible. There
# are F free, 0B reserved, and V reservable." R <= F but R > V: fragmentation; R > F: capacity, where a server's
# preallocated share (vLLM on TPU: gpu_memory_utilization) is the setting that leaves room.
m = read("RESOURCE_EXHAUSTED: Attempting to reserve 5.88G at the bottom of memory. That was not possible. There are "
         "14.74G free, 0B reserved, and 4.62G reservable.")
expect(m["format"] == "tpu-reserve" and m["kind"] == "fragmentation", "tpu reserve fragmentation: " + str(m))
m = read("RESOURCE_EXHAUSTED: Attempting to reserve 7.04G at the bottom of memory. That was not possible. There are "
         "6.90G free, 0B reserved, and 6.90G reservable.")
expect(m["kind"] == "capacity" and any("gpu_memory_utilization" in a for a in m["advice"]), "tpu reserve capacity")
# Cut before the free figures (AI-Hypercomputer/tpu-recipes#151): read, unknown, why and what to capture say so.
m = read("RESOURCE_EXHAUSTED: Error loading program 'jit__multi_slice': Attempting to reserve 6.14G at the bottom of "
         "memory. That was not possible.")
expect(m["kind"] == "unknown" and "not what was free" in m["why"] and "reservable" in m.get("capture", ""),
       "tpu reserve without free: " + str(m))

# The TPU compiler's early abort (libtpu; the text as hawkinsp quotes it in jax-ml/jax#7822): "Compilation failure:
# Aborting compilation early because it's unlikely to have enough memory. Requires X, has Y available." The estimate
# exceeds the chip: compile-time, per chip over 2, 4, 8 chips. 40.00G over 4 chips is 10 GiB each, which fits 15.48G.
m = read("XlaRuntimeError: RESOURCE_EXHAUSTED: Compilation failure: Aborting compilation early because it's unlikely "
         "to have enough memory. Requires 40.00G, has 15.48G available.")
expect(m["format"] == "tpu-compile" and m["kind"] == "compile-time" and m["request_bytes"] == 40 * GiB and
       m["total_bytes"] == round(15.48 * GiB), "tpu early abort: " + str(m))
expect(any("4 chips about 10.00 GiB each (fits)" in a for a in m["advice"]), "early abort per chip: " + str(m))
expect(not any("XLA_" in a or "PYTORCH" in a for a in m["advice"]), "early abort advises no GPU setting: " + str(m))

# XLA's and TensorFlow's cudaMallocAsync allocator (xla/stream_executor/gpu/gpu_cudamallocasync_allocator.cc,
# GpuCudaMallocAsyncAllocator::AllocateRaw): "gpu_async_0 cuMemAllocAsync failed to allocate " size " bytes: " status
# "\n Reported by CUDA: Free memory/Total memory: " free "/" total, then Stats::DebugString. need = InUse + request;
# outside = total - free - InUse.
async_oom = ("E0101 00:00:00.000000 1 gpu_cudamallocasync_allocator.cc:361] gpu_async_0 cuMemAllocAsync failed to "
             "allocate {req} bytes: RESOURCE_EXHAUSTED: : CUDA_ERROR_OUT_OF_MEMORY: out of memory\n Reported by CUDA: "
             "Free memory/Total memory: {free}/{total}\nE0101 00:00:00.000100 1 gpu_cudamallocasync_allocator.cc:366] "
             "Stats: Limit:                               {limit}\nInUse:                     {inuse}\n"
             "MaxInUse:                  {inuse}\n")
# 72 GiB in use + 8 GiB on an 80 GiB GPU with 7 GiB free: outside = 1 GiB, a context; 80 > 72 + 7: capacity.
m = read(async_oom.format(req=8 * GiB, free=7 * GiB, total=80 * GiB, limit=0, inuse=72 * GiB))
expect(m["format"] == "xla-async" and m["live_bytes"] == 72 * GiB and m["free_bytes"] == 7 * GiB and
       m["total_bytes"] == 80 * GiB and m["limit_bytes"] is None, "xla async numbers: " + str(m))
expect(m["kind"] == "capacity", "xla async capacity: " + str(m))
# 40 GiB in use, 4 GiB free of 80: 36 GiB outside, and 40 + 8 + 1.5 fits 80 without it: other-process.
m = read(async_oom.format(req=8 * GiB, free=4 * GiB, total=80 * GiB, limit=0, inuse=40 * GiB))
expect(m["kind"] == "other-process" and "36.00 GiB" in m["why"], "xla async other-process: " + str(m))
# A limit of 45 GiB below the device: 40 + 8 passes it: cap, advised as JAX's fraction (48 / 80 = 0.60).
m = read(async_oom.format(req=8 * GiB, free=38 * GiB, total=80 * GiB, limit=45 * GiB, inuse=40 * GiB))
expect(m["kind"] == "cap" and any("MEM_FRACTION=0.60" in a for a in m["advice"]), "xla async cap: " + str(m))
# 30 GiB free for an 8 GiB request and no limit: the free figure contradicts the failure.
m = read(async_oom.format(req=8 * GiB, free=30 * GiB, total=80 * GiB, limit=0, inuse=40 * GiB))
expect(m["kind"] == "inconsistent", "xla async free contradicts: " + str(m))

# ROCm's driver error with no sizes ("failed to allocate X from device: HIP_ERROR_OutOfMemory", keras#13889):
# read, kind unknown, what to capture next.
m = read("E tensorflow/compiler/xla/stream_executor/rocm/rocm_driver.cc:606] failed to allocate 127.99TiB "
         "(140729850295296 bytes) from device: HIP_ERROR_OutOfMemory")
expect(m["kind"] == "unknown" and "ROCm" in m["framework"] and m.get("capture"), "rocm driver error: " + str(m))

# Bad input: not an OOM message; an impossible number; an unknown device.
err = read("Segmentation fault (core dumped)", status=2)
expect("not an out-of-memory message" in err, "malformed message refused")
err = read("CUDA out of memory. Tried to allocate 99999999999999.00 TiB.", status=2)
expect("out of range" in err, "huge size refused")
err = read("CUDA out of memory. Tried to allocate 2.00 GiB.", "--device", "h999", status=2)
expect("unknown device 'h999'" in err, "unknown device refused")

# Numbers read whole and checked (issue 45): an exponent is part of the number, a size at 2^63 bytes is out of range,
# and numbers that cannot all be true are "inconsistent", with no setting advised from them.
m = read("Out of memory while trying to allocate 1.5e3 MiB.")
expect(m["request_bytes"] == 1500 * MiB, "an exponent with a unit")
err = read("Out of memory while trying to allocate 1e19 bytes.", status=2)
expect("out of range: '1e19 bytes' is 2^63 bytes or more" in err, "1e19 bytes refused: " + err)
err = read("Out of memory while trying to allocate 8.00 ZiB.", status=2)
expect("a unit strata-explain does not read: '8.00 ZiB'" in err, "an unknown unit is refused, not read as 8 B: " + err)
# E and P are read (the TPU compiler prints "3.47E"); 8 EiB is 2^63 bytes, out of range, not read as 8 B.
err = read("Out of memory while trying to allocate 8.00 EiB.", status=2)
expect("out of range: '8.00 EiB' is 2^63 bytes or more" in err, "8 EiB refused as out of range: " + err)
m = read("Out of memory while trying to allocate 1.50 PiB.")
expect(m["request_bytes"] == 3 * (1 << 49), "1.50 PiB read as 1.5 x 2^50 bytes")
# A cap on a GPU smaller than what the process holds: the fraction would be above 1, which PyTorch refuses.
m = read("CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 1.00 GiB of which 40.00 GiB "
         "is free. 39.55 GiB allowed; Of the allocated memory 38.00 GiB is allocated by PyTorch, and 1.00 GiB is "
         "reserved by PyTorch but unallocated.")
expect(m["kind"] == "inconsistent" and not any("fraction(" in a for a in m["advice"]), "a fraction above 1: " + str(m))
# Free plus reserved past 2^63 bytes (each size alone below it).
m = read("CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 8000000.00 TiB of which "
         "8000000.00 TiB is free. Of the allocated memory 1.00 GiB is allocated by PyTorch, and 8000000.00 TiB is "
         "reserved by PyTorch but unallocated.")
expect(m["kind"] == "inconsistent" and "reach 2^63 bytes" in m["why"], "free plus reserved past 2^63: " + str(m))
print(f"check_explain: {checks} checks passed")
