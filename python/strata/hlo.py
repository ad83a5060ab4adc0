"""XLA's HLO text (an optimized, scheduled module: jax.jit(f).lower(...).compile().as_text() or the dump's
*.after_optimizations.txt) parsed into computations, instructions, shapes and attributes for strata.executor.

Only what the executor needs is interpreted: each instruction's name, shape (element type, dimensions, layout),
opcode, operands (by name), a constant's literal and the attributes as raw text (attribute() and the helpers below
read the ones an op needs). A line this parser cannot read is an HloParseError naming the line, never skipped.
"""
import re

import numpy as np

# HLO element types -> NumPy dtypes (bf16 and the fp8 types from ml_dtypes, imported only when a module uses them).
_NUMPY_TYPES = {
    "pred": np.bool_, "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "f16": np.float16, "f32": np.float32, "f64": np.float64,
}
_ML_DTYPES = {"bf16": "bfloat16", "f8e4m3fn": "float8_e4m3fn", "f8e5m2": "float8_e5m2"}


class HloParseError(ValueError):
    """The HLO text is not what this parser reads: the message names the line."""


def numpy_dtype(element_type):
    """The NumPy dtype of an HLO element type ("f32" -> float32); ValueError naming an unknown one."""
    if element_type in _NUMPY_TYPES:
        return np.dtype(_NUMPY_TYPES[element_type])
    if element_type in _ML_DTYPES:
        try:
            import ml_dtypes
        except ImportError:
            raise ValueError(f"HLO element type {element_type} needs the ml_dtypes package (JAX installs it), "
                             f"which this Python lacks") from None
        return np.dtype(getattr(ml_dtypes, _ML_DTYPES[element_type]))
    raise ValueError(f"HLO element type {element_type!r} has no NumPy dtype here")


class Shape:
    """An array shape (element_type, dims, minor_to_major layout) or a tuple of shapes (tuple_shapes)."""

    def __init__(self, element_type=None, dims=(), layout=None, tuple_shapes=None):
        self.element_type = element_type
        self.dims = tuple(dims)
        self.layout = tuple(layout) if layout is not None else tuple(range(len(self.dims) - 1, -1, -1))
        self.tuple_shapes = tuple_shapes

    @property
    def is_tuple(self):
        return self.tuple_shapes is not None

    @property
    def dtype(self):
        return numpy_dtype(self.element_type)

    @property
    def nbytes(self):
        """Bytes of an array (a token or tuple: 0; tuples are host-side lists of their leaves here)."""
        if self.is_tuple or self.element_type == "token":
            return 0
        return int(np.prod(self.dims, dtype=np.int64)) * self.dtype.itemsize

    def leaves(self, index=()):
        """(shape index, array shape) of every array in this shape, depth first."""
        if not self.is_tuple:
            return [(index, self)]
        out = []
        for i, s in enumerate(self.tuple_shapes):
            out += s.leaves(index + (i,))
        return out

    def __repr__(self):
        if self.is_tuple:
            return "(" + ", ".join(map(repr, self.tuple_shapes)) + ")"
        return f"{self.element_type}[{','.join(map(str, self.dims))}]{{{','.join(map(str, self.layout))}}}"


class Instruction:
    def __init__(self, name, shape, opcode, operands, attrs, literal, is_root, line):
        self.name = name
        self.shape = shape
        self.opcode = opcode
        self.operands = operands   # operand instruction names, in order
        self.attrs = attrs         # attribute name -> raw text
        self.literal = literal     # a constant's literal text (None otherwise)
        self.is_root = is_root
        self.line = line           # 1-based line in the module text, for messages

    def attribute(self, key, default=None):
        return self.attrs.get(key, default)

    def ints(self, key, default=()):
        """An attribute written {1,0} or {} as a tuple of ints."""
        text = self.attrs.get(key)
        if text is None:
            return tuple(default)
        return tuple(int(t) for t in text.strip("{}").split(",") if t.strip())

    def called(self, key):
        """The computation name an attribute names (calls=%f, to_apply=%g, body=..., condition=...)."""
        text = self.attrs.get(key)
        return None if text is None else text.strip().lstrip("%")

    def __repr__(self):
        return f"<{self.name} = {self.shape!r} {self.opcode}({', '.join(self.operands)})>"


class Computation:
    def __init__(self, name, is_entry):
        self.name = name
        self.is_entry = is_entry
        self.instructions = []  # in the text's order: the schedule in a scheduled module
        self.by_name = {}

    @property
    def root(self):
        for ins in self.instructions:
            if ins.is_root:
                return ins
        return self.instructions[-1]

    def parameters(self):
        params = [i for i in self.instructions if i.opcode == "parameter"]
        return sorted(params, key=lambda i: int(i.literal))


class Module:
    def __init__(self, name, computations, entry, text_attrs):
        self.name = name
        self.computations = computations  # name -> Computation
        self.entry = entry
        self.attrs = text_attrs

    @property
    def is_scheduled(self):
        return "is_scheduled=true" in self.attrs

    def donated_parameters(self):
        """The entry parameters an output may alias (input_output_alias={ {0}: (1, {}, may-alias), ... }): the
        arguments the caller donated to the call."""
        m = re.search(r"input_output_alias=\{(.*?)\}\s*(?:,\s*[a-z_]+=|$)", self.attrs)
        if not m:
            return set()
        return {int(p) for p in re.findall(r":\s*\((\d+)\s*,", m.group(1))}


def _split_top(text, sep=","):
    """`text` split at `sep` outside (), {}, [] and quotes."""
    parts, depth, quote, start, i = [], 0, False, 0, 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == '"':
                quote = False
        elif c == '"':
            quote = True
        elif c in "({[":
            depth += 1
        elif c in ")}]":
            depth -= 1
        elif c == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _matching(text, start):
    """Index of the bracket closing the one at text[start]."""
    pairs = {"(": ")", "{": "}", "[": "]"}
    stack, quote, i = [], False, start
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == '"':
                quote = False
        elif c == '"':
            quote = True
        elif c in pairs:
            stack.append(pairs[c])
        elif stack and c == stack[-1]:
            stack.pop()
            if not stack:
                return i
        i += 1
    raise ValueError(f"unbalanced {text[start]!r}")


_ARRAY_SHAPE = re.compile(r"([a-z][a-z0-9]*)\[([0-9,]*)\](\{[^}]*\})?")


def parse_shape(text):
    """A shape's text ("f32[8,4]{1,0}", "(s32[2], f32[])", "f32[]") -> (Shape, the rest of text)."""
    if "/*" in text:
        text = re.sub(r"/\*.*?\*/", "", text)
    text = text.lstrip()
    if text.startswith("("):
        end = _matching(text, 0)
        shapes = [parse_shape(part)[0] for part in _split_top(text[1:end])]
        return Shape(tuple_shapes=tuple(shapes)), text[end + 1:]
    m = _ARRAY_SHAPE.match(text)
    if not m:
        raise ValueError(f"not a shape: {text[:40]!r}")
    if m.group(1) not in _NUMPY_TYPES and m.group(1) not in _ML_DTYPES and m.group(1) not in ("token", "opaque"):
        raise ValueError(f"unknown element type {m.group(1)!r}")
    dims = [int(d) for d in m.group(2).split(",") if d]
    layout = None
    if m.group(3):
        # Tiling and memory space (":T(8,128)S(1)") do not change the element order of a CPU module's arrays.
        minor = m.group(3)[1:-1].split(":")[0]
        layout = [int(d) for d in minor.split(",") if d.strip()]
        if len(layout) != len(dims):
            layout = None
    return Shape(m.group(1), dims, layout), text[m.end():]


_INSTRUCTION = re.compile(r"^(ROOT\s+)?%?([\w.\-]+)\s*=\s*(.*)$")
_OPCODE = re.compile(r"^([a-z][a-z0-9\-]*)\(")
_HEADER = re.compile(r"^(ENTRY\s+)?%?([\w.\-]+)\s.*\{\s*$")


def _parse_instruction(match, lineno):
    is_root, name, rest = bool(match.group(1)), match.group(2), match.group(3)
    shape, rest = parse_shape(rest)
    rest = rest.lstrip()
    m = _OPCODE.match(rest)
    if not m:
        raise ValueError(f"no opcode after the shape in {rest[:40]!r}")
    opcode = m.group(1)
    open_at = m.end() - 1
    close = _matching(rest, open_at)
    inside = rest[open_at + 1:close]
    literal, operands = None, []
    if opcode == "constant":
        literal = inside.strip()
    elif opcode == "parameter":
        literal = inside.strip()
    else:
        for part in _split_top(inside):
            # "%x", or "f32[8]{0} %x" where the printer writes operand shapes.
            names = re.findall(r"%([\w.\-]+)", part)
            if not names:
                raise ValueError(f"operand {part!r} names no instruction")
            operands.append(names[-1])
    attrs = {}
    for part in _split_top(rest[close + 1:].lstrip(", ")):
        key, eq, value = part.partition("=")
        if eq:
            attrs[key.strip()] = value.strip()
    return Instruction(name, shape, opcode, operands, attrs, literal, is_root, lineno)


def parse_module(text, source="<hlo>"):
    """The module in `text` (the printer's format): HloParseError naming `source` and the line on what it cannot
    read, or on text that holds no ENTRY computation."""
    text = re.sub(r"/\*.*?\*/", "", text)  # /*index=5*/ comments inside long tuple shapes
    name, attrs = None, ""
    computations, entry, current = {}, None, None
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if current is None:
            if line.startswith("HloModule "):
                name, _, attrs = line[len("HloModule "):].partition(",")
                name = name.strip()
                continue
            m = _HEADER.match(line)
            if m and "->" in line:
                current = Computation(m.group(2), bool(m.group(1)))
                continue
            continue  # FileNames / StackFrames tables and other metadata between computations
        if line == "}":
            if not current.instructions:
                raise HloParseError(f"{source}:{lineno}: computation {current.name} has no instructions")
            computations[current.name] = current
            if current.is_entry:
                entry = current
            current = None
            continue
        m = _INSTRUCTION.match(line)
        if not m:
            raise HloParseError(f"{source}:{lineno}: not an HLO instruction: {line[:80]!r}")
        try:
            ins = _parse_instruction(m, lineno)
        except ValueError as e:
            raise HloParseError(f"{source}:{lineno}: {e}: {line[:80]!r}") from None
        current.instructions.append(ins)
        current.by_name[ins.name] = ins
    if current is not None:
        raise HloParseError(f"{source}: computation {current.name} is not closed with '}}'")
    if entry is None:
        raise HloParseError(f"{source}: no ENTRY computation (is this an HLO module's text?)")
    for comp in computations.values():
        for ins in comp.instructions:
            for op in ins.operands:
                if op not in comp.by_name:
                    raise HloParseError(f"{source}:{ins.line}: {ins.name} uses {op}, which {comp.name} does not "
                                        f"define")
    return Module(name or entry.name, computations, entry, attrs)


def parse_literal(text, shape):
    """A constant's literal ("0.5", "{1, 2}", "{ {1,2}, {3,4} }", "true", "-inf", "nan") as a NumPy array of
    `shape`'s logical dims. An elided literal ("{...}", as_text() prints large constants so) is an error: use the
    dump's text, which has them in full."""
    if "..." in text:
        raise ValueError("the constant's value is elided ({...}): give the module text XLA dumps "
                         "(xla_dump_hlo_as_text), which prints constants in full")
    dtype = shape.dtype
    words = re.findall(r"[-+]?(?:inf|nan|true|false|0x[0-9a-fA-F]+|[0-9.]+(?:e[-+]?[0-9]+)?)", text)
    values = []
    for w in words:
        lw = w.lower()
        if lw in ("true", "false"):
            values.append(lw == "true")
        elif "inf" in lw or "nan" in lw:
            values.append(float(lw))
        elif lw.lstrip("+-").startswith("0x"):
            values.append(int(lw, 16))
        elif dtype.kind in "iub" and re.fullmatch(r"[-+]?[0-9]+", w):
            values.append(int(w))
        else:
            values.append(float(w))
    count = int(np.prod(shape.dims, dtype=np.int64))
    if len(values) != count:
        raise ValueError(f"constant of shape {shape!r} has {len(values)} values, not {count}")
    if dtype.kind in "iu":
        return np.array(values, dtype=np.int64).astype(dtype).reshape(shape.dims)
    return np.array(values, dtype=np.float64).astype(dtype).reshape(shape.dims)
