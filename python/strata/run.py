"""strata-run (python -m strata.run): an XLA dump's optimized module run on the modelled TPU, the command-line twin
of strata.jax.run (docs/jax-on-the-model.md).

    strata-run DUMP --inputs args.npz --out outputs.npz --json report.json [--allocation firmware|xla]
               [--table] [--trace timeline.json] [--hbm-capacity BYTES]

DUMP: an XLA dump folder holding one *.after_optimizations.txt (with its *-buffer-assignment.txt beside it), or
that file. args.npz: one array per entry parameter, named arr_0, arr_1, ... (numpy.savez(path, *arrays)) or by the
parameters' names. outputs.npz: the root's arrays as out_0, out_1, ... Exit status 0; 2 for bad input (a missing
file, arguments that do not match the program, an opcode Strata cannot run), 1 when the device cannot run it (no
room in HBM): the message says which, and no output file is written (each is written whole, then renamed).
"""
import argparse
import json
import os
import sys
import tempfile
import zipfile

import numpy as np

from .device import open as _open
from .dump import DumpError, load
from .executor import ExecutionError, check_arguments, execute
from .hlo import HloParseError
from .hlo_eval import UnsupportedOpError
from .placement import PLACEMENTS, PlacementError


class UsageError(Exception):
    pass


def _read_inputs(path, module):
    if not os.path.isfile(path):
        raise UsageError(f"--inputs {path}: no such file")
    try:
        with np.load(path, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
    except (OSError, ValueError, zipfile.BadZipFile) as e:
        raise UsageError(f"--inputs {path}: not a NumPy .npz file ({e})") from None
    params = module.entry.parameters()
    args = []
    for i, p in enumerate(params):
        for key in (f"arr_{i}", p.name):
            if key in arrays:
                args.append(arrays.pop(key))
                break
        else:
            raise UsageError(f"--inputs {path}: no array for parameter {i} ({p.name}, {p.shape!r}): name it arr_{i} "
                             f"or {p.name}")
    if arrays:
        raise UsageError(f"--inputs {path}: {', '.join(sorted(arrays))} match no parameter of {module.name} "
                         f"({len(params)} parameters)")
    try:
        return check_arguments(module, args)
    except ExecutionError as e:
        raise UsageError(f"--inputs {path}: {e}") from None


def _write_atomically(path, write):
    """Writes `path` through a temporary file in its folder, renamed into place only when whole."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".strata-run-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _check_writable(option, path):
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UsageError(f"{option} {path}: folder {folder} does not exist")
    if os.path.isdir(path):
        raise UsageError(f"{option} {path}: is a folder")


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="strata-run", description="Run an XLA dump's optimized module on the modelled TPU (Strata's sim).",
        epilog="Exit status: 0 ran; 1 the device could not run it (no room in HBM); 2 bad input. "
               "docs/jax-on-the-model.md")
    parser.add_argument("dump", metavar="DUMP", help="XLA dump folder (one *.after_optimizations.txt) or that file")
    parser.add_argument("--inputs", required=True, metavar="NPZ",
                        help="arguments: arr_0, arr_1, ... (numpy.savez) or the entry parameters' names")
    parser.add_argument("--out", metavar="NPZ", help="write the outputs here (out_0, out_1, ...)")
    parser.add_argument("--json", metavar="FILE", help="write the report here (JSON)")
    parser.add_argument("--allocation", choices=PLACEMENTS, default="firmware",
                        help="firmware: the device allocator, value by value; xla: XLA's buffer assignment")
    parser.add_argument("--table", action="store_true", help="print the per-instruction table and the totals")
    parser.add_argument("--trace", metavar="FILE",
                        help="write the run as a timeline (Trace Event JSON: Perfetto, chrome://tracing)")
    parser.add_argument("--hbm-capacity", type=int, metavar="BYTES",
                        help="the sim's HBM capacity (a multiple of 256 KiB; default the sim's)")
    args = parser.parse_args(argv)
    try:
        for option, path in (("--out", args.out), ("--json", args.json), ("--trace", args.trace)):
            if path:
                _check_writable(option, path)
        module, plan = load(args.dump)
        inputs = _read_inputs(args.inputs, module)
        if args.allocation == "xla" and plan is None:
            raise UsageError(f"{args.dump}: --allocation xla needs XLA's *-buffer-assignment.txt beside the module")
        from .lowering import check_supported
        check_supported(module)
    except (UsageError, DumpError, HloParseError, UnsupportedOpError) as e:
        print(f"strata-run: {e}", file=sys.stderr)
        return 2
    options = {}
    if args.hbm_capacity is not None:
        options["hbm_capacity_bytes"] = args.hbm_capacity
    try:
        with _open("sim", **options) as device:
            outputs, report = execute(module, inputs, device, allocation=args.allocation, plan=plan)
    except PlacementError as e:
        print(f"strata-run: {module.name}: {e}", file=sys.stderr)
        return 1
    except (UnsupportedOpError, ExecutionError) as e:
        print(f"strata-run: {module.name}: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # the driver refusing an option (capacity not a multiple of the row stripe, ...)
        from .errors import Error
        if isinstance(e, Error):
            print(f"strata-run: {e}", file=sys.stderr)
            return 2
        raise
    if args.out:
        _write_atomically(args.out, lambda f: np.savez(f, **{f"out_{i}": a for i, a in enumerate(outputs)}))
    if args.json:
        _write_atomically(args.json, lambda f: f.write((json.dumps(report, indent=1) + "\n").encode()))
    if args.trace:
        from .report import chrome_trace
        _write_atomically(args.trace, lambda f: f.write(json.dumps(chrome_trace(report)).encode()))
    if args.table:
        from .report import table
        print(table(report))
    print(f"{module.name}: {report['cycles']} device cycles, {report['allocation']} placement, peak HBM "
          f"{report['peak_hbm_bytes']} B, on the host: {', '.join(sorted(report['host_ops'])) or 'nothing'}")
    return 0


def console():
    """The console script strata-run (pyproject.toml)."""
    sys.exit(main())


if __name__ == "__main__":
    console()
