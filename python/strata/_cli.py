"""The command-line tools of a pip-installed strata: strata-replay, strata-compare, strata-import, strata-fit,
strata-explain (and strata-sim where the wheel was built with the sim backend) are console scripts that run the programs
installed in the package, strata/bin/, with the same arguments, standard streams and exit status (pyproject.toml)."""
import os
import sys


def _run(tool):
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", tool)
    if not os.access(path, os.X_OK):
        sys.stderr.write(f"{tool}: not in this installation of strata ({path} is missing)"
                         + (": build the wheel with --config-settings=cmake.define.STRATA_BUILD_SIM=ON "
                            "--config-settings=cmake.define.STRATA_BUILD_FIRMWARE_IMAGES=ON (docs/python.md)"
                            if tool == "strata-sim" else "") + "\n")
        return 2
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(path, [tool] + sys.argv[1:])


def replay():
    return _run("strata-replay")


def compare():
    return _run("strata-compare")


def import_():
    return _run("strata-import")


def sim():
    return _run("strata-sim")


def fit():
    return _run("strata-fit")


def explain():
    return _run("strata-explain")
