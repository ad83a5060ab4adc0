"""Runs the examples of one Markdown file of the repository and compares their output with what the file shows,
then the figures its prose quotes under a figures mark with where they come from (the convention is
docs/doc-tests.md's; test docs.FILE runs this on FILE), or checks that every repository path the docs name exists
(--paths, test docs.paths), or that no figure of the prose escapes those checks (--figures, test docs.figures).

usage: doc_test.py --root REPO --build BUILD_DIR [--python PYTHON] FILE.md
       doc_test.py --root REPO --paths FILE.md...
       doc_test.py --root REPO --figures FILE.md...
Exit status 0: every example matched (or was marked skip); 1: a mismatch, a missing path or an unchecked figure,
each reported with the file and line; 2: bad usage or a block that breaks the convention.
"""
import argparse
import ast
import contextlib
import glob
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
DIRECTIVE = re.compile(r"^\s*<!--\s*doc-test:\s*(.*?)\s*-->\s*$")
ELLIPSIS = "..."
DIRECTIVES = ("skip=", "status=", "timeout=", "shell", "file=", "name=")
# Durations and rates vary from run to run: a number right before " s" (seconds: "wall time 12.9 s", the wall
# column's "0.00 s") or before a unit per second ("0.69 M device cycles/s", "12.3 MB/s") matches any number.
VARYING = [re.compile(r"\d+(?:\.\d+)?(?= s\b)"), re.compile(r"\d+(?:\.\d+)?(?=(?: [A-Za-z]+)* ?[A-Za-z]*/s\b)")]


class Block:
    def __init__(self, path, line, lang, lines, directives):
        self.path, self.line, self.lang, self.lines, self.directives = path, line, lang, lines, directives


def blocks(path):
    """The fenced blocks of a Markdown file, each with the doc-test directives of the comment lines right before it."""
    out, pending = [], {}
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = DIRECTIVE.match(lines[i])
        if m and m.group(1).split(None, 1)[0:1] == ["figures"]:
            i += 1  # a figures mark is about the prose after it (figure_marks), not about running a block
            continue
        if m:
            for word in shlex.split(m.group(1)):
                key, eq, value = word.partition("=")
                if key + eq not in DIRECTIVES:
                    raise SystemExit(f"{path}:{i + 1}: unknown doc-test directive {key!r} ({', '.join(DIRECTIVES)})")
                pending[key] = value
            i += 1
            continue
        m = FENCE.match(lines[i])
        if m:
            start, indent, lang = i, m.group(1), m.group(2)
            body = []
            i += 1
            while i < len(lines) and not (lines[i].strip() == "```"):
                body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
                i += 1
            out.append(Block(path, start + 1, lang, body, pending))
            pending = {}
        elif lines[i].strip():
            pending = {}
        i += 1
    return out


def normalize(line):
    for pattern in VARYING:
        line = pattern.sub("#", line)
    return " ".join(line.split())


def line_matches(expected, actual):
    expected, actual = normalize(expected), normalize(actual)
    if ELLIPSIS not in expected:
        return expected == actual
    parts = [re.escape(p) for p in expected.split(ELLIPSIS)]
    return re.fullmatch(".*?".join(parts), actual) is not None


def output_matches(expected, actual):
    """expected: the doc's lines; a line that is only '...' stands for any number of lines (none too)."""
    expected = [e for e in expected]
    while expected and not expected[-1].strip():
        expected.pop()
    actual = list(actual)
    while actual and not actual[-1].strip():
        actual.pop()

    memo = {}

    def match(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(expected):
            result = j == len(actual)
        elif expected[i].strip() == ELLIPSIS:
            result = any(match(i + 1, k) for k in range(j, len(actual) + 1))
        else:
            result = j < len(actual) and line_matches(expected[i], actual[j]) and match(i + 1, j + 1)
        memo[(i, j)] = result
        return result

    sys.setrecursionlimit(max(10000, 4 * (len(expected) + len(actual))))
    return match(0, 0)


def report(block, line, command, expected, actual, why):
    print(f"{block.path}:{line}: {why}: {command}")
    print("  --- the doc shows")
    for e in expected:
        print("  | " + e)
    print("  --- it printed")
    for a in actual:
        print("  | " + a)


def workdir(root, build):
    """A fresh folder that looks like the repository's root (its top-level entries linked, build/ the build tree)
    so that the docs' relative paths work, while whatever a command writes (out/, reports) lands in the folder."""
    tmp = tempfile.mkdtemp(prefix="strata-doc-test-")
    for name in os.listdir(root):
        if name in ("build", "out", ".venv", ".git") or name.startswith("build"):
            continue
        os.symlink(os.path.join(root, name), os.path.join(tmp, name))
    os.symlink(build, os.path.join(tmp, "build"))
    os.mkdir(os.path.join(tmp, "out"))  # as scripts/run.sh makes it
    if os.path.isdir(os.path.join(root, ".venv")):
        os.symlink(os.path.join(root, ".venv"), os.path.join(tmp, ".venv"))
    return tmp


class Shell:
    """The state that a page's `shell` blocks share, as one terminal would: the current folder and the exported
    variables, carried from one command to the next through two files that bash reads before and writes after each
    command. HOME is a scratch folder in the page's folder, with strata/ linked to the SDK prefix that test
    sdk.install makes (build/sdk-prefix), so that `$HOME/strata` is an installed Strata as the pages assume."""

    def __init__(self, env, cwd, build):
        self.dir = os.path.join(cwd, ".doc-shell")
        os.mkdir(self.dir)
        home = os.path.join(cwd, "home")
        os.mkdir(home)
        prefix = os.path.join(build, "sdk-prefix")
        if os.path.isdir(prefix):
            os.symlink(prefix, os.path.join(home, "strata"))
        self.prefix = prefix
        self.env = dict(env, HOME=home)
        self.cwd_file, self.env_file = os.path.join(self.dir, "cwd"), os.path.join(self.dir, "env")
        with open(self.cwd_file, "w") as f:
            f.write(cwd + "\n")
        open(self.env_file, "w").close()
        self.status = 0  # the last command's, for `$?`

    def cwd(self):
        with open(self.cwd_file) as f:
            return f.read().rstrip("\n")

    def script(self, command):
        q = shlex.quote
        return (f". {q(self.env_file)}\ncd \"$(cat {q(self.cwd_file)})\" || exit 125\n(exit {self.status})\n{command}\n"
                f"__doc_status=$?\npwd > {q(self.cwd_file)}\nexport -p > {q(self.env_file)}\nexit $__doc_status\n")


def steps_of(block):
    steps = []
    for n, text in enumerate(block.lines):
        if text.startswith("$ "):
            steps.append([block.line + 1 + n, text[2:], []])
        elif steps:
            steps[-1][2].append(text)
    return steps


def run_shell(block, shell, record):
    """A `shell` block: each '$ ' line runs in bash, in the page's one shell state (Shell), and its output is what a
    terminal shows, standard output and error in the order written. Its exit status must be
    the block's (0 unless status=), except for a command followed by `$ echo $?`, whose line shows it."""
    failures = 0
    status = int(block.directives.get("status", "0"))
    timeout = float(block.directives.get("timeout", "600"))
    steps = steps_of(block)
    for k, (line, command, expected) in enumerate(steps):
        shown_next = k + 1 < len(steps) and steps[k + 1][1].strip() == "echo $?"
        try:
            proc = subprocess.run(["bash", "-c", shell.script(command)], cwd=shell.cwd(), env=shell.env,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  timeout=timeout)
        except (OSError, subprocess.TimeoutExpired) as e:
            print(f"{block.path}:{line}: could not run: {command}: {e}")
            return failures + 1
        shell.status = proc.returncode
        actual = proc.stdout.decode("utf-8", "replace").split("\n")
        record.extend(actual)
        if proc.returncode != status and not shown_next:
            report(block, line, command, expected, actual, f"exit status {proc.returncode}, the doc expects {status}")
            if not os.path.isdir(shell.prefix):
                print(f"  ($HOME/strata is missing: it is the SDK that test sdk.install installs into {shell.prefix})")
            return failures + 1  # the commands after it depend on it
        if not output_matches(expected, actual):
            report(block, line, command, expected, actual, "output differs")
            failures += 1
    return failures


def write_file(block, shell):
    """A `file=NAME` block: its text is written to NAME in the shell's current folder, as the page tells the reader
    to save it."""
    name = block.directives["file"]
    if not name or os.path.isabs(name) or ".." in name.split("/"):
        raise SystemExit(f"{block.path}:{block.line}: file= needs a relative path inside the page's folder, not {name!r}")
    target = os.path.join(shell.cwd(), name)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "w", encoding="utf-8") as f:
        f.write("\n".join(block.lines) + "\n")


def run_console(block, env, cwd, record):
    """A block whose first line is '$ command': each '$ ' line runs, the lines after it are its output."""
    failures = 0
    status = int(block.directives.get("status", "0"))
    timeout = float(block.directives.get("timeout", "600"))
    for line, command, expected in steps_of(block):
        words = shlex.split(command)
        merge = bool(words) and words[-1] == "2>&1"
        if merge:
            words = words[:-1]
        step_env = dict(env)
        while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]):
            key, _, value = words.pop(0).partition("=")
            step_env[key] = value
        if not words or any(w in ("|", ">", "<", ">>", "&&", ";") for w in words):
            print(f"{block.path}:{line}: not a command the doc tests run (no shell: one program, its arguments,"
                  f" NAME=value before it, 2>&1 after it): {command}")
            return 1
        program = words[0]
        if "/" not in program:
            found = shutil.which(program, path=step_env["PATH"])
            program = found or program
        try:
            proc = subprocess.run([program] + words[1:], cwd=cwd, env=step_env, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT if merge else subprocess.PIPE,
                                  timeout=timeout)
        except (OSError, subprocess.TimeoutExpired) as e:
            print(f"{block.path}:{line}: could not run: {command}: {e}")
            failures += 1
            continue
        actual = proc.stdout.decode("utf-8", "replace").split("\n")
        record.extend(actual)
        if proc.returncode != status:
            report(block, line, command, expected, actual,
                   f"exit status {proc.returncode}, the doc expects {status}")
            if not merge and proc.stderr:
                print("  --- stderr\n" + proc.stderr.decode("utf-8", "replace"))
            failures += 1
        elif not output_matches(expected, actual):
            report(block, line, command, expected, actual, "output differs")
            failures += 1
    return failures


class Session:
    """The ```python blocks of one file, run in order in one namespace; a block followed by a plain block shows
    what it printed: its print()s, then the repr of its last line when that is an expression (as at a prompt)."""

    def __init__(self, cwd):
        self.namespace = {"__name__": "__doc_test__"}
        self.cwd = cwd
        self.broken = False

    def run(self, code, path, line):
        tree = ast.parse(code, filename=f"{path}:{line}")
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        out = io.StringIO()
        old = os.getcwd()
        os.chdir(self.cwd)
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(tree, f"{path}:{line}", "exec"), self.namespace)
                if last is not None:
                    value = eval(compile(ast.Expression(last.value), f"{path}:{line}", "eval"), self.namespace)
                    if value is not None:
                        print(repr(value))
        finally:
            os.chdir(old)
        return out.getvalue().split("\n")


def test_file(args):
    path = os.path.abspath(args.file)
    root, build = os.path.abspath(args.root), os.path.abspath(args.build)
    tools = [os.path.join(build, d) for d in ("host/compare", "host/replay", "host/workload", "host/fit", "sim", "examples")]
    env = dict(os.environ, PATH=os.pathsep.join(tools + [os.environ.get("PATH", "/usr/bin:/bin")]))
    env.pop("PYTHONPATH", None)
    cwd = workdir(root, build)
    all_blocks = blocks(path)
    failures = ran = skipped = 0
    session = shell = None
    outputs = {}  # name= examples: what they printed, for the page's figure marks
    marks = figure_marks(path)
    try:
        for k, block in enumerate(all_blocks):
            console = block.lines and block.lines[0].startswith("$ ")
            python = block.lang == "python"
            if "skip" in block.directives and (console or python):
                print(f"{block.path}:{block.line}: skipped: {block.directives['skip'] or 'no reason given'}")
                skipped += 1
                continue
            if ("shell" in block.directives or "file" in block.directives) and shell is None:
                shell = Shell(env, cwd, build)
            if "file" in block.directives:
                write_file(block, shell)
                continue
            if not console and not python:
                continue
            record = outputs.setdefault(block.directives["name"], []) if "name" in block.directives else []
            if console and "shell" in block.directives:
                ran += 1
                failures += run_shell(block, shell, record)
                continue
            if console:
                ran += 1
                failures += run_console(block, env, cwd, record)
                continue
            shown = all_blocks[k + 1] if k + 1 < len(all_blocks) else None
            if shown is not None and (shown.lang or (shown.lines and shown.lines[0].startswith("$ "))):
                shown = None
            if session is None:
                sys.path.insert(0, os.path.join(build, "python"))
                session = Session(cwd)
            if session.broken:
                continue
            ran += 1
            try:
                actual = session.run("\n".join(block.lines), path, block.line)
            except Exception as e:  # noqa: BLE001 (the doc's code failed: a finding, reported with its place)
                print(f"{block.path}:{block.line}: the python block raised {type(e).__name__}: {e}"
                      " (the page's later python blocks depend on it: not run)")
                session.broken = True
                failures += 1
                continue
            if shown is not None and not output_matches(shown.lines, actual):
                report(block, shown.line, "(python block)", shown.lines, actual, "output differs")
                failures += 1
        figures_checked, figure_failures = check_marks(marks, outputs, cwd, root)
        failures += figure_failures
    finally:
        shutil.rmtree(cwd, ignore_errors=True)
    rel = os.path.relpath(path, root)
    checked = f", {figures_checked} figures of its prose checked" if figures_checked else ""
    print(f"{rel}: {ran} examples run, {failures} failed, {skipped} skipped{checked}")
    return 1 if failures else 0


# Figures in prose (docs/doc-tests.md, "Figures in the prose"). A figure the page writes outside an example (a
# utilization in a paragraph, a cycle read off a waveform, a count drawn in a picture) is checked when a mark
# names where it comes from:
#   <!-- doc-test: figures from=SOURCE "TEXT=WHERE"... -->  right before the paragraph, list, table, fenced block
#                                                            or picture it is about
#   <!-- doc-test: figures none="why" -->                    its figures are not outputs of the page's examples
# TEXT is written in that block as it stands (in a picture: in the text the PNG carries); each number in TEXT is
# compared with SOURCE's at WHERE, at the precision TEXT writes it:
#   from=NAME        the output of the page's example marked name=NAME; WHERE: a fragment of one of its lines,
#                    {} (or {1}, {2}, ...: TEXT's first, second number) where the numbers stand
#   from=json:FILE   a JSON file the page's examples wrote; WHERE: a key path, a.b.0.c
#   from=wave:FILE   a waveform they wrote (FST through GTKWave's fst2vcd, or VCD); WHERE: a signal's full name,
#                    and the number is the time in ns (core cycles) it first is nonzero
NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w])|(?<![\w.,])\d+(?:\.\d+)?(?![\w])")
PLACEHOLDER = re.compile(r"\{(\d*)\}")
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")


class Mark:
    def __init__(self, path, line, words):
        self.path, self.line = path, line
        self.source = self.none = None
        self.pairs = []  # (TEXT, WHERE)
        for word in words:
            key, eq, value = word.partition("=")
            if key == "from" and eq:
                self.source = value
            elif key == "none" and eq:
                self.none = value
            elif eq and key:
                self.pairs.append((key, value))
            else:
                raise SystemExit(f"{path}:{line}: a figures mark takes from=SOURCE, none=\"why\" and \"TEXT=WHERE\""
                                 f" words, not {word!r}")
        if self.none is None and (not self.source or not self.pairs):
            raise SystemExit(f"{path}:{line}: a figures mark needs from=SOURCE and at least one \"TEXT=WHERE\","
                             " or none=\"why\"")
        if self.none is not None and (self.source or self.pairs):
            raise SystemExit(f"{path}:{line}: figures none=... checks nothing: it takes no from= or TEXT=WHERE")
        if self.none is not None and not self.none.strip():
            raise SystemExit(f"{path}:{line}: figures none= needs the reason")
        self.target = []  # [(line number, text)]: the block the mark is about

    def where(self):
        return f"{self.path}:{self.line}"


def numbers_in(text):
    return [m.group(0) for m in NUMBER.finditer(text)]


def same_number(figure, value):
    """figure: a number as the page writes it (1,518 or 0.80); value: the source's (a number or its text).
    Equal when the source's value, rounded to the figure's decimals, writes the figure."""
    digits = len(figure.split(".")[1]) if "." in figure else 0
    try:
        v = float(str(value).replace(",", ""))
    except ValueError:
        return False
    return f"{v:.{digits}f}" == f"{float(figure.replace(',', '')):.{digits}f}"


def text_blocks(lines):
    """Line index -> (first, last) of the text block it belongs to: a paragraph, list or table (lines up to a blank
    line, a comment line or a fence), or a whole fenced block."""
    spans, i = {}, 0
    while i < len(lines):
        if not lines[i].strip() or DIRECTIVE.match(lines[i]):
            i += 1
            continue
        start = i
        if FENCE.match(lines[i]):
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                i += 1
            i += 1
        else:
            while i < len(lines) and lines[i].strip() and not DIRECTIVE.match(lines[i]) and not FENCE.match(lines[i]):
                i += 1
        for k in range(start, min(i, len(lines))):
            spans[k] = (start, min(i, len(lines)) - 1)
    return spans


def figure_marks(path):
    """The figures marks of a page, each with the block after it (its comment lines may stack)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    spans = text_blocks(lines)
    marks, pending = [], []
    fence = None  # the fence line a block is open since: a comment inside a block is the block's text
    for i, text in enumerate(lines):
        if fence is not None:
            fence = None if text.strip() == "```" else fence
            continue
        if FENCE.match(text) and not pending:
            fence = i
            continue
        m = DIRECTIVE.match(text)
        if m and m.group(1).split(None, 1)[0:1] == ["figures"]:
            pending.append(Mark(path, i + 1, shlex.split(m.group(1))[1:]))
            continue
        if pending and not m:
            if not text.strip():
                raise SystemExit(f"{path}:{pending[0].line}: a figures mark must stand right before its block")
            first, last = spans[i]
            for mark in pending:
                mark.target = [(k + 1, lines[k]) for k in range(first, last + 1)]
            marks += pending
            pending = []
            if FENCE.match(text):
                fence = i
    if pending:
        raise SystemExit(f"{path}:{pending[0].line}: a figures mark with no block after it")
    return marks


def png_text(path):
    """The text chunks of a PNG (tEXt, zTXt, iTXt values), joined: what a picture says it shows."""
    import struct
    import zlib
    out = []
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos = 8
    while pos + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + size]
        pos += 12 + size
        if kind == b"tEXt":
            out.append(body.split(b"\0", 1)[1].decode("latin-1"))
        elif kind == b"zTXt":
            out.append(zlib.decompress(body.split(b"\0", 1)[1][1:]).decode("latin-1"))
        elif kind == b"iTXt":
            rest = body.split(b"\0", 1)[1]
            compressed, rest = rest[0], rest[2:]
            text = rest.split(b"\0", 2)[2]
            out.append((zlib.decompress(text) if compressed else text).decode("utf-8"))
    return "\n".join(out)


def mark_text(mark, root):
    """What the mark's TEXTs are looked for in: its block, or the text of the pictures the block shows."""
    pictures = [m.group(1) for _, t in mark.target for m in IMAGE.finditer(t)]
    if not pictures:
        return " ".join(" ".join(t.split()) for _, t in mark.target), None
    texts = []
    for picture in pictures:
        png = os.path.normpath(os.path.join(os.path.dirname(mark.path), picture))
        try:
            texts.append(png_text(png))
        except (OSError, ValueError) as e:
            return "", f"{os.path.relpath(png, root)}: {e}"
    return " ".join(" ".join(t.split()) for t in texts), None


def texts_present(mark, root):
    """Problems with the mark's TEXTs as the page (or its picture) writes them: [] when each is there."""
    if mark.none is not None:
        return []
    text, error = mark_text(mark, root)
    if error:
        return [f"{mark.where()}: {error}"]
    problems = []
    for figure, where in mark.pairs:
        if " ".join(figure.split()) not in text:
            place = "the picture's text" if IMAGE.search(" ".join(t for _, t in mark.target)) else "the block after it"
            problems.append(f"{mark.where()}: figure {figure!r} is not in {place}")
        elif not numbers_in(figure):
            problems.append(f"{mark.where()}: figure {figure!r} has no number to check")
    return problems


def first_nonzero(path, known, signal, wanted=()):
    """The time (in the file's unit, ps) at which `signal` is first nonzero in a waveform (None: never). One pass
    over the file finds every signal of `wanted` too; `known` keeps what a pass found for the next call. A waveform
    is millions of VCD lines (fst2vcd writes 230 MB for the main job's), too many to split into lines in Python:
    each chunk is searched with one pattern per signal, and the time is the last timestamp line before it."""
    if signal in known:
        return known[signal]
    names = set(wanted) | {signal}
    proc = subprocess.Popen(["fst2vcd", path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) \
        if path.endswith(".fst") else None
    stream = proc.stdout if proc else open(path, "rb")
    try:
        codes = {}  # code -> (name, width)
        scope = []
        for line in stream:
            tok = line.decode("utf-8", "replace").split()
            if tok and tok[0] == "$scope":
                scope.append(tok[2])
            elif tok and tok[0] == "$upscope":
                scope.pop()
            elif tok and tok[0] == "$var" and ".".join(scope + [tok[4]]) in names:
                codes.setdefault(tok[3], (".".join(scope + [tok[4]]), int(tok[2])))
            elif tok and tok[0] == "$enddefinitions":
                break
        missing = names - {n for n, _ in codes.values()}
        if missing:
            raise KeyError(f"no signal {', '.join(sorted(missing))} in {os.path.basename(path)}")
        patterns = {code: re.compile(b"\n1" + re.escape(code.encode()) + b"\n" if width == 1 else
                                     b"\nb[01]*1[01]* " + re.escape(code.encode()) + b"\n")
                    for code, (_, width) in codes.items()}
        found, time, carry = {}, None, b"\n"
        while len(found) < len(patterns):
            data = stream.read(1 << 23)
            if not data:
                break
            chunk = carry + data
            cut = chunk.rfind(b"\n")
            chunk, carry = chunk[:cut + 1], chunk[cut:]
            for code, pattern in patterns.items():
                m = None if code in found else pattern.search(chunk)
                if m:
                    at = chunk.rfind(b"\n#", 0, m.start() + 1)
                    found[code] = int(chunk[at + 2:chunk.index(b"\n", at + 1)]) if at >= 0 else time
            at = chunk.rfind(b"\n#")
            if at >= 0:
                time = int(chunk[at + 2:chunk.index(b"\n", at + 1)])
        for code, (name, _) in codes.items():
            known[name] = found.get(code)
    finally:
        if proc:
            proc.kill()
            proc.wait()
        stream.close()
    return known[signal]


def source_value(mark, figure, where, outputs, cwd, waves):
    """None when TEXT's numbers agree with the source; else why not."""
    figures = numbers_in(figure)
    source = mark.source
    if source.startswith("json:"):
        path = os.path.join(cwd, source[5:])
        try:
            with open(path) as f:
                value = json.load(f)
            for key in where.split("."):
                value = value[int(key)] if isinstance(value, list) else value[key]
        except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
            return f"{source}: {where}: {type(e).__name__}: {e}"
        if len(figures) != 1 or not same_number(figures[0], value):
            return f"{source}: {where} is {value}, the page writes {figure!r}"
        return None
    if source.startswith("wave:"):
        path = os.path.join(cwd, source[5:])
        if path.endswith(".fst") and not shutil.which("fst2vcd"):
            return "skip: no fst2vcd (GTKWave; scripts/setup.sh installs it) to read " + source[5:]
        try:
            first = first_nonzero(path, waves.setdefault(path, {}), where, waves["wanted"].get(path, ()))
        except (OSError, KeyError, ValueError) as e:
            return f"{source}: {e}"
        if first is None:
            return f"{source}: {where} is never nonzero"
        if len(figures) != 1 or not same_number(figures[0], first // 1000):
            return f"{source}: {where} is first nonzero at {first // 1000} ns, the page writes {figure!r}"
        return None
    if source not in outputs:
        return f"no example named {source!r} ran on this page (name={source} marks one)"
    slots = [int(n) - 1 if n else k for k, n in enumerate(PLACEHOLDER.findall(where))]
    if not slots or any(not 0 <= n < len(figures) for n in slots):
        return f"{where!r}: its {{}} must name numbers of {figure!r} ({len(figures)} of them)"
    def literal(text):  # spaces match any run of spaces, "..." any text within the line
        return ".*?".join(r"\s+".join(re.escape(w) for w in piece.split(" ")) for piece in text.split(ELLIPSIS))

    parts = PLACEHOLDER.split(where)[::2]
    pattern = literal(parts[0])
    for part in parts[1:]:
        pattern += r"([-+]?\d[\d,]*(?:\.\d+)?)" + literal(part)
    near = None
    for line in outputs[source]:
        for m in re.finditer(pattern, line):
            if all(same_number(figures[n], m.group(k + 1)) for k, n in enumerate(slots)):
                return None
            near = near or line.strip()
    if near:
        return f"example {source} printed {near!r}, the page writes {figure!r}"
    return f"example {source} printed no line with {where!r}"


def check_marks(marks, outputs, cwd, root):
    """(figures checked, failures) for the page's marks, after its examples ran."""
    checked = failures = 0
    # Waveforms: one pass over each file finds every signal the page's marks ask of it.
    waves = {"wanted": {}}
    for mark in marks:
        if mark.source and mark.source.startswith("wave:"):
            path = os.path.join(cwd, mark.source[5:])
            waves["wanted"].setdefault(path, []).extend(where for _, where in mark.pairs)
    for problem in [p for mark in marks for p in texts_present(mark, root)]:
        print(problem)
        failures += 1
    for mark in marks:
        for figure, where in mark.pairs:
            why = source_value(mark, figure, where, outputs, cwd, waves)
            if why is None:
                checked += 1
            elif why.startswith("skip: "):
                print(f"{mark.where()}: figure {figure!r} not checked: {why[6:]}")
            else:
                print(f"{mark.where()}: figure {figure!r}: {why}")
                failures += 1
    return checked, failures


# docs.figures: the figures a page writes in the prose of a section that runs an example (a decimal, a percentage,
# a number with thousands separators) are numbers its examples show, or are under a figures mark: a figure copied
# from an output and left behind when the output changed is found without running anything. Numbers in code spans
# and link targets are not figures.
PROSE_FIGURE = re.compile(r"(?<![\w.,/-])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+|\d+(?:\.\d+)?%)(?![\w/])")


def unchecked_figures(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    inside = [False] * len(lines)
    fence = False
    for i, text in enumerate(lines):
        if FENCE.match(text) or (fence and text.strip() == "```"):
            inside[i] = True
            fence = not fence
            continue
        inside[i] = fence
    marked = {n for mark in figure_marks(path) for n, _ in mark.target}
    all_blocks = blocks(path)
    headings = [i + 1 for i, t in enumerate(lines) if t.startswith("#") and not inside[i]] + [len(lines) + 1]
    found = []
    start = 1
    for end in headings:
        run = [b for b in all_blocks if start <= b.line < end and b.lines and b.lines[0].startswith("$ ")
               and "skip" not in b.directives]
        if run:
            shown = [n for b in run for text in b.lines for n in numbers_in(text)]
            for n in range(start, end):
                if n - 1 >= len(lines) or inside[n - 1] or n in marked or DIRECTIVE.match(lines[n - 1]):
                    continue
                text = re.sub(r"\]\([^)]*\)", "]", re.sub(r"`[^`]*`", "", lines[n - 1]))
                for m in PROSE_FIGURE.finditer(text):
                    figure = m.group(1).rstrip("%")
                    if not any(same_number(figure, value) for value in shown):  # 26.6 GiB for a shown 26.62
                        found.append((n, m.group(1), lines[n - 1].strip()))
        start = end
    return found


def output_shape(line):
    """A line of output with its numbers taken out: two lines of one shape are the same line of one program."""
    return " ".join(re.sub(r"\d+(?:[.,]\d+)*", "#", line).split())


def stale_copies(paths):
    """Lines of blocks that are not run (an output quoted to explain it) that are a line some example of the docs
    shows, with other numbers: a copy left behind when the example's output changed."""
    shown = {}
    for path in paths:
        for b in blocks(path):
            if b.lines and b.lines[0].startswith("$ ") and "skip" not in b.directives:
                for text in b.lines:
                    shape = output_shape(text)
                    if not text.startswith("$ ") and len(shape.replace("#", "")) >= 30 and "#" in shape:
                        shown.setdefault(shape, set()).add(" ".join(text.split()))
    found = []
    for path in paths:
        for b in blocks(path):
            if b.lines and b.lines[0].startswith("$ "):
                continue
            for k, text in enumerate(b.lines):
                shape = output_shape(text)
                if shape in shown and " ".join(text.split()) not in shown[shape]:
                    found.append((path, b.line + 1 + k, text.strip(), sorted(shown[shape])[0]))
    return found


def check_figures(args):
    root = os.path.abspath(args.root)
    bad = checked = 0
    for path in args.files:
        path = os.path.abspath(path)
        rel = os.path.relpath(path, root)
        for mark in figure_marks(path):
            for problem in texts_present(mark, root):
                print(problem.replace(path, rel))
                bad += 1
            checked += len(mark.pairs)
        for n, figure, text in unchecked_figures(path):
            print(f"{rel}:{n}: {figure}: a figure in a section that runs examples, neither shown by them nor under a"
                  f" figures mark: {text[:120]}")
            bad += 1
    for path, n, text, example in stale_copies([os.path.abspath(p) for p in args.files]):
        print(f"{os.path.relpath(path, root)}:{n}: a copy of an example's output line with other numbers: {text[:100]}"
              f" (the example shows: {example[:100]})")
        bad += 1
    print(f"docs.figures: {checked} marked figures in place, {bad} problems")
    return 1 if bad else 0


# Repository paths in the docs: markdown links (relative to the file) and code spans that start with a top-level
# folder of the repository. Paths under build/ and out/ are made by the build and the tools; placeholders in
# capitals (NAME, FILE) and globs are matched as globs. Lines of a reference list ("[7] Ramulator2 `src/...`") name
# files of other projects and are not checked.
SPAN = re.compile(r"`([^`\s]+)`")
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")


def check_paths(args):
    root = os.path.abspath(args.root)
    tops = {n for n in os.listdir(root) if os.path.isdir(os.path.join(root, n)) and not n.startswith(".")}
    tops -= {"build", "out"} | {n for n in tops if n.startswith("build")}
    missing = checked = 0
    for path in args.files:
        path = os.path.abspath(path)
        with open(path, encoding="utf-8") as f:
            text = f.read().split("\n")
        for n, line in enumerate(text, 1):
            if re.match(r"\[\d+\] ", line):
                continue  # a reference list's entry: paths in another project
            candidates = []
            for m in LINK.finditer(line):
                target = m.group(1)
                if re.match(r"[a-z]+:", target):
                    continue
                candidates.append(os.path.normpath(os.path.join(os.path.dirname(path), target)))
            for m in SPAN.finditer(line):
                span = m.group(1).rstrip(".,:;")
                first = span.split("/")[0]
                if "/" in span and first in tops:
                    candidates.append(os.path.join(root, span))
                elif span.startswith("../"):
                    candidates.append(os.path.normpath(os.path.join(os.path.dirname(path), span)))
            for candidate in candidates:
                rel = os.path.relpath(candidate, root)
                if rel.startswith(".."):
                    print(f"{os.path.relpath(path, root)}:{n}: {rel}: outside the repository")
                    missing += 1
                    continue
                checked += 1
                pattern = re.sub(r"\b[A-Z][A-Z0-9_]*[A-Z0-9]\b", "*", re.sub(r"<[^>]*>", "*", rel))
                pattern = re.sub(r"\{[^}]*\}", "*", pattern).replace("...", "*")
                if not os.path.exists(candidate) and not glob.glob(os.path.join(root, pattern)):
                    print(f"{os.path.relpath(path, root)}:{n}: {rel}: no such file or folder in the repository")
                    missing += 1
    print(f"docs.paths: {checked} paths checked, {missing} missing")
    return 1 if missing else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", required=True)
    parser.add_argument("--build")
    parser.add_argument("--paths", action="store_true")
    parser.add_argument("--figures", action="store_true")
    parser.add_argument("file", nargs="?")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    if args.paths:
        args.files = ([args.file] if args.file else []) + args.files
        return check_paths(args)
    if args.figures:
        args.files = ([args.file] if args.file else []) + args.files
        return check_figures(args)
    if not args.file or not args.build or args.files:
        parser.error("one FILE.md and --build")
    return test_file(args)


if __name__ == "__main__":
    sys.exit(main())
