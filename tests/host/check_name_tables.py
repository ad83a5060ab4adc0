#!/usr/bin/env python3
"""Every list of names a user picks from, held against its one table (host/tool/names.h).

The tables come from the C++ itself (name_tables prints them); every consumer must list the same names in the same
order: each tool's --help and its message for a name it does not know, Python's constants, and the docs' lists.
Adding a preset, a format or a backend is one row in its table; this test then says which doc still lacks it.

usage: check_name_tables.py ROOT NAME_TABLES STRATA_REPLAY STRATA_IMPORT STRATA_COMPARE
                            [--sim STRATA_SIM] [--mlp STRATA_MLP] [--python PYTHON PYTHONPATH]
"""
import json
import os
import re
import subprocess
import sys


def run(argv, env=None):
    """(exit status, stdout + stderr) of a program run without a shell."""
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, timeout=120)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def flat(text):
    """Text with every run of blanks and newlines as one space: lists that a help text or a doc wraps still match."""
    return re.sub(r"\s+", " ", text)


def join(names, sep=", ", last=", "):
    return "".join((n if i == 0 else (last if i + 1 == len(names) else sep) + n) for i, n in enumerate(names))


def with_default(names, default, last=" or "):
    return join([n + " (default)" if n == default else n for n in names], ", ", last)


class Checker:
    def __init__(self):
        self.failures = []
        self.checks = 0

    def has(self, where, text, wanted):
        self.checks += 1
        if flat(wanted) not in flat(text):
            self.failures.append(f"{where}: does not list {wanted!r}")

    def equal(self, where, got, wanted):
        self.checks += 1
        if got != wanted:
            self.failures.append(f"{where}: {got!r}, the table has {wanted!r}")


def main():
    args = sys.argv[1:]
    opts = {}
    for flag, count in (("--sim", 1), ("--mlp", 1), ("--python", 2)):
        if flag in args:
            i = args.index(flag)
            opts[flag] = args[i + 1:i + 1 + count]
            del args[i:i + 1 + count]
    root, name_tables, replay, importer, compare = args
    status, out = run([name_tables])
    if status != 0:
        sys.exit(f"check_name_tables: {name_tables} failed:\n{out}")
    tables = {t["table"]: t for t in map(json.loads, out.splitlines())}
    hbm, formats, backends = tables["hbm_presets"], tables["formats"], tables["replay_backends"]
    policies, host_policies = tables["gpu_policies"], tables["host_policies"]
    contenders, tpu = tables["contenders"], tables["tpu_presets"]
    c = Checker()

    # strata-replay: the usage line, --help's lists, and the messages for a name it does not know.
    _, text = run([replay, "--help"])
    c.has("strata-replay --help", text, "[--backend " + "|".join(backends["names"]) + "]")
    c.has("strata-replay --help", text, "[--hbm " + "|".join(hbm["names"]) + "]")
    for name in backends["names"]:
        c.has("strata-replay --help", text, name + (" (default)" if name == backends["default"] else "") + ": ")
    c.has("strata-replay --help", text, "an XLA dump): " + join(formats["names"]) + " (docs/jax.md)")
    c.has("strata-replay --help", text,
          "gpu-emu, cuda: " + with_default(policies["names"], policies["default"], ", ") + "; each reads")
    c.has("strata-replay --help", text, "sim: HBM preset (default " + hbm["default"] + ")")
    # strata-replay --list-options: each backend's options as the driver describes them, the tables' names among them.
    listed = {}
    for backend in ("sim", "gpu-emu", "host"):
        status, text = run([replay, "--list-options", backend, "--json"])
        if status == 0:
            listed[backend] = {o["name"]: o for o in map(json.loads, text.splitlines())}
    for backend, option, table in (("sim", "hbm_preset", hbm), ("gpu-emu", "policy", policies),
                                   ("host", "policy", host_policies)):
        if backend in listed:
            o = listed[backend][option]
            c.equal(f"strata-replay --list-options {backend}: {option}", o["choices"], table["names"])
            if table.get("default"):
                c.equal(f"strata-replay --list-options {backend}: {option}'s default", o["default"], table["default"])
    _, text = run([replay, "t.csv", "--backend", "nope"])
    c.has("strata-replay --backend nope", text, f"unknown backend 'nope' ({join(backends['names'], ', ', ' or ')})")
    _, text = run([replay, "t.csv", "--hbm", "nope"])
    c.has("strata-replay --hbm nope", text, f"unknown HBM preset 'nope' ({join(hbm['names'], ', ', ' or ')})")
    _, text = run([replay, "t.csv", "--policy", "nope"])
    c.has("strata-replay --policy nope", text, "(" + join(host_policies["names"]) + "); with --backend gpu-emu: " +
          join(policies["names"]))
    unknown_format = f"unknown format 'nope' ({join(formats['names'])})"
    for tool, argv in (("strata-replay", [replay, "t.csv"]), ("strata-import", [importer, "t.csv"]),
                       ("strata-compare", [compare, "t.csv"])):
        _, text = run(argv + ["--format", "nope"])
        c.has(f"{tool} --format nope", text, unknown_format)

    # strata-import and strata-compare: the formats in the usage line and in --format's help.
    _, text = run([importer, "--help"])
    c.has("strata-import --help", text, "[--format " + "|".join(formats["names"]) + "]")
    for name in formats["names"]:
        c.has("strata-import --help", text, name + (" (default)" if name == formats["default"] else "") + ": ")
    _, text = run([compare, "--help"])
    c.has("strata-compare --help", text, with_default(formats["names"], formats["default"]) + " (strata-import --help)")
    # strata-compare and strata.compare: Strata's backends, the subset of the replay backends it runs on.
    strata_backends = tables["strata_backends"]["names"]
    c.has("strata-compare --help", text, "[--backend " + "|".join(strata_backends) + "]")
    _, text = run([compare, "t.csv", "--backend", "nope"])
    c.has("strata-compare --backend nope", text, "--backend 'nope': " + join(strata_backends, last=" or ") + " (")
    _, text = run([compare, "t.csv", "--contenders", "nope"])
    c.has("strata-compare --contenders nope", text, "a comma-separated list of: " + join(contenders["names"]) + ")")

    # strata-sim and strata-mlp (where the build has the model): --hbm's help and message.
    if "--sim" in opts:
        sim = opts["--sim"][0]
        _, text = run([sim, "--help"])
        c.has("strata-sim --help", text, with_default(hbm["names"], hbm["default"]))
        _, text = run([sim, "--hbm", "nope", os.path.join(root, "README.md")])
        c.has("strata-sim --hbm nope", text, f"unknown --hbm preset 'nope' ({join(hbm['names'])})")
    if "--mlp" in opts:
        _, text = run([opts["--mlp"][0], "--help"])
        c.has("strata-mlp --help", text, with_default(hbm["names"], hbm["default"], ", "))

    # Python: the constants and functions of `import strata` (and the sim backend's hbm_preset help, over the C API).
    if "--python" in opts:
        python, path = opts["--python"]
        env = dict(os.environ, PYTHONPATH=path)
        script = (
            "import json, strata, strata.workload\n"
            "sim = [o for b in strata.backends() if b == 'sim' for o in strata.backend_options('sim')]\n"
            "help = [o['help'] for o in sim if o['name'] == 'hbm_preset']\n"
            "try:\n"
            "    strata.replay([(0, 0, 1, 256)], backend='nope')\n"
            "    unknown = ''\n"
            "except ValueError as e:\n"
            "    unknown = str(e)\n"
            "try:\n"
            "    strata.compare([(0, 0, 1, 256)], backend='nope')\n"
            "    unknown_compare = ''\n"
            "except ValueError as e:\n"
            "    unknown_compare = str(e)\n"
            "opts = {b + ' ' + o['name']: [o['choices'], o['default']] for b in ('sim', 'gpu-emu', 'host')\n"
            "        if b in strata.backends() for o in strata.backend_options(b) if o['name'] in ('hbm_preset', 'policy')}\n"
            "print(json.dumps({'HBM_PRESETS': list(strata.HBM_PRESETS), 'FORMATS': list(strata.FORMATS),\n"
            "    'REPLAY_BACKENDS': list(strata.REPLAY_BACKENDS), 'gpu_policies': strata.gpu_policies(),\n"
            "    'contenders': strata.contenders(), 'TPU_PRESETS': list(strata.workload.TPU_PRESETS.items()),\n"
            "    'hbm_preset_help': help, 'unknown_backend': unknown, 'unknown_compare_backend': unknown_compare,\n"
            "    'options': opts}))\n")
        status, out = run([python, "-c", script], env=env)
        if status != 0:
            c.failures.append(f"python: failed:\n{out}")
        else:
            py = json.loads(out.splitlines()[-1])
            c.equal("strata.HBM_PRESETS", py["HBM_PRESETS"], hbm["names"])
            c.equal("strata.FORMATS", py["FORMATS"], formats["names"])
            c.equal("strata.REPLAY_BACKENDS", py["REPLAY_BACKENDS"], backends["names"])
            c.equal("strata.gpu_policies()", py["gpu_policies"], policies["names"])
            c.equal("strata.contenders()", py["contenders"], contenders["names"])
            c.equal("strata.workload.TPU_PRESETS", py["TPU_PRESETS"], [list(p) for p in zip(tpu["names"],
                                                                                             tpu["hbm_bytes"])])
            c.has("strata.replay(backend='nope')", py["unknown_backend"], "(" + join(backends["names"]) + ")")
            c.has("strata.compare(backend='nope')", py["unknown_compare_backend"],
                  "backend 'nope': " + join(strata_backends, last=" or "))
            # The backends' option tables as Python reads them (strata.backend_options: choices, typed default).
            for key, table in (("sim hbm_preset", hbm), ("gpu-emu policy", policies), ("host policy", host_policies)):
                if key in py["options"]:  # none where the build has no such backend
                    choices, default = py["options"][key]
                    c.equal(f"strata.backend_options: {key}'s choices", choices, table["names"])
                    c.equal(f"strata.backend_options: {key}'s default", default, table["default"])
            for text in py["hbm_preset_help"]:  # none where the build has no sim backend
                c.has("strata.backend_options('sim') hbm_preset", text, join(hbm["names"], ", ", " or "))

    # The docs' lists (and the C header's comment), read as a person reads them.
    def doc(path):
        with open(os.path.join(root, path), encoding="utf-8") as f:
            return f.read()

    c.has("README.md --hbm", doc("README.md"), with_default(hbm["names"], hbm["default"]))
    c.has("README.md policies", doc("README.md"), "(policies " + join([f"`{p}`" for p in policies["names"]]) + ";")
    c.has("docs/runtime.md synopsis", doc("docs/runtime.md"), "[--hbm " + "|".join(hbm["names"]) + "]")
    c.has("docs/runtime.md --backend foo", doc("docs/runtime.md"),
          f"unknown backend 'foo' ({join(backends['names'], ', ', ' or ')})")
    c.has("docs/workloads.md synopsis", doc("docs/workloads.md"), "[--format " + "|".join(formats["names"]) + "]")
    c.has("docs/allocator.md synopsis", doc("docs/allocator.md"), "[--policy " + "|".join(host_policies["names"]) + "]")
    c.has("strata.h hbm_preset", doc("host/driver/include/strata/strata.h"),
          join([f'"{n}"' + (" (default)" if n == hbm["default"] else "") for n in hbm["names"]]))
    for name, hbm_bytes in zip(tpu["names"], tpu["hbm_bytes"]):
        c.has("docs/jax.md TPU presets", doc("docs/jax.md"), f"| `{name}` | {hbm_bytes >> 30} GiB |")
    gpu_doc = doc("docs/gpu-policies.md")
    rows = [m.group(1) for m in re.finditer(r"^\| `([a-z][a-z-]*)` \|", gpu_doc, re.M)]
    c.equal("docs/gpu-policies.md table", rows[:len(policies["names"])], policies["names"])  # its first table

    for f in c.failures:
        print("check_name_tables:", f)
    if c.failures:
        sys.exit(1)
    print(f"check_name_tables: {len(tables)} tables, {c.checks} consumers agree")


if __name__ == "__main__":
    main()
