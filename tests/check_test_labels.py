#!/usr/bin/env python3
"""Every CTest test in a build names what it needs (cmake/StrataTesting.cmake), and the sanitizer selection
(ctest -L '^unit$', scripts/test-sanitizers.sh) holds the tests it must: each prefix given has a test in it.

usage: check_test_labels.py CTEST BUILD_DIR NEEDS PREFIX...
NEEDS: the need labels, ','-separated (STRATA_TEST_NEEDS); PREFIX: a test-name prefix the unit selection must
include, such as compare. or workload.
"""
import json
import subprocess
import sys


def tests_of(ctest, build, *args):
    out = subprocess.run([ctest, "--test-dir", build, "--show-only=json-v1", *args], check=True,
                         capture_output=True, text=True).stdout
    result = {}
    for test in json.loads(out)["tests"]:
        labels = []
        for prop in test.get("properties", []):
            if prop["name"] == "LABELS":
                labels = prop["value"]
        result[test["name"]] = labels
    return result


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    ctest, build, needs = sys.argv[1], sys.argv[2], sys.argv[3].replace(";", ",").split(",")
    prefixes = sys.argv[4:]
    every = tests_of(ctest, build)
    bad = []
    for name, labels in sorted(every.items()):
        if name.endswith("_NOT_BUILT"):
            bad.append(f"{name}: the target is not built (build `all` first)")
            continue
        have = [label for label in labels if label in needs]
        if not have:
            bad.append(f"{name}: labels {labels} name none of {needs}")
        elif "unit" in have and len(have) > 1:
            bad.append(f"{name}: labels {labels}: unit means it needs nothing else")
    unit = tests_of(ctest, build, "-L", "^unit$")
    for prefix in prefixes:
        if not any(name.startswith(prefix) for name in unit):
            bad.append(f"the unit selection has no test named {prefix}*")
    if bad:
        print("check_test_labels: " + "\n".join(bad))
        return 1
    counts = ", ".join(f"{prefix}* {sum(name.startswith(prefix) for name in unit)}" for prefix in prefixes)
    print(f"check_test_labels: {len(every)} tests, each names what it needs; "
          f"the unit selection runs {len(unit)} of them ({counts})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
