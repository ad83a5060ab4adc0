"""XLA's buffer assignment as the executor's "xla" placement reads it: the allocations (size, kind: parameter N,
preallocated-temp, maybe-live-out, constant, thread-local) of the *-buffer-assignment.txt that XLA dumps beside the
optimized module, and where each value of the entry computation sits (allocation, offset, size).

host/workload/xla_buffer_assignment.cc reads the same file for strata-import (with live ranges and the heap
trace); this reader takes only the placement, which is all a run needs."""
import re

_ALLOCATION = re.compile(r"^allocation (\d+): size (\d+)(.*):\s*$")
# "<59 while.6{2} (phi) @0>": a loop's or conditional's result is a phi value, placed like any other.
_VALUE = re.compile(r"^\s*value: <(\d+) ([\w.\-]+)(\{[0-9,]*\})?(?: \(phi\))? @\d+> \(size=(\d+),offset=(\d+)\)")


class Allocation:
    def __init__(self, index, size, attrs):
        self.index = index
        self.size = size
        self.attrs = attrs
        m = re.search(r"parameter (\d+)", attrs)
        self.parameter = int(m.group(1)) if m else None
        self.is_temp = "preallocated-temp" in attrs
        self.is_thread_local = "thread-local" in attrs
        self.is_constant = "constant" in attrs
        self.is_output = "maybe-live-out" in attrs or "output shape" in attrs
        # XLA:CPU's output tuple: a table of the output arrays' addresses, not data. PJRT on a TPU hands the caller
        # the arrays themselves, so no placement holds it.
        self.is_tuple_table = "output shape is |(" in attrs
        self.values = []  # (instruction name, shape index, offset, size)


class BufferPlan:
    """The allocations and, per (instruction name, shape index), (allocation, offset, size)."""

    def __init__(self, allocations):
        self.allocations = allocations
        self.where = {}
        for a in allocations:
            for name, index, offset, size in a.values:
                self.where.setdefault((name, index), (a, offset, size))

    @property
    def temp(self):
        temps = [a for a in self.allocations if a.is_temp]
        return temps[0] if temps else None

    @property
    def temp_bytes(self):
        return sum(a.size for a in self.allocations if a.is_temp)

    def device_bytes(self):
        """What XLA's plan holds on the device during a call: every allocation but thread-local scratch and the
        CPU's output tuple table (arguments, constants, outputs, temp)."""
        return sum(a.size for a in self.allocations if not a.is_thread_local and not a.is_tuple_table)


def parse_buffer_assignment(text, source="<buffer assignment>"):
    allocations, current = [], None
    for lineno, line in enumerate(text.splitlines(), 1):
        if line.startswith("BufferAssignment") or not line.strip():
            continue
        m = _ALLOCATION.match(line)
        if m:
            current = Allocation(int(m.group(1)), int(m.group(2)), m.group(3))
            allocations.append(current)
            continue
        m = _VALUE.match(line)
        if m and current is not None:
            index = tuple(int(t) for t in (m.group(3) or "{}").strip("{}").split(",") if t)
            current.values.append((m.group(2), index, int(m.group(5)), int(m.group(4))))
            continue
        if not line.startswith(" "):
            break  # the summary sections after the allocations ("Total bytes used", "Used values", ...)
    if not allocations:
        raise ValueError(f"{source}: no allocations (is this XLA's *-buffer-assignment.txt?)")
    return BufferPlan(allocations)
