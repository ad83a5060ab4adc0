"""The two ways the executor places a program's buffers in device HBM (docs/jax-on-the-model.md):

- FirmwarePlacement ("firmware"): every value is its own allocation from the firmware's allocator (Context.alloc),
  made when the value is defined and freed after its last use in the schedule; a fragmented heap is compacted on
  the device when an allocation needs it (defragment on OOM).
- XlaPlacement ("xla"): XLA's buffer assignment, as PJRT runs it: each argument in its own allocation, outputs and
  constants in theirs, and one temp allocation of XLA's temp size holding every other value at XLA's offset.

Both hand out Regions (a buffer and an offset in it). An allocation the device refuses raises PlacementError
naming the value, the placement, and the device's account of the failure.
"""
from .errors import ResourceExhaustedError

PLACEMENTS = ("firmware", "xla")


class PlacementError(RuntimeError):
    """The device could not hold what the placement asked for: the message says which value, where in the
    program, and why (capacity or fragmentation, live bytes)."""


class Region:
    def __init__(self, buffer, offset, nbytes, owned):
        self.buffer = buffer
        self.offset = offset
        self.nbytes = nbytes
        self.owned = owned  # the placement frees the buffer with this region


class Ledger:
    """Every allocation of a run goes through here: the device's allocator does it, and the ledger keeps the bytes
    in use as the device counts them (each allocation rounded up to the granule) without asking the device, so
    the memory over the run costs no device command (a memory-stats query is one, and would add cycles)."""

    def __init__(self, ctx, granule):
        self.ctx = ctx
        self.granule = max(int(granule), 1)
        self.in_use = 0
        self.peak = 0

    def _charged(self, nbytes):
        return -(-nbytes // self.granule) * self.granule

    def alloc(self, nbytes, what, placement):
        try:
            buffer = self.ctx.alloc(nbytes)
        except ResourceExhaustedError as e:
            oom = self.ctx.device.last_oom()
            stats = self.ctx.device.memory_stats()
            raise PlacementError(
                f"{placement} placement: no room for {nbytes} B for {what}: {oom['kind']} "
                f"(live {oom['live_bytes']} B, largest free block {oom['largest_free_block_bytes']} B, heap "
                f"{stats['bytes_limit']} B); the device said: {e}") from None
        self.in_use += self._charged(nbytes)
        self.peak = max(self.peak, self.in_use)
        return buffer

    def free(self, buffer):
        buffer.free()
        self.in_use -= self._charged(buffer.nbytes)


class FirmwarePlacement:
    name = "firmware"

    def __init__(self, ledger, plan=None):
        self.ledger = ledger

    def start(self):
        pass

    def place(self, name, index, shape, where):
        if shape.nbytes == 0:
            return None
        return Region(self.ledger.alloc(shape.nbytes, f"{name}{_index(index)} {shape!r}, {where}", self.name), 0,
                      shape.nbytes, True)

    def release(self, region):
        if region is not None and region.owned:
            self.ledger.free(region.buffer)
            region.owned = False

    def finish(self):
        pass


class XlaPlacement:
    name = "xla"

    def __init__(self, ledger, plan):
        if plan is None:
            raise ValueError("allocation='xla' needs XLA's buffer assignment (the *-buffer-assignment.txt dumped "
                             "beside the module)")
        self.ledger = ledger
        self.plan = plan
        self.buffers = {}   # allocation index -> Buffer
        self.unplanned = []  # values the assignment does not place (given allocations of their own)

    def start(self):
        """PJRT's part before a call: the temp allocation, and the outputs' and constants' allocations."""
        for a in self.plan.allocations:
            if a.is_thread_local or a.is_tuple_table or a.parameter is not None or a.size == 0:
                continue
            what = "XLA's temp allocation" if a.is_temp else f"XLA's allocation {a.index} ({a.attrs.strip(', ')})"
            self.buffers[a.index] = self.ledger.alloc(a.size, what, self.name)

    def place(self, name, index, shape, where):
        if shape.nbytes == 0:
            return None
        found = self.plan.where.get((name, index))
        if found is None:
            self.unplanned.append(f"{name}{_index(index)}")
            return Region(self.ledger.alloc(shape.nbytes, f"{name}{_index(index)} (not in XLA's assignment), {where}",
                                            self.name), 0, shape.nbytes, True)
        allocation, offset, size = found
        if allocation.index not in self.buffers:
            if allocation.parameter is None:
                raise PlacementError(f"xla placement: {name}{_index(index)} is in allocation {allocation.index} "
                                     f"({allocation.attrs.strip(', ')}), which a run does not place")
            # An argument's allocation: the caller's buffer, made when the argument is uploaded (PJRT's
            # BufferFromHostBuffer); an output XLA writes into a donated argument lands there too.
            self.buffers[allocation.index] = self.ledger.alloc(
                allocation.size, f"argument {allocation.parameter} ({name}), {where}", self.name)
        if size < shape.nbytes:
            raise PlacementError(f"xla placement: {name}{_index(index)} needs {shape.nbytes} B; XLA's assignment "
                                 f"gives it {size} B")
        return Region(self.buffers[allocation.index], offset, shape.nbytes, False)

    def release(self, region):
        # XLA's static plan frees nothing during a call; values it placed alone are freed with their last use.
        if region is not None and region.owned:
            self.ledger.free(region.buffer)
            region.owned = False

    def finish(self):
        for buffer in self.buffers.values():
            self.ledger.free(buffer)
        self.buffers = {}


def _index(index):
    return "{" + ",".join(map(str, index)) + "}" if index else ""


def make(allocation, ledger, plan):
    if allocation == "firmware":
        return FirmwarePlacement(ledger, plan)
    if allocation == "xla":
        return XlaPlacement(ledger, plan)
    raise ValueError(f"allocation must be one of {', '.join(PLACEMENTS)}, not {allocation!r}")
