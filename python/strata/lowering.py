"""Where each HLO instruction runs: the one table (LOWERINGS) that maps an opcode and its element types to a unit of
the chip and the function that runs it there. What no entry takes runs on the host fallback (hlo_eval) and is
reported as such. Moving an op onto the chip (bf16 dot on the MXU, elementwise on the VPU) is one more entry.

A fusion whose fused computation is a bare dot of its parameters (XLA:CPU wraps every dot so: kind=kCustom,
"__ynn_fusion") is looked up as that dot: the chip sees the product, not the CPU's packaging.
"""
import numpy as np

from . import _strata
from .hlo_eval import HOST_HANDLERS, UnsupportedOpError
from .layout import is_row_major

# Instructions that compute nothing: they name (part of) their operand's buffers, as XLA's buffer assignment does.
ALIASES = ("tuple", "get-tuple-element", "bitcast")


class Lowering:
    """opcode with operand element types `operands` and result type `result` (None: any) runs on `unit` by
    `run(executor, ins, dot, values) -> record` when `fits(ins, dot, shapes)` (None: always)."""

    def __init__(self, opcode, operands, result, unit, run, fits=None, note=""):
        self.opcode, self.operands, self.result = opcode, operands, result
        self.unit, self.run, self.fits, self.note = unit, run, fits, note

    def matches(self, dot, operand_shapes):
        if dot.opcode != self.opcode:
            return False
        if self.result is not None and dot.shape.element_type != self.result:
            return False
        types = tuple(s.element_type for s in operand_shapes)
        return self.operands is None or types == self.operands


def _gemm_dims(dot, lhs_shape, rhs_shape):
    """(batch, m, n, k, canonical): the product as `batch` GEMMs of m x k by k x n; canonical when the operands are
    already row-major m x k and k x n matrices and the result a row-major m x n one (no host reshuffle needed)."""
    lb, rb = dot.ints("lhs_batch_dims"), dot.ints("rhs_batch_dims")
    lc, rc = dot.ints("lhs_contracting_dims"), dot.ints("rhs_contracting_dims")
    ld, rd = lhs_shape.dims, rhs_shape.dims
    batch = int(np.prod([ld[d] for d in lb], dtype=np.int64))
    k = int(np.prod([ld[d] for d in lc], dtype=np.int64))
    m = int(np.prod([ld[d] for d in range(len(ld)) if d not in lb and d not in lc], dtype=np.int64))
    n = int(np.prod([rd[d] for d in range(len(rd)) if d not in rb and d not in rc], dtype=np.int64))
    canonical = (not lb and len(ld) == 2 and len(rd) == 2 and lc == (1,) and rc == (0,)
                 and is_row_major(lhs_shape) and is_row_major(rhs_shape) and is_row_major(dot.shape))
    return batch, m, n, k, canonical


def _fits_gemm(ins, dot, operand_shapes):
    _, m, n, k, _ = _gemm_dims(dot, *operand_shapes)
    return all(1 <= d <= _strata.GEMM_MAX_DIM for d in (m, n, k))


def run_int8_gemm(ex, ins, dot, values):
    """s8 x s8 -> s32 dot on the matrix unit (strata_gemm). A canonical product whose operands and result each fill
    a buffer of their own from byte 0 runs on those buffers; otherwise the host lays the operands out as batch x
    (m x k, k x n) row-major matrices in staging buffers (recorded as the op's "staging_bytes" and "host_layout")."""
    lhs, rhs = values
    batch, m, n, k, canonical = _gemm_dims(dot, lhs.shape, rhs.shape)
    record = {"macs": batch * m * n * k, "gemms": batch}
    result = ex.allocate(ins)
    if canonical and all(ex.whole_buffer(v) for v in (lhs, rhs, result)):
        record["cycles_mxu"] = ex.ctx.gemm_buffers(lhs.region.buffer, rhs.region.buffer, result.region.buffer, m, n,
                                                   k)
        return record
    # The host lays out what the C API cannot address (an offset into XLA's temp allocation, batch dims,
    # transposed operands): strata_gemm takes whole buffers, row-major, from byte 0.
    a = ex.read(lhs)
    b = ex.read(rhs)
    lb, rb = dot.ints("lhs_batch_dims"), dot.ints("rhs_batch_dims")
    lc, rc = dot.ints("lhs_contracting_dims"), dot.ints("rhs_contracting_dims")
    lf = [d for d in range(a.ndim) if d not in lb and d not in lc]
    rf = [d for d in range(b.ndim) if d not in rb and d not in rc]
    a = np.ascontiguousarray(a.transpose(list(lb) + lf + list(lc))).reshape(batch, m, k)
    b = np.ascontiguousarray(b.transpose(list(rb) + list(rc) + rf)).reshape(batch, k, n)
    out = np.empty((batch, m, n), np.int32)
    cycles = 0
    staged = [ex.stage(a[0].nbytes), ex.stage(b[0].nbytes), ex.stage(out[0].nbytes)]
    try:
        for i in range(batch):
            staged[0].write(a[i])
            staged[1].write(b[i])
            cycles += ex.ctx.gemm_buffers(staged[0], staged[1], staged[2], m, n, k)
            staged[2].read(out=out[i])
    finally:
        for s in staged:
            ex.unstage(s)
    record.update(cycles_mxu=cycles, staging_bytes=a[0].nbytes + b[0].nbytes + out[0].nbytes,
                  host_layout=not canonical)
    ex.write(result, out.reshape(ins.shape.dims))
    return record


def run_host(ex, ins, dot, values):
    """The host fallback: operands downloaded, the op computed by NumPy (hlo_eval), the result uploaded."""
    arrays = [ex.read(v) for v in values]
    result = ex.evaluator.evaluate(ins, arrays, [ex.module.entry.by_name[o].shape for o in ins.operands])
    ex.define(ins, result)
    return {}


# The table. First match wins; an instruction no entry takes runs on the host.
LOWERINGS = (
    Lowering("dot", ("s8", "s8"), "s32", "mxu", run_int8_gemm, _fits_gemm,
             note="int8 x int8 -> int32 on the systolic array (strata_gemm)"),
)
HOST = Lowering(None, None, None, "host", run_host, note="NumPy on the host, data through the host link")


def bare_dot(module, ins):
    """(the dot a fusion wraps, which of the fusion's operands are the dot's lhs and rhs) when the fused
    computation is its parameters and one dot of two of them; else None."""
    if ins.opcode != "fusion":
        return None
    comp = module.computations.get(ins.called("calls"))
    if comp is None or comp.root.opcode != "dot" or len(comp.root.operands) != 2:
        return None
    params = {p.name: int(p.literal) for p in comp.parameters()}
    if len(comp.instructions) != len(params) + 1 or not all(o in params for o in comp.root.operands):
        return None
    return comp.root, [params[o] for o in comp.root.operands]


def lower(module, ins, operand_names):
    """(Lowering, the instruction it is matched as, the names of that instruction's operands in the entry): a
    fusion that is a bare dot is matched as its dot, on the fusion's operands that feed it."""
    entry = module.entry
    wrapped = bare_dot(module, ins)
    if wrapped is not None:
        dot, order = wrapped
        names = [operand_names[i] for i in order]
    else:
        dot, names = ins, list(operand_names)
    shapes = [entry.by_name[n].shape for n in names]
    for rule in LOWERINGS:
        if rule.matches(dot, shapes) and (rule.fits is None or rule.fits(ins, dot, shapes)):
            return rule, dot, names
    return HOST, ins, list(operand_names)


def label(ins):
    """How the report names an instruction's kind: its opcode, a fusion's with its kind (fusion(kLoop))."""
    if ins.opcode == "fusion":
        kind = ins.attribute("kind", "")
        custom = ""
        config = ins.attribute("backend_config", "")
        if '"kind":"' in config:
            custom = ":" + config.split('"kind":"', 1)[1].split('"', 1)[0]
        return f"fusion({kind}{custom})"
    return ins.opcode


def check_supported(module):
    """UnsupportedOpError naming the first instruction (in any computation the entry reaches) whose opcode neither
    the table nor the host fallback computes: before anything runs, so an unsupported program never half-runs."""
    for comp in module.computations.values():
        for ins in comp.instructions:
            if ins.opcode in ("parameter",) + ALIASES:
                continue
            variadic = ins.opcode in ("reduce", "reduce-window") and len(ins.operands) != 2
            if ins.opcode not in HOST_HANDLERS or variadic:
                form = f" (a {ins.opcode} of {len(ins.operands) // 2} operands)" if variadic else ""
                raise UnsupportedOpError(f"{comp.name}: {ins.name} (line {ins.line}) is opcode {ins.opcode!r}, which "
                                         f"Strata runs neither on the chip nor on the host fallback{form}")
