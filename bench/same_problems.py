#!/usr/bin/env python3
"""How many counterexamples of a `verify --format json` report pose the same
maximisation up to renaming of states and rules: per step the guards of the
state's rules in file order, the index of the rule taken and its body (all but
id, from and to);
then the failure (step, action, condition). Boundary-only ones are skipped
(they are not ranked). Boxes and starts are not compared: equal keys are
only candidates for a memo of the search's result.
Usage (from the repository root):
  build/release/ismv verify examples/robotcar/explorer.yaml --bound 8 \\
    --probability none --all --format json --jobs 1 --search full > /tmp/b8.json
  python3 bench/same_problems.py examples/robotcar/explorer.yaml /tmp/b8.json
"""
import collections
import json
import sys

import yaml


def main(model_path, report_path):
    model = yaml.safe_load(open(model_path))
    report = json.load(open(report_path))
    rules = {r["id"]: r for r in model["rules"]}
    by_state = collections.defaultdict(list)
    for r in model["rules"]:
        by_state[r["from"]].append(r["id"])
    groups = collections.Counter()
    for c in report["counterexamples"]:
        if c.get("boundary_only") is True:
            continue
        key = []
        for k, rid in enumerate(c["path"]):
            state = c["states"][k]
            guards = tuple(rules[q]["when"] for q in by_state[state])
            body = {k: v for k, v in rules[rid].items() if k not in ("id", "from", "to")}
            key.append((guards, by_state[state].index(rid), json.dumps(body, sort_keys=True)))
        f = c["failure"]
        key.append((f["step"], f["action"], f["condition"]))
        groups[tuple(key)] += 1
    n = sum(groups.values())
    repeats = sum(v - 1 for v in groups.values())
    largest = max(groups.values()) if groups else 0
    print(f"{report_path}: {n} counterexamples, {len(groups)} distinct problems up to renaming, "
          f"{repeats} repeats, largest group {largest}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
