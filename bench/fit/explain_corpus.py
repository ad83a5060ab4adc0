#!/usr/bin/env python3
"""strata-explain scored on the corpus of real OOM messages (tests/fit/corpus, issue 49).

For every message: was it read (exit 0), is its kind the one the message's own arithmetic gives (the file's `kind`,
worked by hand; `unknown` ones are not counted as decided), does any advice line name a setting the poster already had
on (`already`), and is the fix the thread reports (`resolved`) among the advice. One JSON object per line: the whole
corpus, then each framework, then each expected kind.

usage: explain_corpus.py STRATA_EXPLAIN CORPUS_DIR [--check] [--list]
  --check  exit 1 unless read >= 95 %, verdict = arithmetic on >= 85 % of the decided, resolved fix among the advice on
           >= 70 % of the resolved threads, and no advice names a setting already on (issue 49's thresholds)
  --list   also print each message that misses, on standard error
"""
import json
import os
import subprocess
import sys

THRESHOLDS = {"read_pct": 95.0, "verdict_pct": 85.0, "resolved_pct": 70.0, "already_advised": 0}


def load(path):
    head, _, message = open(path, encoding="utf-8").read().partition("--- message\n")
    fields = {}
    for line in head.splitlines():
        key, _, value = line.partition(": ")
        fields[key.strip()] = value.strip()
    fields["message"] = message
    fields["file"] = os.path.basename(path)
    return fields


def words(value):
    return [] if value in ("", "-") else [w.strip() for w in value.split(",") if w.strip()]


def explain(tool, entry):
    args = [tool, "-", "--json"]
    for setting in words(entry.get("already", "-")):
        args += ["--set", setting]
    p = subprocess.run(args, input=entry["message"].encode(), capture_output=True, timeout=60)
    if p.returncode != 0:
        return None, p.stderr.decode(errors="replace").strip()
    return json.loads(p.stdout), ""


def score(results):
    read = [r for r in results if r["out"] is not None]
    decided = [r for r in results if r["kind"] != "unknown"]
    verdict_ok = [r for r in decided if r["out"] is not None and r["out"]["kind"] == r["kind"]]
    resolved = [r for r in results if words(r["resolved"])]
    resolved_ok = [r for r in resolved if r["fix_named"]]
    pct = lambda a, b: round(100.0 * len(a) / len(b), 1) if b else None
    return {
        "messages": len(results), "read": len(read), "read_pct": pct(read, results),
        "decided": len(decided), "verdict_ok": len(verdict_ok), "verdict_pct": pct(verdict_ok, decided),
        "resolved": len(resolved), "resolved_ok": len(resolved_ok), "resolved_pct": pct(resolved_ok, resolved),
        "already_advised": sum(1 for r in results if r["already_advised"]),
    }


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    check, listing = "--check" in sys.argv, "--list" in sys.argv
    if len(args) != 2:
        sys.exit(__doc__)
    tool, corpus = args
    files = sorted(f for f in os.listdir(corpus) if f.endswith(".txt"))
    results = []
    for name in files:
        entry = load(os.path.join(corpus, name))
        out, err = explain(tool, entry)
        advice = " | ".join(out["advice"]).lower() if out else ""
        r = {"file": name, "framework": entry["framework"], "kind": entry["kind"], "resolved": entry.get("resolved", "-"),
             "out": out, "error": err,
             "fix_named": any(w.lower() in advice for w in words(entry.get("resolved", "-"))),
             "already_advised": any(w.lower() in advice for w in words(entry.get("already", "-")))}
        results.append(r)
        if listing and (out is None or (entry["kind"] != "unknown" and out["kind"] != entry["kind"]) or
                        (words(r["resolved"]) and not r["fix_named"]) or r["already_advised"]):
            got = out["kind"] if out else "not read: " + err
            print(f"{name}: expected {entry['kind']}, got {got}; resolved {r['resolved']}: "
                  f"{'named' if r['fix_named'] else 'not named'}", file=sys.stderr)
    total = score(results)
    print(json.dumps({"bench": "explain_corpus", "scope": "all", **total}))
    for scope, key in (("framework", "framework"), ("kind", "kind")):
        for value in sorted({r[key] for r in results}):
            print(json.dumps({"bench": "explain_corpus", "scope": f"{scope}:{value}",
                              **score([r for r in results if r[key] == value])}))
    if check:
        misses = [f"{k} {total[k]} (needs {'<=' if k == 'already_advised' else '>='} {v})"
                  for k, v in THRESHOLDS.items()
                  if total[k] is not None and (total[k] > v if k == "already_advised" else total[k] < v)]
        if misses:
            sys.exit("explain_corpus: below issue 49's thresholds: " + "; ".join(misses))
        print(f"explain_corpus: {total['messages']} messages, thresholds met")


if __name__ == "__main__":
    main()
