"""Runs the examples of one Markdown file of the repository and compares their output with what the file shows
(the convention is docs/doc-tests.md's; test docs.FILE runs this on FILE), or checks that every repository path
the docs name exists (--paths, test docs.paths).

usage: doc_test.py --root REPO --build BUILD_DIR [--python PYTHON] FILE.md
       doc_test.py --root REPO --paths FILE.md...
Exit status 0: every example matched (or was marked skip); 1: a mismatch or a missing path, each reported with
the file and line; 2: bad usage or a block that breaks the convention.
"""
import argparse
import ast
import contextlib
import glob
import io
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
DIRECTIVES = ("skip=", "status=", "timeout=", "shell", "file=")
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


def run_shell(block, shell):
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


def run_console(block, env, cwd):
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
            if console and "shell" in block.directives:
                ran += 1
                failures += run_shell(block, shell)
                continue
            if console:
                ran += 1
                failures += run_console(block, env, cwd)
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
    finally:
        shutil.rmtree(cwd, ignore_errors=True)
    rel = os.path.relpath(path, root)
    print(f"{rel}: {ran} examples run, {failures} failed, {skipped} skipped")
    return 1 if failures else 0


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
    parser.add_argument("file", nargs="?")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    if args.paths:
        args.files = ([args.file] if args.file else []) + args.files
        return check_paths(args)
    if not args.file or not args.build or args.files:
        parser.error("one FILE.md and --build")
    return test_file(args)


if __name__ == "__main__":
    sys.exit(main())
