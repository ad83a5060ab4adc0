"""A streaming reader for the tests' waveforms: the values a few signals take, from a VCD or (through GTKWave's
fst2vcd) an FST, without holding the file in memory. Names are full hierarchical paths joined by '.', without
the bit range (strata.tpu_top.u_core.ex_q.pc)."""
import subprocess


def _lines(path):
    if path.endswith(".fst"):
        p = subprocess.Popen(["fst2vcd", path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        yield from p.stdout
        p.wait()
    else:
        with open(path) as f:
            yield from f


def scan(path, names):
    """Yields (time, {name: int value or None}) after each timestamp's changes, for the signals in names.

    The first yield is the file's first timestamp (its $dumpvars). Values with x/z bits are None."""
    ids, scope, values, time = {}, [], {}, None
    lines = _lines(path)
    for line in lines:  # the header
        tok = line.split()
        if not tok:
            continue
        if tok[0] == "$scope":
            scope.append(tok[2])
        elif tok[0] == "$upscope":
            scope.pop()
        elif tok[0] == "$var":
            full = ".".join(scope + [tok[4]])
            if full in names:
                ids.setdefault(tok[3], []).append(full)
        elif tok[0] == "$enddefinitions":
            break
    missing = set(names) - {n for v in ids.values() for n in v}
    if missing:
        raise KeyError(f"{path}: no signal {', '.join(sorted(missing))}")
    for name in names:
        values[name] = None

    def set_value(code, text):
        for n in ids.get(code, ()):
            values[n] = int(text, 2) if all(c in "01" for c in text) else None

    for line in lines:
        if not line or line[0] in "$\n":
            continue
        c = line[0]
        if c == "#":
            if time is not None:
                yield time, values
            time = int(line[1:])
        elif c in "01xzXZ":
            set_value(line[1:].strip(), c)
        elif c in "bB":
            text, code = line[1:].split()
            set_value(code, text)
    if time is not None:
        yield time, values
