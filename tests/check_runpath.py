#!/usr/bin/env python3
"""Every program and shared object under the given folders searches only absolute folders for its libraries.

An empty entry in DT_RUNPATH/DT_RPATH (`[/build/host/driver:]`) or a relative one (`lib`) is searched relative to
the current directory of whoever runs the program: `import strata` from a folder holding a planted
`libatomic.so.1` ran that file's code. `$ORIGIN` entries are the loader's own folder, not the current one, so they
are allowed when what follows is a path. The dynamic section is read with binutils' readelf (`readelf -d`), the
reader every Debian toolchain has, rather than a hand-written ELF parser.

With --plant PYTHON PYTHONPATH it also does what the attack did: it builds a library named libatomic.so.1 whose
constructor writes a marker file, puts it in an empty folder, imports strata there and fails if the marker appears.

usage: check_runpath.py FOLDER... [--plant PYTHON PYTHONPATH]
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ELF_MAGIC = b"\x7fELF"
ET_EXEC, ET_DYN = 2, 3


def linked_elf(path):
    """True for an executable or shared object (not an object file, an archive or a firmware image's code)."""
    try:
        with open(path, "rb") as f:
            head = f.read(18)
    except OSError:
        return False
    if len(head) < 18 or head[:4] != ELF_MAGIC:
        return False
    e_type = int.from_bytes(head[16:18], "little" if head[5] == 1 else "big")
    return e_type in (ET_EXEC, ET_DYN)


def search_paths(path):
    """The RUNPATH and RPATH entries of one file, as readelf prints them."""
    out = subprocess.run(["readelf", "-d", "-W", path], capture_output=True, text=True, check=False).stdout
    entries = []
    for m in re.finditer(r"\((?:RUNPATH|RPATH)\)\s+Library (?:runpath|rpath): \[(.*)\]", out):
        entries.extend(m.group(1).split(":"))
    return entries


def bad_entry(entry):
    if entry == "":
        return "an empty entry (the current directory)"
    if entry.startswith("$ORIGIN") or entry.startswith("${ORIGIN}"):
        return None
    if not entry.startswith("/"):
        return "a relative entry (searched from the current directory)"
    return None


def check_folders(folders):
    checked, problems = 0, []
    for top in folders:
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = [d for d in dirnames if d not in ("CMakeFiles", ".venv", "venv")]
            for name in filenames:
                path = os.path.join(dirpath, name)
                if os.path.islink(path) or not linked_elf(path):
                    continue
                checked += 1
                for entry in search_paths(path):
                    why = bad_entry(entry)
                    if why:
                        problems.append(f"{path}: library search path has {why}: '{entry}'")
    return checked, problems


def plant(python, pythonpath):
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        print("check_runpath: no C compiler to build the planted library", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as scratch:
        marker = os.path.join(scratch, "planted-code-ran")
        src = os.path.join(scratch, "planted.c")
        with open(src, "w") as f:
            f.write('#include <stdio.h>\n__attribute__((constructor)) static void ran(void) {\n'
                    f'  FILE *f = fopen("{marker}", "w"); if (f) fclose(f);\n}}\n')
        folder = os.path.join(scratch, "cwd")
        os.mkdir(folder)
        # The library the attack planted: the modules need it and it has no symbols they could miss, so the
        # loader that finds it there runs its constructor.
        subprocess.run([cc, "-shared", "-fPIC", "-o", os.path.join(folder, "libatomic.so.1"), src], check=True)
        env = dict(os.environ, PYTHONPATH=os.path.abspath(pythonpath))
        env.pop("LD_LIBRARY_PATH", None)
        run = subprocess.run([python, "-c", "import strata, strata._strata; print(strata.backends())"], cwd=folder,
                             env=env, capture_output=True, text=True, check=False)
        if os.path.exists(marker):
            print("check_runpath: import strata in a folder with planted libraries ran their code", file=sys.stderr)
            return 1
        if run.returncode != 0:
            print(f"check_runpath: import strata failed there:\n{run.stderr}", file=sys.stderr)
            return 1
        print("check_runpath: import strata in a folder of planted libraries loaded none of them")
    return 0


def main(argv):
    if "--plant" in argv:
        i = argv.index("--plant")
        if len(argv) < i + 3:
            print(__doc__.strip().splitlines()[-1], file=sys.stderr)
            return 2
        python, pythonpath = argv[i + 1], argv[i + 2]
        folders = argv[:i] + argv[i + 3:]
    else:
        python = pythonpath = None
        folders = argv
    if not folders:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    if not shutil.which("readelf"):
        print("check_runpath: skipped: no readelf (Debian's binutils)")
        return 77
    checked, problems = check_folders(folders)
    for p in problems:
        print(p, file=sys.stderr)
    if checked == 0:
        print(f"check_runpath: no program or shared object under {' '.join(folders)}", file=sys.stderr)
        return 1
    if problems:
        print(f"check_runpath: {len(problems)} bad search path entries in {checked} files", file=sys.stderr)
        return 1
    print(f"check_runpath: {checked} programs and shared objects, every library search path absolute or $ORIGIN")
    return plant(python, pythonpath) if python else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
