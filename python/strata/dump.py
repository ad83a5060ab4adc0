"""A compiled program as the executor reads it from disk: the optimized module's text (*.after_optimizations.txt,
the schedule XLA compiled) and, beside it, the buffer assignment of the same compile (*-buffer-assignment.txt), from
an XLA dump folder (XLA_FLAGS=--xla_dump_to=DIR --xla_dump_hlo_as_text, or strata.workload.from_jax's dump_dir) or
one module's text file."""
import glob
import os

from .hlo import parse_module
from .xla_plan import parse_buffer_assignment

_SUFFIX = "after_optimizations.txt"


class DumpError(ValueError):
    """The path holds no module the executor can read: the message says what was looked for."""


def module_text_path(path):
    """The optimized module's text file that `path` names (itself, or the one such file in a dump folder)."""
    if not os.path.exists(path):
        raise DumpError(f"{path}: no such file or folder")
    if os.path.isdir(path):
        found = sorted(glob.glob(os.path.join(path, "*" + _SUFFIX)))
        if not found:
            raise DumpError(f"{path}: no *.{_SUFFIX} in this folder (dump with --xla_dump_hlo_as_text)")
        if len(found) > 1:
            names = ", ".join(os.path.basename(f) for f in found)
            raise DumpError(f"{path}: {len(found)} optimized modules ({names}): name the file of the one to run")
        return found[0]
    if not os.path.isfile(path):
        raise DumpError(f"{path}: not a regular file")
    return path


def load(path):
    """(Module, BufferPlan or None): the module at `path` and its buffer assignment when XLA dumped one beside it."""
    text_path = module_text_path(path)
    try:
        with open(text_path, encoding="utf-8") as f:
            module = parse_module(f.read(), text_path)
    except UnicodeDecodeError as e:
        raise DumpError(f"{text_path}: not text ({e})") from None
    plan = None
    if text_path.endswith(".txt"):
        assignment = text_path[:-len(".txt")] + "-buffer-assignment.txt"
        if os.path.isfile(assignment):
            with open(assignment, encoding="utf-8") as f:
                plan = parse_buffer_assignment(f.read(), assignment)
    return module, plan
