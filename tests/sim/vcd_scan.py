"""A streaming reader for the tests' waveforms, from a VCD or (through GTKWave's fst2vcd) an FST: the values a
few signals take, without holding the file in memory (scan), or every signal's changes (histories). Names are
full hierarchical paths joined by '.', without the bit range (strata.tpu_top.u_core.ex_q.pc)."""
import subprocess


def _lines(path):
    if path.endswith(".fst"):
        p = subprocess.Popen(["fst2vcd", path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        yield from p.stdout
        p.wait()
    else:
        with open(path) as f:
            yield from f


def _header(lines):
    """{identifier code: [full names]} for every variable, reading lines up to $enddefinitions."""
    codes, scope = {}, []
    for line in lines:
        tok = line.split()
        if not tok:
            continue
        if tok[0] == "$scope":
            scope.append(tok[2])
        elif tok[0] == "$upscope":
            scope.pop()
        elif tok[0] == "$var":
            codes.setdefault(tok[3], []).append(".".join(scope + [tok[4]]))
        elif tok[0] == "$enddefinitions":
            break
    return codes


def _changes(lines):
    """Yields ("#", time) for each timestamp and (code, value text) for each value change after the header."""
    for line in lines:
        if not line or line[0] in "$\n":
            continue
        c = line[0]
        if c == "#":
            yield "#", int(line[1:])
        elif c in "01xzXZ":
            yield line[1:].strip(), c
        elif c in "bBrR":
            text, code = line[1:].split()
            yield code, text


def scan(path, names):
    """Yields (time, {name: int value or None}) after each timestamp's changes, for the signals in names.

    The first yield is the file's first timestamp (its $dumpvars). Values with x/z bits are None."""
    lines = _lines(path)
    ids = {}
    for code, full in _header(lines).items():
        wanted = [n for n in full if n in names]
        if wanted:
            ids[code] = wanted
    missing = set(names) - {n for v in ids.values() for n in v}
    if missing:
        raise KeyError(f"{path}: no signal {', '.join(sorted(missing))}")
    values = {name: None for name in names}
    time = None
    for code, text in _changes(lines):
        if code == "#":
            if time is not None:
                yield time, values
            time = text
        else:
            for n in ids.get(code, ()):
                values[n] = int(text, 2) if all(c in "01" for c in text) else None
    if time is not None:
        yield time, values


def histories(path):
    """{name: [(time, value text), ...]} for every signal of the waveform: each one's changes, in order."""
    lines = _lines(path)
    codes = _header(lines)
    by_code = {code: [] for code in codes}
    time = 0
    for code, text in _changes(lines):
        if code == "#":
            time = text
        elif code in by_code:
            by_code[code].append((time, text))
    return {n: by_code[code] for code, full in codes.items() for n in full}
